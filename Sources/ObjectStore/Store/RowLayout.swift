import CSQLite
import Foundation
import Predicates

/// Where one entity's slots sit in its table's select list, and how to
/// decode them: computed once per entity, so decoding a row is a loop over
/// positions, never a lookup by name.
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

    /// The layout of every entity of `model`. Column positions are worked
    /// out once per table, not once per entity: a hierarchy n levels deep
    /// has one table of n levels' columns.
    package static func all(model: ManagedObjectModel, mapping: SchemaMapping) -> [ObjectIdentifier: RowLayout] {
        var positions: [ObjectIdentifier: (names: [SQLIdentifier], position: [SQLIdentifier: Int32])] = [:]
        var layouts: [ObjectIdentifier: RowLayout] = [:]
        for entity in model.entities {
            let table = mapping.table(for: entity)
            let key = ObjectIdentifier(table)
            if positions[key] == nil {
                var position: [SQLIdentifier: Int32] = [:]
                for (i, column) in table.columns.enumerated() { position[column.name] = Int32(i + 3) }
                positions[key] = (table.columns.map(\.name), position)
            }
            let (names, position) = positions[key]!
            layouts[ObjectIdentifier(entity)] = RowLayout(entity: entity, mapping: mapping, columnNames: names, position: position)
        }
        return layouts
    }

    private init(entity: EntityDescription, mapping: SchemaMapping, columnNames: [SQLIdentifier], position: [SQLIdentifier: Int32]) {
        self.entity = entity
        self.columnNames = columnNames
        attributes = entity.attributes.map { attribute in
            let column = mapping.column(for: attribute.name, of: entity)
            return AttributeSlot(column: column.flatMap { position[$0.name] }, type: attribute.type,
                                 isExternal: mapping.layout == .coreData && attribute.allowsExternalBinaryDataStorage)
        }
        toOne = entity.relationships.map { relationship in
            guard relationship.isToOne, !relationship.isTransient,
                  let columns = mapping.toOne(relationship.name, of: entity),
                  let destination = relationship.destination else { return nil }
            return ToOneSlot(foreignKey: position[columns.foreignKey]!,
                             entityColumn: columns.entity.flatMap { position[$0] },
                             destination: destination)
        }
    }

    func decode(_ statement: Statement, pk: Int64, store: SQLiteStore) -> Snapshot {
        var values: [Value] = []
        values.reserveCapacity(attributes.count)
        for slot in attributes {
            guard let column = slot.column, !statement.isNull(at: column) else {
                values.append(.null)
                continue
            }
            if slot.isExternal {
                values.append(ExternalBinaryData.decode(statement.data(at: column), store: store))
            } else {
                values.append(Self.decode(statement, column: column, type: slot.type))
            }
        }
        // Slots as a fault's object holds them: to-manys not loaded. An
        // entity without relationships shares the empty list.
        var links = entity.faultSlots
        for (i, slot) in toOne.enumerated() {
            guard let slot, !statement.isNull(at: slot.foreignKey) else { continue }
            let code = slot.entityColumn.flatMap { statement.isNull(at: $0) ? nil : statement.int64(at: $0) }
            links[i] = .toOne(store.objectID(pk: statement.int64(at: slot.foreignKey), entityCode: code,
                                             root: slot.destination))
        }
        return Snapshot(
            id: ObjectID(entity: entity, primaryKey: pk, store: store.storeNumber),
            version: statement.int64(at: 2), values: values, links: links)
    }

    @inline(__always)
    static func decode(_ statement: Statement, column: Int32, type: AttributeType) -> Value {
        switch type {
        case .integer16, .integer32, .integer64: return .int(statement.int64(at: column))
        case .boolean: return .bool(statement.int64(at: column) != 0)
        case .double, .float: return .double(statement.double(at: column))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: statement.double(at: column)))
        case .string: return .string(statement.string(at: column))
        case .decimal: return Decimal(string: statement.string(at: column)).map(Value.decimal) ?? .null
        case .uuid:
            // Core Data keeps a UUID's 16 bytes; mrq its text.
            if sqlite3_column_type(statement.handle, column) == SQLITE_BLOB {
                return uuid(bytes: statement.data(at: column)).map(Value.uuid) ?? .null
            }
            return UUID(uuidString: statement.string(at: column)).map(Value.uuid) ?? .null
        case .uri: return URL(string: statement.string(at: column)).map(Value.url) ?? .null
        case .binary, .transformable: return .data(statement.data(at: column))
        case .objectID: return .string(statement.string(at: column))
        case .undefined, .composite: return .null  // never stored: transient, or stored as its elements
        }
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

/// Core Data's external binary storage (`allowsExternalBinaryDataStorage`):
/// the column's first byte says where the value is. 1: the data follows
/// in the column. 2: the name of a file (a UUID, NUL-terminated) in the
/// folder `.<store name>_SUPPORT/_EXTERNAL_DATA` beside the store.
enum ExternalBinaryData {
    static let inline: UInt8 = 1
    static let external: UInt8 = 2

    /// The folder holding a store's external values.
    static func folder(ofStoreAt path: String) -> URL {
        let url = URL(fileURLWithPath: path)
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA")
    }

    static func decode(_ stored: Data, store: SQLiteStore) -> Value {
        guard let marker = stored.first else { return .data(stored) }
        switch marker {
        case inline:
            return .data(stored.dropFirst())
        case external:
            let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            // Only a plain file name: a store's bytes never point elsewhere.
            guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else { return .null }
            let file = folder(ofStoreAt: store.path).appendingPathComponent(name)
            return (try? Data(contentsOf: file)).map(Value.data) ?? .null
        default:
            return .data(stored)
        }
    }

    /// What the column holds for `value`: always inline (Core Data reads
    /// inline values whatever their size).
    static func encode(_ value: Value) -> Value {
        guard case .data(let data) = value else { return value }
        var stored = Data([inline])
        stored.append(data)
        return .data(stored)
    }
}
