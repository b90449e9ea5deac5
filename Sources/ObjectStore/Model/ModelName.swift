import Foundation
import Predicates

/// The names a Core Data model can give its entities, properties and
/// fetch indexes, checked once when a model is made, whatever it was read
/// from: an Xcode model, a compiled `.mom`, a store's model cache, mrq's
/// stored model, the shell's `entity` statement or the Swift API.
///
/// ```swift
/// ModelName.problem("FirstName")   // nil: a name Core Data accepts
/// ModelName.problem("x\" OR 1=1")  // "it holds '\"'"
/// ```
///
/// Core Data's names are key-value coding keys and Objective-C property
/// names: Xcode's model editor takes a letter or `_` first and letters,
/// digits and `_` after it (Apple's "must begin with a lowercase letter"
/// is a convention its editor warns about, not a rule: real stores have
/// `FirstName`, so case is not checked). Whatever no real model can hold —
/// an empty name, a digit first, whitespace, a quote or other punctuation,
/// a control or formatting character, a name longer than
/// ``maximumLength`` bytes — is refused, so that a name read from someone
/// else's file is only ever a name: in SQL (where it is quoted anyway), in
/// a `.dump` script and on a terminal.
package enum ModelName {
    /// The longest name accepted, in UTF-8 bytes: far past any real
    /// model's (Core Data's own are tens of bytes) and short enough that
    /// an error naming it stays readable.
    package static let maximumLength = 1_024

    /// Why `name` cannot be a Core Data name, or nil when it can be.
    package static func problem(_ name: String) -> String? {
        if isPlainASCII(name) { return nil }
        guard let first = name.unicodeScalars.first else { return "it is empty" }
        guard name.utf8.count <= maximumLength else {
            return "it is \(name.utf8.count) bytes long (at most \(maximumLength))"
        }
        guard isLetter(first) || first == "_" else {
            return first.properties.numericType != nil
                ? "it starts with a digit" : "it starts with \(shown(first))"
        }
        for scalar in name.unicodeScalars.dropFirst() where !(isLetter(scalar) || isDigit(scalar) || isMark(scalar) || scalar == "_") {
            return "it holds \(shown(scalar))"
        }
        return nil
    }

    /// Whether `name` is an ASCII letter or `_` and then ASCII letters,
    /// digits and `_`, at most ``maximumLength`` bytes: what nearly every
    /// real name is, and fine without asking Unicode's tables.
    private static func isPlainASCII(_ name: String) -> Bool {
        var utf8 = name.utf8.makeIterator()
        guard name.utf8.count <= maximumLength, let first = utf8.next(), isASCIILetter(first) || first == UInt8(ascii: "_") else {
            return false
        }
        while let byte = utf8.next() {
            guard isASCIILetter(byte) || byte == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                return false
            }
        }
        return true
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// A character as a message names it: `'"'`, `a space`, `U+001B`.
    private static func shown(_ scalar: Unicode.Scalar) -> String {
        if scalar == " " { return "a space" }
        if TerminalText.isUnsafe(scalar) || scalar.properties.isWhitespace
            || scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .unassigned {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "'\(Character(scalar))'"
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .decimalNumber
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark: return true
        default: return false
        }
    }
}

extension ManagedObjectModel {
    /// Refuses the first name in `entities` that cannot be a Core Data
    /// name (see ``ModelName``): an entity's, a property's (a composite's
    /// elements too), a fetch index's, and the names a relationship or an
    /// entity refers to (destination, inverse, parent).
    static func checkNames(of entities: [EntityDescription]) throws {
        func check(_ name: String, _ what: String, entity: String, property: String? = nil) throws {
            guard let problem = ModelName.problem(name) else { return }
            throw ModelError.invalidName(name, what: what, entity: entity, property: property, problem: problem)
        }
        for entity in entities {
            try check(entity.name, "entity", entity: entity.name)
            if let parent = entity.parentName { try check(parent, "parent entity", entity: entity.name) }
            for property in entity.declaredProperties {
                try check(property.name, "property", entity: entity.name, property: property.name)
                switch property {
                case let attribute as AttributeDescription:
                    var elements = attribute.elements
                    while let element = elements.popLast() {
                        try check(element.name, "composite element", entity: entity.name, property: attribute.name)
                        elements += element.elements
                    }
                case let relationship as RelationshipDescription:
                    try check(relationship.destinationName, "destination entity", entity: entity.name, property: relationship.name)
                    if let inverse = relationship.inverseName {
                        try check(inverse, "inverse relationship", entity: entity.name, property: relationship.name)
                    }
                case let fetched as FetchedPropertyDescription:
                    try check(fetched.destinationName, "destination entity", entity: entity.name, property: fetched.name)
                default:
                    break
                }
            }
            for index in entity.fetchIndexes {
                try check(index.name, "fetch index", entity: entity.name)
            }
        }
    }
}
