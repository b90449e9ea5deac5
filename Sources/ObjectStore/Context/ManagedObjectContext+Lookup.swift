import Foundation
import Predicates

extension ManagedObjectContext {
    /// The objects of `entity` (and its sub-entities) whose `attribute` is
    /// one of `values`, keyed by that value: one query per 500 values,
    /// pending inserts and changes of this context (and its parents)
    /// included, deleted objects left out.
    ///
    /// ```swift
    /// let existing = try context.objects(of: person, where: "personID", in: ids.map(Value.int))
    /// ```
    ///
    /// This is the uniquing lookup of imports and `findFirstOrCreate`.
    public func objects(of entity: EntityDescription, where attribute: String, in values: [Value]) throws -> [Value: ManagedObject] {
        guard let index = entity.attributeSlot(named: attribute) else {
            throw StoreError(.notFound, "entity \(entity.name) has no attribute '\(attribute)'")
        }
        let type = entity.attributes[index].type
        let wanted = Set(values.map { (try? type.coerce($0)) ?? $0 })
        var ids: [Value: ObjectID] = [:]
        var loaded: [ManagedObject] = []  // keeps fetched objects alive until returned
        if let parent {
            let found = try parent.performAndWait {
                try parent.objects(of: entity, where: attribute, in: Array(wanted)).mapValues(\.objectID)
            }
            ids = found
        } else {
            let found = try persistentStoreCoordinator!.stores(for: entity).flatMap {
                try $0.snapshots(of: entity, where: attribute, in: Array(wanted))
            }
            for snapshot in found {
                let object = self.object(with: snapshot.id)
                if object.isFault { fill(object, from: snapshot) }
                loaded.append(object)
                ids[snapshot.values[index]] = snapshot.id
            }
        }
        var result: [Value: ManagedObject] = [:]
        for (value, id) in ids {
            let object = self.object(with: id)
            // This context's own pending value wins over the parent's.
            if object.isDeleted || object.attributeValue(forKey: attribute) != value { continue }
            result[value] = object
        }
        withExtendedLifetime(loaded) {}
        for object in changed.values where !object.isDeleted && object.entity.isKind(of: entity) {
            let value = object.values[index]
            if wanted.contains(value) && result[value] == nil { result[value] = object }
        }
        return result
    }
}

extension SQLiteStore {
    /// Rows of `entity` whose `attribute` is one of `values`.
    package func snapshots(of entity: EntityDescription, where attribute: String, in values: [Value]) throws -> [Snapshot] {
        guard let column = mapping.column(for: attribute, of: entity) else { return [] }
        let root = entity.rootEntity
        let table = mapping.table(for: root)
        var entityFilter = ""
        if let entityColumn = table.entityColumn {
            let codes = entity.selfAndDescendants.map { String(mapping.entityCode($0)) }.joined(separator: ",")
            entityFilter = " AND t.\(entityColumn) IN (\(codes))"
        }
        // A table without rows has none to find: one probe instead of the
        // lists of values (an import into a new store asks for every key
        // it reads, batch after batch).
        let probe = "SELECT 1 FROM \(table.name) LIMIT 1"
        if try values.isEmpty || read({ try $0.scalar(probe) }) == nil { return [] }
        var result: [Snapshot] = []
        let nonNull = values.filter { !$0.isNull }
        for start in stride(from: 0, to: nonNull.count, by: 500) {
            let chunk = Array(nonNull[start..<Swift.min(start + 500, nonNull.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql = "SELECT \(selectList(for: root)) FROM \(table.name) t WHERE t.\(column.name) IN (\(marks))\(entityFilter)"
            result += try snapshots(sql: sql, bindings: chunk, root: root)
        }
        if values.contains(where: \.isNull) {
            let sql = "SELECT \(selectList(for: root)) FROM \(table.name) t WHERE t.\(column.name) IS NULL\(entityFilter)"
            result += try snapshots(sql: sql, bindings: [], root: root)
        }
        return result
    }
}
