import Foundation

/// The numbers Core Data archives for attribute types and delete rules,
/// and the value classes it names.
enum CoreDataCodes {
    /// mrq's type for an `NSAttributeType` number; nil for one mrq has no
    /// type for.
    ///
    /// Two of Core Data's types have no mrq type yet (another change adds
    /// them; this function is where they go):
    /// - 0, *Undefined*: Core Data allows it only on transient attributes,
    ///   which hold any object and store nothing. The nearest honest type
    ///   is Transformable, an opaque value, as the Xcode model reader
    ///   already reads `attributeType="Undefined"`. Written back, it becomes
    ///   1800, so the entity's version hash changes.
    /// - 2100, *Composite* (iOS 17): a composite stores its elements in
    ///   columns of their own; no mrq type stands for it, so it is refused.
    static func attributeType(_ code: Int) -> AttributeType? {
        switch code {
        case 0: .transformable
        case 100: .integer16
        case 200: .integer32
        case 300: .integer64
        case 400: .decimal
        case 500: .double
        case 600: .float
        case 700: .string
        case 800: .boolean
        case 900: .date
        case 1000: .binary
        case 1100: .uuid
        case 1200: .uri
        case 1800: .transformable
        case 2000: .objectID
        default: nil  // 2100 Composite, or a number Core Data does not use
        }
    }

    /// The `NSAttributeType` number for an mrq type.
    static func code(_ type: AttributeType) -> Int {
        switch type {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        }
    }

    /// The readable name of a type number, for errors.
    static func typeName(_ code: Int) -> String {
        switch code {
        case 0: "Undefined"
        case 2100: "Composite"
        default: attributeType(code)?.rawValue ?? "unknown"
        }
    }

    /// `NSAttributeValueClassName` as Core Data sets it for a type
    /// (`+[NSAttributeDescription _classNameForType:]`): none for
    /// Transformable (its custom class, when the model names one, is not
    /// kept by mrq) and ObjectID.
    static func valueClassName(_ type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: "NSNumber"
        case .decimal: "NSDecimalNumber"
        case .string: "NSString"
        case .date: "NSDate"
        case .binary: "NSData"
        case .uuid: "NSUUID"
        case .uri: "NSURL"
        case .transformable, .objectID: nil
        }
    }

    /// `NSDeleteRule`: 0 no action, 1 nullify, 2 cascade, 3 deny.
    static func deleteRule(_ code: Int) -> DeleteRule? {
        switch code {
        case 0: .noAction
        case 1: .nullify
        case 2: .cascade
        case 3: .deny
        default: nil
        }
    }

    static func code(_ rule: DeleteRule) -> Int {
        switch rule {
        case .noAction: 0
        case .nullify: 1
        case .cascade: 2
        case .deny: 3
        }
    }
}
