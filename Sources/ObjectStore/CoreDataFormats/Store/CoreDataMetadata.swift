import Foundation

/// The metadata a Core Data SQLite store keeps in `Z_METADATA.Z_PLIST`.
///
/// ```swift
/// let metadata = CoreDataMetadata.plist(for: model)
/// let blob = try PropertyListSerialization.data(
///     fromPropertyList: metadata, format: .binary, options: 0)
/// ```
public enum CoreDataMetadata {
    /// The `NSPersistenceFrameworkVersion` mrq writes: 1145, the newest
    /// version among the real stores studied (iOS's DataUsage, IMODb2 and
    /// NoteStore). Core Data of that version wrote exactly the keys
    /// `plist(for:identifiers:)` gives; newer ones add
    /// `NSPersistenceMaximumFrameworkVersion` and
    /// `NSStoreModelVersionChecksumKey`, so claiming a newer version
    /// would describe a store written differently.
    public static let frameworkVersion = 1145

    /// The metadata dictionary of a Core Data SQLite store built from
    /// `model`, with each value of the type Core Data writes: the store
    /// type and auto-vacuum level as strings, the version numbers as
    /// integers, the hashes as data by entity name, the identifiers as an
    /// array of strings and the digest as base64 text.
    ///
    /// ```swift
    /// CoreDataMetadata.plist(for: model)["NSStoreType"]   // "SQLite"
    /// ```
    ///
    /// `identifiers` defaults to the model's version identifier, or `[""]`
    /// when it has none, as Core Data writes for a model without one.
    public static func plist(for model: ManagedObjectModel, identifiers: [String]? = nil) -> [String: Any] {
        let hashes = model.entityVersionHashesByName
        return [
            "NSStoreType": "SQLite",
            "NSStoreModelVersionHashes": hashes,
            "NSStoreModelVersionIdentifiers": identifiers ?? [model.versionIdentifier ?? ""],
            "NSPersistenceFrameworkVersion": frameworkVersion,
            "NSStoreModelVersionHashesVersion": 3,
            "NSStoreModelVersionHashesDigest": versionHashesDigest(of: hashes).base64EncodedString(),
            "_NSAutoVacuumLevel": "2",
        ]
    }

    /// SHA-512 over each entity name (UTF-8) followed by its hash, in
    /// name order: the digest a store's
    /// `NSStoreModelVersionHashesDigest` holds as base64.
    ///
    /// ```swift
    /// let digest = CoreDataMetadata.versionHashesDigest(of: storedHashes)
    /// ```
    public static func versionHashesDigest(of hashes: [String: Data]) -> Data {
        var bytes: [UInt8] = []
        for name in hashes.keys.sorted(by: VersionHasher.precedes) {
            bytes += name.utf8
            bytes += hashes[name] ?? Data()
        }
        return Data(sha512(bytes))
    }
}
