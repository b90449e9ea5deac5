import Foundation
import Predicates

/// The writes of a save that are the same SQL in every engine: deleting a
/// row with its join rows, the contents of to-many relationships, and
/// clearing unique values that move, each run with `?` parameters on the
/// store's connection.
package struct SQLWrites {
    let mapping: SchemaMapping
    let connection: any SQLConnection

    package init(mapping: SchemaMapping, connection: any SQLConnection) {
        self.mapping = mapping
        self.connection = connection
    }

    @discardableResult
    private func execute(_ sql: String, _ values: [Value]) throws -> Int { try connection.execute(sql, values) }

    /// Writes the to-many contents of a save, owning sides first: they
    /// write the join rows the other sides order.
    package func writeToMany(_ contents: [StoreChanges.ToManyContents], permanent: PermanentIDs) throws {
        let owning = contents.filter { mapping.joinTable($0.relationship.name, of: $0.source.entity)?.isOwner != false }
        let other = contents.filter { mapping.joinTable($0.relationship.name, of: $0.source.entity)?.isOwner == false }
        for contents in owning + other {
            try writeToMany(contents, permanent: permanent)
        }
    }

    /// Sets to NULL (which a unique index never compares equal) every
    /// constrained column an update writes, before the real writes.
    package func clearMovingUniqueValues(_ updated: [StoreChanges.Update]) throws {
        for update in updated {
            let entity = update.snapshot.id.entity
            var columns: Set<SQLIdentifier> = []
            var current: EntityDescription? = entity
            while let e = current {
                for constraint in e.uniquenessConstraints {
                    for name in constraint {
                        if let i = entity.attributeSlot(named: name), update.changedAttributes.contains(i),
                           let column = mapping.column(for: name, of: entity) {
                            columns.insert(column.name)
                        } else if let i = entity.relationshipSlot(named: name), update.changedToOne.contains(i),
                                  let toOne = mapping.toOne(name, of: entity) {
                            columns.insert(toOne.foreignKey)
                        }
                    }
                }
                current = e.parent
            }
            guard !columns.isEmpty else { continue }
            let table = mapping.table(for: entity)
            let assignments = columns.sorted().map { "\($0) = NULL" }.joined(separator: ", ")
            try execute("UPDATE \(table.name) SET \(assignments) WHERE \(mapping.primaryKey) = ?", [.int(update.snapshot.id.primaryKey)])
        }
    }

    /// Deletes the row of `id` and its join rows; with `expectedVersion`,
    /// only while the row has that version (optimistic locking in the
    /// statement itself). Returns whether the row was deleted.
    @discardableResult
    package func delete(_ id: ObjectID, expectedVersion: Int64? = nil) throws -> Bool {
        let entity = id.entity
        let table = mapping.table(for: entity)
        // Join rows on either side go with the object, first: a foreign
        // key of the DBA's on them is checked at each statement. With a
        // version, only while the row has it.
        let stillThere = expectedVersion.map { _ in
            " AND EXISTS (SELECT 1 FROM \(table.name) WHERE \(mapping.primaryKey) = ? AND \(table.versionColumn) = ?)"
        } ?? ""
        let rowValues = expectedVersion.map { [Value.int(id.primaryKey), .int($0)] } ?? []
        for relationship in entity.relationships where relationship.isManyToMany {
            if let join = mapping.joinTable(relationship.name, of: entity) {
                try execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?" + stillThere, [.int(id.primaryKey)] + rowValues)
            } else if let key = mapping.toManyKey(relationship, of: entity), let destination = relationship.destination {
                // Core Data's key of a to-many with no inverse: its rows
                // stay (the delete rule has removed those it cascades to).
                try execute(Self.releaseSQL(key, in: mapping.table(for: destination)) + stillThere, [.int(id.primaryKey)] + rowValues)
            }
        }
        if let expectedVersion {
            let deleted = try execute(SaveWriter.deleteSQL(table, mapping: mapping) + " AND \(table.versionColumn) = ?",
                                      [.int(id.primaryKey), .int(expectedVersion)])
            if deleted == 0 { return false }
        } else {
            try execute(SaveWriter.deleteSQL(table, mapping: mapping), [.int(id.primaryKey)])
        }
        return true
    }

    private func writeToMany(_ contents: StoreChanges.ToManyContents, permanent: PermanentIDs) throws {
        let relationship = contents.relationship
        let source = contents.source.isTemporaryID ? permanent[contents.source] ?? contents.source : contents.source
        let entity = source.entity
        let destinations = try contents.destinations.map {
            try permanent.destination($0, of: contents.source, key: relationship.name)
        }
        if let join = mapping.joinTable(relationship.name, of: entity) {
            guard join.isOwner else {
                // The other side: the owner's contents carry the rows; only
                // this side's positions are written here.
                guard let order = join.orderColumn else { return }
                for (position, destination) in destinations.enumerated() {
                    try execute("UPDATE \(join.name) SET \(order) = ? WHERE \(join.sourceColumn) = ? AND \(join.destinationColumn) = ?",
                            [.int(Int64(position)), .int(source.primaryKey), .int(destination.primaryKey)])
                }
                return
            }
            try execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.int(source.primaryKey)])
            for (position, destination) in destinations.enumerated() {
                var names = [join.sourceColumn, join.destinationColumn]
                var values: [Value] = [.int(source.primaryKey), .int(destination.primaryKey)]
                if let c = join.sourceEntityColumn { names.append(c); values.append(.int(mapping.entityCode(entity))) }
                if let c = join.destinationEntityColumn { names.append(c); values.append(.int(mapping.entityCode(destination.entity))) }
                if let c = join.orderColumn { names.append(c); values.append(.int(Int64(position))) }
                let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
                try execute("INSERT INTO \(join.name) (\(names.map(\.quoted).joined(separator: ", "))) VALUES (\(marks))", values)
            }
        } else if let destinationEntity = relationship.destination, let columns = mapping.toManyKey(relationship, of: entity) {
            let table = mapping.table(for: destinationEntity)
            if relationship.inverse == nil {
                // No inverse to-one writes the key: the contents do. Rows
                // that left are released, then every member claimed.
                try execute(Self.releaseSQL(columns, in: table), [.int(source.primaryKey)])
                for destination in destinations {
                    try execute("UPDATE \(table.name) SET \(columns.foreignKey) = ? WHERE \(mapping.primaryKey) = ?",
                                [.int(source.primaryKey), .int(destination.primaryKey)])
                }
            }
            guard relationship.isOrdered, let order = columns.order else { return }
            for (position, destination) in destinations.enumerated() {
                try execute("UPDATE \(table.name) SET \(order) = ? WHERE \(mapping.primaryKey) = ?",
                            [.int(Int64(position)), .int(destination.primaryKey)])
            }
        }
    }

    /// Clears the key (and position) of every row of `table` held by the
    /// source bound as the one parameter, in a to-many stored as a key in
    /// its destination's table. No version moves: the key is no property
    /// of the row's own object.
    private static func releaseSQL(_ columns: SchemaMapping.ToOneColumns, in table: SchemaMapping.Table) -> String {
        let order = columns.order.map { ", \($0) = NULL" } ?? ""
        return "UPDATE \(table.name) SET \(columns.foreignKey) = NULL\(order) WHERE \(columns.foreignKey) = ?"
    }
}

extension SchemaMapping {
    /// The select list of a hierarchy's table under alias `t`: key, entity
    /// code (NULL without sub-entities), version, then every column; the
    /// positions `RowLayout` reads.
    package func selectList(for entity: EntityDescription, alias: String = "t") -> String {
        let table = self.table(for: entity)
        var parts = ["\(alias).\(table.primaryKey)"]
        parts.append(table.entityColumn.map { "\(alias).\($0)" } ?? "NULL")
        parts.append("\(alias).\(table.versionColumn)")
        for column in table.columns { parts.append("\(alias).\(column.name)") }
        return parts.joined(separator: ", ")
    }

    /// The query for the destinations of a to-many of one source (bound
    /// as its one parameter): key and entity code of each, in order; nil
    /// when nothing stores the relationship.
    package func destinationsSQL(of relationship: RelationshipDescription, from source: EntityDescription) -> String? {
        guard let destination = relationship.destination else { return nil }
        let destinationTable = table(for: destination.rootEntity)
        let entityColumn = destinationTable.entityColumn.map { "t.\($0)" } ?? "NULL"
        if let join = joinTable(relationship.name, of: source) {
            let order = join.orderColumn.map { "j.\($0), " } ?? ""
            return "SELECT t.\(primaryKey), \(entityColumn) FROM \(join.name) j JOIN \(destinationTable.name) t ON t.\(primaryKey) = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) = ? ORDER BY \(order)t.\(primaryKey)"
        }
        if let columns = toManyKey(relationship, of: source) {
            let order = columns.order.map { "t.\($0), " } ?? ""
            return "SELECT t.\(primaryKey), \(entityColumn) FROM \(destinationTable.name) t WHERE t.\(columns.foreignKey) = ? ORDER BY \(order)t.\(primaryKey)"
        }
        return nil
    }
}
