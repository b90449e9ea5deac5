import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// Names no Core Data model can hold are refused wherever a model comes
/// from — an Xcode model, a compiled `.mom`, a store's model cache, mrq's
/// stored model (SQLite and XML stores), the Swift builder — with an
/// error naming the object, its control characters escaped; names real
/// models use (`FirstName`, `_private`, letters of any script) pass.
@Suite struct NameRuleTests {
    static let valid = ["Person", "FirstName", "firstName", "_private", "name2", "x_1", "Ünïcode", "名前", "café"]

    static let invalid: [(name: String, problem: String)] = [
        ("", "it is empty"),
        ("9lives", "it starts with a digit"),
        ("x y", "it holds a space"),
        ("x\"y", "it holds '\"'"),
        ("x'y", "it holds '''"),
        ("x\" OR 1=1 OR \"", "it holds '\"'"),
        ("x; DROP TABLE t", "it holds ';'"),
        ("x-y", "it holds '-'"),
        ("x.y", "it holds '.'"),
        ("x\n.output pwned.txt", "it holds U+000A"),
        ("x\u{1B}[31mRED", "it holds U+001B"),
        ("x\u{07}", "it holds U+0007"),
        ("x\u{9B}31m", "it holds U+009B"),
        ("x\u{202E}evil", "it holds U+202E"),
        ("x\u{0}y", "it holds U+0000"),
        ("$x", "it starts with '$'"),
        (String(repeating: "A", count: 70_000), "it is 70000 bytes long (at most 1024)"),
    ]

    @Test(arguments: valid)
    func namesRealModelsUsePass(name: String) throws {
        #expect(ModelName.problem(name) == nil)
        let entity = EntityDescription(name: name)
        entity.add(AttributeDescription(name: name.prefix(1).lowercased() + name.dropFirst(), type: .string))
        _ = try ManagedObjectModel(entities: [entity])
    }

    /// Plain ASCII names skip Unicode's tables: every name of one and two
    /// ASCII characters still gets the rule's answer (a letter or `_`
    /// first, then letters, digits and `_`), and the length limit holds.
    @Test func asciiNamesGetTheRulesAnswer() {
        func allowed(_ byte: UInt8, first: Bool) -> Bool {
            (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95 || (!first && byte >= 48 && byte <= 57)
        }
        var wrong: [String] = []
        for a in UInt8(0)...127 {
            let one = String(decoding: [a], as: UTF8.self)
            if (ModelName.problem(one) == nil) != allowed(a, first: true) { wrong.append(one) }
            for b in UInt8(0)...127 {
                let two = String(decoding: [a, b], as: UTF8.self)
                if (ModelName.problem(two) == nil) != (allowed(a, first: true) && allowed(b, first: false)) { wrong.append(two) }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5).map { TerminalText.escaped($0) })")
        #expect(ModelName.problem(String(repeating: "a", count: ModelName.maximumLength)) == nil)
        #expect(ModelName.problem(String(repeating: "a", count: ModelName.maximumLength + 1)) == "it is 1025 bytes long (at most 1024)")
    }

    @Test(arguments: invalid)
    func entityNamesNoModelCanHoldAreRefused(name: String, problem: String) throws {
        #expect(ModelName.problem(name) == problem)
        let entity = EntityDescription(name: name)
        entity.add(AttributeDescription(name: "ok", type: .string))
        let error = try #require(throws: ModelError.self) { try ManagedObjectModel(entities: [entity]) }
        #expect(error.message.hasPrefix("entity '"), "\(error.message)")
        #expect(error.message.hasSuffix("' is not a valid Core Data name: \(problem)"), "\(error.message)")
        Self.expectPrintable(error.description)
    }

    @Test(arguments: invalid)
    func propertyNamesNoModelCanHoldAreRefusedNamingTheEntity(name: String, problem: String) throws {
        for property: PropertyDescription in [AttributeDescription(name: name, type: .string),
                                              RelationshipDescription(name: name, destination: "Person")] {
            let entity = EntityDescription(name: "Person")
            entity.add(property)
            let error = try #require(throws: ModelError.self) { try ManagedObjectModel(entities: [entity]) }
            #expect(error.message.hasPrefix("property 'Person."), "\(error.message)")
            #expect(error.message.hasSuffix("is not a valid Core Data name: \(problem)"), "\(error.message)")
            Self.expectPrintable(error.description)
        }
    }

    @Test func referencesAndIndexesAndCompositeElementsAreCheckedToo() throws {
        func refused(_ build: (EntityDescription) -> Void) -> String? {
            let entity = EntityDescription(name: "Person")
            build(entity)
            do {
                _ = try ManagedObjectModel(entities: [entity])
                return nil
            } catch {
                return (error as? ModelError)?.message
            }
        }
        #expect(refused { $0.add(RelationshipDescription(name: "boss", destination: "Pe\"rson")) }
                == "destination entity 'Pe\"rson' of 'Person.boss' is not a valid Core Data name: it holds '\"'")
        #expect(refused { $0.add(RelationshipDescription(name: "boss", destination: "Person", inverse: "x;y")) }
                == "inverse relationship 'x;y' of 'Person.boss' is not a valid Core Data name: it holds ';'")
        #expect(refused {
            $0.add(AttributeDescription(name: "age", type: .integer16))
            $0.fetchIndexes = [FetchIndexDescription(name: "by age", elements: [("age", true)])]
        } == "fetch index 'by age' of entity 'Person' is not a valid Core Data name: it holds a space")
        #expect(refused {
            let composite = AttributeDescription(name: "magnitude", type: .composite)
            composite.elements = [AttributeDescription(name: "rich\u{1B}ter", type: .double)]
            $0.add(composite)
        } == "composite element 'rich\\u{1b}ter' of 'Person.magnitude' is not a valid Core Data name: it holds U+001B")
        let child = EntityDescription(name: "Child", parent: "Par ent")
        #expect(throws: ModelError.self) { try ManagedObjectModel(entities: [child]) }
    }

    @Test func theBuilderThrowsRatherThanCrashes() throws {
        let error = try #require(throws: ModelError.self) {
            _ = try ManagedObjectModel {
                Entity("Person") { Attribute("na\"me; DROP TABLE x", .string) }
            }
        }
        #expect(error.message == "property 'Person.na\"me; DROP TABLE x' is not a valid Core Data name: it holds '\"'")
    }

    @Test func anXcodeModelIsRefusedAtTheLineOfTheName() throws {
        let xml = ModelFixtures.model(entities: """
            <entity name="Person">
                <attribute name="x&#10;.shell touch pwned" optional="YES" attributeType="String"/>
            </entity>
            """)
        let error = try #require(throws: ModelError.self) { try ModelFixtures.parse(xml) }
        #expect(error.description == "contents:4: property 'Person.x\\n.shell touch pwned' is not a valid Core Data name: it holds U+000A")
    }

    /// A compiled model and a model cache carry the names an unchecked
    /// model gave them; reading either refuses them.
    @Test func compiledModelsAndModelCachesAreRefused() throws {
        let model = try HostileNameTests.model()
        #expect(throws: ModelError.self) { try ManagedObjectModel(coreDataArchive: try model.coreDataArchive()) }
        #expect(throws: ModelError.self) { try ManagedObjectModel(modelCache: try model.modelCache()) }
        #expect(throws: ModelError.self) { try ManagedObjectModel(archive: model.archived()) }
    }

    /// Stores that keep a hostile model — a Core Data store's model cache,
    /// mrq's SQLite and XML stores' archives — are refused when read with
    /// no model, naming the entity, and nothing is written.
    @Test(arguments: [("Store.sqlite", SchemaMapping.Layout.coreData), ("Store.sqlite", .mrq), ("Store.xml", .mrq)])
    func storesKeepingAHostileModelAreRefusedWhenRead(file: String, layout: SchemaMapping.Layout) throws {
        let folder = try HostileNameTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let url = URL(fileURLWithPath: folder).appendingPathComponent(file)
        do {
            var options = PersistentStoreOptions()
            options.layout = layout
            let coordinator = PersistentStoreCoordinator(model: try HostileNameTests.model())
            try coordinator.addPersistentStore(at: url, options: options)
        }
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let error = try #require(throws: (any Error).self) { try PersistentStoreCoordinator.storedModel(at: url) }
        #expect("\(error)".contains("is not a valid Core Data name"), "\(error)")
        #expect(["Person", "Group", "Team", "Tag"].contains { "\(error)".contains("entity '\(HostileNameTests.n($0))'") }, "\(error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before)
    }

    static func expectPrintable(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let raw = text.unicodeScalars.filter(TerminalText.isUnsafe)
        #expect(raw.isEmpty, "raw control characters in \(text.debugDescription)", sourceLocation: sourceLocation)
        #expect(text.utf8.count < 400, "a long name is cut: \(text.utf8.count) bytes", sourceLocation: sourceLocation)
    }
}
