import Foundation

/// A Swift value that can fill a placeholder (`%@`, `%d`, `%K`…) of a
/// predicate format: every ``PredicateConstant`` (numbers, strings, dates,
/// data, UUIDs, URLs, decimals, booleans, managed objects, object IDs and
/// their optionals), arrays and sets of them (for `IN %@`), and
/// ``FormatArgument`` itself.
///
/// ```swift
/// let minAge = 18, names: Set = ["Ada", "Grace"]
/// let p = try Predicate(format: "age >= %d AND FirstName IN %@", minAge, names)
/// ```
///
/// Every API that takes a format string takes these; literals, `nil`,
/// `.keyPath("name")` and `.array([…])` keep working through
/// ``FormatArgument``'s literal forms. A call that mixes variables with
/// those forms spells them out: `FormatArgument.keyPath("name")`.
public protocol PredicateArgument {
    /// The argument this value stands for.
    var formatArgument: FormatArgument { get }
}

/// One thing a predicate can compare with, as a constant: a value
/// (``PredicateValue``) or an object (a managed object or an object ID,
/// which the store module makes constants). What
/// `findFirst(byAttribute:withValue:)` and the members of an `IN`
/// collection take.
///
/// ```swift
/// let p = try Predicate(format: "department IN %@", [sales, support])
/// ```
public protocol PredicateConstant: PredicateArgument {
    /// The constant as an expression: `.constant(value)` for a value, an
    /// object reference (``ObjectReference``) for an object.
    var predicateExpression: Expression { get }
}

/// A single Swift value that can be compared in a predicate or stored in
/// an attribute.
public protocol PredicateValue: PredicateConstant {
    /// The value as the predicate language holds it.
    var predicateValue: Value { get }
}

extension PredicateConstant {
    public var formatArgument: FormatArgument {
        let expression = predicateExpression
        if case .constant(let value) = expression.kind { return .value(value) }
        return .expression(expression)
    }
}

extension PredicateValue {
    public var predicateExpression: Expression { .constant(predicateValue) }
}

extension FormatArgument: PredicateArgument {
    public var formatArgument: FormatArgument { self }
}

extension Value: PredicateValue {
    public var predicateValue: Value { self }
}

extension Bool: PredicateValue {
    public var predicateValue: Value { .bool(self) }
}

extension String: PredicateValue {
    public var predicateValue: Value { .string(self) }
}

extension Substring: PredicateValue {
    public var predicateValue: Value { .string(String(self)) }
}

extension Double: PredicateValue {
    public var predicateValue: Value { .double(self) }
}

extension Float: PredicateValue {
    public var predicateValue: Value { .double(Double(self)) }
}

extension Decimal: PredicateValue {
    public var predicateValue: Value { .decimal(self) }
}

extension Date: PredicateValue {
    public var predicateValue: Value { .date(self) }
}

extension Data: PredicateValue {
    public var predicateValue: Value { .data(self) }
}

extension UUID: PredicateValue {
    public var predicateValue: Value { .uuid(self) }
}

extension URL: PredicateValue {
    public var predicateValue: Value { .url(self) }
}

/// Integers of every width: an `int` when it fits in 64 bits, an exact
/// decimal otherwise (a `UInt64` above `Int64.max`).
extension PredicateValue where Self: BinaryInteger {
    public var predicateValue: Value {
        if let exact = Int64(exactly: self) { return .int(exact) }
        return .decimal(Decimal(string: String(self)) ?? 0)
    }
}

extension Int: PredicateValue {}
extension Int8: PredicateValue {}
extension Int16: PredicateValue {}
extension Int32: PredicateValue {}
extension Int64: PredicateValue {}
extension UInt: PredicateValue {}
extension UInt8: PredicateValue {}
extension UInt16: PredicateValue {}
extension UInt32: PredicateValue {}
extension UInt64: PredicateValue {}

/// `nil` compares as the predicate language's `nil`: `department == %@`
/// with a nil department is `department == nil`.
extension Optional: PredicateArgument where Wrapped: PredicateConstant {}

extension Optional: PredicateConstant where Wrapped: PredicateConstant {
    public var predicateExpression: Expression { self?.predicateExpression ?? .constant(.null) }
}

extension Optional: PredicateValue where Wrapped: PredicateValue {
    public var predicateValue: Value { self?.predicateValue ?? .null }
}

/// A collection, for `IN %@`, `ANY … IN %@` and the like.
extension Array: PredicateArgument where Element: PredicateConstant {
    public var formatArgument: FormatArgument { FormatArgument(collection: self) }
}

extension Set: PredicateArgument where Element: PredicateConstant {
    public var formatArgument: FormatArgument { FormatArgument(collection: self) }
}

extension ArraySlice: PredicateArgument where Element: PredicateConstant {
    public var formatArgument: FormatArgument { FormatArgument(collection: self) }
}

extension FormatArgument {
    /// A list for `IN %@`: `.array` of its values, or an aggregate
    /// expression when it holds objects.
    init(collection: some Sequence<some PredicateConstant>) {
        let expressions = collection.map(\.predicateExpression)
        var values: [Value] = []
        values.reserveCapacity(expressions.count)
        for expression in expressions {
            guard case .constant(let value) = expression.kind else {
                self = .expression(Expression(.aggregate(expressions)))
                return
            }
            values.append(value)
        }
        self = .array(values)
    }
}
