import Foundation
import Predicates

// Entry points for bulk importers (ActiveRecord's `Importer`) that work
// from a per-entity plan: properties by index instead of by name, and
// uniquing lookups that do not rescan every pending change per batch.

extension ManagedObjectContext {
    /// Inserts a new object of `entity`, of the class registered for it.
    package func insertObject(of entity: EntityDescription) -> ManagedObject {
        objectClass(for: entity).init(entity: entity, insertInto: self)
    }

    /// Whether `insertObject(of:)` makes a plain `ManagedObject` for
    /// `entity`, running no subclass's `init` or `awakeFromInsert`: no
    /// code of the user's.
    package func makesPlainObjects(of entity: EntityDescription) -> Bool {
        objectClass(for: entity) == ManagedObject.self
    }

    /// Whether a saved object of `entity` (or its sub-entities) may exist
    /// for `savedObjects` to find: false only when this context reads its
    /// stores directly and they hold none — one row's look, so that an
    /// import into an empty store asks once rather than once per batch.
    package func mayHaveSavedObjects(of entity: EntityDescription) throws -> Bool {
        guard parent == nil else { return true }
        var request = FetchRequest(entityName: entity.name)
        request.includesPendingChanges = false
        request.fetchLimit = 1
        return try !fetchObjectIDs(request).isEmpty
    }

    /// The saved objects of `entity` (and its sub-entities) whose
    /// `attribute` is one of `values`: what `objects(of:where:in:)` finds
    /// in the store or the parent context, without looking at this
    /// context's pending inserts and changes (see `pendingObjects`).
    /// An object whose pending value differs, or that is deleted, is left
    /// out, as there.
    package func savedObjects(of entity: EntityDescription, where attribute: String, in values: [Value]) throws -> [Value: ManagedObject] {
        guard let index = entity.attributeSlot(named: attribute) else {
            throw StoreError(.notFound, "entity \(entity.name) has no attribute '\(attribute)'")
        }
        let type = entity.attributes[index].type
        // Repeats are harmless in the query's IN list: no set to build.
        let wanted = values.map { type.accepts($0) ? $0 : (try? type.coerce($0)) ?? $0 }
        var result: [Value: ManagedObject] = [:]
        if let parent {
            let ids = try parent.performAndWait {
                try parent.objects(of: entity, where: attribute, in: wanted).mapValues(\.objectID)
            }
            for (value, id) in ids {
                let object = self.object(with: id)
                if object.isDeleted || object.attributeValue(forKey: attribute) != value { continue }
                result[value] = object
            }
            return result
        }
        for store in persistentStoreCoordinator!.stores(for: entity) {
            for snapshot in try store.snapshots(of: entity, where: attribute, in: wanted) {
                let object = self.object(with: snapshot.id)
                if object.isFault { fill(object, from: snapshot) }
                let value = snapshot.values[index]
                // This context's own pending value wins over the store's.
                if object.isDeleted || object.values[index] != value { continue }
                result[value] = object
            }
        }
        return result
    }

    /// This context's pending (inserted or changed, not deleted) objects of
    /// `entity` and its sub-entities, by their `attribute` value: one pass
    /// over the changes, for an importer to remember instead of asking
    /// `objects(of:where:in:)` per batch.
    package func pendingObjects(of entity: EntityDescription, where attribute: String) -> [Value: ManagedObject] {
        guard let index = entity.attributeSlot(named: attribute) else { return [:] }
        var result: [Value: ManagedObject] = [:]
        for object in changed.values where !object.isDeleted && object.entity.isKind(of: entity) {
            let value = object.values[index]
            if !value.isNull, result[value] == nil { result[value] = object }
        }
        return result
    }
}

extension ManagedObject {
    /// Sets the attribute at `index` in `entity.attributes`, as
    /// `setAttributeValue(_:forKey:)` does, without looking up its name.
    package func setAttributeValue(_ value: consuming Value, at index: Int) {
        setAttribute(at: index, to: value)
    }

    /// Whether the object takes values with no word to anyone: it is new,
    /// its insert is on record already, and no undo manager or change
    /// observer wants each change (its changed attributes are worked out
    /// from its values at save). An importer then stores values with
    /// `storeSilently`.
    package var takesValuesSilently: Bool {
        state == .inserted && !isFault && changeIsOnRecord
    }

    /// Stores `value`, coerced to the attribute's type, at `index` in
    /// `entity.attributes`, with no change tracking: for an object that
    /// `takesValuesSilently`, where `setAttributeValue(_:at:)` would
    /// record nothing either.
    @inline(__always)
    package func storeSilently(_ value: consuming Value, at index: Int) {
        let type = entity.attributeTypes[index]
        if !type.accepts(value), let converted = try? type.coerce(value) { value = converted }
        values[index] = value
    }
}

extension ManagedObjectContext {
    /// Sets `object`'s to-one relationship at `index` in
    /// `entity.relationships`; the inverse follows, as with
    /// `setObject(_:forKey:)`. For a caller that holds the context: no load
    /// of the object's weak reference to it.
    package func setToOne(_ object: ManagedObject, relationshipAt index: Int, to destination: ManagedObject?) {
        precondition(object.entity.relationships[index].isToOne, "not a to-one relationship")
        precondition(object.belongs(to: self), "the object belongs to another context")
        setToOne(object, relationship: index, to: destination)
    }
}
