import Foundation
import ObjectStore

/// A store's two table layouts: mrq's own and Core Data's (`ZNOTE`, …).
package enum EvidenceLayout: String, CaseIterable, Sendable, CustomStringConvertible {
    case mrq, coreData
    package var description: String { rawValue }
}

/// A store folder as an examiner may receive it, made by code (issue 30,
/// class 2): what a crash, a copy taken mid-write or a hostile hand leaves
/// beside a store file.
package enum EvidenceCase: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Rollback-journal store copied while a transaction was writing: the
    /// file holds half of it (grown to ~1.6 MB), the hot journal the pages
    /// it replaced.
    case hotJournal
    /// A `-journal` of garbage (its first byte not zero: SQLite takes it
    /// for hot) beside a rollback-journal store.
    case garbageJournal
    /// `hotJournal` whose journal names a super-journal: a file outside the
    /// folder (`EvidenceFolder.victim`), which SQLite would look up and,
    /// after the rollback, delete.
    case superJournal
    /// WAL store whose last commit is only in its `-wal`, with no `-shm`.
    case walCopy
    /// `walCopy` with the `-shm` the writer left (nobody holds it).
    case staleIndex
    /// A named pipe where the `-wal` would be; a directory where the
    /// `-journal` would be.
    case fifoLog, directoryJournal
    /// `-wal`, `-journal`, `-shm`: a symbolic link to a file outside.
    case linkedLog, linkedJournal, linkedIndex
    /// A zero-byte store file, alone and with a `-wal` holding frames.
    case emptyFile, emptyFileWithLog
    /// A SQLite database with no tables.
    case emptyDatabase

    package var description: String { rawValue }

    /// What reading the folder's store shows.
    package enum Expected: Equatable, Sendable {
        /// The store opens; it holds this many notes.
        case notes(Int)
        /// Opening is refused with an error containing this text.
        case refused(String)
        /// It is not a store: the error says why (this text).
        case notAStore(String)
    }

    /// What opening it for reading (read-only, or the shell with no flag)
    /// shows: a hot journal rolled back, a log's commits read.
    package var expected: Expected {
        switch self {
        case .hotJournal, .garbageJournal, .superJournal: return .notes(EvidenceFixtures.keptTitles.count)
        case .walCopy, .staleIndex: return .notes(EvidenceFixtures.keptTitles.count + 1)
        case .fifoLog: return .refused("'Notes.sqlite-wal' beside it is a named pipe")
        case .directoryJournal: return .refused("'Notes.sqlite-journal' beside it is a directory")
        case .linkedLog: return .refused("'Notes.sqlite-wal' beside it is a symbolic link")
        case .linkedJournal: return .refused("'Notes.sqlite-journal' beside it is a symbolic link")
        case .linkedIndex: return .refused("'Notes.sqlite-shm' beside it is a symbolic link")
        case .emptyFile, .emptyFileWithLog: return .notAStore("it is empty (0 bytes)")
        case .emptyDatabase: return .notAStore("it is a SQLite database with no tables")
        }
    }

    /// What opening it immutable shows: a log or journal to recover is
    /// refused, since immutable reads the file alone.
    package var expectedImmutable: Expected {
        switch self {
        case .hotJournal, .garbageJournal, .superJournal: return .refused("which immutable mode would read half-written")
        case .walCopy, .staleIndex: return .refused("which immutable mode would not read")
        default: return expected
        }
    }
}

/// A folder made for one `EvidenceCase`: the store `Notes.sqlite` and
/// what lies beside it, and a second folder, `outside`, holding what the
/// case's links and super-journal point at.
package struct EvidenceFolder: Sendable {
    package let directory: URL
    package let store: URL
    package let outside: URL
    /// The file a super-journal names: it must survive.
    package var victim: URL { outside.appendingPathComponent("victim.txt") }

    /// Every file of both folders, as `FolderState` sees them.
    package func state() throws -> FolderState { try FolderState.capture([directory, outside]) }

    package func remove() {
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: outside)
    }
}

/// Builds `EvidenceFolder`s, with SQLite as any app would use it.
package enum EvidenceFixtures {
    package static let keptTitles = ["kept 1", "kept 2", "kept 3"]
    package static let logTitle = "only in the log"

    /// Notes with a title.
    package static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Note") { Attribute("title", .string) }
        }
    }

    /// The same with a body, which an mrq store would migrate to.
    package static func modelWithBody() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Note") {
                Attribute("title", .string)
                Attribute("body", .string)
            }
        }
    }

    static func temporaryDirectory(_ label: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-evidence-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The folder of `kind` in `layout`.
    package static func make(_ kind: EvidenceCase, layout: EvidenceLayout) throws -> EvidenceFolder {
        let directory = try temporaryDirectory(kind.rawValue)
        let store = directory.appendingPathComponent("Notes.sqlite")
        let made = EvidenceFolder(directory: directory, store: store, outside: try temporaryDirectory("outside"))
        try Data("precious, not to be deleted\n".utf8).write(to: made.victim)
        let path = store.path
        switch kind {
        case .hotJournal, .superJournal:
            try makeHotJournal(at: store, layout: layout)
            if kind == .superJournal { try nameSuperJournal(made.victim.path, in: path + "-journal") }
        case .garbageJournal:
            try makeStore(at: store, layout: layout, journal: "DELETE")
            // Not a journal header, and a first byte that is not zero.
            let bytes = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 0x5a) }
            try Data(bytes).write(to: URL(fileURLWithPath: path + "-journal"))
        case .walCopy, .staleIndex:
            try makeWALCopy(at: store, layout: layout, keepIndex: kind == .staleIndex)
        case .fifoLog:
            try makeStore(at: store, layout: layout)
            guard mkfifo(path + "-wal", 0o644) == 0 else { throw fixtureError("mkfifo failed: errno \(errno)") }
        case .directoryJournal:
            try makeStore(at: store, layout: layout, journal: "DELETE")
            try FileManager.default.createDirectory(atPath: path + "-journal", withIntermediateDirectories: false)
            try Data("kept\n".utf8).write(to: URL(fileURLWithPath: path + "-journal/inside"))
        case .linkedLog, .linkedJournal, .linkedIndex:
            try makeStore(at: store, layout: layout)
            let suffix = kind == .linkedLog ? "-wal" : kind == .linkedJournal ? "-journal" : "-shm"
            let target = made.outside.appendingPathComponent("target\(suffix)")
            try Data("outside the folder\n".utf8).write(to: target)
            try FileManager.default.createSymbolicLink(atPath: path + suffix, withDestinationPath: target.path)
        case .emptyFile:
            FileManager.default.createFile(atPath: path, contents: Data())
        case .emptyFileWithLog:
            let scratch = try temporaryDirectory("scratch")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let copy = scratch.appendingPathComponent("Notes.sqlite")
            try makeWALCopy(at: copy, layout: layout, keepIndex: false)
            FileManager.default.createFile(atPath: path, contents: Data())
            try FileManager.default.copyItem(atPath: copy.path + "-wal", toPath: path + "-wal")
        case .emptyDatabase:
            let db = try Database(path: path)
            try db.execute("PRAGMA user_version = 7")
        }
        return made
    }

    /// A store of `model()` holding the kept notes, in `journal` mode,
    /// with nothing beside it.
    static func makeStore(at url: URL, layout: EvidenceLayout, journal: String = "WAL") throws {
        do {
            var options = PersistentStoreOptions()
            options.layout = layout == .mrq ? .mrq : .coreData
            let coordinator = PersistentStoreCoordinator(model: try model())
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            for title in keptTitles { context.insertObject(forEntityName: "Note")["title"] = .string(title) }
            try context.save()
            coordinator.removeStores()
        }
        let db = try Database(path: url.path)
        try db.execute("PRAGMA journal_mode = \(journal)")
        if journal == "WAL" { try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// The table and title column of notes in `layout`.
    package static func noteColumns(_ layout: EvidenceLayout) throws -> (table: String, title: String, key: String) {
        let model = try model()
        let mapping = try SchemaMapping(model: model, layout: layout == .mrq ? .mrq : .coreData)
        guard let note = model.entity(named: "Note"), let title = mapping.column(for: "title", of: note) else {
            throw fixtureError("no Note.title in the mapping")
        }
        return (mapping.table(for: note).name.unquoted, title.name.unquoted, mapping.primaryKey.unquoted)
    }

    /// A rollback-journal store, copied (file and journal) while a
    /// transaction was rewriting every note and adding ~1.5 MB: the copy's
    /// file holds the transaction's pages, its journal the old ones.
    static func makeHotJournal(at url: URL, layout: EvidenceLayout) throws {
        let scratch = try temporaryDirectory("scratch")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let live = scratch.appendingPathComponent("Notes.sqlite")
        try makeStore(at: live, layout: layout, journal: "DELETE")
        let (table, title, _) = try noteColumns(layout)
        let writer = try Database(path: live.path)
        try writer.execute("PRAGMA cache_size = 2")
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute("UPDATE \"\(table)\" SET \"\(title)\" = 'changed mid-write'")
        try writer.execute("CREATE TABLE inflight (x BLOB)")
        for _ in 0..<400 { try writer.execute("INSERT INTO inflight VALUES (randomblob(4000))") }
        // The cache holds two pages: the rest went to the file, after the
        // journal was synced. Copy both as they are now.
        let file = try Data(contentsOf: live)
        let journal = try Data(contentsOf: URL(fileURLWithPath: live.path + "-journal"))
        try writer.execute("ROLLBACK")
        guard file.count > 1_000_000, journal.count > 0, journal.first != 0 else {
            throw fixtureError("the transaction did not spill: file \(file.count) bytes, journal \(journal.count)")
        }
        try file.write(to: url)
        try journal.write(to: URL(fileURLWithPath: url.path + "-journal"))
    }

    /// Appends to a journal the record naming a super-journal, as SQLite
    /// writes it for a transaction across attached databases: page number,
    /// name, its length and checksum, the journal magic.
    static func nameSuperJournal(_ superJournal: String, in journal: String) throws {
        let name = Array(superJournal.utf8)
        func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let checksum = name.reduce(UInt32(0)) { $0 &+ UInt32($1) }
        var record = be32(0x4000_0000 / 4096 + 1) + name + be32(UInt32(name.count)) + be32(checksum)
        record += [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]
        guard let handle = FileHandle(forWritingAtPath: journal) else { throw fixtureError("cannot write \(journal)") }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: record)
    }

    /// A WAL store whose log holds one commit not yet in the file (a note
    /// titled `logTitle`), with its `-shm` kept or removed.
    static func makeWALCopy(at url: URL, layout: EvidenceLayout, keepIndex: Bool) throws {
        try makeStore(at: url, layout: layout)
        do {
            let (table, title, key) = try noteColumns(layout)
            let writer = try Database(path: url.path)
            try writer.execute("PRAGMA wal_autocheckpoint = 0")
            let columns = try writer.columns(of: table)
            // A copy of the last note's row, retitled: every other column as
            // the layout wants it, a new primary key.
            let others = columns.filter { $0 != key && $0 != title }.map { "\"\($0)\"" }
            try writer.transaction {
                try writer.execute("""
                    INSERT INTO "\(table)" ("\(key)", "\(title)"\(others.isEmpty ? "" : ", " + others.joined(separator: ", ")))
                    SELECT max("\(key)") + 1, '\(logTitle)'\(others.isEmpty ? "" : ", " + others.joined(separator: ", ")) \
                    FROM "\(table)" WHERE "\(key)" = (SELECT max("\(key)") FROM "\(table)")
                    """)
            }
            writer.keepLogOnClose()
        }
        if !keepIndex { try? FileManager.default.removeItem(atPath: url.path + "-shm") }
        var info = stat()
        guard stat(url.path + "-wal", &info) == 0, info.st_size > 0 else { throw fixtureError("the log holds nothing") }
    }

    static func fixtureError(_ message: String) -> NSError {
        NSError(domain: "EvidenceFixtures", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
    }
}

/// Every file of some folders, compared before and after opening: name,
/// type, permission bits, size, modification time, and the bytes (a
/// hash) of regular files or the target of links. Never opens anything
/// but a regular file, and that without following links or waiting.
package struct FolderState: Equatable, CustomStringConvertible, Sendable {
    package var files: [String: String]

    package static func capture(_ directories: [URL]) throws -> FolderState {
        var files: [String: String] = [:]
        for directory in directories {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let path = directory.appendingPathComponent(name).path
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                var entry = "\(kind(info.st_mode)) \(String(info.st_mode & 0o7777, radix: 8)) \(info.st_size) "
                    + "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
                switch info.st_mode & S_IFMT {
                case S_IFREG: entry += " \(hash(path))"
                case S_IFLNK: entry += " -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
                default: break
                }
                files[directory.lastPathComponent + "/" + name] = entry
            }
        }
        return FolderState(files: files)
    }

    package var names: [String] { files.keys.map { String($0.split(separator: "/").last ?? "") }.sorted() }

    package var description: String {
        files.keys.sorted().map { "\($0): \(files[$0] ?? "")" }.joined(separator: "\n")
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "file"
        case S_IFLNK: return "link"
        case S_IFIFO: return "fifo"
        case S_IFDIR: return "dir"
        default: return "other"
        }
    }

    /// FNV-1a of the file's bytes.
    static func hash(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return "unreadable" }
        defer { close(descriptor) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            for byte in buffer[..<count] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return String(hash, radix: 16)
    }
}
