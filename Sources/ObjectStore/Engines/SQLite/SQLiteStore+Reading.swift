import Foundation

extension SQLiteStore {
    /// Runs `body` with a connection to read the store through: a read
    /// connection of this thread's own in WAL mode (the writer on the
    /// thread holding it), else the one connection under the store's lock.
    ///
    /// ```swift
    /// let n = try store.read { db in try db.scalar("SELECT count(*) FROM person") }
    /// ```
    ///
    /// `body` may read the store again, even from a callback in the middle
    /// of stepping a statement: nested reads of a thread share its
    /// connection.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard let readers else { return try withLock { try body(database) } }
        return try readers.read(body)
    }

    /// Runs `body` with all the reads it makes of this store, on this
    /// thread, seeing the store at one moment (one read transaction on one
    /// connection, begun at the first read): a fetch and its prefetches, a
    /// dictionary fetch's keys and rows. A save committed meanwhile is seen
    /// by none of them or, when it came before the first, by all.
    ///
    /// A store with one connection runs `body` as it is, each read taking
    /// the lock for itself: holding it throughout would deadlock a child
    /// context's fetch, which reads through its parent's queue, against
    /// that parent saving.
    package func readTransaction<T>(_ body: () throws -> T) rethrows -> T {
        guard let readers else { return try body() }
        return try readers.transaction(body)
    }

    /// The read connections for the writer `database`: none in memory (a
    /// second connection would be another database), in exclusive locking
    /// mode (no other connection can read) or outside WAL mode (a reader
    /// would hold a lock that stops a save committing), unless the file is
    /// immutable (nobody writes it, nothing is locked).
    ///
    /// `lending`, for a store opened read-only, lends the writer to reads
    /// (see `ReaderPool`): such a store reads through one connection until
    /// two threads read at once.
    static func readers(for database: Database, lending: ReaderPool.WriterLending? = nil) -> ReaderPool? {
        guard database.path != ":memory:", !database.path.isEmpty, !database.isExclusive else { return nil }
        if !database.isImmutable {
            guard case .string(let mode)? = try? database.scalar("PRAGMA journal_mode"), mode.lowercased() == "wal" else {
                return nil
            }
        }
        return ReaderPool(writer: database, lending: lending)
    }

    /// Closes the read connections (each lent one as its read ends). Later
    /// reads still work, each opening a connection for itself: a store
    /// removed from its coordinator closes what it can at once.
    package func closeReaders() {
        readers?.close()
    }

    /// How many read connections are open, idle or in use.
    package var readConnectionCount: Int { readers?.openCount ?? 0 }

    /// How many statements every connection of the store has started, for
    /// tests that check work is done without going to the store.
    package var statementsStarted: Int {
        database.statementsStarted + (readers?.statementsStarted ?? 0)
    }
}

extension PersistentStoreCoordinator {
    /// Runs `body` with the reads it makes on this thread from each SQLite
    /// store seeing that store at one moment (see
    /// `SQLiteStore.readTransaction`).
    func readTransaction<T>(_ body: () throws -> T) rethrows -> T {
        try Self.readTransaction(backends.compactMap { $0 as? SQLiteStore }[...], body)
    }

    private static func readTransaction<T>(_ stores: ArraySlice<SQLiteStore>, _ body: () throws -> T) rethrows -> T {
        guard let store = stores.first else { return try body() }
        return try store.readTransaction { try readTransaction(stores.dropFirst(), body) }
    }
}
