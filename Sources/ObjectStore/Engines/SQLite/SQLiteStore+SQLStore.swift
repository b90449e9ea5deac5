import Foundation
import Predicates

extension SQLiteStore: SQLStore {
    package var dialect: SQLDialect { SQLiteDialect() }

    package func forEachRow(of plan: DictionaryPlan, _ body: ([Value]) throws -> Void) throws {
        try plan.forEachRow(store: self, body)
    }
}
