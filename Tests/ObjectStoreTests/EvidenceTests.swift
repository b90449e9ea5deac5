import EvidenceFixtures
import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// Issue 30, class 2: opening a store with no intent to write never alters
/// the evidence — not the file, not what is beside it (a hot journal, a
/// log, a pipe, a link), whatever it is — and what is read is what Core
/// Data would see. Every case compares every file of the folder (and of
/// the folder its links point into) before and after.
@Suite struct EvidenceTests {
    /// The ways the API reads a store without meaning to write it.
    enum Reading: String, CaseIterable, CustomStringConvertible {
        case readOnly, immutable, storedModel, migrationPreview, untilWritten
        var description: String { rawValue }
    }

    static let all: [(EvidenceCase, EvidenceLayout)] = EvidenceCase.allCases.flatMap { kind in
        EvidenceLayout.allCases.map { (kind, $0) }
    }

    /// The titles of the notes the store shows, opened as `options` say.
    static func titles(_ url: URL, _ options: PersistentStoreOptions) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(model: try EvidenceFixtures.model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        return try context.fetch(FetchRequest(entityName: "Note")).map {
            if case .string(let title) = $0["title"] { return title }
            return "?"
        }.sorted()
    }

    /// Opens the folder's store as `reading` does; returns how many notes
    /// it shows (nil where the way shows none: a preview, a model).
    static func open(_ folder: EvidenceFolder, _ reading: Reading) throws -> Int? {
        var options = PersistentStoreOptions()
        switch reading {
        case .readOnly: options.readOnly = true
        case .immutable: options.immutable = true
        case .untilWritten: options.readsUntilWritten = true
        case .storedModel:
            guard let model = try PersistentStoreCoordinator.storedModel(at: folder.store) else {
                throw StoreError(.corrupt, "no model: " + (try SQLiteStore.emptiness(atPath: folder.store.path) ?? "?"))
            }
            #expect(model.entity(named: "Note") != nil)
            return nil
        case .migrationPreview:
            let preview = try PersistentStoreCoordinator.migrationPreview(at: folder.store, model: try EvidenceFixtures.modelWithBody())
            if let preview { #expect(preview.changes.contains("added attribute Note.body"), "\(preview.changes)") }
            return nil
        }
        let titles = try titles(folder.store, options)
        #expect(titles.starts(with: EvidenceFixtures.keptTitles), "\(titles)")
        return titles.count
    }

    @Test(arguments: all)
    func readingLeavesEveryFileAsItWas(kind: EvidenceCase, layout: EvidenceLayout) throws {
        let folder = try EvidenceFixtures.make(kind, layout: layout)
        defer { folder.remove() }
        let before = try folder.state()
        for reading in Reading.allCases {
            // Opened for writing, an empty file is made a store: that is
            // creating one, asked for (see the test below).
            if reading == .untilWritten, case .notAStore = kind.expected, kind != .emptyFileWithLog { continue }
            let expected = reading == .immutable ? kind.expectedImmutable : kind.expected
            do {
                let count = try Self.open(folder, reading)
                switch expected {
                case .notes(let n): if let count { #expect(count == n, "\(reading)") }
                case .refused(let text), .notAStore(let text):
                    // A preview of a file with no store has nothing to preview.
                    let quiet = reading == .migrationPreview && { if case .notAStore = expected { true } else { false } }()
                    #expect(quiet, "\(reading) opened it; expected an error containing \(text)")
                }
            } catch let error as StoreError {
                switch expected {
                case .notes: Issue.record("\(reading): \(error)")
                case .refused(let text), .notAStore(let text):
                    #expect(error.message.contains(text), "\(reading): \(error.message)")
                }
            }
            let after = try folder.state()
            #expect(after == before, "\(reading) changed the files:\n\(after)\nwas:\n\(before)")
        }
        #expect(try Data(contentsOf: folder.victim) == Data("precious, not to be deleted\n".utf8))
    }

    /// What the hot journal's store reads as: the notes before the
    /// transaction the copy caught, not its half-written pages.
    @Test(arguments: EvidenceLayout.allCases)
    func aHotJournalReadsAsRolledBack(layout: EvidenceLayout) throws {
        let folder = try EvidenceFixtures.make(.hotJournal, layout: layout)
        defer { folder.remove() }
        var info = stat()
        #expect(stat(folder.store.path, &info) == 0 && info.st_size > 1_000_000, "the copy holds the transaction's pages")
        var options = PersistentStoreOptions()
        options.readOnly = true
        #expect(try Self.titles(folder.store, options) == EvidenceFixtures.keptTitles)
        // Immutable alone would read the half-written file.
        let raw = try Database(path: folder.store.path, readOnly: true, immutable: true)
        let (table, title, _) = try EvidenceFixtures.noteColumns(layout)
        #expect(try raw.rows("SELECT \(quoteIdentifier(title)) FROM \(quoteIdentifier(table))")
            .allSatisfy { $0.first == .string("changed mid-write") })
    }

    /// The shell's way (`readsUntilWritten`): a store whose journal or log
    /// needs recovering is read from a snapshot, and opened for writing
    /// at the first save, which then is made on the recovered store.
    @Test(arguments: [EvidenceCase.hotJournal, .walCopy, .staleIndex], EvidenceLayout.allCases)
    func theFirstSaveOpensTheStoreForWriting(kind: EvidenceCase, layout: EvidenceLayout) throws {
        let folder = try EvidenceFixtures.make(kind, layout: layout)
        defer { folder.remove() }
        let before = try folder.state()
        let coordinator = PersistentStoreCoordinator(model: try EvidenceFixtures.model())
        var options = PersistentStoreOptions()
        options.readsUntilWritten = true
        try coordinator.addPersistentStore(type: .sqlite, at: folder.store, options: options)
        #expect(coordinator.store.defersWriting)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let shown = try context.count(for: FetchRequest(entityName: "Note"))
        #expect(try folder.state() == before, "reading changed the files")
        context.insertObject(forEntityName: "Note")["title"] = .string("added")
        try context.save()
        #expect(!coordinator.store.defersWriting)
        #expect(try context.count(for: FetchRequest(entityName: "Note")) == shown + 1)
        coordinator.removeStores()
        var reopened = PersistentStoreOptions()
        reopened.readOnly = true
        #expect(try Self.titles(folder.store, reopened).count == shown + 1)
        #expect(!FileManager.default.fileExists(atPath: folder.store.path + "-journal"), "the journal was rolled back")
    }

    /// A journal naming a super-journal names a file SQLite would delete
    /// after rolling back: read, it is never looked at; opened for
    /// writing, the store is refused.
    @Test(arguments: EvidenceLayout.allCases)
    func aSuperJournalIsNeverFollowed(layout: EvidenceLayout) throws {
        let folder = try EvidenceFixtures.make(.superJournal, layout: layout)
        defer { folder.remove() }
        let before = try folder.state()
        let error = #expect(throws: StoreError.self) {
            _ = try Self.titles(folder.store, PersistentStoreOptions())
        }
        #expect(error?.message.contains("names a super-journal") == true, "\(String(describing: error))")
        #expect(try folder.state() == before)
        #expect(FileManager.default.fileExists(atPath: folder.victim.path))
    }

    /// Beside a store nobody reads, a pipe or a link is refused for writing
    /// too: SQLite would remove the pipe, or write through the link.
    @Test(arguments: [EvidenceCase.fifoLog, .directoryJournal, .linkedLog, .linkedJournal, .linkedIndex, .emptyFileWithLog])
    func oddFilesBesideTheStoreAreRefusedForWritingToo(kind: EvidenceCase) throws {
        let folder = try EvidenceFixtures.make(kind, layout: .mrq)
        defer { folder.remove() }
        let before = try folder.state()
        let error = #expect(throws: StoreError.self) {
            _ = try Self.titles(folder.store, PersistentStoreOptions())
        }
        let text: String
        switch kind.expected {
        case .refused(let refused): text = refused
        default: text = "which SQLite would delete"
        }
        #expect(error?.message.contains(text) == true, "\(String(describing: error))")
        #expect(try folder.state() == before)
    }

    /// A store named through a symbolic link is read with the log beside
    /// the file the link names, where SQLite looks for it.
    @Test func aStoreNamedThroughALinkIsReadWithTheLogBesideItsTarget() throws {
        let folder = try EvidenceFixtures.make(.walCopy, layout: .coreData)
        defer { folder.remove() }
        let link = folder.outside.appendingPathComponent("Link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.store.path)
        let before = try folder.state()
        var options = PersistentStoreOptions()
        options.readOnly = true
        #expect(try Self.titles(link, options).contains(EvidenceFixtures.logTitle))
        #expect(try folder.state() == before)
    }

    /// A zero-byte file opened for writing with a model becomes a store,
    /// as asked (`addSQLiteStore` creates what is not there yet).
    @Test func anEmptyFileOpenedForWritingBecomesAStore() throws {
        let folder = try EvidenceFixtures.make(.emptyFile, layout: .mrq)
        defer { folder.remove() }
        let coordinator = PersistentStoreCoordinator(model: try EvidenceFixtures.model())
        try coordinator.addSQLiteStore(at: folder.store)
        #expect(try ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            .count(for: FetchRequest(entityName: "Note")) == 0)
    }

    // MARK: - Live stores

    /// A store another connection of this process has open is read live:
    /// a read-only store sees what the writer saves after it opened.
    @Test func aReadOnlyStoreOnAStoreOpenHereSeesItsSaves() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Notes.sqlite")
        let writer = PersistentStoreCoordinator(model: try EvidenceFixtures.model())
        try writer.addSQLiteStore(at: url)
        let writing = ManagedObjectContext(concurrencyType: .confined, coordinator: writer)
        writing.insertObject(forEntityName: "Note")["title"] = .string("first")
        try writing.save()
        let reader = PersistentStoreCoordinator(model: try EvidenceFixtures.model())
        try reader.addSQLiteStore(at: url, readOnly: true)
        guard case .readOnly? = reader.store.database.reading else {
            Issue.record("a live store was not read live: \(String(describing: reader.store.database.reading))")
            return
        }
        let reading = ManagedObjectContext(concurrencyType: .confined, coordinator: reader)
        #expect(try reading.count(for: FetchRequest(entityName: "Note")) == 1)
        writing.insertObject(forEntityName: "Note")["title"] = .string("second")
        try writing.save()
        #expect(try reading.count(for: FetchRequest(entityName: "Note")) == 2)
    }

    /// A store another process is writing (its `-shm` in use, its locks
    /// held) is read live too: each read sees the saves made before it.
    @Test func aReadOnlyStoreOnAStoreAnotherProcessWritesSeesItsSaves() throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let worker = try WorkerProcess(try crashWorkerURL(), ["save-loop", path, "5"])
        defer { worker.killAndWait() }
        #expect(worker.readLine() == "ready")
        #expect(worker.readLine()?.hasPrefix("saved") == true)
        let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel {
            Entity("Item") {
                Attribute("tag", .integer64, default: .int(0))
                Attribute("slot", .integer64, default: .int(0))
                Attribute("touched", .integer64, default: .int(0))
            }
            Entity("Counter") { Attribute("value", .integer64, default: .int(0)) }
        })
        try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path), readOnly: true)
        guard case .readOnly? = coordinator.store.database.reading else {
            Issue.record("a store another process writes was not read live: \(String(describing: coordinator.store.database.reading))")
            return
        }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        func counter() throws -> Int64 {
            context.reset()
            guard case .int(let value)? = try context.fetch(FetchRequest(entityName: "Counter")).first?["value"] else { return 0 }
            return value
        }
        let first = try counter()
        for _ in 0..<3 { _ = worker.readLine() }
        #expect(try counter() > first, "the reader does not see the writer's saves")
    }
}
