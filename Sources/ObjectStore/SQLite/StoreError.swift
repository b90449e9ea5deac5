import CSQLite
import Foundation

/// An error from the persistent store.
///
/// SQLite errors keep the result code, SQLite's message and the SQL text,
/// never the bound values:
///
/// ```
/// SQLite error 19: NOT NULL constraint failed: person.name - while executing `INSERT …`
/// ```
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        case sqlite
        case corrupt
        case locked
        case readOnly
        case cannotOpen
        case modelMismatch
        case migration
        case constraint
        case conflict
        case validation
        case notFound
        case misuse
        /// Stopped by `StatementInterrupt` (the shell's Ctrl-C).
        case interrupted
    }

    public let kind: Kind
    /// SQLite's result code, when the error came from SQLite.
    public let code: Int32?
    public let message: String
    public let sql: String?
    /// For a store opened with another model: what the migration would
    /// change and drop.
    public let migration: MigrationPreview?

    public init(_ kind: Kind, _ message: String, code: Int32? = nil, sql: String? = nil, migration: MigrationPreview? = nil) {
        self.kind = kind
        self.message = message
        self.code = code
        self.sql = sql
        self.migration = migration
    }

    init(code: Int32, message: String, sql: String?) {
        let primary = code & 0xFF
        let kind: Kind
        switch primary {
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .locked
        case SQLITE_READONLY: kind = .readOnly
        case SQLITE_CANTOPEN: kind = .cannotOpen
        case SQLITE_CONSTRAINT: kind = .constraint
        case SQLITE_INTERRUPT: kind = .interrupted
        default: kind = .sqlite
        }
        self.init(kind, message, code: code, sql: sql)
    }

    /// Whether SQLite refused a row for a unique index or primary key.
    var isUniquenessViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY: macros Swift does not import.
        code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8)
    }

    public var description: String {
        guard let code else { return message }
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}
