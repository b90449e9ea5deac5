import Foundation

extension MigrationPreview {
    /// What migrating the store on `db` from `old` to `new` would do;
    /// refused, naming the store, when it cannot be inferred.
    package static func inferred(_ db: MigrationConnection, old: ManagedObjectModel, new: ManagedObjectModel) throws
        -> MigrationPreview
    {
        do {
            return try MigrationPreview.make(db, old: old, new: new)
        } catch let error as ModelError {
            throw StoreError(.modelMismatch, "'\(db.path)' was made with a different model, and \(error.message)")
        }
    }

    /// Refuses what the options do not allow: any migration unless asked
    /// for (`migratesAutomatically`), one that drops data unless that is
    /// asked for too, and an earlier version of the store's own model
    /// always; `path` names the store.
    package func check(of path: String, migratesAutomatically: Bool, allowsDataLoss: Bool) throws {
        let preview = self
        if preview.isEarlierVersion {
            throw StoreError(.modelMismatch, MigrationPreview.earlierVersionMessage(path, preview), migration: preview)
        }
        guard migratesAutomatically else {
            throw StoreError(.modelMismatch, MigrationPreview.notAskedMessage(path, preview, hint: "PersistentStoreOptions.migratesAutomatically"),
                             migration: preview)
        }
        if preview.dropsData && !allowsDataLoss {
            throw StoreError(.modelMismatch,
                             MigrationPreview.dropsDataMessage(path, preview, hint: "PersistentStoreOptions.allowsMigrationDataLoss"),
                             migration: preview)
        }
    }
}
