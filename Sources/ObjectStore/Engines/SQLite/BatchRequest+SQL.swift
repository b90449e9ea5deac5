import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// A batch update's SET list: what SQL computes, with its bound values,
/// and the attributes evaluated per object in memory.
package struct BatchUpdatePlan {
    /// `column = value, …`, with the values it binds.
    package let assignments: SQL
    package let inMemory: [(AttributeDescription, SchemaMapping.AttributeColumn, Expression)]
    /// Integer attributes SQL computes: each result must fit the
    /// attribute's range, checked after the UPDATE, inside its transaction.
    var rangeChecks: [(AttributeDescription, SchemaMapping.AttributeColumn, Expression)] = []
}

/// What a batch delete did.
package struct BatchDeleteOutcome {
    /// The objects matching the request.
    package var matched: [ObjectID]
    /// Every deleted object: the matches and their cascades.
    package var deleted: [ObjectID]
    /// Objects whose relationships lost a deleted object.
    package var updated: [ObjectID]
}

/// Rows per `IN (...)` list.
private let chunkSize = 500

/// The statements a batch request runs, for `explain`: a dry run of the
/// request reads what the run reads (so the list is the one the data
/// asks for: the keys found, the cascades, the chunks) and lists, without
/// running them, the statements that write and the checks made after.
package final class StatementList {
    private(set) var steps: [FetchExplanation.Step] = []
    /// The fetch of the matching keys, as explained.
    private(set) var match: FetchExplanation?

    package init() {}

    /// `sql` with `values` bound, then `keys` primary keys (as many
    /// parameters in SQLite, one array in PostgreSQL).
    package func add(_ sql: String, _ values: [Value] = [], keys: Int = 0, purpose: String) {
        steps.append(.init(sql: sql, bindings: values.map { .value($0) } + (keys > 0 ? [.keys(keys)] : []), purpose: purpose))
    }

    /// `statement` as `dialect` writes it for explain: each list of keys
    /// as its first parameter and `…`, and bound as its count.
    package func add(statement: SQL, dialect: some SQLDialect, purpose: String) {
        steps.append(.init(sql: statement.rendered(by: dialect, explained: true).text, bindings: statement.explainedBindings,
                           purpose: purpose))
    }

    /// The match's statements, as the fetch of the matching keys runs them.
    func addMatch(_ explanation: FetchExplanation) {
        match = explanation
        steps += explanation.steps
    }

    /// Every statement listed, with the match's residual.
    func explanation(engine: FetchExplanation.Engine) -> FetchExplanation {
        FetchExplanation(steps: steps, residual: match?.residual, sortsInMemory: false, mergesPendingChanges: false,
                         windowsInMemory: false, havingResidual: nil, engine: engine)
    }
}

/// Batch requests in SQL: the matching IDs first (the fetch path, so a
/// residual predicate SQL cannot express is evaluated in memory), then
/// UPDATE or DELETE on those primary keys, in one transaction.
extension SQLiteStore {

    /// The UPDATE of a batch update, for the primary keys `keys` lists.
    func batchUpdateSQL(entity: EntityDescription, assignments: SQL, keys: SQL) -> SQL {
        "UPDATE \(mapping.table(for: entity).name) AS t SET \(assignments) WHERE t.\(mapping.primaryKey) IN (\(keys))"
    }

    // MARK: - Update

    /// Sets `properties` on every matching row and bumps its version;
    /// returns the IDs it changed.
    package func batchUpdate(entity: EntityDescription, matching: FetchRequest, properties: [String: BatchValue],
                             coordinator: PersistentStoreCoordinator, listing: StatementList?) throws -> [ObjectID] {
        let plan = try batchUpdatePlan(entity: entity, properties: properties)
        return try batchTransaction(listing) {
            let scratch = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let ids = try matchingIDs(matching, scratch: scratch, listing)
            guard !ids.isEmpty else { return ids }
            for start in stride(from: 0, to: ids.count, by: chunkSize) {
                let chunk = ids[start..<min(start + chunkSize, ids.count)]
                let keys: [Value] = chunk.map { .int($0.primaryKey) }
                let list = SQL.keys(keys, count: keys.count, numbered: true)
                try batchWrite(statement: batchUpdateSQL(entity: entity, assignments: plan.assignments, keys: list),
                               listing: listing, purpose: "update")
                try checkRanges(plan.rangeChecks, of: entity, keys: keys, listing)
            }
            try updateInMemory(plan, ids, of: entity, scratch: scratch, listing)
            return ids
        }
    }

    /// Throws (rolling the batch update back) when an integer attribute
    /// computed in SQL got a value its type cannot hold: `age * 10000` in
    /// an Integer 16 would otherwise be written as it comes.
    private func checkRanges(_ checks: [(AttributeDescription, SchemaMapping.AttributeColumn, Expression)],
                             of entity: EntityDescription, keys: [Value], _ listing: StatementList?) throws {
        let table = mapping.table(for: entity).name
        let list = SQL.keys(keys, count: keys.count, numbered: true)
        for (attribute, column, expression) in checks {
            guard let range = attribute.type.integerRange else { continue }
            let value = column.name
            let sql: SQL = "SELECT \(value) FROM \(table) WHERE \(mapping.primaryKey) IN (\(list)) AND "
                + "(typeof(\(value)) NOT IN ('integer', 'null') OR \(value) NOT BETWEEN \(range.lowerBound) AND \(range.upperBound)) LIMIT 1"
            // Explained, the check reads rows the UPDATE has not changed:
            // listed, not run.
            if let listing {
                listing.add(statement: sql, dialect: dialect, purpose: "range check")
                continue
            }
            let (text, values) = sql.rendered(by: dialect)
            if let bad = try sqlRows(text, values).first?.first {
                throw StoreError(.validation, """
                    '\(expression.format)' gives \(bad.modelText) for a \(entity.name), which \(attribute.type.rawValue) attribute \
                    '\(attribute.name)' cannot hold (\(range.lowerBound)…\(range.upperBound)); nothing was updated
                    """)
            }
        }
    }

    // Under the lock: inside `writeTransaction` it is held already, and an
    // explained batch request reads here outside any, while a save (or a
    // read-only store's read, lent the writer) may be using the writer.
    package func sqlRows(_ sql: String, _ values: [Value]) throws -> [[Value]] { try withLock { try database.rows(sql, values) } }
    package func sqlExecute(_ sql: String, _ values: [Value]) throws { try withLock { try database.execute(sql, values) } }
    package func writeTransaction<T>(_ body: () throws -> T) throws -> T { try withLock { try database.transaction(body) } }
}

// What both engines share: the SET list, the per-object updates, and the
// delete with its rules, over the store's `sqlRows` and `sqlExecute`.
extension SQLStore {
    /// The DELETE of a batch delete, for the primary keys `isIn` names
    /// (see `forKeys`).
    func batchDeleteSQL(entity: EntityDescription, keys isIn: SQL) -> SQL {
        "DELETE FROM \(mapping.table(for: entity).name) WHERE \(mapping.primaryKey)\(isIn)"
    }

    /// Runs `body` in one write transaction; explained (with a listing),
    /// outside any: the dry run writes nothing.
    package func batchTransaction<T>(_ listing: StatementList?, _ body: () throws -> T) throws -> T {
        listing == nil ? try writeTransaction(body) : try body()
    }

    /// The keys of the objects a batch request changes, found as a fetch
    /// of IDs finds them (listed as that fetch explains itself).
    package func matchingIDs(_ matching: FetchRequest, scratch: ManagedObjectContext, _ listing: StatementList?) throws -> [ObjectID] {
        if let listing {
            var request = matching
            request.resultType = .managedObjectID
            listing.addMatch(try scratch.explain(request))
        }
        return try scratch.fetchObjectIDs(matching)
    }

    /// A statement of a batch request that reads: run, and listed when
    /// explained.
    func batchRead(_ sql: String, _ values: [Value] = [], listing: StatementList?, purpose: String) throws -> [[Value]] {
        try batchRead(statement: SQL(written: sql, bindings: values), listing: listing, purpose: purpose)
    }

    /// ``batchRead(_:_:listing:purpose:)`` of SQL with its lists of keys,
    /// listed as explain writes them (`IN (?, …)`).
    func batchRead(statement: SQL, listing: StatementList?, purpose: String) throws -> [[Value]] {
        listing?.add(statement: statement, dialect: dialect, purpose: purpose)
        let (text, values) = statement.rendered(by: dialect)
        return try sqlRows(text, values)
    }

    /// A statement that writes: run (its `RETURNING` rows returned when
    /// `returning`), or, explained, listed and not run (no rows).
    @discardableResult
    func batchWrite(_ sql: String, _ values: [Value], returning: Bool = false,
                    listing: StatementList?, purpose: String) throws -> [[Value]] {
        try batchWrite(statement: SQL(written: sql, bindings: values), returning: returning, listing: listing, purpose: purpose)
    }

    /// ``batchWrite(_:_:returning:listing:purpose:)`` of SQL with its
    /// lists of keys, listed as explain writes them (`IN (?, …)`).
    @discardableResult
    func batchWrite(statement: SQL, returning: Bool = false, listing: StatementList?, purpose: String) throws -> [[Value]] {
        if let listing {
            listing.add(statement: statement, dialect: dialect, purpose: purpose)
            return []
        }
        let (text, values) = statement.rendered(by: dialect)
        if returning { return try sqlRows(text, values) }
        try sqlExecute(text, values)
        return []
    }

    package func batchUpdatePlan(entity: EntityDescription, properties: [String: BatchValue]) throws -> BatchUpdatePlan {
        var attributes: [(AttributeDescription, SchemaMapping.AttributeColumn, BatchValue)] = []
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            guard let attribute = entity.attribute(named: key), !attribute.isTransient,
                  let column = mapping.column(for: key, of: entity) else {
                var message = "'\(key)' is not a stored attribute of \(entity.name)"
                if let suggestion = Suggestions.closest(to: key, in: entity.attributes.map(\.name)) {
                    message += "; did you mean '\(suggestion)'?"
                }
                throw StoreError(.notFound, message)
            }
            attributes.append((attribute, column, value))
        }
        let table = mapping.table(for: entity)
        // What SQL can compute goes in the statement; the rest is
        // evaluated per object and bound row by row.
        var translator = SQLTranslator(store: self, entity: entity)
        var inSQL: [SQL] = []
        var inMemory: [(AttributeDescription, SchemaMapping.AttributeColumn, Expression)] = []
        var rangeChecks: [(AttributeDescription, SchemaMapping.AttributeColumn, Expression)] = []
        for (attribute, column, value) in attributes {
            switch value {
            case .value(let constant):
                let coerced = try Self.coerce(constant, for: attribute)
                inSQL.append("\(column.name) = \(translator.bind(mapping.stored(coerced, for: attribute), type: dialect.castType(of: attribute.type)))")
            case .expression(let expression):
                if case .constant(let constant) = expression.kind {
                    let coerced = try Self.coerce(constant, for: attribute)
                    inSQL.append("\(column.name) = \(translator.bind(mapping.stored(coerced, for: attribute), type: dialect.castType(of: attribute.type)))")
                } else if let sql = Self.sqlExpression(expression, for: attribute, translator: &translator) {
                    inSQL.append("\(column.name) = \(sql)")
                    if attribute.type.integerRange != nil { rangeChecks.append((attribute, column, expression)) }
                } else {
                    inMemory.append((attribute, column, expression))
                }
            }
        }
        inSQL.append("\(table.versionColumn) = \(table.versionColumn) + 1")
        // A constant for a column is bound as the column's type (in
        // PostgreSQL a boolean column takes no bigint).
        return BatchUpdatePlan(assignments: translator.statement(SQL.joined(inSQL, separator: ", ")), inMemory: inMemory,
                               rangeChecks: rangeChecks)
    }

    /// Sets the attributes only the evaluator computes, object by object,
    /// from each row as the UPDATE left it: the values of many rows go in
    /// one `UPDATE … FROM (VALUES (key, value, …), …)` (a few hundred rows
    /// a statement), not a statement per row.
    package func updateInMemory(_ plan: BatchUpdatePlan, _ ids: [ObjectID], of entity: EntityDescription,
                                scratch: ManagedObjectContext, _ listing: StatementList?) throws {
        guard !plan.inMemory.isEmpty else { return }
        let table = mapping.table(for: entity)
        let objects = ids.map { scratch.object(with: $0) }
        if let listing {
            // The rows are read 500 keys a statement.
            let faults = objects.filter(\.isFault).count
            for start in stride(from: 0, to: faults, by: chunkSize) {
                let count = min(chunkSize, faults - start)
                listing.add(FetchPlan.selectRows(byKeys: "?, …", root: entity.rootEntity, mapping: mapping),
                            keys: count, purpose: "batch")
            }
        }
        try scratch.fulfill(objects)
        // PostgreSQL types a VALUES column from its rows: each is cast.
        let row = "(" + ([dialect.typed("?", as: dialect.integer)] + plan.inMemory.map { dialect.typed("?", as: dialect.castType(of: $0.0.type)) })
            .joined(separator: ", ") + ")"
        let sets = plan.inMemory.enumerated().map { n, item in "\(item.1.name) = v.column\(n + 2)" }
            .joined(separator: ", ")
        let rowsPerStatement = max(1, 900 / (plan.inMemory.count + 1))
        for start in stride(from: 0, to: objects.count, by: rowsPerStatement) {
            let chunk = objects[start..<min(start + rowsPerStatement, objects.count)]
            var values: [Value] = []
            for object in chunk {
                values.append(.int(object.objectID.primaryKey))
                for (attribute, _, expression) in plan.inMemory {
                    guard case .value(let value) = try Evaluator().evaluate(expression, on: .object(object)) else {
                        throw StoreError(.validation, "'\(attribute.name)' needs a value, not an object or a collection")
                    }
                    values.append(mapping.stored(try Self.coerce(value, for: attribute), for: attribute))
                }
            }
            try batchWrite("UPDATE \(table.name) AS t SET \(sets) FROM (VALUES "
                           + Array(repeating: row, count: chunk.count).joined(separator: ", ")
                           + ") AS v WHERE t.\(mapping.primaryKey) = v.column1", values, listing: listing, purpose: "update each")
        }
    }

    static func coerce(_ value: Value, for attribute: AttributeDescription) throws -> Value {
        do { return try attribute.type.coerce(value) } catch {
            throw StoreError(.validation, "cannot store \(value.modelText) in \(attribute.type.rawValue) attribute '\(attribute.name)'")
        }
    }

    /// The SQL for a numeric expression over the row's own columns, or nil
    /// when only the evaluator gives its meaning (in PostgreSQL, for an
    /// integer attribute: a double rounds there, and truncates here).
    private static func sqlExpression(_ expression: Expression, for attribute: AttributeDescription,
                                      translator: inout SQLTranslator) -> SQL? {
        guard [.integer16, .integer32, .integer64, .double, .float].contains(attribute.type) else { return nil }
        if !translator.dialect.castsToIntegerByTruncating && attribute.type.integerRange != nil { return nil }
        var attempt = translator
        guard let operand = try? attempt.operand(expression, in: attempt.root),
              operand.category == .number, attempt.joins.isEmpty else { return nil }
        translator = attempt
        if attribute.type.integerRange != nil { return "CAST(\(operand.sql) AS INTEGER)" as SQL }
        return operand.sql
    }

    // MARK: - Delete

    /// Deletes the matching rows and runs their delete rules in SQL, each
    /// step one statement per table and relationship whatever the count in
    /// PostgreSQL (the keys bound as one array), 500 keys a statement in
    /// SQLite: the matching keys, the cascades (one query per cascading
    /// relationship and round), the Deny check, the detaching (which says
    /// by `RETURNING` whom it detached), and each table's DELETE. In
    /// PostgreSQL, when SQL says the whole predicate and nothing is
    /// related, the match is the DELETE itself.
    /// Explained (with a `listing`), a dry run: the reads run, so that
    /// the statements listed are the ones the data asks for, and nothing
    /// is written; a Deny that refuses ends the list where the run throws.
    func batchDelete(entity: EntityDescription, matching: FetchRequest,
                     coordinator: PersistentStoreCoordinator, listing: StatementList? = nil) throws -> BatchDeleteOutcome {
        try batchTransaction(listing) {
            if let outcome = try deleteMatching(entity: entity, matching: matching, listing) { return outcome }
            let scratch = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let matched = try matchingIDs(matching, scratch: scratch, listing)
            // Cascades, to a fixed point.
            var deleted = matched
            var deletedSet = Set(matched)
            var pending = matched
            while !pending.isEmpty {
                var next: [ObjectID] = []
                for (source, ids) in Self.grouped(pending) {
                    for relationship in source.relationships where !relationship.isTransient && relationship.deleteRule == .cascade {
                        for id in try destinations(of: relationship, from: source, ids: ids, listing).map(\.destination)
                        where deletedSet.insert(id).inserted {
                            deleted.append(id)
                            next.append(id)
                        }
                    }
                }
                pending = next
            }
            // Deny: any destination outside what goes refuses everything.
            var failures: [ValidationError.Failure] = []
            for (source, ids) in Self.grouped(deleted) {
                for relationship in source.relationships where !relationship.isTransient && relationship.deleteRule == .deny {
                    let remaining = try destinations(of: relationship, from: source, ids: ids, listing)
                        .filter { !deletedSet.contains($0.destination) }
                    for (owner, group) in Dictionary(grouping: remaining, by: \.source).sorted(by: { $0.key.primaryKey < $1.key.primaryKey }) {
                        failures.append(.init(objectID: owner, key: relationship.name,
                                              message: model.denyMessage(entity: owner.entity, relationship: relationship.name, count: group.count)))
                    }
                }
            }
            if !failures.isEmpty {
                guard listing == nil else { return BatchDeleteOutcome(matched: matched, deleted: [], updated: []) }
                throw ValidationError(failures: failures)
            }
            // Nullify the inverse sides that stay, and drop join rows.
            // Whatever a cascade or a Deny reached goes too: its join rows
            // go, nothing of it stays to be nullified.
            var updated: [ObjectID] = []
            var updatedSet: Set<ObjectID> = []
            for (source, ids) in Self.grouped(deleted) {
                for relationship in source.relationships where !relationship.isTransient {
                    let goes = relationship.deleteRule == .cascade || relationship.deleteRule == .deny
                    let detached = try detach(relationship, from: source, ids: ids,
                                              nullifying: !goes && relationship.deleteRule != .noAction, listing)
                    guard !goes else { continue }
                    let survivors = try (detached ?? destinations(of: relationship, from: source, ids: ids, listing).map(\.destination))
                        .filter { !deletedSet.contains($0) }
                    for id in survivors where updatedSet.insert(id).inserted { updated.append(id) }
                }
            }
            try recordHighestKeys(ofTables: Set(deleted.map { mapping.table(for: $0.entity.rootEntity).name }), listing: listing)
            for ids in Dictionary(grouping: deleted, by: { mapping.table(for: $0.entity).name }).sorted(by: { $0.key < $1.key }).map(\.value) {
                try forKeys(ids) { isIn in
                    try batchWrite(statement: batchDeleteSQL(entity: ids[0].entity, keys: isIn), listing: listing, purpose: "delete")
                }
            }
            return BatchDeleteOutcome(matched: matched, deleted: deleted, updated: updated)
        }
    }

    /// `DELETE … WHERE _pk IN (SELECT … WHERE predicate) RETURNING _pk,
    /// _ent`: the match and the delete in one statement, in PostgreSQL,
    /// when SQL says the whole predicate and no entity it may delete has a
    /// relationship with a rule to run; nil otherwise.
    private func deleteMatching(entity: EntityDescription, matching: FetchRequest, _ listing: StatementList?) throws -> BatchDeleteOutcome? {
        let kinds = matching.includesSubentities ? entity.selfAndDescendants : [entity]
        guard dialect.deletesWithReturning, kinds.allSatisfy({ $0.relationships.allSatisfy(\.isTransient) }) else { return nil }
        let plan = try FetchPlan(request: matching, entity: entity, store: self, predicate: matching.predicate)
        guard plan.residual == nil else { return nil }
        let table = mapping.table(for: entity)
        let key = mapping.primaryKey
        let sql: SQL = "DELETE FROM \(table.name) WHERE \(key) IN (SELECT t.\(key) FROM \(plan.from) WHERE \(plan.condition))"
            + " RETURNING \(key), \(table.entityColumn?.quoted ?? "NULL")"
        if let listing {
            listing.add(statement: sql, dialect: dialect, purpose: "delete")
            return BatchDeleteOutcome(matched: [], deleted: [], updated: [])
        }
        let (text, values) = sql.rendered(by: dialect)
        let ids = try objectIDs(sql: text, bindings: values, root: entity.rootEntity)
        return BatchDeleteOutcome(matched: ids, deleted: ids, updated: [])
    }

    /// IDs by concrete entity, in a stable order.
    private static func grouped(_ ids: [ObjectID]) -> [(EntityDescription, [ObjectID])] {
        var order: [ObjectIdentifier] = []
        var groups: [ObjectIdentifier: (EntityDescription, [ObjectID])] = [:]
        for id in ids {
            let key = ObjectIdentifier(id.entity)
            if groups[key] == nil { order.append(key); groups[key] = (id.entity, []) }
            groups[key]!.1.append(id)
        }
        return order.map { groups[$0]! }
    }

    /// Calls `body` with SQL that follows a key column to say it is one of
    /// `ids` (` = ANY(CAST(? AS bigint[]))`, ` IN (?, ?, …)`), its keys
    /// bound: in PostgreSQL once, every key in one array; in SQLite once
    /// per 500 keys.
    private func forKeys(_ ids: [ObjectID], _ body: (SQL) throws -> Void) throws {
        for list in dialect.keyLists(ids.map(\.primaryKey), chunkSize: chunkSize) { try body(list) }
    }

    private func id(pk: Value, code: Value?, in destination: EntityDescription) -> ObjectID? {
        guard case .int(let key) = pk else { return nil }
        var entity = destination
        if case .int(let c)? = code, let name = mapping.entityNamesByCode[c], let concrete = model.entity(named: name) {
            entity = concrete
        }
        return ObjectID(entity: entity, primaryKey: key, store: storeNumber)
    }

    /// The stored destinations of `relationship` for the rows `ids` of
    /// `source`, with the source each belongs to.
    private func destinations(of relationship: RelationshipDescription, from source: EntityDescription,
                              ids: [ObjectID], _ listing: StatementList?) throws -> [(source: ObjectID, destination: ObjectID)] {
        guard let destination = relationship.destination else { return [] }
        let byKey = Dictionary(ids.map { ($0.primaryKey, $0) }, uniquingKeysWith: { a, _ in a })
        var result: [(ObjectID, ObjectID)] = []
        func add(_ row: [Value], sourceAt s: Int, destinationAt d: Int, codeAt c: Int?) {
            guard case .int(let key) = row[s], let owner = byKey[key],
                  let target = id(pk: row[d], code: c.map { row[$0] }, in: destination) else { return }
            result.append((owner, target))
        }
        try forKeys(ids) { isIn in
            if relationship.isToOne, let columns = mapping.toOne(relationship.name, of: source) {
                let table = mapping.table(for: source)
                let code = columns.entity?.quoted ?? "NULL"
                for row in try batchRead(statement: "SELECT \(mapping.primaryKey), \(columns.foreignKey), \(code) FROM \(table.name) WHERE \(mapping.primaryKey)\(isIn) AND \(columns.foreignKey) IS NOT NULL", listing: listing, purpose: "delete rule") {
                    add(row, sourceAt: 0, destinationAt: 1, codeAt: 2)
                }
            } else if let join = mapping.joinTable(relationship.name, of: source) {
                let code = join.destinationEntityColumn?.quoted ?? "NULL"
                for row in try batchRead(statement: "SELECT \(join.sourceColumn), \(join.destinationColumn), \(code) FROM \(join.name) WHERE \(join.sourceColumn)\(isIn)", listing: listing, purpose: "delete rule") {
                    add(row, sourceAt: 0, destinationAt: 1, codeAt: 2)
                }
            } else if let columns = backReference(relationship, from: source) {
                let table = mapping.table(for: destination)
                let code = table.entityColumn?.quoted ?? "NULL"
                for row in try batchRead(statement: "SELECT \(columns.foreignKey), \(mapping.primaryKey), \(code) FROM \(table.name) WHERE \(columns.foreignKey)\(isIn)", listing: listing, purpose: "delete rule") {
                    add(row, sourceAt: 0, destinationAt: 1, codeAt: 2)
                }
            }
        }
        return result
    }

    /// The columns of the destination's table that point back at `source`:
    /// a to-many's key (its inverse's, or Core Data's for one with no
    /// inverse), or the foreign key of a to-one's inverse to-one.
    private func backReference(_ relationship: RelationshipDescription, from source: EntityDescription) -> SchemaMapping.ToOneColumns? {
        if relationship.isToMany { return mapping.toManyKey(relationship, of: source) }
        guard let inverse = relationship.inverse, let destination = relationship.destination else { return nil }
        return mapping.toOne(inverse.name, of: destination)
    }

    /// Removes the rows `ids` of `source` from the other side of
    /// `relationship`: join rows always go; with `nullifying`, foreign keys
    /// on the destinations pointing back are cleared, bumping their
    /// version. Returns the destinations when its statements, by
    /// `RETURNING`, named every one `destinations` would find (the join
    /// rows it dropped, the rows it cleared); nil when they are read
    /// elsewhere (the source's own foreign key, or nothing was cleared).
    private func detach(_ relationship: RelationshipDescription, from source: EntityDescription,
                        ids: [ObjectID], nullifying: Bool, _ listing: StatementList?) throws -> [ObjectID]? {
        guard let destination = relationship.destination else { return [] }
        let ownColumn = relationship.isToOne && mapping.toOne(relationship.name, of: source) != nil
        var found: [ObjectID] = []
        var named = false
        try forKeys(ids) { isIn in
            var rows: [[Value]] = []
            if let join = mapping.joinTable(relationship.name, of: source) {
                rows = try batchWrite(statement: "DELETE FROM \(join.name) WHERE \(join.sourceColumn)\(isIn) RETURNING \(join.destinationColumn), \(join.destinationEntityColumn?.quoted ?? "NULL")",
                                      returning: true, listing: listing, purpose: "delete rule")
            } else if nullifying, relationship.isToMany || relationship.inverse?.isToOne == true,
                      let columns = backReference(relationship, from: source) {
                let table = mapping.table(for: destination)
                var sets = ["\(columns.foreignKey) = NULL"]
                if let entity = columns.entity { sets.append("\(entity) = NULL") }
                if let order = columns.order { sets.append("\(order) = NULL") }
                sets.append("\(table.versionColumn) = \(table.versionColumn) + 1")
                rows = try batchWrite(statement: "UPDATE \(table.name) SET \(sets.joined(separator: ", ")) WHERE \(columns.foreignKey)\(isIn) RETURNING \(mapping.primaryKey), \(table.entityColumn?.quoted ?? "NULL")",
                                      returning: true, listing: listing, purpose: "delete rule")
            } else {
                return
            }
            named = !ownColumn
            found += rows.compactMap { id(pk: $0[0], code: $0[1], in: destination) }
        }
        return named ? found : nil
    }
}
