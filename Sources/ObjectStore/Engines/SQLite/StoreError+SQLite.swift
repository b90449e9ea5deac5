import CSQLite
import Foundation

extension StoreError.EngineCode {
    /// SQLite's extended result code `code`: `.sqlite(2067)` for
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    public static func sqlite(_ code: Int32) -> Self {
        Self(engine: sqliteEngine, value: String(code))
    }

    /// SQLite's extended result code, for a code SQLite gave; nil for
    /// another engine's.
    public var sqliteResultCode: Int32? {
        engine == Self.sqliteEngine ? Int32(value) : nil
    }

    private static let sqliteEngine = "SQLite"
}

extension StoreError {
    /// An error SQLite reported with result code `code`, of the kind the
    /// code's primary result code says.
    init(code: Int32, message: String, sql: String?) {
        let kind: Kind
        switch code & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .locked
        case SQLITE_READONLY: kind = .readOnly
        case SQLITE_CANTOPEN: kind = .cannotOpen
        case SQLITE_CONSTRAINT: kind = .constraint
        case SQLITE_INTERRUPT: kind = .interrupted
        default: kind = .other
        }
        self.init(kind, message, code: .sqlite(code), sql: sql)
    }

    /// SQLite's primary result code (the low byte of the extended one),
    /// when SQLite reported the error.
    var sqlitePrimaryCode: Int32? { code?.sqliteResultCode.map { $0 & 0xFF } }

    /// Whether SQLite refused a row for a unique index or primary key.
    var isUniquenessViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY: macros Swift does not import.
        let code = code?.sqliteResultCode
        return code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8)
    }
}
