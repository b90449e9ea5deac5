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
    /// It lives in the `ObjectStorePostgres` library (which links libpq):
    /// a program that links the library opens PostgreSQL stores, by this
    /// type or by a `postgres://` URL (`PersistentStoreType.forURL`).
    public static let postgres = StoreEngines.register(PostgresEngine(), for: PersistentStoreType(engine: "postgres"))
}

/// Called when the program loads (CPostgresEngine's constructor): the
/// engine is registered as soon as ObjectStorePostgres is linked, so a
/// `postgres://` URL opens without `.postgres` being named first.
@_cdecl("mrq_postgres_register_engine")
func registerPostgresEngine() {
    _ = PersistentStoreType.postgres
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

    func storedModel(at url: URL) throws -> ManagedObjectModel? {
        try PostgresSchema.storedModel(PostgresConnection(url.absoluteString))
    }

    func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview? {
        try PostgresSchema.migrationPreview(PostgresConnection(url.absoluteString), model: model)
    }
}
