import CSQLite
import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// `StoreError` is the same for every engine: the engine's own code is a
/// field (SQLite's result code, PostgreSQL's SQLSTATE, with the engine's
/// name), never read back from the message, and the kind means the same
/// for both.
@Suite struct EngineErrorCodeTests {
    @Test func sqliteErrorsCarryTheResultCode() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE u (x text UNIQUE)")
        try db.execute("INSERT INTO u VALUES (?)", [.string("a")])
        let duplicate = #expect(throws: StoreError.self) { try db.execute("INSERT INTO u VALUES (?)", [.string("a")]) }
        #expect(duplicate?.kind == .constraint)
        #expect(duplicate?.code == .sqlite(2067))
        #expect(duplicate?.code?.engine == "SQLite" && duplicate?.code?.value == "2067")
        #expect(duplicate?.code?.sqliteResultCode == 2067 && duplicate?.code?.sqlState == nil)
        #expect(duplicate?.isUniquenessViolation == true)
        #expect(duplicate?.message == "UNIQUE constraint failed: u.x")
        #expect(duplicate?.description == "SQLite error 2067: UNIQUE constraint failed: u.x - while executing `INSERT INTO u VALUES (?)`")
        let syntax = #expect(throws: StoreError.self) { try db.execute("SELEC 1") }
        #expect(syntax?.kind == .other && syntax?.code == .sqlite(SQLITE_ERROR))
    }

    /// The kind SQLite's primary result code gives, extended codes included.
    @Test(arguments: [
        (SQLITE_CORRUPT, StoreError.Kind.corrupt), (SQLITE_NOTADB, .corrupt), (SQLITE_BUSY, .locked),
        (SQLITE_LOCKED, .locked), (SQLITE_READONLY, .readOnly), (SQLITE_CANTOPEN, .cannotOpen),
        (SQLITE_CONSTRAINT | (19 << 8), .constraint), (SQLITE_INTERRUPT, .interrupted), (SQLITE_ERROR, .other),
        (SQLITE_IOERR | (10 << 8), .other),
    ])
    func sqliteResultCodesGiveTheirKind(code: Int32, kind: StoreError.Kind) {
        let error = StoreError(code: code, message: "m", sql: nil)
        #expect(error.kind == kind)
        #expect(error.code?.sqliteResultCode == code)
    }

    /// The kind PostgreSQL's SQLSTATE gives, by code and then by class.
    @Test(arguments: [
        ("23505", StoreError.Kind.constraint), ("23503", .constraint), ("40001", .locked), ("40P01", .locked),
        ("55P03", .locked), ("25006", .readOnly), ("57014", .interrupted), ("3D000", .cannotOpen),
        ("08006", .cannotOpen), ("28P01", .cannotOpen), ("XX001", .corrupt), ("XX000", .other), ("42601", .other),
    ])
    func postgresSQLStatesGiveTheirKind(state: String, kind: StoreError.Kind) {
        let error = StoreError.postgres(sqlState: state, message: "m", sql: "SELECT 1")
        #expect(error.kind == kind)
        #expect(error.code == .postgres(state) && error.sqlState == state && error.code?.sqliteResultCode == nil)
        #expect(error.description == "PostgreSQL error \(state): m - while executing `SELECT 1`")
    }

    /// No SQLSTATE is read out of a message: only the field says it.
    @Test func aMessageNeverGivesACode() {
        let error = StoreError(.other, "PostgreSQL error 23505: duplicate key")
        #expect(error.code == nil && error.sqlState == nil)
        #expect(StoreError(.other, "SQLite error 19: x").code?.sqliteResultCode == nil)
    }

    @Test func postgresUniqueViolationCarriesItsSQLState() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("CREATE TABLE u (x text UNIQUE)")
        try connection.execute("INSERT INTO u VALUES ($1)", [.string("a")])
        let duplicate = #expect(throws: StoreError.self) { try connection.execute("INSERT INTO u VALUES ($1)", [.string("a")]) }
        #expect(duplicate?.kind == .constraint)
        #expect(duplicate?.code == .postgres("23505"))
        #expect(duplicate?.code?.engine == "PostgreSQL" && duplicate?.code?.value == "23505")
        #expect(duplicate?.message == "duplicate key value violates unique constraint \"u_x_key\"")
    }

    @Test func postgresSerializationFailureCarriesItsSQLState() throws {
        let url = try PostgresServer.shared().createDatabase()
        let connection = try PostgresConnection(url), other = try PostgresConnection(url)
        try connection.execute("CREATE TABLE t (k integer PRIMARY KEY, x integer)")
        try connection.execute("INSERT INTO t VALUES (1, 0)")
        let failure = #expect(throws: StoreError.self) {
            try connection.transaction {
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                _ = try connection.rows("SELECT x FROM t", [])
                try other.execute("UPDATE t SET x = 1 WHERE k = $1", [.int(1)])
                try connection.execute("UPDATE t SET x = 2 WHERE k = $1", [.int(1)])
            }
        }
        #expect(failure?.code == .postgres("40001"), "\(String(describing: failure))")
        #expect(failure?.kind == .locked)
        #expect(failure.map(connection.mayRetryTransaction(after:)) == true)
    }

    /// A connection the server dropped: the error carries the server's
    /// SQLSTATE for it (57P01, terminated by an administrator), or 08006
    /// when libpq saw only the socket close.
    @Test func postgresLostConnectionCarriesItsSQLState() throws {
        let url = try PostgresServer.shared().createDatabase()
        let connection = try PostgresConnection(url), other = try PostgresConnection(url)
        guard case .int(let pid)? = try connection.scalar("SELECT pg_backend_pid()") else {
            Issue.record("no backend pid")
            return
        }
        try connection.beginTransaction()
        _ = try connection.scalar("SELECT 1")
        _ = try other.scalar("SELECT pg_terminate_backend($1)", [.int(pid)])
        let deadline = Date().addingTimeInterval(10)
        while try other.scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [.int(pid)]) != .int(0), Date() < deadline {
            usleep(10_000)
        }
        let lost = #expect(throws: StoreError.self) { _ = try connection.scalar("SELECT 2") }
        connection.rollbackTransaction()
        let state = lost?.code?.sqlState
        #expect(state == "57P01" || state == "08006", "\(String(describing: lost))")
        #expect(lost?.kind == (state == "08006" ? .cannotOpen : .other))
        #expect(lost.map { connection.lostConnection($0, since: 0) } == true)
    }
}
