import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate

/// A persistent store in a PostgreSQL database, through libpq: the same
/// model, contexts and predicates as a SQLite store, for several
/// processes and machines sharing one database.
///
/// ```swift
/// try coordinator.addPersistentStore(type: .postgres, at: URL(string: "postgres://app@db.local:5432/people")!)
/// ```
///
/// The tables are the SQLite store's (mrq's layout, from the same
/// `SchemaMapping`) in PostgreSQL's types; see `PostgresSchema`. Each
/// save is one transaction: updates and deletes name the version the
/// context read (`UPDATE … WHERE _pk = $1 AND _opt = $2`), so a row
/// another process changed meanwhile is a conflict for the merge policy,
/// never a lost update; keys come from each table's sequence; a unique
/// index refusing a row is a constraint conflict naming the objects.
///
/// Fetches, counts, dictionary fetches and batch requests run in SQL, from
/// the SQLite store's plans in PostgreSQL's dialect (see
/// `PostgresStore+Fetch.swift`); what PostgreSQL cannot say with the
/// evaluator's meaning is evaluated in memory on the rows it returns.
///
/// One connection, used under the store's lock; `busyTimeout` is the
/// connection's `lock_timeout`.
package final class PostgresStore: StoreBackend, @unchecked Sendable {
    package let identifier: String
    package let model: ManagedObjectModel
    package let mapping: SchemaMapping
    package let configurationName: String?
    package var layout: SchemaMapping.Layout? { mapping.layout }
    package var storeType: PersistentStoreType { .postgres }
    /// The URL the store was opened with, without a password.
    package let url: URL?
    package let storeNumber: StoreNumber
    let connection: PostgresConnection
    let isReadOnly: Bool
    private let lock = NSRecursiveLock()
    let layouts: [ObjectIdentifier: RowLayout]
    /// Names this store's saves in their notifications, so that its own
    /// listener leaves them out (see `announce`).
    let notificationSender = String(UInt64.random(in: .min ... .max), radix: 36)
    /// How many rows the server has returned to reads, for tests that
    /// check a filter runs in SQL.
    package var rowsReturned = 0
    /// How many transactions ran again after a deadlock or a
    /// serialization failure (see `retryingTransaction`), for tests.
    package var transactionsRetried = 0
    /// How many requests the store's connection has sent and waited for,
    /// for tests and benchmarks that count round trips.
    package var roundTrips: Int { connection.roundTrips }
    /// Each table's key sequence, by table name, found at first use.
    private var sequences: [SQLIdentifier: String] = [:]
    /// The single-column foreign keys of the store's tables, as
    /// `table column referenced-table`, read at first use (see
    /// `enforcesKeys`).
    private var foreignKeys: Set<[String]>?

    init(url: URL, model: ManagedObjectModel, configuration: String?, options: PersistentStoreOptions) throws {
        guard options.layout == .mrq else {
            throw StoreError(.misuse, "a PostgreSQL store is in mrq's layout: Core Data's layout is for SQLite files")
        }
        self.model = model
        self.configurationName = configuration
        self.isReadOnly = options.readOnly || options.immutable
        self.url = Self.withoutPassword(url)
        connection = try PostgresConnection(url.absoluteString)
        try PostgresSchema.setLockTimeout(options.busyTimeout, on: connection, untilCommit: false)
        mapping = try SchemaMapping(model: model)
        identifier = try PostgresSchema.prepare(connection, mapping: mapping, model: model, readOnly: isReadOnly,
                                                options: options)
        storeNumber = StoreNumber(identifier)
        layouts = RowLayout.all(model: model, mapping: mapping)
    }

    private static func withoutPassword(_ url: URL) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false), parts.password != nil else { return url }
        parts.password = nil
        return parts.url ?? url
    }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// `withLock` for statements that only read: run again once on a
    /// fresh connection when the server was lost (see
    /// `PostgresConnection.reading`).
    package func readingWithLock<T>(_ body: () throws -> T) throws -> T {
        try withLock { try connection.reading(body) }
    }

    /// Runs `body`, a write, and when the connection was lost on the way
    /// reconnects and says so in the error: the write was not applied
    /// (rolled back with the transaction), or, lost at its COMMIT, may
    /// have been; either way the caller's changes are kept, to save again.
    func reportingLoss<T>(_ body: () throws -> T) throws -> T {
        let before = connection.reconnections
        do {
            return try body()
        } catch let error as StoreError where connection.lostConnection(error, since: before) {
            try connection.reconnectAfterLoss(error)
            _ = connection.takeNotices()
            let outcome = error.sql == "COMMIT" ? "the connection went at COMMIT, so it may or may not have been written"
                                                : "nothing of it was written"
            throw StoreError(error.kind, "\(error.message); \(outcome); reconnected to PostgreSQL (\(connection.target)): "
                             + "the changes are kept, save again", code: error.code, sql: error.sql)
        }
    }

    /// Whether a foreign key constraint on the to-one's column guarantees
    /// that its keys name rows of the destination's table: true on a store
    /// mrq made with its constraints, false on one made before them or
    /// whose constraints a DBA dropped (its keys are then checked).
    package func enforcesKeys(of relationship: RelationshipDescription, in entity: EntityDescription) -> Bool {
        guard let destination = relationship.destination,
              let columns = mapping.toOne(relationship.name, of: entity) else { return false }
        let key = [mapping.table(for: entity).name.unquoted, columns.foreignKey.unquoted,
                   mapping.table(for: destination).name.unquoted]
        return withLock {
            if foreignKeys == nil {
                do {
                    let rows = try connection.reading {
                        try connection.rows("""
                            SELECT t.relname::text, a.attname::text, r.relname::text FROM pg_constraint c
                            JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
                            JOIN pg_namespace n ON n.oid = t.relnamespace
                            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
                            WHERE c.contype = 'f' AND n.nspname = current_schema() AND cardinality(c.conkey) = 1
                            """)
                    }
                    foreignKeys = Set(rows.map { $0.map { if case .string(let s) = $0 { return s } else { return "" } } })
                } catch {
                    // Unknown: check the keys, which is right either way.
                    MRLog.error("cannot read the foreign keys of \(connection.target): \(error)")
                    return false
                }
            }
            return foreignKeys?.contains(key) ?? false
        }
    }

    /// What the store has to say since last asked (a reconnection).
    package func takeNotices() -> [String] { withLock { connection.takeNotices() } }

    /// Held from `prepareSave` to its commit or rollback.
    func lockForPreparedSave() { lock.lock() }
    func unlockAfterPreparedSave() { lock.unlock() }

    // MARK: - Reading

    /// `t._ent IN (…)` for the rows of `kinds` when their table holds
    /// other entities too; nil when every row is one of them. (Entity
    /// codes come from the model.)
    private func entityFilter(_ kinds: [EntityDescription]) -> String? {
        let root = kinds[0].rootEntity
        guard let entityColumn = mapping.table(for: root).entityColumn, kinds.count < root.selfAndDescendants.count else { return nil }
        return "t.\(entityColumn) IN (\(kinds.map { String(mapping.entityCode($0)) }.joined(separator: ", ")))"
    }

    package func snapshots(for ids: [ObjectID]) throws -> [Snapshot] {
        var result: [Snapshot] = []
        for group in Dictionary(grouping: ids, by: { ObjectIdentifier($0.entity.rootEntity) }).values {
            let root = group[0].entity.rootEntity
            result += try snapshots(ofTable: root, where: "t.\(mapping.primaryKey)", in: group.map { .int($0.primaryKey) })
        }
        return result
    }

    package func snapshots(of entity: EntityDescription, where attribute: String, in values: [Value]) throws -> [Snapshot] {
        guard let column = mapping.column(for: attribute, of: entity) else { return [] }
        let filter = entityFilter(entity.selfAndDescendants).map { " AND \($0)" } ?? ""
        return try snapshots(ofTable: entity.rootEntity, where: "t.\(column.name)",
                             in: values.filter { !$0.isNull }, filter: filter)
    }

    /// The rows of `root`'s table whose `column` is one of `values`, asked
    /// for in lists of a power of two (the last value repeated), so that a
    /// few prepared statements serve every count.
    private func snapshots(ofTable root: EntityDescription, where column: String, in values: [Value],
                           filter: String = "") throws -> [Snapshot] {
        var result: [Snapshot] = []
        var start = 0
        while start < values.count {
            let size = min(512, 1 << (Int.bitWidth - (values.count - start - 1).leadingZeroBitCount))
            var chunk = Array(values[start..<min(start + size, values.count)])
            start += chunk.count
            chunk += Array(repeating: chunk.last!, count: size - chunk.count)
            let marks = Array(repeating: "?", count: size).joined(separator: ", ")
            let sql = "SELECT \(mapping.selectList(for: root)) FROM \(mapping.table(for: root).name) t "
                + "WHERE \(column) IN (\(marks))\(filter)"
            result += try snapshots(sql: sql, chunk, root: root)
        }
        return result
    }

    package func destinations(of relationship: RelationshipDescription, from source: ObjectID) throws -> [ObjectID] {
        guard let sql = mapping.destinationsSQL(of: relationship, from: source.entity),
              let root = relationship.destination?.rootEntity else { return [] }
        return try objectIDs(sql: sql, bindings: [.int(source.primaryKey)], root: root)
    }

    package func allSnapshots() throws -> [Snapshot] {
        try model.rootEntities.flatMap { root in
            let sql = "SELECT \(mapping.selectList(for: root)) FROM \(mapping.table(for: root).name) t "
                + "ORDER BY t.\(mapping.primaryKey)"
            return try snapshots(sql: sql, [], root: root)
        }
    }

    /// Runs a SELECT of `selectList` and decodes its rows.
    func snapshots(sql: String, _ values: [Value], root: EntityDescription) throws -> [Snapshot] {
        try decodedRows(sql: sql, values, root: root) { snapshot, _, _ in snapshot }
    }

    /// The destination rows of a to-many relationship for many sources at
    /// once, each with its source's key: one statement, the sources' keys
    /// bound as one JSON list, as SQLite's store reads them.
    package func prefetchRows(of relationship: RelationshipDescription, sourceEntity: EntityDescription,
                              sources: [Int64]) throws -> [(owner: Int64, snapshot: Snapshot)]? {
        guard let root = relationship.destination?.rootEntity,
              let sql = mapping.prefetchSQL(of: relationship, sourceEntity: sourceEntity, dialect: dialect)
        else { return [] }
        let ownerColumn = 3 + mapping.table(for: root).columns.count
        let list = "[" + sources.map(String.init).joined(separator: ",") + "]"
        return try decodedRows(sql: sql, [.string(list)], root: root) { snapshot, result, row in
            (result.int64(row, ownerColumn), snapshot)
        }
    }

    /// Runs a SELECT starting with `selectList` and makes a value of each
    /// row from its decoded snapshot and the row.
    private func decodedRows<T>(sql: String, _ values: [Value], root: EntityDescription,
                                _ make: (Snapshot, PostgresResult, Int) throws -> T) throws -> [T] {
        try readingWithLock {
            let result = try connection.query(sql, values)
            rowsReturned += result.rowCount
            return try (0..<result.rowCount).map { row in
                var layout = layouts[ObjectIdentifier(root)]!
                if !result.isNull(row, 1) {
                    let entity = try RowLayout.entity(.int(result.int64(row, 1)), kindOf: root, mapping: mapping, model: model) {
                        "row \(result.int64(row, 0)) of \(mapping.table(for: root).name.unquoted), \(mapping.table(for: root).entityColumn?.unquoted ?? "the entity column")"
                    }
                    layout = layouts[ObjectIdentifier(entity)]!
                }
                return try make(try layout.decode(result, row: row, store: self), result, row)
            }
        }
    }

    /// The ID of row `pk` of `root`'s hierarchy, whose entity column (if
    /// any) holds `entityCode`: `root` or an entity below it, else an
    /// error that `place` (the row and column) starts. A negative key, a
    /// temporary ID's, is refused too.
    func objectID(pk: Int64, entityCode: Int64?, root: EntityDescription, _ place: () -> String) throws -> ObjectID {
        guard pk >= 0 else { throw StoreError(.corrupt, "\(place()): the key \(pk) is negative") }
        var entity = root
        if let entityCode {
            entity = try RowLayout.entity(.int(entityCode), kindOf: root, mapping: mapping, model: model, place)
        }
        return ObjectID(entity: entity, primaryKey: pk, store: storeNumber)
    }

    /// The sequence `table`'s keys come from.
    func keySequence(of table: SQLIdentifier) throws -> String {
        if let known = sequences[table] { return known }
        guard case .string(let name)? = try connection.scalar("SELECT pg_get_serial_sequence($1, $2)",
                                                              [.string(table.quoted), .string(mapping.primaryKey.unquoted)]) else {
            throw StoreError(.corrupt, "the table \(table.quoted) of the PostgreSQL store (\(connection.target)) has no key sequence")
        }
        sequences[table] = name
        return name
    }
}

extension RowLayout {
    /// Decodes a row of a PostgreSQL result selected with `selectList`.
    func decode(_ result: PostgresResult, row: Int, store: PostgresStore) throws -> Snapshot {
        var values: [Value] = []
        values.reserveCapacity(attributes.count)
        for slot in attributes {
            guard let column = slot.column.map(Int.init), !result.isNull(row, column) else {
                values.append(.null)
                continue
            }
            let value = try result.value(row, column)
            // A URI is kept as its text; everything else reads as it is held.
            if slot.type == .uri, case .string(let text) = value {
                values.append(URL(string: text).map(Value.url) ?? .null)
            } else {
                values.append(value)
            }
        }
        var links = entity.faultSlots
        for (i, slot) in toOne.enumerated() {
            guard let slot, !result.isNull(row, Int(slot.foreignKey)) else { continue }
            let code = slot.entityColumn.flatMap { result.isNull(row, Int($0)) ? nil : result.int64(row, Int($0)) }
            links[i] = .toOne(try store.objectID(pk: result.int64(row, Int(slot.foreignKey)), entityCode: code, root: slot.destination) {
                "\(place(result.int64(row, 0))), \(columnName(at: slot.foreignKey)) (\(entity.name).\(entity.relationships[i].name))"
            })
        }
        let pk = result.int64(row, 0)
        guard pk >= 0 else { throw StoreError(.corrupt, "\(place(pk)): the key \(pk) is negative") }
        return Snapshot(id: ObjectID(entity: entity, primaryKey: pk, store: store.storeNumber),
                        version: result.int64(row, 2), values: values, links: links)
    }
}
