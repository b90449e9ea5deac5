import Foundation

/// Reading and writing `Z_METADATA`'s plist and `Z_MODELCACHE` in a store.
extension CoreDataMetadata {
    /// The binary plist of a new store's metadata (see
    /// ``CoreDataMetadata/plist(for:identifiers:)``).
    static func binaryPlist(for model: ManagedObjectModel) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: plist(for: model), format: .binary, options: 0)
    }

    /// The model a Core Data store keeps in `Z_MODELCACHE`; an error that
    /// says what to give instead when it keeps none.
    static func storedModel(_ db: Database) throws -> ManagedObjectModel {
        var cache: Data?
        if try db.tableExists(CoreDataTables.modelCache),
           case .data(let data)? = try db.scalar("SELECT Z_CONTENT FROM \(CoreDataTables.modelCache) LIMIT 1"), !data.isEmpty {
            cache = data
        }
        guard let cache else {
            throw StoreError(.modelMismatch, """
                '\(db.path)' is a Core Data store that keeps no model (no Z_MODELCACHE): open it with the model \
                it was made with (the app's .xcdatamodeld, .momd or .mom; in the shell, --model)
                """)
        }
        return try model(fromCache: cache)
    }

    static func model(fromCache cache: Data) throws -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(modelCache: cache)
        } catch let error as ModelError {
            throw StoreError(.modelMismatch, "the model the store keeps cannot be read: \(error.message)")
        }
    }

    /// The metadata plist of a store open on `db`.
    static func read(_ db: Database) throws -> [String: Any]? {
        guard case .data(let data)? = try db.scalar("SELECT Z_PLIST FROM \(CoreDataTables.metadata) ORDER BY Z_VERSION LIMIT 1") else {
            return nil
        }
        // mrq's own reader: Foundation's crashes on some damaged binary plists.
        do {
            return try KeyedArchive.propertyList(data) as? [String: Any]
        } catch let error as KeyedArchiveError {
            throw StoreError(.corrupt, "the store's Z_METADATA plist is damaged: \(error.description)")
        }
    }
}
