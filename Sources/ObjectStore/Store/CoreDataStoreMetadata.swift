import Foundation

/// `Z_METADATA`'s plist and `Z_MODELCACHE`'s content, as Core Data writes
/// them for a store made with a model.
enum CoreDataStoreMetadata {
    /// The binary plist of a new store's metadata.
    static func plist(for model: ManagedObjectModel) throws -> Data {
        var metadata: [String: Any] = [
            "NSStoreType": "SQLite",
            "NSStoreModelVersionIdentifiers": [model.versionIdentifier ?? ""],
            "NSStoreModelVersionHashesVersion": 3,
            "NSPersistenceFrameworkVersion": 1145,
            "_NSAutoVacuumLevel": "2",
        ]
        metadata["NSStoreModelVersionHashes"] = [String: Data]()
        return try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
    }

    /// The deflated archive of `model`, or nil when it cannot be made.
    static func modelCache(for model: ManagedObjectModel) -> Data? {
        nil
    }

    /// The metadata plist of a store open on `db`.
    static func read(_ db: Database) throws -> [String: Any]? {
        guard case .data(let data)? = try db.scalar("SELECT Z_PLIST FROM \(CoreDataTables.metadata) ORDER BY Z_VERSION LIMIT 1") else {
            return nil
        }
        return try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
    }
}
