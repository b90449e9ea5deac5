import Foundation
import Predicates

/// Connects contexts to the persistent store of a model.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addSQLiteStore(at: URL(fileURLWithPath: "people.sqlite"))
/// let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
/// ```
public final class PersistentStoreCoordinator: @unchecked Sendable {
    public let model: ManagedObjectModel
    private let lock = NSLock()
    private var _store: SQLiteStore?

    public init(model: ManagedObjectModel) {
        self.model = model
    }

    /// Adds a SQLite store at `url`, or in memory when `url` is nil.
    /// Migrates the store when the model changed and the change can be
    /// inferred; with `deleteOnModelMismatch`, deletes and recreates it instead
    /// of failing. `busyTimeout` is how long, in seconds, a save or fetch
    /// waits for another connection's lock before failing with
    /// `StoreError.Kind.locked`.
    @discardableResult
    public func addSQLiteStore(at url: URL?, readOnly: Bool = false, deleteOnModelMismatch: Bool = false,
                               busyTimeout: TimeInterval = 5) throws -> String {
        var options = SQLiteStore.Options()
        options.readOnly = readOnly
        options.deleteOnModelMismatch = deleteOnModelMismatch
        options.busyTimeout = busyTimeout
        let store = try SQLiteStore(path: url?.path ?? ":memory:", model: model, options: options)
        lock.withLock { _store = store }
        return store.identifier
    }

    package var store: SQLiteStore {
        guard let store = lock.withLock({ _store }) else {
            preconditionFailure("the coordinator has no persistent store: call addSQLiteStore first")
        }
        return store
    }

    /// A coordinator for `model` on this coordinator's store, migrated to
    /// it in one transaction. The old coordinator and its contexts must not
    /// be used afterwards.
    public func replacingModel(with model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        let migrated = try SQLiteStore(database: store.database, model: model)
        coordinator.lock.withLock { coordinator._store = migrated }
        return coordinator
    }

    /// The model a store file was made with; nil when there is no such
    /// file or it is not an mrq store.
    public static func storedModel(at url: URL) throws -> ManagedObjectModel? {
        try SQLiteStore.storedModel(atPath: url.path)
    }

    public var hasStore: Bool { lock.withLock { _store != nil } }

    public func removeStores() {
        lock.withLock { _store = nil }
    }
}
