import Foundation
import ObjectStore

extension PostgresStore {
    /// Runs `body`, the reads of a whole-store copy, in one read-only
    /// transaction that sees one snapshot of the database (`REPEATABLE
    /// READ`): what other processes commit meanwhile is either wholly in
    /// the copy or not at all, so no relationship points at a row the
    /// copy missed.
    package func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        try withLock {
            try connection.transaction {
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return try body()
            }
        }
    }

    /// Writes `changes`, the objects of another store, in one transaction
    /// while this store holds no objects; returns their permanent IDs.
    ///
    /// The check and the writes are under an advisory lock of the store's
    /// schema, so two processes copying into one empty store at once copy
    /// once: the second finds the first's objects and is refused, having
    /// written nothing; a copy into another schema of the database goes
    /// on meanwhile.
    package func saveIntoEmptyStore(_ changes: StoreChanges) throws -> PermanentIDs {
        try withLock {
            try connection.transaction {
                try connection.execute(Self.lockCopy)
                let occupied = try mapping.allTables.filter {
                    try connection.scalar("SELECT EXISTS (SELECT 1 FROM \($0.name))") == .bool(true)
                }
                if !occupied.isEmpty {
                    throw StoreError(.misuse, """
                        the PostgreSQL store at \(url?.absoluteString ?? connection.target) already holds objects \
                        (in \(occupied.map(\.name.quoted).joined(separator: ", "))): \
                        copy into an empty one (a new database, or a schema of its own with options=-csearch_path%3DNAME in the URL)
                        """)
                }
                return try PostgresSaveWriter(store: self, changes: changes).write()
            }
        }
    }

    /// Takes the advisory lock held while a store is copied into: "mrqc"
    /// in ASCII and the schema's name, as the schema lock ("mrqs") is.
    private static let lockCopy = "SELECT pg_advisory_xact_lock(\(0x6D72_7163), hashtext(current_schema()))"
}
