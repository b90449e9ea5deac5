import Foundation
import Predicates

/// The connection a migration (`StoreMigrator`, `MigrationPreview`,
/// `MigrationLinks`) runs on, with the few places the engines' SQL
/// differs. Statements take `?` parameters; a PostgreSQL connection
/// numbers them.
package struct MigrationConnection {
    let connection: any SQLConnection
    var dialect: SQLDialect { connection.dialect }
    /// The store, for messages: a file's path, or a server and database.
    var path: String { connection.databaseName }

    /// Migrates on `connection`.
    package init(_ connection: any SQLConnection) {
        self.connection = connection
    }

    /// Runs one statement with `values` bound to its `?` parameters.
    package func execute(_ sql: String, _ values: [Value] = []) throws {
        if values.isEmpty { try connection.execute(sql) } else { try connection.execute(sql, values) }
    }

    /// The rows a query returns.
    package func rows(_ sql: String) throws -> [[Value]] { try connection.rows(sql, []) }

    /// The first value of a query's first row (a count, or a look for one row).
    func scalar(_ sql: String) throws -> Value? { try rows(sql).first?.first }

    func tableExists(_ name: SQLIdentifier) throws -> Bool { try connection.tableExists(name) }

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
