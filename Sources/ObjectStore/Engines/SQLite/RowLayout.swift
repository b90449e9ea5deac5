import CSQLite
import Foundation
import Predicates

/// Where one entity's slots sit in its table's select list, and how to
/// decode them: computed once per entity, so decoding a row is a loop over
/// positions, never a lookup by name.
///
/// A row is data from a file, and need not fit the model: a value SQLite
/// holds in another storage class than the attribute's type calls for is
/// kept as what it is (see ``decode(_:column:type:)``); what cannot be
/// shown as anything — a key that is not a key, an entity column naming
/// an entity that cannot be there, external data that cannot be read —
/// throws a `StoreError` naming the table, the row and the column.
package final class RowLayout {
    package struct AttributeSlot {
        /// Index in the select list; nil for a transient attribute.
        package let column: Int32?
        package let type: AttributeType
        /// Core Data's external binary storage: the column holds a marker
        /// byte, then the data or the name of the file holding it.
        let isExternal: Bool
    }

    package struct ToOneSlot {
        package let foreignKey: Int32
        package let entityColumn: Int32?
        /// The destination entity: the object's entity when no entity
        /// column says otherwise.
        package let destination: EntityDescription
    }

    package let entity: EntityDescription
    package let attributes: [AttributeSlot]
    /// One per relationship slot; nil for to-many and transient ones.
    package let toOne: [ToOneSlot?]
    let columnNames: [SQLIdentifier]
    /// The table's name and its key column's, for errors.
    let tableName: String
    let primaryKeyName: String

    /// The layout of every entity of `model`. Column positions are worked
    /// out once per table, not once per entity: a hierarchy n levels deep
    /// has one table of n levels' columns.
    package static func all(model: ManagedObjectModel, mapping: SchemaMapping) -> [ObjectIdentifier: RowLayout] {
        var positions: [ObjectIdentifier: (names: [SQLIdentifier], position: [SQLIdentifier: Int32])] = [:]
        var layouts: [ObjectIdentifier: RowLayout] = [:]
        for entity in model.entities {
            let table = mapping.table(for: entity)
            let key = ObjectIdentifier(table)
            let known: (names: [SQLIdentifier], position: [SQLIdentifier: Int32])
            if let found = positions[key] {
                known = found
            } else {
                var position: [SQLIdentifier: Int32] = Dictionary(minimumCapacity: table.columns.count)
                for (i, column) in table.columns.enumerated() { position[column.name] = Int32(i + 3) }
                known = (table.columns.map(\.name), position)
                positions[key] = known
            }
            layouts[ObjectIdentifier(entity)] = RowLayout(entity: entity, mapping: mapping, table: table,
                                                          columnNames: known.names, position: known.position)
        }
        return layouts
    }

    private init(entity: EntityDescription, mapping: SchemaMapping, table: SchemaMapping.Table,
                 columnNames: [SQLIdentifier], position: [SQLIdentifier: Int32]) {
        self.entity = entity
        self.columnNames = columnNames
        tableName = table.name.unquoted
        primaryKeyName = table.primaryKey.unquoted
        attributes = entity.attributes.map { attribute in
            let column = mapping.column(of: attribute, in: entity)
            return AttributeSlot(column: column.flatMap { position[$0.name] }, type: attribute.type,
                                 isExternal: mapping.layout == .coreData && attribute.allowsExternalBinaryDataStorage)
        }
        toOne = entity.relationships.map { relationship in
            guard relationship.isToOne, !relationship.isTransient,
                  let columns = mapping.toOne(relationship.name, of: entity),
                  let foreignKey = position[columns.foreignKey],
                  let destination = relationship.destination else { return nil }
            return ToOneSlot(foreignKey: foreignKey,
                             entityColumn: columns.entity.flatMap { position[$0] },
                             destination: destination)
        }
    }

    /// The name of the column at `position` of the select list.
    package func columnName(at position: Int32) -> String {
        let i = Int(position) - 3
        return columnNames.indices.contains(i) ? columnNames[i].unquoted : "column \(position)"
    }

    /// `row 7 of ZNOTE`: where a row is, for errors.
    package func place(_ pk: Int64) -> String { "row \(pk) of \(tableName)" }

    func decode(_ statement: Statement, pk: Int64, store: SQLiteStore) throws -> Snapshot {
        var values: [Value] = []
        values.reserveCapacity(attributes.count)
        for (i, slot) in attributes.enumerated() {
            // One look at the storage class serves the NULL test and the
            // decoding: the loop runs once per column of every row fetched.
            guard let column = slot.column else {
                values.append(.null)
                continue
            }
            let storage = sqlite3_column_type(statement.handle, column)
            if storage == SQLITE_NULL {
                values.append(.null)
                continue
            }
            if slot.isExternal {
                values.append(try ExternalBinaryData.decode(statement, column: column, store: store) {
                    "\(self.place(pk)), \(self.columnName(at: column)) (\(self.entity.name).\(self.entity.attributes[i].name))"
                })
            } else {
                values.append(Self.decode(statement, column: column, type: slot.type, storage: storage))
            }
        }
        // Slots as a fault's object holds them: to-manys not loaded. An
        // entity without relationships shares the empty list.
        var links = entity.faultSlots
        for (i, slot) in toOne.enumerated() {
            guard let slot, !statement.isNull(at: slot.foreignKey) else { continue }
            let key = try Self.key(statement, at: slot.foreignKey) {
                "\(self.place(pk)), \(self.columnName(at: slot.foreignKey)) (\(self.entity.name).\(self.entity.relationships[i].name))"
            }
            var destination = slot.destination
            if let column = slot.entityColumn, !statement.isNull(at: column) {
                destination = try Self.entity(statement.value(at: column), kindOf: slot.destination,
                                              mapping: store.mapping, model: store.model) {
                    "\(self.place(pk)), \(self.columnName(at: column)) (the entity of \(self.entity.name).\(self.entity.relationships[i].name))"
                }
            }
            links[i] = .toOne(ObjectID(entity: destination, primaryKey: key, store: store.storeNumber))
        }
        return Snapshot(
            id: ObjectID(entity: entity, primaryKey: pk, store: store.storeNumber),
            version: statement.int64(at: 2), values: values, links: links)
    }

    /// The key in column `column`: an integer, not negative (a negative key
    /// is a temporary ID's, which no row may take); anything else throws,
    /// with `place` saying where.
    @inline(__always)
    static func key(_ statement: Statement, at column: Int32, _ place: () -> String) throws -> Int64 {
        if sqlite3_column_type(statement.handle, column) == SQLITE_INTEGER {
            let key = statement.int64(at: column)
            if key >= 0 { return key }
        }
        throw StoreError(.corrupt, "\(place()) is \(shown(statement.value(at: column))), which is not a key (keys are integers from 0 up)")
    }

    /// The entity whose number an entity column holds: `root` or an
    /// entity below it. Anything else — not a number, the number of no
    /// entity, of an entity of another hierarchy or above `root` — throws,
    /// with `place` saying where: a row decoded as an entity it is not
    /// would be read through another entity's columns.
    package static func entity(_ value: Value, kindOf root: EntityDescription, mapping: SchemaMapping,
                               model: ManagedObjectModel, _ place: () -> String) throws -> EntityDescription {
        guard case .int(let code) = value else {
            throw StoreError(.corrupt, "\(place()) is \(shown(value)), which is not an entity number")
        }
        guard let name = mapping.entityNamesByCode[code], let entity = model.entity(named: name) else {
            throw StoreError(.corrupt, "\(place()) is \(code), the number of no entity of the model")
        }
        guard entity.isKind(of: root) else {
            throw StoreError(.corrupt, "\(place()) is \(code), the number of \(entity.name), which is not \(root.name) or an entity below it")
        }
        return entity
    }

    /// A value for an error: text quoted, cut and with control characters
    /// escaped; data by its size.
    static func shown(_ value: Value) -> String {
        switch value {
        case .string(let text):
            let cut = text.unicodeScalars.count > 60 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(60))) + "…" : text
            return "'" + ContainedFile.display([cut]) + "'"
        case .data(let data): return data.count == 1 ? "1 byte of data" : "\(data.count) bytes of data"
        case .int(let n): return "\(n)"
        case .double(let d): return "\(d)"
        case .null: return "NULL"
        default: return "\(value)"
        }
    }

    /// The value of `column` as an attribute of `type`. A value SQLite
    /// holds in a storage class the type has no reading of — text in an
    /// integer or date column, a blob where a string belongs, a real in a
    /// Boolean or integer column — is kept as what it is (`.string`,
    /// `.data`, `.double`), never turned into a 0 or an empty string that
    /// the file does not hold: a store from elsewhere is shown as it is.
    @inline(__always)
    static func decode(_ statement: Statement, column: Int32, type: AttributeType) -> Value {
        decode(statement, column: column, type: type, storage: sqlite3_column_type(statement.handle, column))
    }

    /// `decode(_:column:type:)` with the column's storage class known.
    @inline(__always)
    static func decode(_ statement: Statement, column: Int32, type: AttributeType, storage: Int32) -> Value {
        switch type {
        case .integer16, .integer32, .integer64:
            if storage == SQLITE_INTEGER { return .int(statement.int64(at: column)) }
        case .boolean:
            if storage == SQLITE_INTEGER { return .bool(statement.int64(at: column) != 0) }
        case .double, .float:
            if storage == SQLITE_FLOAT || storage == SQLITE_INTEGER { return .double(statement.double(at: column)) }
        case .date:
            if storage == SQLITE_FLOAT || storage == SQLITE_INTEGER {
                return .date(Date(timeIntervalSinceReferenceDate: statement.double(at: column)))
            }
        case .string, .objectID:
            if storage == SQLITE_TEXT { return .string(statement.string(at: column)) }
        case .decimal:
            if storage != SQLITE_BLOB, let decimal = Decimal(string: statement.string(at: column)) { return .decimal(decimal) }
        case .uuid:
            // Core Data keeps a UUID's 16 bytes; mrq its text.
            if storage == SQLITE_BLOB, let uuid = uuid(bytes: statement.data(at: column)) { return .uuid(uuid) }
            if storage == SQLITE_TEXT, let uuid = UUID(uuidString: statement.string(at: column)) { return .uuid(uuid) }
        case .uri:
            if storage == SQLITE_TEXT, let url = URL(string: statement.string(at: column)) { return .url(url) }
        case .binary, .transformable:
            if storage == SQLITE_BLOB { return .data(statement.data(at: column)) }
        case .undefined, .composite:
            return .null  // never stored: transient, or stored as its elements
        }
        return statement.value(at: column)
    }
}

/// A UUID from its 16 bytes, as Core Data stores one; nil for any other length.
func uuid(bytes data: Data) -> UUID? {
    guard data.count == 16 else { return nil }
    let b = [UInt8](data)
    return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
}

/// The 16 bytes of a UUID, as Core Data stores one.
func bytes(of uuid: UUID) -> Data {
    withUnsafeBytes(of: uuid.uuid) { Data($0) }
}
