import CSQLite
import Foundation
import Predicates
import Synchronization

/// One SQLite connection, used from one queue at a time.
///
/// ```swift
/// let db = try Database(path: ":memory:")
/// try db.execute("CREATE TABLE t (x)")
/// ```
///
/// The connection is opened with `SQLITE_OPEN_NOMUTEX`: the store that owns
/// it lends it to one thread at a time (see `ReaderPool`), so SQLite's own
/// mutex would be pure cost.
package final class Database: @unchecked Sendable {
    package let path: String
    let handle: OpaquePointer
    private var statementCache: [String: Statement] = [:]
    private let started = Atomic<Int>(0)
    /// How many statements this connection has started, for tests that
    /// check work is done without going to the store. Safe to read from
    /// any thread.
    package var statementsStarted: Int { started.load(ordering: .relaxed) }
    /// How deep the open transactions nest (see `SQLConnection`).
    package var transactionDepth = 0
    /// The file SQLite has open: `path`, or the private copy a snapshot
    /// reads (see `ReadingMode`).
    package let file: String
    /// How a connection that must not write reads the store; nil for one
    /// that may write (and one in memory).
    package let reading: ReadingMode?
    /// The file registered as open here, for connections that lock it.
    private let lockedFile: LockingConnections.FileID?
    /// How the connection was opened, for opening readers like it.
    private let immutable: Bool
    private let busyTimeout: TimeInterval
    /// The connection holds the file in `EXCLUSIVE` locking mode: no other
    /// connection can read it meanwhile.
    package private(set) var isExclusive = false
    /// Opened with SQLite's `immutable` flag: no locks, a file nothing changes.
    package var isImmutable: Bool { immutable }
    /// A write-ahead log with content was there when the connection opened.
    private let foundLog: Bool
    /// The connection began a write transaction: it may checkpoint.
    private var hasWritten = false
    /// What the connection's authorizer lets through (see `harden`).
    let connectionGuard: ConnectionGuard

    /// `busyTimeout` is how long a statement waits for another
    /// connection's lock before failing with `StoreError.Kind.locked`.
    ///
    /// `readOnly` opens the file so that SQLite cannot write it, nor make,
    /// remove or rewrite anything beside it, recovery included: the mode
    /// `StoreFiles.readingMode` picks (SQLite's read-only mode for a store
    /// open elsewhere, `immutable` for a file that holds all of it, a
    /// private snapshot for one whose log or hot journal needs
    /// recovering), or `reading` when given. `immutable` (read-only only)
    /// asks for SQLite's `immutable` flag: the file is taken not to change
    /// while open, so no lock is taken and no `-shm` is needed.
    ///
    /// A connection that may write refuses first what SQLite would remove
    /// or follow beside the store (see `StoreFiles.checkBeforeWriting`).
    package init(path: String, readOnly: Bool = false, immutable: Bool = false, busyTimeout: TimeInterval = 5,
                 reading: ReadingMode? = nil) throws {
        self.path = path
        self.busyTimeout = busyTimeout
        let inMemory = path == ":memory:" || path.isEmpty
        if immutable { precondition(readOnly, "only a read-only connection can be immutable") }
        if readOnly && !inMemory {
            self.reading = try reading ?? StoreFiles.readingMode(path, immutable: immutable)
        } else {
            if !inMemory { try StoreFiles.checkBeforeWriting(path) }
            self.reading = nil
        }
        self.file = self.reading?.snapshot?.path ?? path
        var db: OpaquePointer?
        var flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        var name = file
        self.immutable = if case .immutable? = self.reading { true } else { false }
        if self.immutable {
            name = "file:" + Self.uriPath(URL(fileURLWithPath: path).path) + "?immutable=1"
        }
        // A log left by another process (or a crash) is theirs: a session
        // that only reads must not fold it into the file when it closes.
        var info = stat()
        foundLog = !inMemory && stat(file + "-wal", &info) == 0 && info.st_size > 0
        // A snapshot is recovered by SQLite, as the store would be, and a
        // writer's reader may fold the log in closing last, as the writer
        // would: both read-write connections that refuse to write.
        let queryOnly: Bool
        switch self.reading {
        case .snapshot?, .besideWriter?: queryOnly = true
        default: queryOnly = false
        }
        if queryOnly { flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI }
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(code: rc, message: "cannot open '\(path)': \(message)", sql: nil)
        }
        do {
            connectionGuard = try Self.harden(db, path: path)
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        switch self.reading {
        case nil, .readOnly?, .besideWriter?: lockedFile = inMemory ? nil : LockingConnections.add(path)
        case .immutable?, .snapshot?: lockedFile = nil
        }
        OpenConnections.add(db)
        sqlite3_extended_result_codes(db, 1)
        mrq_strict_quoted_identifiers(db)
        if queryOnly { sqlite3_exec(db, "PRAGMA query_only = 1", nil, nil, nil) }
        // A log with no index beside it (a store copied off a device, a
        // backup) has no other connection: read it with the index in this
        // process's memory, so no -shm file is made and left behind.
        if foundLog && stat(file + "-shm", &info) != 0 && self.reading == nil {
            isExclusive = sqlite3_exec(db, "PRAGMA locking_mode = EXCLUSIVE", nil, nil, nil) == SQLITE_OK
        }
        sqlite3_busy_timeout(db, Int32(clamping: Int((busyTimeout * 1_000).rounded())))
        SQLFunctions.register(on: db)
        if StatementObservers.isActive { watchStatements() }
    }

    /// `path` as the path of an SQLite URI filename: every byte but ASCII
    /// letters, digits and `/._~-` percent-encoded, which SQLite decodes
    /// (`?` and `#` would end the path, `%` start an escape). Foundation's
    /// `addingPercentEncoding` did the same at some 1% of opening a big
    /// Core Data store.
    static func uriPath(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count + 8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "-"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Tells `StatementObservers` each statement as it starts running
    /// (SQLite's statement trace: after the statement cache, so every run
    /// is told), under the store's path.
    private func watchStatements() {
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, _, text in
            guard let context, let text else { return 0 }
            let sql = String(cString: text.assumingMemoryBound(to: CChar.self))
            // A trigger's program is told as a comment: not a statement run.
            guard !sql.hasPrefix("--") else { return 0 }
            StatementObservers.notify(Unmanaged<Database>.fromOpaque(context).takeUnretainedValue().path, sql: sql)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Puts a new store's file in WAL mode. Another connection laying out
    /// the same new file at that moment (two processes starting together)
    /// makes SQLite answer "database is locked" at once, without waiting
    /// through the busy timeout: so this waits, retrying, for up to the
    /// busy timeout itself.
    package func enterWALMode() throws {
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                try execute("PRAGMA journal_mode = WAL")
                return
            } catch let error as StoreError where error.sqlitePrimaryCode == SQLITE_BUSY && Date() < deadline {
                usleep(2_000)
            }
        }
    }

    /// Another connection to the same file, opened as this one was but
    /// never writing: a store's read connection. A writer's reader refuses
    /// to write (`query_only`); a reader's reads as it does.
    package func openReader() throws -> Database {
        try Database(path: path, readOnly: true, immutable: immutable, busyTimeout: busyTimeout,
                     reading: reading ?? .besideWriter)
    }

    /// Ends whatever the connection's last read left open before it is
    /// lent to another thread: a statement not run to its end (which would
    /// keep reading the store as it was when it started) and a read
    /// transaction.
    package func finishReading() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
        if sqlite3_get_autocommit(handle) == 0 { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// Writes a consistent copy of the database, with what its log holds,
    /// to a new file at `path` (`VACUUM INTO`); the database is not changed.
    package func copy(to path: String) throws {
        try attaching(path) { try execute("VACUUM INTO ?", [.string(path)]) }
    }

    /// Leaves the write-ahead log as it is when this connection closes, as
    /// a process killed mid-session would (the tests make such logs).
    package func keepLogOnClose() {
        mrq_keep_wal_on_close(handle)
    }

    deinit {
        OpenConnections.remove(handle)
        statementCache.removeAll()
        sqlite3_trace_v2(handle, 0, nil, nil)
        if foundLog && !hasWritten { mrq_keep_wal_on_close(handle) }
        sqlite3_close_v2(handle)
        // Only now: closing last, the connection folds its log in and
        // deletes it, and until then the store is open here — a reader
        // told otherwise would copy a log that is going away.
        if let lockedFile { LockingConnections.remove(lockedFile) }
    }

    /// Runs one or more statements with no parameters.
    package func execute(_ sql: String) throws {
        started.add(1, ordering: .relaxed)
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw failure(rc, message, sql: sql)
        }
    }

    /// Runs one statement with bound values; returns how many rows it
    /// inserted, updated or deleted.
    @discardableResult
    package func execute(_ sql: String, _ values: [Value]) throws -> Int {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        while try statement.step() {}
        return changes
    }

    /// A new prepared statement, not cached.
    package func prepare(_ sql: String) throws -> Statement {
        started.add(1, ordering: .relaxed)
        return try Statement(database: self, sql: sql)
    }

    /// A prepared statement from the connection's cache, reset and with
    /// its bindings cleared. While the cached one is still stepping (a read
    /// made from the callback of another on the same connection), a new
    /// one, not cached: resetting it would cut the other read short.
    package func cachedStatement(_ sql: String) throws -> Statement {
        started.add(1, ordering: .relaxed)
        if let statement = statementCache[sql] {
            if sqlite3_stmt_busy(statement.handle) != 0 { return try Statement(database: self, sql: sql) }
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Rows of a query as arrays of raw values.
    package func rows(_ sql: String, _ values: [Value] = []) throws -> [[Value]] {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        var rows: [[Value]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        statement.reset()
        return rows
    }

    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    package var changes: Int { Int(sqlite3_changes(handle)) }

    package func tableExists(_ name: String) throws -> Bool {
        // A NUL would end the name early in C: asked by query instead. A
        // "no" is asked again by query too: the schema in memory may
        // predate a table another connection has just made, which a
        // statement would see (SQLite rereads a schema that changed).
        if !name.holdsByte(0), mrq_table_exists(handle, name) == 1 { return true }
        return try scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", [.string(name)]) != nil
    }

    /// The names of a table's columns, in order; empty for no such table.
    package func columns(of table: String) throws -> [String] {
        try rows("SELECT name FROM pragma_table_info(?)", [.string(table)]).compactMap {
            if case .string(let name)? = $0.first { return name }
            return nil
        }
    }

    /// Whether `table` has a column `column`, names compared as SQLite
    /// resolves them in a statement (without regard to ASCII case): from
    /// the schema SQLite holds in memory where it can say, by `columns(of:)`
    /// where it cannot (see `mrq_table_has_column`).
    package func hasColumn(_ column: String, inTable table: String) throws -> Bool {
        // A NUL would end the name early in C: asked by query instead.
        // A "no" is asked again by query, as for `tableExists`.
        if !table.holdsByte(0), !column.holdsByte(0), mrq_table_has_column(handle, table, column) == 1 { return true }
        let folded = Self.asciiFolded(column)
        return try columns(of: table).contains { Self.asciiFolded($0) == folded }
    }

    /// A name's bytes with ASCII capitals made small: how SQLite matches names.
    private static func asciiFolded(_ name: String) -> [UInt8] {
        name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    func error(_ rc: Int32, sql: String?) -> StoreError {
        failure(rc, String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// SQLite's error, naming the file when the file itself is at fault
    /// (damaged, not a database, unreadable): "file is not a database"
    /// alone does not say which file a user gave is meant.
    private func failure(_ rc: Int32, _ message: String, sql: String?) -> StoreError {
        let primary = rc & 0xFF
        let fileAtFault = [SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_IOERR, SQLITE_CANTOPEN].contains(primary)
        guard fileAtFault, path != ":memory:", !path.isEmpty else { return StoreError(code: rc, message: message, sql: sql) }
        return StoreError(code: rc, message: "'\(path)': \(message)", sql: sql)
    }
}

extension Database: SQLConnection {
    package var dialect: SQLDialect { SQLiteDialect() }

    package var databaseName: String { path }

    /// `BEGIN IMMEDIATE`: the write lock is taken at once, so a save never
    /// fails half-way for want of it.
    package func beginOutermostTransaction() throws {
        try execute("BEGIN IMMEDIATE")
        hasWritten = true
    }

    /// `COMMIT`; a COMMIT SQLite refuses (a deferred constraint) leaves the
    /// transaction open, so it is rolled back.
    package func commitOutermostTransaction() throws {
        do {
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    package func rollbackOutermostTransaction() {
        try? execute("ROLLBACK")
    }

    /// Never: a lock is waited for up to the busy timeout before a
    /// statement fails, and a transaction begins holding the write lock.
    package func mayRetryTransaction(after error: StoreError) -> Bool { false }
}
