import Foundation
import Predicates

extension ManagedObjectContext {
    // MARK: - Attribute changes

    /// Registers an undo action on `object` that runs only while the
    /// object is still this context's: one dropped since (deleted by a
    /// merge, detached by a save) is left alone, so that undo never brings
    /// back or edits what the context no longer holds.
    ///
    /// Callers on every change check `recordsUndo` first: the action
    /// closure is allocated before the call, undo manager or not.
    func registerUndo(on object: ManagedObject, _ action: @escaping (ManagedObjectContext) -> Void) {
        undoManager?.registerUndo { [weak self, object] in
            guard let self, object.belongs(to: self) else { return }
            action(self)
        }
    }

    /// Whether changes are recorded one by one for undo: an undo manager,
    /// and no `undoingAsOneAction` under way.
    @inline(__always)
    var recordsUndo: Bool { bulkUndo == nil && undoManager != nil }

    func didChange(_ object: ManagedObject, attribute index: Int, from old: Value) {
        bulkUndo?.record(object, attribute: index, was: old)
        if object.state == .clean { object.state = .updated }
        markChanged(object)
        guard recordsUndo else { return }
        registerUndo(on: object) { _ in object.setAttribute(at: index, to: old) }
    }

    /// Whether `id` still names an object: this context holds it (even
    /// deleted, not yet saved), or its source has its row. Undo relinks
    /// only such objects: one deleted and saved since stays gone.
    func stillExists(_ id: ObjectID) -> Bool {
        if registered[id] != nil { return true }
        if id.isTemporaryID { return false }
        return (try? snapshotFromSource(id)) != nil
    }

    // MARK: - Primitive relationship changes (one side, with undo)

    /// Loads a to-many relationship if it is a fault and returns its IDs.
    func toManyIDs(_ object: ManagedObject, relationship index: Int) -> ObjectIDSet {
        object.willAccessValues()
        switch object.relationshipSlots[index] {
        case .toMany(let ids): return ids
        case .toManyFault:
            let ids = ObjectIDSet(loadToMany(object, relationship: index))
            object.relationshipSlots[index] = .toMany(ids)
            return ids
        case .toOne:
            preconditionFailure("not a to-many relationship")
        }
    }

    private func loadToMany(_ object: ManagedObject, relationship index: Int) -> [ObjectID] {
        let relationship = object.entity.relationships[index]
        if object.objectID.isTemporaryID && parent == nil { return [] }
        do {
            if let parent {
                return try parent.performAndWait { () throws -> [ObjectID] in
                    let source = parent.object(with: object.objectID)
                    guard parent.registered[object.objectID] != nil else { return [] }
                    return parent.toManyIDs(source, relationship: index).ids
                }
            }
            return try persistentStoreCoordinator!.backend(for: object.objectID).destinations(of: relationship, from: object.objectID)
        } catch {
            MRLog.error("cannot load \(object.entity.name).\(relationship.name): \(error)")
            return []
        }
    }

    private func touch(_ object: ManagedObject, relationship index: Int) {
        bulkUndo?.record(object)
        if object.state == .clean { object.state = .updated }
        markChanged(object)
        // The contents to restore on rollback; an inserted object has none
        // (rolling back drops it).
        let key = ObjectIdentifier(object)
        if object.state != .inserted, object.entity.relationships[index].isToMany, committedToMany[key]?[index] == nil,
           case .toMany(let ids) = object.relationshipSlots[index] {
            committedToMany[key, default: [:]][index] = ids
        }
        object.changedRelationshipSet.insert(index)
    }

    func primitiveSetToOne(_ object: ManagedObject, _ index: Int, _ id: ObjectID?) {
        object.willAccessValues()
        guard case .toOne(let old) = object.relationshipSlots[index], old != id else { return }
        touch(object, relationship: index)
        object.relationshipSlots[index] = .toOne(id)
        guard recordsUndo else { return }
        registerUndo(on: object) { context in
            let old = old.map(context.currentID)
            guard old.map(context.stillExists) ?? true else { return }
            context.primitiveSetToOne(object, index, old)
        }
    }

    func primitiveAdd(_ object: ManagedObject, _ index: Int, _ id: ObjectID, at position: Int?) {
        var ids = toManyIDs(object, relationship: index)
        if position == nil, object.state == .inserted, undoManager == nil || bulkUndo?.isMade(object) == true {
            // An inserted object keeps no committed contents and nothing
            // records the add (or undo takes the object out whole): one
            // insert both checks and adds.
            object.relationshipSlots[index] = .toManyFault  // see below
            let added = ids.insert(id)
            object.relationshipSlots[index] = .toMany(ids)
            if added { touch(object, relationship: index) }
            return
        }
        guard !ids.contains(id) else { return }
        touch(object, relationship: index)
        // Let go of the slot's copy first, so `ids` grows in place instead
        // of being copied whole on every add.
        object.relationshipSlots[index] = .toManyFault
        if let position { ids.insert(id, at: position) } else { ids.insert(id) }
        object.relationshipSlots[index] = .toMany(ids)
        guard recordsUndo else { return }
        registerUndo(on: object) { $0.primitiveRemove(object, index, $0.currentID(id)) }
    }

    func primitiveRemove(_ object: ManagedObject, _ index: Int, _ id: ObjectID) {
        var ids = toManyIDs(object, relationship: index)
        guard let position = ids.ids.firstIndex(of: id) else { return }
        touch(object, relationship: index)
        object.relationshipSlots[index] = .toManyFault  // see primitiveAdd
        ids.remove(id)
        object.relationshipSlots[index] = .toMany(ids)
        guard recordsUndo else { return }
        registerUndo(on: object) { context in
            let id = context.currentID(id)
            guard context.stillExists(id) else { return }
            context.primitiveAdd(object, index, id, at: position)
        }
    }

    // MARK: - Relationship changes with inverses

    func setToOne(_ object: ManagedObject, relationship index: Int, to destination: ManagedObject?) {
        precondition(destination == nil || destination!.belongs(to: self),
                     "the destination belongs to another context")
        object.willAccessValues()
        let relationship = object.entity.relationships[index]
        guard case .toOne(let oldID) = object.relationshipSlots[index], oldID != destination?.objectID else { return }
        if let inverse = relationship.resolvedInverse {
            // A gone destination's inverse is left alone: its row is not
            // there to update.
            if let oldID, let old = self.destination(oldID, of: object, relationship: index) {
                if let inverseIndex = old.entity.relationshipSlot(named: inverse.name) {
                    if inverse.isToMany {
                        primitiveRemove(old, inverseIndex, object.objectID)
                    } else {
                        primitiveSetToOne(old, inverseIndex, nil)
                    }
                }
            }
            if let destination, let inverseIndex = destination.entity.relationshipSlot(named: inverse.name) {
                if inverse.isToMany {
                    primitiveAdd(destination, inverseIndex, object.objectID, at: nil)
                } else {
                    // One-to-one: the destination leaves its previous partner.
                    destination.willAccessValues()
                    if case .toOne(let previous?) = destination.relationshipSlots[inverseIndex], previous != object.objectID {
                        primitiveSetToOne(self.object(with: previous), index, nil)
                    }
                    primitiveSetToOne(destination, inverseIndex, object.objectID)
                }
            }
        }
        primitiveSetToOne(object, index, destination?.objectID)
    }

    func addToMany(_ object: ManagedObject, relationship index: Int, _ destination: ManagedObject, at position: Int?) {
        precondition(destination.belongs(to: self), "the destination belongs to another context")
        let relationship = object.entity.relationships[index]
        if toManyIDs(object, relationship: index).contains(destination.objectID) {
            guard let position else { return }
            primitiveRemove(object, index, destination.objectID)
            primitiveAdd(object, index, destination.objectID, at: position)
            return
        }
        if let inverse = relationship.inverse, let inverseIndex = destination.entity.relationshipSlot(named: inverse.name) {
            if inverse.isToMany {
                primitiveAdd(destination, inverseIndex, object.objectID, at: nil)
            } else {
                // The destination leaves its previous owner.
                destination.willAccessValues()
                if case .toOne(let previous?) = destination.relationshipSlots[inverseIndex], previous != object.objectID {
                    primitiveRemove(self.object(with: previous), index, destination.objectID)
                }
                primitiveSetToOne(destination, inverseIndex, object.objectID)
            }
        }
        primitiveAdd(object, index, destination.objectID, at: position)
    }

    func removeFromMany(_ object: ManagedObject, relationship index: Int, _ destination: ManagedObject) {
        let relationship = object.entity.relationships[index]
        guard toManyIDs(object, relationship: index).contains(destination.objectID) else { return }
        if let inverse = relationship.inverse, let inverseIndex = destination.entity.relationshipSlot(named: inverse.name) {
            if inverse.isToMany {
                primitiveRemove(destination, inverseIndex, object.objectID)
            } else {
                primitiveSetToOne(destination, inverseIndex, nil)
            }
        }
        primitiveRemove(object, index, destination.objectID)
    }

    // MARK: - Delete

    /// Marks `object` deleted and runs its delete rules now: nullify
    /// clears the inverse side, cascade deletes the destinations; deny is
    /// checked when saving. An object inserted since the last save leaves
    /// the context, and every inverse pointing at it is cleared whatever
    /// the rule.
    public func delete(_ object: ManagedObject) {
        // A deleted insert has left its context: deleting it again does nothing.
        if object.state == .deleted && object.managedObjectContext == nil { return }
        precondition(object.managedObjectContext === self, "the object belongs to another context")
        guard object.state != .deleted else { return }
        object.willAccessValues()
        object.prepareForDeletion()
        bulkUndo?.record(object)
        let previous = object.state
        object.state = .deleted
        markChanged(object)
        if bulkUndo == nil { registerUndo(on: object) { $0.undoDelete(object, previous: previous) } }
        for (index, relationship) in object.entity.relationships.enumerated() where !relationship.isTransient {
            switch relationship.deleteRule {
            case .deny, .noAction:
                // A deleted insert leaves the context (below) and never
                // reaches the store: nothing may keep pointing at it.
                guard previous == .inserted else { continue }
                for destination in destinations(of: object, relationship: index) {
                    nullifyInverse(of: object, relationship: relationship, destination: destination)
                }
            case .nullify:
                for destination in destinations(of: object, relationship: index) {
                    nullifyInverse(of: object, relationship: relationship, destination: destination)
                }
            case .cascade:
                for destination in destinations(of: object, relationship: index) {
                    nullifyInverse(of: object, relationship: relationship, destination: destination)
                    delete(destination)
                }
            }
        }
        // A deleted insert was never saved: it leaves the context entirely.
        if previous == .inserted {
            forgetInsertedDeleted(object)
        }
    }

    private func forgetInsertedDeleted(_ object: ManagedObject) {
        registered[object.objectID] = nil
        changed.remove(object)
        committedToMany[ObjectIdentifier(object)] = nil
        // As in Core Data, the object's context reads nil from here; an
        // undo puts it back (a bulk undo by its checkpoint's record).
        object.setContext(nil)
        guard bulkUndo == nil else { return }
        // Not `registerUndo(on:)`: the object is in no context now, and
        // this undo (the group's first, being its last) is what brings it
        // back, before the others of the delete run.
        undoManager?.registerUndo { [weak self, object] in
            guard let self, object.managedObjectContext == nil else { return }
            object.setContext(self)
            self.registered[object.objectID] = object
            self.renameSavedIDs(inRelationshipsOf: object)
            self.markChanged(object)
        }
    }

    private func undoDelete(_ object: ManagedObject, previous: ManagedObject.State) {
        guard object.state == .deleted else { return }
        object.state = previous
        registerUndo(on: object) { $0.delete(object) }
    }

    func destinations(of object: ManagedObject, relationship index: Int) -> [ManagedObject] {
        switch object.relationshipSlots[index] {
        case .toOne(let id):
            // A gone destination has no inverse to clear, nor row to delete.
            return id.flatMap { destination($0, of: object, relationship: index) }.map { [$0] } ?? []
        case .toMany, .toManyFault: return toManyIDs(object, relationship: index).ids.map { self.object(with: $0) }
        }
    }

    private func nullifyInverse(of object: ManagedObject, relationship: RelationshipDescription, destination: ManagedObject) {
        guard let inverse = relationship.inverse, let inverseIndex = destination.entity.relationshipSlot(named: inverse.name) else { return }
        if inverse.isToMany {
            primitiveRemove(destination, inverseIndex, object.objectID)
        } else {
            destination.willAccessValues()
            if case .toOne(object.objectID?) = destination.relationshipSlots[inverseIndex] {
                primitiveSetToOne(destination, inverseIndex, nil)
            }
        }
    }
}
