import Foundation
import Predicates

/// Brings an existing store up to a changed model: inferred (lightweight)
/// migration, in one transaction, data preserved.
///
/// The store keeps its model's archive; the plan comes from
/// `MigrationPlan.infer(from:to:)`, which refuses what cannot be inferred.
/// Each table is rebuilt: a new table for the new layout, filled from the
/// old table its entities' rows were in, column by column (renamed
/// properties read their old column, properties moved up or down the
/// hierarchy read where they were, added ones get their default); join
/// tables are copied; links whose storage changed (a to-one become a
/// to-many, or back; an inverse come or gone) move between foreign keys
/// and join tables; links to rows gone are cleared and entity codes set
/// from the rows linked; then the new tables are swapped in and indexes
/// recreated. `MigrationPreview` counts what this drops first.
package enum StoreMigrator {
    static func migrate(_ db: Database, from old: ManagedObjectModel, to model: ManagedObjectModel, mapping: SchemaMapping) throws {
        try db.transaction {
            try migrate(MigrationConnection(db), from: old, to: model, mapping: mapping)
        }
    }

    /// Migrates the store on `db` and updates its metadata (fingerprint and
    /// model archive), inside the caller's transaction: on PostgreSQL, the
    /// caller's (DDL is transactional there), so that a failure leaves
    /// the database as it was.
    package static func migrate(_ db: MigrationConnection, from old: ManagedObjectModel, to model: ManagedObjectModel,
                                mapping: SchemaMapping) throws {
        let plan: MigrationPlan
        do {
            plan = try MigrationPlan.infer(from: old, to: model, empty: try emptyEntities(db, old))
        } catch let error as ModelError {
            throw StoreError(.modelMismatch, "the store was made with a different model: \(error.message)")
        }
        let oldMapping = try SchemaMapping(model: old)
        try rebuild(db, old: old, oldMapping: oldMapping, new: model, newMapping: mapping, plan: plan)
        let archive = db.dialect.metadataArchiveColumn
        try db.execute("UPDATE \(SQLiteStore.metadataTable) SET value = ? WHERE key = 'fingerprint'",
                       [.string(try SchemaBuilder.fingerprint(mapping: mapping, model: model))])
        try db.execute("UPDATE \(SQLiteStore.metadataTable) SET \(archive) = ? WHERE key = 'model'", [.data(model.archived())])
        MRLog.debug("migrated store \(db.path): \(plan.entities.count) entity and \(plan.properties.count) property changes")
    }

    /// The entities of `old` whose hierarchy's table has no rows.
    static func emptyEntities(_ db: MigrationConnection, _ old: ManagedObjectModel) throws -> Set<String> {
        let mapping = try SchemaMapping(model: old)
        var empty: Set<String> = []
        for root in old.rootEntities {
            let table = mapping.table(for: root).name
            guard try db.tableExists(table), try db.scalar("SELECT 1 FROM \(table) LIMIT 1") == nil else { continue }
            for entity in root.selfAndDescendants { empty.insert(entity.name) }
        }
        return empty
    }

    private static func rebuild(_ db: MigrationConnection, old: ManagedObjectModel, oldMapping: SchemaMapping,
                                new: ManagedObjectModel, newMapping: SchemaMapping, plan _: MigrationPlan) throws {
        let pairs = try MigrationLinks(old: old, oldMapping: oldMapping, new: new)
        try db.dialect.prepareRebuild(db)
        for table in newMapping.allTables {
            try copyRows(db, into: table, pairs: pairs, new: new, newMapping: newMapping)
        }
        for join in newMapping.allJoinTables {
            try db.execute(SchemaBuilder.createJoinTable(join, dialect: db.dialect, named: temporary(join.name)))
        }
        try copyJoinRows(db, pairs: pairs, new: new, newMapping: newMapping)
        try moveChangedLinks(db, pairs: pairs, new: new, newMapping: newMapping)
        try repairLinks(db, new: new, newMapping: newMapping)
        try db.dialect.swapInRebuiltTables(db, old: oldMapping, new: newMapping, temporary: temporary)
        // The old tables' indexes went with them (SQLite's were dropped first).
        for statement in try SchemaBuilder.indexes(mapping: newMapping, model: new) {
            try db.execute(statement)
        }
    }

    /// The new table of `name` while both are there.
    private static func temporary(_ name: SQLIdentifier) -> SQLIdentifier { SQLIdentifier(constant: "_mrq_new_") + name }

    /// Fills the new table of a hierarchy from the one old table its
    /// entities' rows were in (the plan refuses merging two): rows keep
    /// their keys, their entity codes are renumbered, rows of entities
    /// gone or now elsewhere stay behind. Each column reads the column its
    /// property was in for each entity (a property moved up or down the
    /// hierarchy reads from where it was).
    private static func copyRows(_ db: MigrationConnection, into table: SchemaMapping.Table, pairs: MigrationLinks,
                                 new: ManagedObjectModel, newMapping: SchemaMapping) throws {
        try db.execute(SchemaBuilder.createTable(table, dialect: db.dialect, named: temporary(table.name)))
        guard let newRoot = new.entity(named: table.rootEntity) else { return }
        // (old entity, new entity) of every entity of this hierarchy with rows to keep.
        let members = newRoot.selfAndDescendants.compactMap { entity in pairs.oldEntity(entity).map { ($0, entity) } }
        guard let first = members.first else { return }
        let oldTable = pairs.oldMapping.table(for: first.0)
        guard try db.tableExists(oldTable.name) else { return }
        let oldCode = { (entity: EntityDescription) in pairs.oldMapping.entityCode(entity) }
        var names = [table.primaryKey, table.versionColumn]
        var sources = ["\(oldTable.primaryKey)", "\(oldTable.versionColumn)"]
        var filter = ""
        var defaults: [Value] = []
        let code: String
        if let oldEntityColumn = oldTable.entityColumn {
            code = "CASE \(oldEntityColumn) " + members.map { "WHEN \(oldCode($0.0)) THEN \(newMapping.entityCode($0.1))" }
                .joined(separator: " ") + " END"
            filter = " WHERE \(code) IS NOT NULL"
        } else {
            // An old table of one entity: its rows are that entity's.
            guard let only = members.first(where: { $0.0 === first.0.rootEntity }) else { return }
            code = String(newMapping.entityCode(only.1))
        }
        if let entityColumn = table.entityColumn {
            names.append(entityColumn)
            sources.append(code)
        }
        for column in table.columns {
            guard let declaring = new.entity(named: column.entity) else { continue }
            // The rows that have this column, each with where its value was.
            var origins: [(code: Int64, source: String)] = []
            for (oldEntity, newEntity) in members where newEntity.isKind(of: declaring) {
                guard let source = try oldSource(of: column, newEntity: newEntity, oldEntity: oldEntity, pairs: pairs) else { continue }
                origins.append((oldCode(oldEntity), source))
            }
            var source: String?
            if Set(origins.map(\.source)).count == 1 {
                source = origins[0].source
            } else if !origins.isEmpty, let oldEntityColumn = oldTable.entityColumn {
                source = "CASE \(oldEntityColumn) " + origins.map { "WHEN \($0.code) THEN \($0.source)" }.joined(separator: " ") + " END"
            }
            if case .attribute = column.kind, let attribute = declaring.attribute(named: column.property),
               !attribute.isOptional || source == nil, !attribute.defaultValue.isNull {
                // Bound: a default is a value, whatever the engine writes literally.
                let value = db.parameter(for: column)
                source = source.map { "COALESCE(\($0), \(value))" } ?? value
                defaults.append(attribute.defaultValue)
            }
            if let source {
                names.append(column.name)
                sources.append(source)
            }
        }
        try db.execute("INSERT INTO \(temporary(table.name)) (\(names.map(\.quoted).joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(oldTable.name)\(filter)",
                       defaults)
    }

    /// The old column a new column reads for the rows of `newEntity`: the
    /// attribute's, or a to-one's foreign key or position when it was a
    /// to-one then too. Entity codes of to-ones are worked out afresh by
    /// `repairLinks`.
    private static func oldSource(of column: SchemaMapping.Column, newEntity: EntityDescription, oldEntity: EntityDescription,
                                  pairs: MigrationLinks) throws -> String? {
        switch column.kind {
        case .attribute:
            guard let property = newEntity.attribute(named: column.property),
                  let previous = try pairs.oldProperty(property, of: newEntity, in: oldEntity),
                  let oldColumn = pairs.oldMapping.column(for: previous.name, of: oldEntity) else { return nil }
            return oldColumn.name.quoted
        case .foreignKey, .order:
            guard let relationship = newEntity.relationship(named: column.property),
                  let previous = try pairs.oldProperty(relationship, of: newEntity, in: oldEntity) as? RelationshipDescription,
                  previous.isToOne, let oldColumns = pairs.oldMapping.toOne(previous.name, of: oldEntity) else { return nil }
            return column.kind == .foreignKey ? oldColumns.foreignKey.quoted : oldColumns.order?.quoted
        case .foreignEntity, .toManyKey, .toManyOrder:
            // Core Data's layout only, which migrates by copying objects.
            return nil
        }
    }

    /// Copies the join tables whose relationship was many-to-many before
    /// too, in their new orientation; positions where both sides keep them.
    private static func copyJoinRows(_ db: MigrationConnection, pairs: MigrationLinks, new: ManagedObjectModel,
                                     newMapping: SchemaMapping) throws {
        for entity in new.entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties
            where relationship.isManyToMany && !relationship.isTransient {
                guard let join = newMapping.joinTable(relationship.name, of: entity), join.isOwner,
                      let previous = try pairs.oldRelationship(relationship), previous.isManyToMany,
                      let oldEntity = previous.entity,
                      let oldJoin = pairs.oldMapping.joinTable(previous.name, of: oldEntity),
                      try db.tableExists(oldJoin.name) else { continue }
                var names = [join.sourceColumn, join.destinationColumn]
                var sources = [oldJoin.sourceColumn, oldJoin.destinationColumn]
                for (newColumn, oldColumn) in [(join.orderColumn, oldJoin.orderColumn),
                                               (join.inverseOrderColumn, oldJoin.inverseOrderColumn)] {
                    if let newColumn, let oldColumn { names.append(newColumn); sources.append(oldColumn) }
                }
                try db.execute(db.insertIgnoringDuplicates(into: temporary(join.name), columns: names,
                                                           select: "SELECT \(sources.map(\.quoted).joined(separator: ", ")) FROM \(oldJoin.name)"))
            }
        }
    }

    /// Moves the links of relationships stored another way now: a to-one
    /// that was a to-many (or whose inverse was the one kept) takes each
    /// object's first destination; a join table takes every link, of a
    /// to-one that became a to-many (DuckDuckGo's favorites) or of a
    /// to-many whose inverse did.
    private static func moveChangedLinks(_ db: MigrationConnection, pairs: MigrationLinks, new: ManagedObjectModel,
                                         newMapping: SchemaMapping) throws {
        for entity in new.entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties where !relationship.isTransient {
                if relationship.isToOne {
                    guard let columns = newMapping.toOne(relationship.name, of: entity),
                          let links = try pairs.changedSource(for: relationship, db: db) else { continue }
                    let table = temporary(newMapping.table(for: entity).name)
                    let order = columns.order.map { ", \($0) = l.inv_ord" } ?? ""
                    try db.execute("""
                        UPDATE \(table) SET \(columns.foreignKey) = l.dst\(order)
                        FROM (SELECT src, dst, inv_ord, ROW_NUMBER() OVER (PARTITION BY src ORDER BY ord IS NULL, ord, dst) AS n
                              FROM (\(links)) AS c) AS l
                        WHERE l.n = 1 AND \(table).\(newMapping.primaryKey) = l.src\(familyFilter(entity, table: table.quoted, mapping: newMapping))
                        """)
                } else if relationship.isManyToMany {
                    guard let join = newMapping.joinTable(relationship.name, of: entity), join.isOwner,
                          let links = try pairs.changedSource(for: relationship, db: db) else { continue }
                    var names = [join.sourceColumn, join.destinationColumn]
                    var sources = ["src", "dst"]
                    if let order = join.orderColumn { names.append(order); sources.append("ord") }
                    if let order = join.inverseOrderColumn { names.append(order); sources.append("inv_ord") }
                    try db.execute(db.insertIgnoringDuplicates(into: temporary(join.name), columns: names,
                                                               select: "SELECT \(sources.joined(separator: ", ")) FROM (\(links)) AS l"))
                }
            }
        }
    }

    /// ` AND t._ent IN (…)`: the rows of `entity`'s kind, when its table
    /// holds other entities too. `table` is the table's alias or quoted
    /// name.
    private static func familyFilter(_ entity: EntityDescription, table: String, mapping: SchemaMapping) -> String {
        guard let entityColumn = mapping.table(for: entity).entityColumn else { return "" }
        let codes = entity.selfAndDescendants.map { String(mapping.entityCode($0)) }.joined(separator: ",")
        return " AND \(table).\(entityColumn) IN (\(codes))"
    }

    /// Makes every link of the new tables point at a row that is there and
    /// of the destination's kind (rows of removed entities are gone); sets
    /// the entity codes beside foreign keys and in join tables from the
    /// rows they point at (codes are renumbered when entities come and
    /// go); gives positions to ordered relationships that had none.
    private static func repairLinks(_ db: MigrationConnection, new: ManagedObjectModel, newMapping: SchemaMapping) throws {
        func exists(_ key: String, of destination: EntityDescription) -> String {
            let table = temporary(newMapping.table(for: destination).name)
            return "EXISTS (SELECT 1 FROM \(table) d WHERE d.\(newMapping.primaryKey) = \(key)\(familyFilter(destination, table: "d", mapping: newMapping)))"
        }
        func code(_ key: String, of destination: EntityDescription) -> String {
            let table = newMapping.table(for: destination)
            return "(SELECT d.\(table.entityColumn?.quoted ?? "NULL") FROM \(temporary(table.name)) d WHERE d.\(table.primaryKey) = \(key))"
        }
        for entity in new.entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties where !relationship.isTransient {
                guard let destination = relationship.destination else { continue }
                if relationship.isToOne, let columns = newMapping.toOne(relationship.name, of: entity) {
                    let table = temporary(newMapping.table(for: entity).name)
                    let fk = "\(table).\(columns.foreignKey)"
                    var cleared = ["\(columns.foreignKey) = NULL"]
                    if let order = columns.order { cleared.append("\(order) = NULL") }
                    try db.execute("UPDATE \(table) SET \(cleared.joined(separator: ", ")) WHERE \(fk) IS NOT NULL AND NOT \(exists(fk, of: destination))")
                    if let entityColumn = columns.entity {
                        try db.execute("UPDATE \(table) SET \(entityColumn) = \(code(fk, of: destination)) WHERE \(fk) IS NOT NULL")
                    }
                    if let order = columns.order {
                        let key = newMapping.primaryKey
                        try db.execute("""
                            UPDATE \(table) SET \(order) = r.n
                            FROM (SELECT \(key) AS pk, ROW_NUMBER() OVER (PARTITION BY \(columns.foreignKey) ORDER BY \(key)) - 1 AS n
                                  FROM \(table) WHERE \(columns.foreignKey) IS NOT NULL) AS r
                            WHERE \(table).\(key) = r.pk AND \(table).\(order) IS NULL
                            """)
                    }
                } else if relationship.isManyToMany, let join = newMapping.joinTable(relationship.name, of: entity),
                          join.isOwner {
                    // The owner's side: `source` holds the entity's rows, `target` the destination's.
                    let table = temporary(join.name)
                    let (source, target) = (join.sourceColumn, join.destinationColumn)
                    try db.execute("DELETE FROM \(table) WHERE NOT \(exists("\(table).\(source)", of: entity)) OR NOT \(exists("\(table).\(target)", of: destination))")
                    if let column = join.sourceEntityColumn {
                        try db.execute("UPDATE \(table) SET \(column) = \(code("\(table).\(source)", of: entity))")
                    }
                    if let column = join.destinationEntityColumn {
                        try db.execute("UPDATE \(table) SET \(column) = \(code("\(table).\(target)", of: destination))")
                    }
                    for (column, partition, order) in [(join.orderColumn, source, target), (join.inverseOrderColumn, target, source)] {
                        guard let column else { continue }
                        try db.execute("""
                            UPDATE \(table) SET \(column) = r.n
                            FROM (SELECT \(source) AS s, \(target) AS t, ROW_NUMBER() OVER (PARTITION BY \(partition) ORDER BY \(order)) - 1 AS n FROM \(table)) AS r
                            WHERE \(table).\(source) = r.s AND \(table).\(target) = r.t AND \(table).\(column) IS NULL
                            """)
                    }
                }
            }
        }
    }
}
