import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Archives whose objects form a DAG that doubles at each level: a few
/// dozen objects stored, 2⁴⁰ visited by a reader that walks them as a
/// tree. As a value, as a validation predicate and as a fetch request
/// template, in a model cache and in a `.mom` file: each reading stops
/// with an error once it has visited what `ArchiveWork` allows, and a
/// real-sized model stays far below that.
@Suite struct ArchiveWorkTests {
    /// How many times each DAG doubles.
    static let levels = 40

    /// An NSArray of two references to an NSArray of two references to …
    /// `levels` deep, around `leaf`.
    static func doublingArray(_ levels: Int, leaf: ArchiveItem = .string("x")) -> ArchiveNode {
        var node = ArchiveNode.array([leaf, leaf])
        for _ in 1..<levels { node = ArchiveNode.array([.node(node), .node(node)]) }
        return node
    }

    /// An AND of the same predicate twice, `levels` deep, around `leaf`.
    static func doublingPredicate(_ levels: Int, leaf: ArchiveNode? = nil) -> ArchiveNode {
        var node = leaf ?? ArchiveNode(["NSTruePredicate", "NSPredicate", "NSObject"])
        for _ in 0..<levels {
            let and = ArchiveNode(["NSCompoundPredicate", "NSPredicate", "NSObject"])
            and.set("NSSubpredicates", .object(.node(.array([.node(node), .node(node)]))))
            and.set("NSCompoundPredicateType", .int(1))
            node = and
        }
        return node
    }

    /// `key == 1` with `key` as long as asked.
    static func comparison(keyPath: String) -> ArchiveNode {
        func expression(_ name: String, _ type: Int, superclasses: [String] = ["NSExpression", "NSObject"]) -> ArchiveNode {
            let node = ArchiveNode([name] + superclasses)
            node.set("NSExpressionType", .int(type))
            return node
        }
        let specifier = expression("NSKeyPathSpecifierExpression", 10)
        specifier.set("NSKeyPath", .object(.string(keyPath)))
        let path = expression("NSKeyPathExpression", 3, superclasses: ["NSFunctionExpression", "NSExpression", "NSObject"])
        path.set("NSSelectorName", .object(.string("valueForKey:")))
        path.set("NSOperand", .object(.node(expression("NSSelfExpression", 1))))
        path.set("NSArguments", .object(.node(.array([.node(specifier)]))))
        let constant = expression("NSConstantValueExpression", 0)
        constant.set("NSConstantValue", .object(.int(1)))
        let op = ArchiveNode(["NSEqualityPredicateOperator", "NSPredicateOperator", "NSObject"])
        op.set("NSOperatorType", .int(4))
        op.set("NSModifier", .int(0))
        let node = ArchiveNode(["NSComparisonPredicate", "NSPredicate", "NSObject"])
        node.set("NSLeftExpression", .object(.node(path)))
        node.set("NSRightExpression", .object(.node(constant)))
        node.set("NSPredicateOperator", .object(.node(op)))
        return node
    }

    /// A small model: `Person` with a string `name` and an integer `age`,
    /// and a fetch request template `adults`.
    static func model() throws -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        person.add(AttributeDescription(name: "name", type: .string))
        person.add(AttributeDescription(name: "age", type: .integer32))
        let model = try ManagedObjectModel(entities: [person])
        try model.setFetchRequestTemplate(FetchRequest(entityName: "Person", predicate: try Predicate(format: "age >= 18")), forName: "adults")
        return model
    }

    /// The model's archive with `change` made to its object graph first.
    static func archive(_ change: (ArchiveNode) throws -> Void) throws -> Data {
        let model = try model()
        var encoder = CoreDataModelEncoder(model: model, templates: [
            ArchivedFetchRequestTemplate(name: "adults", entityName: "Person", predicateFormat: "age >= 18"),
        ])
        let root = try encoder.encode()
        try change(root)
        return KeyedArchiveWriter.archive(root: root)
    }

    /// The first node of the graph from `root` whose class is `className`
    /// and, when given, whose `NSPropertyName` is `name`.
    static func node(in root: ArchiveNode, _ className: String, named name: String? = nil) -> ArchiveNode? {
        var seen: Set<ObjectIdentifier> = []
        var stack = [root]
        while let node = stack.popLast() {
            guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
            if node.classes.first == className {
                let property = node.fields.lazy.compactMap { key, field -> String? in
                    guard key == "NSPropertyName", case .object(.string(let s)) = field else { return nil }
                    return s
                }.first
                if name == nil || property == name { return node }
            }
            for (_, field) in node.fields {
                switch field {
                case .object(.node(let next)): stack.append(next)
                case .conditional(let next?): stack.append(next)
                case .items(let items):
                    for case .node(let next) in items { stack.append(next) }
                default: break
                }
            }
        }
        return nil
    }

    /// Decodes `data` as the model loaders do, then its fetch request
    /// templates (which a model reads when they are first asked for), and
    /// returns the error and the work spent.
    static func decode(_ data: Data) throws -> (error: KeyedArchiveError?, work: ArchiveWork) {
        let archive = try KeyedArchive(data)
        var decoder = CoreDataModelDecoder(archive)
        do {
            _ = try decoder.decode().templates.read()
            return (nil, archive.work)
        } catch let error as KeyedArchiveError {
            return (error, archive.work)
        }
    }

    @Test func aDoublingValueStopsAtTheVisitLimit() throws {
        let data = KeyedArchiveWriter.archive(root: Self.doublingArray(Self.levels))
        let archive = try KeyedArchive(data)
        #expect(archive.objects.count < 50)
        let error = #expect(throws: KeyedArchiveError.self) { _ = try archive.value(at: archive.topReference()) }
        #expect(error?.description.contains("visits more than \(archive.work.visitLimit) objects") == true, "\(String(describing: error))")
        #expect(archive.work.visitLimit == ArchiveWork.minimumVisits)
        #expect(archive.work.visits == archive.work.visitLimit + 1)
    }

    /// The same DAG a few levels deep reads whole: the limit is on work,
    /// not on sharing.
    @Test func aSmallDAGReadsWhole() throws {
        let archive = try KeyedArchive(KeyedArchiveWriter.archive(root: Self.doublingArray(8)))
        let value = try archive.value(at: archive.topReference())
        func leaves(_ v: ArchivedValue) -> Int {
            if case .array(let items) = v { return items.map(leaves).reduce(0, +) }
            return 1
        }
        #expect(leaves(value) == 256)
    }

    @Test func aDoublingDefaultValueInAModelStops() throws {
        let data = try Self.archive { root in
            let name = try #require(Self.node(in: root, "NSAttributeDescription", named: "name"))
            name.set("NSDefaultValue", .object(.node(Self.doublingArray(Self.levels))))
        }
        let (error, work) = try Self.decode(data)
        #expect(error?.description.contains("key 'NSDefaultValue'") == true, "\(String(describing: error))")
        #expect(error?.description.contains("visits more than") == true)
        #expect(work.visits == work.visitLimit + 1)
        let modelError = #expect(throws: ModelError.self) { _ = try ManagedObjectModel(coreDataArchive: data) }
        #expect(modelError?.message.hasPrefix("not a Core Data model: object ") == true, "\(String(describing: modelError))")
    }

    @Test func aDoublingValidationPredicateInAModelCacheStops() throws {
        let data = try Self.archive { root in
            let age = try #require(Self.node(in: root, "NSAttributeDescription", named: "age"))
            age.set("NSValidationPredicates", .object(.node(.array([.node(Self.doublingPredicate(Self.levels))]))))
            age.set("NSValidationWarnings", .object(.node(.array([.string("too old")]))))
            // _P would say "no validation predicates": 0 has the keys read.
            age.set("_P", .int(0))
        }
        let (error, work) = try Self.decode(data)
        #expect(error?.description.contains("visits more than") == true, "\(String(describing: error))")
        #expect(work.visits == work.visitLimit + 1)
        // As a store keeps it, and as a store's model is read.
        let error2 = #expect(throws: StoreError.self) { _ = try CoreDataMetadata.model(fromCache: Deflate.compress(data)) }
        #expect(error2?.message.contains("the model the store keeps cannot be read: not a Core Data model: ") == true)
        #expect(error2?.message.contains("visits more than") == true, "\(String(describing: error2))")
    }

    @Test func aDoublingFetchRequestTemplateInAMomFileStops() throws {
        let data = try Self.archive { root in
            let request = try #require(Self.node(in: root, "NSFetchRequest"))
            request.set("NSPredicate", .object(.node(Self.doublingPredicate(Self.levels))))
        }
        let (error, work) = try Self.decode(data)
        #expect(error?.description.contains("visits more than") == true, "\(String(describing: error))")
        #expect(work.visits == work.visitLimit + 1)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-dag-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mom = directory.appendingPathComponent("Model.mom")
        try data.write(to: mom)
        // The model reads its templates when one is first asked for: the
        // model loads, and the template says why it cannot be read.
        let model = try ManagedObjectModel(contentsOf: mom)
        #expect(model.entity(named: "Person") != nil)
        #expect(model.fetchRequestTemplatesByName["adults"] == nil)
        let modelError = #expect(throws: ModelError.self) {
            _ = try model.fetchRequestFromTemplate(withName: "adults", substitutionVariables: [:])
        }
        #expect(modelError?.description.contains("fetch request template 'adults' cannot be read") == true, "\(String(describing: modelError))")
        #expect(modelError?.description.contains("visits more than") == true)
    }

    /// A long key path met through many paths: the visits stay few, the
    /// bytes the predicate's text would copy do not.
    @Test func aLongStringMetThroughManyPathsStopsAtTheByteLimit() throws {
        let long = String(repeating: "k", count: 1 << 20)
        let data = try Self.archive { root in
            let request = try #require(Self.node(in: root, "NSFetchRequest"))
            request.set("NSPredicate", .object(.node(Self.doublingPredicate(12, leaf: Self.comparison(keyPath: long)))))
        }
        let (error, work) = try Self.decode(data)
        #expect(error?.description.contains("hands out more than \(work.byteLimit) bytes") == true, "\(String(describing: error))")
        #expect(work.visits < 100_000)
        #expect(work.bytes > work.byteLimit && work.bytes <= work.byteLimit + long.utf8.count)
    }

    /// A model of 120 entities in hierarchies, each with attributes,
    /// relationships, validation rules, user info and defaults, visits few
    /// objects per object stored: far below `visitsPerObject`.
    @Test func aLargeModelStaysFarBelowTheLimits() throws {
        var entities: [EntityDescription] = []
        for i in 0..<120 {
            let entity = EntityDescription(name: "E\(i)", parent: i % 4 == 0 ? nil : "E\(i - i % 4)", userInfo: ["k": "v\(i)"])
            for j in 0..<8 {
                let attribute = AttributeDescription(name: "a\(i)_\(j)", type: j % 2 == 0 ? .integer64 : .string)
                if j % 2 == 0 {
                    attribute.minValue = .int(0)
                    attribute.maxValue = .int(100)
                    attribute.defaultValue = .int(7)
                } else {
                    attribute.regularExpression = "[a-z]+"
                    attribute.validationPredicates = [("length < 40 AND NOT (SELF BEGINSWITH 'x')", "bad")]
                }
                entity.add(attribute)
            }
            let next = "E\((i + 4) % 120)"
            entity.add(RelationshipDescription(name: "to\(i)", destination: next, inverse: nil))
            entity.add(RelationshipDescription(name: "many\(i)", destination: next, inverse: nil, isToMany: true))
            entities.append(entity)
        }
        let model = try ManagedObjectModel(entities: entities)
        for data in [try model.coreDataArchive(), try ModelFixtures.load("Everything.xcdatamodel").coreDataArchive()] {
            let (error, work) = try Self.decode(data)
            #expect(error == nil)
            let objects = try KeyedArchive(data).objects.count
            let perObject = Double(work.visits) / Double(objects)
            #expect(perObject < Double(ArchiveWork.visitsPerObject) / 4, "\(work.visits) visits for \(objects) objects")
            #expect(work.bytes < data.count * ArchiveWork.bytesPerArchiveByte / 8, "\(work.bytes) bytes for \(data.count)")
        }
    }
}
