import Foundation

/// The numbers Core Data archives for attribute types and delete rules,
/// and the value classes it names.
enum CoreDataCodes {
    /// mrq's type for an `NSAttributeType` number; nil for one mrq has no
    /// type for (a newer Core Data's).
    static func attributeType(_ code: Int) -> AttributeType? {
        AttributeType(coreDataAttributeType: code)
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
        case .transformable, .objectID, .undefined, .composite: nil
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
