import CSQLite
import Foundation
import Predicates
import struct Predicates.Predicate

/// A dictionary fetch request turned into one SELECT: the fetched
/// properties and aggregates as columns, WHERE, GROUP BY, HAVING, ORDER BY
/// and the window.
///
/// ```swift
/// var request = FetchRequest(entityName: "Person")
/// request.propertiesToFetch = [PropertyToFetch(keyPath: "department.name"),
///                              PropertyToFetch(.sum, of: "salary", as: "total")]
/// request.propertiesToGroupBy = ["department.name"]
/// request.havingPredicate = try Predicate(format: "total > 100")
/// // SELECT a1."name", COALESCE(SUM(t."salary"), 0) FROM "Person" t
/// //   LEFT JOIN "Department" a1 ON a1._pk = t."department"
/// //   WHERE 1 GROUP BY a1."name" HAVING COALESCE(SUM(t."salary"), 0) > ?1
/// //   ORDER BY 1, 2
/// ```
///
/// The WHERE part of the predicate that SQL cannot express is not run
/// here: the caller finds the matching primary keys first and passes them
/// as `restrictedTo`. The HAVING part SQL cannot express is left in
/// `havingResidual`, for the caller to evaluate on the decoded rows.
package struct DictionaryPlan {
    /// How a column's SQLite value becomes a `Value`.
    package enum Decoding {
        /// As the attribute's type, like a fetched row.
        case attribute(AttributeType)
        /// A count, an integer sum or a to-one's primary key.
        case integer
        /// An average or a floating-point sum.
        case double
        /// As SQLite holds it: an integer or a double (arithmetic).
        case stored
    }

    package struct Column {
        let name: String
        /// The column's SQL, naming the translator's values by place.
        let sql: SQL
        package let decoding: Decoding
        let isAggregate: Bool
    }

    package let columns: [Column]
    package let sql: String
    package let bindings: [Value]
    /// What the WHERE predicate leaves for memory; the caller must run the
    /// plan again restricted to the matching keys when this is not nil.
    let whereResidual: Predicate?
    /// What the HAVING predicate leaves for memory, over the result rows.
    let havingResidual: Predicate?
    /// Whether LIMIT and OFFSET are in the SQL (false when the HAVING
    /// residual must filter first).
    let windowInSQL: Bool
    /// The index of the binding that holds the keys the plan is restricted
    /// to, if any.
    let keysBinding: Int?

    init(request: FetchRequest, entity: EntityDescription, store: any SQLStore, restrictedTo keys: [Int64]? = nil) throws {
        var translator = SQLTranslator(store: store, entity: entity)
        let dialect = store.dialect
        translator.objectVariables = request.objectVariables
        var conditions: [SQL] = []
        if let filter = FetchPlan.entityFilter(entity: entity, includesSubentities: request.includesSubentities,
                                               mapping: store.mapping) {
            conditions.append(SQL(sql: filter))
        }
        var whereResidual: Predicate?
        keysBinding = keys == nil ? nil : translator.bindings.count
        if let keys {
            let list = "[" + keys.map(String.init).joined(separator: ",") + "]"
            conditions.append("t.\(store.mapping.primaryKey) IN \(dialect.keysIn(translator.bind(.string(list))))")
        } else if let predicate = request.predicate {
            let (sql, rest) = try translator.split(predicate)
            if let sql { conditions.append(sql) }
            whereResidual = rest
        }
        self.whereResidual = whereResidual

        // Columns.
        let properties = request.propertiesToFetch ?? Self.allProperties(of: entity)
        guard !properties.isEmpty else { throw Self.error("a dictionary fetch needs at least one property to fetch") }
        var columns: [Column] = []
        for property in properties {
            if columns.contains(where: { $0.name == property.name }) {
                throw Self.error("two fetched properties are named '\(property.name)'")
            }
            columns.append(try Self.column(for: property, entity: entity, translator: &translator, dialect: dialect))
        }
        self.columns = columns

        // GROUP BY, and the rule that plain columns must be grouped when
        // anything is aggregated or grouped.
        var groupSQL: [SQL] = []
        for key in request.propertiesToGroupBy ?? [] {
            if let named = columns.first(where: { $0.name == key && !$0.isAggregate }) {
                groupSQL.append(named.sql)
            } else {
                groupSQL.append(try Self.plainSQL(key, entity: entity, translator: &translator, use: "group by").sql)
            }
        }
        let hasAggregates = columns.contains(where: \.isAggregate)
        if hasAggregates || !groupSQL.isEmpty {
            for column in columns where !column.isAggregate && !groupSQL.contains(column.sql) {
                throw Self.error("'\(column.name)' must be grouped by, or aggregated, when a dictionary fetch groups or aggregates")
            }
        }
        let distinct = request.returnsDistinctResults
        let grouped = hasAggregates || !groupSQL.isEmpty || distinct
        // PostgreSQL has no bare columns and wants DISTINCT's ORDER BY in
        // its select list: DISTINCT without aggregates is GROUP BY every
        // column there (the same rows: equal ones, nil with nil, collapse),
        // and DISTINCT over aggregates is sorted outside it, by alias.
        let noBareColumns = dialect.groupsDistinctRows
        let wrapsDistinct = noBareColumns && distinct && hasAggregates
        if noBareColumns && distinct && !hasAggregates { groupSQL = columns.map(\.sql) }
        let keys = distinct ? columns.filter { !$0.isAggregate }.map(\.sql) : groupSQL + columns.filter { !$0.isAggregate }.map(\.sql)

        // HAVING, over the fetched names.
        var havingSQL: SQL?
        var havingResidual: Predicate?
        if let having = request.havingPredicate {
            translator.namedColumns = Dictionary(uniqueKeysWithValues: columns.map {
                ($0.name, ($0.sql, Self.category(of: $0.decoding), Self.kind(of: $0.decoding)))
            })
            let (sql, rest) = try translator.split(having)
            translator.namedColumns = [:]
            havingSQL = sql
            havingResidual = rest
        }
        self.havingResidual = havingResidual

        // ORDER BY: fetched names first, then key paths; ties broken by
        // the row (plain fetches) or by every column (grouped ones), so
        // the order is always the same.
        var order: [SQL] = []
        func type(_ decoding: Decoding) -> AttributeType? {
            if case .attribute(let type) = decoding { return type }
            return nil
        }
        func alias(_ i: Int) -> SQL { "c\(i + 1)" }
        for key in request.sortDescriptors {
            var sql: SQL
            let decoding: Decoding
            if key.keyPath.count == 1, let i = columns.firstIndex(where: { $0.name == key.keyPath[0] }) {
                (sql, decoding) = (wrapsDistinct ? alias(i) : columns[i].sql, columns[i].decoding)
            } else {
                (sql, decoding) = try Self.plainSQL(key.key, entity: entity, translator: &translator, use: "sort by")
                if let i = columns.firstIndex(where: { !$0.isAggregate && $0.sql == sql }), wrapsDistinct {
                    sql = alias(i)
                } else if grouped && !keys.contains(sql) {
                    // Not grouped: defined only when a grouped to-one
                    // decides it (department.name, grouped by department).
                    guard !(distinct && hasAggregates), try Self.isDecided(key.keyPath, by: keys, entity: entity, translator: &translator) else {
                        throw Self.error("cannot sort by '\(key.key)': it can have many values in one row of a "
                                         + (distinct ? "distinct" : "grouped") + " dictionary fetch; sort by a fetched or grouped "
                                         + "property, or by a key path through a grouped to-one (department.name when grouped by department)")
                    }
                    // Every row of the group has the same value: any
                    // aggregate of it is that value.
                    if noBareColumns { sql = dialect.aggregate(.min, of: sql, type: type(decoding) ?? .undefined) }
                }
            }
            order.append(dialect.orderTerm(sql, type: type(decoding), ascending: key.ascending))
        }
        if grouped {
            // By position; in PostgreSQL by the expression (or the alias),
            // which can take a collation.
            order += columns.enumerated().map { i, column in
                noBareColumns ? dialect.orderTerm(wrapsDistinct ? alias(i) : column.sql, type: type(column.decoding), ascending: true)
                    : "\(i + 1)"
            }
        } else {
            order.append("t.\(store.mapping.primaryKey)")
        }

        let joins = translator.joins.joined(separator: " ")
        var sql: SQL = "SELECT \(distinct && !(noBareColumns && !hasAggregates) ? "DISTINCT " : "")"
        sql += SQL.joined(columns.enumerated().map { i, column in wrapsDistinct ? column.sql + " AS " + alias(i) : column.sql },
                          separator: ", ")
        sql += " FROM \(store.mapping.table(for: entity).name) t" + (joins.isEmpty ? "" : " " + joins)
        sql += " WHERE " + (conditions.isEmpty ? translator.trueSQL : SQL.joined(conditions, separator: " AND "))
        if !groupSQL.isEmpty { sql += " GROUP BY " + SQL.joined(groupSQL, separator: ", ") }
        if let havingSQL { sql += " HAVING " + havingSQL }
        if wrapsDistinct { sql = "SELECT \(SQL.joined(columns.indices.map(alias), separator: ", ")) FROM (\(sql)) AS d" }
        sql += " ORDER BY " + SQL.joined(order, separator: ", ")
        windowInSQL = havingResidual == nil
        if windowInSQL { sql += dialect.window(limit: request.fetchLimit, offset: request.fetchOffset) }
        (self.sql, bindings) = translator.statement(sql).rendered(by: dialect)
    }

    /// Runs the SELECT and hands each decoded row, in column order, to
    /// `body` as it is stepped: no array of all rows. The row array is
    /// reused, so `body` copies it only if it keeps it. The statement
    /// holds its connection meanwhile: reads `body` makes of the store on
    /// this thread share it (see `SQLiteStore.read`).
    func forEachRow(store: SQLiteStore, _ body: ([Value]) throws -> Void) throws {
        try store.read { database in
            let statement = try database.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(bindings)
            var row: [Value] = []
            row.reserveCapacity(columns.count)
            while try statement.step() {
                row.removeAll(keepingCapacity: true)
                for (i, column) in columns.enumerated() {
                    let index = Int32(i)
                    if statement.isNull(at: index) {
                        row.append(.null)
                        continue
                    }
                    switch column.decoding {
                    case .attribute(let type): row.append(RowLayout.decode(statement, column: index, type: type))
                    case .stored: row.append(statement.value(at: index))
                    // A key or a number as SQLite holds it when it is not
                    // one (text in a key column): what the file has, not 0.
                    case .integer:
                        let storage = sqlite3_column_type(statement.handle, index)
                        row.append(storage == SQLITE_INTEGER ? .int(statement.int64(at: index)) : statement.value(at: index))
                    case .double:
                        let storage = sqlite3_column_type(statement.handle, index)
                        row.append(storage == SQLITE_FLOAT || storage == SQLITE_INTEGER
                                   ? .double(statement.double(at: index)) : statement.value(at: index))
                    }
                }
                try body(row)
            }
        }
    }

    /// Whether a grouped to-one on `keyPath` (its SQL among `keys`)
    /// decides its value: `department.name` by `department`.
    private static func isDecided(_ keyPath: [String], by keys: [SQL], entity: EntityDescription,
                                  translator: inout SQLTranslator) throws -> Bool {
        for end in stride(from: keyPath.count - 1, to: 0, by: -1) {
            let prefix = keyPath[..<end].joined(separator: ".")
            let (sql, decoding) = try plainSQL(prefix, entity: entity, translator: &translator, use: "sort by")
            if case .integer = decoding, keys.contains(sql) { return true }
        }
        return false
    }

    // MARK: - Columns

    /// Every stored attribute, then every to-one relationship: what a
    /// dictionary fetch returns when `propertiesToFetch` is nil.
    static func allProperties(of entity: EntityDescription) -> [PropertyToFetch] {
        entity.attributes.filter { !$0.isTransient }.map { PropertyToFetch(keyPath: $0.name) }
            + entity.relationships.filter { $0.isToOne && !$0.isTransient }.map { PropertyToFetch(keyPath: $0.name) }
    }

    private static func column(for property: PropertyToFetch, entity: EntityDescription,
                               translator: inout SQLTranslator, dialect: SQLDialect) throws -> Column {
        if let expression = property.expression {
            let operand: SQLTranslator.Operand
            do {
                operand = try translator.operand(expression, in: translator.root)
            } catch let reason as SQLTranslator.Untranslatable {
                throw error("cannot fetch '\(property.name)' in SQL: \(reason.reason)")
            } catch let unknown as SQLTranslator.UnknownKey {
                throw error(unknown.description)
            }
            switch operand.category {
            case .number: return Column(name: property.name, sql: operand.sql, decoding: .stored, isAggregate: false)
            case .string: return Column(name: property.name, sql: operand.sql, decoding: .attribute(.string), isAggregate: false)
            case .date: return Column(name: property.name, sql: operand.sql, decoding: .attribute(.date), isAggregate: false)
            default: throw error("cannot fetch '\(property.name)' in SQL: it is no number, string or date")
            }
        }
        guard let function = property.function else {
            let (sql, decoding) = try plainSQL(property.keyPath, entity: entity, translator: &translator, use: "fetch")
            return Column(name: property.name, sql: sql, decoding: decoding, isAggregate: false)
        }
        if property.keyPath.isEmpty {
            guard function == .count else {
                throw error("\(function.rawValue) needs a key path; only count counts rows")
            }
            return Column(name: property.name, sql: "COUNT(*)", decoding: .integer, isAggregate: true)
        }
        let (column, decoding) = try plainSQL(property.keyPath, entity: entity, translator: &translator, use: function.rawValue)
        let type: AttributeType?
        if case .attribute(let t) = decoding { type = t } else { type = nil }
        func refuse() -> StoreError {
            error("cannot take the \(function.rawValue) of '\(property.keyPath)'" + (type.map { " (\($0.rawValue))" } ?? " (a relationship)"))
        }
        let result: Decoding
        switch function {
        case .count:
            return Column(name: property.name, sql: "COUNT(\(column))", decoding: .integer, isAggregate: true)
        case .sum:
            guard let type, type.isInteger || type == .boolean || type == .double || type == .float else { throw refuse() }
            result = type == .double || type == .float ? .double : .integer
        case .average:
            guard let type, type.isInteger || type == .boolean || type == .double || type == .float else { throw refuse() }
            result = .double
        case .min, .max:
            // Decimals are text in the store, so SQLite would order them
            // as text; transformable data has no order.
            guard let type, type != .decimal, type != .transformable, type != .objectID else { throw refuse() }
            result = .attribute(type)
        }
        let sql = dialect.aggregate(function, of: column, type: type ?? .undefined)
        return Column(name: property.name, sql: sql, decoding: result, isAggregate: true)
    }

    /// The SQL of a key path through to-one relationships: an attribute's
    /// column, or a to-one's foreign key (the destination's primary key,
    /// null when no row has it).
    static func plainSQL(_ keyPath: String, entity: EntityDescription, translator: inout SQLTranslator,
                         use: String) throws -> (sql: SQL, decoding: Decoding) {
        let path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        do {
            switch try translator.resolve(path, in: translator.root) {
            case .attribute(let sql, let type): return (SQL(sql: sql), .attribute(type))
            case .toOne(let sql, _, let presence):
                // A key whose row is gone reads as nil, as the object's
                // relationship does; a SQLite value that is no key at all
                // is shown as the file holds it.
                guard let presence else { return (SQL(sql: sql), .integer) }
                let kept = translator.dialect.keptKey(sql, present: presence)
                return ("CASE WHEN \(kept) THEN \(sql) END", .integer)
            }
        } catch let reason as SQLTranslator.Untranslatable {
            throw error("cannot \(use) '\(keyPath)': \(reason.reason)")
        } catch let unknown as SQLTranslator.UnknownKey {
            throw error(unknown.description)
        }
    }

    private static func category(of decoding: Decoding) -> SQLTranslator.Category {
        switch decoding {
        // Decimals are text in the store: as "objects", every comparison
        // but a nil check goes to memory.
        case .attribute(let type): return type == .decimal ? .object : SQLTranslator.category(of: type)
        case .integer, .double, .stored: return .number
        }
    }

    private static func kind(of decoding: Decoding) -> SQLTranslator.NumberKind {
        switch decoding {
        case .attribute(let type): return .of(type)
        case .integer: return .integer(exact: false)
        case .double: return .double(constant: false)
        case .stored: return .unknown
        }
    }

    static func error(_ message: String) -> StoreError {
        StoreError(.misuse, message)
    }
}
