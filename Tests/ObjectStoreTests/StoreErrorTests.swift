import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// Stores that cannot be opened or written: each failure is a named
/// `StoreError` kind with a clear message, and leaves the files as they
/// were (same bytes, no `-wal`/`-shm` left behind).
@Suite struct StoreErrorTests {
    /// A directory holding one closed store with three items.
    static func directoryWithStore() throws -> (directory: URL, path: String) {
        let path = TestModels.temporaryStorePath()
        do {
            let coordinator = PersistentStoreCoordinator(model: try crashModel())
            try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path))
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            for tag in 1...3 { context.insertObject(forEntityName: "Item")["tag"] = .int(Int64(tag)) }
            try context.save()
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        #expect(try files(in: directory).keys.sorted() == ["store.sqlite"], "closing the store should remove its -wal and -shm")
        return (directory, path)
    }

    /// Every file of a directory with its bytes.
    static func files(in directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            result[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return result
    }

    /// Expects the directory to hold exactly `before`, byte for byte.
    static func expectUnchanged(_ directory: URL, _ before: [String: Data],
                                sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let after = try files(in: directory)
        #expect(after.keys.sorted() == before.keys.sorted(), "files before and after", sourceLocation: sourceLocation)
        for (name, bytes) in before where after[name] != nil {
            #expect(after[name] == bytes, "\(name) changed", sourceLocation: sourceLocation)
        }
    }

    static func openStore(_ path: String, readOnly: Bool = false, busyTimeout: TimeInterval = 5) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: try crashModel())
        try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path), readOnly: readOnly, busyTimeout: busyTimeout)
        return coordinator
    }

    /// Expects `body` to throw a `StoreError` of `kind` whose description
    /// contains `text`.
    static func expectStoreError(_ kind: StoreError.Kind, containing text: String,
                                 sourceLocation: Testing.SourceLocation = #_sourceLocation,
                                 _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected a \(kind) error, but it succeeded", sourceLocation: sourceLocation)
        } catch let error as StoreError {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Corrupt files

    @Test func garbageFileIsCorruptAndUntouched() throws {
        let path = TestModels.temporaryStorePath()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SplitMix64(seed: 1)
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: URL(fileURLWithPath: path))
        let before = try Self.files(in: directory)
        Self.expectStoreError(.corrupt, containing: "not a database") { _ = try Self.openStore(path) }
        try Self.expectUnchanged(directory, before)
    }

    @Test func textFileIsCorruptAndUntouched() throws {
        let path = TestModels.temporaryStorePath()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("name,age\nAda,36\n".utf8).write(to: URL(fileURLWithPath: path))
        let before = try Self.files(in: directory)
        Self.expectStoreError(.corrupt, containing: "not a database") { _ = try Self.openStore(path) }
        try Self.expectUnchanged(directory, before)
    }

    @Test func damagedPagesAreCorruptAndUntouched() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Keep the header page (the schema), overwrite every other page.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(bytes.count > pageSize)
        for i in pageSize..<bytes.count { bytes[i] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        let before = try Self.files(in: directory)
        Self.expectStoreError(.corrupt, containing: "malformed") { _ = try Self.openStore(path) }
        try Self.expectUnchanged(directory, before)
    }

    // MARK: - Locks

    @Test func saveWhileAnotherConnectionWritesIsLockedAndRetriable() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try Self.openStore(path, busyTimeout: 0.1)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let other = try Database(path: path)
        try other.execute("BEGIN IMMEDIATE")
        context.insertObject(forEntityName: "Item")["tag"] = .int(4)
        let started = Date()
        Self.expectStoreError(.locked, containing: "database is locked") { try context.save() }
        #expect(Date().timeIntervalSince(started) < 3, "the busy timeout of 0.1 s was not used")
        #expect(context.hasChanges && context.insertedObjects.count == 1, "a failed save keeps the changes")
        try other.execute("ROLLBACK")
        #expect(try other.scalar("SELECT count(*) FROM Item") == .int(3), "the failed save wrote nothing")
        try context.save()
        #expect(try other.scalar("SELECT count(*) FROM Item") == .int(4))
    }

    @Test func openWhileAnotherConnectionHoldsAnExclusiveLockIsLocked() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let other = try Database(path: path)
            try other.execute("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE")
            Self.expectStoreError(.locked, containing: "database is locked") {
                _ = try Self.openStore(path, busyTimeout: 0.1)
            }
            try other.execute("ROLLBACK")
        }
        #expect(try Self.files(in: directory).keys.sorted() == ["store.sqlite"])
        _ = try Self.openStore(path)
    }

    // MARK: - Read-only files and directories

    /// Runs the worker's `open` as an unprivileged user when the tests run
    /// as root (root bypasses permission checks), after handing it the
    /// directory and its files.
    static func openUnprivileged(_ path: String, _ flags: [String] = []) throws -> String {
        var flags = flags
        if getuid() == 0 {
            let nobody: uid_t = 65534
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                chown(directory.appendingPathComponent(name).path, nobody, nobody)
            }
            chown(directory.path, nobody, nobody)
            flags += ["--uid", "\(nobody)"]
        }
        let worker = try WorkerProcess(try crashWorkerURL(), ["open", path] + flags)
        let line = worker.readLine() ?? "no answer: \(worker.standardError)"
        worker.waitForExit()
        return line
    }

    @Test func newStoreInReadOnlyDirectoryIsReadOnlyAndCreatesNothing() throws {
        let path = TestModels.temporaryStorePath()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        defer { chmod(directory.path, 0o755); try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o555)
        let answer = try Self.openUnprivileged(path)
        #expect(answer.hasPrefix("error readOnly\t"), "\(answer)")
        #expect(answer.contains("is not writable"), "\(answer)")
        #expect(try Self.files(in: directory).isEmpty)
    }

    @Test func existingStoreInReadOnlyDirectoryIsReadOnlyAndUntouched() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { chmod(directory.path, 0o755); try? FileManager.default.removeItem(at: directory) }
        let before = try Self.files(in: directory)
        chmod(directory.path, 0o555)
        let answer = try Self.openUnprivileged(path, ["--save"])
        #expect(answer.hasPrefix("error readOnly\t"), "\(answer)")
        #expect(answer.contains("is not writable"), "\(answer)")
        try Self.expectUnchanged(directory, before)
    }

    @Test func readOnlyStoreFileIsReadOnlyAndUntouched() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.files(in: directory)
        chmod(path, 0o444)
        let answer = try Self.openUnprivileged(path, ["--save"])
        #expect(answer.hasPrefix("error readOnly\t"), "\(answer)")
        #expect(answer.contains("store.sqlite' is not writable; open it read-only"), "\(answer)")
        try Self.expectUnchanged(directory, before)
    }

    @Test func readOnlyOpenInReadOnlyDirectoryWorks() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { chmod(directory.path, 0o755); try? FileManager.default.removeItem(at: directory) }
        let before = try Self.files(in: directory)
        chmod(directory.path, 0o555)
        let answer = try Self.openUnprivileged(path, ["--read-only"])
        #expect(answer == "ok")
        try Self.expectUnchanged(directory, before)
    }

    /// A store opened read-only refuses to save, naming the file, and
    /// changes nothing; where the file could be written, the connection
    /// (one that refuses writes) removes the `-wal` and `-shm` files it
    /// made when it closes, as a SQLite read-only connection could not.
    @Test func savingToAStoreOpenedReadOnlyIsReadOnly() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let coordinator = try Self.openStore(path, readOnly: true)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let before = try Self.files(in: directory)
            context.insertObject(forEntityName: "Item")
            Self.expectStoreError(.readOnly, containing: "is open read-only") { try context.save() }
            try Self.expectUnchanged(directory, before)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))
    }

    /// Where the reader may not create the `-shm` SQLite's read-only mode
    /// would need, and others could write: a store nobody has open is read
    /// immutable (see `ReadingMode`), so nothing needs creating.
    @Test(.enabled(if: getuid() == 0, "needs root to run the worker as another user"))
    func readOnlyOpenInDirectoryOthersCanWriteReadsWithoutCreatingAnything() throws {
        let (directory, path) = try Self.directoryWithStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.files(in: directory)
        // Root keeps the directory (0755): nobody may read the store but not
        // create its -shm, while root could still write to it.
        let worker = try WorkerProcess(try crashWorkerURL(), ["open", path, "--read-only", "--uid", "65534"])
        let answer = worker.readLine() ?? "no answer: \(worker.standardError)"
        worker.waitForExit()
        #expect(answer == "ok")
        try Self.expectUnchanged(directory, before)
    }

    // MARK: - Model files

    @Test func missingModelFileNamesThePath() throws {
        let url = URL(fileURLWithPath: "/nonexistent/People.xcdatamodeld")
        #expect(throws: ModelError("no model found at '/nonexistent/People.xcdatamodeld'")) {
            _ = try ManagedObjectModel(contentsOf: url)
        }
    }

    @Test func brokenModelFileNamesFileAndLine() throws {
        let directory = URL(fileURLWithPath: TestModels.temporaryStorePath()).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("People.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data("<?xml version=\"1.0\"?>\n<model>\n<entity name=\"Person\">\n</model>\n".utf8)
            .write(to: model.appendingPathComponent("contents"))
        do {
            _ = try ManagedObjectModel(contentsOf: model)
            Issue.record("a broken model file loaded")
        } catch let error as ModelError {
            #expect(error.file == "People.xcdatamodel/contents", "\(error)")
            #expect(error.line != nil, "\(error)")
        }
    }
}
