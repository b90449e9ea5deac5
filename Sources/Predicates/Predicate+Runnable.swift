import Foundation

extension Predicate {
    /// Throws the first error evaluating the predicate is certain to meet,
    /// without evaluating it: a format placeholder never given an argument
    /// (`FirstName LIKE %@` alone), a BETWEEN whose right side is not a
    /// pair (`age BETWEEN 16`), a MATCHES pattern that is no regular
    /// expression (`MATCHES "("`) and a division by a constant zero. The error and its range are the ones
    /// evaluation throws, so that whoever checks first (the shell's
    /// `explain`, which plans without evaluating) reports what running
    /// reports.
    ///
    /// ```swift
    /// try Predicate(format: "age BETWEEN 16").checkRunnable()
    /// // throws: BETWEEN needs a two-value aggregate such as {1, 10}
    /// ```
    public func checkRunnable() throws(EvaluationError) {
        switch kind {
        case .constant: return
        case .not(let inner): try inner.checkRunnable()
        case .and(let parts), .or(let parts):
            for part in parts { try part.checkRunnable() }
        case .comparison(let c):
            try c.lhs.checkRunnable()
            try c.rhs.checkRunnable()
            if c.op == .between, !c.rhs.couldBePair {
                throw EvaluationError(.betweenNeedsPair, at: c.rhs.range)
            }
            if c.op == .matches, case .constant(.string(let pattern)) = c.rhs.kind,
               (try? NSRegularExpression(pattern: "(?:" + pattern + ")\\z")) == nil {
                throw EvaluationError(.invalidRegex(pattern), at: c.rhs.range)
            }
        }
    }
}

extension Expression {
    /// Throws for a placeholder left in the expression (see
    /// ``Predicate/checkRunnable()``).
    public func checkRunnable() throws(EvaluationError) {
        switch kind {
        case .placeholder(let spec):
            throw EvaluationError(.unsubstitutedPlaceholder(spec.rawValue), at: range)
        case .binary(.divide, _, let rhs):
            if case .constant(let divisor) = rhs.kind, divisor.isZeroNumber {
                for child in children { try child.checkRunnable() }
                throw EvaluationError(.divisionByZero, at: range)
            }
        case .subquery(let collection, _, let predicate):
            try collection.checkRunnable()
            try predicate.checkRunnable()
            return
        default:
            break
        }
        for child in children { try child.checkRunnable() }
    }

    /// False when the expression is certain not to give two values: a
    /// single constant, or an aggregate of another length.
    var couldBePair: Bool {
        switch kind {
        case .constant, .negate, .binary: return false
        case .aggregate(let list): return list.count == 2
        default: return true
        }
    }
}

extension Value {
    /// True for the numbers 0 and 0.0.
    var isZeroNumber: Bool {
        switch self {
        case .int(let n): return n == 0
        case .double(let d): return d == 0
        case .decimal(let d): return d == 0
        default: return false
        }
    }
}
