import CSQLite
import Foundation
import Predicates

/// SQL functions the store registers on every connection so that string
/// options (`[c]`, `[d]`), `LIKE` and `MATCHES` mean in SQL exactly what
/// they mean in the in-memory evaluator: both call `StringMatching`.
///
/// - `mrq_fold(text, options)`: the text folded by `[c]`/`[d]` options.
/// - `mrq_string(op, text, pattern, options)`: 1 or 0; NULL when either
///   side is not text.
///
/// Also the functions Core Data's own triggers call (those that keep a
/// derived attribute, such as CoreDataPlus's `Book.pagesCount`, in step):
/// without them every write to such a table fails with "no such
/// function". Core Data's tell its contexts the new value; mrq's do
/// nothing and return NULL, the trigger's own UPDATE doing the work;
/// innocuous, so that a schema SQLite does not trust may call them.
enum SQLFunctions {
    static let coreDataTriggerFunctions = [
        "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
    ]

    static let operators: [Comparison.Operator] = [.beginsWith, .endsWith, .contains, .like, .matches]

    static func code(for op: Comparison.Operator) -> Int {
        operators.firstIndex(of: op) ?? 0
    }

    static func register(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(db, "mrq_fold", 2, flags, nil, { context, _, args in
            guard let args, let text = SQLFunctions.text(args[0]) else {
                sqlite3_result_null(context)
                return
            }
            let options = Comparison.Options(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(args[1])))
            let folded = StringMatching.fold(text, options)
            sqlite3_result_text(context, folded, -1, SQLITE_TRANSIENT)
        }, nil, nil, nil)
        sqlite3_create_function_v2(db, "mrq_string", 4, flags, nil, { context, _, args in
            guard let args, let text = SQLFunctions.text(args[1]), let pattern = SQLFunctions.text(args[2]) else {
                sqlite3_result_null(context)
                return
            }
            let code = Int(sqlite3_value_int(args[0]))
            let options = Comparison.Options(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(args[3])))
            guard code >= 0, code < SQLFunctions.operators.count else {
                sqlite3_result_error(context, "mrq_string: unknown operator", -1)
                return
            }
            do {
                let result = try StringMatching.test(SQLFunctions.operators[code], text, pattern, options: options)
                sqlite3_result_int(context, result ? 1 : 0)
            } catch {
                sqlite3_result_error(context, "\(error)", -1)
            }
        }, nil, nil, nil)
        for name in coreDataTriggerFunctions {
            sqlite3_create_function_v2(db, name, -1, SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC, nil, { context, _, _ in
                sqlite3_result_null(context)
            }, nil, nil, nil)
        }
    }

    private static func text(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, let bytes = sqlite3_value_text(value) else { return nil }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
