import Foundation
import Predicates

/// How Xcode's `contents` XML spells values: flags, numbers, defaults and
/// dates (seconds since 2001-01-01, Core Data's reference date).
enum XcodeXML {
    /// `YES` (and `true`, `1`) is true; anything else, or nothing, is false.
    static func flag(_ text: String?) -> Bool {
        guard let text else { return false }
        return AttributeType.parseBoolean(text) ?? false
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// A `defaultValueString` as a value of `type`; nil when the text does
    /// not fit the type. Empty text means no default.
    static func defaultValue(_ text: String, type: AttributeType) -> Value? {
        if text.isEmpty && type != .string { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            if let i = Int64(text.trimmingCharacters(in: .whitespaces)) { return .int(i) }
            if let d = Double(text), d.rounded() == d, let i = Int64(exactly: d) { return .int(i) }
            return nil
        case .double, .float:
            return Double(text.trimmingCharacters(in: .whitespaces)).map(Value.double)
        case .decimal:
            return AttributeType.parseDecimal(text).map(Value.decimal)
        case .string:
            return .string(text)
        case .boolean:
            return AttributeType.parseBoolean(text).map(Value.bool)
        case .date:
            if let seconds = Double(text) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            return ModelDateText.parse(text).map(Value.date)
        case .binary, .transformable:
            return Data(base64Encoded: text).map(Value.data)
        case .uuid:
            return UUID(uuidString: text).map(Value.uuid)
        case .uri, .objectID:
            return URL(string: text).map(Value.url)
        case .undefined:
            return .string(text)
        case .composite:
            return .null  // a composite's defaults are its elements'
        }
    }

    /// The `defaultValueString` Xcode writes for a value (dates go to
    /// `defaultDateTimeInterval` instead).
    static func text(_ value: Value) -> String {
        switch value {
        case .null: ""
        case .bool(let b): b ? "YES" : "NO"
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .decimal(let d): d.description
        case .string(let s): s
        case .date(let d): String(d.timeIntervalSinceReferenceDate)
        case .data(let d): d.base64EncodedString()
        case .uuid(let u): u.uuidString
        case .url(let u): u.absoluteString
        }
    }
}

/// Builds an attribute from the XML attributes of an `<attribute>` element.
struct XcodeAttributeReader {
    let attributes: [String: String]
    let entity: String

    func read() throws -> AttributeDescription {
        guard let name = attributes["name"], !name.isEmpty else {
            throw ModelError.missingName("attribute of entity '\(entity)'")
        }
        let isTransient = XcodeXML.flag(attributes["transient"])
        guard let typeName = attributes["attributeType"] else {
            throw ModelError.missingAttribute(element: "attribute", name: name, attribute: "attributeType")
        }
        // `Undefined` loads whatever its transience: the model says what is
        // wrong with a stored one, naming its entity.
        guard let type = AttributeType(rawValue: typeName) else {
            throw ModelError.unknownAttributeType(attribute: name, type: typeName)
        }
        let attribute = AttributeDescription(
            name: name, type: type, isOptional: XcodeXML.flag(attributes["optional"]), isTransient: isTransient)
        attribute.defaultValue = try defaultValue(name, type)
        (attribute.minValue, attribute.maxValue) = try bounds(name, type)
        attribute.regularExpression = XcodeXML.nonEmpty(attributes["regularExpressionString"])
        attribute.allowsExternalBinaryDataStorage = XcodeXML.flag(attributes["allowsExternalBinaryDataStorage"])
        attribute.preservesValueInHistoryOnDeletion = XcodeXML.flag(attributes["preserveAfterDeletion"])
        attribute.isIndexed = XcodeXML.flag(attributes["indexed"])
        attribute.valueTransformerName = XcodeXML.nonEmpty(attributes["valueTransformerName"])
        attribute.renamingIdentifier = XcodeXML.nonEmpty(attributes["elementID"])
        attribute.versionHashModifier = XcodeXML.nonEmpty(attributes["versionHashModifier"])
        if type == .composite {
            // Its elements come from the model-level `<composite>` of this
            // name, read after the entities.
            attribute.compositeName = XcodeXML.nonEmpty(attributes["composite"])
        }
        return attribute
    }

    private func defaultValue(_ name: String, _ type: AttributeType) throws -> Value {
        if type == .date, let interval = attributes["defaultDateTimeInterval"] {
            guard let seconds = Double(interval) else {
                throw ModelError.invalidNumber(
                    element: "attribute", name: name, attribute: "defaultDateTimeInterval", text: interval)
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        }
        guard let text = attributes["defaultValueString"] else { return .null }
        guard let value = XcodeXML.defaultValue(text, type: type) else {
            throw ModelError.invalidDefault(attribute: name, type: type, text: text)
        }
        if case .int(let i) = value, let range = type.integerRange, !range.contains(i) {
            throw ModelError.invalidDefault(attribute: name, type: type, text: text)
        }
        return value
    }

    /// Minimum and maximum: values for numbers, lengths for strings and
    /// binary data, `min/maxDateTimeInterval` for dates.
    private func bounds(_ name: String, _ type: AttributeType) throws -> (Value?, Value?) {
        func bound(_ key: String) throws -> Value? {
            guard let text = attributes[key], !text.isEmpty else { return nil }
            let value: Value?
            switch type {
            case .integer16, .integer32, .integer64, .string, .binary:
                value = XcodeXML.defaultValue(text, type: .integer64)
            case .double, .float:
                value = XcodeXML.defaultValue(text, type: .double)
            case .decimal:
                value = XcodeXML.defaultValue(text, type: .decimal)
            case .date:
                value = Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
            default:
                return nil  // no bounds for other types
            }
            guard let value else {
                throw ModelError.invalidNumber(element: "attribute", name: name, attribute: key, text: text)
            }
            return value
        }
        if type == .date {
            return (try bound("minDateTimeInterval"), try bound("maxDateTimeInterval"))
        }
        return (try bound("minValueString"), try bound("maxValueString"))
    }
}
