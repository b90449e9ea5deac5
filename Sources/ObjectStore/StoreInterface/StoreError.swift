import Foundation
import Predicates

/// An error from the persistent store.
///
/// An error the engine reported keeps the engine's own code, its message
/// and the SQL text, never the bound values:
///
/// ```
/// SQLite error 19: NOT NULL constraint failed: person.name - while executing `INSERT …`
/// PostgreSQL error 23505: duplicate key value violates unique constraint "Person_unique0" - while executing `INSERT …`
/// ```
///
/// Handle errors by `kind`, which means the same for every engine; read
/// `code` for what only one engine says.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for code that handles some errors and reports the
    /// rest. New kinds may come: a `switch` over kinds needs a `default`.
    ///
    /// ```swift
    /// catch let error as StoreError where error.kind == .locked {
    ///     retryLater()
    /// }
    /// ```
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// The kind's name, as written after the dot: `locked`.
        public var description: String { name }

        /// Any other error; `code` says which when the engine reported it.
        public static let other = Kind("other")
        /// The file is not a store or is damaged (SQLite's `SQLITE_CORRUPT`
        /// and `SQLITE_NOTADB`, PostgreSQL's data corruption, an XML store
        /// that does not parse, a Core Data store without its metadata).
        public static let corrupt = Kind("corrupt")
        /// Another connection held a lock for longer than the store's busy
        /// timeout (SQLite's `SQLITE_BUSY` and `SQLITE_LOCKED`), or the
        /// engine gave up a transaction for another's sake (PostgreSQL's
        /// deadlocks, serialization failures and lock time-outs); trying
        /// again later may succeed.
        public static let locked = Kind("locked")
        /// A write to a store that cannot be written: opened read-only, a file
        /// or directory without write permission, a read-only transaction, or
        /// a store that would need creating or migrating while opened
        /// read-only.
        public static let readOnly = Kind("readOnly")
        /// The store cannot be opened or reached (SQLite's `SQLITE_CANTOPEN`:
        /// a missing directory, a path that is a directory, no permission;
        /// for a server: refused, unreachable, not authorized, no such
        /// database, or the connection lost).
        public static let cannotOpen = Kind("cannotOpen")
        /// The store was made with another model and may not, or cannot, be
        /// migrated; `migration` says what a migration would do, when one can
        /// be inferred.
        public static let modelMismatch = Kind("modelMismatch")
        /// A migration that failed. Kept for stores and callers of your own:
        /// mrq's stores report a migration they cannot infer as
        /// `.modelMismatch`.
        public static let migration = Kind("migration")
        /// The engine refused a row for a constraint (SQLite's
        /// `SQLITE_CONSTRAINT`, PostgreSQL's integrity constraint
        /// violations).
        public static let constraint = Kind("constraint")
        /// A conflict between writers. Kept for stores and callers of your own:
        /// mrq's saves report conflicts as `MergeConflictError` and
        /// `ConstraintConflictError`.
        public static let conflict = Kind("conflict")
        /// A value the store cannot write as it is (such as a value an XML
        /// store cannot represent); objects refused by the model's rules
        /// throw `ValidationError` instead.
        public static let validation = Kind("validation")
        /// Something named does not exist: an entity, an attribute, a
        /// configuration, a store, an object with a given ID.
        public static let notFound = Kind("notFound")
        /// A call that cannot work as made, such as `fetch(_:)` of a request
        /// for dictionaries, a SQLite store without a URL, or a store added
        /// twice.
        public static let misuse = Kind("misuse")
        /// Stopped by `StatementInterrupt` (the shell's Ctrl-C), or a
        /// statement the server cancelled.
        public static let interrupted = Kind("interrupted")
    }

    /// The code an engine gave an error, in the engine's own terms:
    /// SQLite's extended result code, PostgreSQL's SQLSTATE.
    ///
    /// ```swift
    /// catch let error as StoreError where error.code == .init(engine: "PostgreSQL", value: "23505") {
    ///     // a unique violation
    /// }
    /// ```
    public struct EngineCode: Hashable, Sendable, CustomStringConvertible {
        /// The engine's name, as messages say it: `SQLite`, `PostgreSQL`.
        public let engine: String
        /// The code as the engine writes it: `2067` (SQLite's
        /// `SQLITE_CONSTRAINT_UNIQUE`), `23505` (PostgreSQL's
        /// `unique_violation`).
        public let value: String

        /// The code `value` of `engine`.
        public init(engine: String, value: String) {
            self.engine = engine
            self.value = value
        }

        /// `SQLite 2067`.
        public var description: String { "\(engine) \(value)" }
    }

    /// What went wrong.
    public let kind: Kind
    /// The engine's code, when the engine reported the error.
    public let code: EngineCode?
    /// What went wrong, in words: the engine's message, or mrq's.
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
    ///   - code: The engine's code, when the engine reported the error.
    ///   - sql: The statement that failed.
    ///   - migration: For `.modelMismatch`, what a migration would do.
    public init(_ kind: Kind, _ message: String, code: EngineCode? = nil, sql: String? = nil,
                migration: MigrationPreview? = nil) {
        self.kind = kind
        self.message = message
        self.code = code
        self.sql = sql
        self.migration = migration
    }

    /// The message (with the engine's code and the statement, when the
    /// engine reported it), on one line, with the control characters of
    /// names and values in it escaped (see `TerminalText`): a store can
    /// name a table with an escape sequence.
    public var description: String {
        guard let code else { return TerminalText.escaped(message) }
        var text = "\(code.engine) error \(code.value): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return TerminalText.escaped(text)
    }
}
