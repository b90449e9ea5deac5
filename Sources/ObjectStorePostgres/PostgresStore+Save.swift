import Foundation
import ObjectStore
import Predicates

extension PostgresStore {
    /// Writes one save in one transaction and returns the permanent IDs
    /// of the inserted objects. A row whose version moved since the
    /// context read it throws `StoreConflictError`, a uniqueness
    /// constraint the save would break `StoreConstraintConflictError`;
    /// either way nothing is written.
    package func save(_ changes: StoreChanges) throws -> PermanentIDs {
        try refuseIfReadOnly()
        return try withLock { try reportingLoss { try retryingTransaction { try write(changes) { try connection.transaction($0) } } } }
    }

    package func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        try refuseIfReadOnly()
        // The lock stays held until commit or rollback: nothing else runs
        // inside the open transaction.
        lockForPreparedSave()
        do {
            // The transaction stays open for `commit`; a failure rolls it back.
            let permanent = try reportingLoss { try retryingTransaction {
                try write(changes) { body in
                    try connection.beginTransaction()
                    do {
                        return try body()
                    } catch {
                        connection.rollbackTransaction()
                        throw error
                    }
                }
            } }
            return PreparedPostgresSave(store: self, permanentIDs: permanent)
        } catch {
            unlockAfterPreparedSave()
            throw error
        }
    }

    /// Runs `body`, a whole transaction, again when PostgreSQL aborted it
    /// for a deadlock (40P01) or a serialization failure (40001), up to
    /// `transactionAttempts` times (see `SQLConnection.retryingTransaction`).
    /// The next attempt checks every row's version again, so a row another
    /// save changed meanwhile is a conflict for the merge policy, never a
    /// lost or doubled update.
    ///
    /// Why retry rather than one lock order: saves already lock the rows
    /// they delete, then those they update, each sorted by table and key,
    /// but no order taken by each save alone covers a save deleting A and
    /// updating B against one deleting B and updating A (deletes first
    /// keeps a unique value a deleted row frees for an update of the same
    /// save), nor the waits of unique indexes, join rows, batch requests
    /// and other clients; PostgreSQL finds every deadlock, and the victim's
    /// retry is always safe.
    func retryingTransaction<T>(_ body: () throws -> T) throws -> T {
        try connection.retryingTransaction(attempts: Self.transactionAttempts, retrying: { transactionsRetried += 1 }, body)
    }

    /// How many times a transaction runs before its deadlock or
    /// serialization failure is passed on.
    static let transactionAttempts = 8

    private func refuseIfReadOnly() throws {
        if isReadOnly { throw StoreError(.readOnly, "cannot save: the PostgreSQL store (\(connection.target)) is open read-only") }
    }

    /// Writes the save and its announcement to other processes (see
    /// `announce`) in a transaction `transaction` opens, which undoes it
    /// when its body throws. When a unique index refuses a row, that
    /// transaction is gone: the rows as they were say who collides; when
    /// nobody does, two rows were trading values, and the save is written
    /// again, in a new transaction, clearing the values that move first.
    /// (No savepoint: two round trips fewer for every save, and the second
    /// transaction is paid only by a save that collides.)
    private func write(_ changes: StoreChanges,
                       in transaction: (() throws -> PermanentIDs) throws -> PermanentIDs) throws -> PermanentIDs {
        func write(clearing: Bool) throws -> PermanentIDs {
            let permanent = try PostgresSaveWriter(store: self, changes: changes, clearsMovingUniqueValues: clearing).write()
            try announce(changes, permanentIDs: permanent)
            return permanent
        }
        do {
            return try transaction { try write(clearing: false) }
        } catch let error as StoreError where error.sqlState == "23505" {
            let conflicts = try uniquenessCheck.conflicts(in: changes)
            if !conflicts.isEmpty { throw StoreConstraintConflictError(conflicts: conflicts) }
            return try transaction { try write(clearing: true) }
        }
    }

    private var uniquenessCheck: UniquenessCheck {
        UniquenessCheck(rows: { [unowned self] entity, attribute, values in
            try self.snapshots(of: entity, where: attribute, in: values)
        }, allRows: { [unowned self] entity in
            try self.fetchSnapshots(FetchRequest(entityName: entity.name), entity: entity, predicate: nil, windowed: false).snapshots
        })
    }
}

/// A PostgreSQL transaction holding one store's part of a save.
private struct PreparedPostgresSave: PreparedSave {
    let store: PostgresStore
    let permanentIDs: PermanentIDs

    func commit() throws {
        defer { store.unlockAfterPreparedSave() }
        try store.connection.commitTransaction()
    }

    func rollback() {
        store.connection.rollbackTransaction()
        store.unlockAfterPreparedSave()
    }
}

/// Writes one `StoreChanges` inside the store's transaction: keys from
/// the sequences first (rows inserted together point at each other),
/// then, in `SaveOrder`'s order, updates and deletes, each only while its
/// row has the version the context read, and inserts (by `COPY` where it
/// pays); then to-many contents.
struct PostgresSaveWriter {
    let store: PostgresStore
    let changes: StoreChanges
    var clearsMovingUniqueValues = false
    private var mapping: SchemaMapping { store.mapping }
    private var connection: PostgresConnection { store.connection }

    init(store: PostgresStore, changes: StoreChanges, clearsMovingUniqueValues: Bool = false) {
        self.store = store
        self.changes = changes
        self.clearsMovingUniqueValues = clearsMovingUniqueValues
    }

    private var writes: SQLWrites { SQLWrites(mapping: mapping, connection: connection) }

    func write() throws -> PermanentIDs {
        let keys = try assignPrimaryKeys()
        let permanent = PermanentIDs(temporaries: changes.inserted.map(\.id), keys: keys, store: store.storeNumber)
        let progress = changes.progress
        if clearsMovingUniqueValues { try writes.clearMovingUniqueValues(changes.updated) }
        var conflicts: [(id: ObjectID, expectedVersion: Int64)] = []
        // Rows are locked in one order, by table and key, in every save:
        // two saves of the same rows then wait for each other instead of
        // deadlocking (the multi-process test met 40P01 without it).
        func order(_ a: ObjectID, _ b: ObjectID) -> Bool {
            (mapping.table(for: a.entity).name, a.primaryKey) < (mapping.table(for: b.entity).name, b.primaryKey)
        }
        // In `SaveOrder`'s order (a foreign key of the DBA's, checked at
        // each statement, never sees a row naming one not there), each
        // part by table and key.
        let saveOrder = SaveOrder(changes, mapping: mapping, within: order)
        var updatedSoFar = 0
        func update(_ updates: [StoreChanges.Update]) throws {
            for update in updates {
                if try !self.update(update, permanent: permanent) {
                    conflicts.append((update.snapshot.id, update.expectedVersion))
                }
                if let progress { try SaveWriter.report(updatedSoFar, of: changes.updated.count, to: progress) }
                updatedSoFar += 1
            }
        }
        func throwConflicts() throws {
            guard !conflicts.isEmpty else { return }
            var current: [ObjectID: Snapshot] = [:]
            for snapshot in try store.snapshots(for: conflicts.map(\.id)) { current[snapshot.id] = snapshot }
            throw StoreConflictError(conflicts: conflicts.map {
                StoreConflict(id: $0.id, expectedVersion: $0.expectedVersion, current: current[$0.id])
            }.sorted { $0.id.primaryKey < $1.id.primaryKey })
        }
        try update(saveOrder.earlyUpdates)
        for (n, deleted) in saveOrder.deleted.enumerated() {
            if try !writes.delete(deleted.id, expectedVersion: deleted.expectedVersion) { conflicts.append(deleted) }
            if let progress { try SaveWriter.report(n, of: changes.deleted.count, to: progress) }
        }
        try throwConflicts()
        try insert(keys: keys, permanent: permanent, order: saveOrder)
        try update(saveOrder.lateUpdates)
        try throwConflicts()
        try writes.writeToMany(changes.toMany, permanent: permanent)
        return permanent
    }

    /// Inserts the new rows, each entity's together: by one binary `COPY`
    /// when there are several (see `copy`), otherwise, and for the rows a
    /// copy leaves, one prepared INSERT per row.
    private func insert(keys: [Int64], permanent: PermanentIDs, order saveOrder: SaveOrder) throws {
        var groups: [ObjectIdentifier: [Int]] = [:]
        var order: [EntityDescription] = []
        for (n, snapshot) in changes.inserted.enumerated() {
            let entity = snapshot.id.entity
            if groups[ObjectIdentifier(entity)] == nil { order.append(entity) }
            groups[ObjectIdentifier(entity), default: []].append(n)
        }
        // Parents first; entities of one rank in the order they came.
        order = order.enumerated().sorted { a, b in
            let (x, y) = (saveOrder.insertRank(a.element), saveOrder.insertRank(b.element))
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
        // Rows reported to `progress` so far: each once, whichever way it goes.
        var reported = 0
        func report(_ done: Int) throws {
            guard let progress = changes.progress else { return }
            while reported < done {
                try SaveWriter.report(reported, of: changes.inserted.count, to: progress)
                reported += 1
            }
        }
        var done = 0
        for entity in order {
            let shape = SaveWriter.insertShape(for: entity, mapping: mapping)
            let rows = groups[ObjectIdentifier(entity)] ?? []
            let copied = try rows.count > 1
                ? copy(rows, keys: keys, shape: shape, permanent: permanent, report: { try report(done + $0) }) : 0
            for (i, n) in rows.enumerated().dropFirst(copied) {
                var values: [Value] = []
                _ = try forEachValue(of: changes.inserted[n], key: keys[n], shape: shape, permanent: permanent) {
                    values.append($0)
                    return true
                }
                try report(done + i + 1)
                try connection.execute(shape.sql, values)
            }
            done += rows.count
            try report(done)
        }
    }

    /// Passes the values of an inserted row to `body`, in the order of
    /// `shape`'s columns, while it returns true; returns whether it always
    /// did.
    private func forEachValue(of snapshot: Snapshot, key: Int64, shape: SaveWriter.InsertShape, permanent: PermanentIDs,
                              _ body: (Value) throws -> Bool) throws -> Bool {
        let entity = snapshot.id.entity
        guard try body(.int(key)) else { return false }
        if let code = shape.entityCode, try !body(.int(code)) { return false }
        guard try body(.int(snapshot.version)) else { return false }
        for i in shape.attributes where try !body(snapshot.values[i]) { return false }
        for (i, withEntity) in shape.toOne {
            let target = try snapshot.toOneID(at: i).map {
                try permanent.destination($0, of: snapshot.id, key: entity.relationships[i].name)
            }
            guard try body(target.map { .int($0.primaryKey) } ?? .null) else { return false }
            if withEntity, try !body(target.map { .int(mapping.entityCode($0.entity)) } ?? .null) { return false }
        }
        return true
    }

    /// Writes the inserted objects at `rows` (positions in
    /// `changes.inserted`) by one binary `COPY`, each value as its column's
    /// type (the types the server infers for the INSERT's parameters), and
    /// returns how many of them, from the first, it wrote. Rows go straight
    /// from the snapshots into a chunk of the copy's bytes, sent whenever
    /// full (`PostgresCopyIn`): the server stores them while the next are
    /// encoded. A value with no binary form for its column, such as a
    /// decimal, stops the copy at its row: with nothing sent yet, it writes
    /// nothing and returns 0; else it writes the rows before, and the
    /// caller INSERTs the rest in order, as it would have INSERTed them
    /// all. `report` hears how many rows are encoded.
    private func copy(_ rows: [Int], keys: [Int64], shape: SaveWriter.InsertShape, permanent: PermanentIDs,
                      report: (Int) throws -> Void) throws -> Int {
        let types = try connection.parameterTypes(of: shape.sql)
        var copy = PostgresCopyIn(connection, "COPY \(shape.into) FROM STDIN (FORMAT binary)")
        var encoded = 0
        do {
            for n in rows {
                let complete = try copy.rows.appendRow(fields: types.count) { row in
                    var column = 0
                    return try forEachValue(of: changes.inserted[n], key: keys[n], shape: shape, permanent: permanent) { value in
                        defer { column += 1 }
                        return column < types.count && row.append(value, type: types[column])
                    }
                }
                guard complete else { break }
                encoded += 1
                try report(encoded)
                try copy.sendIfFull()
            }
            if encoded < rows.count, !copy.isStarted { return 0 }
            try copy.finish()
        } catch {
            copy.abandon()
            throw error
        }
        return encoded
    }

    /// The key of every inserted object, in the order of
    /// `changes.inserted`: each table's keys taken from its sequence at
    /// once.
    private func assignPrimaryKeys() throws -> [Int64] {
        var positions: [SQLIdentifier: [Int]] = [:]
        // Inserts come in runs of one entity: its table is looked up once
        // a run, not hashed by name for every row.
        var run: (entity: EntityDescription, table: SQLIdentifier)?
        var runPositions: [Int] = []
        func endRun() {
            if let run, !runPositions.isEmpty { positions[run.table, default: []].append(contentsOf: runPositions) }
            runPositions.removeAll(keepingCapacity: true)
        }
        for (n, snapshot) in changes.inserted.enumerated() {
            let entity = snapshot.id.entity
            if run?.entity !== entity {
                endRun()
                run = (entity, mapping.table(for: entity).name)
            }
            runPositions.append(n)
        }
        endRun()
        var keys = [Int64](repeating: 0, count: changes.inserted.count)
        for (table, indices) in positions {
            // One row of one array: 100,000 keys in one value, not rows.
            let result = try connection.query(
                "SELECT array_agg(k ORDER BY k) FROM (SELECT nextval($1::regclass) AS k FROM generate_series(1, $2)) s",
                [.string(try store.keySequence(of: table)), .int(Int64(indices.count))])
            guard result.rowCount == 1, let taken = result.int64Array(0, 0), taken.count == indices.count else {
                throw StoreError(.corrupt, "the key sequence of table \(table) gave no keys")
            }
            for (key, index) in zip(taken, indices) { keys[index] = key }
        }
        return keys
    }

    /// Writes the changed columns and the new version of one row, while
    /// it has the version the context read; false when it does not (or is
    /// gone).
    private func update(_ update: StoreChanges.Update, permanent: PermanentIDs) throws -> Bool {
        let (sql, values) = try SaveWriter.updateStatement(update, mapping: mapping, permanent: permanent) { value, _ in value }
        let version = mapping.table(for: update.snapshot.id.entity).versionColumn
        return try connection.execute(sql + " AND \(version) = ?", values + [.int(update.expectedVersion)]) == 1
    }
}
