import Foundation
import Predicates

/// The DDL of a schema mapping: tables, join tables and indexes, in the
/// dialect of the store's engine (SQLite unless told).
package enum SchemaBuilder {
    /// The `CREATE TABLE` of `table`, or of a table laid out alike named
    /// `name` (a migration's new table).
    package static func createTable(_ table: SchemaMapping.Table, dialect: SQLDialect = SQLiteDialect(), named name: SQLIdentifier? = nil) -> String {
        var columns = [dialect.primaryKeyColumn(table.primaryKey)]
        if let entityColumn = table.entityColumn { columns.append("\(entityColumn) \(dialect.smallInteger) NOT NULL") }
        columns.append("\(table.versionColumn) \(dialect.integer) NOT NULL DEFAULT 1")
        for column in table.columns {
            columns.append("\(column.name) \(dialect.type(of: column))")
        }
        return "CREATE TABLE \(name ?? table.name) (\(columns.joined(separator: ", ")))"
    }

    package static func createJoinTable(_ join: SchemaMapping.JoinTable, dialect: SQLDialect = SQLiteDialect(),
                                        named name: SQLIdentifier? = nil) -> String {
        var columns = ["\(join.sourceColumn) \(dialect.integer) NOT NULL", "\(join.destinationColumn) \(dialect.integer) NOT NULL"]
        for extra in [join.sourceEntityColumn, join.destinationEntityColumn, join.orderColumn, join.inverseOrderColumn] {
            if let extra { columns.append("\(extra) \(dialect.smallInteger)") }
        }
        columns.append("PRIMARY KEY (\(join.sourceColumn), \(join.destinationColumn))")
        let create = "CREATE TABLE \(name ?? join.name) (\(columns.joined(separator: ", ")))"
        return create + dialect.joinTableOptions
    }

    /// One index of a new (or migrated) store: its name, table and the
    /// columns it covers (each with ` DESC` when descending).
    package struct Index {
        var unique = false
        package var name: SQLIdentifier
        var table: SQLIdentifier
        var columns: [(name: SQLIdentifier, descending: Bool)]

        var sql: String {
            "CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(table) ("
                + columns.map { "\($0.name)" + ($0.descending ? " DESC" : "") }.joined(separator: ", ") + ")"
        }
    }

    /// The indexes of a new (or migrated) store. `attributeIndexes` adds
    /// one per attribute marked indexed (``AttributeDescription/isIndexed``)
    /// that no fetch index or uniqueness constraint already leads with;
    /// the fingerprint leaves them out, so that stores made before they
    /// were created open as they are.
    package static func indexes(mapping: SchemaMapping, model: ManagedObjectModel, attributeIndexes: Bool = true) throws -> [String] {
        try indexList(mapping: mapping, model: model, attributeIndexes: attributeIndexes).map(\.sql)
    }

    package static func indexList(mapping: SchemaMapping, model: ManagedObjectModel, attributeIndexes: Bool = true) throws -> [Index] {
        var indexes: [Index] = []
        for table in mapping.allTables {
            for column in table.columns where column.kind == .foreignKey {
                indexes.append(Index(name: table.name + "_" + column.name + "_fk", table: table.name, columns: [(column.name, false)]))
            }
            if let entityColumn = table.entityColumn {
                indexes.append(Index(name: table.name + "_ent", table: table.name, columns: [(entityColumn, false)]))
            }
        }
        for join in mapping.allJoinTables {
            indexes.append(Index(name: join.name + "_target", table: join.name, columns: [(join.destinationColumn, false)]))
        }
        for entity in model.entities {
            let table = mapping.table(for: entity)
            func column(_ property: String) -> SQLIdentifier? {
                if let c = mapping.column(for: property, of: entity) { return c.name }
                return mapping.toOne(property, of: entity)?.foreignKey
            }
            for (n, constraint) in entity.uniquenessConstraints.enumerated() {
                // A composite stands for its elements.
                let names = constraint.flatMap { entity.compositeAttribute(named: $0)?.compositeSlots.map(\.name) ?? [$0] }
                let columns = names.compactMap(column)
                guard columns.count == names.count, !columns.isEmpty else { continue }
                indexes.append(Index(unique: true, name: try SQLIdentifier("\(entity.name)_unique\(n)"), table: table.name,
                                     columns: columns.map { ($0, false) }))
            }
            for index in entity.fetchIndexes {
                let columns = index.elements.compactMap { element in column(element.property).map { ($0, !element.ascending) } }
                guard columns.count == index.elements.count, !columns.isEmpty else { continue }
                indexes.append(Index(name: try SQLIdentifier("\(entity.name)_\(index.name)"), table: table.name, columns: columns))
            }
            guard attributeIndexes else { continue }
            for (_, name) in indexedAttributes(of: entity, column: column) {
                indexes.append(Index(name: table.name + "_" + name + "_indexed", table: table.name, columns: [(name, false)]))
            }
        }
        return indexes
    }

    /// The attributes `entity` declares marked indexed, with their
    /// columns, less those a uniqueness constraint or fetch index of the
    /// entity already leads with.
    static func indexedAttributes(of entity: EntityDescription,
                                  column: (String) -> SQLIdentifier?) -> [(attribute: AttributeDescription, column: SQLIdentifier)] {
        let leading = Set(entity.uniquenessConstraints.compactMap { $0.first.flatMap(column) }
                          + entity.fetchIndexes.compactMap { $0.elements.first.flatMap { column($0.property) } })
        return entity.declaredProperties.compactMap { property in
            guard let attribute = property as? AttributeDescription, attribute.isIndexed, !attribute.isTransient,
                  let name = column(attribute.name), !leading.contains(name) else { return nil }
            return (attribute, name)
        }
    }

    package static func createStatements(mapping: SchemaMapping, model: ManagedObjectModel, dialect: SQLDialect = SQLiteDialect()) throws -> [String] {
        try mapping.allTables.map { createTable($0, dialect: dialect) } + mapping.allJoinTables.map { createJoinTable($0, dialect: dialect) }
            + indexes(mapping: mapping, model: model)
    }

    /// A digest of everything that decides how rows are stored: two models
    /// with the same fingerprint read and write the same file the same way.
    /// Taken of the schema as mrq's first stores wrote its DDL — model
    /// names quoted, its own bookkeeping columns (`_pk`, `_ent`, `_opt`,
    /// the join tables' `source`, `target`, …) bare — whatever the store's
    /// engine and however the DDL is written now, so that every store made
    /// since keeps its fingerprint. This text is hashed, never run.
    package static func fingerprint(mapping: SchemaMapping, model: ManagedObjectModel) throws -> String {
        var text = mapping.allTables.map { table in
            var columns = ["\(table.primaryKey.unquoted) INTEGER PRIMARY KEY"]
            if let entityColumn = table.entityColumn { columns.append("\(entityColumn.unquoted) INTEGER NOT NULL") }
            columns.append("\(table.versionColumn.unquoted) INTEGER NOT NULL DEFAULT 1")
            columns += table.columns.map { "\($0.name.quoted) \($0.sqlType)" }
            return "CREATE TABLE \(table.name.quoted) (\(columns.joined(separator: ", ")))"
        }.joined(separator: ";")
        let joinTables = Set(mapping.allJoinTables.map(\.name))
        let entityColumns = Set(mapping.allTables.compactMap { table in table.entityColumn.map { table.name + "." + $0 } })
        text += try indexList(mapping: mapping, model: model, attributeIndexes: false).map { index in
            let columns = index.columns.map { column in
                let isBookkeeping = joinTables.contains(index.table) || entityColumns.contains(index.table + "." + column.name)
                return (isBookkeeping ? column.name.unquoted : column.name.quoted) + (column.descending ? " DESC" : "")
            }
            return "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(index.name.quoted) ON \(index.table.quoted) (\(columns.joined(separator: ", ")))"
        }.joined(separator: ";")
        text += mapping.allJoinTables.map { join in
            var columns = ["\(join.sourceColumn.unquoted) INTEGER NOT NULL", "\(join.destinationColumn.unquoted) INTEGER NOT NULL"]
            for extra in [join.sourceEntityColumn, join.destinationEntityColumn, join.orderColumn, join.inverseOrderColumn] {
                if let extra { columns.append("\(extra.unquoted) INTEGER") }
            }
            columns.append("PRIMARY KEY (\([join.sourceColumn, join.destinationColumn].map(\.unquoted).joined(separator: ", ")))")
            return "CREATE TABLE \(join.name.quoted) (\(columns.joined(separator: ", "))) WITHOUT ROWID"
        }.joined(separator: ";")
        text += mapping.entityCodes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return fnv1a(text)
    }

    /// The fingerprint of `model` in mrq's layout.
    package static func fingerprint(of model: ManagedObjectModel) throws -> String {
        try fingerprint(mapping: try SchemaMapping(model: model), model: model)
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

