import Foundation
import Predicates

/// The type of an attribute, as Core Data names them.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binary = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    /// Stored as opaque data.
    case transformable = "Transformable"
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
