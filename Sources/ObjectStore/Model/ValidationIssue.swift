import Foundation
import Predicates

/// One reason an object cannot be saved: a required value is missing, a
/// number is too large, a relationship holds too many objects...
///
/// ```swift
/// let issues = age.validate(.int(150))
/// issues.first?.message   // "age is too large (150 > 120)"
/// ```
///
/// `message` uses the model's localized names when its localization
/// dictionary has them (`Property/age/Entity/Person`), and the localized
/// form of the message itself when there is an `ErrorString/<message>`
/// entry.
public struct ValidationIssue: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// A required attribute or to-one is nil.
        case missingValue
        /// The value is not of the attribute's type.
        case wrongType
        /// A number or date is below the minimum.
        case tooSmall
        /// A number or date is above the maximum.
        case tooLarge
        /// A string or binary value is shorter than the minimum length.
        case tooShort
        /// A string or binary value is longer than the maximum length.
        case tooLong
        /// A string does not match the attribute's regular expression.
        case patternMismatch
        /// A validation predicate of the attribute is false; the index is
        /// the predicate's position in `validationPredicates`.
        case predicateFailed(Int)
        /// A to-many holds fewer objects than its minimum count.
        case tooFewObjects
        /// A to-many holds more objects than its maximum count.
        case tooManyObjects
    }

    /// The name of the entity whose rule was broken.
    public let entity: String
    /// The name of the attribute or relationship at fault.
    public let property: String
    /// Which rule was broken.
    public let kind: Kind
    /// The message for users: `age is too large (150 > 120)`.
    public let message: String

    /// An issue of `property` of `entity`, of `kind`, saying `message`.
    public init(entity: String, property: String, kind: Kind, message: String) {
        self.entity = entity
        self.property = property
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension AttributeDescription {
    /// Checks `value` against this attribute's rules: required, type, minimum
    /// and maximum (value for numbers and dates, length for strings and
    /// binary), the regular expression and the width of integer types.
    /// Returns no issues when the value is fine.
    ///
    /// ```swift
    /// age.validate(.null)        // [age is required] when age is required
    /// age.validate(.int(150))    // [age is too large (150 > 120)]
    /// ```
    ///
    /// Validation predicates are evaluated with the value as SELF; a false
    /// one (or one that does not parse) is reported with
    /// `predicateIssue(at:in:)`. Transient attributes are not checked.
    /// `entity` names the object's entity when it is a sub-entity of the one
    /// declaring the attribute.
    public func validate(_ value: Value, in entity: EntityDescription? = nil) -> [ValidationIssue] {
        guard !isTransient else { return [] }
        // Most values are fine and most attributes have no bounds: say so
        // before building anything.
        if case .null = value {
            if isOptional { return [] }
        } else if minValue == nil && maxValue == nil && regularExpression == nil && validationPredicates.isEmpty
                    && type.accepts(value) {
            return []
        }
        let reporter = IssueReporter(property: self, entity: entity)
        if case .null = value {
            return isOptional ? [] : [reporter.issue(.missingValue, "\(reporter.name) is required")]
        }
        guard type.accepts(value) else {
            if case .int(let i) = value, let range = type.integerRange {
                let (kind, op, bound) = i < range.lowerBound ? (ValidationIssue.Kind.tooSmall, "<", range.lowerBound) : (.tooLarge, ">", range.upperBound)
                return [reporter.issue(kind, "\(reporter.name) is \(kind == .tooSmall ? "too small" : "too large") (\(i) \(op) \(bound))")]
            }
            return [reporter.issue(.wrongType, "\(reporter.name) must be \(type.rawValue), not \(value.kindName)")]
        }
        var issues: [ValidationIssue] = []
        switch value {
        case .int, .double, .decimal, .date:
            let isDate = type == .date
            if let minValue, let order = Self.compare(value, minValue), order < 0 {
                let word = isDate ? "too early" : "too small"
                issues.append(reporter.issue(.tooSmall, "\(reporter.name) is \(word) (\(value.modelPlainText) < \(minValue.modelPlainText))"))
            }
            if let maxValue, let order = Self.compare(value, maxValue), order > 0 {
                let word = isDate ? "too late" : "too large"
                issues.append(reporter.issue(.tooLarge, "\(reporter.name) is \(word) (\(value.modelPlainText) > \(maxValue.modelPlainText))"))
            }
        case .string(let text):
            if minValue != nil || maxValue != nil {  // counting characters walks the string
                issues += lengthIssues(text.count, unit: "characters", reporter)
            }
            if let pattern = regularExpression, let regex = compiledRegularExpression {
                let range = NSRange(text.startIndex..., in: text)
                if regex.firstMatch(in: text, range: range) == nil {
                    issues.append(reporter.issue(.patternMismatch, "\(reporter.name) does not match the pattern '\(pattern)'"))
                }
            }
        case .data(let data):
            issues += lengthIssues(data.count, unit: "bytes", reporter)
        default:
            break
        }
        // Each predicate sees the value as SELF (`SELF BEGINSWITH 'G-'`,
        // `length <= 8`), as Core Data evaluates them.
        for (index, predicate) in compiledValidationPredicates.enumerated() {
            let holds = predicate.flatMap { try? Evaluator().evaluate($0, on: value) } ?? false
            if !holds { issues.append(predicateIssue(at: index, in: entity)) }
        }
        return issues
    }

    /// The issue to report when validation predicate number `index` is false
    /// for a value: its message, localized through `ErrorString/...`.
    public func predicateIssue(at index: Int, in entity: EntityDescription? = nil) -> ValidationIssue {
        let reporter = IssueReporter(property: self, entity: entity)
        let predicate = validationPredicates[index]
        let message = predicate.message.isEmpty
            ? "\(reporter.name) does not satisfy \(predicate.format)" : predicate.message
        return reporter.issue(.predicateFailed(index), message)
    }

    private func lengthIssues(_ length: Int, unit: String, _ reporter: IssueReporter) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if case .int(let min)? = minValue, length < min {
            issues.append(reporter.issue(.tooShort, "\(reporter.name) is too short (\(length) < \(min) \(unit))"))
        }
        if case .int(let max)? = maxValue, length > max {
            issues.append(reporter.issue(.tooLong, "\(reporter.name) is too long (\(length) > \(max) \(unit))"))
        }
        return issues
    }

    /// Orders two numbers or two dates; nil when they cannot be compared.
    static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case let (.date(x), .date(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.int(x), .int(y)): return x < y ? -1 : (x > y ? 1 : 0)
        case let (.decimal(x), .decimal(y)): return x < y ? -1 : (x > y ? 1 : 0)
        default:
            guard let x = a.modelNumber, let y = b.modelNumber else { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }
}

extension RelationshipDescription {
    /// Checks that a relationship holding `count` objects respects its
    /// optionality and its minimum and maximum counts.
    ///
    /// ```swift
    /// people.validateCount(7)   // [people has too many objects (7 > 5)]
    /// department.validateCount(0)  // [department is required] if required
    /// ```
    ///
    /// As in Core Data, optionality is about nil, which a to-many never is:
    /// an empty to-many is fine when it is optional (whatever its minimum)
    /// or has no minimum count (whether optional or not); a required one
    /// with a minimum needs that many. Apple's `minCount` and `maxCount`:
    /// "If you declare a relationship attribute as optional […], the
    /// framework only enforces minCount and maxCount when that attribute is
    /// not nil."
    public func validateCount(_ count: Int, in entity: EntityDescription? = nil) -> [ValidationIssue] {
        guard !isTransient else { return [] }
        let max = isToMany ? maxCount : 1
        let fine = count == 0
            ? isOptional || (isToMany && minCount == 0)
            : !(isToMany && minCount > 0 && count < minCount) && !(max > 0 && count > max)
        if fine { return [] }
        let reporter = IssueReporter(property: self, entity: entity)
        if count == 0 && isToOne {
            return [reporter.issue(.missingValue, "\(reporter.name) is required")]
        }
        var issues: [ValidationIssue] = []
        if isToMany, minCount > 0, count < minCount {
            issues.append(reporter.issue(.tooFewObjects, "\(reporter.name) has too few objects (\(count) < \(minCount))"))
        }
        if max > 0, count > max {
            issues.append(reporter.issue(.tooManyObjects, "\(reporter.name) has too many objects (\(count) > \(max))"))
        }
        return issues
    }
}

/// Names the property and entity of issues, localized through the model.
private struct IssueReporter {
    let entityName: String
    let propertyName: String
    let model: ManagedObjectModel?

    init(property: PropertyDescription, entity: EntityDescription?) {
        let owner = entity ?? property.entity
        entityName = owner?.name ?? ""
        propertyName = property.name
        model = owner?.model
    }

    /// Looked up only when a message is written: most values are valid.
    var name: String {
        model?.localizedName(ofProperty: propertyName, entity: entityName.isEmpty ? nil : entityName) ?? propertyName
    }

    func issue(_ kind: ValidationIssue.Kind, _ message: String) -> ValidationIssue {
        ValidationIssue(
            entity: entityName, property: propertyName, kind: kind,
            message: model?.localizedErrorString(message) ?? message)
    }
}

extension Value {
    /// The value in a message without quotes: `150`, `Ann`, a date in
    /// ISO-8601.
    var modelPlainText: String {
        if case .string(let s) = self { return s }
        return modelText
    }

    var modelNumber: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        case .decimal(let d): NSDecimalNumber(decimal: d).doubleValue
        default: nil
        }
    }
}
