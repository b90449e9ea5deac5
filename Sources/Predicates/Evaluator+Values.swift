import Foundation

// Value comparison, string matching and numbers for the evaluator.

extension Evaluator {
    static func equal(_ a: Operand, _ b: Operand, _ options: Comparison.Options) -> Bool {
        switch (a, b) {
        case (.value(let x), .value(let y)): return equal(x, y, options)
        case (.object(let x), .object(let y)): return x === y || sameObject(x, y)
        case (.collection(let xs), .collection(let ys)):
            return xs.count == ys.count && zip(xs, ys).allSatisfy { equal($0, $1, options) }
        default: return false
        }
    }

    /// Whether one of two distinct objects is an object reference naming
    /// the other (a managed object passed for `%@` and the object met).
    static func sameObject(_ x: any PredicateObject, _ y: any PredicateObject) -> Bool {
        if let reference = ReferenceOperand.referent(of: x) {
            let other: any PredicateObject = ReferenceOperand.referent(of: y) ?? y
            return reference.refers(to: other)
        }
        if let reference = ReferenceOperand.referent(of: y) { return reference.refers(to: x) }
        return false
    }

    static func equal(_ a: Value, _ b: Value, _ options: Comparison.Options) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)):
            if options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive]) { return x.utf8.elementsEqual(y.utf8) }
            return fold(x, options).utf8.elementsEqual(fold(y, options).utf8)
        case (.date(let x), .date(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.url(let x), .url(let y)): return x == y
        // As Core Data's SQLite store compares them: a UUID with the string
        // that spells it (in either case), a URL with its absolute string.
        case (.uuid(let u), .string(let s)), (.string(let s), .uuid(let u)): return UUID(uuidString: s) == u
        case (.url(let u), .string(let s)): return equal(.string(u.absoluteString), .string(s), options)
        case (.string(let s), .url(let u)): return equal(.string(s), .string(u.absoluteString), options)
        default:
            guard let x = Number(a), let y = Number(b) else { return false }
            return Number.compare(x, y) == 0
        }
    }

    /// -1, 0 or 1; nil when the values have no order (nil, mixed kinds).
    static func order(_ a: Value, _ b: Value, _ options: Comparison.Options) -> Int? {
        switch (a, b) {
        case (.url(let u), .string):
            return order(.string(u.absoluteString), b, options)
        case (.string, .url(let u)):
            return order(a, .string(u.absoluteString), options)
        case (.string(let x), .string(let y)):
            let fx = fold(x, options), fy = fold(y, options)
            if fx.utf8.elementsEqual(fy.utf8) { return 0 }
            return fx.utf8.lexicographicallyPrecedes(fy.utf8) ? -1 : 1
        case (.date(let x), .date(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        default:
            guard let x = Number(a), let y = Number(b) else { return nil }
            return Number.compare(x, y)
        }
    }

    /// The text string operators read: a string, a URL's absolute string,
    /// a UUID's uppercase spelling.
    static func text(of operand: Operand) -> String? {
        switch operand {
        case .value(.string(let s)): return s
        case .value(.url(let u)): return u.absoluteString
        case .value(.uuid(let u)): return u.uuidString
        default: return nil
        }
    }

    static func fold(_ s: String, _ options: Comparison.Options) -> String {
        var compare: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compare.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compare.insert(.diacriticInsensitive) }
        if compare.isEmpty { return s }
        return s.folding(options: compare, locale: nil)
    }

    static func containsString(_ haystack: String, _ needle: String, _ options: Comparison.Options) -> Bool {
        guard !needle.isEmpty else { return false }
        let h = Array(fold(haystack, options).utf8), n = Array(fold(needle, options).utf8)
        // A needle that folded to nothing would be in every string, as
        // every string begins with it (no single character folds so; the
        // guard keeps n[0] below from ever trapping).
        guard !n.isEmpty else { return true }
        guard n.count <= h.count else { return false }
        for start in 0...(h.count - n.count) where h[start] == n[0] {
            if h[start..<(start + n.count)].elementsEqual(n) { return true }
        }
        return false
    }

    /// Whole-string LIKE: `*` any run, `?` one character, `\` escapes.
    static func like(_ s: String, _ pattern: String) -> Bool {
        let text = Array(s.unicodeScalars)
        var tokens: [(scalar: Unicode.Scalar, wildcard: Bool)] = []
        var iterator = pattern.unicodeScalars.makeIterator()
        while let c = iterator.next() {
            if c == "\\" {
                tokens.append((iterator.next() ?? "\\", false))
            } else {
                tokens.append((c, c == "*" || c == "?"))
            }
        }
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < tokens.count, tokens[p].wildcard, tokens[p].scalar == "*" {
                starP = p
                starT = t
                p += 1
            } else if p < tokens.count, (tokens[p].wildcard && tokens[p].scalar == "?") || (!tokens[p].wildcard && tokens[p].scalar == text[t]) {
                p += 1
                t += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p].wildcard, tokens[p].scalar == "*" { p += 1 }
        return p == tokens.count
    }
}

/// A numeric view of a value: booleans are 0 and 1.
enum Number {
    case int(Int64), double(Double), decimal(Decimal)

    init?(_ value: Value) {
        switch value {
        case .int(let n): self = .int(n)
        case .double(let d): self = .double(d)
        case .decimal(let d): self = .decimal(d)
        case .bool(let b): self = .int(b ? 1 : 0)
        default: return nil
        }
    }

    var value: Value {
        switch self {
        case .int(let n): return .int(n)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal(d)
        }
    }

    var double: Double {
        switch self {
        case .int(let n): return Double(n)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        }
    }

    /// The number as a decimal. A double is taken as its shortest
    /// decimal spelling — `19.99`, not the binary value's
    /// 19.98999999999999843… — as a double stored in a Decimal attribute
    /// is, so that `price == 19.99` finds the price stored from `19.99`.
    var decimal: Decimal {
        switch self {
        case .int(let n): return Decimal(n)
        case .double(let d):
            if let shortest = Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX")), !shortest.isNaN { return shortest }
            return Decimal(d)
        case .decimal(let d): return d
        }
    }

    /// -1, 0, 1, or nil when NaN is involved.
    static func compare(_ a: Number, _ b: Number) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.int(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .int(let y)): return compare(y, x).map { -$0 }
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x == y ? 0 : (x < y ? -1 : 1)
        default:
            if case .double(let d) = a, d.isNaN { return nil }
            if case .double(let d) = b, d.isNaN { return nil }
            if case .double(let d) = a, d.isInfinite { return d < 0 ? -1 : 1 }
            if case .double(let d) = b, d.isInfinite { return d < 0 ? 1 : -1 }
            let x = a.decimal, y = b.decimal
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    /// Exact comparison of an integer with a double.
    static func compare(_ i: Int64, _ d: Double) -> Int? {
        if d.isNaN { return nil }
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = d.rounded(.towardZero)
        let w = Int64(whole)
        if i != w { return i < w ? -1 : 1 }
        let fraction = d - whole
        return fraction == 0 ? 0 : (fraction > 0 ? -1 : 1)
    }
}

/// `+ - * / **` on values.
enum Arithmetic {
    static func apply(_ op: ArithmeticOperator, _ a: Operand, _ b: Operand, range: SourceRange) throws -> Value {
        guard case .value(let x) = a, case .value(let y) = b else {
            throw EvaluationError(.typeMismatch(op.rawValue, Evaluator.describe(a), Evaluator.describe(b)), at: range)
        }
        return try apply(op, x, y, range: range)
    }

    static func apply(_ op: ArithmeticOperator, _ x: Value, _ y: Value, range: SourceRange) throws -> Value {
        if x.isNull || y.isNull { return .null }
        switch (op, x, y) {
        case (.add, .date(let d), _):
            if let n = Number(y) { return .date(d.addingTimeInterval(n.double)) }
        case (.add, _, .date(let d)):
            if let n = Number(x) { return .date(d.addingTimeInterval(n.double)) }
        case (.subtract, .date(let d), .date(let e)):
            return .double(d.timeIntervalSince(e))
        case (.subtract, .date(let d), _):
            if let n = Number(y) { return .date(d.addingTimeInterval(-n.double)) }
        default:
            break
        }
        guard let a = Number(x), let b = Number(y) else {
            throw EvaluationError(.typeMismatch(op.rawValue, Evaluator.describe(.value(x)), Evaluator.describe(.value(y))),
                                  at: range)
        }
        return try apply(op, a, b, range: range).value
    }

    static func apply(_ op: ArithmeticOperator, _ a: Number, _ b: Number, range: SourceRange) throws -> Number {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            switch op {
            case .add:
                let (r, o) = x.addingReportingOverflow(y)
                return o ? .double(Double(x) + Double(y)) : .int(r)
            case .subtract:
                let (r, o) = x.subtractingReportingOverflow(y)
                return o ? .double(Double(x) - Double(y)) : .int(r)
            case .multiply:
                let (r, o) = x.multipliedReportingOverflow(by: y)
                return o ? .double(Double(x) * Double(y)) : .int(r)
            case .divide:
                guard y != 0 else { throw EvaluationError(.divisionByZero, at: range) }
                let (q, o) = x.dividedReportingOverflow(by: y)
                if !o, q.multipliedReportingOverflow(by: y) == (x, false) { return .int(q) }
                return .double(Double(x) / Double(y))
            case .power:
                if y >= 0 {
                    var result: Int64 = 1
                    var overflow = false
                    for _ in 0..<min(y, 64) where !overflow {
                        let (r, o) = result.multipliedReportingOverflow(by: x)
                        result = r
                        overflow = o
                    }
                    if !overflow && (y <= 64 || x == 0 || x == 1) { return .int(result) }
                    if !overflow && x == -1 { return .int(y % 2 == 0 ? 1 : -1) }
                }
                return .double(pow(Double(x), Double(y)))
            }
        case (.decimal, _), (_, .decimal):
            if case .double(let d) = a, !d.isFinite { return try apply(op, a, .double(b.double), range: range) }
            if case .double(let d) = b, !d.isFinite { return try apply(op, .double(a.double), b, range: range) }
            let x = a.decimal, y = b.decimal
            switch op {
            case .add: return .decimal(x + y)
            case .subtract: return .decimal(x - y)
            case .multiply: return .decimal(x * y)
            case .divide:
                guard y != 0 else { throw EvaluationError(.divisionByZero, at: range) }
                return .decimal(x / y)
            case .power:
                if case .int(let n) = b, n >= 0, n <= 1000 { return .decimal(Foundation.pow(x, Int(n))) }
                return .double(pow(a.double, b.double))
            }
        default:
            let x = a.double, y = b.double
            switch op {
            case .add: return .double(x + y)
            case .subtract: return .double(x - y)
            case .multiply: return .double(x * y)
            case .divide:
                guard y != 0 else { throw EvaluationError(.divisionByZero, at: range) }
                return .double(x / y)
            case .power: return .double(pow(x, y))
            }
        }
    }
}
