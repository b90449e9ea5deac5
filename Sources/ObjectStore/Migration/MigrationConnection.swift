import Foundation
import Predicates

/// The connection a migration (`StoreMigrator`, `MigrationPreview`,
/// `MigrationLinks`) runs on: SQLite's `Database`, or a PostgreSQL
/// connection given as closures, with the few places the two engines'
/// SQL differs. Statements take `?` parameters; a PostgreSQL connection
/// numbers them.
package struct MigrationConnection {
    let dialect: SQLDialect
    /// The store, for messages: a file's path, or a server and database.
    let path: String
    private let run: (String, [Value]) throws -> Void
    private let query: (String) throws -> [[Value]]
    private let exists: (String) throws -> Bool

    /// A connection of `dialect`: `execute` runs one statement with bound
    /// values, `rows` returns a query's rows, `tableExists` looks
    /// for a table of the store's schema.
    package init(dialect: SQLDialect, path: String, execute: @escaping (String, [Value]) throws -> Void,
                 rows: @escaping (String) throws -> [[Value]], tableExists: @escaping (String) throws -> Bool) {
        self.dialect = dialect
        self.path = path
        run = execute
        query = rows
        exists = tableExists
    }

    /// A SQLite store's connection.
    init(_ db: Database) {
        self.init(dialect: SQLiteDialect(), path: db.path, execute: { sql, values in
            if values.isEmpty { try db.execute(sql) } else { try db.execute(sql, values) }
        }, rows: { try db.rows($0) }, tableExists: { try db.tableExists($0) })
    }

    /// Runs one statement with `values` bound to its `?` parameters.
    package func execute(_ sql: String, _ values: [Value] = []) throws { try run(sql, values) }

    /// The rows a query returns.
    package func rows(_ sql: String) throws -> [[Value]] { try query(sql) }

    /// The first value of a query's first row (a count, or a look for one row).
    func scalar(_ sql: String) throws -> Value? { try query(sql).first?.first }

    func tableExists(_ name: SQLIdentifier) throws -> Bool { try exists(name.unquoted) }

    /// `INSERT INTO table (columns) SELECT …` leaving out the rows whose
    /// key is there already.
    func insertIgnoringDuplicates(into table: SQLIdentifier, columns: [SQLIdentifier], select: String) -> String {
        let list = columns.map(\.quoted).joined(separator: ", ")
        return dialect.insertIgnoringDuplicates(into: table, list: list, select: select)
    }

    /// The place of a bound value for `column` in a select list: typed as
    /// the column on PostgreSQL, which would otherwise take it for text.
    func parameter(for column: SchemaMapping.Column) -> String {
        dialect.typed("?", as: dialect.castType(of: column))
    }
}
