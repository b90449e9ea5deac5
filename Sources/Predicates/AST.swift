import Foundation

/// A parsed predicate: a tree of AND, OR, NOT and comparisons.
///
/// ```swift
/// let p = try Predicate(format: "age > %d AND name BEGINSWITH[c] %@", 18, "eng")
/// if case .and(let parts) = p.kind { print(parts.count) }   // 2
/// print(p.format)   // age > 18 AND name BEGINSWITH[c] "eng"
/// ```
///
/// Every node keeps the ``SourceRange`` it was parsed from; `==` and
/// `hash(into:)` ignore ranges, so `try Predicate(format: p.format) == p`.
public struct Predicate: Sendable, Hashable {
    public indirect enum Kind: Sendable, Hashable {
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        case not(Predicate)
        /// Two or more operands; `a AND b AND c` is one node, while
        /// `(a AND b) AND c` nests.
        case and([Predicate])
        /// Two or more operands, flattened like `and`.
        case or([Predicate])
        case comparison(Comparison)
    }

    public var kind: Kind
    public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange = .unknown) {
        self.kind = kind
        self.range = range
    }

    public static func == (lhs: Predicate, rhs: Predicate) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    public static let truePredicate = Predicate(.constant(true))
    public static let falsePredicate = Predicate(.constant(false))
}

/// `lhs op[options] rhs`, optionally quantified with ANY, ALL or NONE.
///
/// ```swift
/// let c = Comparison(.any, .greater, .keyPath(["children", "age"]), .constant(.int(10)))
/// ```
public struct Comparison: Sendable, Hashable {
    /// The quantifier in front of the comparison. `SOME` parses as `.any`.
    public enum Modifier: String, Sendable, Hashable, CaseIterable {
        case direct = "", any = "ANY", all = "ALL", none = "NONE"
    }

    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessEqual = "<="
        case greater = ">"
        case greaterEqual = ">="
        case between = "BETWEEN"
        case `in` = "IN"
        case contains = "CONTAINS"
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case like = "LIKE"
        case matches = "MATCHES"

        /// True for `< <= > >=`.
        public var isOrdering: Bool {
            switch self {
            case .less, .lessEqual, .greater, .greaterEqual: return true
            default: return false
            }
        }
    }

    /// `[c]` case-, `[d]` diacritic-insensitive, `[n]` normalized.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let caseInsensitive = Options(rawValue: 1)
        public static let diacriticInsensitive = Options(rawValue: 2)
        public static let normalized = Options(rawValue: 4)

        /// `[cd]` and so on; empty when there are no options.
        public var format: String {
            if isEmpty { return "" }
            var letters = "["
            if contains(.caseInsensitive) { letters += "c" }
            if contains(.diacriticInsensitive) { letters += "d" }
            if contains(.normalized) { letters += "n" }
            return letters + "]"
        }
    }

    public var modifier: Modifier
    public var op: Operator
    public var options: Options
    public var lhs: Expression
    public var rhs: Expression
    public var range: SourceRange

    public init(_ modifier: Modifier = .direct, _ op: Operator, _ lhs: Expression, _ rhs: Expression,
                options: Options = [], range: SourceRange = .unknown) {
        self.modifier = modifier
        self.op = op
        self.options = options
        self.lhs = lhs
        self.rhs = rhs
        self.range = range
    }

    public static func == (a: Comparison, b: Comparison) -> Bool {
        a.modifier == b.modifier && a.op == b.op && a.options == b.options && a.lhs == b.lhs && a.rhs == b.rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(modifier)
        hasher.combine(op)
        hasher.combine(options.rawValue)
        hasher.combine(lhs)
        hasher.combine(rhs)
    }
}

/// A value-producing expression: a constant, a key path, arithmetic, a
/// function, a subquery...
///
/// ```swift
/// let e = try Expression(format: "children.@avg.age + 1")
/// if case .binary(.add, let lhs, _) = e.kind,
///    case .collection(.avg, let base, let key) = lhs.kind { … }
/// ```
///
/// A plain key path (`department.name`) is always `.keyPath(["department",
/// "name"])`, also when written `SELF.department.name` or substituted
/// through `%K`.
public struct Expression: Sendable, Hashable {
    public indirect enum Kind: Sendable, Hashable {
        case constant(Value)
        /// Keys read from the evaluated object, in order.
        case keyPath([String])
        /// `SELF`.
        case evaluatedObject
        /// `$name`, without the `$`.
        case variable(String)
        /// `{a, b, c}`.
        case aggregate([Expression])
        /// `sum:(x)`, `now()`, `add:to:(1, 2)`, `average({1, 2})`.
        case function(Function, [Expression])
        /// `FUNCTION(receiver, 'selector:', arguments…)`.
        case method(receiver: Expression, selector: String, arguments: [Expression])
        case binary(ArithmeticOperator, Expression, Expression)
        /// Unary minus.
        case negate(Expression)
        /// `base[i]`, `base[FIRST]`, `base[LAST]`, `base[SIZE]`.
        case index(Expression, Index)
        /// `base.@op.key.path`; `key` is empty for `children.@count`.
        case collection(CollectionOperator, Expression, key: [String])
        /// `base.key.path` where base is not the evaluated object, such as
        /// `$x.name` or `FUNCTION(…).length`.
        case member(Expression, [String])
        /// `SUBQUERY(collection, $variable, predicate)`.
        case subquery(collection: Expression, variable: String, predicate: Predicate)
        /// `CAST(expr, "NSDate")`.
        case cast(Expression, CastType)
        /// A format placeholder (`%@`, `%K`…) not yet given an argument.
        case placeholder(FormatSpecifier)
    }

    public var kind: Kind
    public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange = .unknown) {
        self.kind = kind
        self.range = range
    }

    public static func == (lhs: Expression, rhs: Expression) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// A constant expression.
    public static func constant(_ value: Value) -> Expression { Expression(.constant(value)) }

    /// A key path from a dotted string: `.keyPath("department.name")`.
    public static func keyPath(_ path: String) -> Expression {
        Expression(.keyPath(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)))
    }

    /// The components when this is a plain key path.
    public var keyPathComponents: [String]? {
        if case .keyPath(let components) = kind { return components }
        return nil
    }
}

/// `+ - * / **`.
public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", power = "**"
}

/// The subscript of an index expression.
public enum Index: Sendable, Hashable {
    case at(Expression)
    case first, last, size
}

/// Key-value coding collection operators.
public enum CollectionOperator: String, Sendable, Hashable, CaseIterable {
    case count, sum, avg, min, max
    case distinctUnionOfObjects, unionOfObjects
    case distinctUnionOfArrays, unionOfArrays, distinctUnionOfSets

    /// `@count`, and so on.
    public var format: String { "@" + rawValue }

    /// The operator spelled `name` (without `@`), in any case.
    public init?(name: String) {
        guard let op = CollectionOperator.allCases.first(where: {
            $0.rawValue.caseInsensitiveCompare(name) == .orderedSame
        }) else { return nil }
        self = op
    }
}

/// The class names CAST accepts.
public enum CastType: String, Sendable, Hashable, CaseIterable {
    case date = "NSDate"
    case number = "NSNumber"
    case string = "NSString"
    case decimal = "NSDecimalNumber"
    case uuid = "NSUUID"
    case url = "NSURL"
    case data = "NSData"
}

/// The predefined functions of NSExpression, by their selectors.
///
/// ```swift
/// Function(selector: "average:") == .average   // true
/// ```
public enum Function: String, Sendable, Hashable, CaseIterable {
    case sum = "sum:", count = "count:", min = "min:", max = "max:"
    case average = "average:", median = "median:", mode = "mode:", stddev = "stddev:"
    case add = "add:to:", subtract = "from:subtract:", multiply = "multiply:by:"
    case divide = "divide:by:", modulus = "modulus:by:"
    case sqrt = "sqrt:", log = "log:", ln = "ln:", raise = "raise:toPower:", exp = "exp:"
    case floor = "floor:", ceiling = "ceiling:", abs = "abs:", trunc = "trunc:"
    case random = "random", randomElement = "random:", randomn = "randomn:", now = "now"
    case uppercase = "uppercase:", lowercase = "lowercase:"
    case bitwiseAnd = "bitwiseAnd:with:", bitwiseOr = "bitwiseOr:with:", bitwiseXor = "bitwiseXor:with:"
    case leftshift = "leftshift:by:", rightshift = "rightshift:by:", onesComplement = "onesComplement:"
    case noindex = "noindex:", length = "length:"

    /// The Objective-C selector, as Apple's format strings write it.
    public var selector: String { rawValue }

    /// The function for a selector such as `"average:"` or `"add:to:"`.
    public init?(selector: String) { self.init(rawValue: selector) }

    /// The readable name, `average` for `average:`.
    public var name: String {
        String(rawValue.prefix { $0 != ":" })
    }

    /// How many arguments the function takes; nil for "one or more".
    public var arity: Int? {
        switch self {
        case .sum, .count, .min, .max, .average, .median, .mode, .stddev: return nil
        case .random, .now: return 0
        default: return rawValue.filter { $0 == ":" }.count
        }
    }

    /// True for functions over a collection (`sum:` … `stddev:`).
    public var isAggregate: Bool { arity == nil }

    /// Looks a readable call up: `sum`, `AVERAGE`, `avg`, `ceil`, `pow`.
    /// `random` with one argument is `random:`.
    static func readable(_ name: String, argumentCount: Int) -> Function? {
        let lower = name.lowercased()
        let aliases = ["avg": "average", "ceil": "ceiling", "pow": "raise", "power": "raise",
                       "mod": "modulus", "upper": "uppercase", "lower": "lowercase"]
        let canonical = aliases[lower] ?? lower
        if canonical == "random" { return argumentCount == 0 ? .random : .randomElement }
        return Function.allCases.first { $0.name.lowercased() == canonical && $0 != .randomElement }
    }

    /// All readable names, for suggestions.
    static var readableNames: [String] { Function.allCases.map(\.name) }
}
