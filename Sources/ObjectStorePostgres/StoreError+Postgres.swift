import Foundation
import ObjectStore

extension StoreError.EngineCode {
    /// PostgreSQL's SQLSTATE `state`: `.postgres("23505")` for a unique
    /// violation.
    public static func postgres(_ state: String) -> Self {
        Self(engine: postgresEngine, value: state)
    }

    /// PostgreSQL's SQLSTATE, for a code PostgreSQL gave; nil for another
    /// engine's.
    public var sqlState: String? { engine == Self.postgresEngine ? value : nil }

    private static let postgresEngine = "PostgreSQL"
}

extension StoreError {
    /// An error PostgreSQL reported, as the store passes it on: its
    /// SQLSTATE, the server's message, its hint and the SQL (never the
    /// bound values, nor the `DETAIL`, which quotes them):
    ///
    /// ```
    /// PostgreSQL error 23505: duplicate key value violates unique constraint "Person_unique0" - while executing `INSERT …`
    /// ```
    ///
    /// The kind follows the SQLSTATE's class: integrity constraints are
    /// `.constraint`, serialization failures, deadlocks and lock time-outs
    /// `.locked`, connection and authorization failures and a missing
    /// database `.cannotOpen`, a read-only transaction `.readOnly`, a
    /// cancelled statement `.interrupted`, corruption `.corrupt`.
    static func postgres(sqlState: String, message: String, hint: String? = nil, sql: String?) -> StoreError {
        var text = message
        if let hint, !hint.isEmpty { text += " (hint: \(hint))" }
        return StoreError(postgresKind(sqlState), text, code: .postgres(sqlState), sql: sql)
    }

    /// The SQLSTATE of an error PostgreSQL reported (`23505` for a
    /// unique violation); nil for any other error.
    package var sqlState: String? { code?.sqlState }

    private static func postgresKind(_ sqlState: String) -> Kind {
        switch sqlState {
        case "40001", "40P01", "55P03": return .locked
        case "25006": return .readOnly
        case "57014": return .interrupted
        case "3D000": return .cannotOpen
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": return .constraint
        case "08", "28": return .cannotOpen
        case "XX" where sqlState != "XX000": return .corrupt
        default: return .other
        }
    }
}
