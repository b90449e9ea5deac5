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
            switch e.kind {
            case .method(let receiver, let selector, let arguments):
                if method == nil { method = selector }
                visit(receiver)
                arguments.forEach { visit($0) }
            case .aggregate(let list), .function(_, let list): list.forEach { visit($0) }
            case .binary(_, let lhs, let rhs):
                visit(lhs)
                visit(rhs)
            case .negate(let inner), .cast(let inner, _), .member(let inner, _), .collection(_, let inner, _),
                 .assignment(_, let inner):
                visit(inner)
            case .index(let base, let index):
                visit(base)
                if case .at(let i) = index { visit(i) }
            case .subquery(let collection, _, let predicate):
                visit(collection)
                visit(predicate)
            case .constant, .keyPath, .evaluatedObject, .variable, .placeholder, .object:
                break
            }
        }
    }
}
