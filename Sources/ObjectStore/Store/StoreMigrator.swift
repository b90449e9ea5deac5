import Foundation
import Predicates

/// Brings an existing store's schema up to a changed model.
enum StoreMigrator {
    static func migrate(_ db: Database, to model: ManagedObjectModel, mapping: SchemaMapping, readOnly: Bool) throws {
        throw StoreError(.modelMismatch, "the store was made with a different model")
    }
}

extension ManagedObjectModel {
    /// What the store keeps of its model, to plan migrations later.
    var storedArchive: Data { Data() }
}
