import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate

// Reading in SQL: the plans of the SQLite store, in PostgreSQL's dialect.
extension PostgresStore: SQLStore {
    package var dialect: SQLDialect { PostgresDialect() }

    package func fetchSnapshots(_ request: FetchRequest, entity: EntityDescription, predicate: Predicate?,
                                windowed: Bool) throws -> StoreFetch {
        let plan = try FetchPlan(request: request, entity: entity, store: self, predicate: predicate)
        let whole = windowed && plan.residual == nil && plan.sortsInSQL
        let sql = plan.selectRows(store: self, limit: whole ? request.fetchLimit : 0, offset: whole ? request.fetchOffset : 0)
        return StoreFetch(snapshots: try snapshots(sql: sql, plan.bindings, root: plan.root), residual: plan.residual,
                          isSorted: plan.sortsInSQL)
    }

    package func forEachSnapshot(sql: String, bindings: [Value], root: EntityDescription,
                         _ body: (consuming Snapshot) throws -> Void) throws {
        for snapshot in try snapshots(sql: sql, bindings, root: root) { try body(snapshot) }
    }

    package func objectIDs(sql: String, bindings: [Value], root: EntityDescription) throws -> [ObjectID] {
        try readingWithLock {
            let result = try connection.query(sql, bindings)
            rowsReturned += result.rowCount
            return try (0..<result.rowCount).map { row in
                try objectID(pk: result.int64(row, 0), entityCode: result.isNull(row, 1) ? nil : result.int64(row, 1), root: root) {
                    "row \(result.int64(row, 0)) of \(mapping.table(for: root).name.unquoted), \(mapping.table(for: root).entityColumn?.unquoted ?? "the entity column")"
                }
            }
        }
    }

    package func objectIDList(sql: String, bindings: [Value], root: EntityDescription) throws -> ObjectIDList {
        ObjectIDList(try objectIDs(sql: sql, bindings: bindings, root: root))
    }

    package func count(sql: String, bindings: [Value]) throws -> Int {
        try readingWithLock {
            guard case .int(let n)? = try connection.scalar(sql, bindings) else { return 0 }
            return Int(n)
        }
    }

    package func forEachRow(of plan: DictionaryPlan, _ body: ([Value]) throws -> Void) throws {
        let rows = try readingWithLock { () throws -> [[Value]] in
            let result = try connection.query(plan.sql, plan.bindings)
            rowsReturned += result.rowCount
            return try (0..<result.rowCount).map { row in
                try plan.columns.indices.map { column in
                    guard !result.isNull(row, column) else { return .null }
                    let value = try result.value(row, column)
                    switch (plan.columns[column].decoding, value) {
                    case (.attribute(.uri), .string(let text)): return URL(string: text).map(Value.url) ?? .null
                    case (.integer, .bool(let b)): return .int(b ? 1 : 0)
                    case (.double, .int(let i)): return .double(Double(i))
                    default: return value
                    }
                }
            }
        }
        for row in rows { try body(row) }
    }

    /// Runs `body` in one REPEATABLE READ transaction (inside an open one
    /// as it is): every statement sees the store at one moment.
    package func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try readingWithLock {
            let nested = connection.isInTransaction
            return try connection.transaction {
                if !nested { try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ") }
                return try body()
            }
        }
    }
}

// Batch requests: one statement each where SQL says the whole predicate.
extension PostgresStore {
    package func sqlRows(_ sql: String, _ values: [Value]) throws -> [[Value]] { try readingWithLock { try connection.rows(sql, values) } }
    package func sqlExecute(_ sql: String, _ values: [Value]) throws { try withLock { _ = try connection.execute(sql, values) } }
    package func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        if isReadOnly { throw StoreError(.readOnly, "cannot change the PostgreSQL store (\(connection.target)): it is open read-only") }
        return try withLock { try reportingLoss { try retryingTransaction { try connection.transaction(body) } } }
    }
    /// A sequence never hands a key out twice: nothing to record.
    package func recordHighestKeys(ofTables tables: Set<SQLIdentifier>, listing: StatementList?) throws {}

    /// `UPDATE … SET …, _opt = _opt + 1 WHERE _pk IN (SELECT …) RETURNING
    /// _pk`: one statement when SQL says the whole predicate and computes
    /// every value; else the matching keys are found first (the residual
    /// evaluated in memory) and updated in one statement, and what only
    /// the evaluator computes is set object by object.
    package func batchUpdate(entity: EntityDescription, matching: FetchRequest, properties: [String: BatchValue],
                             coordinator: PersistentStoreCoordinator, listing: StatementList?) throws -> [ObjectID] {
        let plan = try batchUpdatePlan(entity: entity, properties: properties)
        return try batchTransaction(listing) {
            let fetch = try FetchPlan(request: matching, entity: entity, store: self, predicate: matching.predicate)
            var ids: [ObjectID]
            if let whole = batchUpdateInOne(entity: entity, plan: plan, fetch: fetch) {
                if let listing {
                    listing.add(statement: whole, dialect: dialect, purpose: "update")
                    return []
                }
                let (text, values) = whole.rendered(by: dialect)
                ids = try objectIDs(sql: text, bindings: values, root: entity.rootEntity)
            } else {
                let scratch = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
                ids = try matchingIDs(matching, scratch: scratch, listing)
                guard !ids.isEmpty else { return ids }
                let update = batchUpdateOfKeys(entity: entity, plan: plan, ids: ids)
                if let listing {
                    listing.add(statement: update, dialect: dialect, purpose: "update")
                } else {
                    let (text, values) = update.rendered(by: dialect)
                    _ = try objectIDs(sql: text, bindings: values, root: entity.rootEntity)
                }
                try updateInMemory(plan, ids, of: entity, scratch: scratch, listing)
            }
            ids.sort { $0.primaryKey < $1.primaryKey }
            return ids
        }
    }

    /// The one statement of a batch update when SQL says the whole
    /// predicate and computes every value; else nil.
    private func batchUpdateInOne(entity: EntityDescription, plan: BatchUpdatePlan, fetch: FetchPlan) -> SQL? {
        guard fetch.residual == nil && plan.inMemory.isEmpty else { return nil }
        let select: SQL = "(SELECT t.\(mapping.primaryKey) FROM \(fetch.from) WHERE \(fetch.condition))"
        return batchUpdateSQL(entity: entity, plan: plan, keys: select)
    }

    /// The UPDATE of the rows `ids`, their keys bound as one JSON list.
    private func batchUpdateOfKeys(entity: EntityDescription, plan: BatchUpdatePlan, ids: [ObjectID]) -> SQL {
        let keys = "[" + ids.map { String($0.primaryKey) }.joined(separator: ",") + "]"
        return batchUpdateSQL(entity: entity, plan: plan,
                              keys: dialect.keysIn(SQL.keys([.string(keys)], count: ids.count, numbered: true)))
    }

    private func batchUpdateSQL(entity: EntityDescription, plan: BatchUpdatePlan, keys: SQL) -> SQL {
        let table = mapping.table(for: entity)
        return "UPDATE \(table.name) AS t SET \(plan.assignments) WHERE t.\(mapping.primaryKey) IN \(keys)"
            + " RETURNING t.\(mapping.primaryKey), \(table.entityColumn.map { "t.\($0)" } ?? "NULL")"
    }
}
