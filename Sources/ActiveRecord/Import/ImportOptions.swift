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

    /// What importing a to-many relationship does to the objects already in
    /// it: `.additive` (the default, MagicalRecord's) keeps them.
    public var toManyMode: ToManyMode = .additive
    /// Match JSON keys to properties ignoring case, `_` and `-`:
    /// `last_name` and `LastName` both find `lastName`.
    public var normalizesKeys = false
    /// How many top-level objects share one uniquing query.
    public var batchSize = 1_000
    /// Called after each batch with (objects done, objects in all).
    public var progress: (@Sendable (Int, Int) -> Void)?

    /// MagicalRecord's behaviour: additive to-manys, exact keys, batches of
    /// 1,000, no progress callback.
    ///
    /// ```swift
    /// var options = ImportOptions()
    /// options.normalizesKeys = true       // "last_name" fills lastName
    /// options.toManyMode = .replacing
    /// let people = try Person.import(fromArray: json, options: options)
    /// ```
    public init() {}
}

/// Hooks a managed object subclass can adopt to take part in its import,
/// as MagicalRecord's `shouldImport:`, `willImport:`, `didImport:` and
/// `import<Key>:` methods do.
public protocol ImportHooks: AnyObject {
    /// Return false to skip this data; a newly created object is removed.
    func shouldImport(_ data: JSON) -> Bool
    /// Called before `data` is imported into this object (which may be new),
    /// once `shouldImport(_:)` accepted it.
    func willImport(_ data: JSON)
    /// Called after `data`'s attributes and relationships were imported into
    /// this object.
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
    /// What was wrong: `cannot import a string "abc" into Integer 16
    /// attribute 'age'`.
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
    /// `mappedKeyName`: the JSON key (or dotted key path) a property reads,
    /// instead of its own name; `mappedKeyName.1` … `mappedKeyName.9` are
    /// tried next.
    public static let mappedKeyName = "mappedKeyName"
    /// `relatedByAttribute`: on an entity or a relationship, the attribute
    /// that identifies an object in imported data (default `<entity>ID`,
    /// first letter lowercased, as `personID`).
    public static let relatedByAttribute = "relatedByAttribute"
    /// `dateFormat`: on a Date attribute, the date format of its JSON
    /// strings (``defaultDateFormat`` when absent), or ``unixTime``.
    public static let dateFormat = "dateFormat"
    /// `useDefaultValueWhenNotPresent`: on an attribute, `YES` sets the
    /// attribute's default value when its key is absent from the JSON
    /// (otherwise the attribute is left as it was).
    public static let useDefaultValueWhenNotPresent = "useDefaultValueWhenNotPresent"
    /// The JSON key naming the concrete entity for an abstract destination.
    public static let entityKey = "entityKey"
    /// MagicalRecord's default date format, `yyyy-MM-dd'T'HH:mm:ssz`; ISO 8601
    /// strings with fractional seconds or a `Z` are accepted too.
    public static let defaultDateFormat = "yyyy-MM-dd'T'HH:mm:ssz"
    /// `UnixTime` as a `dateFormat`: the JSON holds milliseconds since 1970.
    public static let unixTime = "UnixTime"
}
