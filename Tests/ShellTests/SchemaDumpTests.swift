import Foundation
import ObjectStore
import Predicates
import Testing
@testable import Shell

/// `.schema` and `.dump` read back into an empty store give the same
/// model, and the same objects and relationships.
@Suite struct SchemaDumpTests {
    // MARK: - Describing models and stores

    /// Everything the entity statement can say about a model, in a fixed
    /// order.
    static func describe(_ model: ManagedObjectModel) -> [String] {
        var lines: [String] = []
        func info(_ userInfo: [String: String]) -> String {
            userInfo.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        }
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name) parent=\(entity.parentName ?? "-") abstract=\(entity.isAbstract) info=\(info(entity.userInfo))")
            lines.append("  unique " + entity.uniquenessConstraints.map { $0.joined(separator: "+") }.sorted().joined(separator: " "))
            lines.append("  indexes " + entity.fetchIndexes.map { "\($0.name)(" + $0.elements.map { $0.property + ($0.ascending ? "" : "↓") }.joined(separator: ",") + ")" }.sorted().joined(separator: " "))
            for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) {
                var line = "  \(property.name) optional=\(property.isOptional) transient=\(property.isTransient) info=\(info(property.userInfo))"
                switch property {
                case let a as AttributeDescription:
                    line += " \(a.type.rawValue) default=\(a.defaultValue) min=\(a.minValue.map { "\($0)" } ?? "-") max=\(a.maxValue.map { "\($0)" } ?? "-")"
                    line += " pattern=\(a.regularExpression ?? "-") indexed=\(a.isIndexed)"
                case let r as RelationshipDescription:
                    line += " → \(r.destinationName) inverse=\(r.inverseName ?? "-") many=\(r.isToMany) ordered=\(r.isOrdered) rule=\(r.deleteRule)"
                    if r.isToMany { line += " count=\(r.minCount)...\(r.maxCount)" }
                default:
                    continue
                }
                lines.append(line)
            }
        }
        return lines
    }

    /// Every object of every entity: its attribute values, and for each
    /// relationship its destinations' values (in order when ordered).
    static func describe(_ session: ShellSession) throws -> [String] {
        func values(_ object: ManagedObject) -> String {
            object.entity.attributes.filter { !$0.isTransient }.map { "\($0.name)=\(object[$0.name])" }.joined(separator: " ")
        }
        var lines: [String] = []
        for entity in session.model.entities.sorted(by: { $0.name < $1.name }) {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try session.context.fetch(request) {
                var line = "\(entity.name): \(values(object))"
                for relationship in entity.relationships where !relationship.isTransient {
                    let destinations = relationship.isToMany
                        ? object.objects(forKey: relationship.name) : object.object(forKey: relationship.name).map { [$0] } ?? []
                    let described = destinations.map { "(\(values($0)))" }
                    line += " \(relationship.name)=[" + (relationship.isOrdered ? described : described.sorted()).joined(separator: ",") + "]"
                }
                lines.append(line)
            }
        }
        return lines.sorted()
    }

    /// A session with no model, `script` run in it.
    static func readBack(_ script: String) throws -> ShellSession {
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        let output = ShellHarness.Output()
        #expect(session.run(script, fileName: nil, output: output), "\(output.errors)")
        return session
    }

    // MARK: - .schema

    @Test func theSampleModelReadsBack() throws {
        let shell = try ShellHarness()
        let schema = shell.run(".schema")
        #expect(schema.ok)
        // Dependency order: Department is declared (without people) before
        // Person names it.
        let department = try #require(schema.text.range(of: "entity Department {"))
        let person = try #require(schema.text.range(of: "entity Person {"))
        #expect(department.lowerBound < person.lowerBound)
        #expect(schema.text.contains("age: Int16 = 0 min 0 max 150"))
        #expect(schema.text.contains("index byLastName (LastName, FirstName)"))
        #expect(schema.text.contains(#"userInfo { "relatedByAttribute": "personID" }"#))
        let again = try Self.readBack(schema.text)
        #expect(Self.describe(again.model) == Self.describe(shell.session.model))
    }

    /// Random models with every feature the entity statement spells.
    @Test(arguments: 0..<30)
    func randomModelsReadBack(seed: Int) throws {
        var generator = RandomModel(seed: UInt64(seed))
        let model = try generator.model()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Random.xcdatamodel")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try model.writeXcodeModel(to: path)
        let session = try ShellSession(modelPath: path.path, storePath: ":memory:")
        let output = ShellHarness.Output()
        #expect(session.run(".schema", fileName: nil, output: output))
        let again = try Self.readBack(output.text)
        #expect(Self.describe(again.model) == Self.describe(session.model), "\(output.text)")
    }

    @Test func compoundConstraintsAndIndexesAreCheckedWhenDeclared() throws {
        let shell = try ShellHarness(model: nil)
        let unknown = shell.run("entity A { x: String; unique (x, y) }")
        #expect(!unknown.ok)
        #expect(unknown.errors.contains("'y'"))
        let bad = shell.run(#"entity B { n: Int16 min "low" }"#)
        #expect(!bad.ok)
        #expect(bad.errors.contains("must be a Int16"))
        #expect(shell.run(#"entity C { a: String min 1 max 3 pattern "^[a-z]+$"; b: Int64; unique (a, b); index byB (b DESC, a) }"#).ok)
        let c = try #require(shell.session.model.entity(named: "C"))
        #expect(c.uniquenessConstraints == [["a", "b"]])
        #expect(c.fetchIndexes == [FetchIndexDescription(name: "byB", elements: [("b", false), ("a", true)])])
        #expect(shell.run(#"insert C { a: "toolong", b: 1 }"#).ok)
        #expect(!shell.run("save").ok)
    }

    // MARK: - .dump

    /// Random changes to the sample store through the shell fuzzer's
    /// statements, then `.dump` read into an empty store.
    @Test(arguments: 0..<12)
    func randomSampleStoresDumpAndReadBack(seed: Int) throws {
        let shell = try ShellHarness()
        var generator = StatementGenerator(seed: UInt64(seed), model: shell.session.model, directory: shell.directory.path)
        try generator.writeFiles()
        #expect(shell.run(#"import Person from "\#(ShellHarness.samples.path)/people.json""#).ok)
        for _ in 0..<40 {
            let entity = generator.entity()
            let name = entity?.name ?? "Person"
            switch generator.random.below(4) {
            case 0: shell.run(generator.update(entity, name))
            case 1: shell.run("delete " + generator.query(entity, name))
            default: shell.run(generator.insert(entity, name))
            }
        }
        // A store as saves leave it: random inserts may break the model's
        // rules, which the dump read back would then refuse to save.
        if !shell.run("save").ok { shell.run("rollback") }
        try Self.checkDump(of: shell.session)
    }

    /// Every kind of relationship: ordered, many-to-many, without inverse,
    /// naming its own object, through a parent and sub-entities.
    @Test(arguments: 0..<12)
    func randomGraphsDumpAndReadBack(seed: Int) throws {
        let shell = try ShellHarness(model: nil)
        #expect(shell.run("""
            entity Node { label: String; weight: Double; born: Date; blob: Data }
            entity Leaf : Node { color: String }
            entity Tag { word: String }
            entity Node { label: String; weight: Double; born: Date; blob: Data; parent: Node inverse children; children: [Node] inverse parent; tags: [Tag] inverse [nodes]; list: [Tag] ordered; best: Tag; twin: Node inverse twin }
            """).ok)
        var random = SplitMix64(seed: UInt64(seed))
        var nodes: [String] = [], tags: [String] = []
        for n in 0..<30 {
            switch random.below(3) {
            case 0:
                shell.run(#"let t\#(n) = insert Tag { word: "w\#(n % 7)" }"#)
                tags.append("$t\(n)")
            default:
                var parts = [#"label: "n\#(n)""#, "weight: \(Double(random.below(1000)) / 8)", "born: @2020-01-0\(1 + random.below(9))"]
                if random.below(3) == 0 { parts.append(#"blob: CAST("AAEC", "NSData")"#) }
                if !nodes.isEmpty, random.below(2) == 0 { parts.append("parent: \(nodes[random.below(nodes.count)])") }
                if !nodes.isEmpty, random.below(4) == 0 { parts.append("twin: \(nodes[random.below(nodes.count)])") }
                if !tags.isEmpty, random.below(2) == 0 { parts.append("tags: {" + (0..<(1 + random.below(3))).map { _ in tags[random.below(tags.count)] }.joined(separator: ", ") + "}") }
                if !tags.isEmpty, random.below(2) == 0 { parts.append("list: {" + (0..<(1 + random.below(3))).map { _ in tags[random.below(tags.count)] }.joined(separator: ", ") + "}") }
                if !tags.isEmpty, random.below(2) == 0 { parts.append("best: \(tags[random.below(tags.count)])") }
                let entity = random.below(3) == 0 ? "Leaf" : "Node"
                if entity == "Leaf" { parts.append(#"color: "c\#(n % 3)""#) }
                #expect(shell.run("let n\(n) = insert \(entity) { " + parts.joined(separator: ", ") + " }").ok)
                nodes.append("$n\(n)")
            }
            if random.below(8) == 0 { #expect(shell.run("save").ok) }
        }
        try Self.checkDump(of: shell.session)
    }

    static func checkDump(of session: ShellSession) throws {
        let output = ShellHarness.Output()
        #expect(session.run(".dump", fileName: nil, output: output))
        #expect(output.errors.isEmpty, "\(output.errors)")
        let again = try readBack(output.text)
        #expect(describe(again.model) == describe(session.model))
        #expect(try describe(again) == describe(session), "\(output.text)")
        #expect(!again.context.hasChanges)
    }

    @Test func dumpOfOneEntityHasItsObjectsOnly() throws {
        let shell = try ShellHarness()
        #expect(shell.run(#"import Person from "\#(ShellHarness.samples.path)/people.json""#).ok)
        let dump = shell.run(".dump Department")
        #expect(dump.ok)
        #expect(dump.text.contains("insert Department"))
        #expect(!dump.text.contains("insert Person"))
        let again = try Self.readBack(dump.text)
        #expect(try again.context.count(for: FetchRequest(entityName: "Department")) == shell.count("Department"))
        #expect(try again.context.count(for: FetchRequest(entityName: "Person")) == 0)
    }
}

/// A random model of what the entity statement can declare: attributes
/// of every stored type with defaults, bounds, patterns, user info;
/// parents; relationships of every kind with inverses; compound
/// uniqueness and fetch indexes.
struct RandomModel {
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func chance(_ percent: Int) -> Bool { random.below(100) < percent }

    mutating func model() throws -> ManagedObjectModel {
        let count = 2 + random.below(4)
        var entities: [EntityDescription] = []
        for e in 0..<count {
            let parent = e > 0 && chance(25) ? entities[random.below(e)].name : nil
            let entity = EntityDescription(name: "E\(e)", isAbstract: chance(10), parent: parent,
                                           userInfo: chance(30) ? ["relatedByAttribute": "a\(e)x0"] : [:])
            var names: [String] = []
            for a in 0..<(1 + random.below(5)) {
                let attribute = self.attribute("a\(e)x\(a)")
                entity.add(attribute)
                guard !attribute.isTransient else { continue }
                names.append(attribute.name)
                if chance(15) { entity.uniquenessConstraints.append([attribute.name]) }
            }
            if names.count > 1, chance(30) { entity.uniquenessConstraints.append(Array(names.prefix(2))) }
            if chance(30) {
                entity.fetchIndexes.append(FetchIndexDescription(name: "by\(e)", elements: names.prefix(2).map { ($0, chance(70)) }))
            }
            entities.append(entity)
        }
        // Relationships, most with an inverse on the other side.
        for r in 0..<random.below(count + 2) {
            let source = entities[random.below(count)], destination = entities[random.below(count)]
            let name = "r\(r)", inverse = "q\(r)"
            let many = chance(50), inverseMany = chance(50)
            let rules: [DeleteRule] = [.nullify, .cascade, .deny, .noAction]
            let forward = RelationshipDescription(
                name: name, destination: destination.name, inverse: chance(80) ? inverse : nil, isToMany: many,
                isOrdered: many && chance(20), deleteRule: rules[random.below(4)], isOptional: chance(80),
                minCount: many && chance(20) ? 1 : 0, maxCount: many && chance(20) ? 5 : 0,
                userInfo: chance(20) ? ["relatedByAttribute": "x"] : [:])
            source.add(forward)
            if forward.inverseName != nil {
                destination.add(RelationshipDescription(name: inverse, destination: source.name, inverse: name, isToMany: inverseMany,
                                                        deleteRule: rules[random.below(4)]))
            }
        }
        return try ManagedObjectModel(entities: entities)
    }

    mutating func attribute(_ name: String) -> AttributeDescription {
        let types: [AttributeType] = [.string, .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean, .date, .binary, .uuid, .uri]
        let type = types[random.below(types.count)]
        var defaultValue: Value = .null
        if chance(40) {
            switch type {
            case .string: defaultValue = .string(chance(50) ? "x \"quoted\"" : "é")
            case .integer16, .integer32, .integer64: defaultValue = .int(Int64(random.below(200)) - 50)
            case .double, .float: defaultValue = .double(Double(random.below(100)) / 4)
            case .decimal: defaultValue = .decimal(Decimal(string: "12.5")!)
            case .boolean: defaultValue = .bool(chance(50))
            case .date: defaultValue = .date(Date(timeIntervalSinceReferenceDate: Double(random.below(1_000_000))))
            default: break
            }
        }
        let attribute = AttributeDescription(name: name, type: type, isOptional: chance(70), isTransient: chance(5),
                                             defaultValue: defaultValue,
                                             userInfo: chance(30) ? ["mappedKeyName": "\(name)_json", "mappedKeyName.1": "alt"] : [:])
        if chance(30) {
            switch type {
            case .string, .binary: attribute.minValue = .int(1); attribute.maxValue = .int(40)
            case .integer16, .integer32, .integer64: attribute.minValue = .int(-5); attribute.maxValue = .int(500)
            case .double, .float: attribute.minValue = .double(0.5)
            case .date: attribute.maxValue = .date(Date(timeIntervalSinceReferenceDate: 2_000_000))
            default: break
            }
        }
        if type == .string, chance(30) { attribute.regularExpression = #"^[a-z]+\d*$"# }
        attribute.isIndexed = chance(10)
        return attribute
    }
}
