import Foundation
import Predicates

/// The DDL of a schema mapping: tables, join tables and indexes.
package enum SchemaBuilder {
    package static func createTable(_ table: SchemaMapping.Table) -> String {
        var columns = ["\(table.primaryKey) INTEGER PRIMARY KEY"]
        if let entityColumn = table.entityColumn { columns.append("\(entityColumn) INTEGER NOT NULL") }
        columns.append("\(table.versionColumn) INTEGER NOT NULL DEFAULT 1")
        for column in table.columns {
            columns.append("\(quoteIdentifier(column.name)) \(column.sqlType)")
        }
        return "CREATE TABLE \(quoteIdentifier(table.name)) (\(columns.joined(separator: ", ")))"
    }

    package static func createJoinTable(_ join: SchemaMapping.JoinTable) -> String {
        var columns = ["\(join.sourceColumn) INTEGER NOT NULL", "\(join.destinationColumn) INTEGER NOT NULL"]
        for extra in [join.sourceEntityColumn, join.destinationEntityColumn, join.orderColumn, join.inverseOrderColumn] {
            if let extra { columns.append("\(extra) INTEGER") }
        }
        columns.append("PRIMARY KEY (\(join.sourceColumn), \(join.destinationColumn))")
        return "CREATE TABLE \(quoteIdentifier(join.name)) (\(columns.joined(separator: ", "))) WITHOUT ROWID"
    }

    package static func indexes(mapping: SchemaMapping, model: ManagedObjectModel) -> [String] {
        var statements: [String] = []
        for table in mapping.allTables {
            for column in table.columns where column.kind == .foreignKey {
                statements.append("CREATE INDEX \(quoteIdentifier("\(table.name)_\(column.name)_fk")) ON \(quoteIdentifier(table.name)) (\(quoteIdentifier(column.name)))")
            }
            if let entityColumn = table.entityColumn {
                statements.append("CREATE INDEX \(quoteIdentifier("\(table.name)_ent")) ON \(quoteIdentifier(table.name)) (\(entityColumn))")
            }
        }
        for join in mapping.allJoinTables {
            statements.append("CREATE INDEX \(quoteIdentifier("\(join.name)_target")) ON \(quoteIdentifier(join.name)) (\(join.destinationColumn))")
        }
        for entity in model.entities {
            let table = mapping.table(for: entity)
            func column(_ property: String) -> String? {
                if let c = mapping.column(for: property, of: entity) { return c.name }
                return mapping.toOne(property, of: entity)?.foreignKey
            }
            for (n, constraint) in entity.uniquenessConstraints.enumerated() {
                // A composite stands for its elements.
                let names = constraint.flatMap { entity.compositeAttribute(named: $0)?.compositeSlots.map(\.name) ?? [$0] }
                let columns = names.compactMap(column)
                guard columns.count == names.count, !columns.isEmpty else { continue }
                statements.append("CREATE UNIQUE INDEX \(quoteIdentifier("\(entity.name)_unique\(n)")) ON \(quoteIdentifier(table.name)) (\(columns.map(quoteIdentifier).joined(separator: ", ")))")
            }
            for index in entity.fetchIndexes {
                let columns = index.elements.compactMap { element in
                    column(element.property).map { quoteIdentifier($0) + (element.ascending ? "" : " DESC") }
                }
                guard columns.count == index.elements.count, !columns.isEmpty else { continue }
                statements.append("CREATE INDEX \(quoteIdentifier("\(entity.name)_\(index.name)")) ON \(quoteIdentifier(table.name)) (\(columns.joined(separator: ", ")))")
            }
        }
        return statements
    }

    package static func createStatements(mapping: SchemaMapping, model: ManagedObjectModel) -> [String] {
        mapping.allTables.map(createTable) + mapping.allJoinTables.map(createJoinTable)
            + indexes(mapping: mapping, model: model)
    }

    /// A digest of everything that decides how rows are stored: two models
    /// with the same fingerprint read and write the same file the same way.
    package static func fingerprint(mapping: SchemaMapping, model: ManagedObjectModel) -> String {
        var text = mapping.allTables.map(createTable).joined(separator: ";")
        text += indexes(mapping: mapping, model: model).joined(separator: ";")
        text += mapping.allJoinTables.map(createJoinTable).joined(separator: ";")
        text += mapping.entityCodes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return fnv1a(text)
    }

    package static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

