import Foundation
import Predicates

/// One connection to a SQL database, as the code every engine shares
/// sees it: statements, rows, transactions and the dialect. SQLite's
/// `Database` and PostgreSQL's connection conform; migrations, the
/// writes of a save and the stores' transactions run on it.
///
/// ```swift
/// try connection.transaction {
///     try connection.execute("UPDATE \(table) SET \(column) = ?", [.int(1)])
///     try connection.transaction { … }   // a savepoint inside
/// }
/// ```
///
/// A conforming connection gives the statements and how its outermost
/// transaction begins, commits and rolls back; nesting (savepoints),
/// rolling back on an error and retrying a transaction are written once,
/// here. Statements take `?` parameters (a PostgreSQL connection numbers
/// them). A connection is used from one thread at a time.
package protocol SQLConnection: AnyObject {
    /// Whose SQL the connection speaks.
    var dialect: SQLDialect { get }
    /// The database, for messages: a file's path, or a server and database.
    var databaseName: String { get }
    /// Runs SQL with no parameters: one or more statements.
    func execute(_ sql: String) throws
    /// Runs one statement with bound values; returns how many rows it
    /// inserted, updated or deleted (meaningless for other statements).
    @discardableResult
    func execute(_ sql: String, _ values: [Value]) throws -> Int
    /// The rows of one query with bound values.
    func rows(_ sql: String, _ values: [Value]) throws -> [[Value]]
    /// Whether the database has a table `name` in the store's schema.
    func tableExists(_ name: String) throws -> Bool

    /// How deep the transactions open on the connection nest: 0 outside
    /// one, 1 in the outermost. Kept by `transaction` and its kin below;
    /// a conforming type only stores it.
    var transactionDepth: Int { get set }
    /// Begins the outermost transaction, one that will write.
    func beginOutermostTransaction() throws
    /// Commits the outermost transaction; when the commit fails, the
    /// transaction is over (rolled back) all the same.
    func commitOutermostTransaction() throws
    /// Rolls back the outermost transaction, whatever state it is in.
    func rollbackOutermostTransaction()
    /// Whether a transaction that failed with `error` may be run again
    /// from its start and succeed (the engine gave it up for another
    /// transaction's sake).
    func mayRetryTransaction(after error: StoreError) -> Bool
}

extension SQLConnection {
    /// Whether a transaction is open on the connection.
    package var isInTransaction: Bool { transactionDepth > 0 }

    /// Runs `body` in a transaction (a savepoint when nested): all or
    /// nothing. When `body` throws, or the commit fails, what it wrote is
    /// rolled back and the connection is ready for the next transaction.
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let savepoint = "mrq\(depth)"
        if depth == 0 {
            try beginOutermostTransaction()
        } else {
            try execute("SAVEPOINT \(savepoint)")
        }
        transactionDepth = depth + 1
        let result: T
        do {
            result = try body()
        } catch {
            transactionDepth = depth
            if depth == 0 {
                rollbackOutermostTransaction()
            } else {
                try? execute("ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)")
            }
            throw error
        }
        transactionDepth = depth
        if depth == 0 {
            try commitOutermostTransaction()
        } else {
            do {
                try execute("RELEASE SAVEPOINT \(savepoint)")
            } catch {
                try? execute("ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)")
                throw error
            }
        }
        return result
    }

    /// Opens a transaction that stays open until `commitTransaction` or
    /// `rollbackTransaction`: the first half of a save spanning stores.
    /// `transaction` calls made meanwhile become savepoints inside it.
    package func beginTransaction() throws {
        precondition(transactionDepth == 0, "a transaction is already open")
        try beginOutermostTransaction()
        transactionDepth = 1
    }

    /// Commits the transaction `beginTransaction` opened; when the commit
    /// fails, the transaction is rolled back.
    package func commitTransaction() throws {
        defer { transactionDepth = 0 }
        try commitOutermostTransaction()
    }

    /// Rolls back the transaction `beginTransaction` opened.
    package func rollbackTransaction() {
        rollbackOutermostTransaction()
        transactionDepth = 0
    }

    /// Runs `body`, a whole transaction, again when the engine gave it up
    /// for another's sake (see `mayRetryTransaction`), up to `attempts`
    /// times, after a short random pause that grows with each attempt (so
    /// that the two sides of a deadlock do not meet again in step);
    /// `retrying` is told of each retry. Nothing of a failed attempt
    /// stays: its writes were rolled back. Inside a transaction that was
    /// already open the error is passed on: the locks held before are part
    /// of the conflict, and only that transaction's owner can let them go.
    package func retryingTransaction<T>(attempts: Int, retrying: () -> Void = {}, _ body: () throws -> T) throws -> T {
        let nested = isInTransaction
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as StoreError where !nested && attempt < attempts && mayRetryTransaction(after: error) {
                retrying()
                usleep(UInt32.random(in: 1_000...min(4_000 << attempt, 100_000)))
                attempt += 1
            }
        }
    }

    /// The first column of the first row of a query, or nil.
    package func scalar(_ sql: String, _ values: [Value] = []) throws -> Value? {
        try rows(sql, values).first?.first
    }

    /// Whether the database has table `name` in the store's schema.
    package func tableExists(_ name: SQLIdentifier) throws -> Bool { try tableExists(name.unquoted) }
}
