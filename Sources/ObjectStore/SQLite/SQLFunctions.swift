import CSQLite
import Foundation
import Predicates

/// SQL functions the store registers on every connection so that string
/// options (`[c]`, `[d]`), `LIKE` and `MATCHES` mean in SQL exactly what
/// they mean in the in-memory evaluator: both call the same code.
enum SQLFunctions {
    static func register(on db: OpaquePointer) {
    }
}
