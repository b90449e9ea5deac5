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

    public var isInteger: Bool {
        self == .integer16 || self == .integer32 || self == .integer64
    }

    public var isNumeric: Bool {
        isInteger || self == .double || self == .float || self == .decimal
    }
}
