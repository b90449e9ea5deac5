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
