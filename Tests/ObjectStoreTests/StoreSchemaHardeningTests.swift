import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// What a store's own schema can make SQLite do on mrq's connections: no
/// database attached, no view read (an entity's table that is a view over
/// a query that never ends is refused, naming it), no unsafe function run
/// from a trigger, nothing written by reading.
@Suite struct StoreSchemaHardeningTests {
    static func folder() throws -> String { try HostileNameTests.folder() }

    @Test func noConnectionAttachesADatabase() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try Database(path: folder + "/Store.sqlite")
        for statement in ["ATTACH DATABASE '\(folder)/pwned.db' AS p", "ATTACH '\(folder)/pwned.db' AS p; CREATE TABLE p.t(x)"] {
            #expect(throws: StoreError.self) { try db.execute(statement) }
        }
        #expect(throws: StoreError.self) { try db.execute("ATTACH DATABASE ? AS p", [.string(folder + "/pwned.db")]) }
        #expect(!FileManager.default.fileExists(atPath: folder + "/pwned.db"))
        // mrq's own copy still works, and attaches nothing else meanwhile.
        try db.execute("CREATE TABLE t (x)")
        try db.copy(to: folder + "/copy.sqlite")
        #expect(FileManager.default.fileExists(atPath: folder + "/copy.sqlite"))
        #expect(throws: StoreError.self) { try db.execute("ATTACH DATABASE '\(folder)/copy.sqlite' AS c") }
    }

    @Test func noConnectionReadsAView() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = try Database(path: folder + "/Store.sqlite")
        try db.execute("CREATE TABLE t (x)")
        try Self.raw(folder + "/Store.sqlite", "CREATE VIEW v AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c")
        let reader = try Database(path: folder + "/Store.sqlite", readOnly: true)
        #expect(throws: StoreError.self) { try reader.rows("SELECT count(*) FROM v") }
        #expect(throws: StoreError.self) { try db.rows("SELECT * FROM v LIMIT 1") }
    }

    /// A store whose entity table was swapped for a view that never ends
    /// is refused at once, naming the view, in either layout.
    @Test(arguments: SchemaMapping.Layout.allCases)
    func anEntityTableThatIsAViewIsRefused(layout: SchemaMapping.Layout) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/Store.sqlite"
        let model = try TestModels.people()
        var options = PersistentStoreOptions()
        options.layout = layout
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: options)
        }
        let table = layout == .mrq ? "Tag" : "ZTAG"
        try Self.raw(path, """
            ALTER TABLE \(table) RENAME TO real_tags;
            CREATE VIEW \(table.lowercased()) AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c)
                SELECT n AS \(layout == .mrq ? "_pk" : "Z_PK") FROM c;
            """)
        let started = Date()
        for readOnly in [false, true] {
            options.readOnly = readOnly
            let coordinator = PersistentStoreCoordinator(model: model)
            let error = try #require(throws: StoreError.self) {
                try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: options)
            }
            #expect(error.message.contains("has a view named '\(table.lowercased())'"), "\(error)")
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    /// A trigger of the store calling an unsafe function does not run it:
    /// the save fails, and nothing it meant to write is there.
    @Test func aTriggerOfTheStoreCannotCallUnsafeFunctions() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/Store.sqlite"
        let model = try TestModels.people()
        do {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
            context.insertObject(forEntityName: "Tag")["label"] = "a"
            try context.save()
        }
        try Self.raw(path, """
            CREATE TABLE log (x);
            CREATE TRIGGER t AFTER UPDATE ON "Tag" BEGIN INSERT INTO log VALUES (load_extension('x')); END;
            """)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        let tag = try #require(try context.fetch(FetchRequest(entityName: "Tag")).first)
        tag["label"] = "b"
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try Self.rawRows(path, "SELECT count(*) FROM log") == "0")
    }

    /// Runs SQL on `path` with the sqlite3 library itself, outside mrq's
    /// hardening: what someone preparing a hostile store does.
    static func raw(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw StoreError(.cannotOpen, "cannot open \(path)") }
        defer { sqlite3_close(db) }
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw StoreError(.other, message.map { String(cString: $0) } ?? "failed")
        }
    }

    static func rawRows(_ path: String, _ sql: String) throws -> String {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw StoreError(.cannotOpen, "cannot open \(path)") }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw StoreError(.other, "prepare") }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return "" }
        return String(cString: text)
    }
}

import CSQLite
