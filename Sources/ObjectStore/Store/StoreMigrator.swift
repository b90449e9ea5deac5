import Foundation
import Predicates

/// Brings an existing store up to a changed model: inferred (lightweight)
/// migration, in one transaction, data preserved.
///
/// The store keeps its model's archive; the plan comes from
/// `MigrationPlan.infer(from:to:)`, which refuses what cannot be inferred.
/// Each table is rebuilt: a new table for the new layout, filled from the
/// old one column by column (renamed properties read their old column,
/// added ones get their default), then swapped in; indexes are recreated.
enum StoreMigrator {
    static func migrate(_ db: Database, from old: ManagedObjectModel, to model: ManagedObjectModel, mapping: SchemaMapping,
                        readOnly: Bool) throws {
        let plan: MigrationPlan
        do {
            plan = try MigrationPlan.infer(from: old, to: model)
        } catch let error as ModelError {
            throw StoreError(.modelMismatch, "the store was made with a different model: \(error.message)")
        }
        if readOnly {
            throw StoreError(.readOnly, "the store needs a migration but is opened read-only")
        }
        let oldMapping = SchemaMapping(model: old)
        try db.transaction {
            try rebuild(db, old: old, oldMapping: oldMapping, new: model, newMapping: mapping, plan: plan)
            try db.execute("UPDATE \(SQLiteStore.metadataTable) SET value = ? WHERE key = 'fingerprint'",
                           [.string(SchemaBuilder.fingerprint(mapping: mapping, model: model))])
            try db.execute("UPDATE \(SQLiteStore.metadataTable) SET value = ? WHERE key = 'model'", [.data(model.archived())])
        }
        MRLog.debug("migrated store \(db.path): \(plan.entities.count) entity and \(plan.properties.count) property changes")
    }

    private static func oldName(ofEntity name: String, plan: MigrationPlan) -> String? {
        for step in plan.entities {
            switch step {
            case .added(let added) where added == name: return nil
            case .renamed(let from, let to) where to == name: return from
            default: continue
            }
        }
        return name
    }

    private static func oldName(ofProperty name: String, entity: String, plan: MigrationPlan) -> String? {
        for step in plan.properties {
            switch step {
            case .addedAttribute(entity, name), .addedRelationship(entity, name): return nil
            case .renamedAttribute(entity, let from, name), .renamedRelationship(entity, let from, name): return from
            default: continue
            }
        }
        return name
    }

    private static func rebuild(_ db: Database, old: ManagedObjectModel, oldMapping: SchemaMapping,
                                new: ManagedObjectModel, newMapping: SchemaMapping, plan: MigrationPlan) throws {
        // Drop every index: they are recreated for the new layout at the end.
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            if case .string(let name) = row[0] { try db.execute("DROP INDEX \(quoteIdentifier(name))") }
        }
        var keptOldTables: Set<String> = []
        for table in newMapping.allTables {
            guard let newRoot = new.entity(named: table.name) else { continue }
            let oldRootName = oldName(ofEntity: newRoot.name, plan: plan)
            let oldRoot = oldRootName.flatMap { old.entity(named: $0) }
            let temporary = "_mrq_new_" + table.name
            try db.execute(SchemaBuilder.createTable(table).replacingOccurrences(
                of: "CREATE TABLE \(quoteIdentifier(table.name))", with: "CREATE TABLE \(quoteIdentifier(temporary))"))
            if let oldRoot, try db.tableExists(oldMapping.table(for: oldRoot).name) {
                let oldTable = oldMapping.table(for: oldRoot)
                keptOldTables.insert(oldTable.name)
                var names = [table.primaryKey, table.versionColumn]
                var sources = [oldTable.primaryKey, oldTable.versionColumn]
                var filter = ""
                if let entityColumn = table.entityColumn {
                    // Old entity codes → new ones; rows of removed entities go.
                    var cases: [String] = []
                    for entity in newRoot.selfAndDescendants {
                        guard let oldEntityName = oldName(ofEntity: entity.name, plan: plan),
                              let code = oldMapping.entityCodes[oldEntityName] else { continue }
                        cases.append("WHEN \(code) THEN \(newMapping.entityCode(entity))")
                    }
                    names.append(entityColumn)
                    if let oldEntityColumn = oldTable.entityColumn {
                        sources.append("CASE \(oldEntityColumn) \(cases.joined(separator: " ")) END")
                        filter = " WHERE (CASE \(oldEntityColumn) \(cases.joined(separator: " ")) END) IS NOT NULL"
                    } else {
                        sources.append(String(newMapping.entityCode(newRoot)))
                    }
                }
                for column in table.columns {
                    guard let entity = new.entity(named: column.entity),
                          let oldEntityName = oldName(ofEntity: entity.name, plan: plan),
                          let oldEntity = old.entity(named: oldEntityName) else {
                        continue
                    }
                    let oldProperty = oldName(ofProperty: column.property, entity: entity.name, plan: plan)
                    var source: String?
                    switch column.kind {
                    case .attribute:
                        if let oldProperty, let oldColumn = oldMapping.column(for: oldProperty, of: oldEntity) {
                            source = quoteIdentifier(oldColumn.name)
                        }
                        if let attribute = entity.attribute(named: column.property), !attribute.isOptional || source == nil,
                           !attribute.defaultValue.isNull {
                            let literal = sqlLiteral(attribute.defaultValue)
                            source = source.map { "COALESCE(\($0), \(literal))" } ?? literal
                        }
                    case .foreignKey, .foreignEntity, .order:
                        if let oldProperty, let oldColumns = oldMapping.toOne(oldProperty, of: oldEntity) {
                            switch column.kind {
                            case .foreignKey: source = quoteIdentifier(oldColumns.foreignKey)
                            case .foreignEntity: source = oldColumns.entity.map(quoteIdentifier)
                            default: source = oldColumns.order.map(quoteIdentifier)
                            }
                        }
                    }
                    if let source {
                        names.append(quoteIdentifier(column.name))
                        sources.append(source)
                    }
                }
                try db.execute("INSERT INTO \(quoteIdentifier(temporary)) (\(names.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(quoteIdentifier(oldTable.name))\(filter)")
            }
        }
        // Join tables: copy the pairs of relationships that survive.
        var joinCopies: [(String, String)] = []
        for entity in new.entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties where relationship.isManyToMany {
                guard let join = newMapping.joinTable(relationship.name, of: entity), join.isOwner,
                      let oldEntityName = oldName(ofEntity: entity.name, plan: plan), let oldEntity = old.entity(named: oldEntityName),
                      let oldRelationshipName = oldName(ofProperty: relationship.name, entity: entity.name, plan: plan),
                      let oldJoin = oldMapping.joinTable(oldRelationshipName, of: oldEntity),
                      try db.tableExists(oldJoin.name) else { continue }
                let temporary = "_mrq_new_" + join.name
                try db.execute(SchemaBuilder.createJoinTable(join).replacingOccurrences(
                    of: "CREATE TABLE \(quoteIdentifier(join.name))", with: "CREATE TABLE \(quoteIdentifier(temporary))"))
                var names = [join.sourceColumn, join.destinationColumn]
                var sources = [oldJoin.sourceColumn, oldJoin.destinationColumn]
                for (newColumn, oldColumn) in [(join.sourceEntityColumn, oldJoin.sourceEntityColumn),
                                               (join.destinationEntityColumn, oldJoin.destinationEntityColumn),
                                               (join.orderColumn, oldJoin.orderColumn),
                                               (join.inverseOrderColumn, oldJoin.inverseOrderColumn)] {
                    if let newColumn, let oldColumn { names.append(newColumn); sources.append(oldColumn) }
                }
                try db.execute("INSERT OR IGNORE INTO \(quoteIdentifier(temporary)) (\(names.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(quoteIdentifier(oldJoin.name))")
                joinCopies.append((temporary, join.name))
            }
        }
        // Swap: drop every old table, then rename the new ones in.
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_mrq_%'") {
            if case .string(let name) = row[0] { try db.execute("DROP TABLE \(quoteIdentifier(name))") }
        }
        for table in newMapping.allTables {
            let temporary = "_mrq_new_" + table.name
            if try db.tableExists(temporary) {
                try db.execute("ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(table.name))")
            } else {
                try db.execute(SchemaBuilder.createTable(table))
            }
        }
        let copied = Dictionary(uniqueKeysWithValues: joinCopies.map { ($0.1, $0.0) })
        for join in newMapping.allJoinTables {
            if let temporary = copied[join.name] {
                try db.execute("ALTER TABLE \(quoteIdentifier(temporary)) RENAME TO \(quoteIdentifier(join.name))")
            } else {
                try db.execute(SchemaBuilder.createJoinTable(join))
            }
        }
        for statement in SchemaBuilder.indexes(mapping: newMapping, model: new) {
            try db.execute(statement)
        }
        _ = keptOldTables
    }

    /// A literal for a model default value (from the model, never from input).
    private static func sqlLiteral(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .bool(let b): return b ? "1" : "0"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? "\(d)" : "NULL"
        case .decimal(let d): return "'\(d)'"
        case .string(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .date(let d): return "\(d.timeIntervalSinceReferenceDate)"
        case .data(let d): return "X'" + d.map { String(format: "%02X", $0) }.joined() + "'"
        case .uuid(let u): return "'\(u.uuidString)'"
        case .url(let u): return "'" + u.absoluteString.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }
}
