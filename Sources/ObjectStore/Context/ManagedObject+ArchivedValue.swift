import Foundation
import Predicates

extension ManagedObject {
    /// The decoded value of a binary or transformable attribute whose bytes
    /// are an `NSKeyedArchiver` archive or a property list; nil when the
    /// attribute is null or its bytes are neither (see
    /// ``ArchivedObject/init(decoding:)``).
    ///
    /// ```swift
    /// let tags = note.archivedValue(forKey: "tags")   // ["work", "urgent"]
    /// print(tags?.json ?? "null")
    /// ```
    ///
    /// A damaged archive is an ``ArchivedObject/error(_:)`` saying what is
    /// wrong, never a failure. As with ``attributeValue(forKey:)``,
    /// naming an attribute the entity does not have stops the program.
    public func archivedValue(forKey key: String) -> ArchivedObject? {
        guard case .data(let data) = attributeValue(forKey: key) else { return nil }
        return ArchivedObject(decoding: data)
    }
}
