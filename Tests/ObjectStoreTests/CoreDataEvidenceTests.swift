import Foundation
import Testing
@testable import ObjectStore
import Predicates
import Synchronization

/// Reading a Core Data store as an examiner does, from a copy of the store
/// and its log: the data still in the log is read, and nothing is written
/// — not the file, not the log, and no -shm or -wal is left beside it.
@Suite struct CoreDataEvidenceTests {
    /// A Core Data store whose newest note sits only in its -wal, with no
    /// -shm beside it: as copied off a device.
    static func copiedStore() throws -> (directory: URL, url: URL) {
        let url = try CoreDataLayoutTests.populatedStore()
        do {
            let writer = try Database(path: url.path)
            try writer.execute("PRAGMA wal_autocheckpoint = 0")
            try writer.transaction {
                try writer.execute("INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (99, 5, 1, 'only in the log')")
            }
            writer.keepLogOnClose()
        }
        try? FileManager.default.removeItem(atPath: url.path + "-shm")
        return (url.deletingLastPathComponent(), url)
    }

    static func titles(_ url: URL, _ options: PersistentStoreOptions) throws -> Set<String> {
        let coordinator = PersistentStoreCoordinator(model: try CoreDataLayoutTests.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        return Set(try context.fetch(FetchRequest(entityName: "Note")).map { CoreDataLayoutTests.text($0["title"]) })
    }

    @Test(arguments: [false, true])
    func readingACopyWithItsLogWritesNothing(readOnly: Bool) throws {
        let (directory, url) = try Self.copiedStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try OpeningTests.snapshot(directory)
        #expect(Set(before.keys) == ["Notes.sqlite", "Notes.sqlite-wal"])
        var options = PersistentStoreOptions()
        options.readOnly = readOnly
        #expect(try Self.titles(url, options).contains("only in the log"))
        #expect(try OpeningTests.snapshot(directory) == before)
    }

    @Test func immutableRefusesAStoreWhoseLogHoldsData() throws {
        let (directory, url) = try Self.copiedStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try OpeningTests.snapshot(directory)
        var options = PersistentStoreOptions()
        options.immutable = true
        let error = #expect(throws: StoreError.self) { _ = try Self.titles(url, options) }
        #expect(error?.message.contains("immutable mode would not read") == true)
        #expect(try OpeningTests.snapshot(directory) == before)
    }

    @Test(arguments: [false, true])
    func aStoreWithoutALogGetsNoneLeftBeside(immutable: Bool) throws {
        let (directory, url) = try Self.copiedStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Fold the log in, as Core Data does when the app closes the store.
        do {
            let db = try Database(path: url.path)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try? FileManager.default.removeItem(atPath: url.path + "-wal")
        try? FileManager.default.removeItem(atPath: url.path + "-shm")
        let before = try OpeningTests.snapshot(directory)
        #expect(Set(before.keys) == ["Notes.sqlite"])
        var options = PersistentStoreOptions()
        options.immutable = immutable
        #expect(try Self.titles(url, options).contains("only in the log"))
        #expect(try OpeningTests.snapshot(directory) == before)
    }

    /// Another connection, closing last, folds the log in and deletes it
    /// between the reader's look at the files and its copy of the log: the
    /// reader looks again and reads the store as it is then, with the
    /// log's note (this failed with "cannot read '…-wal'").
    @Test func aLogFoldedInBetweenLookingAndCopyingIsLookedAtAgain() throws {
        let (directory, url) = try Self.copiedStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folded = Mutex(false)
        StoreFiles.afterLooking.withLock {
            $0[url.path] = {
                if let db = try? Database(path: url.path), (try? db.execute("PRAGMA wal_checkpoint(TRUNCATE)")) != nil {
                    folded.withLock { $0 = true }
                }
                try? FileManager.default.removeItem(atPath: url.path + "-wal")
                try? FileManager.default.removeItem(atPath: url.path + "-shm")
            }
        }
        defer { StoreFiles.afterLooking.withLock { $0[url.path] = nil } }
        var options = PersistentStoreOptions()
        options.readOnly = true
        #expect(try Self.titles(url, options).contains("only in the log"))
        #expect(folded.withLock { $0 })
        #expect(Set(try OpeningTests.snapshot(directory).keys) == ["Notes.sqlite"])
    }
}
