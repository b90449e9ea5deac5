import Foundation
import Predicates

/// The bookkeeping tables of a Core Data store: entity numbers and next
/// keys, metadata, and the model the store was made with.
enum CoreDataTables {
    static let primaryKey = SQLIdentifier(constant: "Z_PRIMARYKEY")
    static let metadata = SQLIdentifier(constant: "Z_METADATA")
    static let modelCache = SQLIdentifier(constant: "Z_MODELCACHE")
    /// Core Data numbers its persistent-history entities from here on
    /// (`ACHANGE`, `ATRANSACTION`, `ATRANSACTIONSTRING`): not the model's.
    static let firstHistoryEntity: Int64 = 16000
}

extension SQLiteStore {
    /// The schema of a Core Data store open on `db`; nil when the file is
    /// not one (no `Z_PRIMARYKEY` and `Z_METADATA`).
    static func coreDataSchema(_ db: Database) throws -> CoreDataSchema? {
        guard try isCoreDataStore(db) else { return nil }
        var entityNumbers: [String: Int64] = [:]
        for row in try db.rows("SELECT Z_ENT, Z_NAME FROM \(CoreDataTables.primaryKey)") {
            guard row.count == 2, case .int(let number) = row[0], case .string(let name) = row[1] else { continue }
            if number < CoreDataTables.firstHistoryEntity { entityNumbers[name] = number }
        }
        let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .compactMap { row -> String? in
                guard case .string(let table)? = row.first else { return nil }
                return table
            }
        return CoreDataSchema(entityNumbers: entityNumbers, tableNames: tables, connection: db)
    }

    /// Whether the file open on `db` is a Core Data store: it has
    /// `Z_PRIMARYKEY` and `Z_METADATA`.
    static func isCoreDataStore(_ db: Database) throws -> Bool {
        try db.tableExists(CoreDataTables.primaryKey.unquoted) && db.tableExists(CoreDataTables.metadata.unquoted)
    }

    /// What in `mapping` the Core Data store does not have: each missing
    /// table and column, named for a person.
    ///
    /// An entity with no `Z_PRIMARYKEY` row is no difference: Core Data
    /// numbers entities from the model and adds their rows lazily (the
    /// migrated stores of CoreDataPlus's tests lack the row of an entity of
    /// their own model), so the mapping numbers it as the model does.
    static func coreDataDifferences(_ mapping: SchemaMapping, model: ManagedObjectModel,
                                    existing: CoreDataSchema) throws -> [String] {
        var differences: [String] = []
        for table in mapping.allTables {
            guard existing.hasTable(table.name.unquoted) else {
                differences.append("no table \(table.name.unquoted) for \(table.rootEntity)")
                continue
            }
            for column in table.columns where try !existing.table(table.name.unquoted, hasColumn: column.name.unquoted) {
                differences.append("\(table.name.unquoted) has no column \(column.name.unquoted) for \(column.entity).\(column.property)")
            }
        }
        for join in mapping.allJoinTables {
            guard existing.hasTable(join.name.unquoted) else {
                differences.append("no join table \(join.name.unquoted)")
                continue
            }
            for column in [join.sourceColumn, join.destinationColumn]
            where try !existing.table(join.name.unquoted, hasColumn: column.unquoted) {
                differences.append("\(join.name.unquoted) has no column \(column.unquoted)")
            }
        }
        return differences
    }

    /// Opens a Core Data store with `model`, or lays out a new one. Returns
    /// the store's identifier (`Z_METADATA.Z_UUID`).
    static func prepareCoreData(_ db: Database, mapping: SchemaMapping, model: ManagedObjectModel,
                                existing: CoreDataSchema?, options: Options) throws -> String {
        if let existing {
            let differences = try coreDataDifferences(mapping, model: model, existing: existing)
            if !differences.isEmpty {
                let shown = differences.prefix(5).joined(separator: "; ")
                let more = differences.count > 5 ? " (and \(differences.count - 5) more)" : ""
                throw StoreError(.modelMismatch, """
                    '\(db.path)' is a Core Data store made with another model: \(shown)\(more). \
                    Open it with the model it was made with (with no model, mrq reads the one the store keeps)
                    """)
            }
            guard case .string(let identifier)? = try db.scalar("SELECT Z_UUID FROM \(CoreDataTables.metadata) WHERE Z_VERSION = 1")
                    ?? db.scalar("SELECT Z_UUID FROM \(CoreDataTables.metadata) LIMIT 1") else {
                throw StoreError(.corrupt, "the Core Data store '\(db.path)' has no Z_METADATA row")
            }
            return identifier
        }
        if options.readOnly {
            throw notAStore(db)
        }
        let identifier = UUID().uuidString
        try db.enterWALMode()
        try db.transaction {
            for statement in try CoreDataDDL.createStatements(mapping: mapping, model: model) {
                try db.execute(statement)
            }
            for entity in SchemaMapping.coreDataEntityOrder(model) {
                try db.execute("INSERT INTO \(CoreDataTables.primaryKey) (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                               [.int(mapping.entityCode(entity)), .string(entity.name),
                                .int(entity.parent.map { mapping.entityCode($0) } ?? 0)])
            }
            try db.execute("INSERT INTO \(CoreDataTables.metadata) (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                           [.string(identifier), .data(try CoreDataMetadata.binaryPlist(for: model))])
            // A model with a predicate that has no NSPredicate archive form
            // gets no cache, as stores written before iOS 9 have none.
            if let cache = try? model.modelCache() {
                try db.execute("INSERT INTO \(CoreDataTables.modelCache) (Z_CONTENT) VALUES (?)", [.data(cache)])
            }
        }
        return identifier
    }

    /// The number `Z_PRIMARYKEY` gives a table's root entity.
    func coreDataRootNumber(ofTable name: SQLIdentifier) -> Int64? {
        guard mapping.layout == .coreData else { return nil }
        return mapping.allTables.first { $0.name == name }.flatMap { mapping.entityCodes[$0.rootEntity] }
    }
}

/// The DDL of Core Data's layout, as Core Data writes it: the tables with
/// the column types it declares, its bookkeeping tables, and its indexes
/// (`Z<TABLE>_<COLUMN>_INDEX` on every to-one key, `Z<TABLE>_Z_ENT_INDEX`
/// in a hierarchy, `Z_<Entity>_UNIQUE_<properties>` per constraint).
enum CoreDataDDL {
    static func createStatements(mapping: SchemaMapping, model: ManagedObjectModel) throws -> [String] {
        var statements: [String] = []
        var indexes: [String] = []
        for table in mapping.allTables {
            var columns = ["\(table.primaryKey) INTEGER PRIMARY KEY", "\(SchemaMapping.coreDataEntityColumn) INTEGER",
                           "\(table.versionColumn) INTEGER"]
            columns += table.columns.map { "\($0.name) \($0.sqlType)" }
            statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
            for column in table.columns where column.kind == .foreignKey || column.kind == .toManyKey {
                indexes.append("CREATE INDEX \(table.name + "_" + column.name + "_INDEX") ON \(table.name) (\(column.name))")
            }
            if let root = model.entity(named: table.rootEntity), !root.subentities.isEmpty {
                let entityColumn = SchemaMapping.coreDataEntityColumn
                indexes.append("CREATE INDEX \(table.name + "_" + entityColumn + "_INDEX") ON \(table.name) (\(entityColumn))")
            }
        }
        for join in mapping.allJoinTables {
            var columns = ["\(join.sourceColumn) INTEGER", "\(join.destinationColumn) INTEGER"]
            for extra in [join.orderColumn, join.inverseOrderColumn] {
                if let extra { columns.append("\(extra) INTEGER") }
            }
            columns.append("PRIMARY KEY (\(join.sourceColumn), \(join.destinationColumn))")
            statements.append("CREATE TABLE \(join.name) ( \(columns.joined(separator: ", ")) )")
            indexes.append("CREATE INDEX \(join.name + "_" + join.destinationColumn + "_INDEX") ON \(join.name) (\(join.destinationColumn))")
        }
        for entity in model.entities {
            let table = mapping.table(for: entity)
            func column(_ property: String) -> SQLIdentifier? {
                mapping.column(for: property, of: entity)?.name ?? mapping.toOne(property, of: entity)?.foreignKey
            }
            for constraint in entity.uniquenessConstraints {
                let columns = constraint.compactMap(column)
                guard columns.count == constraint.count, !columns.isEmpty else { continue }
                let name = try SQLIdentifier("Z_\(entity.name)_UNIQUE_\(constraint.joined(separator: "_"))")
                indexes.append("CREATE UNIQUE INDEX \(name) ON \(table.name) (\(columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")))")
            }
            for index in entity.fetchIndexes {
                let columns = index.elements.compactMap { element in
                    column(element.property).map { "\($0) COLLATE BINARY \(element.ascending ? "ASC" : "DESC")" }
                }
                guard columns.count == index.elements.count, !columns.isEmpty else { continue }
                let name = try SQLIdentifier("Z_\(entity.name)_\(index.name)")
                indexes.append("CREATE INDEX \(name) ON \(table.name) (\(columns.joined(separator: ", ")))")
            }
            // Core Data gives an attribute marked indexed a fetch index of
            // its own, named after the attribute.
            for (attribute, column) in SchemaBuilder.indexedAttributes(of: entity, column: column) {
                let name = try SQLIdentifier("Z_\(entity.name)_\(attribute.name)")
                indexes.append("CREATE INDEX \(name) ON \(table.name) (\(column) COLLATE BINARY ASC)")
            }
        }
        statements.append("CREATE TABLE \(CoreDataTables.primaryKey) (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        statements.append("CREATE TABLE \(CoreDataTables.metadata) (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        statements.append("CREATE TABLE \(CoreDataTables.modelCache) (Z_CONTENT BLOB)")
        return statements + indexes
    }
}
