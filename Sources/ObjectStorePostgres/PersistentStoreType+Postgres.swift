import Foundation
import ObjectStore

extension PersistentStoreType {
    /// A PostgreSQL database, named by a URL
    /// (`postgres://user@host:5432/database`) or what libpq's `PG*`
    /// environment variables leave out of it, with the password from
    /// `~/.pgpass`: for several processes or machines sharing one store.
    ///
    /// ```swift
    /// import ObjectStorePostgres
    /// PersistentStoreCoordinator.register(PostgresEngine())
    /// try coordinator.addPersistentStore(type: .postgres, at: URL(string: "postgres://app@db.local/people")!)
    /// ```
    ///
    /// It lives in the `ObjectStorePostgres` library (which links libpq):
    /// a program that links the library and registers `PostgresEngine`
    /// opens PostgreSQL stores, by this type or by a `postgres://` URL
    /// (`PersistentStoreType.forURL`).
    public static let postgres = PersistentStoreType(engine: "postgres")
}
