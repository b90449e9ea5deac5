import CSQLite
import Foundation
import Predicates

/// An error from the persistent store.
///
/// SQLite errors keep the result code, SQLite's message and the SQL text,
/// never the bound values:
///
/// ```
/// SQLite error 19: NOT NULL constraint failed: person.name - while executing `INSERT …`
/// ```
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for code that handles some errors and reports the
    /// rest.
    ///
    /// ```swift
    /// catch let error as StoreError where error.kind == .locked {
    ///     retryLater()
    /// }
    /// ```
    public enum Kind: Sendable, Equatable {
        /// Any other SQLite error; `code` says which.
        case sqlite
        /// The file is not a store or is damaged: SQLite's `SQLITE_CORRUPT` and
        /// `SQLITE_NOTADB`, an XML store that does not parse, a Core Data store
        /// without its metadata.
        case corrupt
        /// Another connection held a lock for longer than the store's busy
        /// timeout (SQLite's `SQLITE_BUSY` and `SQLITE_LOCKED`); trying again
        /// later may succeed.
        case locked
        /// A write to a store that cannot be written: opened read-only, a file
        /// or directory without write permission, or a store that would need
        /// creating or migrating while opened read-only.
        case readOnly
        /// The file cannot be opened (SQLite's `SQLITE_CANTOPEN`: a missing
        /// directory, a path that is a directory, no permission).
        case cannotOpen
        /// The store was made with another model and may not, or cannot, be
        /// migrated; `migration` says what a migration would do, when one can
        /// be inferred.
        case modelMismatch
        /// A migration that failed. Kept for stores and callers of your own:
        /// mrq's stores report a migration they cannot infer as
        /// `.modelMismatch`.
        case migration
        /// SQLite refused a row for a constraint (`SQLITE_CONSTRAINT`).
        case constraint
        /// A conflict between writers. Kept for stores and callers of your own:
        /// mrq's saves report conflicts as `MergeConflictError` and
        /// `ConstraintConflictError`.
        case conflict
        /// A value the store cannot write as it is (such as a value an XML
        /// store cannot represent); objects refused by the model's rules
        /// throw `ValidationError` instead.
        case validation
        /// Something named does not exist: an entity, an attribute, a
        /// configuration, a store, an object with a given ID.
        case notFound
        /// A call that cannot work as made, such as `fetch(_:)` of a request
        /// for dictionaries, a SQLite store without a URL, or a store added
        /// twice.
        case misuse
        /// Stopped by `StatementInterrupt` (the shell's Ctrl-C).
        case interrupted
    }

    /// What went wrong.
    public let kind: Kind
    /// SQLite's result code, when the error came from SQLite.
    public let code: Int32?
    /// What went wrong, in words: SQLite's message, or mrq's.
    public let message: String
    /// The SQL that failed, with `?` where values were bound; nil when no
    /// statement was running.
    public let sql: String?
    /// For a store opened with another model: what the migration would
    /// change and drop.
    public let migration: MigrationPreview?

    /// An error of `kind` saying `message`.
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: What went wrong, in words.
    ///   - code: SQLite's result code, when SQLite reported the error.
    ///   - sql: The statement that failed.
    ///   - migration: For `.modelMismatch`, what a migration would do.
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

    /// The message (with SQLite's code and the statement, when SQLite
    /// reported it), on one line, with the control characters of names
    /// and values in it escaped (see `TerminalText`): a store can name a
    /// table with an escape sequence.
    public var description: String {
        guard let code else { return TerminalText.escaped(message) }
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return TerminalText.escaped(text)
    }
}
