import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// A to-many with no inverse in Core Data's layout (issue 31): Core Data
/// keeps it as a key column in the destination's table, `Z` + the source
/// entity's number + the name in capitals (CoreDataPlus's
/// SampleModel2V1.sqlite: `Book.pages` is `ZPAGE.Z1PAGES`), not as a join
/// table. The model here is that store's shape.
@Suite struct CoreDataInverselessTests {
    typealias S = ArchiveSurgery

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Book") {
                Attribute("title", .string)
                ToMany("pages", "Page")
            }
            Entity("GraphicNovel", parent: "Book") { Attribute("isBlackAndWhite", .boolean) }
            Entity("Page") {
                Attribute("number", .integer32)
                Attribute("isBookmarked", .boolean)
                Attribute("content", .binary)
                ToOne("book", "Book")
            }
        }
    }

    /// A store laid out by mrq, then filled by SQL as Core Data fills it:
    /// Dune (a Book) holds pages 1-3, Maus (a GraphicNovel) page 4, Empty
    /// none; page 5 is in no book.
    static func coreDataStore() throws -> URL {
        let url = try S.store(try model(), keeping: try model().coreDataArchive())
        let db = try Database(path: url.path)
        try db.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, 1, 1, 'Dune'), (2, 2, 1, 'Maus'), (3, 1, 1, 'Empty')")
        try db.execute("""
            INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZISBOOKMARKED, ZNUMBER, Z1PAGES) VALUES
            (1, 3, 1, 0, 1, 1), (2, 3, 1, 1, 2, 1), (3, 3, 1, 0, 3, 1), (4, 3, 1, 1, 4, 2), (5, 3, 1, 0, 5, NULL)
            """)
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = CASE Z_NAME WHEN 'Book' THEN 3 WHEN 'Page' THEN 5 ELSE 0 END")
        return url
    }

    /// Each book's title → its pages' numbers, sorted.
    static func contents(_ context: ManagedObjectContext) throws -> [String: [Int64]] {
        var result: [String: [Int64]] = [:]
        for book in try context.fetch(FetchRequest(entityName: "Book")) {
            guard case .string(let title) = book["title"] else { continue }
            result[title] = book.objects(forKey: "pages").compactMap { page -> Int64? in
                if case .int(let n) = page["number"] { return n }
                return nil
            }.sorted()
        }
        return result
    }

    /// `Z_PK → Z1PAGES` of every page, as the file holds them.
    static func keys(_ url: URL) throws -> [Int64: Int64?] {
        let db = try Database(path: url.path)
        var result: [Int64: Int64?] = [:]
        for row in try db.rows("SELECT Z_PK, Z1PAGES FROM ZPAGE") {
            guard case .int(let pk) = row[0] else { continue }
            if case .int(let key) = row[1] { result[pk] = key } else { result[pk] = .some(nil) }
        }
        return result
    }

    /// A mapping finds a hierarchy's table by its root entity object, and
    /// by name for an entity of another instance of the same model (a
    /// migration's models, a model loaded twice), in both layouts; a
    /// sub-entity finds its root's table.
    @Test func aTableIsFoundByTheEntityAndByNameForAnotherInstanceOfTheModel() throws {
        let model = try Self.model()
        let twin = try Self.model()
        for layout in [SchemaMapping.Layout.mrq, .coreData] {
            let mapping = try SchemaMapping(model: model, layout: layout)
            for name in ["Book", "GraphicNovel", "Page"] {
                let own = mapping.table(for: try #require(model.entity(named: name)))
                let other = mapping.table(for: try #require(twin.entity(named: name)))
                #expect(own === other, "\(layout) \(name)")
                #expect(own.rootEntity == (name == "Page" ? "Page" : "Book"))
            }
        }
    }

    @Test func theToManyIsAKeyInTheDestinationsTableNotAJoinTable() throws {
        let model = try Self.model()
        let mapping = try SchemaMapping(model: model, layout: .coreData)
        let book = try #require(model.entity(named: "Book"))
        let pages = try #require(book.relationship(named: "pages"))
        #expect(mapping.joinTable("pages", of: book) == nil)
        #expect(mapping.allJoinTables.isEmpty)
        #expect(mapping.toManyKey(pages, of: book)?.foreignKey.unquoted == "Z1PAGES")
        // The columns and their order of SampleModel2V1.sqlite's ZPAGE.
        let table = mapping.table(for: try #require(model.entity(named: "Page")))
        #expect(table.columns.map(\.name.unquoted) == ["ZISBOOKMARKED", "ZNUMBER", "ZBOOK", "Z1_BOOK", "Z1PAGES", "ZCONTENT"])
        // mrq's own layout keeps its join table.
        #expect(try SchemaMapping(model: model).joinTable("pages", of: book) != nil)
        // A new store is laid out so, with Core Data's index on the key.
        let url = try S.store(model, keeping: try model.coreDataArchive())
        let db = try Database(path: url.path)
        let names = try db.rows("SELECT name FROM sqlite_master ORDER BY name").compactMap { row -> String? in
            if case .string(let s) = row[0] { return s }
            return nil
        }
        #expect(names.contains("ZPAGE_Z1PAGES_INDEX"))
        #expect(!names.contains { $0.hasPrefix("Z_1") || $0.hasPrefix("Z_3") })
    }

    @Test func readsCountsPrefetchAndPredicatesGoThroughTheKey() throws {
        let url = try Self.coreDataStore()
        let before = try Data(contentsOf: url)
        let (context, _) = try S.open(url)
        #expect(try Self.contents(context) == ["Dune": [1, 2, 3], "Maus": [4], "Empty": []])
        // Prefetched: the same, in one query per relationship.
        var prefetching = FetchRequest(entityName: "Book")
        prefetching.relationshipKeyPathsForPrefetching = ["pages"]
        let prefetched = try context.fetch(prefetching).map { $0.objects(forKey: "pages").count }.sorted()
        #expect(prefetched == [0, 1, 3])
        // SQL and the evaluator agree, and the SQL says it all.
        let books = try context.fetch(FetchRequest(entityName: "Book")).map { $0 }
        let evaluator = Evaluator()
        for format in ["pages.@count == 3", "pages.@count == 0", "ANY pages.number > 3", "ANY pages.isBookmarked == YES",
                       "NONE pages.number == 2", "SUBQUERY(pages, $p, $p.number >= 2).@count >= 2",
                       "pages.@max.number == 4", "pages.@sum.number == 6 OR title == 'Empty'"] {
            let predicate = try Predicate(format: format)
            let request = FetchRequest(entityName: "Book", predicate: predicate)
            let expected = Set(try books.filter { try evaluator.evaluate(predicate, on: $0) }.map(\.objectID.primaryKey))
            #expect(Set(try context.fetch(request).objectIDs.map(\.primaryKey)) == expected, "\(format)")
            #expect(try context.count(for: request) == expected.count, "\(format)")
            #expect(try context.explain(request).residual == nil, "\(format) runs in SQL")
        }
        #expect(try context.count(for: FetchRequest(entityName: "Book", predicate: try Predicate(format: "ANY pages.number > 3"))) == 1)
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aSaveWritesTheKeyAndADeleteReleasesIt() throws {
        let url = try Self.coreDataStore()
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: url))
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        func book(_ title: String) throws -> ManagedObject {
            try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: try Predicate(format: "title == %@", title))).first)
        }
        func page(_ number: Int) throws -> ManagedObject {
            try #require(try context.fetch(FetchRequest(entityName: "Page", predicate: try Predicate(format: "number == %d", number))).first)
        }
        let (dune, maus, empty) = (try book("Dune"), try book("Maus"), try book("Empty"))
        dune.remove(try page(2), fromKey: "pages")
        maus.remove(try page(4), fromKey: "pages")
        dune.add(try page(4), toKey: "pages")
        empty.add(try page(5), toKey: "pages")
        let fresh = context.insertObject(forEntityName: "Page")
        fresh["number"] = .int(6)
        maus.add(fresh, toKey: "pages")
        try context.save()
        #expect(try Self.keys(url) == [1: 1, 2: nil, 3: 1, 4: 1, 5: 3, 6: 2])
        // Deleting a book (nullify) releases its pages; they stay.
        context.delete(empty)
        try context.save()
        #expect(try Self.keys(url) == [1: 1, 2: nil, 3: 1, 4: 1, 5: nil, 6: 2])
        let (reader, _) = try S.open(url)
        #expect(try Self.contents(reader) == ["Dune": [1, 3, 4], "Maus": [6]])
    }

    /// Core Data keeps a derived attribute in step with triggers that call
    /// functions of its own (SampleModel2V1.sqlite's `Book.pagesCount`, on
    /// Z1PAGES): a save through mrq runs them instead of failing with "no
    /// such function".
    @Test func coreDataTriggersRunOnSave() throws {
        let url = try Self.coreDataStore()
        do {
            let db = try Database(path: url.path)
            try db.execute("""
                CREATE TRIGGER Z_DA_ZPAGE_Book_title_PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF Z1PAGES ON ZPAGE FOR EACH ROW \
                WHEN (NEW.Z1PAGES NOT NULL) BEGIN UPDATE ZBOOK SET ZTITLE = ZTITLE || '+' WHERE Z_PK = NEW.Z1PAGES; \
                SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'title', ZTITLE) FROM ZBOOK WHERE Z_PK = NEW.Z1PAGES; END
                """)
            try db.execute("""
                CREATE TRIGGER Z_DA_ZBOOK_Book_title_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN \
                UPDATE ZBOOK SET ZTITLE = ZTITLE || '*' WHERE Z_PK = NEW.Z_PK; \
                SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZBOOK', Z_ENT, Z_PK, 'title', ZTITLE) FROM ZBOOK WHERE Z_PK = NEW.Z_PK; END
                """)
        }
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: url))
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let empty = try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: try Predicate(format: "title == 'Empty'"))).first)
        let page = try #require(try context.fetch(FetchRequest(entityName: "Page", predicate: try Predicate(format: "number == 5"))).first)
        empty.add(page, toKey: "pages")
        context.insertObject(forEntityName: "Book")["title"] = .string("New")
        try context.save()
        let db = try Database(path: url.path)
        let titles = try db.rows("SELECT ZTITLE FROM ZBOOK ORDER BY Z_PK").map { $0[0] }
        #expect(titles == [.string("Dune"), .string("Maus"), .string("Empty+"), .string("New*")])
    }

    @Test func batchRequestsReadAndReleaseTheKey() throws {
        let url = try Self.coreDataStore()
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: url))
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let updated = try context.execute(BatchUpdateRequest(
            entityName: "Book", predicate: try Predicate(format: "ANY pages.isBookmarked == YES"),
            propertiesToUpdate: ["title": .expression(try Expression(format: "uppercase:(title)"))]))
        #expect(updated.count == 2)
        let deleted = try context.execute(BatchDeleteRequest(entityName: "Book", predicate: try Predicate(format: "pages.@count == 3")))
        #expect(deleted.count == 1)
        #expect(Set(deleted.changes.updated.map(\.primaryKey)) == [1, 2, 3])
        #expect(try Self.keys(url) == [1: nil, 2: nil, 3: nil, 4: 2, 5: nil])
    }

    /// An ordered one keeps its positions beside the key (`Z_FOK_1PAGES`,
    /// as Core Data names a join table's); a store without that column
    /// still opens and reads the members by key.
    @Test func anOrderedOneKeepsItsOrderAndOpensWithoutAPositionColumn() throws {
        let model = try ManagedObjectModel {
            Entity("Book") {
                Attribute("title", .string)
                ToMany("pages", "Page", ordered: true)
            }
            Entity("Page") { Attribute("number", .integer32) }
        }
        let url = try S.store(model, keeping: try model.coreDataArchive()) { context in
            let book = context.insertObject(forEntityName: "Book")
            book["title"] = .string("Dune")
            for number in [3, 1, 2] {
                let page = context.insertObject(forEntityName: "Page")
                page["number"] = .int(Int64(number))
                book.add(page, toKey: "pages")
            }
        }
        func numbers() throws -> [Value] {
            let (context, _) = try S.open(url)
            let book = try #require(try context.fetch(FetchRequest(entityName: "Book")).first)
            return book.objects(forKey: "pages").map { $0["number"] }
        }
        #expect(try numbers() == [.int(3), .int(1), .int(2)])
        let db = try Database(path: url.path)
        #expect(try db.columns(of: "ZPAGE") == ["Z_PK", "Z_ENT", "Z_OPT", "ZNUMBER", "Z1PAGES", "Z_FOK_1PAGES"])
        try db.execute("ALTER TABLE ZPAGE DROP COLUMN Z_FOK_1PAGES")
        #expect(try Set(numbers()) == [.int(1), .int(2), .int(3)])
    }

    @Test(arguments: SchemaMapping.Layout.allCases)
    func saveAsCarriesTheMembers(layout: SchemaMapping.Layout) throws {
        let url = try Self.coreDataStore()
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: url))
        let coordinator = PersistentStoreCoordinator(model: model)
        var readOnly = PersistentStoreOptions()
        readOnly.readOnly = true
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: readOnly)
        var options = PersistentStoreOptions()
        options.layout = layout
        let copy = CoreDataLayoutTests.temporaryStore("Copy.sqlite")
        try coordinator.migratePersistentStore(try #require(coordinator.persistentStores.first), to: copy, type: .sqlite, options: options)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try Self.contents(context) == ["Dune": [1, 2, 3], "Maus": [4], "Empty": []], "\(layout)")
        if layout == .coreData {
            let db = try Database(path: copy.path)
            #expect(try db.scalar("SELECT COUNT(*) FROM ZPAGE WHERE Z1PAGES IS NOT NULL") == .int(4))
        }
    }
}
