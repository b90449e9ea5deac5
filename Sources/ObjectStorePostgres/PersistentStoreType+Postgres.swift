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
    /// try coordinator.addPersistentStore(type: .postgres, at: URL(string: "postgres://app@db.local/people")!)
    /// ```
    ///
    /// It lives in the `ObjectStorePostgres` library (which links libpq);
    /// naming it lets every coordinator of the process open PostgreSQL
    /// stores.
    public static let postgres = StoreEngines.register(PostgresEngine(), for: PersistentStoreType(engine: "postgres"))
}

/// Opens `PostgresStore`s for the coordinator.
struct PostgresEngine: StoreEngine {
    func open(url: URL?, model: ManagedObjectModel, configuration: String?,
              options: PersistentStoreOptions) throws -> any StoreBackend {
        guard let url else { throw StoreError(.misuse, "a PostgreSQL store needs a URL: postgres://user@host:5432/database") }
        return try PostgresStore(url: url, model: model, configuration: configuration, options: options)
    }

    func layout(of store: any PersistentStore) -> SchemaMapping.Layout? {
        (store as? PostgresStore)?.mapping.layout
    }
}
