import Foundation
import ObjectStore

/// How an import treats what it reads.
public struct ImportOptions: Sendable {
    /// What importing a to-many relationship does to its current contents.
    public enum ToManyMode: Sendable {
        /// Add the imported objects, keep the others (MagicalRecord).
        case additive
        /// Make the relationship exactly the imported objects (RZVinyl).
        case replacing
    }

    public var toManyMode: ToManyMode = .additive
    /// Match JSON keys to properties ignoring case, `_` and `-`:
    /// `last_name` and `LastName` both find `lastName`.
    public var normalizesKeys = false
    /// How many top-level objects share one uniquing query.
    public var batchSize = 1_000
    /// Called after each batch with (objects done, objects in all).
    public var progress: (@Sendable (Int, Int) -> Void)?

    public init() {}
}

/// Hooks a managed object subclass can adopt to take part in its import,
/// as MagicalRecord's `shouldImport:`, `willImport:`, `didImport:` and
/// `import<Key>:` methods do.
public protocol ImportHooks: AnyObject {
    /// Return false to skip this data; a newly created object is removed.
    func shouldImport(_ data: JSON) -> Bool
    func willImport(_ data: JSON)
    func didImport(_ data: JSON)
    /// Return true when you imported `value` for `key` yourself.
    func importValue(_ value: JSON, forKey key: String) -> Bool
}

extension ImportHooks {
    public func shouldImport(_ data: JSON) -> Bool { true }
    public func willImport(_ data: JSON) {}
    public func didImport(_ data: JSON) {}
    public func importValue(_ value: JSON, forKey key: String) -> Bool { false }
}

/// A value the import could not use, with its place in the JSON.
public struct ImportError: Error, CustomStringConvertible {
    public let message: String
    /// Where in the input: `$[3].department.name`.
    public let path: String

    public var description: String { "\(path): \(message)" }

    /// The same error one level up: `prefix` is the key or index, or `$`,
    /// that leads from there to where the error's path starts.
    func under(_ prefix: String) -> ImportError {
        ImportError(message: message, path: prefix + path)
    }
}

/// The `userInfo` keys MagicalRecord's import reads.
public enum ImportKey {
    public static let mappedKeyName = "mappedKeyName"
    public static let relatedByAttribute = "relatedByAttribute"
    public static let dateFormat = "dateFormat"
    public static let useDefaultValueWhenNotPresent = "useDefaultValueWhenNotPresent"
    /// The JSON key naming the concrete entity for an abstract destination.
    public static let entityKey = "entityKey"
    public static let defaultDateFormat = "yyyy-MM-dd'T'HH:mm:ssz"
    public static let unixTime = "UnixTime"
}
