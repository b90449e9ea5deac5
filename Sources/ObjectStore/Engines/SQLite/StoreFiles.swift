import Foundation
import Synchronization

/// How a connection that must not write reads a store file. Through none
/// of them can SQLite write the file, and none creates, removes or
/// rewrites anything beside it (see `StoreFiles.readingMode`).
///
/// ```swift
/// let db = try Database(path: "evidence/Notes.sqlite", readOnly: true)  // picks one
/// ```
package enum ReadingMode: Sendable {
    /// SQLite's read-only mode, taking locks as any reader does: for a
    /// store another connection has open (its saves are seen, its `-shm`
    /// shared), and for a rollback-journal store with nothing beside it.
    case readOnly
    /// SQLite's `immutable` flag: no lock, no side file looked at or made.
    /// For a store nobody has open whose file holds all of it.
    case immutable
    /// A private copy of the file and of the log or journal to recover,
    /// which SQLite recovers; the evidence is only read.
    case snapshot(StoreSnapshot)
    /// A read connection of a store open for writing: read-write with
    /// `query_only`, so that, closing last, it folds the log in as the
    /// store's writer would.
    case besideWriter

    var snapshot: StoreSnapshot? {
        if case .snapshot(let copy) = self { return copy }
        return nil
    }
}

/// A private copy of a store file and its `-wal` or `-journal`, in a
/// directory of its own (mode 0700) under the temporary directory, removed
/// when the last connection to it closes.
///
/// SQLite recovers the copy (rolls its hot journal back, or indexes its
/// log) as it would the store: what is read is what Core Data would see
/// after recovery, and the evidence is never written.
package final class StoreSnapshot: @unchecked Sendable {
    /// The copy of the store file.
    package let path: String
    let directory: String

    fileprivate init(directory: String, path: String) {
        self.directory = directory
        self.path = path
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

/// The files of a SQLite store on disk, looked at without opening anything
/// SQLite would write: the store file, and beside it the write-ahead log
/// (`-wal`), its index (`-shm`) and the rollback journal (`-journal`).
///
/// Every store file is evidence until the caller asks to write it. A side
/// file that is not a regular file (a named pipe, a device, a directory, a
/// symbolic link) is refused, naming it: SQLite would block on a pipe,
/// follow a link out of the folder, or remove what it finds.
package enum StoreFiles {
    package static let sideSuffixes = ["-wal", "-shm", "-journal"]

    /// Byte ranges SQLite's unix VFS locks (`os_unix.c`): the pending,
    /// reserved and shared bytes of the store file, and the "dead man
    /// switch" byte of the `-shm` that every connection using it holds.
    private static let pendingByte: off_t = 0x4000_0000
    private static let lockedRange: off_t = 512
    private static let shmDeadManSwitch: off_t = 120 + 8
    /// The magic number that opens every journal header, and ends a
    /// journal that names a super-journal (a transaction across attached
    /// databases).
    private static let journalMagic: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]

    /// What is on disk for the store at `path`.
    struct Inspection {
        /// The store file, its link followed (the caller named it); nil
        /// when there is none.
        var main: stat?
        /// Where SQLite looks for the side files: beside the file a link
        /// names, as it resolves links in the store's path.
        var base: String
        /// The side files present, by suffix, all regular files.
        var sides: [String: stat] = [:]

        func size(_ suffix: String) -> Int64? { sides[suffix].map { Int64($0.st_size) } }
        var isEmpty: Bool { main.map { $0.st_size == 0 } ?? false }
        var logHasData: Bool { (size("-wal") ?? 0) > 0 }
    }

    /// Looks at the store file and its side files (`lstat`, nothing
    /// opened), refusing a side file that is not a regular file and a
    /// store path that is not a file.
    static func inspect(_ path: String) throws -> Inspection {
        var result = Inspection(base: path)
        if let resolved = realpath(path, nil) {
            result.base = String(cString: resolved)
            free(resolved)
        }
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else {
                throw StoreError(.cannotOpen, "cannot open '\(path)': it is \(describe(info.st_mode)), not a store file")
            }
            result.main = info
        }
        for suffix in sideSuffixes {
            var side = stat()
            guard lstat(result.base + suffix, &side) == 0 else { continue }
            guard side.st_mode & S_IFMT == S_IFREG else {
                let name = URL(fileURLWithPath: result.base + suffix).lastPathComponent
                throw StoreError(.cannotOpen, """
                    cannot open '\(path)': '\(name)' beside it is \(describe(side.st_mode)), not a file SQLite made; \
                    move it away to read the store
                    """)
            }
            result.sides[suffix] = side
        }
        return result
    }

    /// Refuses a store whose side files are not all regular files.
    package static func refuseOddSideFiles(_ path: String) throws {
        guard path != ":memory:", !path.isEmpty else { return }
        _ = try inspect(path)
    }

    /// How a connection that must not write reads `path`:
    ///
    /// - `immutable` asked for, or an empty file (SQLite deletes a `-wal`
    ///   beside an empty file, even read-only): `.immutable`.
    /// - Another connection has it open, in this process or another (a
    ///   lock on the file or on its `-shm`): `.readOnly`, reading what it
    ///   saves.
    /// - Nobody has it open, and its `-wal` holds frames or its journal is
    ///   hot: `.snapshot`, a private copy SQLite recovers — the log's
    ///   commits are read, a hot journal is rolled back, as Core Data would
    ///   see the store, and neither is touched.
    /// - Nobody has it open and nothing needs recovering: `.immutable`
    ///   when a side file is there or the store is in WAL mode (SQLite's
    ///   read-only mode would make, or rebuild, a `-wal` and `-shm`), else
    ///   `.readOnly`.
    ///
    /// A store nobody had open when it was opened is read as a file
    /// nothing writes: a process that starts writing it afterwards is not
    /// seen (open it read-write, or again, to see that).
    ///
    /// A log or journal that goes between the look and the copy (a
    /// connection closing last, here or in another process, folds its log
    /// in and deletes it) is looked at again: the store is read as it is
    /// then, up to a few times before the error is reported.
    static func readingMode(_ path: String, immutable: Bool) throws -> ReadingMode {
        var attempt = 1
        while true {
            do {
                return try readingModeOnce(path, immutable: immutable)
            } catch let vanished as SideFileVanished {
                guard attempt < 4 else { throw cannotRead(vanished.path, ENOENT) }
                attempt += 1
            }
        }
    }

    private static func readingModeOnce(_ path: String, immutable: Bool) throws -> ReadingMode {
        let files = try inspect(path)
        guard let main = files.main else { return .readOnly }  // SQLite says it cannot open it
        if immutable || main.st_size == 0 { return .immutable }
        if isOpen(files.base, main) { return .readOnly }
        let journal = try journalState(files)
        if files.logHasData || journal.isHot {
            afterLooking.withLock { $0.removeValue(forKey: path) }?()
            return .snapshot(try snapshot(path, files, journal: journal))
        }
        if files.sides.isEmpty, try !isWALStore(path) { return .readOnly }
        return .immutable
    }

    /// A side file seen by `inspect` that was gone when it was read.
    private struct SideFileVanished: Error {
        let path: String
    }

    /// Tests: run once for the store at a path between looking at its files
    /// and copying its log or journal, to move them as another connection
    /// could in between.
    package static let afterLooking = Mutex<[String: @Sendable () -> Void]>([:])

    /// Whether opening `path` read-write would change anything beside
    /// the store before any write: nobody has it open and a side file is
    /// there (SQLite would recover or remove a log or journal, rebuild an
    /// index). A missing or empty file is not: opening it is making a store.
    package static func wouldChangeOnOpening(_ path: String) throws -> Bool {
        guard path != ":memory:", !path.isEmpty else { return false }
        let files = try inspect(path)
        guard let main = files.main, main.st_size > 0, !files.sides.isEmpty else { return false }
        return !isOpen(files.base, main)
    }

    /// Refuses to let a connection that may write open `path` where SQLite
    /// would, before anything is asked, remove or follow what is beside
    /// it: a side file that is not a regular file, a log or journal beside
    /// an empty file (deleted as stale), a hot journal naming a
    /// super-journal (a path the file chose, which SQLite would look up
    /// and may delete).
    static func checkBeforeWriting(_ path: String) throws {
        guard path != ":memory:", !path.isEmpty else { return }
        let files = try inspect(path)
        guard let main = files.main else { return }
        if main.st_size == 0 {
            // Another connection making the store right now has its journal.
            guard files.sides.isEmpty || !isOpen(files.base, main) else { return }
            for suffix in ["-wal", "-journal"] where (files.size(suffix) ?? 0) > 0 {
                let name = URL(fileURLWithPath: files.base + suffix).lastPathComponent
                throw StoreError(.corrupt, """
                    cannot open '\(path)': it is empty (0 bytes) and '\(name)' beside it holds \(files.size(suffix) ?? 0) bytes, \
                    which SQLite would delete
                    """)
            }
            return
        }
        guard files.sides["-journal"] != nil, !isOpen(files.base, main) else { return }
        if try journalState(files).namesSuperJournal {
            let name = URL(fileURLWithPath: files.base + "-journal").lastPathComponent
            throw StoreError(.corrupt, """
                cannot open '\(path)' for writing: its journal '\(name)' names a super-journal, a file elsewhere that \
                SQLite would look up and delete; open it read-only to read it
                """)
        }
    }

    // MARK: - Who has the store open

    /// Whether a connection has the store open: one of this process
    /// (locks of its own are invisible to `F_GETLK`, and opening and
    /// closing the file here would drop them), or another process's lock
    /// on the store file or on the `-shm`'s dead-man-switch byte.
    private static func isOpen(_ path: String, _ main: stat) -> Bool {
        if LockingConnections.contains(main) { return true }
        if isLocked(path, range: pendingByte..<(pendingByte + lockedRange), noFollow: false) { return true }
        return isLocked(path + "-shm", range: shmDeadManSwitch..<(shmDeadManSwitch + 1), noFollow: true)
    }

    private static func isLocked(_ path: String, range: Range<off_t>, noFollow: Bool) -> Bool {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (noFollow ? O_NOFOLLOW : 0))
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = range.lowerBound
        lock.l_len = off_t(range.count)
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    // MARK: - Journal and header

    struct JournalState {
        /// SQLite would roll it back: present, not empty, its first byte
        /// not zero (its own test, `hasHotJournal`).
        var isHot = false
        /// It ends with a super-journal's name.
        var namesSuperJournal = false
    }

    /// Whether the store's journal holds a transaction SQLite would roll
    /// back (whoever may hold it).
    static func hasHotJournal(_ path: String, _ files: Inspection) throws -> Bool {
        try journalState(files).isHot
    }

    private static func journalState(_ files: Inspection) throws -> JournalState {
        guard let size = files.size("-journal"), size > 0 else { return JournalState() }
        let descriptor: Int32
        do {
            descriptor = try openSide(files.base + "-journal")
        } catch is SideFileVanished {
            return JournalState()  // rolled back or committed since: none now
        }
        defer { close(descriptor) }
        var state = JournalState()
        var first: UInt8 = 0
        state.isHot = pread(descriptor, &first, 1, 0) == 1 && first != 0
        if size >= 16 {
            var tail = [UInt8](repeating: 0, count: 8)
            state.namesSuperJournal = pread(descriptor, &tail, 8, off_t(size - 8)) == 8 && tail == journalMagic
        }
        return state
    }

    /// Whether the store file's header says WAL mode (bytes 18 and 19).
    private static func isWALStore(_ path: String) throws -> Bool {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw cannotRead(path, errno) }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 20)
        return pread(descriptor, &header, 20, 0) == 20 && (header[18] == 2 || header[19] == 2)
    }

    /// A side file opened for reading only, never following a link and
    /// never waiting on a pipe; refused unless it is a regular file.
    /// One that is gone (`inspect` saw it: another connection removed it
    /// since) throws `SideFileVanished`, to look again.
    private static func openSide(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw SideFileVanished(path: path) }
            throw cannotRead(path, errno)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw StoreError(.cannotOpen, "cannot read '\(path)': it is not a regular file")
        }
        return descriptor
    }

    // MARK: - Snapshots

    /// Snapshots made inside `sharingSnapshots`, by what they copied.
    private static let shared = Mutex<(depth: Int, copies: [String: StoreSnapshot])>((0, [:]))

    /// Runs `body` with the snapshots its connections make kept for one
    /// another: reading a store's model, previewing its migration and
    /// opening it copy the store once, not three times.
    package static func sharingSnapshots<T>(_ body: () throws -> T) rethrows -> T {
        shared.withLock { $0.depth += 1 }
        defer {
            shared.withLock {
                $0.depth -= 1
                if $0.depth == 0 { $0.copies = [:] }
            }
        }
        return try body()
    }

    private static func snapshot(_ path: String, _ files: Inspection, journal: JournalState) throws -> StoreSnapshot {
        var key = path
        for info in [files.main] + sideSuffixes.map({ files.sides[$0] }) {
            guard let info else { key += "|-"; continue }
            key += "|\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        if let copy = shared.withLock({ $0.depth > 0 ? $0.copies[key] : nil }) { return copy }
        let copy = try makeSnapshot(path, files, journal: journal)
        shared.withLock { if $0.depth > 0 { $0.copies[key] = copy } }
        return copy
    }

    private static func makeSnapshot(_ path: String, _ files: Inspection, journal: JournalState) throws -> StoreSnapshot {
        var template = Array((NSTemporaryDirectory() + "mrq-read-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw StoreError(.cannotOpen, "cannot read '\(path)': no private folder to copy it into (\(String(cString: strerror(errno))))")
        }
        let directory = String(cString: made)
        let snapshot = StoreSnapshot(directory: directory, path: directory + "/store")
        try copy(path, to: snapshot.path, followingLink: true, shown: path)
        if files.logHasData {
            try copy(files.base + "-wal", to: snapshot.path + "-wal", followingLink: false, shown: path)
        }
        if journal.isHot {
            try copy(files.base + "-journal", to: snapshot.path + "-journal", followingLink: false, shown: path)
            // The super-journal a journal names is a path the file chose:
            // SQLite would look it up, and delete it after the rollback.
            // Forgotten, the journal rolls back on its own.
            if journal.namesSuperJournal, let size = files.size("-journal") {
                let descriptor = open(snapshot.path + "-journal", O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
                if descriptor >= 0 {
                    let zeros = [UInt8](repeating: 0, count: 8)
                    _ = pwrite(descriptor, zeros, 8, off_t(size - 8))
                    close(descriptor)
                }
            }
        }
        return snapshot
    }

    /// Copies a regular file byte for byte into a new file (0600).
    private static func copy(_ source: String, to target: String, followingLink: Bool, shown: String) throws {
        let input = followingLink ? open(source, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : try openSide(source)
        guard input >= 0 else { throw cannotRead(source, errno) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(.cannotOpen, "cannot read '\(source)': it is not a regular file")
        }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw cannotCopy(shown, errno) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw cannotRead(source, errno)
            }
            if count == 0 { return }
            var written = 0
            while written < count {
                let n = buffer.withUnsafeBytes { bytes in
                    bytes.baseAddress.map { write(output, $0 + written, count - written) } ?? -1
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw cannotCopy(shown, errno)
                }
                written += n
            }
        }
    }

    private static func cannotRead(_ path: String, _ code: Int32) -> StoreError {
        StoreError(.cannotOpen, "cannot read '\(path)': \(String(cString: strerror(code)))")
    }

    private static func cannotCopy(_ path: String, _ code: Int32) -> StoreError {
        StoreError(.cannotOpen, """
            cannot read '\(path)': its log or journal needs recovering, and copying the store to a private folder \
            to do that failed (\(String(cString: strerror(code))))
            """)
    }

    /// "a named pipe", "a directory", … for a file mode.
    static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a named pipe"
        case S_IFDIR: return "a directory"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
}

/// The files this process has open through connections that lock them
/// (writers and SQLite read-only readers, not immutable ones or
/// snapshots), by device and inode: a store open here is live, and its
/// file must not be opened and closed behind SQLite's back (closing any
/// descriptor of a file drops the process's POSIX locks on it).
enum LockingConnections {
    private static let open = Mutex<[FileID: Int]>([:])

    struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Registers a connection on the file at `path`; returns what to pass
    /// to `remove`, nil when there is no such file.
    static func add(_ path: String) -> FileID? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let id = FileID(info)
        open.withLock { $0[id, default: 0] += 1 }
        return id
    }

    static func remove(_ id: FileID) {
        open.withLock {
            let left = ($0[id] ?? 1) - 1
            $0[id] = left > 0 ? left : nil
        }
    }

    static func contains(_ info: stat) -> Bool {
        open.withLock { $0[FileID(info)] != nil }
    }
}
