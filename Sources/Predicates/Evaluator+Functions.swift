import Foundation

// Collection operators, functions and CAST for the evaluator.

enum Collections {
    static func apply(_ op: CollectionOperator, to target: Operand, key: [String],
                      evaluator: Evaluator, range: SourceRange) throws -> Operand {
        if op == .count, key.isEmpty {
            switch target {
            case .collection(let items): return .value(.int(Int64(items.count)))
            case .value(.null): return .value(.int(0))
            default: return .value(.int(1))
            }
        }
        var items = Evaluator.items(target)
        switch op {
        case .unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets:
            items = items.flatMap { Evaluator.items($0) }
        default: break
        }
        if !key.isEmpty {
            var mapped: [Operand] = []
            for item in items {
                let v = try evaluator.walk(item, key, range: range)
                switch op {
                case .unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets:
                    mapped.append(contentsOf: Evaluator.items(v))
                default:
                    mapped.append(v)
                }
            }
            items = mapped
        }
        switch op {
        case .count:
            return .value(.int(Int64(items.count)))
        case .sum:
            return try Aggregates.sum(items, range: range)
        case .avg:
            return try Aggregates.keyValueAverage(items, range: range)
        case .min, .max:
            return try Aggregates.extreme(items, max: op == .max, range: range)
        case .unionOfObjects, .unionOfArrays:
            return .collection(items.filter { !$0.isNull })
        case .distinctUnionOfObjects, .distinctUnionOfArrays, .distinctUnionOfSets:
            return .collection(Aggregates.distinct(items.filter { !$0.isNull }))
        }
    }
}

enum Aggregates {
    static func numbers(_ items: [Operand], op: String, range: SourceRange) throws -> [Number] {
        var result: [Number] = []
        for item in items {
            if item.isNull { continue }
            guard case .value(let v) = item, let n = Number(v) else {
                throw EvaluationError(.typeMismatch(op, Evaluator.describe(item)), at: range)
            }
            result.append(n)
        }
        return result
    }

    static func sum(_ items: [Operand], range: SourceRange) throws -> Operand {
        var total = Number.int(0)
        for n in try numbers(items, op: "sum", range: range) {
            total = try Arithmetic.apply(.add, total, n, range: range)
        }
        return .value(total.value)
    }

    static func average(_ items: [Operand], range: SourceRange) throws -> Operand {
        let values = try numbers(items, op: "average", range: range)
        guard !values.isEmpty else { return .value(.null) }
        var total = Number.int(0)
        for n in values { total = try Arithmetic.apply(.add, total, n, range: range) }
        if case .decimal(let d) = total { return .value(.decimal(d / Decimal(values.count))) }
        return .value(.double(total.double / Double(values.count)))
    }

    /// `@avg`, as the Key-Value Coding Programming Guide (Using
    /// Collection Operators) documents it: "valueForKeyPath: reads the
    /// property specified by the right key path for each element of the
    /// collection, converts it to a double (substituting 0 for nil
    /// values), and computes the arithmetic average of these". So a nil
    /// counts as 0 and is counted; an empty collection gives nil.
    /// (NSExpression's `average:` function documents no such rule and
    /// skips nils, as SQL's AVG does.)
    static func keyValueAverage(_ items: [Operand], range: SourceRange) throws -> Operand {
        try average(items.map { $0.isNull ? .value(.int(0)) : $0 }, range: range)
    }

    static func extreme(_ items: [Operand], max: Bool, range: SourceRange) throws -> Operand {
        var best: Value?
        for item in items where !item.isNull {
            guard case .value(let v) = item else {
                throw EvaluationError(.typeMismatch(max ? "max" : "min", Evaluator.describe(item)), at: range)
            }
            guard let current = best else { best = v; continue }
            guard let order = Evaluator.order(v, current, []) else {
                throw EvaluationError(.typeMismatch(max ? "max" : "min", Evaluator.describe(item),
                                                    Evaluator.describe(.value(current))), at: range)
            }
            if max ? order > 0 : order < 0 { best = v }
        }
        return .value(best ?? .null)
    }

    static func distinct(_ items: [Operand]) -> [Operand] {
        var result: [Operand] = []
        for item in items where !result.contains(where: { Evaluator.equal($0, item, []) }) {
            result.append(item)
        }
        return result
    }

    static func median(_ items: [Operand], range: SourceRange) throws -> Operand {
        let values = try numbers(items, op: "median", range: range).sorted { (Number.compare($0, $1) ?? 0) < 0 }
        guard !values.isEmpty else { return .value(.null) }
        if values.count % 2 == 1 { return .value(values[values.count / 2].value) }
        let sum = try Arithmetic.apply(.add, values[values.count / 2 - 1], values[values.count / 2], range: range)
        return .value(try Arithmetic.apply(.divide, sum, .int(2), range: range).value)
    }

    static func mode(_ items: [Operand]) -> Operand {
        var counts: [(Operand, Int)] = []
        for item in items where !item.isNull {
            if let i = counts.firstIndex(where: { Evaluator.equal($0.0, item, []) }) {
                counts[i].1 += 1
            } else {
                counts.append((item, 1))
            }
        }
        let top = counts.map(\.1).max() ?? 0
        return .collection(counts.filter { $0.1 == top }.map(\.0))
    }

    static func stddev(_ items: [Operand], range: SourceRange) throws -> Operand {
        let values = try numbers(items, op: "stddev", range: range).map(\.double)
        guard !values.isEmpty else { return .value(.null) }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        return .value(.double(variance.squareRoot()))
    }
}

extension Evaluator {
    func call(_ function: Function, _ args: [Operand], range: SourceRange) throws -> Operand {
        func list() -> [Operand] { args.count == 1 ? Evaluator.items(args[0]) : args }
        func number(_ i: Int) throws -> Number? {
            guard case .value(let v) = args[i] else {
                throw EvaluationError(.typeMismatch(function.selector, Evaluator.describe(args[i])), at: range)
            }
            if v.isNull { return nil }
            guard let n = Number(v) else {
                throw EvaluationError(.typeMismatch(function.selector, Evaluator.describe(args[i])), at: range)
            }
            return n
        }
        func integer(_ i: Int) throws -> Int64? {
            guard let n = try number(i) else { return nil }
            guard case .int(let value) = n else {
                throw EvaluationError(.typeMismatch(function.selector, Evaluator.describe(args[i])), at: range)
            }
            return value
        }
        func unary(_ f: (Double) -> Double) throws -> Operand {
            guard let n = try number(0) else { return .value(.null) }
            return .value(.double(f(n.double)))
        }
        func binary(_ op: ArithmeticOperator) throws -> Operand {
            .value(try Arithmetic.apply(op, args[0], args[1], range: range))
        }
        func bitwise(_ f: (Int64, Int64) -> Int64) throws -> Operand {
            guard let a = try integer(0), let b = try integer(1) else { return .value(.null) }
            return .value(.int(f(a, b)))
        }
        func string(_ f: (String) -> String) throws -> Operand {
            switch args[0] {
            case .value(.string(let s)): return .value(.string(f(s)))
            case .value(.null): return .value(.null)
            default: throw EvaluationError(.typeMismatch(function.selector, Evaluator.describe(args[0])), at: range)
            }
        }
        func rounding(_ rule: FloatingPointRoundingRule) throws -> Operand {
            guard let n = try number(0) else { return .value(.null) }
            switch n {
            case .int: return .value(n.value)
            case .double(let d): return .value(.double(d.rounded(rule)))
            case .decimal(var d):
                var result = Decimal()
                let mode: NSDecimalNumber.RoundingMode = rule == .down ? .down : rule == .up ? .up : (d < 0 ? .up : .down)
                NSDecimalRound(&result, &d, 0, mode)
                return .value(.decimal(result))
            }
        }

        switch function {
        case .sum: return try Aggregates.sum(list(), range: range)
        case .count: return .value(.int(Int64(list().filter { !$0.isNull }.count)))
        case .min: return try Aggregates.extreme(list(), max: false, range: range)
        case .max: return try Aggregates.extreme(list(), max: true, range: range)
        case .average: return try Aggregates.average(list(), range: range)
        case .median: return try Aggregates.median(list(), range: range)
        case .mode: return Aggregates.mode(list())
        case .stddev: return try Aggregates.stddev(list(), range: range)
        case .add: return try binary(.add)
        case .subtract: return try binary(.subtract)
        case .multiply: return try binary(.multiply)
        case .divide: return try binary(.divide)
        case .raise: return try binary(.power)
        case .modulus:
            guard let a = try number(0), let b = try number(1) else { return .value(.null) }
            if case .int(let x) = a, case .int(let y) = b {
                guard y != 0 else { throw EvaluationError(.divisionByZero, at: range) }
                return .value(.int(y == -1 ? 0 : x % y))
            }
            guard b.double != 0 else { throw EvaluationError(.divisionByZero, at: range) }
            return .value(.double(fmod(a.double, b.double)))
        case .sqrt: return try unary { $0.squareRoot() }
        case .log: return try unary { Foundation.log10($0) }
        case .ln: return try unary { Foundation.log($0) }
        case .exp: return try unary { Foundation.exp($0) }
        case .floor: return try rounding(.down)
        case .ceiling: return try rounding(.up)
        case .trunc: return try rounding(.towardZero)
        case .abs:
            guard let n = try number(0) else { return .value(.null) }
            switch n {
            case .int(let x): return .value(x == .min ? .double(-Double(x)) : .int(Swift.abs(x)))
            case .double(let d): return .value(.double(Swift.abs(d)))
            case .decimal(let d): return .value(.decimal(d < 0 ? -d : d))
            }
        case .random: return .value(.double(Double.random(in: 0..<1)))
        case .randomElement: return list().randomElement() ?? .value(.null)
        case .randomn:
            guard let n = try integer(0) else { return .value(.null) }
            return .value(.int(n > 0 ? Int64.random(in: 0..<n) : 0))
        case .now: return .value(.date(Date()))
        case .uppercase: return try string { $0.uppercased() }
        case .lowercase: return try string { $0.lowercased() }
        case .bitwiseAnd: return try bitwise { $0 & $1 }
        case .bitwiseOr: return try bitwise { $0 | $1 }
        case .bitwiseXor: return try bitwise { $0 ^ $1 }
        case .leftshift: return try bitwise { $1 >= 64 || $1 < 0 ? 0 : $0 << $1 }
        case .rightshift: return try bitwise { $1 >= 64 || $1 < 0 ? ($0 < 0 ? -1 : 0) : $0 >> $1 }
        case .onesComplement:
            guard let a = try integer(0) else { return .value(.null) }
            return .value(.int(~a))
        case .noindex: return args[0]
        case .length:
            switch args[0] {
            case .value(.string(let s)): return .value(.int(Int64(s.utf16.count)))
            case .value(.null): return .value(.null)
            case .collection(let items): return .value(.int(Int64(items.count)))
            default: throw EvaluationError(.typeMismatch(function.selector, Evaluator.describe(args[0])), at: range)
            }
        }
    }

    /// `FUNCTION(receiver, selector, args…)`: objects answer through
    /// ``PredicateObject/predicateInvoke(selector:arguments:)``; otherwise
    /// a predefined function's selector is called with the receiver as its
    /// first argument, and a few NSString selectors are known.
    func invoke(_ selector: String, on receiver: Operand, _ args: [Operand], range: SourceRange) throws -> Operand {
        if case .object(let object) = receiver {
            return try object.predicateInvoke(selector: selector, arguments: args)
        }
        if let function = Function(selector: selector) ?? Function(selector: selector + ":"),
           function.arity == nil || function.arity == args.count + 1 {
            return try call(function, [receiver] + args, range: range)
        }
        if case .value(.string(let s)) = receiver, args.isEmpty {
            switch selector {
            case "lowercaseString": return .value(.string(s.lowercased()))
            case "uppercaseString": return .value(.string(s.uppercased()))
            case "capitalizedString": return .value(.string(s.capitalized))
            case "length": return .value(.int(Int64(s.utf16.count)))
            case "lastPathComponent": return .value(.string((s as NSString).lastPathComponent))
            case "pathExtension": return .value(.string((s as NSString).pathExtension))
            case "stringByDeletingPathExtension": return .value(.string((s as NSString).deletingPathExtension))
            default: break
            }
        }
        if case .value(.null) = receiver { return receiver }
        throw EvaluationError(.unknownSelector(selector, on: Evaluator.describe(receiver)), at: range)
    }
}

enum Casting {
    static func cast(_ operand: Operand, to type: CastType, range: SourceRange) throws -> Operand {
        guard case .value(let v) = operand else {
            throw EvaluationError(.castFailed(Evaluator.describe(operand), type: type.rawValue), at: range)
        }
        if v.isNull { return operand }
        func fail() -> EvaluationError {
            EvaluationError(.castFailed(Evaluator.describe(operand), type: type.rawValue), at: range)
        }
        switch type {
        case .date:
            switch v {
            case .date: return operand
            case .string(let s):
                if let d = Double(s) { return .value(.date(Date(timeIntervalSinceReferenceDate: d))) }
                if let tokens = try? Lexer.tokenize("@" + s), tokens.count == 2, tokens[0].kind == .date {
                    let d = tokens[0].dateValue
                    return .value(.date(d))
                }
                throw fail()
            default:
                guard let n = Number(v) else { throw fail() }
                return .value(.date(Date(timeIntervalSinceReferenceDate: n.double)))
            }
        case .number:
            switch v {
            case .int, .double: return operand
            case .bool(let b): return .value(.int(b ? 1 : 0))
            case .decimal(let d): return .value(.double(NSDecimalNumber(decimal: d).doubleValue))
            case .date(let d): return .value(.double(d.timeIntervalSinceReferenceDate))
            case .string(let s):
                let trimmed = s.trimmingCharacters(in: .whitespaces)
                if let n = Int64(trimmed) { return .value(.int(n)) }
                if let d = Double(trimmed) { return .value(.double(d)) }
                throw fail()
            default: throw fail()
            }
        case .string:
            switch v {
            case .string: return operand
            case .int(let n): return .value(.string(String(n)))
            case .double(let d): return .value(.string(d.description))
            case .decimal(let d): return .value(.string(d.description))
            case .bool(let b): return .value(.string(b ? "1" : "0"))
            case .date(let d): return .value(.string(String((Printer.dateLiteral(d) ?? d.description).drop { $0 == "@" })))
            case .uuid(let u): return .value(.string(u.uuidString))
            case .url(let u): return .value(.string(u.absoluteString))
            case .data(let d): return .value(.string(d.base64EncodedString()))
            case .null: return operand
            }
        case .decimal:
            switch v {
            case .decimal: return operand
            case .string(let s):
                guard let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else { throw fail() }
                return .value(.decimal(d))
            default:
                guard let n = Number(v) else { throw fail() }
                return .value(.decimal(n.decimal))
            }
        case .uuid:
            if case .uuid = v { return operand }
            guard case .string(let s) = v, let u = UUID(uuidString: s) else { throw fail() }
            return .value(.uuid(u))
        case .url:
            if case .url = v { return operand }
            guard case .string(let s) = v, let u = URL(string: s) else { throw fail() }
            return .value(.url(u))
        case .data:
            switch v {
            case .data: return operand
            case .string(let s):
                guard let d = Data(base64Encoded: s) else { throw fail() }
                return .value(.data(d))
            default: throw fail()
            }
        }
    }
}
