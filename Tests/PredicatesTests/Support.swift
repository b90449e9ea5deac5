import Foundation
@testable import Predicates

/// SplitMix64: a tiny seeded generator, so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random canonical trees: every tree the parser could produce.
struct TreeGenerator {
    var rng: SplitMix64
    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    static let keys = ["age", "name", "first", "kids", "size", "in", "x1", "_y", "café", "dept", "Select", "any"]
    static let variables = ["x", "kid", "v2"]

    mutating func predicate(depth: Int) -> Predicate {
        if depth <= 0 { return chance(0.1) ? Predicate(.constant(chance(0.5))) : Predicate(.comparison(comparison(depth: 0))) }
        switch int(0...9) {
        case 0: return Predicate(.constant(chance(0.5)))
        case 1: return Predicate(.not(predicate(depth: depth - 1)))
        case 2, 3: return Predicate(.and((0..<int(2...3)).map { _ in predicate(depth: depth - 1) }))
        case 4, 5: return Predicate(.or((0..<int(2...3)).map { _ in predicate(depth: depth - 1) }))
        default: return Predicate(.comparison(comparison(depth: depth - 1)))
        }
    }

    mutating func comparison(depth: Int) -> Comparison {
        let modifier = pick(Comparison.Modifier.allCases)
        let op = pick(Comparison.Operator.allCases)
        let options = Comparison.Options(rawValue: UInt8(int(0...7)))
        return Comparison(modifier, op, expression(depth: depth), expression(depth: depth), options: options)
    }

    mutating func keyPath() -> [String] { (0..<int(1...3)).map { _ in pick(TreeGenerator.keys) } }

    mutating func value() -> Value {
        switch int(0...13) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2: return .int(Int64(int(-1000...1000)))
        case 3: return .int(pick([Int64.min, Int64.max, 0, -1]))
        case 4: return .double(Double(int(-100_000...100_000)) / 64)
        case 5: return .double(pick([1e300, -2.5e-8, 0.1, -0.0, .infinity, -.infinity, 123456.789]))
        case 6: return .decimal(Decimal(string: pick(["1.5", "-0.001", "12345678901234567890.25", "0"]))!)
        case 7, 8: return .string(string())
        case 9: return .date(Date(timeIntervalSinceReferenceDate: Double(int(-2_000_000_000...2_000_000_000))))
        case 10: return .date(Date(timeIntervalSinceReferenceDate: Double(int(-1_000_000...1_000_000)) + 0.25))
        case 11: return .uuid(UUID(uuid: (UInt8(int(0...255)), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(int(0...255)))))
        case 12: return .url(URL(string: pick(["https://example.com/a?b=c", "file:///tmp/x", "mailto:a@b.c"]))!)
        default: return .data(Data((0..<int(0...6)).map { _ in UInt8(int(0...255)) }))
        }
    }

    mutating func string() -> String {
        let alphabet: [String] = ["a", "Z", " ", "\"", "'", "\\", "\n", "\t", "\0", "é", "ß", "😀", "%", "*", "?", "\u{1}", "\u{7F}", "e\u{301}"]
        return (0..<int(0...6)).map { _ in pick(alphabet) }.joined()
    }

    mutating func leaf() -> Expression {
        switch int(0...7) {
        case 0, 1, 2: return Expression(.constant(value()))
        case 3, 4: return Expression(.keyPath(keyPath()))
        case 5: return Expression(.evaluatedObject)
        case 6: return Expression(.variable(pick(TreeGenerator.variables)))
        default: return Expression(.placeholder(pick([.object, .keyPath, .int, .float, .longLong, .unsigned])))
        }
    }

    mutating func expression(depth: Int) -> Expression {
        if depth <= 0 || chance(0.3) { return leaf() }
        let d = depth - 1
        switch int(0...12) {
        case 0: return Expression(.aggregate((0..<int(0...3)).map { _ in expression(depth: d) }))
        case 1:
            let f = pick(Function.allCases)
            let count = f.arity ?? int(1...2)
            return Expression(.function(f, (0..<count).map { _ in expression(depth: d) }))
        case 2:
            return Expression(.method(receiver: expression(depth: d), selector: pick(["uppercase:", "length", "foo:bar:"]),
                                      arguments: (0..<int(0...2)).map { _ in expression(depth: d) }))
        case 3, 4: return Expression(.binary(pick(ArithmeticOperator.allCases), expression(depth: d), expression(depth: d)))
        case 5: return Expression(.negate(expression(depth: d)))
        case 6:
            let index: Index = pick([.first, .last, .size, .at(expression(depth: d))])
            return Expression(.index(expression(depth: d), index))
        case 7:
            let base = pick([Expression(.keyPath(keyPath())), Expression(.evaluatedObject),
                             Expression(.variable("x")), expression(depth: d)])
            let key = chance(0.5) ? [] : keyPath()
            return Expression(.collection(pick(CollectionOperator.allCases), base, key: key))
        case 8:
            var base = expression(depth: d)
            switch base.kind {
            case .keyPath, .evaluatedObject, .member: base = Expression(.variable(pick(TreeGenerator.variables)))
            default: break
            }
            return Expression(.member(base, keyPath()))
        case 9:
            return Expression(.subquery(collection: expression(depth: d), variable: pick(TreeGenerator.variables),
                                        predicate: predicate(depth: d)))
        case 10:
            var operand = expression(depth: d)
            if case .constant = operand.kind { operand = Expression(.keyPath(keyPath())) }
            return Expression(.cast(operand, pick(CastType.allCases)))
        default:
            return leaf()
        }
    }
}

/// Finds `Sources/`, `Grammar/` from this file.
enum RepoPaths {
    static func root(_ file: String = #filePath) -> URL {
        URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

// Foundation has its own `Predicate` and `Expression`; this module's
// declarations win over imported ones.
typealias Predicate = Predicates.Predicate
typealias Expression = Predicates.Expression
