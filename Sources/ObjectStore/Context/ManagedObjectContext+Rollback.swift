import Foundation
import Predicates

extension ManagedObjectContext {
    /// Drops every pending change: inserted objects leave, changed and
    /// deleted ones return to their last saved state. Clears the undo stack.
    public func rollback() {
        for object in changed.values {
            noteObjectChange(object)
            switch object.state {
            case .inserted:
                forget(object)
            case .updated, .deleted, .clean:
                restoreCommitted(object)
            }
        }
        changed.removeAll()
        committedToMany.removeAll()
        undoManager?.removeAllActions()
        renamedIDs = PermanentIDs()
        processPendingChanges()
    }

    private func restoreCommitted(_ object: ManagedObject) {
        object.state = .clean
        if let committed = object.committed {
            object.values = committed.values
            for (i, relationship) in object.entity.relationships.enumerated() where relationship.isToOne {
                object.relationshipSlots[i] = .toOne(committed.toOneID(at: i))
            }
        }
        if let saved = committedToMany[ObjectIdentifier(object)] {
            for (i, ids) in saved { object.relationshipSlots[i] = .toMany(ids) }
        }
        object.changedRelationshipSet.removeAll()
    }

    /// Forgets every object: the context is as new. Objects it held must not
    /// be used afterwards.
    public func reset() {
        for object in registered.values {
            object.setContext(nil)
            object.state = .clean
        }
        registered.removeAll()
        forgetCheckedDestinations()
        changed.removeAll()
        committedToMany.removeAll()
        undoManager?.removeAllActions()
    }

    /// Re-reads an object from its source. With `mergeChanges` false the
    /// object turns into a fault and loses its unsaved changes; with true,
    /// its unsaved changes are kept on top of the fresh values.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        precondition(object.managedObjectContext === self, "the object belongs to another context")
        guard !object.objectID.isTemporaryID else { return }
        goneIDs.remove(object.objectID)
        presentIDs.remove(object.objectID)
        noteObjectChange(object)
        if !mergeChanges || !object.hasChanges {
            // Out of the change set even when clean (an undone change
            // leaves it there): the set would keep serving the old values.
            changed.remove(object)
            committedToMany[ObjectIdentifier(object)] = nil
            object.state = .clean
            object.changedRelationshipSet.removeAll()
            object.isFault = true
            object.committed = nil
            object.values = object.entity.attributes.map { _ in .null }
            object.relationshipSlots = object.entity.relationships.map { $0.isToMany ? .toManyFault : .toOne(nil) }
            return
        }
        let localAttributes = object.changedAttributeIndexes
        let localValues = localAttributes.map { object.values[$0] }
        let localRelationships = object.changedRelationshipIndexes.map { ($0, object.relationshipSlots[$0]) }
        guard let snapshot = try? snapshotFromSource(object.objectID) else { return }
        object.values = snapshot.values
        for (i, relationship) in object.entity.relationships.enumerated() {
            object.relationshipSlots[i] = relationship.isToOne ? .toOne(snapshot.toOneID(at: i)) : .toManyFault
        }
        object.committed = snapshot
        object.version = snapshot.version
        for (i, value) in zip(localAttributes, localValues) { object.values[i] = value }
        // Only the relationships changed in the end stay marked changed.
        object.changedRelationshipSet.removeAll()
        var before = committedToMany[ObjectIdentifier(object)] ?? [:]
        for (i, slot) in localRelationships {
            object.relationshipSlots[i] = slot
            object.changedRelationshipSet.insert(i)
        }
        before = before.filter { i, _ in localRelationships.contains { $0.0 == i } }
        committedToMany[ObjectIdentifier(object)] = before.isEmpty ? nil : before
    }
}
