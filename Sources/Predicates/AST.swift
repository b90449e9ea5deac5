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
    /// What a predicate node is: a constant, a negation, a conjunction, a
    /// disjunction or a comparison (NSPredicate's `NSCompoundPredicate` types
    /// and `NSComparisonPredicate`).
    ///
    /// ```swift
    /// switch try Predicate(format: "NOT (age > 18)").kind {
    /// case .not(let inner): print(inner.format)   // age > 18
    /// default: break
    /// }
    /// ```
    public indirect enum Kind: Sendable, Hashable {
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        /// `NOT p` (or `!p`): NSCompoundPredicate's `notPredicateType`.
        case not(Predicate)
        /// Two or more operands; `a AND b AND c` is one node, while
        /// `(a AND b) AND c` nests.
        case and([Predicate])
        /// Two or more operands, flattened like `and`.
        case or([Predicate])
        /// `lhs op rhs`, with its quantifier and options: an
        /// NSComparisonPredicate.
        case comparison(Comparison)
    }

    /// The node itself; match on it to walk the tree.
    public var kind: Kind
    /// Where the predicate was parsed from; ``SourceRange/unknown`` for one
    /// built in code. Ignored by `==`.
    public var range: SourceRange

    /// Builds a predicate node in code, as NSCompoundPredicate's
    /// `init(andPredicateWithSubpredicates:)` and its siblings do.
    ///
    /// ```swift
    /// let adult = try Predicate(format: "age >= 18")
    /// let p = Predicate(.and([adult, try Predicate(format: "active == YES")]))
    /// ```
    public init(_ kind: Kind, range: SourceRange = .unknown) {
        self.kind = kind
        self.range = range
    }

    public static func == (lhs: Predicate, rhs: Predicate) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// `TRUEPREDICATE`: matches every object, as
    /// `NSPredicate(value: true)`.
    public static let truePredicate = Predicate(.constant(true))
    /// `FALSEPREDICATE`: matches no object, as `NSPredicate(value: false)`.
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
        /// `direct` compares the value itself (NSComparisonPredicate's
        /// `directPredicateModifier`); `ANY`, `ALL` and `NONE` test each
        /// element of a collection on the left (`anyPredicateModifier`,
        /// `allPredicateModifier`; `NONE x` is `NOT ANY x`).
        case direct = "", any = "ANY", all = "ALL", none = "NONE"
    }

    /// The operator of a comparison, NSComparisonPredicate's `Operator`; the
    /// raw value is its canonical spelling in a format string.
    ///
    /// ```swift
    /// Comparison.Operator(rawValue: "BEGINSWITH") == .beginsWith   // true
    /// ```
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==` (also `=`): `equalTo`.
        case equal = "=="
        /// `!=` (also `<>`): `notEqualTo`.
        case notEqual = "!="
        /// `<`: `lessThan`.
        case less = "<"
        /// `<=` (also `=<`): `lessThanOrEqualTo`.
        case lessEqual = "<="
        /// `>`: `greaterThan`.
        case greater = ">"
        /// `>=` (also `=>`): `greaterThanOrEqualTo`.
        case greaterEqual = ">="
        /// `x BETWEEN {lo, hi}`, inclusive at both ends.
        case between = "BETWEEN"
        /// `x IN collection`: membership in a collection (or a substring of a
        /// string).
        case `in` = "IN"
        /// `CONTAINS`: a substring test on strings, membership on a collection.
        case contains = "CONTAINS"
        /// `BEGINSWITH`: a string prefix test.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`: a string suffix test.
        case endsWith = "ENDSWITH"
        /// `LIKE`: a whole-string wildcard match, `*` for any run and `?` for
        /// one character.
        case like = "LIKE"
        /// `MATCHES`: a whole-string ICU regular expression match.
        case matches = "MATCHES"
        /// `UTI-CONFORMS-TO`: the uniform type identifier on the left
        /// conforms to the one on the right (`public.jpeg UTI-CONFORMS-TO
        /// public.image`), by ``UniformTypes``' table.
        case utiConformsTo = "UTI-CONFORMS-TO"
        /// `UTI-EQUALS`: the two uniform type identifiers are the same.
        case utiEquals = "UTI-EQUALS"

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
        /// `[c]`: compare strings ignoring case (`caseInsensitive`).
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: compare strings ignoring accents, so `é` matches `e`
        /// (`diacriticInsensitive`).
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`: the caller promises both strings are already normalized
        /// (`normalized`); mrq compares them as given.
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

    /// The quantifier: `.direct` unless the comparison starts with `ANY`,
    /// `SOME`, `ALL` or `NONE`.
    public var modifier: Modifier
    /// The comparison operator.
    public var op: Operator
    /// The `[cd]` options written after the operator.
    public var options: Options
    /// The left operand, usually a key path (`department.name`).
    public var lhs: Expression
    /// The right operand, usually a constant (`"Engineering"`).
    public var rhs: Expression
    /// Where the comparison was parsed from; ignored by `==`.
    public var range: SourceRange

    /// Builds a comparison in code, as NSComparisonPredicate's initializer
    /// does. Wrap it in `Predicate(.comparison(c))` to use it as a
    /// predicate.
    ///
    /// ```swift
    /// let c = Comparison(.direct, .beginsWith, .keyPath("name"),
    ///                    .constant("A"), options: .caseInsensitive)
    /// let p = Predicate(.comparison(c))   // name BEGINSWITH[c] "A"
    /// ```
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
    /// What an expression node is: NSExpression's expression types, plus
    /// arithmetic, indexes and format placeholders, which NSExpression keeps as
    /// functions.
    ///
    /// The leaves (constants, key paths, variables, placeholders) and the
    /// list cases sit in the node itself; only the cases that hold an
    /// expression directly are `indirect`, so a comparison's two sides cost
    /// no allocation beyond their own contents.
    public enum Kind: Sendable, Hashable {
        /// A literal: `18`, `"Ada"`, `@2024-01-31`, `nil`
        /// (`NSExpression(forConstantValue:)`).
        case constant(Value)
        /// Keys read from the evaluated object, in order.
        case keyPath([String])
        /// `SELF`.
        case evaluatedObject
        /// `$name`, without the `$`.
        case variable(String)
        /// `$name := expression` (the BNF's `assignment_expression`): the
        /// value of the expression, which `$name` then holds for the rest
        /// of the evaluation.
        indirect case assignment(String, Expression)
        /// `{a, b, c}`.
        case aggregate([Expression])
        /// `sum:(x)`, `now()`, `add:to:(1, 2)`, `average({1, 2})`.
        case function(Function, [Expression])
        /// `FUNCTION(receiver, 'selector:', arguments…)`.
        indirect case method(receiver: Expression, selector: String, arguments: [Expression])
        /// `lhs + rhs` and the other arithmetic operators (NSExpression's
        /// `add:to:`, `from:subtract:`… functions).
        indirect case binary(ArithmeticOperator, Expression, Expression)
        /// Unary minus.
        indirect case negate(Expression)
        /// `base[i]`, `base[FIRST]`, `base[LAST]`, `base[SIZE]`.
        indirect case index(Expression, Index)
        /// `base.@op.key.path`; `key` is empty for `children.@count`.
        indirect case collection(CollectionOperator, Expression, key: [String])
        /// `base.key.path` where base is not the evaluated object, such as
        /// `$x.name` or `FUNCTION(…).length`.
        indirect case member(Expression, [String])
        /// `SUBQUERY(collection, $variable, predicate)`.
        indirect case subquery(collection: Expression, variable: String, predicate: Predicate)
        /// `CAST(expr, "NSDate")`.
        indirect case cast(Expression, CastType)
        /// A format placeholder (`%@`, `%K`…) not yet given an argument.
        case placeholder(FormatSpecifier)
        /// An object named as a constant: a managed object or an object ID
        /// given for `%@` (see ``ObjectReference``).
        case object(ObjectReference)
    }

    /// The node itself; match on it to walk the tree.
    public var kind: Kind
    /// Where the expression was parsed from; ``SourceRange/unknown`` for one
    /// built in code. Ignored by `==`.
    public var range: SourceRange
    /// True for a date constant the parser folded from Apple's
    /// `CAST(700000000, "NSDate")`: the printer writes it back as that CAST,
    /// not as mrq's `@2023-03-08T20:26:40Z`. Ignored by `==`.
    public var isFoldedCast = false

    /// Builds an expression node in code.
    ///
    /// ```swift
    /// let next = Expression(.binary(.add, .keyPath("age"), .constant(1)))
    /// next.format   // age + 1
    /// ```
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

    /// The expressions directly inside this one, in source order: what a
    /// walk of the tree visits next. A SUBQUERY gives its collection; its
    /// predicate is in ``Kind/subquery(collection:variable:predicate:)``.
    public var children: [Expression] {
        switch kind {
        case .constant, .keyPath, .evaluatedObject, .variable, .placeholder, .object: return []
        case .aggregate(let list), .function(_, let list): return list
        case .method(let receiver, _, let arguments): return [receiver] + arguments
        case .binary(_, let lhs, let rhs): return [lhs, rhs]
        case .negate(let inner), .cast(let inner, _), .member(let inner, _), .collection(_, let inner, _),
             .assignment(_, let inner):
            return [inner]
        case .index(let base, .at(let i)): return [base, i]
        case .index(let base, _): return [base]
        case .subquery(let collection, _, _): return [collection]
        }
    }

    /// The components when this is a plain key path.
    public var keyPathComponents: [String]? {
        if case .keyPath(let components) = kind { return components }
        return nil
    }
}

/// `+ - * / **`.
public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
    /// `+`, `-`, `*`, `/` and `**` (power, right-associative), as
    /// NSExpression's `add:to:`, `from:subtract:`, `multiply:by:`,
    /// `divide:by:` and `raise:toPower:`.
    case add = "+", subtract = "-", multiply = "*", divide = "/", power = "**"
}

/// The subscript of an index expression.
public enum Index: Sendable, Hashable {
    /// `base[expression]`: an element of a collection by 0-based position, or
    /// a key of an object by string.
    case at(Expression)
    /// `base[FIRST]`, `base[LAST]` (nil for an empty collection) and
    /// `base[SIZE]` (the element count).
    case first, last, size
}

/// Key-value coding collection operators.
public enum CollectionOperator: String, Sendable, Hashable, CaseIterable {
    /// `@count`, `@sum`, `@avg`, `@min`, `@max`: key-value coding's aggregate
    /// operators (`children.@avg.age`). `@sum`, `@min` and `@max` skip
    /// nils; `@avg` counts a nil as 0, as the Key-Value Coding guide says
    /// it "converts it to a double (substituting 0 for nil values)".
    case count, sum, avg, min, max
    /// `@distinctUnionOfObjects` and `@unionOfObjects`: the values of a key
    /// over a collection, without and with duplicates.
    case distinctUnionOfObjects, unionOfObjects
    /// `@distinctUnionOfArrays`, `@unionOfArrays` and `@distinctUnionOfSets`:
    /// the same over a collection of collections, flattened one level.
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
    /// `"NSDate"`: a number as seconds since 2001-01-01, or an ISO 8601 string.
    case date = "NSDate"
    /// `"NSNumber"`: a number, or a string read as one.
    case number = "NSNumber"
    /// `"NSString"`: the value as text.
    case string = "NSString"
    /// `"NSDecimalNumber"`: an exact decimal, from a number or a string.
    case decimal = "NSDecimalNumber"
    /// `"NSUUID"`: a UUID from its string form.
    case uuid = "NSUUID"
    /// `"NSURL"`: a URL from a string.
    case url = "NSURL"
    /// `"NSData"`: bytes from a base64 string.
    case data = "NSData"
}

/// The predefined functions of NSExpression, by their selectors.
///
/// ```swift
/// Function(selector: "average:") == .average   // true
/// ```
public enum Function: String, Sendable, Hashable, CaseIterable {
    /// Aggregates of a collection: `sum:`, `count:` (non-nil elements), `min:`
    /// and `max:` (`sum:(salaries)`, or `sum(salaries)`).
    case sum = "sum:", count = "count:", min = "min:", max = "max:"
    /// Statistics of a collection: `average:`, `median:` (the mean of the two
    /// middle values for an even count), `mode:` (the collection of the most
    /// frequent values) and `stddev:` (population standard deviation).
    case average = "average:", median = "median:", mode = "mode:", stddev = "stddev:"
    /// Arithmetic as functions: `add:to:(a, b)` is `a + b`,
    /// `from:subtract:(a, b)` is `a - b`, `multiply:by:(a, b)` is `a * b`.
    case add = "add:to:", subtract = "from:subtract:", multiply = "multiply:by:"
    /// `divide:by:(a, b)` is `a / b`; `modulus:by:(a, b)` is the remainder.
    /// Both throw on a zero divisor.
    case divide = "divide:by:", modulus = "modulus:by:"
    /// `sqrt:`, `log:` (base 10), `ln:` (natural), `raise:toPower:(a, b)`
    /// (`a ** b`) and `exp:` (e to the power).
    case sqrt = "sqrt:", log = "log:", ln = "ln:", raise = "raise:toPower:", exp = "exp:"
    /// Rounding and sign: `floor:`, `ceiling:`, `abs:` and `trunc:` (toward
    /// zero).
    case floor = "floor:", ceiling = "ceiling:", abs = "abs:", trunc = "trunc:"
    /// `random()` is a double in `0..<1`; `random:(list)` an element of a
    /// collection; `randomn:(n)` an integer in `0..<n`; `now()` the current
    /// date.
    case random = "random", randomElement = "random:", randomn = "randomn:", now = "now"
    /// `uppercase:` and `lowercase:` of a string.
    case uppercase = "uppercase:", lowercase = "lowercase:"
    /// Bitwise `&`, `|` and `^` of two integers.
    case bitwiseAnd = "bitwiseAnd:with:", bitwiseOr = "bitwiseOr:with:", bitwiseXor = "bitwiseXor:with:"
    /// Integer shifts (`leftshift:by:`, `rightshift:by:`, arithmetic) and
    /// `onesComplement:` (`~`).
    case leftshift = "leftshift:by:", rightshift = "rightshift:by:", onesComplement = "onesComplement:"
    /// `noindex:` returns its argument (a hint for Core Data's SQL, with no
    /// effect here); `length:` is a string's length in UTF-16 units, as
    /// NSString counts, or a collection's count.
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
