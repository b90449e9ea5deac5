import Foundation
import Predicates
import struct Predicates.Predicate

// A predicate split into the WHERE condition SQL runs and the residual
// memory evaluates, conjunct by conjunct, written into one buffer.
extension SQLTranslator {
    /// Splits `predicate` into what SQL can run and what must be evaluated
    /// in memory: each top-level conjunct goes to one side or the other,
    /// or to both when SQL selects only a superset of its rows (PostgreSQL's
    /// `[c]` on rows that are not all ASCII): memory then decides those.
    mutating func split(_ predicate: Predicate) throws -> (sql: SQL?, residual: Predicate?) {
        var sql = SQL()
        let residual = try split(predicate, into: &sql)
        return (sql.isEmpty ? nil : sql, residual)
    }

    /// ``split(_:)`` writing what SQL runs into `condition`, after what it
    /// holds (joined by ` AND `): a plan's WHERE is written in one buffer.
    /// Returns what memory evaluates.
    mutating func split(_ predicate: Predicate, into condition: inout SQL) throws -> Predicate? {
        // Only TRUEPREDICATE: no condition at all, so that a count needs
        // no WHERE (see `FetchPlan.selectCount`).
        func isTrue(_ p: Predicate) -> Bool { if case .constant(true) = p.kind { return true }; return false }
        guard case .and(let parts) = predicate.kind else {
            if isTrue(predicate) { return nil }
            return try translate(conjunct: predicate, into: &condition) && !approximated ? nil : predicate
        }
        if parts.allSatisfy(isTrue) { return nil }
        var residual: [Predicate] = []
        if parts.count <= Self.groupSize {
            for part in parts {
                if try !translate(conjunct: part, into: &condition) || approximated { residual.append(part) }
            }
        } else {
            // Many conjuncts: in groups, as SQLite's parser takes them.
            var sqls: [SQL] = []
            for part in parts {
                var sql = SQL()
                if try translate(conjunct: part, into: &sql) {
                    sqls.append(sql)
                    if approximated { residual.append(part) }
                } else {
                    residual.append(part)
                }
            }
            if !sqls.isEmpty {
                if !condition.isEmpty { condition += " AND " }
                condition += Self.grouped(sqls[...], separator: " AND ")
            }
        }
        return residual.isEmpty ? nil : residual.count == 1 ? residual[0] : Predicate(.and(residual))
    }

    /// Appends the condition for one conjunct to `out` (after ` AND ` when
    /// `out` holds SQL), or appends nothing and returns false (with
    /// bindings and joins as they were) when SQL cannot express it, or
    /// not within SQLite's limits on parameters.
    mutating func translate(conjunct: Predicate, into out: inout SQL) throws -> Bool {
        let savedBindings = bindings.count
        let savedJoins = (root.joinCount, aliasCounter)
        let mark = out.mark
        func rollBack() {
            bindings.removeSubrange(savedBindings...)
            root.dropJoins(after: savedJoins.0)
            aliasCounter = savedJoins.1
            out.truncate(to: mark)
        }
        polarity = dialect.approximates ? true : nil
        approximated = false
        defer { polarity = nil }
        do {
            if !out.isEmpty { out += " AND " }
            try write(conjunct, in: root, twoValued: false, into: &out)
            if bindings.count > Self.maximumBindings {
                rollBack()
                return false
            }
            return true
        } catch is Untranslatable {
            rollBack()
            return false
        }
    }
}
