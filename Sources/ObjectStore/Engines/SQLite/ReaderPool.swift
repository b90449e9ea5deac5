import Foundation

/// The read connections of a store in WAL mode, beside its one writer:
/// each read runs on a connection of its own, lent to one thread at a
/// time, so reads from several threads run in parallel, and in parallel
/// with a save.
///
/// ```swift
/// let readers = ReaderPool(writer: database)
/// let rows = try readers.read { db in try db.rows("SELECT name FROM person") }
/// ```
///
/// Each read sees the store as the last commit left it when its statement
/// started (WAL's snapshot isolation), never half of a save. Beyond that:
///
/// - A thread's reads nest: a read made while the thread is reading (a
///   fetch from a cursor's callback) runs on the same connection, and so
///   sees the store as the outer read does.
/// - While a thread holds the writer (between `enterWriter` and
///   `leaveWriter`), its reads go to the writer and see what its open
///   transaction has written (the version check and the uniqueness check
///   of a save).
/// - Inside `transaction`, every read of the thread runs on one connection
///   in one read transaction: a fetch and its prefetches see one moment.
/// - A read never waits for a connection: when none is idle, another is
///   opened. Waiting could deadlock a read made from a cursor's callback
///   through another context's queue, the cursor holding the last one.
///   At most `capacity` idle connections are kept; the rest close when
///   their read ends.
/// - A store opened read-only never writes through its writer: the pool
///   lends the writer itself to a read when the store's lock is free
///   (held for the read, so nothing else uses the connection meanwhile),
///   and opens a connection of its own only for a read made while the
///   writer is lent. A store that is only read opens one connection.
final class ReaderPool: @unchecked Sendable {
    /// One thread's hold on a connection. Only that thread touches it.
    private final class Lease {
        var database: Database?
        /// Reads running on the thread, nested ones included.
        var reads = 0
        /// `transaction` scopes open on the thread.
        var scopes = 0
        /// A read transaction is open on `database`.
        var inTransaction = false
        /// `database` is the writer, lent under the store's lock.
        var holdsWriter = false
    }

    /// How the writer is lent to reads: `tryLock` takes the store's lock
    /// without waiting, `unlock` gives it back (on the same thread).
    struct WriterLending {
        let tryLock: () -> Bool
        let unlock: () -> Void
    }

    private let writer: Database
    /// Set for a store that never writes: its writer is lent to reads.
    private let lending: WriterLending?
    /// How many idle connections are kept open.
    let capacity: Int
    private let mutex = NSLock()
    private var idle: [Database] = []
    /// Every open read connection, idle or lent, by identity.
    private var open: [ObjectIdentifier: Database] = [:]
    private var lent: [pthread_t: Lease] = [:]
    /// The thread holding the writer, and how many times over.
    private var writerThread: pthread_t?
    private var writerDepth = 0
    /// Statements run by read connections since closed.
    private var retiredStatements = 0
    private var isClosed = false

    /// The number of cores, and at least 4: asked of the system once (on
    /// Linux it reads the process's CPU affinity, some 2% of opening a
    /// big Core Data store and counting its entities).
    static let defaultCapacity = Swift.max(4, ProcessInfo.processInfo.activeProcessorCount)

    /// A pool reading the file `writer` is open on. `capacity` defaults to
    /// `defaultCapacity`.
    /// `lending`, for a store that never writes, lends the writer to
    /// reads under the store's lock (see the type's notes).
    init(writer: Database, capacity: Int = ReaderPool.defaultCapacity, lending: WriterLending? = nil) {
        self.writer = writer
        self.capacity = capacity
        self.lending = lending
    }

    /// Runs `body` with the connection this thread reads through.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let thread = pthread_self()
        guard let lease = mutex.withLock({ writerThread == thread ? nil : lease(of: thread) }) else {
            return try body(writer)
        }
        lease.reads += 1
        defer {
            lease.reads -= 1
            if lease.reads == 0 && lease.scopes == 0 { giveBack(lease, of: thread) }
        }
        return try body(try connection(for: lease))
    }

    /// Runs `body` with every read this thread makes on one connection, in
    /// one read transaction begun at the first: all of them see the store
    /// as it was then. Nothing is taken until the first read. On the
    /// writer's thread, `body` just runs: its reads see the open write
    /// transaction, which is one moment already.
    func transaction<T>(_ body: () throws -> T) rethrows -> T {
        let thread = pthread_self()
        guard let lease = mutex.withLock({ writerThread == thread ? nil : lease(of: thread) }) else {
            return try body()
        }
        lease.scopes += 1
        defer {
            lease.scopes -= 1
            if lease.scopes == 0 {
                if lease.inTransaction, let database = lease.database {
                    // A read transaction writes nothing: committing it only
                    // lets the next read see later saves.
                    try? database.execute("COMMIT")
                    lease.inTransaction = false
                }
                if lease.reads == 0 { giveBack(lease, of: thread) }
            }
        }
        return try body()
    }

    /// Called by the writer's holder once it has the writer's lock.
    func enterWriter() {
        mutex.withLock {
            writerThread = pthread_self()
            writerDepth += 1
        }
    }

    /// Called by the writer's holder before it releases the writer's lock.
    func leaveWriter() {
        mutex.withLock {
            writerDepth -= 1
            if writerDepth == 0 { writerThread = nil }
        }
    }

    /// Closes the idle connections now, and each lent one when its read
    /// ends; a read made later opens a connection for itself and closes it
    /// after.
    func close() {
        let closing: [Database] = mutex.withLock {
            isClosed = true
            let closing = idle
            idle = []
            for database in closing { retire(database) }
            return closing
        }
        _ = closing  // the last references: they close here, outside the mutex
    }

    /// How many read connections are open, idle or lent.
    var openCount: Int { mutex.withLock { open.count } }

    /// Statements run by the read connections, open and closed.
    var statementsStarted: Int {
        mutex.withLock { open.values.reduce(retiredStatements) { $0 + $1.statementsStarted } }
    }

    // MARK: - Lending

    /// The thread's lease, made when it has none. Under the mutex.
    private func lease(of thread: pthread_t) -> Lease {
        if let lease = lent[thread] { return lease }
        let lease = Lease()
        lent[thread] = lease
        return lease
    }

    /// The lease's connection, taken from the idle ones (or opened) at its
    /// first read, in a read transaction when a scope asks for one.
    private func connection(for lease: Lease) throws -> Database {
        let database: Database
        if let held = lease.database {
            database = held
        } else if let ready = mutex.withLock({ idle.popLast() }) {
            database = ready
        } else if let lending, lending.tryLock() {
            database = writer
            lease.holdsWriter = true
        } else {
            database = try writer.openReader()
            mutex.withLock { open[ObjectIdentifier(database)] = database }
        }
        lease.database = database
        if lease.scopes > 0 && !lease.inTransaction {
            try database.execute("BEGIN")
            lease.inTransaction = true
        }
        return database
    }

    /// Ends the thread's lease: its connection goes back to the idle ones,
    /// or closes when enough are idle or the pool is closed.
    private func giveBack(_ lease: Lease, of thread: pthread_t) {
        let database = lease.database
        database?.finishReading()
        lease.database = nil
        if lease.holdsWriter {
            lease.holdsWriter = false
            mutex.withLock { lent[thread] = nil }
            lending?.unlock()
            return
        }
        let closing: Database? = mutex.withLock {
            lent[thread] = nil
            guard let database else { return nil }
            if !isClosed && idle.count < capacity {
                idle.append(database)
                return nil
            }
            retire(database)
            return database
        }
        _ = closing  // the last reference: it closes here, outside the mutex
    }

    /// Forgets a connection about to close. Under the mutex.
    private func retire(_ database: Database) {
        retiredStatements += database.statementsStarted
        open[ObjectIdentifier(database)] = nil
    }
}
