import Foundation
import Predicates

/// Writes one `StoreChanges` inside the store's transaction, in
/// `SaveOrder`'s order (primary keys handed out first, so rows inserted
/// together can point at each other), then to-many contents.
///
/// Statements are prepared once per entity and bound by position.
package struct SaveWriter {
    let store: SQLiteStore
    let changes: StoreChanges
    /// Clear the unique values that updates change before any row is
    /// written: two rows trading values then never hold the same one.
    var clearsMovingUniqueValues = false
    var mapping: SchemaMapping { store.mapping }
    var db: Database { store.database }
    var writes: SQLWrites { SQLWrites(mapping: mapping, connection: db) }

    init(store: SQLiteStore, changes: StoreChanges, clearsMovingUniqueValues: Bool = false) {
        self.store = store
        self.changes = changes
        self.clearsMovingUniqueValues = clearsMovingUniqueValues
    }

    func write() throws -> PermanentIDs {
        try recordHighestKeys(before: changes.deleted)
        let progress = changes.progress
        // In `SaveOrder`'s order: a foreign key of the DBA's, checked at
        // each statement, never sees a row naming one not there.
        let order = SaveOrder(changes, mapping: mapping)
        var keys = try assignPrimaryKeys()
        let permanent = PermanentIDs(temporaries: changes.inserted.map(\.id), keys: keys, store: store.storeNumber)
        var updatedSoFar = 0
        func update(_ updates: [StoreChanges.Update]) throws {
            for update in updates {
                try self.update(update, permanent: permanent)
                if let progress { try Self.report(updatedSoFar, of: changes.updated.count, to: progress) }
                updatedSoFar += 1
            }
        }
        try update(order.earlyUpdates)
        for (n, deleted) in order.deleted.enumerated() {
            try writes.delete(deleted.id)
            if let progress { try Self.report(n, of: changes.deleted.count, to: progress) }
        }
        if clearsMovingUniqueValues { try writes.clearMovingUniqueValues(changes.updated) }
        var inserted = changes.inserted
        if !order.isInInsertOrder(inserted) {
            let positions = order.insertOrder(inserted)
            inserted = positions.map { changes.inserted[$0] }
            keys = positions.map { keys[$0] }
        }
        var inserts: [ObjectIdentifier: InsertStatement] = [:]
        // Rows bind their long strings in place (see `insertRows`): no
        // binding may outlive this save's snapshots.
        defer { for insert in inserts.values { insert.statement.clearBindings() } }
        // Inserts come in runs of one entity: each run binds with its
        // statement and plan at hand.
        try inserted.withUnsafeBufferPointer { rows in
            try keys.withUnsafeBufferPointer { keys in
                var start = 0
                while start < rows.count {
                    let entity = rows[start].id.entity
                    var end = start + 1
                    while end < rows.count && rows[end].id.entity === entity { end += 1 }
                    let key = ObjectIdentifier(entity)
                    if inserts[key] == nil { inserts[key] = try insertStatement(for: entity) }
                    try inserts[key]!.insertRows(UnsafeBufferPointer(rebasing: rows[start..<end]),
                                                 keys: UnsafeBufferPointer(rebasing: keys[start..<end]),
                                                 permanent: permanent, mapping: mapping, progress: progress)
                    start = end
                }
            }
        }
        try update(order.lateUpdates)
        try writes.writeToMany(changes.toMany, permanent: permanent)
        return permanent
    }

    /// Tells `progress` of the rows written, every 256 and at the end:
    /// `n` is the row just written, of `count`.
    @inline(__always)
    package static func report(_ n: Int, of count: Int, to progress: (Int) throws -> Void) throws {
        if n & 255 == 255 {
            try progress(256)
        } else if n == count - 1 {
            try progress(count & 255)
        }
    }

    /// The primary key of every inserted object, in the order of
    /// `changes.inserted`.
    ///
    /// Keys are never reused: each table's highest key ever given is kept
    /// in the store's metadata (Core Data's `Z_PRIMARYKEY.Z_MAX`), so a
    /// row inserted after the last one was deleted does not take its key,
    /// and an object ID held elsewhere never names another object.
    private func assignPrimaryKeys() throws -> [Int64] {
        var next: [ObjectIdentifier: (table: SQLIdentifier, next: Int64)] = [:]
        var keys: [Int64] = []
        keys.reserveCapacity(changes.inserted.count)
        // Inserts come in runs of one hierarchy: its counter stays at hand.
        var current: (root: ObjectIdentifier, table: SQLIdentifier, next: Int64)?
        let inserted = changes.inserted
        for index in inserted.indices {
            let key = ObjectIdentifier(inserted[index].id.entity.rootEntity)
            if current?.root != key {
                if let current { next[current.root] = (current.table, current.next) }
                if let known = next[key] {
                    current = (key, known.table, known.next)
                } else {
                    let table = mapping.table(for: inserted[index].id.entity.rootEntity).name
                    current = (key, table, try store.highestKey(of: table) + 1)
                }
            }
            keys.append(current!.next)
            current!.next += 1
        }
        if let current { next[current.root] = (current.table, current.next) }
        for (table, following) in next.values { try store.recordHighestKey(following - 1, of: table) }
        return keys
    }

    /// Records each table's highest key before rows are deleted from it.
    private func recordHighestKeys(before deleted: [(id: ObjectID, expectedVersion: Int64)]) throws {
        guard !deleted.isEmpty else { return }
        try store.recordHighestKeys(ofTables: Set(deleted.map { mapping.table(for: $0.id.entity.rootEntity).name }), listing: nil)
    }

    /// One entity's INSERT, prepared once per save, and which snapshot
    /// slots go to which parameter. (A class: the row loop holds one
    /// reference, not a copy of each list.)
    private final class InsertStatement {
        let statement: Statement
        let entityCode: Int64?
        /// Attribute slots, bound from parameter 3 (4 with an entity column) on.
        let attributes: [Int]
        /// Attributes whose values the layout stores otherwise than held
        /// (Core Data's UUIDs and external data), by slot.
        package let converted: [Int: AttributeDescription]
        /// To-one slots, and whether each also binds an entity column.
        let toOne: [(slot: Int, withEntity: Bool)]
        /// Where each attribute's short string is copied to be bound in
        /// place (`Statement.bindInPlace`), `Statement.shortStringRoom`
        /// bytes per attribute: alive, and each part unchanged, from its
        /// binding until the row is stepped. `write` clears the bindings
        /// before letting go of the statement.
        let rooms: UnsafeMutablePointer<UInt8>

        init(statement: Statement, entityCode: Int64?, attributes: [Int], converted: [Int: AttributeDescription],
             toOne: [(slot: Int, withEntity: Bool)]) {
            self.statement = statement
            self.entityCode = entityCode
            self.attributes = attributes
            self.converted = converted
            self.toOne = toOne
            let size = max(1, attributes.count * Statement.shortStringRoom)
            rooms = .allocate(capacity: size)
            rooms.initialize(repeating: 0, count: size)
        }

        deinit {
            rooms.deallocate()
        }

        /// Inserts `rows`, all of this statement's entity, with their
        /// primary keys `keys`.
        ///
        /// Values are bound where they lie: no copy (and retain) of each
        /// value, and long strings not copied by SQLite either. The rows
        /// outlive the steps; `write` clears the bindings before letting
        /// go of them. Long strings are loaded a few rows ahead (see
        /// `Prefetch`).
        func insertRows(_ rows: UnsafeBufferPointer<Snapshot>, keys: UnsafeBufferPointer<Int64>,
                        permanent: PermanentIDs, mapping: SchemaMapping, progress: ((Int) throws -> Void)?) throws {
            let (statement, entityCode, attributes, toOne) = (self.statement, self.entityCode, self.attributes, self.toOne)
            let ahead = 8
            for row in 0..<min(ahead, rows.count) { Prefetch.strings(in: rows[row].values) }
            for row in rows.indices {
                if row + ahead < rows.count { Prefetch.strings(in: rows[row + ahead].values) }
                // Every parameter is bound below.
                statement.resetForRebinding()
                var position: Int32 = 1
                func bind(_ value: Value) throws {
                    try statement.bind(value, at: position)
                    position += 1
                }
                try bind(.int(keys[row]))
                if let entityCode { try bind(.int(entityCode)) }
                try bind(.int(rows[row].version))
                try rows[row].values.withUnsafeBufferPointer { values in
                    var room = rooms
                    for i in attributes {
                        if !converted.isEmpty, let attribute = converted[i] {
                            try statement.bind(mapping.stored(values[i], for: attribute), at: position)
                        } else {
                            try statement.bindInPlace(values.baseAddress! + i, at: position, room: room)
                        }
                        position += 1
                        room += Statement.shortStringRoom
                    }
                }
                for (i, withEntity) in toOne {
                    // The row only, not the permanent ID: the entity stays
                    // the same. The relationship's name is for the error
                    // alone: not looked up (and retained) per row.
                    guard let target = rows[row].toOneID(at: i) else {
                        try bind(.null)
                        if withEntity { try bind(.null) }
                        continue
                    }
                    guard let key = permanent.primaryKey(of: target) else {
                        throw PermanentIDs.danglingReference(to: target, of: rows[row].id,
                                                             key: rows[row].id.entity.relationships[i].name)
                    }
                    try bind(.int(key))
                    if withEntity { try bind(.int(mapping.entityCode(target.entity))) }
                }
                while try statement.step() {}
                if let progress { try SaveWriter.report(row, of: rows.count, to: progress) }
            }
        }
    }

    private func insertStatement(for entity: EntityDescription) throws -> InsertStatement {
        let shape = Self.insertShape(for: entity, mapping: mapping)
        return InsertStatement(statement: try db.cachedStatement(shape.sql), entityCode: shape.entityCode,
                               attributes: shape.attributes, converted: shape.converted, toOne: shape.toOne)
    }

    /// One entity's INSERT and which snapshot slots it binds, in order.
    package struct InsertShape {
        package let sql: String
        /// `"Table" ("column", …)`: what `sql` inserts into.
        package let into: String
        package let entityCode: Int64?
        package let attributes: [Int]
        package let converted: [Int: AttributeDescription]
        package let toOne: [(slot: Int, withEntity: Bool)]
    }

    package static func insertShape(for entity: EntityDescription, mapping: SchemaMapping) -> InsertShape {
        let table = mapping.table(for: entity)
        var names = [table.primaryKey]
        var entityCode: Int64?
        if let entityColumn = table.entityColumn {
            names.append(entityColumn)
            entityCode = mapping.entityCode(entity)
        }
        names.append(table.versionColumn)
        var attributes: [Int] = []
        var converted: [Int: AttributeDescription] = [:]
        for (i, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
            guard let column = mapping.column(for: attribute.name, of: entity) else { continue }
            names.append(column.name)
            attributes.append(i)
            if !mapping.storesAsHeld(attribute) { converted[i] = attribute }
        }
        var toOne: [(slot: Int, withEntity: Bool)] = []
        for (i, relationship) in entity.relationships.enumerated() where relationship.isToOne && !relationship.isTransient {
            guard let columns = mapping.toOne(relationship.name, of: entity) else { continue }
            names.append(columns.foreignKey)
            if let entityColumn = columns.entity { names.append(entityColumn) }
            toOne.append((i, columns.entity != nil))
        }
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        let into = "\(table.name) (\(names.map(\.quoted).joined(separator: ", ")))"
        return InsertShape(sql: "INSERT INTO \(into) VALUES (\(marks))", into: into, entityCode: entityCode, attributes: attributes, converted: converted, toOne: toOne)
    }

    /// The UPDATE of one row, `assignments` being `"column" = ?` parts.
    static func updateSQL(_ table: SchemaMapping.Table, assignments: [String], mapping: SchemaMapping) -> String {
        "UPDATE \(table.name) SET \(assignments.joined(separator: ", ")) WHERE \(mapping.primaryKey) = ?"
    }

    /// The DELETE of one row.
    static func deleteSQL(_ table: SchemaMapping.Table, mapping: SchemaMapping) -> String {
        "DELETE FROM \(table.name) WHERE \(mapping.primaryKey) = ?"
    }

    private func update(_ update: StoreChanges.Update, permanent: PermanentIDs) throws {
        let (sql, values) = try Self.updateStatement(update, mapping: mapping, permanent: permanent) { value, attribute in
            mapping.stored(value, for: attribute)
        }
        try db.execute(sql, values)
    }

    /// The UPDATE of one changed row and its values: the changed columns
    /// and to-ones, the new version, then the row's primary key, bound
    /// last. `column` gives what a column receives for an attribute's
    /// value (SQLite's stored form, or the value itself).
    package static func updateStatement(_ update: StoreChanges.Update, mapping: SchemaMapping, permanent: PermanentIDs,
                                column stored: (Value, AttributeDescription) -> Value) throws -> (sql: String, values: [Value]) {
        let snapshot = update.snapshot
        let entity = snapshot.id.entity
        let table = mapping.table(for: entity)
        var assignments: [String] = []
        var values: [Value] = []
        for i in update.changedAttributes {
            let attribute = entity.attributes[i]
            guard !attribute.isTransient, let column = mapping.column(for: attribute.name, of: entity) else { continue }
            assignments.append("\(column.name) = ?")
            values.append(stored(snapshot.values[i], attribute))
        }
        for i in update.changedToOne {
            let relationship = entity.relationships[i]
            guard let columns = mapping.toOne(relationship.name, of: entity) else { continue }
            let target = try snapshot.toOneID(at: i).map { try permanent.destination($0, of: snapshot.id, key: relationship.name) }
            assignments.append("\(columns.foreignKey) = ?")
            values.append(target.map { .int($0.primaryKey) } ?? .null)
            if let entityColumn = columns.entity {
                assignments.append("\(entityColumn) = ?")
                values.append(target.map { .int(mapping.entityCode($0.entity)) } ?? .null)
            }
        }
        assignments.append("\(table.versionColumn) = ?")
        values += [.int(snapshot.version), .int(snapshot.id.primaryKey)]
        return (updateSQL(table, assignments: assignments, mapping: mapping), values)
    }
}

extension SQLiteStore {
    /// The highest primary key `table` ever gave: its recorded mark, or
    /// its highest row (a store written before marks were kept).
    func highestKey(of table: SQLIdentifier, listing: StatementList? = nil) throws -> Int64 {
        var highest: Int64 = 0
        if case .int(let n)? = try batchRead("SELECT MAX(\(mapping.primaryKey)) FROM \(table)", listing: listing, purpose: "key bookkeeping")
            .first?.first { highest = n }
        let recorded: Value?
        if let root = coreDataRootNumber(ofTable: table) {
            recorded = try batchRead("SELECT Z_MAX FROM \(CoreDataTables.primaryKey) WHERE Z_ENT = ?", [.int(root)], listing: listing,
                                     purpose: "key bookkeeping").first?.first
        } else {
            recorded = try batchRead("SELECT value FROM \(Self.metadataTable) WHERE key = ?",
                                     [.string(Self.highestKeyName(table))], listing: listing, purpose: "key bookkeeping").first?.first
        }
        if case .int(let n)? = recorded { highest = max(highest, n) }
        return highest
    }

    /// Records `key` as the highest `table` gave: in Core Data's layout the
    /// root entity's `Z_PRIMARYKEY.Z_MAX`, as Core Data keeps it.
    func recordHighestKey(_ key: Int64, of table: SQLIdentifier, listing: StatementList? = nil) throws {
        if let root = coreDataRootNumber(ofTable: table) {
            try batchWrite("UPDATE \(CoreDataTables.primaryKey) SET Z_MAX = ? WHERE Z_ENT = ?", [.int(key), .int(root)], listing: listing,
                           purpose: "key bookkeeping")
            return
        }
        try batchWrite("INSERT INTO \(Self.metadataTable) (key, value) VALUES (?, ?) "
                       + "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       [.string(Self.highestKeyName(table)), .int(key)], listing: listing, purpose: "key bookkeeping")
    }

    /// Records the highest key of each table before rows are deleted from
    /// them: deleting the highest row must not hand its key out again.
    package func recordHighestKeys(ofTables tables: Set<SQLIdentifier>, listing: StatementList?) throws {
        for table in tables.sorted() {
            try recordHighestKey(try highestKey(of: table, listing: listing), of: table, listing: listing)
        }
    }

    static func highestKeyName(_ table: SQLIdentifier) -> String { "highest-pk." + table.unquoted }
}

extension ManagedObjectContext {
    /// The SQLite store saving objects of `entity`: a save's statements
    /// are shown for SQLite's save only.
    private func explainedStore(for entity: EntityDescription) throws -> any SQLStore {
        let stores = persistentStoreCoordinator!.stores(for: entity)
        guard stores.count == 1, let store = stores[0] as? SQLiteStore else {
            throw StoreError.needsOneSQLiteStore("explain", for: entity, found: stores)
        }
        return store
    }

    /// The statement a save runs to insert one object of `entity`, for
    /// `explain` (the parameters are bound per object).
    package func saveSQL(inserting entity: EntityDescription) throws -> String {
        let store = try explainedStore(for: entity)
        return SaveWriter.insertShape(for: entity, mapping: store.mapping).sql
    }

    /// The statement a save runs to write `keys` of one changed object of
    /// `entity` (the changed attributes' columns, a to-one's foreign key,
    /// and the row's version).
    package func saveSQL(updating entity: EntityDescription, keys: [String]) throws -> String {
        let store = try explainedStore(for: entity)
        let mapping = store.mapping
        var assignments: [String] = []
        for key in keys {
            if let column = mapping.column(for: key, of: entity) {
                assignments.append("\(column.name) = ?")
            } else if let columns = mapping.toOne(key, of: entity) {
                assignments.append("\(columns.foreignKey) = ?")
                if let entityColumn = columns.entity { assignments.append("\(entityColumn) = ?") }
            }
        }
        let table = mapping.table(for: entity)
        assignments.append("\(table.versionColumn) = ?")
        return SaveWriter.updateSQL(table, assignments: assignments, mapping: mapping)
    }

    /// The statement a save runs to delete one object of `entity`.
    package func saveSQL(deleting entity: EntityDescription) throws -> String {
        let store = try explainedStore(for: entity)
        return SaveWriter.deleteSQL(store.mapping.table(for: entity), mapping: store.mapping)
    }
}
