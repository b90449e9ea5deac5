import CSQLite
import Foundation
import Predicates

/// Object IDs stored compactly: 8 bytes a row for the primary key, plus 2
/// for the entity when the hierarchy has several. A million IDs take 8 MB
/// instead of 32, which keeps batched fetches of big tables small.
package struct ObjectIDList {
    private(set) var primaryKeys: [Int64] = []
    /// Index into `entities` per row; empty when every row has `entities[0]`.
    private var entityIndexes: [UInt16] = []
    private var entities: [EntityDescription] = []
    /// The store of every saved row (a temporary ID has none).
    private let store: StoreNumber
    /// The IDs as they are, when saved rows come from several stores.
    private var mixed: [ObjectID]?

    init(store: StoreNumber) {
        self.store = store
    }

    package init(_ ids: [ObjectID]) {
        let store = ids.first { !$0.isTemporaryID }?.storeNumber ?? .none
        self.store = store
        if ids.contains(where: { !$0.isTemporaryID && $0.storeNumber != store }) {
            mixed = ids
            primaryKeys = ids.map(\.primaryKey)
            return
        }
        primaryKeys.reserveCapacity(ids.count)
        for id in ids { append(id.primaryKey, entity: id.entity) }
    }

    var count: Int { primaryKeys.count }

    mutating func append(_ primaryKey: Int64, entity: EntityDescription) {
        if mixed != nil {
            mixed?.append(ObjectID(entity: entity, primaryKey: primaryKey, store: primaryKey < 0 ? .none : store))
            primaryKeys.append(primaryKey)
            return
        }
        var index = entities.firstIndex { $0 === entity }
        // More entities than an index holds (a model read from a file may
        // have any number): keep the IDs as they are from here on.
        if index == nil && entities.count > Int(UInt16.max) {
            mixed = all + [ObjectID(entity: entity, primaryKey: primaryKey, store: primaryKey < 0 ? .none : store)]
            primaryKeys.append(primaryKey)
            return
        }
        if index == nil {
            entities.append(entity)
            index = entities.count - 1
        }
        if index != 0 && entityIndexes.isEmpty {
            entityIndexes = Array(repeating: 0, count: primaryKeys.count)
        }
        if !entityIndexes.isEmpty || index != 0 { entityIndexes.append(UInt16(index!)) }
        primaryKeys.append(primaryKey)
    }

    subscript(position: Int) -> ObjectID {
        if let mixed { return mixed[position] }
        let primaryKey = primaryKeys[position]
        let entity = entityIndexes.isEmpty ? entities[0] : entities[Int(entityIndexes[position])]
        return ObjectID(entity: entity, primaryKey: primaryKey, store: primaryKey < 0 ? .none : store)
    }

    var all: [ObjectID] { (0..<count).map { self[$0] } }
}

extension SQLiteStore {
    /// Object IDs of a query whose first two columns are `_pk` and `_ent`,
    /// compactly.
    package func objectIDList(sql: String, bindings: [Value], root: EntityDescription) throws -> ObjectIDList {
        try read { database in
            let statement = try database.cachedStatement(sql)
            try statement.bind(bindings)
            var list = ObjectIDList(store: storeNumber)
            var byCode: [Int64: EntityDescription] = [:]
            let table = mapping.table(for: root)
            while try statement.step() {
                let pk = try RowLayout.key(statement, at: 0) { "a row of \(table.name.unquoted): \(table.primaryKey.unquoted)" }
                var entity = root
                if !statement.isNull(at: 1) {
                    let code = statement.int64(at: 1)
                    if let known = byCode[code], sqlite3_column_type(statement.handle, 1) == SQLITE_INTEGER {
                        entity = known
                    } else {
                        // Checked once per number: it must be `root` or below.
                        entity = try RowLayout.entity(statement.value(at: 1), kindOf: root, mapping: mapping, model: model) {
                            "row \(pk) of \(table.name.unquoted), \(table.entityColumn?.unquoted ?? "the entity column")"
                        }
                        byCode[code] = entity
                    }
                }
                list.append(pk, entity: entity)
            }
            statement.reset()
            return list
        }
    }
}
