import Foundation
@testable import ObjectStore

extension PersistentStoreCoordinator {
    /// The first store, for tests that look inside a SQLite store (its
    /// connections, its SQL); the coordinator itself names no concrete
    /// store.
    package var store: SQLiteStore {
        guard let sqlite = persistentStores.first as? SQLiteStore else {
            preconditionFailure("the test's coordinator has no SQLite store first")
        }
        return sqlite
    }

    /// A coordinator with the PostgreSQL store at `url`.
    package static func onPostgres(_ model: ManagedObjectModel, url: String, options: PersistentStoreOptions = PersistentStoreOptions())
        throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .postgres, at: URL(string: url)!, options: options)
        return coordinator
    }
}
