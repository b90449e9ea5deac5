import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import ObjectStore
import Predicates
import Testing

/// Apple's XML store format (macOS `NSXMLStoreType`): a file written as
/// Core Data writes one opens and answers queries, saves keep the format,
/// its object numbers and its metadata, and a malformed file is an error
/// that says where, leaving the file as it was.
@Suite struct AppleXMLStoreTests {
    /// A store as Core Data writes one for `TestModels.people()`, written by
    /// hand after the real files studied (`Grammar/xml-store.md`): the
    /// DOCTYPE, entities in capitals and properties in lower case, dates as
    /// seconds since 2001 with twenty decimals, booleans as 1/0, binary as
    /// base64, both sides of every relationship listed, empty ones with no
    /// idrefs, nil attributes left out. Grace (a Manager) has no
    /// `department` element at all: Operations lists her, and that links
    /// her.
    static let fixture = """
        <?xml version="1.0" standalone="yes"?>
        <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

        <database>
            <databaseInfo>
                <version>134481920</version>
                <UUID>7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE</UUID>
                <nextObjectID>108</nextObjectID>
                <metadata>
                    <plist version="1.0">
                        <dict>
                            <key>NSPersistenceFrameworkVersion</key>
                            <integer>641</integer>
                            <key>NSStoreModelVersionHashes</key>
                            <dict>
                                <key>Department</key>
                                <data>
                                AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
                                </data>
                            </dict>
                            <key>NSStoreModelVersionHashesVersion</key>
                            <integer>3</integer>
                            <key>NSStoreModelVersionIdentifiers</key>
                            <array>
                                <string></string>
                            </array>
                        </dict>
                    </plist>
                </metadata>
            </databaseInfo>
            <object type="DEPARTMENT" id="z102">
                <attribute name="name" type="string">Engineering</attribute>
                <attribute name="budget" type="double">1000.5</attribute>
                <relationship name="people" type="0/0" destination="PERSON" idrefs="z105 z104"></relationship>
            </object>
            <object type="DEPARTMENT" id="z103">
                <attribute name="name" type="string">Operations</attribute>
                <attribute name="budget" type="double">0</attribute>
                <relationship name="people" type="0/0" destination="PERSON" idrefs="z106"></relationship>
            </object>
            <object type="PERSON" id="z104">
                <attribute name="firstname" type="string">Ada</attribute>
                <attribute name="lastname" type="string">Lovelace &amp; Byron</attribute>
                <attribute name="age" type="int16">36</attribute>
                <attribute name="score" type="double">0.5</attribute>
                <attribute name="active" type="bool">1</attribute>
                <attribute name="born" type="date">-5799024000.25000000000000000000</attribute>
                <attribute name="photo" type="binary">AAECA/8=</attribute>
                <attribute name="token" type="uuid">00000000-0000-0000-0000-000000000003</attribute>
                <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z102"></relationship>
                <relationship name="tags" type="0/0" destination="TAG" idrefs="z107 z108"></relationship>
            </object>
            <object type="PERSON" id="z105">
                <attribute name="firstname" type="string">Bob</attribute>
                <attribute name="age" type="int16">17</attribute>
                <attribute name="active" type="bool">0</attribute>
                <relationship name="department" type="1/1" destination="DEPARTMENT" idrefs="z102"></relationship>
                <relationship name="tags" type="0/0" destination="TAG"></relationship>
            </object>
            <object type="MANAGER" id="z106">
                <attribute name="firstname" type="string">Grace</attribute>
                <attribute name="age" type="int16">45</attribute>
                <attribute name="level" type="int32">3</attribute>
                <relationship name="tags" type="0/0" destination="TAG" idrefs="z107"></relationship>
                <relationship name="reports" type="0/0" destination="PERSON" idrefs="z105 z104"></relationship>
            </object>
            <object type="TAG" id="z107">
                <attribute name="label" type="string">swift</attribute>
                <relationship name="people" type="0/0" destination="PERSON" idrefs="z104 z106"></relationship>
            </object>
            <object type="TAG" id="z108">
                <attribute name="label" type="string">sql</attribute>
                <relationship name="people" type="0/0" destination="PERSON" idrefs="z104"></relationship>
            </object>
        </database>

        """

    static func open(_ url: URL, _ model: ManagedObjectModel,
                     layout: SchemaMapping.Layout = .mrq) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(model: model)
        var options = PersistentStoreOptions()
        options.layout = layout
        try coordinator.addPersistentStore(type: .xml, at: url, options: options)
        return (coordinator, ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator))
    }

    static func names(_ context: ManagedObjectContext, _ entity: String, _ format: String, key: String = "firstName") throws -> [String] {
        var request = FetchRequest(entityName: entity, predicate: try Predicate(format: format))
        request.sortDescriptors = try SortSpec.parse(key)
        return try context.fetch(request).map { object in
            if case .string(let s) = object[key] { return s }
            return "?"
        }
    }

    // MARK: - Reading

    @Test func aFileWrittenAsCoreDataWritesOneOpensAndAnswersQueries() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("people.xml")
        try Self.fixture.write(to: url, atomically: true, encoding: .utf8)
        let (coordinator, context) = try Self.open(url, try TestModels.people())
        let store = try #require(coordinator.persistentStores.first)
        #expect(store.identifier == "7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE")
        #expect(store.layout == .coreData)

        #expect(try Self.names(context, "Person", "TRUEPREDICATE") == ["Ada", "Bob", "Grace"])
        #expect(try Self.names(context, "Person", "age > 20") == ["Ada", "Grace"])
        #expect(try Self.names(context, "Person", "department.name == 'Operations'") == ["Grace"])
        #expect(try Self.names(context, "Person", "ANY tags.label == 'sql'") == ["Ada"])
        #expect(try Self.names(context, "Person", "born == nil") == ["Bob", "Grace"])
        #expect(try Self.names(context, "Person", "active == NO") == ["Bob"])
        #expect(try Self.names(context, "Tag", "people.@count == 2", key: "label") == ["swift"])
        #expect(try Self.names(context, "Department", "SUBQUERY(people, $p, $p.age < 18).@count > 0", key: "name") == ["Engineering"])

        let ada = try #require(try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "firstName == 'Ada'"))).first)
        #expect(ada.objectID.primaryKey == 104)
        #expect(ada["lastName"] == .string("Lovelace & Byron"))
        #expect(ada["born"] == .date(Date(timeIntervalSinceReferenceDate: -5_799_024_000.25)))
        #expect(ada["photo"] == .data(Data([0, 1, 2, 3, 255])))
        #expect(ada["token"] == .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000003")!))
        #expect(ada["score"] == .double(0.5))
        let grace = try #require(try context.fetch(FetchRequest(entityName: "Manager")).first)
        #expect(grace.objects(forKey: "reports").map { $0["firstName"] } == [.string("Bob"), .string("Ada")])
        #expect(grace.object(forKey: "department")?["name"] == .string("Operations"))
        #expect(Set(ada.objects(forKey: "tags").map { $0["label"] }) == [.string("swift"), .string("sql")])
    }

    @Test func savingKeepsTheFormatTheNumbersTheUUIDAndTheMetadata() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("people.xml")
        try Self.fixture.write(to: url, atomically: true, encoding: .utf8)
        let model = try TestModels.people()
        let metadataBefore = try #require(try Self.open(url, model).0.backends.first as? XMLStore).metadata
        let (_, context) = try Self.open(url, model)
        let bob = try #require(try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "firstName == 'Bob'"))).first)
        bob["age"] = .int(18)
        let tag = context.insertObject(forEntityName: "Tag")
        tag["label"] = .string("xml")
        tag.add(bob, toKey: "people")
        try context.save()
        #expect(tag.objectID.primaryKey == 109)

        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix("<?xml version=\"1.0\" standalone=\"yes\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n\n<database>\n"))
        #expect(text.contains("<UUID>7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE</UUID>"))
        #expect(text.contains("<nextObjectID>109</nextObjectID>"))
        #expect(text.contains("<object type=\"TAG\" id=\"z109\">"))

        let (coordinator, again) = try Self.open(url, model)
        let store = try #require(coordinator.backends.first as? XMLStore)
        #expect(store.identifier == "7DFA6DAB-A071-4B34-8DFB-BAC65DD66FDE")
        #expect(store.format == .apple)
        let before = try #require(metadataBefore)
        let after = try #require(store.metadata)
        #expect(NSDictionary(dictionary: before).isEqual(to: after))
        #expect(after["NSPersistenceFrameworkVersion"] as? Int == 641)
        #expect(try Self.names(again, "Person", "age >= 18") == ["Ada", "Bob", "Grace"])
        #expect(try Self.names(again, "Person", "ANY tags.label == 'xml'") == ["Bob"])
        // Every object kept its number.
        var request = FetchRequest(entityName: "Person")
        request.sortDescriptors = try SortSpec.parse("firstName")
        #expect(try again.fetch(request).map(\.objectID.primaryKey) == [104, 105, 106])

        // Numbers are never given twice, even after the highest is deleted.
        again.delete(try #require(try again.fetch(FetchRequest(entityName: "Tag", predicate: try Predicate(format: "label == 'xml'"))).first))
        try again.save()
        let (_, third) = try Self.open(url, model)
        let another = third.insertObject(forEntityName: "Tag")
        another["label"] = .string("new")
        try third.save()
        #expect(another.objectID.primaryKey == 110)
    }

    // MARK: - Round trip

    /// Objects of `ModelFixtures.everyKind()` using every value and relationship kind.
    static func populate(_ context: ManagedObjectContext) throws {
        var items: [ManagedObject] = []
        for i in 0..<6 {
            let item = context.insertObject(forEntityName: i % 3 == 2 ? "SpecialItem" : "Item")
            item["small"] = .int(i == 0 ? Int64(Int16.min) : Int64(i))
            item["medium"] = .int(Int64(Int32.max) - Int64(i))
            item["large"] = .int(i == 1 ? Int64.min : Int64.max - Int64(i))
            item["price"] = .decimal(Decimal(string: "12345678901234567890.12\(i)")!)
            item["ratio"] = .double([1.0 / 3.0, -0.0, 1e300, -5e-324, .infinity, 2][i])
            item["weight"] = .double(Double(Float(0.1) * Float(i)))
            item["title"] = i == 3 ? .null : .string(["", "  spaced  ", "tab\tline\nbreak\r\ncr", "<&>\"'", "", "Zoë 😀"][i])
            item["Title"] = .string("upper \(i)")
            item["flag"] = .bool(i % 2 == 0)
            item["when"] = .date(Date(timeIntervalSinceReferenceDate: [0, -978_307_200, 445_103_622.25, 1e-7, 7e12, 86_400.123456789][i]))
            item["blob"] = i == 4 ? .null : .data(Data((0..<(i * 7)).map { UInt8($0 * 37 % 256) }))
            item["thing"] = .data(Data("archived \(i)".utf8))
            item["uid"] = .uuid(UUID())
            item["link"] = .url(URL(string: "https://example.com/a?b=\(i)&c=d")!)
            if i % 3 == 2 { item["grade"] = .int(Int64(i)) }
            item["size.width"] = .double(Double(i) + 0.5)
            item["size.unit"] = i == 1 ? .null : .string("cm")
            items.append(item)
        }
        let owner = context.insertObject(forEntityName: "Owner")
        owner["name"] = .string("Olga")
        for item in [items[3], items[0], items[5]] { owner.add(item, toKey: "items") }
        owner.setObject(items[1], forKey: "favourite")
        let other = context.insertObject(forEntityName: "Owner")
        other["name"] = .string("Otto")
        other.add(items[2], toKey: "items")
        let shout = context.insertObject(forEntityName: "OWNER")
        shout["name"] = .string("LOUD")
        for (n, name) in ["red", "green", "blue"].enumerated() {
            let label = context.insertObject(forEntityName: "Label")
            label["name"] = .string(name)
            for (i, item) in items.enumerated() where (i + n) % 2 == 0 { label.add(item, toKey: "items") }
        }
        items[0].add(items[1], toKey: "related")
        items[0].add(items[4], toKey: "related")
        items[4].add(items[0], toKey: "related")
        let playlist = context.insertObject(forEntityName: "Playlist")
        playlist["name"] = .string("mix")
        for item in [items[4], items[2], items[0], items[3]] { playlist.add(item, toKey: "tracks") }
        try context.save()
    }

    /// Every object with its ID, values and relationships (members by ID,
    /// in order where ordered).
    static func dump(_ context: ManagedObjectContext, _ model: ManagedObjectModel) throws -> [String] {
        var lines: [String] = []
        for entity in model.entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var parts = ["\(entity.name) \(object.objectID.primaryKey)"]
                for attribute in entity.attributes where !attribute.isTransient {
                    parts.append("\(attribute.name)=\(object[attribute.name])")
                }
                for relationship in entity.relationships {
                    if relationship.isToOne {
                        parts.append("\(relationship.name)->\(object.object(forKey: relationship.name)?.objectID.primaryKey ?? 0)")
                    } else {
                        let keys = object.objects(forKey: relationship.name).map(\.objectID.primaryKey)
                        parts.append("\(relationship.name)->\(relationship.isOrdered ? keys : keys.sorted())")
                    }
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    @Test func everyAttributeTypeAndRelationshipKindRoundTrips() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("everything.xml")
        let model = try ModelFixtures.everyKind()
        let (first, context) = try Self.open(url, model, layout: .coreData)
        try Self.populate(context)
        let written = try Self.dump(context, model)
        #expect(written.count == 13)
        #expect(first.persistentStores.first?.layout == .coreData)

        let (_, reread) = try Self.open(url, model)
        let read = try Self.dump(reread, model)
        #expect(read == written)
        // A second save of the same graph writes the same bytes.
        let bytes = try Data(contentsOf: url)
        let (_, third) = try Self.open(url, model)
        let owner = try #require(try third.fetch(FetchRequest(entityName: "Owner", predicate: try Predicate(format: "name == 'Otto'"))).first)
        owner["name"] = .string("Otto")
        owner["name"] = .string("Ottó")
        try third.save()
        owner["name"] = .string("Otto")
        try third.save()
        #expect(try Data(contentsOf: url) == bytes)

        // Names as Core Data spells them, but not where two would clash.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("<object type=\"SPECIALITEM\""))
        #expect(text.contains("<object type=\"Owner\"") && text.contains("<object type=\"OWNER\""))
        #expect(text.contains("<attribute name=\"title\" type=\"string\"> </attribute>") == false)
        #expect(text.contains("<attribute name=\"Title\" type=\"string\">upper 0</attribute>"))
        #expect(text.contains("name=\"playlists\" type=\"0/0\" destination=\"PLAYLIST\""))
        #expect(text.contains("name=\"owner\" type=\"0/1\" destination=\"Owner\""))
        #expect(!text.contains("scratch"))
        // A composite's elements are attributes of their own (no file
        // studied has one: Core Data's spelling of them is not known).
        #expect(text.contains("<attribute name=\"size.width\" type=\"double\">0.5</attribute>"))
    }

    @Test func aSavedStoreHasExactlyTheElementsAndAttributesOfTheRealFormat() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("everything.xml")
        let model = try ModelFixtures.everyKind()
        try Self.populate(try Self.open(url, model, layout: .coreData).1)

        final class Collector: NSObject, XMLParserDelegate {
            var elements: [String: Set<String>] = [:]
            var values: [String: Set<String>] = [:]
            var stack: [String] = []
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                let path = (stack.last.map { "\($0)/" } ?? "") + name
                elements[path, default: []].formUnion(attributes.keys)
                for (key, value) in attributes { values["\(name)@\(key)", default: []].insert(value) }
                stack.append(name)
            }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                stack.removeLast()
            }
        }
        let collector = Collector()
        let data = try XMLInput.normalized(try Data(contentsOf: url), allowingCoreDataDoctype: true)
        let parser = XMLParser(data: data)
        parser.delegate = collector
        #expect(parser.parse())
        // Core Data's elements; the property list inside <metadata> aside.
        let structure = collector.elements.filter { path, _ in
            guard let parent = path.split(separator: "/").dropLast().last else { return true }
            return ["database", "databaseInfo", "object", "metadata"].contains(String(parent))
        }
        #expect(structure == [
            "database": [], "database/databaseInfo": [], "databaseInfo/version": [], "databaseInfo/UUID": [],
            "databaseInfo/nextObjectID": [], "databaseInfo/metadata": [], "metadata/plist": ["version"],
            "database/object": ["type", "id"], "object/attribute": ["name", "type"],
            "object/relationship": ["name", "type", "destination", "idrefs"],
        ])
        #expect(collector.values["attribute@type"] == [
            "int16", "int32", "int64", "decimal", "double", "float", "string", "bool", "date", "binary",
            "transformable", "uuid", "uri",
        ])
        #expect(collector.values["relationship@type"] == ["0/1", "0/0"])
        #expect(collector.values["object@id"]!.allSatisfy { $0.wholeMatch(of: /z[0-9]+/) != nil })
        #expect(collector.values["object@type"] == ["ITEM", "SPECIALITEM", "Owner", "OWNER", "LABEL", "PLAYLIST"])
        // The metadata Core Data writes into an XML store, and no other keys.
        let store = try #require(try Self.open(url, model).0.backends.first as? XMLStore)
        #expect(Set(try #require(store.metadata).keys) == [
            "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashes", "NSStoreModelVersionHashesDigest",
            "NSStoreModelVersionHashesVersion", "NSStoreModelVersionIdentifiers",
        ])
        #expect((store.metadata?["NSStoreModelVersionHashes"] as? [String: Data])?.keys.sorted()
                == model.entities.map(\.name).sorted())
    }

    // MARK: - Malformed files

    /// `text` with the first `target` replaced.
    static func replacingFirst(_ text: String, _ target: String, _ replacement: String) -> String {
        guard let range = text.range(of: target) else { return text }
        return text.replacingCharacters(in: range, with: replacement)
    }

    /// A change to the fixture, the error kind, the line and what the
    /// message says.
    static let malformed: [(name: String, edit: @Sendable (String) -> String, kind: StoreError.Kind, message: String)] = [
        ("cut in a tag", { String($0.prefix(2000)) }, .corrupt, "line 46: Person z104: <attribute> needs a name and a type; the file ends before </database>, so it may be cut short"),
        ("cut between elements", { String($0.prefix(upTo: $0.range(of: "    <object type=\"TAG\"")!.lowerBound)) }, .corrupt,
         "line 66: the file ends before </database>"),
        ("cut in an attribute value", { String($0.prefix(upTo: $0.range(of: "ble\">1000.5")!.lowerBound)) }, .corrupt,
         "line 33: Department z102: attribute 'budget' is dou in the file but double in the model; the file ends before </database>, so it may be cut short"),
        ("cut after an object", { String($0.prefix(upTo: $0.range(of: "    <object type=\"MANAGER\"")!.lowerBound)) + "    " }, .corrupt,
         "the file ends before </database>"),
        ("cut in a value", { String($0.prefix(upTo: $0.range(of: "ovelace")!.lowerBound)) }, .corrupt,
         "line 43: the file ends before </database>"),
        ("dangling idref", { $0.replacingOccurrences(of: "idrefs=\"z107 z108\"", with: "idrefs=\"z107 z999\"") }, .corrupt,
         "line 51: Person z104: relationship 'tags' names z999, which is no object of the file"),
        ("idref of the wrong entity", { replacingFirst($0, "DEPARTMENT\" idrefs=\"z102\"", "DEPARTMENT\" idrefs=\"z108\"") },
         .corrupt, "line 50: Person z104: relationship 'department' names Tag z108, not a Department"),
        ("unknown entity", { $0.replacingOccurrences(of: "type=\"TAG\" id=\"z108\"", with: "type=\"TAGS\" id=\"z108\"") }, .modelMismatch,
         "line 71: <object type=\"TAGS\" id=\"z108\">: the model has no entity TAGS"),
        ("unknown attribute", { $0.replacingOccurrences(of: "\"label\" type=\"string\">sql", with: "\"colour\" type=\"string\">sql") }, .modelMismatch,
         "line 72: Tag z108: the model's Tag has no attribute 'colour'"),
        ("bad number", { $0.replacingOccurrences(of: ">36<", with: ">thirty-six<") }, .corrupt,
         "line 44: Person z104: attribute 'age': 'thirty-six' is not an int16 integer"),
        ("number out of range", { $0.replacingOccurrences(of: ">36<", with: ">70000<") }, .corrupt,
         "'70000' is not an int16 integer"),
        ("bad date", { $0.replacingOccurrences(of: "-5799024000.25000000000000000000", with: "1815-12-10") }, .corrupt,
         "'1815-12-10' is not a date value"),
        ("bad base64", { $0.replacingOccurrences(of: "AAECA/8=", with: "not base64!") }, .corrupt, "'not base64!' is not a binary value"),
        ("type that is not the model's", { $0.replacingOccurrences(of: "\"age\" type=\"int16\">36", with: "\"age\" type=\"string\">36") },
         .modelMismatch, "line 44: Person z104: attribute 'age' is string in the file but int16 in the model"),
        ("two objects with one id", { $0.replacingOccurrences(of: "id=\"z108\"", with: "id=\"z107\"") }, .corrupt,
         "line 71: a second object with id \"z107\""),
        ("a to-one naming two objects", { replacingFirst($0, "idrefs=\"z102\"", "idrefs=\"z102 z103\"") }, .corrupt,
         "to-one relationship 'department' names 2 objects"),
        ("an element out of place", { $0.replacingOccurrences(of: "<version>", with: "<object></object><version>") }, .corrupt,
         "line 6: unexpected <object> in <databaseInfo>"),
        ("another DTD", { $0.replacingOccurrences(of: "CoreData.dtd\">", with: "CoreData.dtd\" [<!ENTITY a \"b\">]>") }, .corrupt,
         "a document type declaration other than Core Data's"),
        ("bad metadata", { $0.replacingOccurrences(of: "<integer>641</integer>", with: "") }, .corrupt,
         "line 9: <metadata> holds no property list dictionary"),
    ]

    @Test(arguments: malformed.indices) func aMalformedFileIsAnErrorThatSaysWhereAndChangesNothing(_ index: Int) throws {
        let (name, edit, kind, message) = Self.malformed[index]
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bad.xml")
        let text = edit(Self.fixture)
        #expect(text != Self.fixture, "\(name): the edit changed nothing")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: url)
        do {
            _ = try Self.open(url, try TestModels.people())
            Issue.record("\(name): opened")
        } catch let error as StoreError {
            #expect(error.kind == kind, "\(name): \(error.message)")
            #expect(error.message.contains(message), "\(name): \(error.message)")
            #expect(error.message.contains(url.path), "\(name): \(error.message)")
        }
        #expect(try Data(contentsOf: url) == before, "\(name)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.xml"], "\(name)")
    }

    @Test func aStringXMLCannotHoldFailsTheSaveAndKeepsTheFile() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("people.xml")
        try Self.fixture.write(to: url, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: url)
        let (_, context) = try Self.open(url, try TestModels.people())
        let tag = context.insertObject(forEntityName: "Tag")
        tag["label"] = .string("bell\u{7}")
        do {
            try context.save()
            Issue.record("saved")
        } catch let error as StoreError {
            #expect(error.message.contains("U+0007 cannot be written in Apple's XML store format"), "\(error.message)")
        }
        #expect(try Data(contentsOf: url) == before)
    }

    // MARK: - Both formats

    @Test func eachFormatStaysItselfAcrossSaves() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people()
        func root(_ url: URL) throws -> String {
            let text = try String(contentsOf: url, encoding: .utf8)
            return text.contains("<mrq-store ") ? "mrq" : text.contains("<database>") ? "apple" : "?"
        }
        let mrq = dir.appendingPathComponent("mrq.xml")
        let apple = dir.appendingPathComponent("apple.xml")
        for (url, layout) in [(mrq, SchemaMapping.Layout.mrq), (apple, .coreData)] {
            let context = try Self.open(url, model, layout: layout).1
            XMLStoreTests.populateLightly(context)
            try context.save()
        }
        #expect(try root(mrq) == "mrq" && root(apple) == "apple")
        // Reopened without asking, then saved: each keeps its format, even
        // when the layout asked for is the other one.
        for (url, layout) in [(mrq, SchemaMapping.Layout.coreData), (apple, .mrq)] {
            let (coordinator, context) = try Self.open(url, model, layout: layout)
            #expect(coordinator.persistentStores[0].layout == (url == mrq ? .mrq : .coreData))
            let tag = context.insertObject(forEntityName: "Tag")
            tag["label"] = .string("again")
            try context.save()
            #expect(try Self.names(Self.open(url, model).1, "Tag", "TRUEPREDICATE", key: "label").contains("again"))
        }
        #expect(try root(mrq) == "mrq" && root(apple) == "apple")
        #expect(try XMLStoreTests.dump(Self.open(mrq, model).0) == XMLStoreTests.dump(Self.open(apple, model).0))

        // Apple's format keeps no model: asking the file for one says so.
        #expect(try PersistentStoreCoordinator.storedModel(at: mrq) != nil)
        do {
            _ = try PersistentStoreCoordinator.storedModel(at: apple)
            Issue.record("a model from Apple's format")
        } catch let error as StoreError {
            #expect(error.message.contains("is in Apple's XML store format, which keeps no model"))
        }

        // "Save as" from SQLite into Apple's format, with the layout asked for.
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: dir.appendingPathComponent("people.sqlite"))
        try XMLStoreTests.populate(ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator))
        let original = try XMLStoreTests.dump(coordinator)
        var options = PersistentStoreOptions()
        options.layout = .coreData
        let copy = dir.appendingPathComponent("copy.xml")
        try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: copy, type: .xml, options: options)
        #expect(try root(copy) == "apple")
        #expect(try XMLStoreTests.dump(Self.open(copy, model).0) == original)
    }

    @Test func idsOfAnotherFormGetNewNumbersAndAreWrittenBackAsNumbers() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("ids.xml")
        let text = Self.fixture.replacingOccurrences(of: "z104", with: "ada").replacingOccurrences(of: "z107", with: "t-1")
            .replacingOccurrences(of: "<nextObjectID>108</nextObjectID>", with: "<nextObjectID>0</nextObjectID>")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let model = try TestModels.people()
        let (_, context) = try Self.open(url, model)
        let ada = try #require(try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "firstName == 'Ada'"))).first)
        #expect(ada.objectID.primaryKey == 109)
        #expect(Set(ada.objects(forKey: "tags").map(\.objectID.primaryKey)) == [108, 110])
        #expect(try Self.names(context, "Person", "ANY tags.label == 'swift'") == ["Ada", "Grace"])
        ada["age"] = .int(37)
        try context.save()
        let saved = try String(contentsOf: url, encoding: .utf8)
        #expect(saved.contains("<object type=\"PERSON\" id=\"z109\">") && saved.contains("idrefs=\"z110 z108\""))
        #expect(!saved.contains("\"ada\"") && !saved.contains("t-1") && saved.contains("<nextObjectID>110</nextObjectID>"))
    }

    /// FoundationXML's parser, handed a document over 10 MB whole, failed
    /// after its last element: a large store of either format would not
    /// reopen.
    @Test func aStoreOverTenMegabytesReopensInEitherFormat() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people()
        let big = String(repeating: "0123456789abcdef", count: 65_536)
        for (name, layout) in [("mrq.xml", SchemaMapping.Layout.mrq), ("apple.xml", .coreData)] {
            let url = dir.appendingPathComponent(name)
            let context = try Self.open(url, model, layout: layout).1
            for i in 0..<12 {
                let tag = context.insertObject(forEntityName: "Tag")
                tag["label"] = .string("\(i) \(big)")
            }
            try context.save()
            #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0 > 12_000_000)
            #expect(try Self.open(url, model).1.count(for: FetchRequest(entityName: "Tag")) == 12, "\(name)")
        }
    }

    @Test func aFileCutShortIsAnErrorInEitherFormat() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people()
        for (name, layout, end) in [("mrq.xml", SchemaMapping.Layout.mrq, "</mrq-store>"), ("apple.xml", .coreData, "</database>")] {
            let url = dir.appendingPathComponent(name)
            let context = try Self.open(url, model, layout: layout).1
            XMLStoreTests.populateLightly(context)
            try context.save()
            // Cut before the last object: what is left is well-formed up
            // to there, and libxml2 does not complain.
            let text = try String(contentsOf: url, encoding: .utf8)
            let cut = String(text[..<text.range(of: "<object", options: .backwards)!.lowerBound])
            try cut.write(to: url, atomically: true, encoding: .utf8)
            #expect {
                _ = try Self.open(url, model)
            } throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.kind == .corrupt && error.message.contains("the file ends before \(end)")
            }
            #expect(try String(contentsOf: url, encoding: .utf8) == cut)
        }
    }

    @Test func aRootOfAnotherKindIsNamed() throws {
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("other.xml")
        try "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n".write(to: url, atomically: true, encoding: .utf8)
        #expect {
            _ = try Self.open(url, try TestModels.people())
        } throws: { error in
            (error as? StoreError)?.message.contains("its root element is <plist>, where mrq's XML store format has <mrq-store> and Apple's XML store format <database>") == true
        }
    }
}

extension XMLStoreTests {
    /// Two departments and a tagged person, unsaved.
    static func populateLightly(_ context: ManagedObjectContext) {
        let department = context.insertObject(forEntityName: "Department")
        department["name"] = .string("R&D")
        let person = context.insertObject(forEntityName: "Person")
        person["firstName"] = .string("Ada")
        person.setObject(department, forKey: "department")
        let tag = context.insertObject(forEntityName: "Tag")
        tag["label"] = .string("first")
        person.add(tag, toKey: "tags")
    }
}
