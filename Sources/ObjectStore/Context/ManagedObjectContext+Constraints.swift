import Foundation
import Predicates

// Uniqueness constraints at save time, as Core Data resolves them: a new
// object sharing a constraint's values with a stored row (or with another
// new object of the same save) is merged into that one — an upsert — under
// every policy but `.error`, which refuses the save with a
// `ConstraintConflictError`, and `.mergeOrRefuse`, which refuses it when
// the values are a stored row's (new objects of one save still merge).

extension ManagedObjectContext {
    /// Merges each new object of `error`'s conflicts into the object it
    /// collides with, recording every object it changes in `checkpoint`.
    ///
    /// The survivor of a conflict is the stored row (the object registered
    /// for it, or else the first new object, which becomes that row), an
    /// updated object that took the values, or else the first new object.
    /// The others merge into it by `mergePolicy`: their values where they
    /// differ from the model's defaults (`.mergeByPropertyObjectTrump`),
    /// all their values (`.overwrite`), or none (`.mergeByPropertyStoreTrump`,
    /// `.rollback`); their to-ones likewise; their to-manys always join.
    /// Whatever named a merged object names the survivor afterwards. Two
    /// stored rows sharing the values (an update moving into another row's
    /// values) cannot merge without deleting one: that throws.
    func resolve(_ error: StoreConstraintConflictError, checkpoint: SaveCheckpoint) throws {
        undoManager?.disableUndoRegistration()
        defer { undoManager?.enableUndoRegistration() }
        for conflict in error.conflicts {
            let objects = conflict.objects.compactMap { registered[$0] }
            let new = objects.filter(\.isInserted)
            let kept = objects.filter { !$0.isInserted }
            guard !new.isEmpty, kept.count + (conflict.existing == nil ? 0 : 1) <= 1 else {
                throw constraintConflictError(error)
            }
            var rest = new[...]
            let survivor: ManagedObject
            if let updated = kept.first {
                survivor = updated
            } else if let row = conflict.existing {
                if let registeredObject = registered[row.id] {
                    survivor = registeredObject
                } else if row.id.entity === new[0].entity {
                    survivor = rest.removeFirst()
                    becomeRow(survivor, row, checkpoint: checkpoint)
                } else {
                    survivor = object(with: row.id)
                }
            } else {
                survivor = rest.removeFirst()
            }
            checkpoint.record(survivor)
            survivor.willAccessValues()
            for object in rest { try absorb(object, into: survivor, checkpoint: checkpoint) }
        }
    }

    /// Makes the new object `object` stand for the stored row `row`: its
    /// ID, saved state and values become the row's; what named it names
    /// the row. Its own values are merged back in by `absorb`'s rules.
    private func becomeRow(_ object: ManagedObject, _ row: Snapshot, checkpoint: SaveCheckpoint) {
        let holders = relatedObjectsNaming(object.objectID)
        for holder in holders { checkpoint.record(holder) }
        checkpoint.record(object)
        let newValues = object.values
        let newSlots = object.relationshipSlots
        let temporary = object.objectID
        registered.remove(temporary, ifSameAs: ObjectIdentifier(object))
        object.objectID = row.id
        registered[row.id] = object
        absorbed.append((temporary, object))
        object.state = .updated
        object.committed = row
        object.version = row.version
        object.values = row.values
        for (i, relationship) in object.entity.relationships.enumerated() {
            object.relationshipSlots[i] = relationship.isToOne ? .toOne(row.toOneID(at: i)) : .toManyFault
        }
        object.changedRelationshipSet.removeAll()
        committedToMany[ObjectIdentifier(object)] = nil
        for holder in holders { renameInSlots(of: holder, temporary, to: row.id) }
        markChanged(object)
        take(newValues, newSlots, of: object.entity, into: object)
    }

    /// Merges the new object `object` into `survivor` and drops it.
    private func absorb(_ object: ManagedObject, into survivor: ManagedObject, checkpoint: SaveCheckpoint) throws {
        let holders = relatedObjectsNaming(object.objectID)
        for holder in holders { checkpoint.record(holder) }
        checkpoint.record(object)
        absorbed.append((object.objectID, survivor))
        for holder in holders where holder !== object { renameInSlots(of: holder, object.objectID, to: survivor.objectID) }
        let values = object.values
        let slots = object.relationshipSlots
        forget(object)
        if survivor.state == .clean { survivor.state = .updated }
        markChanged(survivor)
        take(values, slots, of: object.entity, into: survivor)
    }

    /// Gives `target` a merged object's values and relationships (held in
    /// `values` and `slots`, of `entity`) by the merge policy. Relationship
    /// changes go through the setters, so inverses follow.
    private func take(_ values: [Value], _ slots: [RelationshipSlot], of entity: EntityDescription, into target: ManagedObject) {
        // Under `.mergeOrRefuse` only new objects of one save merge here
        // (a stored row refuses first), as object-trump merges them.
        let policy = mergePolicy == .mergeOrRefuse ? .mergeByPropertyObjectTrump : mergePolicy
        let defaults = entity.defaultValues
        for (i, attribute) in target.entity.attributes.enumerated() where !attribute.isTransient {
            guard let j = entity.attributeSlot(named: attribute.name) else { continue }
            let takes = policy == .overwrite || (policy == .mergeByPropertyObjectTrump && values[j] != defaults[j])
            if takes && target.values[i] != values[j] { target.values[i] = values[j] }
        }
        for (i, relationship) in target.entity.relationships.enumerated() where !relationship.isTransient {
            guard let j = entity.relationshipSlot(named: relationship.name) else { continue }
            switch slots[j] {
            case .toOne(let destination):
                guard case .toOne(let current) = target.relationshipSlots[i], current != destination else { continue }
                let takes = policy == .overwrite || (policy == .mergeByPropertyObjectTrump && destination != nil)
                if takes {
                    setToOne(target, relationship: i, to: destination.map { object(with: $0) })
                } else if let destination {
                    // The destination named the merged object: it no
                    // longer holds the survivor.
                    detach(target, fromInverseOf: relationship, at: destination)
                }
            case .toMany(let ids):
                for id in ids where id != target.objectID {
                    addToMany(target, relationship: i, object(with: id), at: nil)
                }
            case .toManyFault:
                continue
            }
        }
    }

    /// Takes `object` out of the inverse of `relationship` at `destination`.
    private func detach(_ object: ManagedObject, fromInverseOf relationship: RelationshipDescription, at destination: ObjectID) {
        guard let inverse = relationship.resolvedInverse else { return }
        let other = self.object(with: destination)
        guard let index = other.entity.relationshipSlot(named: inverse.name) else { return }
        if inverse.isToMany {
            primitiveRemove(other, index, object.objectID)
        } else {
            other.willAccessValues()
            if case .toOne(object.objectID?) = other.relationshipSlots[index] { primitiveSetToOne(other, index, nil) }
        }
    }

    /// The live objects whose relationship slots hold `id`.
    func relatedObjectsNaming(_ id: ObjectID) -> [ManagedObject] {
        registered.values.filter { other in
            guard !other.isFault else { return false }
            return other.relationshipSlots.contains { slot in
                switch slot {
                case .toOne(let target): return target == id
                case .toMany(let ids): return ids.contains(id)
                case .toManyFault: return false
                }
            }
        }
    }

    /// Renames `old` to `new` in `object`'s relationship slots, and in
    /// the contents to restore on rollback.
    private func renameInSlots(of object: ManagedObject, _ old: ObjectID, to new: ObjectID) {
        for i in object.relationshipSlots.indices {
            switch object.relationshipSlots[i] {
            case .toOne(old?):
                object.relationshipSlots[i] = .toOne(new)
            case .toMany(var ids) where ids.contains(old):
                ids.replaceAll { $0 == old ? new : $0 }
                object.relationshipSlots[i] = .toMany(ids)
            default:
                break
            }
        }
        if var saved = committedToMany[ObjectIdentifier(object)] {
            for (i, ids) in saved where ids.contains(old) {
                var renamed = ids
                renamed.replaceAll { $0 == old ? new : $0 }
                saved[i] = renamed
            }
            committedToMany[ObjectIdentifier(object)] = saved
        }
    }

    /// The permanent ID each merged new object took: its survivor's, once
    /// the save gave the survivor its own. For the save's notification,
    /// so that other contexts holding a merged object rename it too.
    func absorbedIDs(after permanentIDs: PermanentIDs) -> PermanentIDs {
        var result = PermanentIDs()
        for (temporary, survivor) in absorbed {
            let id = permanentIDs[survivor.objectID] ?? survivor.objectID
            guard !id.isTemporaryID else { continue }
            result.append(PermanentIDs(temporaries: [temporary], keys: [id.primaryKey], store: id.storeNumber))
        }
        return result
    }

    func constraintConflictError(_ error: StoreConstraintConflictError) -> ConstraintConflictError {
        ConstraintConflictError(conflicts: error.conflicts.map { conflict in
            ConstraintConflictError.Conflict(
                entity: conflict.entity.name, constraint: conflict.constraint, values: conflict.values,
                objectIDs: conflict.objects, existingObjectID: conflict.existing?.id)
        })
    }
}
