import Foundation
import Predicates

/// How a model is laid out in SQLite: entity → table, property → column,
/// to-one → foreign-key column, many-to-many → join table.
///
/// ```swift
/// let mapping = try SchemaMapping(model: model)
/// mapping.table(for: person).name   // "Person"
/// ```
///
/// The store and the SQL translator ask this one value for every
/// identifier they write; no other code names a table or a column. The
/// layout here is the readable one: one table per root entity, named after
/// it, with `_pk`, `_ent` (when the hierarchy has sub-entities) and `_opt`
/// (the optimistic-locking version), then a column per attribute and per
/// to-one relationship, named after the property. Core Data's own layout
/// (`ZPERSON`, `Z_PK`, `Z_ENT`, `Z_OPT`, …) is the other one: see
/// ``SchemaMapping/Layout/coreData`` and `SchemaMapping+CoreData.swift`.
public struct SchemaMapping: Sendable {
    /// The table of mrq's own layout that keeps the store's metadata (its
    /// model, fingerprint, highest keys), on every SQL engine.
    package static let metadataTable = SQLIdentifier(constant: "_mrq_metadata")

    /// Which naming and value conventions a store's tables follow.
    public enum Layout: String, Sendable, CaseIterable {
        /// mrq's readable layout: tables and columns named as the model
        /// names them.
        case mrq
        /// Core Data's SQLite layout, as an iOS or macOS app leaves its
        /// store: `Z<ENTITY>` tables, `Z_PK`/`Z_ENT`/`Z_OPT`,
        /// `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`, UUIDs as 16 bytes.
        case coreData
    }

    /// The layout these names follow.
    public let layout: Layout
    /// The primary-key column, the same in every table of the layout.
    public let primaryKey: SQLIdentifier
    /// The table of one inheritance hierarchy. A class: every fetch plan
    /// holds one, and a copy of a reference is one retain, not six.
    public final class Table: Sendable {
        /// The table's name in SQL.
        public let name: SQLIdentifier
        /// The inheritance root whose hierarchy the table holds.
        public let rootEntity: String
        /// The primary-key column (`_pk`, or `Z_PK` in Core Data's layout).
        public let primaryKey: SQLIdentifier
        /// Holds the entity code when the hierarchy has sub-entities.
        public let entityColumn: SQLIdentifier?
        /// The optimistic-locking version column (`_opt`, or `Z_OPT`),
        /// bumped by every save of the row.
        public let versionColumn: SQLIdentifier
        /// Every column after the three bookkeeping ones, in order.
        public let columns: [Column]
        /// The table as a statement's own FROM item, `"Person" t`, and a
        /// count's head over it, `SELECT COUNT(*) FROM "Person" t WHERE `:
        /// made once with the mapping, not for every plan (workload e,
        /// parse + translate).
        let fromItem: String
        let countHead: String

        init(name: SQLIdentifier, rootEntity: String, primaryKey: SQLIdentifier, entityColumn: SQLIdentifier?,
             versionColumn: SQLIdentifier, columns: [Column]) {
            self.name = name
            self.rootEntity = rootEntity
            self.primaryKey = primaryKey
            self.entityColumn = entityColumn
            self.versionColumn = versionColumn
            self.columns = columns
            fromItem = name.quoted + " " + SQLTranslator.rowAlias
            countHead = "SELECT COUNT(*) FROM " + fromItem + " WHERE "
        }
    }

    /// One column of a table, after the primary key, entity and version
    /// columns.
    public struct Column: Sendable {
        /// The column's name in SQL.
        public let name: SQLIdentifier
        /// The column's declared SQL type (`INTEGER`, `REAL`, `TEXT`,
        /// `BLOB`; Core Data's layout also uses `VARCHAR` and `TIMESTAMP`).
        public let sqlType: String
        /// The property this column stores.
        public let property: String
        /// The entity that declares the property.
        public let entity: String
        /// What the column holds.
        public let kind: Kind

        /// What a column holds: an attribute's value or part of a to-one
        /// relationship.
        public enum Kind: Sendable, Equatable {
            /// The value of an attribute of this type.
            case attribute(AttributeType)
            /// The foreign key of a to-one relationship.
            case foreignKey
            /// The destination's entity code, beside a foreign key into a
            /// hierarchy with sub-entities.
            case foreignEntity
            /// The position of this row in an ordered to-many whose
            /// inverse is this to-one.
            case order
            /// In Core Data's layout, the key of the object whose to-many
            /// with no inverse holds this row (`Z1PAGES`); ``Column/entity``
            /// and ``Column/property`` name that to-many.
            case toManyKey
            /// The position of this row in such a to-many, when ordered.
            case toManyOrder
        }
    }

    /// The join table of a many-to-many relationship (or, in mrq's layout,
    /// of a to-many with no inverse: Core Data's keeps that as a key in the
    /// destination's table, see ``toManyKey(_:of:)``).
    public struct JoinTable: Sendable {
        /// The join table's name in SQL.
        public let name: SQLIdentifier
        /// Whether this side owns the table: its rows are written from
        /// this side's contents, and it is created from this side.
        public let isOwner: Bool
        /// The column holding the primary key of this side's object.
        public let sourceColumn: SQLIdentifier
        /// The column holding the primary key of the destination.
        public let destinationColumn: SQLIdentifier
        /// The source's entity code when the source hierarchy has sub-entities.
        public let sourceEntityColumn: SQLIdentifier?
        /// The destination's entity code when the destination hierarchy has
        /// sub-entities.
        public let destinationEntityColumn: SQLIdentifier?
        /// The destination's position among the source's, when this side is
        /// ordered.
        public let orderColumn: SQLIdentifier?
        /// The source's position among the destination's, when the inverse
        /// side is ordered.
        public let inverseOrderColumn: SQLIdentifier?
    }

    /// Where an attribute is stored: its column and type.
    public struct AttributeColumn: Sendable {
        /// The column's name in SQL.
        public let name: SQLIdentifier
        /// The attribute's type, which says how its values are encoded.
        public let type: AttributeType
        /// The column as a statement's own row reads it, `t."name"`: made
        /// once with the mapping, not for every comparison a predicate
        /// makes on it (workload e, parse + translate).
        let inRow: String

        init(name: SQLIdentifier, type: AttributeType) {
            self.name = name
            self.type = type
            inRow = SQLTranslator.columnSQL(alias: SQLTranslator.rowAlias, column: name)
        }
    }

    /// Where a to-one relationship is stored: its foreign key and, when
    /// needed, the destination's entity code and the row's position in the
    /// ordered inverse.
    public struct ToOneColumns: Sendable {
        /// The column holding the destination's primary key, NULL for none.
        public let foreignKey: SQLIdentifier
        /// The column holding the destination's entity code, when the
        /// destination's hierarchy has sub-entities; nil otherwise.
        public let entity: SQLIdentifier?
        /// For an ordered inverse to-many: where this row's position lives.
        public let order: SQLIdentifier?
    }

    /// The tables, held in one object: a mapping is copied into every
    /// fetch plan and save, and a copy then retains one reference instead
    /// of six dictionaries. Written only while the mapping is made.
    final class Storage: @unchecked Sendable {
        private(set) var tables: [String: Table] = [:]  // by root entity name
        /// The same tables by root entity object: one pointer hashed at
        /// every fetch and save, not the entity's name. Holds the entity
        /// too: a freed entity's address could otherwise be reused by
        /// another model's entity, which would find this table.
        private(set) var tablesByRoot: [ObjectIdentifier: (root: EntityDescription, table: Table)] = [:]
        var attributeColumns: [String: [String: AttributeColumn]] = [:]  // entity → attribute → column
        /// The same columns by attribute object: one pointer hashed where a
        /// predicate's key names an attribute, not two names.
        var columnsByAttribute: [ObjectIdentifier: AttributeColumn] = [:]
        var toOneColumns: [String: [String: ToOneColumns]] = [:]  // entity → relationship
        var joinTables: [String: [String: JoinTable]] = [:]  // entity → relationship
        var toManyKeys: [String: [String: ToOneColumns]] = [:]  // entity → relationship
        var entityCodes: [String: Int64] = [:]
        var entityNamesByCode: [Int64: String] = [:]

        /// Records `attribute`'s column (of `entity`), by name and by
        /// attribute: what both layouts call for every stored attribute.
        func add(_ column: AttributeColumn, for attribute: AttributeDescription, of entity: EntityDescription) {
            attributeColumns[entity.name, default: [:]][attribute.name] = column
            columnsByAttribute[ObjectIdentifier(attribute)] = column
        }

        /// Records `table`, the table of the hierarchy under `root`, by
        /// name and by root.
        func addTable(_ table: Table, root: EntityDescription) {
            tables[root.name] = table
            tablesByRoot[ObjectIdentifier(root)] = (root, table)
        }
    }

    let storage = Storage()
    /// The maps read at every fetch and key path, as the builders left
    /// them: constants, read without the dynamic exclusivity check every
    /// read of a class's `var` pays (mrq-bench e. parse).
    final class Lookups: @unchecked Sendable {
        // Identity tables where a predicate's translation looks up (at
        // every plan and key path), not dictionaries: no SipHash of an
        // address there (see `IdentityTable`).
        let tablesByRoot: IdentityTable<(root: EntityDescription, table: Table)>
        let columnsByAttribute: [ObjectIdentifier: AttributeColumn]
        /// Each column as the statement's own row reads it (`t."age"`),
        /// with its type: what a key path of one attribute resolves to,
        /// copied out as one String (a whole `AttributeColumn` copied out
        /// and destroyed cost ~150 instructions a key path, workload e).
        let rowColumnsByAttribute: IdentityTable<(sql: String, type: AttributeType)>

        init(_ storage: Storage? = nil) {
            let columns = storage?.columnsByAttribute ?? [:]
            tablesByRoot = IdentityTable(storage?.tablesByRoot ?? [:])
            columnsByAttribute = columns
            rowColumnsByAttribute = IdentityTable(columns) { ($0.inRow, $0.type) }
        }
    }

    /// Made once the builders are done (see `Lookups`).
    private(set) var lookups = Lookups()
    private var tables: [String: Table] { storage.tables }
    private var attributeColumns: [String: [String: AttributeColumn]] { storage.attributeColumns }
    private var toOneColumns: [String: [String: ToOneColumns]] { storage.toOneColumns }
    private var joinTables: [String: [String: JoinTable]] { storage.joinTables }
    /// Entity name → code stored in the entity column (mrq: 1-based, model
    /// order; Core Data: `Z_PRIMARYKEY.Z_ENT`).
    public var entityCodes: [String: Int64] { storage.entityCodes }
    /// Code → entity name: ``entityCodes`` the other way round.
    public var entityNamesByCode: [Int64: String] { storage.entityNamesByCode }

    /// The mapping of `model` in `layout`. For Core Data's layout,
    /// `existing` is the schema of the store being opened: its entity
    /// numbers and the names Core Data chose where the model alone cannot
    /// say (see `SchemaMapping+CoreData.swift`).
    ///
    /// - Throws: `StoreError` for a name no SQL statement can carry (one
    ///   holding a NUL), which a model read from a file cannot have.
    public init(model: ManagedObjectModel, layout: Layout = .mrq, existing: CoreDataSchema? = nil) throws {
        self.layout = layout
        switch layout {
        case .mrq:
            primaryKey = SQLIdentifier(constant: "_pk")
            try buildReadable(model)
        case .coreData:
            primaryKey = SQLIdentifier(constant: "Z_PK")
            try buildCoreData(model, existing: existing)
        }
        lookups = Lookups(storage)
    }

    private func buildReadable(_ model: ManagedObjectModel) throws {
        let storage = self.storage
        for (offset, entity) in model.entities.enumerated() {
            storage.entityCodes[entity.name] = Int64(offset + 1)
            storage.entityNamesByCode[Int64(offset + 1)] = entity.name
        }
        // SQLite's names are case-insensitive: names that differ only in
        // case (`name` and `Name`, entities `Bar` and `bar`) get distinct
        // columns and tables, as do a table and a join table of one name.
        var tableNames: Set<String> = [Self.metadataTable.unquoted]
        func uniqueTable(_ base: String) throws -> SQLIdentifier {
            var name = base
            var n = 1
            while tableNames.contains(name.lowercased()) { n += 1; name = "\(base)_\(n)" }
            tableNames.insert(name.lowercased())
            return try SQLIdentifier(name)
        }
        for root in model.rootEntities {
            let hierarchy = root.selfAndDescendants
            let hasSubentities = hierarchy.count > 1
            var columns: [Column] = []
            var taken: Set<String> = ["_pk", "_ent", "_opt"]
            func unique(_ base: String, entity: EntityDescription) throws -> SQLIdentifier {
                var name = base
                if taken.contains(name.lowercased()) { name = "\(entity.name)_\(base)" }
                var n = 1
                while taken.contains(name.lowercased()) { n += 1; name = "\(entity.name)_\(base)\(n)" }
                taken.insert(name.lowercased())
                return try SQLIdentifier(name)
            }
            for entity in hierarchy {
                for property in entity.declaredProperties where !property.isTransient {
                    switch property {
                    case let declared as AttributeDescription:
                        // A composite has a column per element, `magnitude_richter`.
                        for attribute in declared.storedAttributes where !attribute.isTransient {
                            let name = try unique(attribute.name.replacingOccurrences(of: ".", with: "_"), entity: entity)
                            columns.append(Column(name: name, sqlType: Self.sqlType(attribute.type),
                                                  property: attribute.name, entity: entity.name,
                                                  kind: .attribute(attribute.type)))
                            storage.add(AttributeColumn(name: name, type: attribute.type), for: attribute, of: entity)
                        }
                    case let relationship as RelationshipDescription where relationship.isToOne:
                        let fk = try unique(relationship.name, entity: entity)
                        columns.append(Column(name: fk, sqlType: "INTEGER", property: relationship.name,
                                              entity: entity.name, kind: .foreignKey))
                        var entityColumn: SQLIdentifier?
                        if let destination = relationship.destination,
                           !destination.rootEntity.subentities.isEmpty {
                            let name = try unique("\(relationship.name)_ent", entity: entity)
                            columns.append(Column(name: name, sqlType: "INTEGER", property: relationship.name,
                                                  entity: entity.name, kind: .foreignEntity))
                            entityColumn = name
                        }
                        var orderColumn: SQLIdentifier?
                        if let inverse = relationship.inverse, inverse.isToMany, inverse.isOrdered {
                            let name = try unique("\(relationship.name)_order", entity: entity)
                            columns.append(Column(name: name, sqlType: "INTEGER", property: relationship.name,
                                                  entity: entity.name, kind: .order))
                            orderColumn = name
                        }
                        storage.toOneColumns[entity.name, default: [:]][relationship.name] =
                            ToOneColumns(foreignKey: fk, entity: entityColumn, order: orderColumn)
                    default:
                        break
                    }
                }
            }
            storage.addTable(Table(
                name: try uniqueTable(root.name), rootEntity: root.name, primaryKey: primaryKey,
                entityColumn: hasSubentities ? SQLIdentifier(constant: "_ent") : nil,
                versionColumn: SQLIdentifier(constant: "_opt"), columns: columns), root: root)
        }
        // Join tables: one per many-to-many pair (named after the side that
        // sorts first, so both sides share it) and per inverse-less to-many.
        var joinNames: [String: SQLIdentifier] = [:]  // "owner entity.relationship" → table
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties
            where relationship.isManyToMany && !relationship.isTransient {
                let owner: (entity: String, relationship: String)
                if let inverse = relationship.inverse, let inverseEntity = inverse.entity,
                   (inverseEntity.name, inverse.name) < (entity.name, relationship.name) {
                    owner = (inverseEntity.name, inverse.name)
                } else {
                    owner = (entity.name, relationship.name)
                }
                let isOwner = owner.entity == entity.name && owner.relationship == relationship.name
                let ownerKey = "\(owner.entity).\(owner.relationship)"
                let name = try joinNames[ownerKey] ?? uniqueTable("\(owner.entity)_\(owner.relationship)")
                joinNames[ownerKey] = name
                let sourceIsHierarchy = !entity.rootEntity.subentities.isEmpty
                let destinationIsHierarchy = !(relationship.destination?.rootEntity.subentities.isEmpty ?? true)
                // The owner's rows are `source`; the other side reads the table the other way round.
                let inverseOrdered = relationship.inverse?.isOrdered ?? false
                func named(_ owner: StaticString, _ other: StaticString) -> SQLIdentifier {
                    SQLIdentifier(constant: isOwner ? owner : other)
                }
                let join = JoinTable(
                    name: name,
                    isOwner: isOwner,
                    sourceColumn: named("source", "target"),
                    destinationColumn: named("target", "source"),
                    sourceEntityColumn: sourceIsHierarchy ? named("source_ent", "target_ent") : nil,
                    destinationEntityColumn: destinationIsHierarchy ? named("target_ent", "source_ent") : nil,
                    orderColumn: relationship.isOrdered ? named("target_order", "source_order") : nil,
                    inverseOrderColumn: inverseOrdered ? named("source_order", "target_order") : nil)
                storage.joinTables[entity.name, default: [:]][relationship.name] = join
            }
        }
    }

    /// The SQL column type of an attribute type in mrq's layout: `INTEGER`
    /// for integers and Booleans, `REAL` for floating-point numbers and dates,
    /// `TEXT` for decimals, strings, UUIDs, URIs and object IDs, `BLOB` for
    /// the rest.
    public static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .double, .float, .date: return "REAL"
        case .decimal, .string, .uuid, .uri: return "TEXT"
        case .binary, .transformable, .undefined, .composite: return "BLOB"
        case .objectID: return "TEXT"
        }
    }

    /// The table holding `entity`'s rows: its inheritance root's table.
    /// The entity must be of the mapped model.
    public func table(for entity: EntityDescription) -> Table {
        let root = entity.rootEntity
        // The map holds its roots, so an address found there is this root.
        if let found = lookups.tablesByRoot[ObjectIdentifier(root)] { return found.table }
        // By name for an entity of another instance of the model.
        return tables[root.name]!
    }

    /// Every table, by name.
    public var allTables: [Table] { tables.values.sorted { $0.name < $1.name } }

    // Columns are kept under the entity that declares the property, so a
    // hierarchy n levels deep keeps each once rather than once per level.

    /// The column of the attribute named `attribute` of `entity` (or of one
    /// of its parents), or nil when there is none: no such attribute, or a
    /// transient one.
    public func column(for attribute: String, of entity: EntityDescription) -> AttributeColumn? {
        guard let found = entity.attribute(named: attribute) else { return nil }
        if let column = lookups.columnsByAttribute[ObjectIdentifier(found)] { return column }
        guard let owner = found.entity else { return nil }
        return attributeColumns[owner.name]?[attribute]
    }

    /// ``column(for:of:)``'s column as the statement's own row reads it
    /// (`t."age"`, its `inRow`), and its type.
    func rowColumn(for attribute: String, of entity: EntityDescription) -> (sql: String, type: AttributeType)? {
        guard let found = entity.attribute(named: attribute) else { return nil }
        if let column = lookups.rowColumnsByAttribute[ObjectIdentifier(found)] { return column }
        guard let owner = found.entity, let column = attributeColumns[owner.name]?[attribute] else { return nil }
        return (column.inRow, column.type)
    }

    /// The column of `attribute`, one of `entity`'s (its own or a
    /// parent's): found by the attribute itself where the mapping keeps it
    /// so, else by name as `column(for:of:)` does.
    package func column(of attribute: AttributeDescription, in entity: EntityDescription) -> AttributeColumn? {
        if let column = lookups.columnsByAttribute[ObjectIdentifier(attribute)] { return column }
        return column(for: attribute.name, of: entity)
    }

    /// The columns of the to-one relationship named `relationship` of
    /// `entity` (or of one of its parents), or nil when it is not a stored
    /// to-one.
    public func toOne(_ relationship: String, of entity: EntityDescription) -> ToOneColumns? {
        guard let owner = entity.relationship(named: relationship)?.entity else { return nil }
        return toOneColumns[owner.name]?[relationship]
    }

    /// The join table of the to-many relationship named `relationship` of
    /// `entity` (or of one of its parents), seen from that side, or nil
    /// when it has none (a one-to-many is stored as its inverse's foreign
    /// key).
    public func joinTable(_ relationship: String, of entity: EntityDescription) -> JoinTable? {
        guard let owner = entity.relationship(named: relationship)?.entity else { return nil }
        return joinTables[owner.name]?[relationship]
    }

    /// The columns of the destination's table that say which object's
    /// `relationship` (a to-many of `entity`) a row is in: its inverse
    /// to-one's, or, in Core Data's layout, for a to-many with no inverse,
    /// the key Core Data keeps there (`ZPAGE.Z1PAGES` for `Book.pages`).
    /// Nil for a relationship kept in a join table.
    ///
    /// ```swift
    /// mapping.toManyKey(pages, of: book)?.foreignKey   // Z1PAGES
    /// ```
    public func toManyKey(_ relationship: RelationshipDescription, of entity: EntityDescription) -> ToOneColumns? {
        guard relationship.isToMany, let owner = entity.relationship(named: relationship.name)?.entity else { return nil }
        if let key = storage.toManyKeys[owner.name]?[relationship.name] { return key }
        guard let inverse = relationship.inverse, inverse.isToOne, let destination = relationship.destination else { return nil }
        return toOne(inverse.name, of: destination)
    }

    /// Every join table once, with the columns its owner side uses.
    public var allJoinTables: [JoinTable] {
        var seen: Set<SQLIdentifier> = []
        var result: [JoinTable] = []
        for byRelationship in joinTables.values {
            for join in byRelationship.values where join.isOwner && seen.insert(join.name).inserted {
                result.append(join)
            }
        }
        // A self-referencing many-to-many whose two sides are both "target"
        // readers cannot happen: one side always owns.
        return result.sorted { $0.name < $1.name }
    }

    /// The code stored in the entity column for rows of `entity`; see
    /// ``entityCodes``. The entity must be of the mapped model.
    public func entityCode(_ entity: EntityDescription) -> Int64 { entityCodes[entity.name]! }
}
