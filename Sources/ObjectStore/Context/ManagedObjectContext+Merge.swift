import Foundation
import Predicates

// Merging a save with what changed elsewhere since the saving context read
// its objects: in the parent context (a sibling's save pushed there), or in
// the store (another context or process). Both go the same way, property by
// property, against the object's committed state (what this context last
// read) and the current one (what the parent or the store holds now).

extension ManagedObjectContext {
    // MARK: - Resolving conflicts

    /// Merges each conflicting object with `current`, the state its source
    /// holds now (nil when the object is gone there), by `mergePolicy`;
    /// records every object it changes in `checkpoint` first.
    ///
    /// Afterwards each object's committed state is `current`, so its
    /// changes are exactly what the merge keeps of this context's own.
    func resolve(_ conflicts: [(id: ObjectID, current: Snapshot?)], checkpoint: SaveCheckpoint) throws {
        for (id, current) in conflicts {
            guard let object = registered[id] else { continue }
            checkpoint.record(object)
            guard let current else {
                // Deleted elsewhere: the delete wins, under every policy
                // but `.error` (which refuses first). An update cannot
                // bring the row back, and this context's copy is gone.
                for holder in relatedObjectsNaming(object.objectID) { checkpoint.record(holder) }
                forgetDeletedElsewhere(object)
                continue
            }
            try merge(object, with: current)
        }
    }

    /// One object's merge with its source's current state (see `resolve`).
    func merge(_ object: ManagedObject, with current: Snapshot) throws {
        object.willAccessValues()
        let committed = object.committed ?? current
        let policy = mergePolicy
        if object.state == .deleted {
            if policy == .rollback {
                // The delete is this context's change: dropped.
                object.state = .clean
                changed.remove(object)
                adoptState(current, into: object)
            } else {
                object.committed = current
                object.version = current.version
            }
            return
        }
        let entity = object.entity
        for i in object.values.indices where !entity.attributes[i].isTransient {
            let mine = object.values[i] != committed.values[i]
            let theirs = current.values[i] != committed.values[i]
            if Self.takesTheirs(mine: mine, theirs: theirs, policy: policy) { object.values[i] = current.values[i] }
        }
        for (i, relationship) in entity.relationships.enumerated() where !relationship.isTransient {
            if relationship.isToOne {
                guard case .toOne(let id) = object.relationshipSlots[i] else { continue }
                let stored = current.toOneID(at: i)
                let mine = id != committed.toOneID(at: i)
                let theirs = stored != committed.toOneID(at: i)
                if Self.takesTheirs(mine: mine, theirs: theirs, policy: policy) {
                    object.relationshipSlots[i] = .toOne(stored)
                } else if id != stored {
                    // Kept against a different current value: written.
                    object.changedRelationshipSet.insert(i)
                }
            } else if parent == nil {
                try mergeStoredToMany(object, i, policy: policy)
            } else if policy == .rollback, let saved = committedToMany[ObjectIdentifier(object)]?[i] {
                // A parent merges the to-many when it takes the push.
                object.relationshipSlots[i] = .toMany(saved)
            }
        }
        if policy == .rollback {
            // Every relationship change of this object is dropped too.
            committedToMany[ObjectIdentifier(object)] = nil
            object.changedRelationshipSet.removeAll()
        }
        object.committed = current
        object.version = current.version
        if !object.hasChanges {
            object.state = .clean
            object.changedRelationshipSet.removeAll()
            changed.remove(object)
        }
        noteObjectChange(object)
    }

    /// Merges a changed to-many of a root context's object with the
    /// store's current contents: our additions and removals applied to
    /// theirs (the store's whole under `.rollback`, ours whole under
    /// `.overwrite`). The store's contents become the new base, so that a
    /// further round applies only our changes again.
    private func mergeStoredToMany(_ object: ManagedObject, _ i: Int, policy: MergePolicy) throws {
        let relationship = object.entity.relationships[i]
        let key = ObjectIdentifier(object)
        guard object.changedRelationshipSet.contains(i), case .toMany(let ours) = object.relationshipSlots[i] else { return }
        guard relationship.isManyToMany || relationship.isOrdered else {
            // Written through the destinations' foreign keys: nothing of
            // this side to merge; read again when next used.
            if policy == .rollback { object.relationshipSlots[i] = .toManyFault }
            return
        }
        let theirs = ObjectIDSet(try persistentStoreCoordinator!.backend(for: object.objectID)
            .destinations(of: relationship, from: object.objectID))
        switch policy {
        case .rollback:
            object.relationshipSlots[i] = .toMany(theirs)
        case .overwrite, .error:
            break
        case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .mergeOrRefuse:
            let merged = Self.mergeToMany(ours: ours, base: committedToMany[key]?[i], theirs: theirs,
                                          ordered: relationship.isOrdered)
            object.relationshipSlots[i] = .toMany(merged)
        }
        committedToMany[key, default: [:]][i] = theirs
    }

    /// Whether a property takes the current (their) value under `policy`:
    /// `mine` when this context changed it, `theirs` when it changed
    /// elsewhere.
    private static func takesTheirs(mine: Bool, theirs: Bool, policy: MergePolicy) -> Bool {
        switch policy {
        case .mergeByPropertyObjectTrump, .mergeOrRefuse: return !mine
        case .mergeByPropertyStoreTrump: return theirs || !mine
        case .rollback: return true
        case .overwrite, .error: return false
        }
    }

    /// Makes `object` hold `snapshot` as its saved state, with no changes.
    private func adoptState(_ snapshot: Snapshot, into object: ManagedObject) {
        object.values = snapshot.values
        for (i, relationship) in object.entity.relationships.enumerated() {
            object.relationshipSlots[i] = relationship.isToOne ? .toOne(snapshot.toOneID(at: i)) : .toManyFault
        }
        object.changedRelationshipSet.removeAll()
        committedToMany[ObjectIdentifier(object)] = nil
        object.committed = snapshot
        object.version = snapshot.version
    }

    /// Drops an object whose row was deleted elsewhere, with its pending
    /// changes, and takes it out of the relationships of the others.
    private func forgetDeletedElsewhere(_ object: ManagedObject) {
        let id = object.objectID
        for other in relatedObjectsNaming(id) where other !== object {
            for i in other.relationshipSlots.indices {
                switch other.relationshipSlots[i] {
                case .toOne(id?): other.relationshipSlots[i] = .toOne(nil)
                case .toMany(var ids) where ids.contains(id):
                    ids.remove(id)
                    other.relationshipSlots[i] = .toMany(ids)
                default: break
                }
            }
        }
        forget(object)
    }

    /// Drops an object from the context entirely.
    func forget(_ object: ManagedObject) {
        noteObjectChange(object)
        registered[object.objectID] = nil
        changed.remove(object)
        committedToMany[ObjectIdentifier(object)] = nil
        object.state = .clean
        object.setContext(nil)
    }

    func mergeConflictError(_ error: StoreConflictError) -> MergeConflictError {
        mergeConflictError(error.conflicts.map { ($0.id, $0.current) })
    }

    /// The error for conflicts a save refuses: each object, the keys
    /// whose current value differs from what this context last read, and
    /// the properties changed on both sides.
    func mergeConflictError(_ conflicts: [(id: ObjectID, current: Snapshot?)]) -> MergeConflictError {
        MergeConflictError(conflicts: conflicts.map { conflict($0.id, current: $0.current) }, isInParentContext: parent != nil)
    }

    /// The conflicts `.mergeOrRefuse` refuses among `conflicts`: objects
    /// this context changed whose row is gone, objects with a property
    /// changed on both sides to different values, and objects this context
    /// deletes that changed elsewhere. Empty when every change merges
    /// without loss (a delete of a row already gone included).
    func refusedConflicts(_ conflicts: [(id: ObjectID, current: Snapshot?)]) -> [MergeConflictError.Conflict] {
        conflicts.compactMap { id, current in
            guard let object = registered[id], object.state != .deleted || current != nil else { return nil }
            let found = conflict(id, current: current)
            // A change the properties do not show (a to-many's) is lost
            // with a deleted row too.
            let lost = !found.properties.isEmpty || (current == nil && object.hasChanges)
                || (found.isDeletedInContext && !found.keys.isEmpty)
            return lost ? found : nil
        }
    }

    /// Under `.mergeOrRefuse`, throws the conflicts that cannot merge
    /// without losing a change (see `refusedConflicts`).
    func refuseUnmergeable(_ conflicts: [(id: ObjectID, current: Snapshot?)]) throws {
        guard mergePolicy == .mergeOrRefuse else { return }
        let refused = refusedConflicts(conflicts)
        if !refused.isEmpty { throw MergeConflictError(conflicts: refused, isInParentContext: parent != nil) }
    }

    /// One object's conflict with `current`, its source's state now (nil
    /// when it is gone there).
    private func conflict(_ id: ObjectID, current: Snapshot?) -> MergeConflictError.Conflict {
        let object = registered[id]
        // Named by the key as it was read: this context may be changing it.
        let name = Self.name(of: id, values: object?.committed?.values ?? current?.values ?? object?.values)
        let deleted = object?.state == .deleted
        guard let object, let committed = object.committed else {
            return .init(objectID: id, objectName: name, keys: [], isDeletedInStore: current == nil,
                         isDeletedInContext: deleted, properties: [])
        }
        let entity = object.entity
        var properties: [MergeConflictError.PropertyConflict] = []
        if deleted, let current {
            // Deleting drops every value the other writer saved.
            for (i, attribute) in entity.attributes.enumerated()
            where !attribute.isTransient && current.values[i] != committed.values[i] {
                properties.append(.init(key: attribute.name, cached: committed.values[i], persisted: current.values[i],
                                        object: object.values[i]))
            }
        }
        for (i, attribute) in entity.attributes.enumerated() where !attribute.isTransient && !deleted {
            let mine = object.values[i]
            guard mine != committed.values[i] else { continue }
            if let current, current.values[i] == committed.values[i] || current.values[i] == mine { continue }
            properties.append(.init(key: attribute.name, cached: committed.values[i], persisted: current?.values[i], object: mine))
        }
        for (i, relationship) in entity.relationships.enumerated()
        where relationship.isToOne && !relationship.isTransient && !deleted {
            guard case .toOne(let mine) = object.relationshipSlots[i], mine != committed.toOneID(at: i) else { continue }
            let stored = current?.toOneID(at: i)
            if current != nil, stored == committed.toOneID(at: i) || stored == mine { continue }
            // A destination by its unique key where this context holds
            // its values, else by its row.
            func shown(_ id: ObjectID?) -> Value {
                id.map { id in
                    let held = registered[id].flatMap { $0.isFault ? $0.committed?.values : $0.values }
                    return .string(Self.name(of: id, values: held))
                } ?? .null
            }
            properties.append(.init(key: relationship.name, cached: shown(committed.toOneID(at: i)),
                                    persisted: current.map { _ in shown(stored) }, object: shown(mine)))
        }
        let keys = current.map { Self.differingKeys(of: entity, committed, $0) } ?? []
        return .init(objectID: id, objectName: name, keys: keys, isDeletedInStore: current == nil,
                     isDeletedInContext: deleted, properties: properties)
    }

    /// How messages name an object: `Person personID = 7` when its entity
    /// has a one-attribute uniqueness constraint whose value is known,
    /// else `Person p3` (`t3` while new).
    static func name(of id: ObjectID, values: [Value]?) -> String {
        let entity = id.entity
        var declaring: EntityDescription? = entity
        while let values, let e = declaring {
            for constraint in e.uniquenessConstraints where constraint.count == 1 {
                if let slot = entity.attributeSlot(named: constraint[0]), slot < values.count, !values[slot].isNull {
                    return "\(entity.name) \(constraint[0]) = \(ConflictText.literal(values[slot]))"
                }
            }
            declaring = e.parent
        }
        return "\(entity.name) \(id.isTemporaryID ? "t\(-id.primaryKey)" : "p\(id.primaryKey)")"
    }

    /// The stored attributes and to-ones whose values differ between two
    /// states of one object.
    static func differingKeys(of entity: EntityDescription, _ a: Snapshot, _ b: Snapshot) -> [String] {
        var keys: [String] = []
        for (i, attribute) in entity.attributes.enumerated() where !attribute.isTransient && a.values[i] != b.values[i] {
            keys.append(attribute.name)
        }
        for (i, relationship) in entity.relationships.enumerated()
        where relationship.isToOne && !relationship.isTransient && a.toOneID(at: i) != b.toOneID(at: i) {
            keys.append(relationship.name)
        }
        return keys
    }

    // MARK: - Pushing to a parent context

    /// Sends this context's changes into `parent`, on the parent's queue.
    ///
    /// Each changed or deleted object is first compared with the parent's
    /// current state of it: when that differs from what this context read
    /// (a sibling's save landed there meanwhile), the two are merged by
    /// `mergePolicy` as a store save merges (`.error` throws and changes
    /// nothing). Then only what this context changed goes up: the changed
    /// attributes and to-ones, and for to-manys the destinations added
    /// and removed, so that the parent's other changes stay. Objects
    /// changed on either side are recorded first in `mine` and `theirs`.
    func push(_ pending: inout PendingSave, into parent: ManagedObjectContext,
              mine: SaveCheckpoint, theirs: SaveCheckpoint) throws {
        var conflicts: [(id: ObjectID, current: Snapshot?)] = []
        for object in [pending.updated, pending.deleted].joined() {
            // Gone from the parent (deleted there, or its row deleted) is
            // a conflict too: the delete wins unless `.error` refuses.
            let current = try parent.snapshotForChild(object.objectID)
            if let current, let committed = object.committed, !Self.differs(object.entity, committed, current) { continue }
            conflicts.append((object.objectID, current))
        }
        if !conflicts.isEmpty {
            if mergePolicy == .error { throw mergeConflictError(conflicts) }
            try refuseUnmergeable(conflicts)
            try resolve(conflicts, checkpoint: mine)
            pending.refresh(from: self)
        }
        parent.undoManager?.disableUndoRegistration()
        defer { parent.undoManager?.enableUndoRegistration() }
        for object in pending.inserted {
            let target: ManagedObject
            if let existing = parent.registered[object.objectID] {
                target = existing
                theirs.record(target)
            } else {
                let type = parent.objectClass(for: object.entity)
                target = type.init(entity: object.entity, insertInto: nil)
                // Inserted once, in the child: no second awakeFromInsert.
                target.hasAwokenFromInsert = true
                target.objectID = object.objectID
                theirs.record(target)
                target.setContext(parent)
                target.state = .inserted
                parent.registered[object.objectID] = target
            }
            parent.markChanged(target)
            target.values = object.values
            for (i, relationship) in object.entity.relationships.enumerated() {
                if relationship.isToOne {
                    parent.setSlot(of: target, i, to: object.relationshipSlots[i])
                } else if case .toMany(let ids) = object.relationshipSlots[i] {
                    parent.setSlot(of: target, i, to: .toMany(ids))
                }
            }
        }
        for object in pending.updated {
            let target = parent.object(with: object.objectID)
            target.willAccessValues()
            theirs.record(target)
            if target.state == .clean { target.state = .updated }
            parent.markChanged(target)
            for i in object.changedAttributeIndexes { target.values[i] = object.values[i] }
            for i in object.changedRelationshipIndexes {
                if object.entity.relationships[i].isToOne {
                    parent.setSlot(of: target, i, to: object.relationshipSlots[i])
                } else if case .toMany(let ids) = object.relationshipSlots[i] {
                    let before = committedToMany[ObjectIdentifier(object)]?[i]
                    let merged = Self.mergeToMany(ours: ids, base: before, theirs: parent.toManyIDs(target, relationship: i),
                                                  ordered: object.entity.relationships[i].isOrdered)
                    parent.setSlot(of: target, i, to: .toMany(merged))
                }
            }
        }
        for object in pending.deleted {
            let id = object.objectID
            guard let target = parent.registered[id] ?? (id.isTemporaryID ? nil : parent.object(with: id)) else { continue }
            target.willAccessValues()
            theirs.record(target)
            if target.state == .inserted {
                parent.forget(target)
            } else {
                target.state = .deleted
                parent.markChanged(target)
            }
        }
    }

    /// Whether a stored attribute or to-one differs between two states of
    /// one object.
    static func differs(_ entity: EntityDescription, _ a: Snapshot, _ b: Snapshot) -> Bool {
        for (i, attribute) in entity.attributes.enumerated() where !attribute.isTransient && a.values[i] != b.values[i] {
            return true
        }
        for (i, relationship) in entity.relationships.enumerated()
        where relationship.isToOne && !relationship.isTransient && a.toOneID(at: i) != b.toOneID(at: i) {
            return true
        }
        return false
    }

    /// A to-many's contents after applying our changes (from `base` to
    /// `ours`) to `theirs`: what we added joins, what we removed leaves,
    /// and theirs keep the rest. Ordered: our order first, then theirs
    /// that we do not hold. Without a base, ours whole.
    static func mergeToMany(ours: ObjectIDSet, base: ObjectIDSet?, theirs: ObjectIDSet, ordered: Bool) -> ObjectIDSet {
        guard let base else { return ours }
        var result = ObjectIDSet()
        if ordered {
            for id in ours where theirs.contains(id) || !base.contains(id) { result.insert(id) }
            for id in theirs where !ours.contains(id) && !base.contains(id) { result.insert(id) }
        } else {
            for id in theirs where ours.contains(id) || !base.contains(id) { result.insert(id) }
            for id in ours where !base.contains(id) { result.insert(id) }
        }
        return result
    }

    /// Sets one relationship slot of `target`, tracking the change and
    /// keeping the contents to restore on rollback.
    private func setSlot(of target: ManagedObject, _ i: Int, to slot: RelationshipSlot) {
        switch slot {
        case .toOne(let id):
            guard case .toOne(let old) = target.relationshipSlots[i], old != id else { return }
            target.relationshipSlots[i] = .toOne(id)
        case .toMany:
            let key = ObjectIdentifier(target)
            if target.state != .inserted, committedToMany[key]?[i] == nil, case .toMany(let old) = target.relationshipSlots[i] {
                committedToMany[key, default: [:]][i] = old
            }
            target.relationshipSlots[i] = slot
        case .toManyFault:
            return
        }
        target.changedRelationshipSet.insert(i)
    }
}
