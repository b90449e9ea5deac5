import Foundation
import Predicates

/// A model that cannot be resolved, loaded, migrated, or a value that
/// cannot be converted to an attribute's type.
///
/// ```swift
/// do { _ = try ManagedObjectModel(contentsOf: url) }
/// catch let error as ModelError { print(error) }
/// // People.xcdatamodel/contents:12: attribute 'age' has unknown attributeType 'Integer 12'
/// ```
///
/// `message` is the bare message; `description` prefixes it with the file
/// and line when the error comes from a file.
public struct ModelError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What is wrong, without the file and line (see `description`).
    public let message: String
    /// The file the error was found in, as a short display path
    /// (`People.xcdatamodel/contents`).
    public internal(set) var file: String?
    /// The 1-based line of the element the error is about.
    public internal(set) var line: Int?
    /// What the error is about, so that a loader can point at its element.
    var subject: Subject?

    struct Subject: Equatable, Sendable {
        var entity: String
        var property: String?
    }

    /// An error saying `message`, at no particular place.
    public init(_ message: String) { self.message = message }

    /// Errors are equal when they say the same thing at the same place.
    public static func == (a: ModelError, b: ModelError) -> Bool {
        a.message == b.message && a.file == b.file && a.line == b.line
    }

    init(_ message: String, entity: String, property: String? = nil) {
        self.message = message
        self.subject = Subject(entity: entity, property: property)
    }

    /// The message after the file and line, with control characters
    /// escaped (see `TerminalText`): a model's names and values come from
    /// its file.
    public var description: String {
        let text = switch (file, line) {
        case let (file?, line?): "\(file):\(line): \(message)"
        case let (file?, nil): "\(file): \(message)"
        case let (nil, line?): "line \(line): \(message)"
        case (nil, nil): message
        }
        return TerminalText.escaped(text)
    }

    func located(file: String?, line: Int?) -> ModelError {
        var copy = self
        copy.file = file
        if line != nil { copy.line = line }
        return copy
    }

    // MARK: Resolution

    static func duplicateEntity(_ name: String) -> ModelError {
        ModelError("duplicate entity '\(name)'", entity: name)
    }
    static func unknownParent(entity: String, parent: String) -> ModelError {
        ModelError("entity '\(entity)' names unknown parent entity '\(parent)'", entity: entity)
    }
    static func inheritanceCycle(_ entity: String) -> ModelError {
        ModelError("entity '\(entity)' inherits from itself", entity: entity)
    }
    static func duplicateProperty(entity: String, property: String) -> ModelError {
        ModelError("entity '\(entity)' has property '\(property)' twice", entity: entity, property: property)
    }
    static func unknownDestination(entity: String, relationship: String, destination: String) -> ModelError {
        ModelError(
            "relationship '\(entity).\(relationship)' names unknown destination entity '\(destination)'",
            entity: entity, property: relationship)
    }
    static func unknownInverse(entity: String, relationship: String, inverse: String) -> ModelError {
        ModelError(
            "relationship '\(entity).\(relationship)' names unknown inverse '\(inverse)'",
            entity: entity, property: relationship)
    }
    static func inverseMismatch(entity: String, relationship: String, inverse: String, destination: String)
        -> ModelError
    {
        ModelError(
            "relationship '\(entity).\(relationship)' names inverse '\(destination).\(inverse)', "
                + "which does not point back to '\(entity)'",
            entity: entity, property: relationship)
    }
    static func unknownConstraintProperty(entity: String, property: String) -> ModelError {
        ModelError(
            "uniqueness constraint of entity '\(entity)' names unknown property '\(property)'",
            entity: entity)
    }
    static func unknownIndexProperty(entity: String, index: String, property: String) -> ModelError {
        ModelError(
            "fetch index '\(index)' of entity '\(entity)' names unknown property '\(property)'",
            entity: entity)
    }
    /// A name no Core Data model can hold (see ``ModelName``), shown
    /// escaped and, when long, cut.
    static func invalidName(_ name: String, what: String, entity: String, property: String?, problem: String) -> ModelError {
        let owner: String
        switch (what, property) {
        case ("entity", _): owner = ""
        case ("property", _): owner = ""
        case (_, let property?): owner = " of '\(shownName(entity)).\(shownName(property))'"
        case (_, nil): owner = " of entity '\(shownName(entity))'"
        }
        let subject = what == "property" ? "\(shownName(entity)).\(shownName(name))" : shownName(name)
        return ModelError("\(what) '\(subject)'\(owner) is not a valid Core Data name: \(problem)",
                          entity: entity, property: property)
    }

    /// A name read from a file as a message shows it: control characters
    /// escaped, and no longer than 80 characters.
    static func shownName(_ name: String) -> String {
        let escaped = TerminalText.escaped(name)
        guard escaped.count > 80 else { return escaped }
        return String(escaped.prefix(80)) + "…"
    }
    static func unknownConfigurationEntity(configuration: String, entity: String) -> ModelError {
        ModelError("configuration '\(configuration)' names unknown entity '\(entity)'")
    }
    static func unknownFetchedPropertyEntity(entity: String, property: String, destination: String) -> ModelError {
        ModelError(
            "fetched property '\(entity).\(property)' names unknown entity '\(destination)'",
            entity: entity, property: property)
    }
    static func invalidRegularExpression(entity: String, attribute: String, pattern: String) -> ModelError {
        ModelError(
            "attribute '\(entity).\(attribute)' has invalid regular expression '\(pattern)'",
            entity: entity, property: attribute)
    }

    static func undefinedNotTransient(entity: String, attribute: String) -> ModelError {
        ModelError(
            "attribute '\(entity).\(attribute)' has type Undefined, which only a transient attribute may have; "
                + "give it a type or make it transient",
            entity: entity, property: attribute)
    }
    static func compositeTooDeep(entity: String, attribute: String) -> ModelError {
        ModelError("composite attribute '\(entity).\(attribute)' nests too deep", entity: entity, property: attribute)
    }
    static func compositeElementType(entity: String, attribute: String, type: AttributeType) -> ModelError {
        ModelError("composite element '\(entity).\(attribute)' has type \(type.rawValue), which a composite cannot hold",
                   entity: entity, property: attribute.split(separator: ".").first.map(String.init))
    }

    // MARK: Loading

    static func malformedXML(_ reason: String) -> ModelError {
        ModelError("malformed XML: \(reason)")
    }
    static func missingName(_ element: String) -> ModelError {
        ModelError("\(element) has no name")
    }
    static func missingAttribute(element: String, name: String, attribute: String) -> ModelError {
        ModelError("\(element) '\(name)' has no \(attribute)")
    }
    static func unknownAttributeType(attribute: String, type: String) -> ModelError {
        ModelError("attribute '\(attribute)' has unknown attributeType '\(type)'")
    }
    static func unknownDeleteRule(relationship: String, rule: String) -> ModelError {
        ModelError("relationship '\(relationship)' has unknown deletionRule '\(rule)'")
    }
    static func invalidNumber(element: String, name: String, attribute: String, text: String) -> ModelError {
        ModelError("\(element) '\(name)' has \(attribute) '\(text)', which is not a number")
    }
    static func invalidDefault(attribute: String, type: AttributeType, text: String) -> ModelError {
        ModelError("attribute '\(attribute)' has default value '\(text)', which is not a valid \(type.rawValue)")
    }
    static func misplaced(element: String, expectedParent: String) -> ModelError {
        ModelError("<\(element)> must be inside <\(expectedParent)>")
    }
    static func noModel(_ path: String) -> ModelError {
        ModelError("no model found at '\(path)'")
    }
    static func oldBinaryModel(_ path: String) -> ModelError {
        ModelError("'\(path)' is an old binary model (Xcode 3's 'elements' file, no 'contents'): "
                   + "open and save it once in a current Xcode")
    }
    static func unreadable(_ path: String, _ reason: String) -> ModelError {
        ModelError("cannot read '\(path)': \(reason)")
    }
    static func invalidArchive(_ reason: String) -> ModelError {
        ModelError("invalid model archive: \(reason)")
    }

    // MARK: Values

    static func badDefault(entity: String, attribute: String, reason: String) -> ModelError {
        ModelError("\(entity).\(attribute): its default value does not fit: \(reason)")
    }
    static func cannotConvert(_ value: Value, to type: AttributeType) -> ModelError {
        ModelError("cannot convert \(value.modelText) to \(type.rawValue)")
    }
    static func outOfRange(_ value: Value, for type: AttributeType) -> ModelError {
        ModelError("\(value.modelText) is out of range for \(type.rawValue)")
    }

    // MARK: Migration

    static func cannotMigrate(_ reason: String) -> ModelError {
        ModelError("cannot infer a migration: \(reason)")
    }
}
