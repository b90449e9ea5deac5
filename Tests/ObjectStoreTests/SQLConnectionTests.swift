import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// The transactions both engines' connections share (`SQLConnection`):
/// nesting as savepoints, all or nothing, a failed COMMIT leaving the
/// connection ready for the next transaction, and retrying a transaction
/// the engine gave up.
@Suite struct SQLConnectionTests {
    struct Stop: Error {}

    /// A parent table and a child whose foreign key is checked only at
    /// COMMIT, so that a COMMIT can fail.
    static func makeTables(on connection: some SQLConnection) throws {
        try connection.execute("CREATE TABLE p (id integer PRIMARY KEY)")
        try connection.execute("CREATE TABLE c (p integer REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)")
    }

    static func count(_ table: String, on connection: some SQLConnection) throws -> Value? {
        try connection.scalar("SELECT count(*) FROM \(table)")
    }

    /// What every engine's connection must do, run on each.
    static func expectSharedTransactions(on connection: some SQLConnection) throws {
        try makeTables(on: connection)
        #expect(throws: Stop.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO p VALUES (?)", [.int(1)])
                throw Stop()
            }
        }
        #expect(try count("p", on: connection) == .int(0), "a transaction that throws writes nothing")
        try connection.transaction {
            try connection.execute("INSERT INTO p VALUES (?)", [.int(1)])
            #expect(connection.transactionDepth == 1)
            #expect(throws: Stop.self) {
                try connection.transaction {
                    #expect(connection.transactionDepth == 2)
                    try connection.execute("INSERT INTO p VALUES (?)", [.int(2)])
                    throw Stop()
                }
            }
            // A failed statement in a savepoint leaves the transaction usable.
            #expect(throws: StoreError.self) {
                try connection.transaction { try connection.execute("INSERT INTO p VALUES (?)", [.int(1)]) }
            }
            try connection.transaction { try connection.execute("INSERT INTO p VALUES (?)", [.int(3)]) }
        }
        #expect(try connection.rows("SELECT id FROM p ORDER BY id", []) == [[.int(1)], [.int(3)]])
        #expect(!connection.isInTransaction)

        // A COMMIT the engine refuses (a deferred foreign key) ends the
        // transaction; the next one begins afresh.
        let refused = #expect(throws: StoreError.self) {
            try connection.transaction { try connection.execute("INSERT INTO c VALUES (?)", [.int(99)]) }
        }
        #expect(refused?.kind == .constraint, "\(String(describing: refused))")
        #expect(connection.transactionDepth == 0)
        try connection.transaction { try connection.execute("INSERT INTO c VALUES (?)", [.int(1)]) }
        #expect(try count("c", on: connection) == .int(1))
        #expect(!connection.isInTransaction)

        // The same through beginTransaction and commitTransaction.
        try connection.beginTransaction()
        try connection.execute("INSERT INTO c VALUES (?)", [.int(98)])
        #expect(throws: StoreError.self) { try connection.commitTransaction() }
        #expect(!connection.isInTransaction)
        try connection.beginTransaction()
        try connection.execute("INSERT INTO p VALUES (?)", [.int(4)])
        try connection.commitTransaction()
        #expect(try count("c", on: connection) == .int(1))
        #expect(try count("p", on: connection) == .int(3))
    }

    @Test func sqliteTransactionsNestRollBackAndSurviveAFailedCommit() throws {
        let db = try Database(path: ":memory:")
        try db.execute("PRAGMA foreign_keys = ON")
        try Self.expectSharedTransactions(on: db)
    }

    @Test func postgresTransactionsNestRollBackAndSurviveAFailedCommit() throws {
        try Self.expectSharedTransactions(on: try PostgresConnection.toFreshDatabase())
    }

    /// A transaction PostgreSQL gives up for a concurrent update (40001)
    /// runs again, once, and then succeeds; inside an open transaction
    /// the failure is passed on.
    @Test func postgresRetriesATransactionGivenUpForAnother() throws {
        let url = try PostgresServer.shared().createDatabase()
        let connection = try PostgresConnection(url), other = try PostgresConnection(url)
        try connection.execute("CREATE TABLE t (k integer PRIMARY KEY, x integer)")
        try connection.execute("INSERT INTO t VALUES (1, 0)")
        var attempts = 0, retries = 0
        try connection.retryingTransaction(attempts: 3, retrying: { retries += 1 }) {
            try connection.transaction {
                attempts += 1
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                _ = try connection.rows("SELECT x FROM t", [])
                if attempts == 1 { try other.execute("UPDATE t SET x = x + 1 WHERE k = $1", [.int(1)]) }
                try connection.execute("UPDATE t SET x = x + 10 WHERE k = $1", [.int(1)])
            }
        }
        #expect(attempts == 2 && retries == 1)
        #expect(try connection.scalar("SELECT x FROM t") == .int(11))

        attempts = 0
        try connection.transaction {
            let error = #expect(throws: StoreError.self) {
                try connection.retryingTransaction(attempts: 3) {
                    attempts += 1
                    throw StoreError.postgres(sqlState: "40001", message: "could not serialize access", sql: nil)
                }
            }
            #expect(error?.kind == .locked)
        }
        #expect(attempts == 1, "a transaction nested in an open one is not run again")
    }

    /// SQLite never retries: it waited for the lock up to the busy timeout.
    @Test func sqliteDoesNotRetry() throws {
        let db = try Database(path: ":memory:")
        var attempts = 0
        #expect(throws: StoreError.self) {
            try db.retryingTransaction(attempts: 3) {
                attempts += 1
                throw StoreError(code: 5, message: "database is locked", sql: nil)
            }
        }
        #expect(attempts == 1)
    }
}
