import Foundation
import ObjectStore

/// Opens PostgreSQL stores: register it once, when the program starts, and
/// every coordinator opens `postgres://` and `postgresql://` URLs.
///
/// ```swift
/// import ObjectStorePostgres
/// PersistentStoreCoordinator.register(PostgresEngine())
/// try coordinator.addPersistentStore(at: URL(string: "postgres:///people")!)
/// ```
public struct PostgresEngine: StoreEngine {
    /// The engine; it holds nothing, each store its own connections.
    public init() {}

    /// `.postgres`.
    public var storeType: PersistentStoreType { .postgres }

    /// The schemes libpq reads as PostgreSQL's: `postgres` and `postgresql`.
    public var urlSchemes: Set<String> { ["postgres", "postgresql"] }

    /// Connects to the database `url` names and opens its store, creating
    /// or migrating it as `options` allow.
    public func open(url: URL?, model: ManagedObjectModel, configuration: String?,
                     options: PersistentStoreOptions) throws -> OpenedStore {
        guard let url else { throw StoreError(.misuse, "a PostgreSQL store needs a URL: postgres://user@host:5432/database") }
        return OpenedStore(try PostgresStore(url: url, model: model, configuration: configuration, options: options))
    }

    /// The model the database `url` names keeps; nil when it holds no store.
    public func storedModel(at url: URL) throws -> ManagedObjectModel? {
        try PostgresSchema.storedModel(PostgresConnection(url.absoluteString))
    }

    /// What opening the database `url` names with `model` would migrate
    /// and drop; nil when nothing. Reads only.
    public func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview? {
        try PostgresSchema.migrationPreview(PostgresConnection(url.absoluteString), model: model)
    }
}
