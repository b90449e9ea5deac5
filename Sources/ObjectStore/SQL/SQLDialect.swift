import Foundation
import Predicates

/// The SQL an engine speaks, where engines' SQL differs: column types and
/// key generation in the schema, parameters and casts, booleans, paging,
/// aggregates and the comparisons the SQL translator writes.
///
/// A store names its dialect (`SQLStore.dialect`); plans, the translator,
/// the schema builder and the migrator ask it instead of the engine's
/// name. SQLite's is ``SQLiteDialect``; PostgreSQL's lives with its store
/// in `ObjectStorePostgres`. The translator's hooks default to SQLite's
/// SQL, which is the reference the other dialects differ from.
///
/// ```swift
/// SchemaBuilder.createTable(table, dialect: store.dialect)
/// // CREATE TABLE "Person" (_pk INTEGER PRIMARY KEY, …) on SQLite
/// ```
package protocol SQLDialect: Sendable {
    /// The engine an explanation names.
    var engine: FetchExplanation.Engine { get }

    // MARK: Schema

    /// The type of `column` in this dialect, with its collation.
    func type(of column: SchemaMapping.Column) -> String
    /// The type a bound value for `column` is cast to (no collation).
    func castType(of column: SchemaMapping.Column) -> String
    /// The type a bound value of an attribute of `type` is cast to.
    func castType(of type: AttributeType) -> String
    /// `sql`, a bound value, typed as `type` where the engine would
    /// otherwise guess it (in a select list or VALUES).
    func typed(_ sql: String, as type: String) -> String
    /// An integer column of the bookkeeping: keys, entity codes, versions.
    var integer: String { get }
    /// A small integer column: entity codes and positions.
    var smallInteger: String { get }
    /// The primary key column `name` of a table, its keys generated.
    func primaryKeyColumn(_ name: SQLIdentifier) -> String
    /// What follows a join table's `CREATE TABLE (…)`.
    var joinTableOptions: String { get }
    /// `INSERT INTO table (list) select` leaving out the rows whose key is
    /// there already.
    func insertIgnoringDuplicates(into table: SQLIdentifier, list: String, select: String) -> String
    /// The metadata table's column that holds the model's archive.
    var metadataArchiveColumn: String { get }
    /// Migration: gets `db` ready for the new tables (SQLite drops its
    /// indexes, whose names the new tables' would clash with).
    func prepareRebuild(_ db: MigrationConnection) throws
    /// Migration: puts the new tables (named `temporary(name)`) in the old
    /// ones' place.
    func swapInRebuiltTables(_ db: MigrationConnection, old: SchemaMapping, new: SchemaMapping,
                             temporary: (SQLIdentifier) -> SQLIdentifier) throws

    // MARK: Statements

    /// The `number`th parameter, holding `value`.
    func parameter(_ number: Int, of value: Value) -> String
    /// Appends `parameter(number, of: value)`'s UTF-8 to `out` (what
    /// `SQL.rendered` calls for every parameter it writes).
    func writeParameter(_ number: Int, of value: Value, to out: inout [UInt8])
    /// The `number`th parameter, holding a value of `type` (a type of
    /// this dialect, as `castType` names it).
    func parameter(_ number: Int, type: String) -> String
    /// ` LIMIT …`, ` OFFSET …` or nothing.
    func window(limit: Int, offset: Int) -> String
    /// `sql` as an ORDER BY term, nil sorting first as `ValueOrdering` does.
    func orderTerm(_ sql: SQL, type: AttributeType?, ascending: Bool) -> SQL
    /// `(SELECT …)`: the integers of the JSON list `parameter` holds.
    func keysIn(_ parameter: SQL) -> SQL
    /// What names a derived table in FROM (` AS w`), where one must be named.
    var derivedTableName: String { get }
    /// The SQL following a key column that says it is one of `keys`, its
    /// keys in a list of keys (`SQL.keys`): as many statements as the
    /// engine needs.
    func keyLists(_ keys: [Int64], chunkSize: Int) -> [SQL]
    /// A list of keys bound to `parameters` (numbered from 1), as
    /// `SQL.rendered` writes it: every parameter to run, and `explained`,
    /// the first and `…`; `numbered` as `?n`, else as `?`.
    func keyList(parameters: Range<Int>, numbered: Bool, explained: Bool) -> String
    /// Whether a batch delete without rules to run matches and deletes in
    /// one `DELETE … RETURNING`.
    var deletesWithReturning: Bool { get }
    /// Whether DISTINCT over plain columns is written as GROUP BY every
    /// column, DISTINCT over aggregates sorted outside it by alias, and a
    /// grouped result ordered by expression rather than position (an
    /// engine without bare columns).
    var groupsDistinctRows: Bool { get }
    /// `function` over `column`, an attribute's of `type`, as the
    /// evaluator computes it.
    func aggregate(_ function: PropertyToFetch.Function, of column: SQL, type: AttributeType) -> SQL
    /// Whether an integer attribute can be set from a numeric expression
    /// in SQL, CAST truncating as the evaluator does.
    var castsToIntegerByTruncating: Bool { get }

    // MARK: Translator

    /// The condition that always holds.
    var trueSQL: String { get }
    /// The condition that never holds.
    var falseSQL: String { get }
    /// `sql` made two-valued: false where SQL says unknown.
    func twoValued(_ sql: SQL) -> SQL
    /// Appends `twoValued(sql)` to `out`, `sql` being what `write`
    /// appends: the condition under NOT is written where it goes.
    func writeTwoValued(into out: inout SQL, _ write: (inout SQL) throws -> Void) rethrows
    /// The condition under which a to-one's key column `key` is shown as
    /// it is, given `present`, the condition that its row exists: a key
    /// naming a row that is gone reads as nil.
    func keptKey(_ key: String, present: String) -> String
    /// `a IS b` (equal, nil equal to nil), or its negation.
    func same(_ a: SQL, _ b: SQL, _ equal: Bool) -> SQL
    /// Appends `same(a.sql, b.sql, equal)` to `out`: the translator writes
    /// a comparison where it goes in the statement.
    func writeSame(_ a: SQLTranslator.Operand, _ b: SQLTranslator.Operand, _ equal: Bool, into out: inout SQL)
    /// Whether the translator lets rows through for memory to decide
    /// where this engine's SQL is exact only on some rows.
    var approximates: Bool { get }
    /// A constant as an operand, bound as this engine compares it as the
    /// evaluator does.
    func constant(_ value: Value, in translator: inout SQLTranslator) throws -> SQLTranslator.Operand
    /// A UUID as a column of `layout` holds it.
    func stored(_ uuid: UUID, layout: SchemaMapping.Layout) -> Value
    /// An attribute's column `sql` as an operand reads it.
    func column(_ sql: String, of type: AttributeType) -> String
    /// Refuses arithmetic this engine computes otherwise than the evaluator.
    func checkArithmetic() throws
    /// Refuses negating `operand` where this engine would fail.
    func checkNegation(of operand: SQLTranslator.Operand) throws
    /// `@avg` of `column` as the evaluator takes it.
    func average(of column: SQL) -> SQL
    /// `sql` folded for `[c] [d] [n]` in SQL, or nil where this engine
    /// folds otherwise (see `prepare`).
    func folded(_ sql: SQL, _ options: Comparison.Options) -> SQL?
    /// The two sides of `c` made ready to compare: returns the options
    /// left for `compared` and, when sides were folded, the sides whose
    /// rows memory decides (see `approximation`).
    func prepare(_ lhs: inout SQLTranslator.Operand, _ rhs: inout SQLTranslator.Operand, _ c: Comparison,
                 in translator: inout SQLTranslator) throws -> (options: Comparison.Options, undecided: [SQL]?)
    /// `sql`, widened (narrowed under NOT) for the rows where an
    /// `undecided` side makes it inexact.
    func approximation(_ sql: SQL, undecided: [SQL], in translator: inout SQLTranslator) -> SQL
    /// A UUID column's `sql` read as the text a string operator takes
    /// (mrq's layout keeps the uppercase string).
    func uuidText(_ sql: SQL) -> SQL
    /// Refuses comparing `lhs` with `rhs` under `options` where this
    /// engine would answer otherwise than the evaluator.
    func checkComparable(_ lhs: SQLTranslator.Operand, _ rhs: SQLTranslator.Operand, options: Comparison.Options) throws
    /// `sql` ordered as the evaluator orders `subject`'s kind.
    func ordered(_ sql: SQL, _ subject: SQLTranslator.Operand) -> SQL
    /// Appends `ordered(operand.sql, subject)` to `out`.
    func writeOrdered(_ operand: SQLTranslator.Operand, _ subject: SQLTranslator.Operand, into out: inout SQL)
    /// BEGINSWITH, ENDSWITH or CONTAINS with `options`.
    func stringOperator(_ op: Comparison.Operator, _ text: SQL, _ needle: SQL, options: Comparison.Options) -> SQL
    /// Appends `stringOperator(op, text.sql, needle.sql, options:)` to `out`.
    func writeStringOperator(_ op: Comparison.Operator, _ text: SQLTranslator.Operand, _ needle: SQLTranslator.Operand,
                             options: Comparison.Options, into out: inout SQL)
    /// LIKE or MATCHES with `options`.
    func like(_ c: Comparison, _ text: SQLTranslator.Operand, _ pattern: SQLTranslator.Operand, options: Comparison.Options,
              in translator: inout SQLTranslator) throws -> SQL
    /// Appends `like(c, text, pattern, options:, in:)` to `out`.
    func writeLike(_ c: Comparison, _ text: SQLTranslator.Operand, _ pattern: SQLTranslator.Operand,
                   options: Comparison.Options, in translator: inout SQLTranslator, into out: inout SQL) throws
}

extension SQLDialect {
    // The translator's writing hooks, by the hooks that return SQL: a
    // dialect overrides them where writing its text in place is worth it.
    package func writeSame(_ a: SQLTranslator.Operand, _ b: SQLTranslator.Operand, _ equal: Bool, into out: inout SQL) {
        out += same(a.sql, b.sql, equal)
    }

    package func writeOrdered(_ operand: SQLTranslator.Operand, _ subject: SQLTranslator.Operand, into out: inout SQL) {
        out += ordered(operand.sql, subject)
    }

    package func writeStringOperator(_ op: Comparison.Operator, _ text: SQLTranslator.Operand, _ needle: SQLTranslator.Operand,
                                     options: Comparison.Options, into out: inout SQL) {
        out += stringOperator(op, text.sql, needle.sql, options: options)
    }

    package func writeLike(_ c: Comparison, _ text: SQLTranslator.Operand, _ pattern: SQLTranslator.Operand,
                           options: Comparison.Options, in translator: inout SQLTranslator, into out: inout SQL) throws {
        out += try like(c, text, pattern, options: options, in: &translator)
    }

    package func writeParameter(_ number: Int, of value: Value, to out: inout [UInt8]) {
        out.append(contentsOf: parameter(number, of: value).utf8)
    }
}

extension Array where Element == UInt8 {
    /// Appends `number`'s decimal digits (a parameter's number, written
    /// without making a String).
    package mutating func appendDecimal(_ number: Int) {
        guard number >= 10 else {
            append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: Swift.max(0, number)))
            return
        }
        appendDecimal(number / 10)
        append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number % 10))
    }
}
