import Foundation
import Predicates
import Testing

@testable import ObjectStore
@testable import ObjectStorePostgres
import PostgresTestServer

/// Issue 30, class 4: rows of a Core Data store that do not fit its model.
/// An entity column naming an entity of another hierarchy (the crash
/// "entity Person has no attribute 'title'"), none, or not a number; a key
/// that is not a key — each throws a `StoreError` naming the table, the
/// row and the column. A value of another type than the attribute's is
/// shown as what SQLite holds; a key to nothing is a fault that reads
/// empty, as a deleted row's does. Then random ill-fitting rows: every
/// fetch, count and access either succeeds or throws `StoreError`.
@Suite struct IllFittingRowTests {
    /// `CoreDataLayoutTests`' populated store with `statements` run on it.
    static func store(_ statements: [String]) throws -> URL {
        let url = try CoreDataLayoutTests.populatedStore()
        let db = try Database(path: url.path)
        for statement in statements { try db.execute(statement) }
        return url
    }

    static func context(_ url: URL, model: ManagedObjectModel? = nil) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: try model ?? CoreDataLayoutTests.model())
        var options = PersistentStoreOptions()
        options.readOnly = true
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    static func fetchError(_ url: URL, _ entity: String) throws -> StoreError? {
        let context = try context(url)
        do {
            _ = try context.fetch(FetchRequest(entityName: entity))
            Issue.record("fetching \(entity) succeeded")
            return nil
        } catch let error as StoreError {
            #expect(error.kind == .corrupt)
            return error
        }
    }

    static func key(_ url: URL, _ sql: String) throws -> Int64 {
        guard case .int(let pk)? = try Database(path: url.path, readOnly: true).scalar(sql) else {
            Issue.record("no key for \(sql)")
            return 0
        }
        return pk
    }

    @Test func anEntityColumnNamingAnotherHierarchyIsAnError() throws {
        // 5 is Note's number; the row is in ZACCOUNT.
        let url = try Self.store(["UPDATE ZACCOUNT SET Z_ENT = 5 WHERE ZNAME = 'Work'"])
        let pk = try Self.key(url, "SELECT Z_PK FROM ZACCOUNT WHERE ZNAME = 'Work'")
        let error = try Self.fetchError(url, "Account")
        #expect(error?.message == "row \(pk) of ZACCOUNT, Z_ENT is 5, the number of Note, which is not Account or an entity below it")
        // Fetching a sub-entity filters the row out: nothing to decode.
        #expect(try Self.context(url).fetch(FetchRequest(entityName: "IMAPAccount")).isEmpty)
        #expect(try Self.context(url).count(for: FetchRequest(entityName: "Account")) == 2)
    }

    @Test(arguments: [("99", "is 99, the number of no entity of the model"),
                      ("9223372036854775807", "is 9223372036854775807, the number of no entity of the model"),
                      ("-1", "is -1, the number of no entity of the model"),
                      ("'abc'", "is 'abc', which is not an entity number"),
                      ("X'05'", "is 1 byte of data, which is not an entity number"),
                      ("0.5", "is 0.5, which is not an entity number")])
    func anEntityColumnNamingNoEntityIsAnError(value: String, message: String) throws {
        let url = try Self.store(["UPDATE ZACCOUNT SET Z_ENT = \(value) WHERE ZNAME = 'Work'"])
        let pk = try Self.key(url, "SELECT Z_PK FROM ZACCOUNT WHERE ZNAME = 'Work'")
        #expect(try Self.fetchError(url, "Account")?.message == "row \(pk) of ZACCOUNT, Z_ENT \(message)")
    }

    @Test func aToOneEntityColumnNamingAnotherHierarchyIsAnError() throws {
        let model = try CoreDataLayoutTests.model()
        let note = try #require(model.entity(named: "Note"))
        let columns = try #require(SchemaMapping(model: model, layout: .coreData).toOne("account", of: note))
        let entityColumn = try #require(columns.entity)
        // 4 is Folder's number.
        let url = try Self.store(["UPDATE ZNOTE SET \(entityColumn) = 4 WHERE ZTITLE = 'Soup'"])
        let pk = try Self.key(url, "SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'Soup'")
        #expect(try Self.fetchError(url, "Note")?.message
                == "row \(pk) of ZNOTE, \(entityColumn.unquoted) (the entity of Note.account) is 4, the number of Folder, which is not Account or an entity below it")
    }

    /// Found by the property test below: the entity column of Async's
    /// account says localAccount, the account's row says IMAPAccount,
    /// which has fewer attributes. The fault read the row's values into
    /// the object's slots and crashed on the last one; now the row reads
    /// as gone, as a dangling key's does.
    @Test func aToOneEntityColumnNamingASiblingReadsAsGone() throws {
        let model = try CoreDataLayoutTests.model()
        let note = try #require(model.entity(named: "Note"))
        let entityColumn = try #require(SchemaMapping(model: model, layout: .coreData).toOne("account", of: note)?.entity)
        // 3 is localAccount's number.
        let url = try Self.store(["UPDATE ZNOTE SET \(entityColumn) = 3 WHERE ZTITLE = 'Async'"])
        let context = try Self.context(url)
        let async = try #require(try context.fetch(FetchRequest(entityName: "Note")).first { $0["title"] == .string("Async") })
        #expect(async.object(forKey: "account") == nil)
        let account = context.object(with: try #require(Self.toOneID(async, "account")))
        #expect(account.entity.name == "localAccount")
        #expect(account.entity.attributes.map { account[$0.name] } == [.null, .null, .null, .null])
    }

    @Test(arguments: [("'abc'", "'abc'"), ("-3", "-3"), ("2.5", "2.5"), ("X'00'", "1 byte of data")])
    func aToOneKeyThatIsNotAKeyIsAnError(value: String, shown: String) throws {
        let url = try Self.store(["UPDATE ZNOTE SET ZFOLDER = \(value) WHERE ZTITLE = 'Soup'"])
        let pk = try Self.key(url, "SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'Soup'")
        #expect(try Self.fetchError(url, "Note")?.message
                == "row \(pk) of ZNOTE, ZFOLDER (Note.folder) is \(shown), which is not a key (keys are integers from 0 up)")
    }

    /// A dictionary fetch (the shell's listing) shows the key column as
    /// the file holds it, where it read 0 for text.
    @Test func aDictionaryFetchShowsAKeyThatIsNotAKeyAsItIs() throws {
        let url = try Self.store(["UPDATE ZNOTE SET ZFOLDER = 'abc' WHERE ZTITLE = 'Soup'"])
        let context = try Self.context(url)
        var request = FetchRequest(entityName: "Note", predicate: try Predicate(format: "title == 'Soup'"))
        request.resultType = .dictionary
        request.propertiesToFetch = [PropertyToFetch(keyPath: "title"), PropertyToFetch(keyPath: "folder")]
        #expect(try context.fetchDictionaries(request) == [["title": .string("Soup"), "folder": .string("abc")]])
    }

    @Test func aRowKeyThatIsNegativeIsAnError() throws {
        let url = try Self.store(["UPDATE ZNOTE SET Z_PK = -7 WHERE ZTITLE = 'Soup'"])
        #expect(try Self.fetchError(url, "Note")?.message == "a row of ZNOTE: Z_PK is -7, which is not a key (keys are integers from 0 up)")
    }

    @Test func aRowKeyOfZeroIsARow() throws {
        let url = try Self.store(["UPDATE ZNOTE SET Z_PK = 0 WHERE ZTITLE = 'Soup'"])
        let context = try Self.context(url)
        let notes = try context.fetch(FetchRequest(entityName: "Note"))
        let soup = try #require(notes.first { $0["title"] == .string("Soup") })
        #expect(soup.objectID.primaryKey == 0 && !soup.objectID.isTemporaryID)
        #expect(soup["pinned"] == .bool(false))
    }

    /// Core Data faults a dangling key and throws when the fault fires;
    /// in mrq the relationship reads as nil, and the object the key names
    /// has every attribute nil, as a row deleted meanwhile does.
    /// The ID a to-one's key names, whether or not its row exists.
    static func toOneID(_ object: ManagedObject, _ key: String) -> ObjectID? {
        object.willAccessValues()
        guard let index = object.entity.relationshipSlot(named: key),
              case .toOne(let id) = object.relationshipSlots[index] else { return nil }
        return id
    }

    @Test func aToOneKeyToNothingReadsAsNil() throws {
        let url = try Self.store(["UPDATE ZNOTE SET ZFOLDER = 999 WHERE ZTITLE = 'Soup'"])
        let context = try Self.context(url)
        let notes = try context.fetch(FetchRequest(entityName: "Note"))
        let soup = try #require(notes.first { $0["title"] == .string("Soup") })
        #expect(soup.object(forKey: "folder") == nil)
        let folder = context.object(with: try #require(Self.toOneID(soup, "folder")))
        #expect(folder.objectID.primaryKey == 999)
        #expect(folder["title"] == .null)
        #expect(folder.objects(forKey: "notes").isEmpty)
    }

    /// The join is to the destination's table: a join row to no row there
    /// names no object.
    @Test func aJoinRowToNothingNamesNoObject() throws {
        let url = try CoreDataLayoutTests.populatedStore()
        let soup = try Self.key(url, "SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'Soup'")
        let db = try Database(path: url.path)
        try db.execute("INSERT INTO Z_5TAGS (Z_5NOTES, Z_6TAGS) VALUES (\(soup), 999)")
        let context = try Self.context(url)
        let notes = try context.fetch(FetchRequest(entityName: "Note"))
        let note = try #require(notes.first { $0["title"] == .string("Soup") })
        #expect(note.objects(forKey: "tags").map { $0["name"] } == [.string("food")])
    }

    @Test func aJoinRowThatIsNotAKeyIsAnError() throws {
        let url = try CoreDataLayoutTests.populatedStore()
        let soup = try Self.key(url, "SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'Soup'")
        let db = try Database(path: url.path)
        try db.execute("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (-4, 6, 1, 'negative')")
        try db.execute("INSERT INTO Z_5TAGS (Z_5NOTES, Z_6TAGS) VALUES (\(soup), -4)")
        let context = try Self.context(url)
        let note = try #require(try context.fetch(FetchRequest(entityName: "Note")).first { $0["title"] == .string("Soup") })
        // The store refuses the row; the context, whose relationship
        // accessors do not throw, logs it and shows no made-up destination.
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        let tags = try #require(note.entity.relationship(named: "tags"))
        let error = #expect(throws: StoreError.self) { try store.destinations(of: tags, from: note.objectID) }
        #expect(error?.message == "a row of ZTAG: Z_PK is -4, which is not a key (keys are integers from 0 up)")
        #expect(note.objects(forKey: "tags").allSatisfy { $0.objectID.primaryKey >= 0 })
    }

    /// What SQLite holds when it is not what the attribute's type reads:
    /// shown as it is, not as 0, false or an empty string.
    @Test func valuesOfAnotherTypeAreShownAsTheyAre() throws {
        let url = try Self.store([
            "UPDATE ZNOTE SET ZPINNED = 'yes', ZTITLE = X'00FF', ZEDITED = 'yesterday', ZAMOUNT = 'lots', "
                + "ZIDENTIFIER = 'not a uuid', ZLINK = X'01', ZBODY = 42 WHERE ZTITLE = 'Soup'",
            "UPDATE ZNOTE SET ZPINNED = 0.5, ZEDITED = 1e300, ZIDENTIFIER = X'0102' WHERE ZTITLE = 'Bread'",
            "UPDATE ZNOTE SET ZPINNED = 9223372036854775807, ZAMOUNT = 12 WHERE ZTITLE = 'Async'",
            "UPDATE ZACCOUNT SET ZPORT = 'imap', ZCREATED = X'FF' WHERE ZNAME = 'Work'",
        ])
        let context = try Self.context(url)
        let notes = try context.fetch(FetchRequest(entityName: "Note"))
        let soup = try #require(notes.first { $0["title"] == .data(Data([0x00, 0xFF])) })
        #expect(soup["pinned"] == .string("yes"))
        #expect(soup["edited"] == .string("yesterday"))
        #expect(soup["amount"] == .string("lots"))
        #expect(soup["identifier"] == .string("not a uuid"))
        #expect(soup["link"] == .data(Data([0x01])))
        // VARCHAR's affinity made 42 text.
        #expect(soup["body"] == .string("42"))
        let bread = try #require(notes.first { $0["title"] == .string("Bread") })
        #expect(bread["pinned"] == .double(0.5))
        #expect(bread["edited"] == .date(Date(timeIntervalSinceReferenceDate: 1e300)))
        #expect(bread["identifier"] == .data(Data([1, 2])))
        let async = try #require(notes.first { $0["title"] == .string("Async") })
        #expect(async["pinned"] == .bool(true))
        #expect(async["amount"] == .decimal(12))
        let work = try #require(try context.fetch(FetchRequest(entityName: "Account")).first { $0["name"] == .string("Work") })
        #expect(work["port"] == .string("imap"))
        #expect(work["created"] == .data(Data([0xFF])))
        // Queried, sorted and compared in memory without trouble.
        _ = try context.fetch(FetchRequest(entityName: "Note", predicate: try Predicate(format: "pinned == YES OR title == 'x'")))
        var sorted = FetchRequest(entityName: "Note", predicate: try Predicate(format: "edited > %@", .date(Date(timeIntervalSinceReferenceDate: 0))))
        sorted.sortDescriptors = try SortSpec.parse("title,pinned:NO")
        _ = try context.fetch(sorted)
    }

    /// PostgreSQL's store checks the entity column the same way: a person
    /// row whose entity column holds Tag's number, and a person whose
    /// department's key is negative.
    @Test func anEntityColumnNamingAnotherHierarchyIsAnErrorOnPostgreSQL() throws {
        let url = try PostgresServer.shared().createDatabase()
        let model = try TestModels.people()
        do {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try PersistentStoreCoordinator.onPostgres(model, url: url))
            let department = context.insertObject(forEntityName: "Department")
            department["name"] = .string("R&D")
            for name in ["Ada", "Bo"] {
                let person = context.insertObject(forEntityName: name == "Ada" ? "Person" : "Manager")
                person["lastName"] = .string(name)
                person.setObject(department, forKey: "department")
            }
            try context.save()
        }
        let mapping = try SchemaMapping(model: model, layout: .mrq)
        let person = try #require(model.entity(named: "Person"))
        let table = mapping.table(for: person)
        let entityColumn = try #require(table.entityColumn)
        let tag = mapping.entityCode(try #require(model.entity(named: "Tag")))
        let lastName = try #require(mapping.column(for: "lastName", of: person)).name
        let connection = try PostgresConnection(url)
        try connection.execute("UPDATE \(table.name) SET \(entityColumn) = \(tag) WHERE \(lastName) = 'Ada'")
        guard case .int(let pk)? = try connection.scalar("SELECT \(table.primaryKey) FROM \(table.name) WHERE \(lastName) = 'Ada'") else {
            Issue.record("no key for Ada")
            return
        }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try PersistentStoreCoordinator.onPostgres(model, url: url))
        let error = #expect(throws: StoreError.self) { _ = try context.fetch(FetchRequest(entityName: "Person")) }
        #expect(error?.message == "row \(pk) of \(table.name.unquoted), \(entityColumn.unquoted) is \(tag), the number of Tag, which is not Person or an entity below it",
                "\(String(describing: error))")
        // The manager is still read: only its own hierarchy's rows are asked for.
        #expect(try context.fetch(FetchRequest(entityName: "Manager")).map { $0["lastName"] } == [.string("Bo")])
    }

    /// A hostile file may declare `Z_PK` without PRIMARY KEY and repeat a
    /// key: the rows are one object (one ID, one object in the context),
    /// listed once for each row.
    @Test func aRepeatedKeyIsOneObject() throws {
        let url = try Self.store([
            "CREATE TABLE ZTAG_COPY AS SELECT * FROM ZTAG",
            "DROP TABLE ZTAG",
            "ALTER TABLE ZTAG_COPY RENAME TO ZTAG",
            "INSERT INTO ZTAG SELECT Z_PK, Z_ENT, Z_OPT, 'again' FROM ZTAG",
        ])
        let context = try Self.context(url)
        let tags = try context.fetch(FetchRequest(entityName: "Tag"))
        #expect(tags.count == 4)
        #expect(Set(tags.map(\.objectID)).count == 2)
        #expect(Set(tags.map(ObjectIdentifier.init)).count == 2)
        #expect(try context.count(for: FetchRequest(entityName: "Tag")) == 4)
    }
}
