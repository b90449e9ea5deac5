import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Core Data archives edited as Core Data itself could have written them:
/// an mrq model archived, its objects changed, and written back as an XML
/// keyed archive (Foundation reads `{CF$UID = n}` dictionaries as UIDs).
enum ArchiveSurgery {
    /// The objects and top of `model`'s archive.
    static func objects(of model: ManagedObjectModel) throws -> (objects: [Any], top: [String: Any]) {
        try objects(of: try model.coreDataArchive())
    }

    /// The objects and top of a binary keyed archive, as Foundation's
    /// reader returns them (UIDs as `PlistUID`).
    static func objects(of archive: Data) throws -> (objects: [Any], top: [String: Any]) {
        let plist = try #require(try BinaryPropertyList.parse(archive) as? [String: Any])
        return (try #require(plist["$objects"] as? [Any]), try #require(plist["$top"] as? [String: Any]))
    }

    /// `model`'s archive after `edit` changed its objects.
    static func edited(_ model: ManagedObjectModel, _ edit: (inout [Any]) throws -> Void) throws -> Data {
        var (objects, top) = try objects(of: model)
        try edit(&objects)
        let plist: [String: Any] = [
            "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": foundation(top), "$objects": foundation(objects),
        ]
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    }

    private static func foundation(_ value: Any) -> Any {
        if let uid = value as? PlistUID { return ["CF$UID": uid.value] }
        if let array = value as? [Any] { return array.map(foundation) }
        if let dictionary = value as? [String: Any] { return dictionary.mapValues(foundation) }
        return value
    }

    static func uid(_ n: Int) -> PlistUID { PlistUID(value: n) }

    /// Appends `value` to the objects; its UID.
    static func append(_ objects: inout [Any], _ value: Any) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    /// Appends a class record; its UID.
    static func classRecord(_ objects: inout [Any], _ classes: String...) -> Int {
        append(&objects, ["$classname": classes[0], "$classes": classes] as [String: Any])
    }

    /// The index of the object of `className` whose `NSPropertyName` (or
    /// `NSEntityName`) is `name`.
    static func index(of name: String, _ className: String, in objects: [Any]) throws -> Int {
        func string(_ field: Any?) -> String? {
            guard let uid = field as? PlistUID else { return field as? String }
            return objects[uid.value] as? String
        }
        func classname(_ fields: [String: Any]) -> String? {
            guard let uid = fields["$class"] as? PlistUID else { return nil }
            return (objects[uid.value] as? [String: Any])?["$classname"] as? String
        }
        return try #require(objects.indices.first { i in
            guard let fields = objects[i] as? [String: Any], classname(fields) == className else { return false }
            return [fields["NSPropertyName"], fields["NSEntityName"], fields["NSIndexName"]].contains { string($0) == name }
        })
    }

    /// Changes one field of the object at `index`.
    static func set(_ objects: inout [Any], _ index: Int, _ key: String, _ value: Any) throws {
        var fields = try #require(objects[index] as? [String: Any])
        fields[key] = value
        objects[index] = fields
    }

    /// Clears `bits` of a property's `_P` (its "no user info", "no
    /// validation predicates"… bits), as Core Data does when it writes the
    /// key the bit stands for.
    static func clearPacked(_ objects: inout [Any], _ index: Int, _ bits: Int) throws {
        let packed = try #require((objects[index] as? [String: Any])?["_P"] as? Int)
        try set(&objects, index, "_P", packed & ~bits)
    }

    /// A new Core Data store of `model` holding what `fill` inserts, whose
    /// `Z_MODELCACHE` is then replaced by `archive`, deflated.
    static func store(_ model: ManagedObjectModel, keeping archive: Data,
                      fill: (ManagedObjectContext) throws -> Void = { _ in }) throws -> URL {
        let url = CoreDataLayoutTests.temporaryStore("Kept.sqlite")
        do {
            var options = PersistentStoreOptions()
            options.layout = .coreData
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            try fill(context)
            if context.hasChanges { try context.save() }
        }
        let db = try Database(path: url.path)
        try db.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", [.data(Deflate.compress(archive))])
        return url
    }

    /// Opens `url` read-only with the model it keeps; the context and the
    /// model.
    static func open(_ url: URL) throws -> (ManagedObjectContext, ManagedObjectModel) {
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: url))
        let coordinator = PersistentStoreCoordinator(model: model)
        var options = PersistentStoreOptions()
        options.readOnly = true
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return (ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator), model)
    }

    static func count(_ context: ManagedObjectContext, _ entity: String) throws -> Int {
        var request = FetchRequest(entityName: entity)
        request.includesSubentities = false
        return try context.count(for: request)
    }
}

/// What Core Data writes is valid (issue 31): each case a real store's
/// model holds, which the decoder once refused, opens and is kept.
@Suite struct CoreDataLenientTests {
    typealias S = ArchiveSurgery

    static func library() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Author") {
                Attribute("name", .string)
                ToMany("books", "Book", inverse: "author")
            }
            Entity("Book") {
                Attribute("title", .string)
                Attribute("place", .string)
                ToOne("author", "Author", inverse: "books")
                FetchIndex("byTitle", .ascending("title"))
            }
        }
    }

    static func fill(_ context: ManagedObjectContext) {
        let author = context.insertObject(forEntityName: "Author")
        author["name"] = .string("Le Guin")
        for title in ["Earthsea", "Lathe"] {
            let book = context.insertObject(forEntityName: "Book")
            book["title"] = .string(title)
            book.setObject(author, forKey: "author")
        }
    }

    // MARK: Repro 1: counts Core Data writes as NSUIntegerMax

    @Test func aNegativeOrHugeCountIsKept() throws {
        let model = try Self.library()
        let archive = try S.edited(model) { objects in
            let books = try S.index(of: "books", "NSRelationshipDescription", in: objects)
            try S.set(&objects, books, "NSMinCount", -1)
            let author = try S.index(of: "author", "NSRelationshipDescription", in: objects)
            // NSUIntegerMax as an unsigned 64-bit number.
            try S.set(&objects, author, "NSMinCount", NSNumber(value: UInt64.max))
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        let books = try #require(decoded.entity(named: "Author")?.relationship(named: "books"))
        #expect(books.minCount == -1)
        #expect(books.isToMany)
        // No minimum: an empty or full to-many is fine.
        #expect(books.validateCount(0).isEmpty && books.validateCount(5).isEmpty)
        #expect(decoded.entity(named: "Book")?.relationship(named: "author")?.declaredMinCount == -1)
        // The version hash counts the number as Core Data does (32 bits).
        let plain = try #require(model.entity(named: "Author")?.versionHash)
        #expect(decoded.entity(named: "Author")?.versionHash != plain)
        // Written back as it was read.
        let again = try ManagedObjectModel(coreDataArchive: try decoded.coreDataArchive())
        #expect(again.entity(named: "Author")?.relationship(named: "books")?.minCount == -1)
        #expect(again.entity(named: "Author")?.versionHash == decoded.entity(named: "Author")?.versionHash)

        let url = try S.store(model, keeping: archive, fill: Self.fill)
        let before = try Data(contentsOf: url)
        let (context, _) = try S.open(url)
        #expect(try S.count(context, "Book") == 2)
        #expect(try S.count(context, "Author") == 1)
        #expect(try Data(contentsOf: url) == before)
    }

    // MARK: Repro 2: user info of any property-list type

    /// An NSDictionary of an array, a nested dictionary, data, a date and
    /// a string, as Photos' models hold in `NSUserInfo`; its UID.
    static func appendUserInfo(_ objects: inout [Any]) -> Int {
        let array = S.classRecord(&objects, "NSArray", "NSObject")
        let dictionary = S.classRecord(&objects, "NSDictionary", "NSObject")
        let date = S.classRecord(&objects, "NSDate", "NSObject")
        func string(_ s: String) -> PlistUID { S.uid(S.append(&objects, s)) }
        let components = S.append(&objects, ["$class": S.uid(array), "NS.objects": [string("latitude"), string("longitude")]] as [String: Any])
        let nested = S.append(&objects, ["$class": S.uid(dictionary), "NS.keys": [string("depth")],
                                         "NS.objects": [S.uid(S.append(&objects, 2))]] as [String: Any])
        let when = S.append(&objects, ["$class": S.uid(date), "NS.time": 86_400.0] as [String: Any])
        let bytes = S.append(&objects, Data([0xCA, 0xFE]))
        return S.append(&objects, [
            "$class": S.uid(dictionary),
            "NS.keys": [string("_NSLocationAttributeDerivedComponents"), string("nested"), string("when"), string("bytes"), string("plain")],
            "NS.objects": [S.uid(components), S.uid(nested), S.uid(when), S.uid(bytes), string("text")],
        ] as [String: Any])
    }

    static let expectedOthers: [String: UserInfoValue] = [
        "_NSLocationAttributeDerivedComponents": .array([.value(.string("latitude")), .value(.string("longitude"))]),
        "nested": .dictionary(["depth": .value(.int(2))]),
        "when": .value(.date(Date(timeIntervalSinceReferenceDate: 86_400))),
        "bytes": .value(.data(Data([0xCA, 0xFE]))),
    ]

    static func userInfoArchive(_ model: ManagedObjectModel) throws -> Data {
        try S.edited(model) { objects in
            let info = Self.appendUserInfo(&objects)
            let place = try S.index(of: "place", "NSAttributeDescription", in: objects)
            try S.set(&objects, place, "NSUserInfo", S.uid(info))
            // _P's 0x40 says "no user info": Core Data clears it.
            try S.clearPacked(&objects, place, 0x40)
            let book = try S.index(of: "Book", "NSEntityDescription", in: objects)
            try S.set(&objects, book, "NSUserInfo", S.uid(info))
        }
    }

    @Test func userInfoOfAnyPropertyListTypeIsKept() throws {
        let model = try Self.library()
        let decoded = try ManagedObjectModel(coreDataArchive: try Self.userInfoArchive(model))
        let place = try #require(decoded.entity(named: "Book")?.attribute(named: "place"))
        #expect(place.otherUserInfo == Self.expectedOthers)
        #expect(place.userInfo == ["plain": "text"])
        #expect(decoded.entity(named: "Book")?.otherUserInfo == Self.expectedOthers)
        #expect(UserInfoValue.dictionary(Self.expectedOthers).text
            == #"{ "_NSLocationAttributeDerivedComponents": ["latitude", "longitude"], "bytes": CAST("yv4=", "NSData"), "nested": { "depth": 2 }, "when": "#
            + Printer.format(Predicates.Expression(.constant(.date(Date(timeIntervalSinceReferenceDate: 86_400))))) + " }")
        // Kept through Core Data's archive and mrq's own.
        for again in [try ManagedObjectModel(coreDataArchive: try decoded.coreDataArchive()),
                      try ManagedObjectModel(archive: decoded.archived())] {
            #expect(again.entity(named: "Book")?.attribute(named: "place")?.otherUserInfo == Self.expectedOthers)
            #expect(again.entity(named: "Book")?.otherUserInfo == Self.expectedOthers)
            #expect(again.isEquivalent(to: decoded))
        }
    }

    @Test func aStoreWhoseModelHasSuchUserInfoOpensAndCarriesItThroughSaveAndSaveAs() throws {
        let model = try Self.library()
        let url = try S.store(model, keeping: try Self.userInfoArchive(model), fill: Self.fill)
        // Saved into: the store keeps its model.
        do {
            let stored = try #require(try PersistentStoreCoordinator.storedModel(at: url))
            let coordinator = PersistentStoreCoordinator(model: stored)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            context.insertObject(forEntityName: "Book")["title"] = .string("Dispossessed")
            try context.save()
            for layout in [SchemaMapping.Layout.mrq, .coreData] {
                var options = PersistentStoreOptions()
                options.layout = layout
                let copy = CoreDataLayoutTests.temporaryStore("Copy.sqlite")
                try coordinator.migratePersistentStore(try #require(coordinator.persistentStores.first), to: copy, type: .sqlite, options: options)
                let kept = try #require(try PersistentStoreCoordinator.storedModel(at: copy))
                #expect(kept.entity(named: "Book")?.attribute(named: "place")?.otherUserInfo == Self.expectedOthers, "\(layout)")
                #expect(kept.entity(named: "Book")?.otherUserInfo == Self.expectedOthers, "\(layout)")
            }
        }
        let (context, model2) = try S.open(url)
        #expect(try S.count(context, "Book") == 3)
        #expect(model2.entity(named: "Book")?.attribute(named: "place")?.otherUserInfo == Self.expectedOthers)
    }

    // MARK: Repro 3: fetch indexes over expressions

    @Test func aFetchIndexOverExpressionsIsKept() throws {
        let model = try Self.library()
        let archive = try S.edited(model) { objects in
            let index = try S.index(of: "byTitle", "NSFetchIndexDescription", in: objects)
            let elementsUID = try #require(((objects[index] as? [String: Any])?["NSIndexElements"] as? PlistUID)?.value)
            var list = try #require((objects[elementsUID] as? [String: Any])?["NS.objects"] as? [Any])
            let elementClass = S.classRecord(&objects, "NSFetchIndexElementDescription", "NSObject")
            let descriptionClass = S.classRecord(&objects, "NSExpressionDescription", "NSPropertyDescription", "NSObject")
            let constantClass = S.classRecord(&objects, "NSConstantValueExpression", "NSExpression", "NSObject")
            let constant = S.append(&objects, ["$class": S.uid(constantClass), "NSExpressionType": 0,
                                               "NSConstantValue": S.uid(S.append(&objects, 7))] as [String: Any])
            let name = S.append(&objects, "expression4")
            let description = S.append(&objects, ["$class": S.uid(descriptionClass), "NSPropertyName": S.uid(name),
                                                  "NSExpression": S.uid(constant)] as [String: Any])
            list.append(S.uid(S.append(&objects, ["$class": S.uid(elementClass), "NSPropertyName": S.uid(name),
                                                  "NSProperty": S.uid(description), "NSAscending": false] as [String: Any])))
            // A name alone, naming no property: an expression too.
            list.append(S.uid(S.append(&objects, ["$class": S.uid(elementClass), "NSPropertyName": S.uid(S.append(&objects, "expression7")),
                                                  "NSAscending": true] as [String: Any])))
            try S.set(&objects, elementsUID, "NS.objects", list)
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        let index = try #require(decoded.entity(named: "Book")?.fetchIndexes.first { $0.name == "byTitle" })
        #expect(index.elements.map(\.property) == ["title", "expression4", "expression7"])
        #expect(index.elements.map(\.ascending) == [true, false, true])
        #expect(index.expressions == ["expression4": "7", "expression7": ""])
        #expect(try ManagedObjectModel(archive: decoded.archived()).entity(named: "Book")?.fetchIndexes == [index])

        let url = try S.store(model, keeping: archive, fill: Self.fill)
        let (context, _) = try S.open(url)
        #expect(try S.count(context, "Book") == 2)
    }

    // MARK: Repro 4: entities with no Z_PRIMARYKEY row

    @Test(arguments: ["DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'LuxuryCar'",
                      // The row under the entity's name before a rename (CoreDataPlus's V1 store).
                      "UPDATE Z_PRIMARYKEY SET Z_NAME = 'ExpensiveCar' WHERE Z_NAME = 'LuxuryCar'"])
    func anEntityWithNoPrimaryKeyRowTakesTheModelsNumber(_ change: String) throws {
        let model = try ManagedObjectModel {
            Entity("Car") { Attribute("make", .string) }
            Entity("LuxuryCar", parent: "Car") { Attribute("bar", .boolean) }
            Entity("Garage") { Attribute("name", .string) }
        }
        let url = try S.store(model, keeping: try model.coreDataArchive()) { context in
            context.insertObject(forEntityName: "Car")["make"] = .string("Fiat")
            context.insertObject(forEntityName: "LuxuryCar")["make"] = .string("Bentley")
            context.insertObject(forEntityName: "Garage")["name"] = .string("North")
        }
        do {
            // Core Data numbers the entities from the model (Car 1,
            // LuxuryCar 2, Garage 3) and adds their rows lazily.
            let db = try Database(path: url.path)
            #expect(try db.scalar("SELECT Z_ENT FROM ZCAR WHERE ZMAKE = 'Bentley'") == .int(2))
            try db.execute(change)
        }
        let (context, _) = try S.open(url)
        #expect(try S.count(context, "Car") == 1)
        #expect(try S.count(context, "LuxuryCar") == 1)
        #expect(try S.count(context, "Garage") == 1)
        var all = FetchRequest(entityName: "Car")
        all.includesSubentities = true
        #expect(try context.count(for: all) == 2)
        let luxury = try context.fetch(FetchRequest(entityName: "LuxuryCar"))
        #expect(luxury.first?["make"] == .string("Bentley"))
    }

    /// Which columns a store has is asked of SQLite's schema in memory
    /// (`Database.hasColumn`), not listed per table: names match as SQLite
    /// resolves them in a statement, so a column written in another case is
    /// the model's, and a missing one is still named in the refusal.
    @Test func columnsAreMatchedAsSQLiteResolvesThem() throws {
        let model = try ManagedObjectModel {
            Entity("Car") { Attribute("make", .string); Attribute("year", .integer64) }
        }
        let url = try S.store(model, keeping: try model.coreDataArchive()) { context in
            context.insertObject(forEntityName: "Car")["make"] = .string("Fiat")
        }
        do {
            let db = try Database(path: url.path)
            #expect(try db.hasColumn("ZMAKE", inTable: "ZCAR") && db.hasColumn("zMake", inTable: "ZCAR"))
            #expect(try !db.hasColumn("ZCOLOUR", inTable: "ZCAR") && !db.hasColumn("ZMAKE", inTable: "ZBOAT"))
            #expect(try !db.hasColumn("ZMA\u{0}KE", inTable: "ZCAR"), "a NUL is not the end of the name")
            try db.execute("ALTER TABLE ZCAR RENAME COLUMN ZMAKE TO zmake")
        }
        let (context, _) = try S.open(url)
        #expect(try context.fetch(FetchRequest(entityName: "Car")).first?["make"] == .string("Fiat"))
        do {
            let db = try Database(path: url.path)
            try db.execute("ALTER TABLE ZCAR DROP COLUMN ZYEAR")
        }
        #expect(throws: StoreError.self) { try S.open(url) }
        do {
            _ = try S.open(url)
        } catch let error as StoreError {
            #expect(error.message.contains("ZCAR has no column ZYEAR for Car.year"), "\(error.message)")
        }
    }

    /// `tableExists` answers from SQLite's schema in memory as a statement
    /// would resolve the name: any ASCII case, tables (SQLite's own too)
    /// and not views, a name holding a NUL by query (not cut at the NUL).
    @Test func tablesAreFoundAsSQLiteResolvesThem() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tables-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let db = try Database(path: url.path)
        try db.execute("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER)")
        try db.execute("CREATE VIEW Z_METADATA AS SELECT 1")
        #expect(try db.tableExists("Z_PRIMARYKEY") && db.tableExists("z_primaryKey"))
        #expect(try !db.tableExists("Z_METADATA"), "a view is no table")
        #expect(try !db.tableExists("ZNONE"))
        #expect(try !db.tableExists("Z_PRIMARYKEY\u{0}X"), "a NUL is not the end of the name")
        #expect(try db.tableExists("sqlite_master"), "a table a statement reads")
        // A table and a column another connection makes after this one read
        // the schema: found, as a statement would find them.
        let other = try Database(path: url.path)
        try other.execute("CREATE TABLE ZLATER (ZNAME)")
        try other.execute("ALTER TABLE Z_PRIMARYKEY ADD COLUMN Z_MAX INTEGER")
        #expect(try db.tableExists("ZLATER") && db.hasColumn("ZNAME", inTable: "ZLATER"))
        #expect(try db.hasColumn("Z_MAX", inTable: "Z_PRIMARYKEY"))
    }

    /// An immutable connection names its file in an SQLite URI: a path
    /// with spaces, `?`, `#`, `%` and letters past ASCII is encoded so
    /// SQLite opens that file and no other.
    @Test func oddPathsOpenImmutably() throws {
        #expect(Database.uriPath("/a b/c?d#e%f/é.sqlite") == "/a%20b/c%3Fd%23e%25f/%C3%A9.sqlite")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("odd ?#%é \(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("st?re#1%.sqlite").path
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (42)")
        }
        let db = try Database(path: path, readOnly: true, immutable: true)
        #expect(try db.scalar("SELECT x FROM t") == .int(42))
    }

    // MARK: The audit: one test per kept case

    /// A composite as an NSCompositeAttributeDescription (type 2100)
    /// keeping its elements in an array: built from a flat model whose
    /// `richter` and `source` become the elements of `magnitude`.
    @Test func aCompositeAttributeIsReadWithItsElements() throws {
        let flat = try ManagedObjectModel {
            Entity("Quake") {
                Attribute("place", .string)
                Attribute("magnitude", .string)
                Attribute("richter", .double)
                Attribute("source", .string)
            }
        }
        let archive = try S.edited(flat) { objects in
            let composite = S.classRecord(&objects, "NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject")
            let array = S.classRecord(&objects, "NSArray", "NSObject")
            let magnitude = try S.index(of: "magnitude", "NSAttributeDescription", in: objects)
            let elements = try ["richter", "source"].map { S.uid(try S.index(of: $0, "NSAttributeDescription", in: objects)) }
            try S.set(&objects, magnitude, "$class", S.uid(composite))
            try S.set(&objects, magnitude, "NSAttributeType", 2100)
            // Under a key this reader has never seen: it takes the array
            // of attribute descriptions wherever it is.
            try S.set(&objects, magnitude, "NSSomeElementsKey", S.uid(S.append(&objects, ["$class": S.uid(array), "NS.objects": elements] as [String: Any])))
            // The elements are no properties of the entity.
            let entity = try S.index(of: "Quake", "NSEntityDescription", in: objects)
            let propertiesUID = try #require(((objects[entity] as? [String: Any])?["NSProperties"] as? PlistUID)?.value)
            var properties = try #require(objects[propertiesUID] as? [String: Any])
            let keys = try #require(properties["NS.keys"] as? [PlistUID]), values = try #require(properties["NS.objects"] as? [PlistUID])
            let kept = zip(keys, values).filter { !["richter", "source"].contains(objects[$0.0.value] as? String) }
            properties["NS.keys"] = kept.map(\.0)
            properties["NS.objects"] = kept.map(\.1)
            objects[propertiesUID] = properties
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        let quake = try #require(decoded.entity(named: "Quake"))
        let read = try #require(quake.compositeAttribute(named: "magnitude"))
        #expect(read.type == .composite)
        #expect(read.elements.map(\.name) == ["richter", "source"])
        #expect(read.elements.map(\.type) == [.double, .string])
        #expect(quake.attributes.map(\.name) == ["magnitude.richter", "magnitude.source", "place"] || quake.attributes.map(\.name) == ["place", "magnitude.richter", "magnitude.source"])

        // A store laid out for the composite, keeping that archive, opens
        // and reads the elements' columns.
        let magnitude = AttributeDescription(name: "magnitude", type: .composite)
        magnitude.elements = [AttributeDescription(name: "richter", type: .double), AttributeDescription(name: "source", type: .string)]
        let entity = EntityDescription(name: "Quake")
        entity.add(AttributeDescription(name: "place", type: .string))
        entity.add(magnitude)
        let url = try S.store(try ManagedObjectModel(entities: [entity]), keeping: archive) { context in
            let q = context.insertObject(forEntityName: "Quake")
            q["place"] = .string("Lisbon")
            q["magnitude.richter"] = .double(8.5)
        }
        let (context, _) = try S.open(url)
        let rows = try context.fetch(FetchRequest(entityName: "Quake"))
        #expect(rows.count == 1)
        #expect(rows.first?["magnitude.richter"] == .double(8.5))
    }

    @Test func anUnknownAttributeTypeReadsAsTransformable() throws {
        let model = try Self.library()
        let archive = try S.edited(model) { objects in
            try S.set(&objects, try S.index(of: "place", "NSAttributeDescription", in: objects), "NSAttributeType", 2200)
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        #expect(decoded.entity(named: "Book")?.attribute(named: "place")?.type == .transformable)
        let url = try S.store(model, keeping: archive) { context in
            let book = context.insertObject(forEntityName: "Book")
            book["place"] = .string("Paris")
        }
        let (context, _) = try S.open(url)
        // The column reads as what it holds.
        #expect(try context.fetch(FetchRequest(entityName: "Book")).first?["place"] == .string("Paris"))
    }

    /// A derived attribute (NSDerivedAttributeDescription) keeps its
    /// derivation as Core Data formats it, which alone makes its version
    /// hash; one with a filtering predicate mrq cannot format keeps none.
    @Test(arguments: [false, true])
    func aDerivedAttributeKeepsItsDerivation(filtered: Bool) throws {
        let model = try Self.library()
        let archive = try S.edited(model) { objects in
            let name = try S.index(of: "name", "NSAttributeDescription", in: objects)
            let derived = S.classRecord(&objects, "NSDerivedAttributeDescription", "NSAttributeDescription",
                                        "NSPropertyDescription", "NSObject")
            try S.set(&objects, name, "$class", S.uid(derived))
            let utilities = S.append(&objects, "_NSPredicateUtilities")
            let constant = S.append(&objects, [
                "$class": S.uid(S.classRecord(&objects, "NSConstantValueExpression", "NSExpression", "NSObject")),
                "NSExpressionType": 0, "NSConstantValueClassName": S.uid(utilities),
            ] as [String: Any])
            let this = S.append(&objects, [
                "$class": S.uid(S.classRecord(&objects, "NSSelfExpression", "NSExpression", "NSObject")), "NSExpressionType": 1,
            ] as [String: Any])
            let specifier = S.append(&objects, [
                "$class": S.uid(S.classRecord(&objects, "NSKeyPathSpecifierExpression", "NSExpression", "NSObject")),
                "NSExpressionType": 10, "NSKeyPath": S.uid(S.append(&objects, "books")),
            ] as [String: Any])
            let array = S.classRecord(&objects, "NSArray", "NSObject")
            let keyPath = S.append(&objects, [
                "$class": S.uid(S.classRecord(&objects, "NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject")),
                "NSExpressionType": 3, "NSOperand": S.uid(this), "NSSelectorName": S.uid(S.append(&objects, "valueForKeyPath:")),
                "NSArguments": S.uid(S.append(&objects, ["$class": S.uid(array), "NS.objects": [S.uid(specifier)]] as [String: Any])),
            ] as [String: Any])
            let count = S.append(&objects, [
                "$class": S.uid(S.classRecord(&objects, "NSFunctionExpression", "NSExpression", "NSObject")),
                "NSExpressionType": 4, "NSOperand": S.uid(constant), "NSSelectorName": S.uid(S.append(&objects, "count:")),
                "NSArguments": S.uid(S.append(&objects, ["$class": S.uid(array), "NS.objects": [S.uid(keyPath)]] as [String: Any])),
            ] as [String: Any])
            try S.set(&objects, name, "NSDerivationExpression", S.uid(count))
            if filtered {
                let truth = S.append(&objects, [
                    "$class": S.uid(S.classRecord(&objects, "NSTruePredicate", "NSPredicate", "NSObject")),
                ] as [String: Any])
                try S.set(&objects, name, "NSFilteringPredicate", S.uid(truth))
            }
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        let name = try #require(decoded.entity(named: "Author")?.attribute(named: "name"))
        #expect(name.derivation == (filtered ? nil : "count:(books)"))
        if !filtered {
            #expect(name.versionHash == Data(sha256(Array("count:(books)".utf8))))
        }
    }

    @Test func anUnknownPropertyClassIsLeftOut() throws {
        let model = try Self.library()
        let archive = try S.edited(model) { objects in
            let place = try S.index(of: "place", "NSAttributeDescription", in: objects)
            let newer = S.classRecord(&objects, "NSSomeNewerPropertyDescription", "NSPropertyDescription", "NSObject")
            try S.set(&objects, place, "$class", S.uid(newer))
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        #expect(decoded.entity(named: "Book")?.property(named: "place") == nil)
        #expect(decoded.entity(named: "Book")?.attribute(named: "title") != nil)
        let url = try S.store(model, keeping: archive, fill: Self.fill)
        let (context, _) = try S.open(url)
        #expect(try S.count(context, "Book") == 2)
    }

    /// A predicate mrq cannot read (a custom operator) in a validation
    /// rule, a fetched property and a template: each left out, the rest
    /// read.
    @Test func predicatesMrqCannotReadAreLeftOut() throws {
        let title = AttributeDescription(name: "title", type: .string)
        title.validationPredicates = [("length > 0", "too short"), ("title != 'x'", "not x")]
        let book = EntityDescription(name: "Book")
        book.add(title)
        book.add(FetchedPropertyDescription(name: "sameTitle", destination: "Book", predicate: "title == $FETCH_SOURCE.title"))
        let model = try ManagedObjectModel(entities: [book])
        try model.setFetchRequestTemplate(FetchRequest(entityName: "Book", predicate: try Predicates.Predicate(format: "title == 'a'")), forName: "byA")
        let archive = try S.edited(model) { objects in
            // Every operator becomes one mrq does not know (a custom selector).
            for i in objects.indices {
                guard let fields = objects[i] as? [String: Any], fields["NSOperatorType"] != nil else { continue }
                try S.set(&objects, i, "NSOperatorType", 11)
            }
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        let entity = try #require(decoded.entity(named: "Book"))
        #expect(entity.attribute(named: "title")?.validationPredicates.isEmpty == true)
        #expect(entity.fetchedProperties.isEmpty)
        #expect(decoded.fetchRequestTemplatesByName.isEmpty)
    }

    @Test func oddButReadableFieldsAreKept() throws {
        let model = try ManagedObjectModel {
            Entity("Book") {
                Attribute("title", .string)
                Attribute("cover", .transformable)
                ToOne("shelf", "Shelf", inverse: "books")
                Unique("title")
            }
            Entity("Shelf") { ToMany("books", "Book", inverse: "shelf") }
        }
        let archive = try S.edited(model) { objects in
            // An unknown delete rule; a default value that is an object of
            // an app's class; version identifiers holding a date; a
            // uniqueness constraint and a compound index naming a property
            // description rather than its name.
            try S.set(&objects, try S.index(of: "shelf", "NSRelationshipDescription", in: objects), "NSDeleteRule", 7)
            let custom = S.classRecord(&objects, "MYColor", "NSObject")
            let color = S.append(&objects, ["$class": S.uid(custom), "red": 1.0] as [String: Any])
            try S.set(&objects, try S.index(of: "cover", "NSAttributeDescription", in: objects), "NSDefaultValue", S.uid(color))
            let set = S.classRecord(&objects, "NSSet", "NSObject")
            let date = S.classRecord(&objects, "NSDate", "NSObject")
            let when = S.append(&objects, ["$class": S.uid(date), "NS.time": 1.0] as [String: Any])
            let identifiers = S.append(&objects, ["$class": S.uid(set), "NS.objects": [S.uid(S.append(&objects, "v2")), S.uid(when)]] as [String: Any])
            try S.set(&objects, 1, "NSVersionIdentifiers", S.uid(identifiers))
            let array = S.classRecord(&objects, "NSArray", "NSObject")
            let title = S.uid(try S.index(of: "title", "NSAttributeDescription", in: objects))
            let tuple = S.append(&objects, ["$class": S.uid(array), "NS.objects": [title]] as [String: Any])
            let tuples = S.append(&objects, ["$class": S.uid(array), "NS.objects": [S.uid(tuple)]] as [String: Any])
            let entity = try S.index(of: "Book", "NSEntityDescription", in: objects)
            try S.set(&objects, entity, "NSUniqueTuples", S.uid(tuples))
            try S.set(&objects, entity, "NSCompoundIndexes", S.uid(tuples))
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        let book = try #require(decoded.entity(named: "Book"))
        #expect(book.relationship(named: "shelf")?.deleteRule == .nullify)
        #expect(book.attribute(named: "cover")?.defaultValue == .null)
        #expect(decoded.versionIdentifier == "v2")
        #expect(book.uniquenessConstraints == [["title"]])
        #expect(book.fetchIndexes.map(\.name) == ["Book_title"])
    }

    /// Leniency is for what Core Data writes: damage is refused as before,
    /// naming the object and key.
    @Test func damageIsStillRefused() throws {
        let model = try Self.library()
        let cycle = try S.edited(model) { objects in
            let array = S.classRecord(&objects, "NSArray", "NSObject")
            let n = objects.count
            objects.append(["$class": S.uid(array), "NS.objects": [S.uid(n)]] as [String: Any])
            try S.set(&objects, try S.index(of: "title", "NSAttributeDescription", in: objects), "NSDefaultValue", S.uid(n))
        }
        let error = #expect(throws: ModelError.self) { try ManagedObjectModel(coreDataArchive: cycle) }
        #expect(error?.message.contains("contains itself") == true, "\(String(describing: error))")
        let dangling = try S.edited(model) { objects in
            let books = try S.index(of: "books", "NSRelationshipDescription", in: objects)
            try S.set(&objects, books, "NSUserInfo", S.uid(1 << 20))
            try S.clearPacked(&objects, books, 0x40)
        }
        let past = #expect(throws: ModelError.self) { try ManagedObjectModel(coreDataArchive: dangling) }
        #expect(past?.message.contains("key 'NSUserInfo'") == true, "\(String(describing: past))")
        let cyclicInfo = try S.edited(model) { objects in
            let array = S.classRecord(&objects, "NSArray", "NSObject")
            let dictionary = S.classRecord(&objects, "NSDictionary", "NSObject")
            let n = objects.count
            objects.append(["$class": S.uid(array), "NS.objects": [S.uid(n)]] as [String: Any])
            let info = S.append(&objects, ["$class": S.uid(dictionary), "NS.keys": [S.uid(S.append(&objects, "k"))], "NS.objects": [S.uid(n)]] as [String: Any])
            let title = try S.index(of: "title", "NSAttributeDescription", in: objects)
            try S.set(&objects, title, "NSUserInfo", S.uid(info))
            try S.clearPacked(&objects, title, 0x40)
        }
        let info = #expect(throws: ModelError.self) { try ManagedObjectModel(coreDataArchive: cyclicInfo) }
        #expect(info?.message.contains("contains itself") == true, "\(String(describing: info))")
    }

    /// Core Data checks a template's keys when it runs, not when it loads
    /// the model (Viber's Contacts.data names 'phoneNum' on an entity
    /// without it): kept, and refused when run.
    @Test func aTemplateNamingAKeyItsEntityLacksIsKept() throws {
        let model = try Self.library()
        let templates = [ArchivedFetchRequestTemplate(name: "byTitle", entityName: "Book", predicateFormat: "title == $T")]
        let archive = try S.edited(model) { objects in
            var (original, _) = (objects, 0)
            original = try S.objects(of: try model.coreDataArchive(fetchRequestTemplates: templates)).objects
            objects = original
            let specifier = try #require(objects.indices.first { i in
                guard let fields = objects[i] as? [String: Any], let uid = fields["NSKeyPath"] as? PlistUID else { return false }
                return objects[uid.value] as? String == "title"
            })
            try S.set(&objects, specifier, "NSKeyPath", S.uid(S.append(&objects, "phoneNum")))
        }
        let decoded = try ManagedObjectModel(coreDataArchive: archive)
        #expect(decoded.fetchRequestTemplatesByName["byTitle"]?.predicate?.format == "phoneNum == $T")
        let again = try ManagedObjectModel(archive: decoded.archived())
        #expect(again.fetchRequestTemplatesByName["byTitle"] != nil)
    }

    /// Core Data does not always give a many-to-many's table to the side
    /// with the lower entity number (Viber's Contacts.data keeps Z_18VIBES
    /// for the sub-entity Vibe, 6, and Tag, 18): the store's table wins.
    @Test func aManyToManyTableOfTheOtherSideIsTheStoresOwn() throws {
        let model = try ManagedObjectModel {
            Entity("Conversation") { Attribute("title", .string) }
            Entity("Vibe", parent: "Conversation") { ToMany("tags", "Tag", inverse: "vibes") }
            Entity("Tag") {
                Attribute("name", .string)
                ToMany("vibes", "Vibe", inverse: "tags")
            }
        }
        let url = try S.store(model, keeping: try model.coreDataArchive()) { context in
            let vibe = context.insertObject(forEntityName: "Vibe")
            vibe["title"] = .string("v")
            for name in ["a", "b"] {
                let tag = context.insertObject(forEntityName: "Tag")
                tag["name"] = .string(name)
                vibe.add(tag, toKey: "tags")
            }
            context.insertObject(forEntityName: "Tag")["name"] = .string("alone")
        }
        do {
            // mrq gave the table to Vibe (2 < 3): Z_2TAGS (Z_2VIBES, Z_3TAGS).
            // Named from Tag's side, the columns are the same.
            let db = try Database(path: url.path)
            try db.execute("ALTER TABLE Z_2TAGS RENAME TO Z_3VIBES")
        }
        let (context, _) = try S.open(url)
        let tagged = FetchRequest(entityName: "Tag", predicate: try Predicates.Predicate(format: "ANY vibes.title == 'v'"))
        #expect(try context.count(for: tagged) == 2)
        let vibe = try #require(try context.fetch(FetchRequest(entityName: "Vibe")).first)
        #expect(vibe.objects(forKey: "tags").count == 2)
    }

    /// What Core Data adds beside the model's tables: persistent history
    /// (entities numbered from 16000, ATRANSACTION…), CloudKit's mirroring
    /// tables, a metadata plist with keys mrq does not know: the store
    /// opens, counts right, and is left as it was.
    @Test func historyCloudKitAndUnknownMetadataOpen() throws {
        let model = try Self.library()
        let url = try S.store(model, keeping: try model.coreDataArchive(), fill: Self.fill)
        do {
            let db = try Database(path: url.path)
            try db.execute("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 9), (16002, 'TRANSACTION', 0, 3)")
            try db.execute("CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR VARCHAR)")
            try db.execute("CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER)")
            try db.execute("CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCKRECORDID VARCHAR)")
            guard case .data(let plist)? = try db.scalar("SELECT Z_PLIST FROM Z_METADATA") else { Issue.record("no metadata"); return }
            var metadata = try #require(try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
            metadata["NSPersistenceMaximumFrameworkVersion"] = 1400
            metadata["NSPersistentHistoryTrackingKey"] = ["enabled": true]
            metadata["com.example.app.custom"] = Data([1, 2, 3])
            let changed = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            try db.execute("UPDATE Z_METADATA SET Z_PLIST = ?", [.data(changed)])
        }
        let before = try Data(contentsOf: url)
        let (context, model2) = try S.open(url)
        #expect(model2.entities.map(\.name).sorted() == ["Author", "Book"])
        #expect(try S.count(context, "Book") == 2)
        #expect(try S.count(context, "Author") == 1)
        #expect(try Data(contentsOf: url) == before)
    }
}
