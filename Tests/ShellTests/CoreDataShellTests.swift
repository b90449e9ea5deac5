import Foundation
import Testing
@testable import ObjectStore
@testable import Shell

/// The shell on stores in Core Data's layout: `.save-as … coredata`, the
/// store reopened and queried, and `history`.
@Suite struct CoreDataShellTests {
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-coredata-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A Core Data store made by the shell, and its model as an Xcode model.
    static func notesStore(in directory: URL) throws -> (store: URL, model: URL) {
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        session.baseDirectory = directory
        let made = SaveAsTests.run(session, """
            entity Folder { title: String }
            entity Note { title: String; body: String; pinned: Bool = false; folder: Folder inverse notes }
            insert Folder { title: "Recipes" }
            insert Note { title: "Bread", folder: first Folder }
            insert Note { title: "Soup", pinned: true, folder: first Folder }
            save
            .save-as Notes.sqlite coredata
            """)
        #expect(made.contains("saved as Notes.sqlite (sqlite, Core Data layout)"), "\(made)")
        let model = directory.appendingPathComponent("Notes.xcdatamodel")
        try session.model.writeXcodeModel(to: model)
        return (directory.appendingPathComponent("Notes.sqlite"), model)
    }

    @Test func saveAsCoreDataWritesCoreDataTablesThatReopen() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (store, model) = try Self.notesStore(in: directory)
        // Read-only, each look opened anew: opened while nobody had the
        // store open, a connection reads it immutable, and would not see
        // the session's later saves (see ReadingMode).
        func db() throws -> Database { try Database(path: store.path, readOnly: true) }
        #expect(try db().scalar("SELECT count(*) FROM ZNOTE WHERE ZPINNED = 1") == .int(1))
        #expect(try db().scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") == .int(2))
        let session = try ShellSession(modelPath: model.path, storePath: store.path)
        let answer = SaveAsTests.run(session, "Note where folder.title == \"Recipes\" AND pinned == YES")
        #expect(answer.contains("Soup") && !answer.contains("Bread"), "\(answer)")
        // Aggregates, grouping and explain go through the same translator,
        // over Core Data's names.
        let grouped = SaveAsTests.run(session, "count of Note group by folder.title")
        #expect(grouped.contains("Recipes") && grouped.contains("2"), "\(grouped)")
        #expect(SaveAsTests.run(session, "count Note where pinned == NO").contains("1"))
        let explained = SaveAsTests.run(session, "explain Note where folder.title == \"Recipes\"")
        #expect(explained.contains("ZNOTE") && explained.contains("ZFOLDER") && explained.contains("Z_PK"), "\(explained)")
        let direct = SaveAsTests.run(session, "update Note where pinned == YES set body = \"hot\" direct")
        #expect(direct.contains("1 Note"), "\(direct)")
        #expect(try db().scalar("SELECT ZBODY FROM ZNOTE WHERE ZPINNED = 1") == .string("hot"))
        let updated = SaveAsTests.run(session, "update Note where title == \"Bread\" set body = \"flour\"\nsave")
        #expect(updated.contains("updated 1 Note"), "\(updated)")
        #expect(try db().scalar("SELECT Z_OPT FROM ZNOTE WHERE ZTITLE = 'Bread'") == .int(2))
    }

    /// `.model` on a store in Core Data's layout: its own model again is
    /// taken; another is refused as opening would refuse it, and the
    /// session carries on with the store as it was.
    @Test func dotModelOnACoreDataStoreTakesItsModelAndRefusesAnother() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (store, model) = try Self.notesStore(in: directory)
        let session = try ShellSession(modelPath: model.path, storePath: store.path)
        let same = SaveAsTests.run(session, ".model \(model.path)")
        #expect(same.contains("model \(model.path)") && !same.contains("error"), "\(same)")
        #expect(SaveAsTests.run(session, "count Note").contains("2"))
        let other = directory.appendingPathComponent("Other.xcdatamodel")
        let otherSession = try ShellSession(modelPath: nil, storePath: ":memory:")
        _ = SaveAsTests.run(otherSession, "entity Note { title: String; color: String }")
        try otherSession.model.writeXcodeModel(to: other)
        let refused = SaveAsTests.run(session, ".model \(other.path)")
        #expect(refused.contains("is a Core Data store made with another model"), "\(refused)")
        #expect(SaveAsTests.run(session, "Note where pinned == YES").contains("Soup"))
        #expect(SaveAsTests.run(session, "insert Note { title: \"Tea\" }\nsave\ncount Note").contains("3"))
    }

    @Test func historyListsChangesAndTakesAPredicate() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (store, model) = try Self.notesStore(in: directory)
        do {
            // The tables as Core Data keeps them with history tracking on.
            let db = try Database(path: store.path)
            try db.execute("CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )")
            try db.execute("""
                CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, \
                ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, \
                ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )
                """)
            try db.execute("""
                CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, \
                ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )
                """)
            try db.execute("INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'app'), (2, 16003, 1, 'widget')")
            try db.execute("INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZTIMESTAMP) VALUES (1, 16002, 1, 1, 100), (2, 16002, 1, 2, 200)")
            // Note (entity 2): its mask's bits from the first byte's high
            // bit are folder, then body, pinned, title: 0x10 is title.
            try db.execute("INSERT INTO ACHANGE VALUES (1, 16001, 1, 0, 2, 1, 1, NULL), (2, 16001, 1, 1, 2, 2, 2, X'10')")
        }
        let session = try ShellSession(modelPath: model.path, storePath: store.path)
        session.renderOptions.mode = .csv
        let all = SaveAsTests.run(session, "history")
        #expect(all.contains("transaction,timestamp,author,bundleID,contextName,processID,change,entity,pk,properties"), "\(all)")
        #expect(all.contains("1,2001-01-01") && all.contains("app,,,,insert,Note,1,"), "\(all)")
        let updates = SaveAsTests.run(session, "history where change == \"update\" AND author == \"widget\"")
        #expect(updates.contains("update,Note,2,title") && !updates.contains("insert"), "\(updates)")
        #expect(SaveAsTests.run(session, "count history where entity == \"Note\"").contains("2"))
        let newest = SaveAsTests.run(session, "history sort timestamp:NO limit 1")
        #expect(newest.contains("widget") && !newest.contains(",app,"), "\(newest)")
        let typo = SaveAsTests.run(session, "history where chnage == \"update\"")
        #expect(typo.contains("did you mean 'change'?"), "\(typo)")
    }
}
