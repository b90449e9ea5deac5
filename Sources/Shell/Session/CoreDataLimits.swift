import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// What Core Data's own SQLite store refuses to fetch with, that mrq runs
/// anyway: `explain` says so, for a learner who will use the predicate
/// with Core Data.
///
/// Core Data's SQL store compiles a fetch's predicate to SQL and runs it in
/// the database, so it refuses what SQL cannot say: regular expressions
/// (MATCHES works in memory only, not with an SQLite store) and methods
/// called with FUNCTION, which are Objective-C code (Apple's Core Data
/// Programming Guide, "Persistent Store Types and Behaviors"; Apple's
/// NSPredicate documentation says the same of block predicates).
enum CoreDataLimits {
    /// One line per kind of refused construct the predicates use.
    static func notes(for predicates: [Predicate]) -> [String] {
        var found = Found()
        predicates.forEach { found.visit($0) }
        var notes: [String] = []
        if found.matches {
            notes.append(ShellDiagnostics.coreDataRefusesMatches)
        }
        if let selector = found.method {
            notes.append(ShellDiagnostics.coreDataRefusesFunction(selector))
        }
        return notes
    }

    private struct Found {
        var matches = false
        var method: String?

        mutating func visit(_ p: Predicate) {
            switch p.kind {
            case .constant: break
            case .not(let inner): visit(inner)
            case .and(let parts), .or(let parts): parts.forEach { visit($0) }
            case .comparison(let c):
                if c.op == .matches { matches = true }
                visit(c.lhs)
                visit(c.rhs)
            }
        }

        mutating func visit(_ e: Expression) {
            if case .method(_, let selector, _) = e.kind, method == nil { method = selector }
            if case .subquery(_, _, let predicate) = e.kind { visit(predicate) }
            e.children.forEach { visit($0) }
        }
    }
}
