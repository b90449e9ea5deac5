import Foundation
import Predicates

/// SQLite's SQL: the reference the other dialects differ from, and the
/// dialect of both SQLite layouts and the in-memory store.
///
/// ```swift
/// SQLiteDialect().window(limit: 0, offset: 5)   // " LIMIT -1 OFFSET 5"
/// ```
package struct SQLiteDialect: SQLDialect {
    package init() {}

    package var engine: FetchExplanation.Engine { .sqlite }

    // MARK: Schema

    package func type(of column: SchemaMapping.Column) -> String { column.sqlType }
    package func castType(of column: SchemaMapping.Column) -> String { column.sqlType }
    package func castType(of type: AttributeType) -> String { SchemaMapping.sqlType(type) }
    package func typed(_ sql: String, as type: String) -> String { sql }
    package var integer: String { "INTEGER" }
    package var smallInteger: String { "INTEGER" }
    /// SQLite's INTEGER PRIMARY KEY is the row id.
    package func primaryKeyColumn(_ name: SQLIdentifier) -> String { "\(name) INTEGER PRIMARY KEY" }
    package var joinTableOptions: String { " WITHOUT ROWID" }
    package func insertIgnoringDuplicates(into table: SQLIdentifier, list: String, select: String) -> String {
        "INSERT OR IGNORE INTO \(table) (\(list)) \(select)"
    }
    package var metadataArchiveColumn: String { "value" }

    /// Drops every index: SQLite's names would clash with the new tables'.
    /// They are recreated for the new layout at the end.
    package func prepareRebuild(_ db: MigrationConnection) throws {
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            if case .string(let name) = row[0] { try db.execute("DROP INDEX \(try quoteIdentifier(name))") }
        }
    }

    /// Drops every old table, then renames the new ones in.
    package func swapInRebuiltTables(_ db: MigrationConnection, old: SchemaMapping, new: SchemaMapping,
                                     temporary: (SQLIdentifier) -> SQLIdentifier) throws {
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_mrq_%'") {
            if case .string(let name) = row[0] { try db.execute("DROP TABLE \(try quoteIdentifier(name))") }
        }
        for name in new.allTables.map(\.name) + new.allJoinTables.map(\.name) {
            try db.execute("ALTER TABLE \(temporary(name)) RENAME TO \(name)")
        }
    }

    // MARK: Statements

    package func parameter(_ number: Int, of value: Value) -> String { Self.parameter(number) }
    package func parameter(_ number: Int, type: String) -> String { Self.parameter(number) }

    /// `?n`: the first parameters' texts made once (a number's text is
    /// made digit by digit; the translator writes one for every value it
    /// binds, mrq-bench e. parse).
    private static func parameter(_ number: Int) -> String {
        numbered.indices.contains(number) ? numbered[number] : "?" + String(number)
    }

    private static let numbered: [String] = (0..<64).map { "?" + String($0) }
    package func writeParameter(_ number: Int, of value: Value, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "?"))
        out.appendDecimal(number)
    }

    package func window(limit: Int, offset: Int) -> String {
        if limit > 0 { return " LIMIT \(limit)" + (offset > 0 ? " OFFSET \(offset)" : "") }
        return offset > 0 ? " LIMIT -1 OFFSET \(offset)" : ""
    }

    package func orderTerm(_ sql: SQL, type: AttributeType?, ascending: Bool) -> SQL {
        ascending ? sql : sql + " DESC"
    }

    package func keysIn(_ parameter: SQL) -> SQL { "(SELECT value FROM json_each(\(parameter)))" }
    package var derivedTableName: String { "" }

    /// ` IN (?, ?, …)`, once per `chunkSize` keys.
    package func keyLists(_ keys: [Int64], chunkSize: Int) -> [SQL] {
        stride(from: 0, to: keys.count, by: chunkSize).map { start in
            let chunk = keys[start..<min(start + chunkSize, keys.count)]
            return " IN (" + SQL.keys(chunk.map { .int($0) }, count: chunk.count, numbered: false) + ")"
        }
    }

    /// `?1, ?2, …` or `?, ?, …`; explained, `?1, …` or `?, …`.
    package func keyList(parameters: Range<Int>, numbered: Bool, explained: Bool) -> String {
        guard let first = parameters.first else { return "" }
        if explained { return (numbered ? "?" + String(first) : "?") + ", …" }
        var text = ""
        text.reserveCapacity(parameters.count * (numbered ? 6 : 3))
        for n in parameters {
            if n > first { text += ", " }
            text += numbered ? "?" + String(n) : "?"
        }
        return text
    }

    package var deletesWithReturning: Bool { false }
    package var groupsDistinctRows: Bool { false }

    package func aggregate(_ function: PropertyToFetch.Function, of column: SQL, type: AttributeType) -> SQL {
        switch function {
        case .sum: return type == .double || type == .float ? "TOTAL(\(column))" : "COALESCE(SUM(\(column)), 0)"
        case .average: return "AVG(\(column))"
        case .min: return "MIN(\(column))"
        case .max: return "MAX(\(column))"
        case .count: return "COUNT(\(column))"
        }
    }

    package var castsToIntegerByTruncating: Bool { true }

    // MARK: Translator

    package var trueSQL: String { "1" }
    package var falseSQL: String { "0" }
    package func twoValued(_ sql: SQL) -> SQL { "IFNULL(\(sql), 0)" }
    package func writeTwoValued(into out: inout SQL, _ write: (inout SQL) throws -> Void) rethrows {
        out += "IFNULL("
        try write(&out)
        out += ", 0)"
    }
    /// A value that is no key at all (text in a key column) is shown as
    /// the file holds it.
    package func keptKey(_ key: String, present: String) -> String { "(typeof(\(key)) <> 'integer' OR \(present))" }
    package func same(_ a: SQL, _ b: SQL, _ equal: Bool) -> SQL { equal ? "\(a) IS \(b)" : "\(a) IS NOT \(b)" }
    package func writeSame(_ a: SQLTranslator.Operand, _ b: SQLTranslator.Operand, _ equal: Bool, into out: inout SQL) {
        out.append(a)
        out += equal ? " IS " : " IS NOT "
        out.append(b)
    }
    package var approximates: Bool { false }

    package func constant(_ value: Value, in translator: inout SQLTranslator) throws -> SQLTranslator.Operand {
        switch value {
        case .decimal(let d):
            return translator.bound(.double(NSDecimalNumber(decimal: d).doubleValue), category: .number, constant: value)
        case .uuid(let u): return translator.bound(stored(u, layout: translator.mapping.layout), category: .uuid, constant: value)
        case .url(let u): return translator.bound(.string(u.absoluteString), category: .url, constant: value)
        case .null: return SQLTranslator.Operand(form: .text("NULL"), category: .unknown, constant: value)
        default: return translator.bound(value, category: SQLTranslator.category(of: value), constant: value)
        }
    }

    /// 16 bytes in Core Data's layout, the uppercase string in mrq's.
    package func stored(_ uuid: UUID, layout: SchemaMapping.Layout) -> Value {
        layout == .coreData ? .data(bytes(of: uuid)) : .string(uuid.uuidString)
    }

    package func column(_ sql: String, of type: AttributeType) -> String { sql }
    package func checkArithmetic() throws {}
    package func checkNegation(of operand: SQLTranslator.Operand) throws {}
    package func average(of column: SQL) -> SQL { "AVG(\(column))" }

    package func folded(_ sql: SQL, _ options: Comparison.Options) -> SQL? {
        "mrq_fold(\(sql), \(options.rawValue))"
    }

    package func prepare(_ lhs: inout SQLTranslator.Operand, _ rhs: inout SQLTranslator.Operand, _ c: Comparison,
                         in translator: inout SQLTranslator) throws -> (options: Comparison.Options, undecided: [SQL]?) {
        (c.options, nil)
    }

    package func approximation(_ sql: SQL, undecided: [SQL], in translator: inout SQLTranslator) -> SQL { sql }
    package func ordered(_ sql: SQL, _ subject: SQLTranslator.Operand) -> SQL { sql }
    package func writeOrdered(_ operand: SQLTranslator.Operand, _ subject: SQLTranslator.Operand, into out: inout SQL) {
        out.append(operand)
    }
    package func uuidText(_ sql: SQL) -> SQL { sql }
    package func checkComparable(_ lhs: SQLTranslator.Operand, _ rhs: SQLTranslator.Operand, options: Comparison.Options) throws {}

    package func stringOperator(_ op: Comparison.Operator, _ text: SQL, _ needle: SQL, options: Comparison.Options) -> SQL {
        if !options.isEmpty { return "mrq_string(\(SQLFunctions.code(for: op)), \(text), \(needle), \(options.rawValue))" }
        switch op {
        case .beginsWith: return "(length(\(needle)) > 0 AND substr(\(text), 1, length(\(needle))) = \(needle))"
        case .endsWith:
            return "(length(\(needle)) > 0 AND length(\(text)) >= length(\(needle)) AND substr(\(text), -length(\(needle))) = \(needle))"
        default: return "(length(\(needle)) > 0 AND instr(\(text), \(needle)) > 0)"
        }
    }

    /// ``stringOperator(_:_:_:options:)`` written in place, piece by piece.
    package func writeStringOperator(_ op: Comparison.Operator, _ text: SQLTranslator.Operand, _ needle: SQLTranslator.Operand,
                                     options: Comparison.Options, into out: inout SQL) {
        if !options.isEmpty {
            writeStringFunction(op, text, needle, options: options, into: &out)
            return
        }
        out += "(length("
        out.append(needle)
        switch op {
        case .beginsWith:
            out += ") > 0 AND substr("
            out.append(text)
            out += ", 1, length("
            out.append(needle)
            out += ")) = "
            out.append(needle)
        case .endsWith:
            out += ") > 0 AND length("
            out.append(text)
            out += ") >= length("
            out.append(needle)
            out += ") AND substr("
            out.append(text)
            out += ", -length("
            out.append(needle)
            out += ")) = "
            out.append(needle)
        default:
            out += ") > 0 AND instr("
            out.append(text)
            out += ", "
            out.append(needle)
            out += ") > 0"
        }
        out += ")"
    }

    package func like(_ c: Comparison, _ text: SQLTranslator.Operand, _ pattern: SQLTranslator.Operand, options: Comparison.Options,
                      in translator: inout SQLTranslator) throws -> SQL {
        var sql = SQL()
        writeStringFunction(c.op, text, pattern, options: options, into: &sql)
        return sql
    }

    /// `like` written in place: no SQL made for either operand, nor a
    /// String for the numbers (mrq-bench e. parse).
    package func writeLike(_ c: Comparison, _ text: SQLTranslator.Operand, _ pattern: SQLTranslator.Operand,
                           options: Comparison.Options, in translator: inout SQLTranslator, into out: inout SQL) throws {
        writeStringFunction(c.op, text, pattern, options: options, into: &out)
    }

    /// `mrq_string(code, text, other, options)`: the string operator `op`
    /// run by mrq's SQL function, as the evaluator runs it.
    private func writeStringFunction(_ op: Comparison.Operator, _ text: SQLTranslator.Operand, _ other: SQLTranslator.Operand,
                                     options: Comparison.Options, into out: inout SQL) {
        out += "mrq_string("
        out.append(number: SQLFunctions.code(for: op))
        out += ", "
        out.append(text)
        out += ", "
        out.append(other)
        out += ", "
        out.append(number: Int(options.rawValue))
        out += ")"
    }
}
