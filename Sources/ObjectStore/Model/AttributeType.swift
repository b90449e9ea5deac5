import Foundation
import Predicates

/// The type of an attribute, as Core Data names them.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    /// A 16-bit integer (-32768...32767), held as `.int`; Swift's `Int16`.
    case integer16 = "Integer 16"
    /// A 32-bit integer, held as `.int`; Swift's `Int32`.
    case integer32 = "Integer 32"
    /// A 64-bit integer, held as `.int`; Swift's `Int64` or `Int`.
    case integer64 = "Integer 64"
    /// A decimal number, exact to 38 digits, held as `.decimal`; Swift's
    /// `Decimal`. Stored as text so that no digit is lost: comparisons on
    /// it run in memory, and dictionary fetches cannot sum, average or
    /// order it.
    case decimal = "Decimal"
    /// A 64-bit floating-point number, held as `.double`; Swift's `Double`.
    case double = "Double"
    /// A 32-bit floating-point number, held as `.double`; Swift's `Float`.
    case float = "Float"
    /// Text, held as `.string`; Swift's `String`.
    case string = "String"
    /// A Boolean, held as `.bool` (stored as 0 or 1); Swift's `Bool`.
    case boolean = "Boolean"
    /// A point in time, held as `.date` (stored as seconds since 2001, as
    /// Core Data stores it); Swift's `Date`.
    case date = "Date"
    /// Bytes, held as `.data`; Swift's `Data`. Large values can live outside
    /// the row (see `AttributeDescription.allowsExternalBinaryDataStorage`).
    case binary = "Binary"
    /// A UUID, held as `.uuid`; Swift's `UUID`.
    case uuid = "UUID"
    /// A URL, held as `.url`; Swift's `URL`.
    case uri = "URI"
    /// Stored as opaque data.
    case transformable = "Transformable"
    /// An object ID as its URI (`x-coredata://…`), held as `.url`.
    case objectID = "ObjectID"
    /// No declared type: the value is any value. Core Data allows it only
    /// for a transient attribute, which is never stored.
    case undefined = "Undefined"
    /// A group of attributes kept together (Xcode 15, iOS 17): see
    /// `AttributeDescription.elements`. Each element is stored and fetched
    /// as an attribute of its own, named `composite.element`.
    case composite = "Composite"

    /// Whether values of this type are integers.
    public var isInteger: Bool {
        self == .integer16 || self == .integer32 || self == .integer64
    }

    /// Whether values of this type are numbers.
    public var isNumeric: Bool {
        isInteger || self == .double || self == .float || self == .decimal
    }
}
