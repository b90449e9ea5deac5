@testable import ObjectStore

extension PersistentStoreCoordinator {
    /// The first store, for tests that look inside a SQLite store (its
    /// connections, its SQL); the coordinator itself names no concrete
    /// store.
    var store: SQLiteStore {
        guard let sqlite = persistentStores.first as? SQLiteStore else {
            preconditionFailure("the test's coordinator has no SQLite store first")
        }
        return sqlite
    }
}
