import Foundation
import Predicates

// Core Data's SQLite layout, as NSSQLiteStoreType writes it. Every rule
// below was checked against the stores iOS and macOS wrote that
// log2timeline/plaso keeps as test data (Notes, Accounts, Screen Time,
// DataUsage, netusage, knowledgeC, …): for each, the tables and columns
// this mapping computes from the store's own model cache are the store's
// tables and columns, in the same order (`CoreDataRealStoreTests`).
//
// - Entities are numbered (`Z_ENT`, `Z_PRIMARYKEY`) depth first: root
//   entities in case-insensitive name order, each followed by its
//   sub-entities in the same order.
// - One table per root, `Z` + the root's name in capitals, with `Z_PK`,
//   `Z_ENT`, `Z_OPT`; then the columns of every entity of the hierarchy,
//   in six groups by type (integers and booleans, then to-one keys; then
//   decimals, doubles, floats and dates; strings; URIs; UUIDs and
//   transformables; binary data). Within a group, entities in number
//   order, each entity's own properties by name.
// - A column is `Z` + the property's name in capitals; when two entities
//   of one hierarchy name a property alike, the later columns get 1, 2, …
// - A to-one is a key column; beside it `Z<n>_<NAME>` holds the
//   destination's entity number when the destination entity has
//   sub-entities (n is its number), and `Z_FOK_<NAME>` the row's position
//   when the inverse is an ordered to-many.
// - A to-many with no inverse is a key column `Z<n><NAME>` in the
//   destination's table (n is the source's number), after the
//   destination's to-ones: what a hidden to-one inverse would hold.
// - A many-to-many is a table `Z_<n><NAME>` of the side whose entity
//   number is lower (an existing store's own table wins), with the two
//   keys `Z_<n><INVERSE NAME>` (this side's rows) and `Z_<m><NAME>` (the
//   destination's); a key name an earlier join table took (tables in
//   entity order) gets 1, 2, … (mvt's Viber Contacts.data: Z_10MEMBERS1).

/// What a Core Data store on disk already decided: its entity numbers
/// (`Z_PRIMARYKEY`) and the names of its tables and columns. A mapping for
/// an existing store is built with it, so that where Core Data's choice
/// cannot be derived from the model alone (which side of a to-many that
/// points at its own entity names the join table) the store's own names
/// win.
public struct CoreDataSchema: Sendable {
    /// `Z_PRIMARYKEY.Z_NAME` → `Z_ENT`.
    public var entityNumbers: [String: Int64]
    /// Table name → its columns, in order, for a schema given by hand;
    /// for one read from a store, the tables with no columns listed, which
    /// its connection answers (a listing costs a statement per table).
    private var tables: [String: [String]]
    private let connection: Database?

    /// A schema given by hand: a new store's (nothing), or a test's.
    public init(entityNumbers: [String: Int64] = [:], tables: [String: [String]] = [:]) {
        self.entityNumbers = entityNumbers
        self.tables = tables
        self.connection = nil
    }

    /// The schema of the store open on `connection`: its entity numbers and
    /// tables, the columns asked of SQLite as they are needed.
    init(entityNumbers: [String: Int64], tableNames: [String], connection: Database) {
        self.entityNumbers = entityNumbers
        self.tables = Dictionary(tableNames.map { ($0, []) }, uniquingKeysWith: { first, _ in first })
        self.connection = connection
    }

    /// Whether the store has a table named exactly `name`.
    public func hasTable(_ name: String) -> Bool { tables[name] != nil }

    /// Whether the store's table `table` has a column `column` (named as
    /// SQLite resolves names, without regard to ASCII case, for a store read
    /// from its file; exactly, for a schema given by hand).
    public func table(_ table: String, hasColumn column: String) throws -> Bool {
        guard let columns = tables[table] else { return false }
        if let connection { return try connection.hasColumn(column, inTable: table) }
        return columns.contains(column)
    }
}

extension SchemaMapping {
    /// Whether `attribute`'s values are written as they are held (true for
    /// every attribute of mrq's layout).
    func storesAsHeld(_ attribute: AttributeDescription) -> Bool {
        layout == .mrq || (attribute.type != .uuid && !(attribute.type == .binary && attribute.allowsExternalBinaryDataStorage))
    }

    /// `value` as `attribute`'s column holds it: in Core Data's layout a
    /// UUID is its 16 bytes and externally storable data carries its
    /// marker byte.
    func stored(_ value: Value, for attribute: AttributeDescription) -> Value {
        guard layout == .coreData else { return value }
        switch value {
        case .uuid(let uuid) where attribute.type == .uuid: return .data(bytes(of: uuid))
        case .data where attribute.allowsExternalBinaryDataStorage: return ExternalBinaryData.encode(value)
        default: return value
        }
    }

    /// Core Data's entity order: roots in case-insensitive name order,
    /// each followed, depth first, by its sub-entities in the same order.
    static func coreDataEntityOrder(_ model: ManagedObjectModel) -> [EntityDescription] {
        func sorted(_ entities: [EntityDescription]) -> [EntityDescription] {
            entities.sorted { a, b in
                let (x, y) = (a.name.lowercased(), b.name.lowercased())
                return x != y ? x < y : a.name < b.name
            }
        }
        var order: [EntityDescription] = []
        order.reserveCapacity(model.entities.count)
        // An explicit stack: a model may nest thousands of levels.
        var stack = Array(sorted(model.rootEntities).reversed())
        while let entity = stack.popLast() {
            order.append(entity)
            stack.append(contentsOf: sorted(entity.subentities).reversed())
        }
        return order
    }

    /// The group a column of `type` falls in (see the notes at the top of
    /// this file): Core Data writes the groups in this order.
    static func coreDataGroup(_ type: AttributeType) -> Int {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return 0
        case .decimal, .double, .float, .date: return 1
        case .string, .objectID: return 2
        case .uri: return 3
        case .uuid, .transformable: return 4
        case .binary, .undefined, .composite: return 5
        }
    }

    /// The column type Core Data declares for `type`.
    public static func coreDataSQLType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .decimal: return "DECIMAL"
        case .double, .float: return "FLOAT"
        case .date: return "TIMESTAMP"
        case .string, .uri, .objectID: return "VARCHAR"
        case .uuid, .transformable, .binary, .undefined, .composite: return "BLOB"
        }
    }

    /// The entity column of every table of Core Data's layout.
    static let coreDataEntityColumn = SQLIdentifier(constant: "Z_ENT")

    /// `Z` + the name in capitals: Core Data's table and column names.
    static func coreDataName(_ name: String) -> String { "Z" + name.uppercased() }

    func buildCoreData(_ model: ManagedObjectModel, existing: CoreDataSchema?) throws {
        let storage = self.storage
        let order = Self.coreDataEntityOrder(model)
        // Core Data numbers entities from the model, in this order, and
        // keeps Z_PRIMARYKEY's rows loosely: CoreDataPlus's migrated stores
        // lack the row of an entity of their own model, or keep it under
        // the entity's name before a rename. A model entity the store does
        // not number gets the model's number unless another entity of the
        // model has it in the store, else one past the store's own.
        var taken = Set(existing.map { existing in
            existing.entityNumbers.compactMap { model.entity(named: $0.key) == nil ? nil : $0.value }
        } ?? [])
        var spare = (taken.max() ?? 0) + 1
        for (offset, entity) in order.enumerated() {
            let code: Int64
            if let existing {
                if let known = existing.entityNumbers[entity.name] {
                    code = known
                } else if !taken.contains(Int64(offset + 1)) {
                    code = Int64(offset + 1)
                } else {
                    while taken.contains(spare) { spare += 1 }
                    code = spare
                }
                taken.insert(code)
            } else {
                code = Int64(offset + 1)
            }
            storage.entityCodes[entity.name] = code
            storage.entityNamesByCode[code] = entity.name
        }
        func code(_ entity: EntityDescription) -> Int64 { storage.entityCodes[entity.name]! }

        // A to-many with no inverse is a key column in its destination's
        // table, `Z` + the source's number + the name in capitals (CoreDataPlus's
        // Book.pages is ZPAGE.Z1PAGES), placed after the destination's own
        // to-ones; join tables are for many-to-many only.
        var toManyKeys: [ObjectIdentifier: [(source: EntityDescription, relationship: RelationshipDescription)]] = [:]
        for entity in order {
            for case let relationship as RelationshipDescription in entity.declaredProperties
            where relationship.isToMany && relationship.inverse == nil && !relationship.isTransient {
                guard let destination = relationship.destination else { continue }
                toManyKeys[ObjectIdentifier(destination), default: []].append((entity, relationship))
            }
        }
        var columnsByAttribute: [ObjectIdentifier: AttributeColumn] = [:]
        columnsByAttribute.reserveCapacity(order.reduce(0) { $0 + $1.declaredProperties.count })
        defer {
            if storage.columnsByAttribute.isEmpty {
                storage.columnsByAttribute = columnsByAttribute
            } else {
                storage.columnsByAttribute.merge(columnsByAttribute) { $1 }
            }
        }
        var hierarchies: [ObjectIdentifier: [EntityDescription]] = [:]
        for entity in order { hierarchies[ObjectIdentifier(entity.rootEntity), default: []].append(entity) }
        for root in order where root.parent == nil {
            let hierarchy = hierarchies[ObjectIdentifier(root)]!
            var columns: [Column] = []
            var uses: [String: Int] = [:]
            // Sized once: a big model's tables have hundreds of columns.
            let declaredCount = hierarchy.reduce(0) { $0 + $1.declaredProperties.count }
            uses.reserveCapacity(declaredCount + 8)
            columns.reserveCapacity(declaredCount + 8)
            func unique(_ base: String) throws -> SQLIdentifier {
                guard let count = uses[base] else { uses[base] = 0; return try SQLIdentifier(base) }
                uses[base] = count + 1
                return try SQLIdentifier(base + String(count + 1))
            }
            // Each entity's stored attributes by name, once for all six
            // groups. A composite's elements are stored attributes of their
            // own (`magnitude.richter`, in column ZMAGNITUDE_RICHTER).
            let storedAttributes = hierarchy.map { entity in
                entity.declaredProperties.compactMap { $0 as? AttributeDescription }
                    .flatMap(\.storedAttributes)
                    .filter { !$0.isTransient }
                    .sorted { $0.name < $1.name }
            }
            // Each entity's attribute columns, gathered here and handed to
            // the storage once per entity.
            var attributeColumns = storedAttributes.map { [String: AttributeColumn](minimumCapacity: $0.count) }
            for group in 0...5 {
                for (index, (entity, stored)) in zip(hierarchy, storedAttributes).enumerated() {
                    for attribute in stored where Self.coreDataGroup(attribute.type) == group {
                        // Foundation's replacingOccurrences is slow; only a composite's elements have a dot.
                        let flat = attribute.name.holdsByte(UInt8(ascii: "."))
                            ? attribute.name.replacingOccurrences(of: ".", with: "_") : attribute.name
                        let name = try unique(Self.coreDataName(flat))
                        columns.append(Column(name: name, sqlType: Self.coreDataSQLType(attribute.type),
                                              property: attribute.name, entity: entity.name,
                                              kind: .attribute(attribute.type)))
                        let column = AttributeColumn(name: name, type: attribute.type)
                        attributeColumns[index][attribute.name] = column
                        columnsByAttribute[ObjectIdentifier(attribute)] = column
                    }
                    guard group == 0 else { continue }
                    let toOnes = entity.declaredProperties.compactMap { $0 as? RelationshipDescription }
                        .filter { $0.isToOne && !$0.isTransient }
                        .sorted { $0.name < $1.name }
                    for relationship in toOnes {
                        let upper = relationship.name.uppercased()
                        let key = try unique("Z" + upper)
                        columns.append(Column(name: key, sqlType: "INTEGER", property: relationship.name,
                                              entity: entity.name, kind: .foreignKey))
                        var entityColumn: SQLIdentifier?
                        if let destination = relationship.destination, !destination.subentities.isEmpty {
                            let name = try unique("Z\(code(destination))_\(upper)")
                            columns.append(Column(name: name, sqlType: "INTEGER", property: relationship.name,
                                                  entity: entity.name, kind: .foreignEntity))
                            entityColumn = name
                        }
                        var orderColumn: SQLIdentifier?
                        if let inverse = relationship.inverse, inverse.isToMany, inverse.isOrdered {
                            let name = try unique("Z_FOK_\(upper)")
                            columns.append(Column(name: name, sqlType: "INTEGER", property: relationship.name,
                                                  entity: entity.name, kind: .order))
                            orderColumn = name
                        }
                        storage.toOneColumns[entity.name, default: [:]][relationship.name] =
                            ToOneColumns(foreignKey: key, entity: entityColumn, order: orderColumn)
                    }
                    for (source, relationship) in toManyKeys[ObjectIdentifier(entity)] ?? [] {
                        let base = "\(code(source))\(relationship.name.uppercased())"
                        let key = try unique("Z" + base)
                        columns.append(Column(name: key, sqlType: "INTEGER", property: relationship.name,
                                              entity: source.name, kind: .toManyKey))
                        // Where a store has no position column for an
                        // ordered one, the rows are read by key.
                        var orderColumn: SQLIdentifier?
                        let orderName = "Z_FOK_" + base
                        if relationship.isOrdered,
                           try existing?.table(Self.coreDataName(root.name), hasColumn: orderName) ?? true {
                            let name = try unique(orderName)
                            columns.append(Column(name: name, sqlType: "INTEGER", property: relationship.name,
                                                  entity: source.name, kind: .toManyOrder))
                            orderColumn = name
                        }
                        storage.toManyKeys[source.name, default: [:]][relationship.name] =
                            ToOneColumns(foreignKey: key, entity: nil, order: orderColumn)
                    }
                }
            }
            for (entity, columns) in zip(hierarchy, attributeColumns) {
                if storage.attributeColumns[entity.name] == nil {
                    storage.attributeColumns[entity.name] = columns
                } else {
                    storage.attributeColumns[entity.name, default: [:]].merge(columns) { $1 }
                }
            }
            storage.addTable(Table(
                name: try SQLIdentifier(Self.coreDataName(root.name)), rootEntity: root.name, primaryKey: primaryKey,
                entityColumn: Self.coreDataEntityColumn, versionColumn: SQLIdentifier(constant: "Z_OPT"), columns: columns), root: root)
        }

        // Core Data names a join table's key columns uniquely across the
        // model: a name an earlier join table took gets 1, 2, … (Viber's
        // Contacts.data as mvt keeps it: Z_1MEMBERS has Z_10MEMBERS, so
        // Z_10RECENTSLINES has Z_10MEMBERS1). Both sides of a table share
        // its names, taken once, in entity order.
        var joinColumnsTaken = Set<String>()
        var joinKeysByTable: [String: (owner: String, other: String)] = [:]
        func uniqueJoinColumn(_ name: String) -> String {
            var candidate = name
            var suffix = 1
            while joinColumnsTaken.contains(candidate) {
                candidate = name + String(suffix)
                suffix += 1
            }
            joinColumnsTaken.insert(candidate)
            return candidate
        }
        for entity in order {
            for case let relationship as RelationshipDescription in entity.declaredProperties
            where relationship.isManyToMany && relationship.inverse != nil && !relationship.isTransient {
                guard let destination = relationship.destination, let inverse = relationship.inverse else { continue }
                let inverseEntity = inverse.entity ?? destination
                // The side with the lower entity number owns the table; a
                // relationship of an entity to itself, the name that sorts
                // first. An existing store says which where it has one
                // side's table and not the other's: Core Data does not
                // always follow the numbers (Viber's Contacts.data keeps
                // Z_18VIBES for Vibe 6 ↔ Tag 18, Vibe being a sub-entity).
                var isOwner: Bool
                if code(inverseEntity) == code(entity) {
                    isOwner = relationship.name <= inverse.name
                } else {
                    isOwner = code(entity) < code(inverseEntity)
                }
                if let existing {
                    let mine = existing.hasTable("Z_\(code(entity))\(relationship.name.uppercased())")
                    let theirs = existing.hasTable("Z_\(code(inverseEntity))\(inverse.name.uppercased())")
                    if !mine && theirs { isOwner = false }
                    if !theirs && mine { isOwner = true }
                }
                // Named from the owner: its entity, relationship and inverse.
                let (ownerEntity, ownerName, otherEntity, otherName) = isOwner
                    ? (entity, relationship.name, destination, inverse.name)
                    : (inverseEntity, inverse.name, entity, relationship.name)
                let ownerUpper = ownerName.uppercased()
                let tableName = "Z_\(code(ownerEntity))\(ownerUpper)"
                // A relationship that is its own inverse (partners ↔
                // partners) would name both columns alike: the second takes
                // the numbered suffix, as a name another table took does.
                let ownerKey: String, otherKey: String
                if let known = joinKeysByTable[tableName] {
                    (ownerKey, otherKey) = known
                } else {
                    ownerKey = uniqueJoinColumn("Z_\(code(ownerEntity))\(otherName.uppercased())")
                    otherKey = uniqueJoinColumn("Z_\(code(otherEntity))\(ownerUpper)")
                    joinKeysByTable[tableName] = (ownerKey, otherKey)
                }
                let ownerOrdered = isOwner ? relationship.isOrdered : inverse.isOrdered
                let otherOrdered = isOwner ? inverse.isOrdered : relationship.isOrdered
                let ownerOrder = ownerOrdered ? "Z_FOK_" + otherKey.dropFirst(2) : nil
                let otherOrder = otherOrdered ? "Z_FOK_" + ownerKey.dropFirst(2) : nil
                let join = JoinTable(
                    name: try SQLIdentifier(tableName),
                    isOwner: isOwner,
                    sourceColumn: try SQLIdentifier(isOwner ? ownerKey : otherKey),
                    destinationColumn: try SQLIdentifier(isOwner ? otherKey : ownerKey),
                    sourceEntityColumn: nil,
                    destinationEntityColumn: nil,
                    orderColumn: try (isOwner ? ownerOrder : otherOrder).map { try SQLIdentifier(String($0)) },
                    inverseOrderColumn: try (isOwner ? otherOrder : ownerOrder).map { try SQLIdentifier(String($0)) })
                storage.joinTables[entity.name, default: [:]][relationship.name] = join
            }
        }
    }
}
