import Foundation

/// A Swift value that can fill a placeholder (`%@`, `%d`, `%K`…) of a
/// predicate format: every ``PredicateValue`` (numbers, strings, dates,
/// data, UUIDs, URLs, decimals, booleans and their optionals), arrays and
/// sets of them (for `IN %@`), and ``FormatArgument`` itself.
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

/// A single Swift value that can be compared in a predicate or stored in
/// an attribute: what `findFirst(byAttribute:withValue:)` and the members
/// of an `IN` collection take.
public protocol PredicateValue: PredicateArgument {
    /// The value as the predicate language holds it.
    var predicateValue: Value { get }
}

extension PredicateValue {
    public var formatArgument: FormatArgument { .value(predicateValue) }
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

/// `nil` compares as the predicate language's `nil`.
extension Optional: PredicateArgument where Wrapped: PredicateValue {}

extension Optional: PredicateValue where Wrapped: PredicateValue {
    public var predicateValue: Value { self?.predicateValue ?? .null }
}

/// A collection, for `IN %@`, `ANY … IN %@` and the like.
extension Array: PredicateArgument where Element: PredicateValue {
    public var formatArgument: FormatArgument { .array(map(\.predicateValue)) }
}

extension Set: PredicateArgument where Element: PredicateValue {
    public var formatArgument: FormatArgument { .array(map(\.predicateValue)) }
}

extension ArraySlice: PredicateArgument where Element: PredicateValue {
    public var formatArgument: FormatArgument { .array(map(\.predicateValue)) }
}
