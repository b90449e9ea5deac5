import Foundation

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// An argument for a format placeholder (`%@`, `%K`, `%d`…).
///
/// ```swift
/// try Predicate(format: "%K > %d AND tag IN %@", "age", 18, .array(["a", "b"]))
/// ```
///
/// `%K` takes a key path (`.keyPath` or a string); every other placeholder
/// takes a value, an array (which becomes an aggregate `{…}`) or a whole
/// expression.
public enum FormatArgument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral {
    /// A value for `%@`, `%d`, `%f` and the other value placeholders.
    case value(Value)
    /// A dotted key path, for `%K` (or `%@` to compare two keys).
    case keyPath(String)
    /// A list for `IN %@`: it becomes an aggregate `{a, b, c}`.
    case array([Value])
    /// A whole expression put in the placeholder's place.
    case expression(Expression)

    /// A value argument: `FormatArgument(.date(now))`.
    public init(_ value: Value) { self = .value(value) }
    public init(stringLiteral value: String) { self = .value(.string(value)) }
    public init(integerLiteral value: Int64) { self = .value(.int(value)) }
    public init(floatLiteral value: Double) { self = .value(.double(value)) }
    public init(booleanLiteral value: Bool) { self = .value(.bool(value)) }
    public init(nilLiteral: ()) { self = .value(.null) }
    public init(arrayLiteral elements: Value...) { self = .array(elements) }

    /// An integer of any width.
    public static func int<T: BinaryInteger>(_ n: T) -> FormatArgument { .value(.int(Int64(n))) }
    /// A string value, for a call that mixes variables with
    /// ``FormatArgument`` forms.
    public static func string(_ s: String) -> FormatArgument { .value(.string(s)) }
    /// A date value, compared as an instant.
    ///
    /// ```swift
    /// try Predicate(format: "hiredAt < %@", .date(Date()))
    /// ```
    public static func date(_ d: Date) -> FormatArgument { .value(.date(d)) }
}

// MARK: - Substitution

extension Predicate {
    /// Fills format placeholders with `arguments`, in source order.
    ///
    /// Throws when a placeholder has no argument or arguments are left
    /// over. Without placeholders and arguments, returns `self`.
    public func substituting(arguments: [FormatArgument]) throws(SyntaxError) -> Predicate {
        var substitution = Substitution(arguments: arguments, variables: nil)
        let result = try substitution.predicate(self)
        try substitution.finish(range: range)
        return result
    }

    /// Replaces `$name` variables with constants. Variables bound by a
    /// SUBQUERY stay, and so do those named in `keeping` (objects a fetch
    /// request binds); any other variable missing from `variables` throws.
    ///
    /// ```swift
    /// let template = try Predicate(format: "age > $min")
    /// let p = try template.substituting(variables: ["min": 18])
    /// ```
    public func substituting(variables: [String: Value], keeping: Set<String> = []) throws(SyntaxError) -> Predicate {
        try substituting(expressions: variables.mapValues { Expression(.constant($0)) }, keeping: keeping)
    }

    /// Replaces `$name` variables with expressions, as NSPredicate's
    /// `withSubstitutionVariables(_:)` does with a dictionary whose values
    /// may be arrays: a collection variable is an aggregate, so
    /// `name IN $NAMES` tests membership in it.
    ///
    /// ```swift
    /// let template = try Predicate(format: "FirstName IN $NAMES")
    /// let p = try template.substituting(expressions: ["NAMES": .aggregate(["Zoey", "Kai"])])
    /// p.format   // FirstName IN {"Zoey", "Kai"}
    /// ```
    ///
    /// Variables bound by a SUBQUERY stay, and so do those named in
    /// `keeping`; any other variable missing from `expressions` throws.
    public func substituting(expressions: [String: Expression], keeping: Set<String> = []) throws(SyntaxError) -> Predicate {
        var substitution = Substitution(arguments: nil, variables: expressions)
        substitution.kept = keeping
        return try substitution.predicate(self)
    }

    /// The `$variables` `substituting(variables:)` needs values for: every
    /// variable but those a SUBQUERY binds.
    ///
    /// ```swift
    /// try Predicate(format: "age >= $min AND SUBQUERY(kids, $k, $k.age > $kidAge).@count > 0").freeVariables
    /// // ["min", "kidAge"]
    /// ```
    public var freeVariables: Set<String> {
        var substitution = Substitution(arguments: nil, variables: [:])
        substitution.collected = []
        _ = try? substitution.predicate(self)
        return substitution.collected ?? []
    }

    /// True when format placeholders remain.
    public var hasPlaceholders: Bool {
        var substitution = Substitution(arguments: nil, variables: nil)
        _ = try? substitution.predicate(self)
        return substitution.placeholdersSeen > 0
    }
}

extension Expression {
    /// Fills format placeholders with `arguments`, in source order.
    public func substituting(arguments: [FormatArgument]) throws(SyntaxError) -> Expression {
        var substitution = Substitution(arguments: arguments, variables: nil)
        let result = try substitution.expression(self)
        try substitution.finish(range: range)
        return result
    }

    /// Replaces `$name` variables with constants (see
    /// ``Predicate/substituting(variables:)``).
    public func substituting(variables: [String: Value], keeping: Set<String> = []) throws(SyntaxError) -> Expression {
        try substituting(expressions: variables.mapValues { Expression(.constant($0)) }, keeping: keeping)
    }

    /// Replaces `$name` variables with expressions, a collection as an
    /// aggregate (see ``Predicate/substituting(expressions:keeping:)``).
    public func substituting(expressions: [String: Expression], keeping: Set<String> = []) throws(SyntaxError) -> Expression {
        var substitution = Substitution(arguments: nil, variables: expressions)
        substitution.kept = keeping
        return try substitution.expression(self)
    }

    /// An aggregate `{a, b, c}` of constants: the expression a collection
    /// variable stands for.
    ///
    /// ```swift
    /// Expression.aggregate(["Zoey", "Kai"]).format   // {"Zoey", "Kai"}
    /// ```
    public static func aggregate(_ values: [Value]) -> Expression {
        Expression(.aggregate(values.map { Expression(.constant($0)) }))
    }
}

/// One tree walk filling placeholders (when `arguments` is set) and
/// variables (when `variables` is set).
struct Substitution {
    let arguments: [FormatArgument]?
    let variables: [String: Expression]?
    var next = 0
    var placeholdersSeen = 0
    var bound: [String] = []
    /// Variables an assignment (`$x := …`) has given a value.
    var assigned: Set<String> = []
    /// When set, missing variables are collected here instead of thrown.
    var collected: Set<String>?
    /// Variables left as they are.
    var kept: Set<String> = []

    init(arguments: [FormatArgument]?, variables: [String: Expression]?) {
        self.arguments = arguments
        self.variables = variables
    }

    func finish(range: SourceRange) throws(SyntaxError) {
        if let arguments, next < arguments.count {
            throw SyntaxError(.tooManyArguments(expected: next, got: arguments.count), at: range)
        }
    }

    mutating func predicate(_ p: Predicate) throws(SyntaxError) -> Predicate {
        switch p.kind {
        case .constant: return p
        case .not(let operand): return Predicate(.not(try predicate(operand)), range: p.range)
        case .and(let operands):
            var result: [Predicate] = []
            for operand in operands { result.append(try predicate(operand)) }
            return Predicate(.and(result), range: p.range)
        case .or(let operands):
            var result: [Predicate] = []
            for operand in operands { result.append(try predicate(operand)) }
            return Predicate(.or(result), range: p.range)
        case .comparison(var c):
            c.lhs = try expression(c.lhs)
            c.rhs = try expression(c.rhs)
            return Predicate(.comparison(c), range: p.range)
        }
    }

    mutating func list(_ list: [Expression]) throws(SyntaxError) -> [Expression] {
        var result: [Expression] = []
        result.reserveCapacity(list.count)
        for e in list { result.append(try expression(e)) }
        return result
    }

    mutating func expression(_ e: Expression) throws(SyntaxError) -> Expression {
        let r = e.range
        switch e.kind {
        case .constant, .keyPath, .evaluatedObject, .object:
            return e
        case .assignment(let name, let value):
            let filled = try expression(value)
            // `$name` holds the assigned value from here on, not a
            // substitution variable's.
            assigned.insert(name)
            return Expression(.assignment(name, filled), range: r)
        case .variable(let name):
            guard let variables, !bound.contains(name), !kept.contains(name), !assigned.contains(name) else { return e }
            guard let value = variables[name] else {
                if collected != nil {
                    collected?.insert(name)
                    return e
                }
                throw SyntaxError(.missingVariable(name), at: r)
            }
            return Expression(value.kind, range: r)
        case .aggregate(let elements): return Expression(.aggregate(try list(elements)), range: r)
        case .function(let f, let args): return Expression(.function(f, try list(args)), range: r)
        case .method(let receiver, let selector, let args):
            let newReceiver = try expression(receiver)
            return Expression(.method(receiver: newReceiver, selector: selector, arguments: try list(args)), range: r)
        case .binary(let op, let lhs, let rhs):
            let newLhs = try expression(lhs)
            return Expression(.binary(op, newLhs, try expression(rhs)), range: r)
        case .negate(let operand): return Expression(.negate(try expression(operand)), range: r)
        case .index(let base, let index):
            let newBase = try expression(base)
            switch index {
            case .at(let i): return Expression(.index(newBase, .at(try expression(i))), range: r)
            default: return Expression(.index(newBase, index), range: r)
            }
        case .collection(let op, let base, let key):
            return Expression(.collection(op, try expression(base), key: key), range: r)
        case .member(let base, let keys):
            return Parser.appending(keys, to: try expression(base), range: r)
        case .subquery(let collection, let variable, let p):
            let newCollection = try expression(collection)
            bound.append(variable)
            defer { bound.removeLast() }
            return Expression(.subquery(collection: newCollection, variable: variable, predicate: try predicate(p)), range: r)
        case .cast(let operand, let type):
            let newOperand = try expression(operand)
            if case .constant(let value) = newOperand.kind, newOperand.kind != operand.kind,
               let folded = Parser.foldCast(value, to: type) {
                return Expression(.constant(folded), range: r)
            }
            return Expression(.cast(newOperand, type), range: r)
        case .placeholder(let spec):
            placeholdersSeen += 1
            guard let arguments else { return e }
            guard next < arguments.count else {
                throw SyntaxError(.missingArgument(spec.rawValue, index: next + 1), at: r)
            }
            let argument = arguments[next]
            next += 1
            return try Substitution.fill(spec, with: argument, range: r)
        }
    }

    static func fill(_ spec: FormatSpecifier, with argument: FormatArgument, range: SourceRange) throws(SyntaxError) -> Expression {
        switch (spec, argument) {
        case (.keyPath, .keyPath(let path)), (.keyPath, .value(.string(let path))), (.object, .keyPath(let path)):
            return Expression(.keyPath(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)),
                              range: range)
        case (.keyPath, .expression(let e)):
            if case .object(let reference) = e.kind { throw SyntaxError(.keyPathArgument(reference.description), at: range) }
            return Expression(e.kind, range: range)
        case (.keyPath, let other):
            throw SyntaxError(.keyPathArgument(String(describing: other)), at: range)
        case (_, .value(let value)):
            return Expression(.constant(value), range: range)
        case (_, .array(let values)):
            return Expression(.aggregate(values.map { Expression(.constant($0), range: range) }), range: range)
        case (_, .expression(let e)):
            return Expression(e.kind, range: range)
        case (_, .keyPath(let path)):
            return Expression(.keyPath(path.split(separator: ".").map(String.init)), range: range)
        }
    }
}
