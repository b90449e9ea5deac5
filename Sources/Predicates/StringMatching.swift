import Foundation

/// The evaluator's string rules as plain functions, for code that must
/// agree with it exactly: the SQL functions the store registers call these,
/// so `BEGINSWITH[cd]`, `LIKE` and `MATCHES` mean the same in SQL as in
/// memory.
///
/// ```swift
/// StringMatching.fold("Zoë", [.caseInsensitive, .diacriticInsensitive])   // "zoe"
/// try StringMatching.test(.like, "report.txt", "*.txt", options: [])      // true
/// ```
public enum StringMatching {
    /// `[c]` and `[d]` folding, as comparisons apply it to both sides.
    public static func fold(_ s: String, _ options: Comparison.Options) -> String {
        Evaluator.fold(s, options)
    }

    nonisolated(unsafe) private static let evaluator = Evaluator()

    /// Whether `s op pattern` holds for a string operator (`BEGINSWITH`,
    /// `ENDSWITH`, `CONTAINS`, `LIKE`, `MATCHES`) or a comparison, with
    /// `options`. Throws for an invalid regular expression.
    public static func test(_ op: Comparison.Operator, _ s: String, _ pattern: String, options: Comparison.Options) throws -> Bool {
        switch op {
        case .beginsWith:
            guard !pattern.isEmpty else { return false }
            return fold(s, options).utf8.starts(with: fold(pattern, options).utf8)
        case .endsWith:
            guard !pattern.isEmpty else { return false }
            return fold(s, options).utf8.reversed().starts(with: fold(pattern, options).utf8.reversed())
        case .contains, .in:
            return op == .contains ? Evaluator.containsString(s, pattern, options) : Evaluator.containsString(pattern, s, options)
        case .like:
            return Evaluator.like(fold(s, options), fold(pattern, options))
        case .matches:
            return try evaluator.matches(s, pattern, options, range: .unknown)
        default:
            let c = Comparison(.direct, op, .constant(.string(s)), .constant(.string(pattern)), options: options)
            return try evaluator.evaluate(Predicate(.comparison(c)), on: .value(.null))
        }
    }
}
