import Foundation

/// Evaluates predicates in memory: the reference semantics the SQL
/// translator must match.
///
/// ```swift
/// let p = try Predicate(format: "age >= 18 AND name BEGINSWITH[c] 'a'")
/// try Evaluator().evaluate(p, on: ["age": 20, "name": "Ann"])   // true
/// ```
///
/// ## The rules
///
/// Comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`):
/// - `nil == nil` is true; `nil == x` is false and `nil != x` true for any
///   other x; ordering with nil on either side is false.
/// - Numbers compare by value across `.int`, `.double`, `.decimal`;
///   booleans compare as 0 and 1. NaN equals nothing.
/// - Strings compare by Unicode code point (UTF-8 byte order, no
///   normalisation) unless `[c]` (case folding) or `[d]` (diacritic
///   folding) apply; both sides are folded with Foundation's
///   `folding(options:locale: nil)`. `[n]` promises the strings are
///   already normalised; mrq compares them as given either way.
/// - Dates compare as instants; UUIDs, URLs and data by equality only.
/// - Values of different kinds (a string and a number) are unequal and
///   unordered: `==` false, `!=` true, ordering false. Objects are equal
///   only to themselves, and to a reference naming them (a managed object
///   or object ID given for `%@`, see ``ObjectReference``). Two
///   collections are equal when their elements are equal in order.
///
/// String operators (`BEGINSWITH`, `ENDSWITH`, `CONTAINS` on strings,
/// `LIKE`, `MATCHES`) are false unless both sides are strings. An empty
/// needle never matches `BEGINSWITH`, `ENDSWITH` or `CONTAINS` (Apple's
/// behaviour). `LIKE` matches the whole string with `*` (any run) and `?`
/// (one character); `\` escapes the next character. `MATCHES` is an ICU
/// regular expression matching the whole string; `[c]` makes it
/// case-insensitive.
///
/// `BETWEEN` needs a two-value aggregate `{lo, hi}` and is inclusive.
/// `IN` is true when the right side is a collection holding the left value,
/// a string containing the left string, or a scalar equal to it.
/// `CONTAINS` with a collection on the left tests membership (with a
/// collection on the right: every element). nil on the left of `IN`,
/// `CONTAINS` and the string operators gives false.
///
/// Quantifiers: `ANY` over an empty collection is false, `ALL` and `NONE`
/// are true; a scalar counts as a one-element collection and nil as empty.
/// A comparison without a quantifier whose left key path runs through a
/// to-many relationship (so yields a collection) behaves as `ANY`, as in
/// Core Data, except for `CONTAINS` and for `==`/`!=` against a collection.
///
/// Key paths: a key path through a nil to-one is nil; through a to-many it
/// yields the collection of the next key's values (nested collections are
/// flattened). Reading a key from a scalar is an error.
///
/// Collection operators and aggregate functions skip nils, except `@avg`,
/// which counts a nil as 0 as the Key-Value Coding guide documents ("converts
/// it to a double (substituting 0 for nil values)"): `@count` of nil is 0; `@sum` (and `sum:`) of an empty collection is 0; `@avg`, `@min`,
/// `@max` (and `average:`, `min:`, `max:`, `median:`, `stddev:`) of an
/// empty collection are nil. `stddev:` is the population standard
/// deviation; `median:` averages the two middle values of an even count;
/// `mode:` returns the collection of the most frequent values.
///
/// Arithmetic: nil in, nil out. `int op int` stays an integer, except that
/// an overflow falls back to `.double` and `/` gives a double unless the
/// division is exact (`7 / 2 == 3.5`, `6 / 3 == 2`). Any decimal operand
/// makes the result decimal; otherwise any double makes it double.
/// Division (and `modulus:by:`) by zero is an error. `date ± number`
/// (seconds) is a date; `date - date` is seconds. `-2 ** 2` is 4: unary
/// minus binds tighter than `**`.
///
/// Indexes: `[n]` out of range, `[FIRST]`/`[LAST]` of an empty collection
/// are nil; `[SIZE]` is the count. `["key"]` reads a key of an object.
/// `CAST(x, "NSDate")` reads numbers as seconds since 2001-01-01 and
/// strings as `2024-01-31T10:00:00Z`-style dates or numbers.
public struct Evaluator {
    /// Values for `$name` variables.
    public var variables: [String: Operand]
    private let regexCache = RegexCache()

    /// An evaluator with values for `$name` variables, as
    /// `evaluate(with:substitutionVariables:)` takes them.
    ///
    /// ```swift
    /// let p = try Predicate(format: "age >= $min")
    /// try Evaluator(variables: ["min": 18]).evaluate(p, on: ["age": 20])
    /// ```
    public init(variables: [String: Value] = [:]) {
        self.variables = variables.mapValues { .value($0) }
    }

    /// An evaluator whose variables may be objects or collections, not only
    /// values.
    public init(operands: [String: Operand]) {
        self.variables = operands
    }

    // MARK: Entry points

    /// Evaluates `predicate` with `object` as SELF.
    public func evaluate(_ predicate: Predicate, on object: Operand) throws -> Bool {
        try test(predicate, object, [:])
    }

    /// Evaluates `predicate` with `object` as SELF: NSPredicate's
    /// `evaluate(with:)`. Throws an ``EvaluationError`` for a type mismatch,
    /// a division by zero or an unbound variable.
    public func evaluate(_ predicate: Predicate, on object: any PredicateObject) throws -> Bool {
        try test(predicate, .object(object), [:])
    }

    /// Evaluates `predicate` against a dictionary, its keys read as the
    /// object's keys.
    ///
    /// ```swift
    /// let p = try Predicate(format: "age > 18")
    /// try Evaluator().evaluate(p, on: ["age": 20])   // true
    /// ```
    public func evaluate(_ predicate: Predicate, on dictionary: [String: Value]) throws -> Bool {
        try test(predicate, .dictionary(dictionary), [:])
    }

    /// Evaluates `predicate` with a scalar as SELF, as in `SELF > 3`.
    public func evaluate(_ predicate: Predicate, on value: Value) throws -> Bool {
        try test(predicate, .value(value), [:])
    }

    /// Evaluates `expression` with `object` as SELF.
    public func evaluate(_ expression: Expression, on object: Operand) throws -> Operand {
        try value(expression, object, [:])
    }

    /// Evaluates `expression` against a dictionary, its keys read as the
    /// object's keys: NSExpression's `expressionValue(with:context:)`.
    public func evaluate(_ expression: Expression, on dictionary: [String: Value]) throws -> Operand {
        try value(expression, .dictionary(dictionary), [:])
    }

    /// The objects of `objects` matching `predicate`, in order.
    public func filter(_ objects: [Operand], _ predicate: Predicate) throws -> [Operand] {
        try objects.filter { try test(predicate, $0, [:]) }
    }

    // MARK: Predicates

    /// The variables one evaluation binds: a SUBQUERY's (copied into each
    /// nested scope) and those an assignment (`$x := …`) gave a value, which
    /// every copy shares so that the rest of the evaluation sees them.
    struct Scope: ExpressibleByDictionaryLiteral {
        final class Assigned { var values: [String: Operand] = [:] }
        var bound: [String: Operand] = [:]
        let assigned = Assigned()

        init(dictionaryLiteral elements: (String, Operand)...) {
            for (name, value) in elements { bound[name] = value }
        }

        subscript(name: String) -> Operand? {
            get { bound[name] ?? assigned.values[name] }
            set { bound[name] = newValue }
        }
    }

    func test(_ p: Predicate, _ root: Operand, _ scope: Scope) throws -> Bool {
        switch p.kind {
        case .constant(let b): return b
        case .not(let operand): return try !test(operand, root, scope)
        case .and(let operands):
            for operand in operands where try !test(operand, root, scope) { return false }
            return true
        case .or(let operands):
            for operand in operands where try test(operand, root, scope) { return true }
            return false
        case .comparison(let c):
            return try compare(c, root, scope)
        }
    }

    func compare(_ c: Comparison, _ root: Operand, _ scope: Scope) throws -> Bool {
        let lhs = try value(c.lhs, root, scope)
        let rhs = try value(c.rhs, root, scope)
        switch c.modifier {
        case .direct:
            if case .collection(let items) = lhs, Evaluator.impliesAny(c, rhs) {
                for item in items where try apply(c, item, rhs) { return true }
                return false
            }
            return try apply(c, lhs, rhs)
        case .any:
            for item in Evaluator.items(lhs) where try apply(c, item, rhs) { return true }
            return false
        case .all:
            for item in Evaluator.items(lhs) where try !apply(c, item, rhs) { return false }
            return true
        case .none:
            for item in Evaluator.items(lhs) where try apply(c, item, rhs) { return false }
            return true
        }
    }

    /// Core Data's implicit ANY for key paths through to-many relationships.
    static func impliesAny(_ c: Comparison, _ rhs: Operand) -> Bool {
        switch c.lhs.kind {
        case .keyPath, .member, .collection(.distinctUnionOfObjects, _, _), .collection(.unionOfObjects, _, _): break
        default: return false
        }
        switch c.op {
        case .contains: return false
        case .equal, .notEqual:
            if case .collection = rhs { return false }
            return true
        default: return true
        }
    }

    static func items(_ operand: Operand) -> [Operand] {
        switch operand {
        case .collection(let items): return items
        case .value(.null): return []
        default: return [operand]
        }
    }

    func apply(_ c: Comparison, _ lhs: Operand, _ rhs: Operand) throws -> Bool {
        let options = c.options
        switch c.op {
        case .equal: return Evaluator.equal(lhs, rhs, options)
        case .notEqual: return !Evaluator.equal(lhs, rhs, options)
        case .less, .lessEqual, .greater, .greaterEqual:
            guard case .value(let a) = lhs, case .value(let b) = rhs,
                  let order = Evaluator.order(a, b, options) else { return false }
            switch c.op {
            case .less: return order < 0
            case .lessEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .between:
            guard case .collection(let bounds) = rhs, bounds.count == 2 else {
                throw EvaluationError(.betweenNeedsPair, at: c.rhs.range)
            }
            guard case .value(let x) = lhs, case .value(let lo) = bounds[0], case .value(let hi) = bounds[1],
                  let low = Evaluator.order(x, lo, options), let high = Evaluator.order(x, hi, options) else {
                return false
            }
            return low >= 0 && high <= 0
        case .in:
            switch rhs {
            case .collection(let items): return items.contains { Evaluator.equal(lhs, $0, options) }
            case .value(.string(let haystack)):
                guard case .value(.string(let needle)) = lhs else { return false }
                return Evaluator.containsString(haystack, needle, options)
            case .value(.null): return false
            default: return Evaluator.equal(lhs, rhs, options)
            }
        case .contains:
            switch lhs {
            case .collection(let items):
                if case .collection(let needles) = rhs {
                    return needles.allSatisfy { n in items.contains { Evaluator.equal($0, n, options) } }
                }
                return items.contains { Evaluator.equal($0, rhs, options) }
            default:
                guard let haystack = Evaluator.text(of: lhs), case .value(.string(let needle)) = rhs else { return false }
                return Evaluator.containsString(haystack, needle, options)
            }
        case .utiConformsTo, .utiEquals:
            // Uniform type identifiers are strings; options do not apply.
            guard case .value(.string(let type)) = lhs, case .value(.string(let other)) = rhs else { return false }
            return c.op == .utiEquals ? type.utf8.elementsEqual(other.utf8) : UniformTypes.conforms(type, to: other)
        case .beginsWith, .endsWith, .like, .matches:
            guard let s = Evaluator.text(of: lhs), case .value(.string(let pattern)) = rhs else { return false }
            switch c.op {
            case .beginsWith:
                guard !pattern.isEmpty else { return false }
                return Evaluator.fold(s, options).utf8.starts(with: Evaluator.fold(pattern, options).utf8)
            case .endsWith:
                guard !pattern.isEmpty else { return false }
                return Evaluator.fold(s, options).utf8.reversed().starts(with: Evaluator.fold(pattern, options).utf8.reversed())
            case .like:
                return Evaluator.like(Evaluator.fold(s, options), Evaluator.fold(pattern, options))
            default:
                return try matches(s, pattern, options, range: c.rhs.range)
            }
        }
    }

    func matches(_ s: String, _ pattern: String, _ options: Comparison.Options, range: SourceRange) throws -> Bool {
        let subject = options.contains(.diacriticInsensitive) ? Evaluator.fold(s, [.diacriticInsensitive]) : s
        let source = options.contains(.diacriticInsensitive) ? Evaluator.fold(pattern, [.diacriticInsensitive]) : pattern
        let regex = try regexCache.regex(source, caseInsensitive: options.contains(.caseInsensitive), range: range)
        let whole = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex.firstMatch(in: subject, options: [.anchored], range: whole) != nil
    }

    // MARK: Expressions

    func value(_ e: Expression, _ root: Operand, _ scope: Scope) throws -> Operand {
        switch e.kind {
        case .constant(let v):
            return .value(v)
        case .keyPath(let path):
            return try walk(root, path, range: e.range)
        case .evaluatedObject:
            return root
        case .variable(let name):
            if let bound = scope[name] ?? variables[name] { return bound }
            throw EvaluationError(.unboundVariable(name), at: e.range)
        case .assignment(let name, let expression):
            let assigned = try value(expression, root, scope)
            scope.assigned.values[name] = assigned
            return assigned
        case .aggregate(let elements):
            return .collection(try elements.map { try value($0, root, scope) })
        case .function(let function, let arguments):
            let args = try arguments.map { try value($0, root, scope) }
            return try call(function, args, range: e.range)
        case .method(let receiver, let selector, let arguments):
            let target = try value(receiver, root, scope)
            let args = try arguments.map { try value($0, root, scope) }
            return try invoke(selector, on: target, args, range: e.range)
        case .binary(let op, let lhs, let rhs):
            let a = try value(lhs, root, scope)
            let b = try value(rhs, root, scope)
            return .value(try Arithmetic.apply(op, a, b, range: e.range))
        case .negate(let operand):
            let a = try value(operand, root, scope)
            return .value(try Arithmetic.apply(.subtract, .value(.int(0)), a, range: e.range))
        case .index(let base, let index):
            let target = try value(base, root, scope)
            switch index {
            case .first: return Evaluator.items(target).first ?? .value(.null)
            case .last: return Evaluator.items(target).last ?? .value(.null)
            case .size: return .value(.int(Int64(Evaluator.items(target).count)))
            case .at(let i):
                let key = try value(i, root, scope)
                switch (target, key) {
                case (.value(.null), _): return target
                case (_, .value(.string(let k))): return try step(target, k, range: e.range)
                case (_, .value(let k)):
                    guard let n = Evaluator.integer(k) else {
                        throw EvaluationError(.typeMismatch("[]", Evaluator.describe(key)), at: e.range)
                    }
                    let items = Evaluator.items(target)
                    return n >= 0 && n < items.count ? items[Int(n)] : .value(.null)
                default:
                    throw EvaluationError(.typeMismatch("[]", Evaluator.describe(key)), at: e.range)
                }
            }
        case .collection(let op, let base, let key):
            let target = try value(base, root, scope)
            return try Collections.apply(op, to: target, key: key, evaluator: self, range: e.range)
        case .member(let base, let keys):
            return try walk(try value(base, root, scope), keys, range: e.range)
        case .subquery(let collection, let variable, let predicate):
            let source = try value(collection, root, scope)
            var inner = scope
            var result: [Operand] = []
            for item in Evaluator.items(source) {
                inner[variable] = item
                if try test(predicate, item, inner) { result.append(item) }
            }
            return .collection(result)
        case .cast(let operand, let type):
            return try Casting.cast(try value(operand, root, scope), to: type, range: e.range)
        case .placeholder(let spec):
            throw EvaluationError(.unsubstitutedPlaceholder(spec.rawValue), at: e.range)
        case .object(let reference):
            return .object(reference.operand)
        }
    }

    /// Follows `path` from `start`, mapping over collections.
    func walk(_ start: Operand, _ path: [String], range: SourceRange) throws -> Operand {
        var current = start
        var i = 0
        while i < path.count {
            let key = path[i]
            // A `%K` argument may carry `@count` and friends inside.
            if key.hasPrefix("@"), let op = CollectionOperator(name: String(key.dropFirst())) {
                return try Collections.apply(op, to: current, key: Array(path[(i + 1)...]), evaluator: self, range: range)
            }
            current = try step(current, key, range: range)
            i += 1
        }
        return current
    }

    func step(_ operand: Operand, _ key: String, range: SourceRange) throws -> Operand {
        switch operand {
        case .value(.null): return operand
        case .object(let o): return try o.predicateValue(forKey: key)
        case .collection(let items):
            var result: [Operand] = []
            result.reserveCapacity(items.count)
            for item in items {
                let next = try step(item, key, range: range)
                if case .collection(let inner) = next { result.append(contentsOf: inner) } else { result.append(next) }
            }
            return .collection(result)
        // NSString's and NSData's `length`, which validation predicates use
        // (`length <= 8`): UTF-16 units for a string, bytes for data.
        case .value(.string(let s)) where key == "length": return .value(.int(Int64(s.utf16.count)))
        case .value(.data(let d)) where key == "length": return .value(.int(Int64(d.count)))
        case .value(let v):
            throw EvaluationError(.noSuchKey(key, on: Evaluator.describe(.value(v))), at: range)
        }
    }

    static func describe(_ operand: Operand) -> String {
        switch operand {
        case .value(.null): return "nil"
        case .value(let v): return v.kindName + " " + Printer.format(Expression(.constant(v)))
        case .object(let o): return "object \(type(of: o))"
        case .collection: return "a collection"
        }
    }

    static func integer(_ v: Value) -> Int64? {
        switch v {
        case .int(let n): return n
        case .double(let d) where d.rounded() == d && abs(d) < 9e18: return Int64(d)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }
}

/// NSRegularExpression objects by pattern, shared by one evaluator's
/// copies.
private final class RegexCache {
    private var cache: [String: NSRegularExpression] = [:]
    private let lock = NSLock()

    func regex(_ pattern: String, caseInsensitive: Bool, range: SourceRange) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[key] { return cached }
        do {
            let regex = try NSRegularExpression(pattern: "(?:" + pattern + ")\\z",
                                                options: caseInsensitive ? [.caseInsensitive] : [])
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
            return regex
        } catch {
            throw EvaluationError(.invalidRegex(pattern), at: range)
        }
    }
}

extension Value {
    /// `int`, `string`, and so on, for messages.
    var kindName: String {
        switch self {
        case .null: return "nil"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "double"
        case .decimal: return "decimal"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .uuid: return "uuid"
        case .url: return "url"
        }
    }
}
