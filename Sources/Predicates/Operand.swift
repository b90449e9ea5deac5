import Foundation

/// An object predicates can read keys from; the store's managed objects
/// conform.
///
/// ```swift
/// final class Person: PredicateObject {
///     var age = 30
///     var children: [Person] = []
///     func predicateValue(forKey key: String) throws -> Operand {
///         switch key {
///         case "age": return .value(.int(Int64(age)))
///         case "children": return .collection(children.map { .object($0) })
///         default: throw EvaluationError(message: "no key \(key)")
///         }
///     }
/// }
/// ```
///
/// Return `.value` for attributes, `.object` (or `.value(.null)`) for
/// to-one relationships and `.collection` for to-many ones.
public protocol PredicateObject: AnyObject {
    /// The value of `key` on this object: Key-Value Coding's
    /// `value(forKey:)` as a predicate sees it. Throw an ``EvaluationError``
    /// for a key the object does not have.
    func predicateValue(forKey key: String) throws -> Operand

    /// Answers `FUNCTION(SELF, 'selector', arguments…)`. The default throws
    /// "does not respond to".
    func predicateInvoke(selector: String, arguments: [Operand]) throws -> Operand
}

extension PredicateObject {
    public func predicateInvoke(selector: String, arguments: [Operand]) throws -> Operand {
        throw EvaluationError(message: "\(type(of: self)) does not respond to '\(selector)'")
    }
}

/// What an expression evaluates to: a scalar, an object, or a collection
/// (a to-many relationship, an aggregate `{…}`, a collection operator's
/// union).
public enum Operand: CustomStringConvertible {
    /// A scalar: an attribute's value, a constant, or `.null`.
    case value(Value)
    /// An object whose keys can be read: a managed object, a to-one
    /// relationship's destination, a dictionary.
    case object(any PredicateObject)
    /// Several operands: a to-many relationship, an aggregate `{…}`, the
    /// union a collection operator returns.
    case collection([Operand])

    /// A dictionary as an object: keys read its entries.
    public static func dictionary(_ entries: [String: Value]) -> Operand {
        .object(DictionaryObject(entries.mapValues { .value($0) }))
    }

    /// A dictionary of operands (nested objects, collections) as an object.
    public static func dictionary(_ entries: [String: Operand]) -> Operand {
        .object(DictionaryObject(entries))
    }

    /// A collection of plain values.
    public static func values(_ values: [Value]) -> Operand { .collection(values.map { .value($0) }) }

    /// The scalar, when this is one.
    public var scalar: Value? {
        if case .value(let v) = self { return v }
        return nil
    }

    /// True for `.value(.null)`.
    public var isNull: Bool {
        if case .value(.null) = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .value(let v): return Printer.format(Expression(.constant(v)))
        case .object(let o): return "<\(type(of: o))>"
        case .collection(let items): return "{" + items.map(\.description).joined(separator: ", ") + "}"
        }
    }
}

/// A `[String: Operand]` read through ``PredicateObject``; missing keys
/// read as null.
public final class DictionaryObject: PredicateObject {
    /// The dictionary's entries, by key.
    public let entries: [String: Operand]

    /// Wraps `entries`; `Operand.dictionary(_:)` does this for you.
    ///
    /// ```swift
    /// let row = DictionaryObject(["age": .value(40), "name": .value("Ada")])
    /// let p = try Predicate(format: "age > 30")
    /// try Evaluator().evaluate(p, on: row)   // true
    /// ```
    public init(_ entries: [String: Operand]) {
        self.entries = entries
    }

    /// The entry for `key`, or `.value(.null)` when there is none (as
    /// `NSDictionary` answers `value(forKey:)`).
    public func predicateValue(forKey key: String) throws -> Operand {
        entries[key] ?? .value(.null)
    }
}
