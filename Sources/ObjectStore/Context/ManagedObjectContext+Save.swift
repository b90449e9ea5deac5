import Foundation
import Predicates

extension ManagedObjectContext {
    /// Writes every pending change to the parent context, or to the store in
    /// one transaction. On failure nothing is written and the context is as
    /// it was.
    ///
    /// Validates every inserted, changed and deleted object first and
    /// throws one `ValidationError` holding all failures. Rows or parent
    /// objects that changed since this context read them are merged by
    /// `mergePolicy`, property by property (see `MergePolicy`); with
    /// `.error` the save throws `MergeConflictError` instead, and with
    /// `.mergeOrRefuse` when a change would be lost. A uniqueness
    /// constraint violated by the save is a `ConstraintConflictError`
    /// under `.error` (and under `.mergeOrRefuse` when a stored row holds
    /// the values), and merges the new object into the existing one under
    /// the other policies.
    public func save() throws {
        var finishers: [() -> Void] = []
        try saveLevel(upToStore: false, finishers: &finishers)
    }

    /// Saves as `save()` does, calling `progress` as the store writes the
    /// objects, with how many are written and how many there are in all
    /// (every few hundred, and at the end). Throw from `progress` to stop:
    /// the save then fails as any failed save does, with nothing written
    /// and the context as it was. A child context writes no store:
    /// `progress` is not called.
    ///
    /// ```swift
    /// try context.save { written, total in
    ///     print("\(written) / \(total)")
    ///     try checkForCancel()
    /// }
    /// ```
    public func save(progress: @escaping (_ written: Int, _ total: Int) throws -> Void) throws {
        saveProgress = progress
        defer { saveProgress = nil }
        try save()
    }

    /// Saves this context, then each parent up to the store, as one save:
    /// if any level fails (a validation, a conflict, a constraint, the
    /// disk), every context of the chain is left exactly as it was, so
    /// the next save works. Returns whether this context had changes.
    ///
    /// ```swift
    /// try child.performAndWait { try child.saveUpToStore() }
    /// ```
    ///
    /// Run it on this context's queue; it waits for each parent's queue in
    /// turn, holding the ones below.
    @discardableResult
    public func saveUpToStore() throws -> Bool {
        processPendingChanges()
        let hadChanges = hasChanges
        var finishers: [() -> Void] = []
        try saveLevel(upToStore: true, finishers: &finishers)
        return hadChanges
    }

    /// One level of a save, on this context's queue: this context's
    /// changes go into its parent (and on up with `upToStore`) or into the
    /// store. What every saved level does once all have succeeded (mark
    /// objects saved, notify) waits in `finishers`, lowest level first;
    /// the last level runs them all, while every queue of the chain is
    /// still held. A level that fails restores its own checkpoints and
    /// rethrows, and each level below restores its own in turn.
    private func saveLevel(upToStore: Bool, finishers: inout [() -> Void]) throws {
        processPendingChanges()
        guard hasChanges else {
            // A save with nothing to write wrote nothing: the count of an
            // earlier one must not read as this one's.
            lastSaveObjectCount = 0
            if upToStore, let parent {
                try parent.performAndWait { try parent.saveLevel(upToStore: true, finishers: &finishers) }
            } else {
                Self.finish(&finishers)
            }
            return
        }
        var pending = try preparePendingChanges()
        if let parent {
            let mine = SaveCheckpoint(self)
            try parent.performAndWait {
                // The parent's checkpoint is taken, and dropped, on its own
                // queue: it holds the parent's objects, and an object
                // released for the last time off its context's queue could
                // die while that queue looks it up.
                let theirs = SaveCheckpoint(parent)
                do {
                    try push(&pending, into: parent, mine: mine, theirs: theirs)
                } catch {
                    theirs.restore()
                    mine.restore()
                    throw error
                }
                finishers.append { [self] in
                    var nothingWritten = StoreChanges()
                    var (inserted, updated) = pending.takeLists()
                    let note = didSave(inserted: &inserted, updated: &updated, deleted: pending.deleted,
                                       permanentIDs: PermanentIDs(), written: &nothingWritten, hooked: pending.hooked)
                    parent.performAndWait { parent.childDidSave(note) }
                }
                guard upToStore else {
                    Self.finish(&finishers)
                    return
                }
                do {
                    try parent.saveLevel(upToStore: true, finishers: &finishers)
                } catch {
                    theirs.restore()
                    mine.restore()
                    throw error
                }
            }
            return
        }
        let checkpoint = SaveCheckpoint(self)
        var written: StoreChanges
        var permanentIDs: PermanentIDs
        absorbed = []
        do {
            (permanentIDs, written) = try writeToStore(&pending, checkpoint: checkpoint)
        } catch {
            checkpoint.restore()
            absorbed = []
            throw error
        }
        permanentIDs.append(absorbedIDs(after: permanentIDs))
        absorbed = []
        finishers.append { [self] in
            var (inserted, updated) = pending.takeLists()
            let note = didSave(inserted: &inserted, updated: &updated, deleted: pending.deleted,
                               permanentIDs: permanentIDs, written: &written, hooked: pending.hooked)
            post(note)
        }
        Self.finish(&finishers)
    }

    /// Runs what every level of a save does once all succeeded, then
    /// drops the closures while the top level's queue is held: they hold
    /// every level's objects, which must not be released for the last
    /// time on another context's thread (see `ObjectRegistry`).
    private static func finish(_ finishers: inout [() -> Void]) {
        for finish in finishers { finish() }
        finishers.removeAll()
    }

    /// A save's objects, as `pendingChanges` lists them, after their
    /// `willSave` hooks ran; `checkedFirst` when they were validated too.
    struct PendingSave {
        var inserted: [ManagedObject]
        var updated: [ManagedObject]
        var deleted: [ManagedObject]
        /// Some object is of a subclass, whose hooks must run.
        var hooked: Bool
        /// Validated already; otherwise each object is checked in the pass
        /// that snapshots it for the store.
        var checkedFirst: Bool

        /// Moves the inserted and updated lists out, leaving them empty:
        /// `didSave` lets go of objects only the list holds, which a
        /// second reference to the list would prevent.
        mutating func takeLists() -> ([ManagedObject], [ManagedObject]) {
            defer { inserted = []; updated = [] }
            return (inserted, updated)
        }

        /// The lists again, after a merge changed or dropped objects.
        mutating func refresh(from context: ManagedObjectContext) {
            let pending = context.pendingChanges()
            inserted = pending.inserted
            updated = pending.updated
            deleted = pending.deleted
        }
    }

    private func preparePendingChanges() throws -> PendingSave {
        let (inserted, updated, deleted, hooked) = pendingChanges()
        // Plain objects have no hooks: a pass over a large save's objects,
        // long out of the cache, is saved. The lists are joined lazily: a
        // concatenated copy costs a retain and a release of each object.
        if hooked {
            for object in [inserted, updated, deleted].joined() { object.willSave() }
        }
        // Hooks may change other objects than their own, and a parent
        // takes the changes before any store write: then every object is
        // checked first. Otherwise each is checked in the pass that
        // snapshots it for the store, one pass over objects long out of
        // the cache instead of two.
        let checkedFirst = hooked || parent != nil
        if checkedFirst { try validate(inserted: inserted, updated: updated, deleted: deleted) }
        return PendingSave(inserted: inserted, updated: updated, deleted: deleted, hooked: hooked, checkedFirst: checkedFirst)
    }

    /// Writes a root context's save to the store, merging conflicts by
    /// `mergePolicy` and trying again; returns the permanent IDs and what
    /// was written. Objects a merge changes are recorded in `checkpoint`
    /// first.
    private func writeToStore(_ pending: inout PendingSave, checkpoint: SaveCheckpoint) throws -> (PermanentIDs, StoreChanges) {
        var validation = Validation()
        let checkedFirst = pending.checkedFirst
        var changes = storeChanges(inserted: pending.inserted, updated: pending.updated, deleted: pending.deleted) { object in
            if !checkedFirst { validate(object, &validation) }
        }
        if !checkedFirst {
            validateDeleted(pending.deleted, &validation)
            try validation.throwIfFailed()
        }
        let coordinator = persistentStoreCoordinator!
        // Each round merges what changed since the last: another writer
        // would have to commit between two of them to need another.
        var rounds = 0
        while true {
            if let saveProgress {
                let total = changes.objectCount
                var written = 0
                changes.progress = { rows in
                    written += rows
                    try saveProgress(written, total)
                }
            }
            do {
                return (try coordinator.save(changes), changes)
            } catch let conflict as StoreConflictError {
                rounds += 1
                guard mergePolicy != .error, rounds < Self.mergeRounds else { throw mergeConflictError(conflict) }
                let conflicts = conflict.conflicts.map { ($0.id, $0.current) }
                try refuseUnmergeable(conflicts)
                try resolve(conflicts, checkpoint: checkpoint)
            } catch let conflict as StoreConstraintConflictError {
                rounds += 1
                guard mergePolicy != .error, rounds < Self.mergeRounds,
                      mergePolicy != .mergeOrRefuse || !conflict.conflicts.contains(where: { $0.existing != nil })
                else { throw constraintConflictError(conflict) }
                try resolve(conflict, checkpoint: checkpoint)
            }
            pending.refresh(from: self)
            changes = storeChanges(inserted: pending.inserted, updated: pending.updated, deleted: pending.deleted)
        }
    }

    /// How many times a save merges and tries again before giving up with
    /// the conflict.
    static let mergeRounds = 16
    // MARK: - Validation

    func validate(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]) throws {
        var validation = Validation()
        for object in [inserted, updated].joined() { validate(object, &validation) }
        validateDeleted(deleted, &validation)
        try validation.throwIfFailed()
    }

    /// Failures gathered object by object, and the attribute checks of the
    /// entity last seen (objects come in runs of one entity).
    struct Validation {
        var failures: [ValidationError.Failure] = []
        var checks: (entity: ObjectIdentifier, plan: [AttributeCheck])?

        func throwIfFailed() throws {
            if !failures.isEmpty { throw ValidationError(failures: failures) }
        }
    }

    /// Checks one inserted or changed object, adding its failures.
    func validate(_ object: ManagedObject, _ validation: inout Validation) {
        if validation.checks?.entity != ObjectIdentifier(object.entity) {
            validation.checks = (ObjectIdentifier(object.entity), object.entity.attributes.map(AttributeCheck.init))
        }
        // Almost every object passes: appending an empty list still cost
        // more than a hundred instructions each (mrq-bench a. insert).
        let failures = validationFailures(of: object, checks: validation.checks!.plan)
        if !failures.isEmpty { validation.failures += failures }
        let keyFailures = keyValidationFailures(of: object)
        if !keyFailures.isEmpty { validation.failures += keyFailures }
        do {
            if object.isInserted { try object.validateForInsert() } else { try object.validateForUpdate() }
        } catch let error as ValidationError {
            validation.failures += error.failures
        } catch {
            validation.failures.append(.init(objectID: object.objectID, key: nil, message: model.localizedErrorString("\(error)")))
        }
    }

    /// Checks the deleted objects: delete rules that deny, and their hook.
    func validateDeleted(_ deleted: [ManagedObject], _ validation: inout Validation) {
        for object in deleted {
            for (index, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
                let remaining = destinations(of: object, relationship: index).filter { !$0.isDeleted }
                if !remaining.isEmpty {
                    validation.failures.append(.init(
                        objectID: object.objectID, key: relationship.name,
                        message: model.denyMessage(entity: object.entity, relationship: relationship.name, count: remaining.count)))
                }
            }
            do { try object.validateForDelete() } catch let error as ValidationError {
                validation.failures += error.failures
            } catch {
                validation.failures.append(.init(objectID: object.objectID, key: nil, message: model.localizedErrorString("\(error)")))
            }
        }
    }

    /// The model's rules for one object: attribute values and relationship
    /// counts.
    /// `checks` are the entity's attributes as `AttributeCheck`s.
    func validationFailures(of object: ManagedObject, checks: [AttributeCheck]) -> [ValidationError.Failure] {
        var failures: [ValidationError.Failure] = []
        let entity = object.entity
        let values = object.values
        for i in checks.indices where !checks[i].isTransient {
            // Most attributes have no bounds and most values are fine:
            // decided here without copying the value or the description.
            if !checks[i].hasRules {
                if case .null = values[i] {
                    if checks[i].isOptional { continue }
                } else if checks[i].type.accepts(values[i]) {
                    continue
                }
            }
            let attribute = entity.attributes[i]
            for issue in attribute.validate(values[i], in: entity) {
                failures.append(.init(objectID: object.objectID, key: attribute.name, message: issue.message))
            }
        }
        for (i, relationship) in entity.relationships.enumerated() where !relationship.isTransient {
            let count: Int
            switch object.relationshipSlots[i] {
            case .toOne(let id): count = id == nil ? 0 : 1
            case .toMany(let ids): count = ids.count
            case .toManyFault:
                // Neither bound to check: any count is fine.
                if relationship.minCount == 0 && relationship.maxCount == 0 { continue }
                count = toManyIDs(object, relationship: i).count
            }
            for issue in relationship.validateCount(count, in: entity) {
                failures.append(.init(objectID: object.objectID, key: relationship.name, message: issue.message))
            }
        }
        return failures
    }

    // MARK: - Writing to the store

    /// What the store must write for these objects; `check` sees each
    /// inserted and updated object first.
    func storeChanges(inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject],
                      check: (ManagedObject) -> Void = { _ in }) -> StoreChanges {
        var changes = StoreChanges()
        changes.inserted.reserveCapacity(inserted.count)
        // The to-manys stored in join tables, per entity: objects come in
        // runs of one entity, so the last one's list is usually the one.
        var joined: (entity: ObjectIdentifier, indexes: [Int])?
        for object in inserted {
            check(object)
            var snapshot = currentSnapshot(of: object)
            snapshot.version = 1
            changes.inserted.append(snapshot)
            let entity = object.entity
            if joined?.entity != ObjectIdentifier(entity) {
                joined = (ObjectIdentifier(entity), entity.relationships.indices.filter { i in
                    let relationship = entity.relationships[i]
                    return relationship.isToMany && !relationship.isTransient && (relationship.isManyToMany || relationship.isOrdered)
                })
            }
            for i in joined!.indexes {
                if case .toMany(let ids) = object.relationshipSlots[i], ids.count > 0 {
                    changes.toMany.append(.init(source: object.objectID, relationship: entity.relationships[i], destinations: ids.ids))
                }
            }
        }
        for object in updated {
            check(object)
            var snapshot = currentSnapshot(of: object)
            snapshot.version = object.version + 1
            let changedRelationships = object.changedRelationshipIndexes
            changes.updated.append(.init(
                snapshot: snapshot, expectedVersion: object.version,
                changedAttributes: object.changedAttributeIndexes,
                changedToOne: changedRelationships.filter { object.entity.relationships[$0].isToOne }))
            for i in changedRelationships {
                let relationship = object.entity.relationships[i]
                guard relationship.isToMany, !relationship.isTransient,
                      relationship.isManyToMany || relationship.isOrdered,
                      case .toMany(let ids) = object.relationshipSlots[i] else { continue }
                changes.toMany.append(.init(source: object.objectID, relationship: relationship, destinations: ids.ids))
            }
        }
        for object in deleted where !object.objectID.isTemporaryID {
            changes.deleted.append((object.objectID, object.version))
        }
        return changes
    }

    // MARK: - After a save

    /// Marks everything saved, swaps temporary IDs for permanent ones and
    /// builds the notification.
    ///
    /// One pass over the saved objects does it all, object by object: a
    /// large save's objects are long out of the cache, and each further
    /// pass fetched them again. `written` is what went to the store, let go
    /// of object by object. `hooked`: some object is of a subclass, whose
    /// `didSave` must run.
    ///
    /// The pass takes each object out of `inserted` and `updated` and out
    /// of the change set. An object nobody else holds is let go of there
    /// and then, while at hand: it would be freed when the save returns
    /// anyway, by one more pass over objects long out of the cache. Its
    /// slots are left as they are (no one can read them), unless the
    /// notification carries its saved state.
    private func didSave(inserted: inout [ManagedObject], updated: inout [ManagedObject], deleted: [ManagedObject],
                         permanentIDs: PermanentIDs, written: inout StoreChanges, hooked: Bool) -> ContextDidSaveNotification {
        var snapshots: [ObjectID: Snapshot] = [:]
        var toMany: [ObjectID: [Int: [ObjectID]]] = [:]
        let isRoot = parent == nil
        rememberRenames(permanentIDs)
        lastSaveObjectCount = inserted.count + updated.count + deleted.count
        // The saved state travels in the notification only when someone
        // can merge it: an observer (it may call `mergeChanges`), a child
        // that merges automatically, or, through the parent, the parent's
        // observers and the children beside this one that merge. A child
        // that does not merge needs only the permanent IDs, which the
        // notification always carries.
        let wantsPayload = !observers.isEmpty || children.contains { $0.automaticallyMergesChangesFromParent }
            || parent.map { $0.hearsChildSave(from: self) } == true
        // A snapshot per saved object: room made once, not by doubling.
        if wantsPayload { snapshots.reserveCapacity(inserted.count + updated.count) }
        // Nobody hears the notification's IDs either (the one posted to
        // NotificationCenter carries none): an object let go of here
        // needs no permanent ID, and no list of IDs is built.
        let listsIDs = wantsPayload || hooked
        func settle(_ object: ManagedObject, unheld: Bool) {
            // Only the saved objects can point at the new objects here: any
            // other object that gained one as a destination changed, and
            // was saved with it.
            if unheld {
                if listsIDs, let permanent = permanentIDs[object.objectID] { object.objectID = permanent }
            } else if object.objectID.isTemporaryID, let permanent = permanentIDs[object.objectID] {
                adopt(object.objectID, permanent)
            }
            if !permanentIDs.isEmpty && (wantsPayload || !unheld) {
                replaceTemporaryIDs(permanentIDs, inRelationshipsOf: object)
            }
            if isRoot { object.version = object.state == .inserted ? 1 : object.version + 1 }
            object.state = .clean
            object.changedRelationshipSet.removeAll()
            // A snapshot shares the object's values and slots: no copy. When
            // the notification carries none, it is built where it is kept:
            // a local one assigned and then let go of cost a retain and a
            // release of each of its references (mrq-bench a. insert).
            if unheld {
                object.setContext(nil)
                guard wantsPayload else { return }
            } else if !wantsPayload {
                object.committed = currentSnapshot(of: object)
                return
            }
            let snapshot = currentSnapshot(of: object)
            if !unheld { object.committed = snapshot }
            snapshots[object.objectID] = snapshot
            for (i, slot) in object.relationshipSlots.enumerated() {
                if case .toMany(let ids) = slot { toMany[object.objectID, default: [:]][i] = ids.ids }
            }
        }
        /// Whether `object` is held by nothing but the identity map and
        /// this pass; if so it is out of the map (unheld), else a new one
        /// is filed under its permanent ID.
        ///
        /// The map holds its objects strongly, so the object is taken out
        /// of it first and then asked whether this pass holds the only
        /// reference left: asked with the map's reference still there,
        /// no object was ever unheld, and every new one was filed again
        /// under its permanent ID (two lookups under the map's lock) and
        /// given a committed snapshot nobody could read, to be dropped
        /// as unused later (mrq-bench a. insert, d. import). An updated
        /// object keeps its ID and its place in the map.
        func takeOutIfUnheld(_ object: inout ManagedObject) -> Bool {
            guard object.objectID.isTemporaryID else { return false }
            // Taken out as still in use (this pass holds it): the map
            // hands its reference back rather than keeping it for release
            // after its lock, which made an array for each object.
            if let removed = registered.removeValue(forKey: object.objectID), removed !== object {
                registered[removed.objectID] = removed
            }
            if isKnownUniquelyReferenced(&object) { return true }
            if let permanent = permanentIDs[object.objectID] { object.objectID = permanent }
            registered[object.objectID] = object
            return false
        }
        // Objects whose `didSave` runs once all are settled.
        var kept: [ManagedObject] = []
        /// Settles `objects`, last first, emptying the list; returns their
        /// IDs in list order (none when `listsIDs` is false). `drop(k)`
        /// lets go of what was written for the object at `k`;
        /// `prefetch(k)` may start loading what the objects before it will
        /// need.
        func settleAll(_ objects: inout [ManagedObject], drop: (Int) -> Void, prefetch: (Int) -> Void = { _ in }) -> [ObjectID] {
            var ids: [ObjectID] = []
            if listsIDs { ids.reserveCapacity(objects.count) }
            while var object = objects.popLast() {
                prefetch(objects.count)
                drop(objects.count)
                changed.remove(object)
                // Asked first: `settle`'s first argument would otherwise
                // hold the object while the question is asked.
                let unheld = !hooked && takeOutIfUnheld(&object)
                settle(object, unheld: unheld)
                if listsIDs { ids.append(object.objectID) }
                if hooked { kept.append(object) }
            }
            ids.reverse()
            return ids
        }
        // What was written shares each object's values and slots: it lets
        // go of them first, so that the slots change in place. (`written`
        // lists the objects in this order; after a merge conflict's retry
        // the updates may differ, which costs a copy, not correctness.)
        // An object let go of frees its values, and its long strings lose
        // a reference: they are loaded ahead, last first as settled.
        let insertedIDs = settleAll(&inserted) { k in
            if k < written.inserted.count { written.dropInserted(at: k) }
        } prefetch: { k in
            written.prefetchInserted(at: k - 16, .list)
            written.prefetchInserted(at: k - 8, .strings)
        }
        let keptInserted = kept.count
        let updatedIDs = settleAll(&updated) { k in
            if k < written.updated.count { written.dropUpdated(at: k) }
        }
        for object in deleted {
            registered[object.objectID] = nil
        }
        // What is left changed nothing in the end (a value set back, a
        // relationship change undone): it is clean again, with nothing
        // marked touched that could come back later.
        changed.forEach { object in
            if object.state == .updated { object.state = .clean }
            object.changedRelationshipSet.removeAll()
        }
        changed.removeAll()
        committedToMany.removeAll()
        if hooked {
            // In save order: the inserted objects, then the updated ones.
            for object in kept[..<keptInserted].reversed() { object.didSave() }
            for object in kept[keptInserted...].reversed() { object.didSave() }
        }
        // Deleted objects still answer isDeleted in didSave, as in Core Data.
        for object in deleted {
            object.didSave()
            object.setContext(nil)
            object.state = .clean
        }
        return ContextDidSaveNotification(
            insertedObjectIDs: insertedIDs, updatedObjectIDs: updatedIDs,
            deletedObjectIDs: listsIDs ? deleted.map(\.objectID) : [], permanentIDs: permanentIDs,
            snapshots: snapshots, toMany: toMany, context: self, isStoreSave: isRoot)
    }

    /// Replaces temporary IDs by permanent ones everywhere in this context:
    /// in the identity map, and in the relationships of every registered
    /// object.
    func adoptPermanentIDs(_ permanentIDs: PermanentIDs) {
        rememberRenames(permanentIDs)
        for (temporary, permanent) in permanentIDs { adopt(temporary, permanent) }
        for object in registered.values {
            replaceTemporaryIDs(permanentIDs, inRelationshipsOf: object)
            replaceTemporaryIDs(permanentIDs, inCommittedStateOf: object)
        }
    }

    /// Keeps what each temporary ID became while undo can still name it
    /// (see `currentID`): the save's own table, not a copy of every pair.
    func rememberRenames(_ permanentIDs: PermanentIDs) {
        guard undoManager != nil else { return }
        renamedIDs.append(permanentIDs)
    }

    /// The ID `id` stands for now: an undo action registered before a save
    /// names a new object by its temporary ID.
    func currentID(_ id: ObjectID) -> ObjectID {
        id.isTemporaryID ? renamedIDs[id] ?? id : id
    }

    /// Renames the temporary IDs a save replaced in the relationships of
    /// `object`, which undo brings back: it was out of the context when
    /// the save renamed the others.
    func renameSavedIDs(inRelationshipsOf object: ManagedObject) {
        guard !renamedIDs.isEmpty, !object.isFault else { return }
        for i in object.relationshipSlots.indices {
            switch object.relationshipSlots[i] {
            case .toOne(let id?) where id.isTemporaryID:
                object.relationshipSlots[i] = .toOne(currentID(id))
            case .toMany(var ids) where ids.contains(where: { $0.isTemporaryID && renamedIDs[$0] != nil }):
                ids.replaceAll(currentID)
                object.relationshipSlots[i] = .toMany(ids)
            default:
                break
            }
        }
    }

    /// Rewrites temporary IDs in what an object last read from its parent
    /// (to-one destinations, to-many contents to roll back to): otherwise
    /// the parent's state, renamed, would look changed against it.
    private func replaceTemporaryIDs(_ permanentIDs: PermanentIDs, inCommittedStateOf object: ManagedObject) {
        if var committed = object.committed {
            var renamed = false
            for i in committed.links.indices {
                if case .toOne(let id?) = committed.links[i], id.isTemporaryID, let permanent = permanentIDs[id] {
                    committed.links[i] = .toOne(permanent)
                    renamed = true
                }
            }
            if renamed { object.committed = committed }
        }
        let key = ObjectIdentifier(object)
        if var saved = committedToMany[key] {
            for (i, ids) in saved where ids.contains(where: { $0.isTemporaryID && permanentIDs[$0] != nil }) {
                var renamed = ids
                renamed.replaceAll { permanentIDs[$0] ?? $0 }
                saved[i] = renamed
            }
            committedToMany[key] = saved
        }
    }

    private func adopt(_ temporary: ObjectID, _ permanent: ObjectID) {
        guard let object = registered.removeValue(forKey: temporary) else { return }
        object.objectID = permanent
        registered[permanent] = object
    }

    /// Rewrites each relationship slot in place: iterating over a copy of
    /// the slots would make every write copy the whole array.
    private func replaceTemporaryIDs(_ permanentIDs: PermanentIDs, inRelationshipsOf object: ManagedObject) {
        guard !object.isFault else { return }
        for i in object.relationshipSlots.indices {
            switch object.relationshipSlots[i] {
            case .toOne(let id?):
                if id.isTemporaryID, let permanent = permanentIDs[id] { object.relationshipSlots[i] = .toOne(permanent) }
            case .toMany(var ids):
                guard ids.contains(where: { $0.isTemporaryID && permanentIDs[$0] != nil }) else { continue }
                // The slot lets go of the set first, so that it changes
                // in place.
                object.relationshipSlots[i] = .toManyFault
                ids.replaceAll { permanentIDs[$0] ?? $0 }
                object.relationshipSlots[i] = .toMany(ids)
            default:
                break
            }
        }
    }

    func post(_ note: ContextDidSaveNotification) {
        let observers = Array(self.observers.values)
        for observer in observers { observer(note) }
        for child in children {
            child.perform(andWaitIfConfined: true) {
                if !note.permanentIDs.isEmpty { child.adoptPermanentIDs(note.permanentIDs) }
                if child.automaticallyMergesChangesFromParent { child.mergeChanges(fromContextDidSave: note) }
            }
        }
        NotificationCenter.default.post(name: ContextDidSaveNotification.name, object: self)
    }

    /// Whether a save `child` pushed here reaches anyone who reads its
    /// saved state (see `childDidSave`): an observer of this context, or
    /// another child that merges automatically.
    func hearsChildSave(from child: ManagedObjectContext) -> Bool {
        !observers.isEmpty || children.contains { $0 !== child && $0.automaticallyMergesChangesFromParent }
    }

    /// A child pushed its changes here: pass the news on to this context's
    /// other children that merge automatically.
    func childDidSave(_ note: ContextDidSaveNotification) {
        for child in children where child !== note.context {
            guard child.automaticallyMergesChangesFromParent else { continue }
            child.perform(andWaitIfConfined: true) { child.mergeChanges(fromContextDidSave: note) }
        }
        let observers = Array(self.observers.values)
        for observer in observers { observer(note) }
    }

    /// Runs `body` now when confined or already on the queue, else later
    /// on the queue: a save never waits for another context's queue, so a
    /// main-queue child cannot deadlock its parent's save.
    func perform(andWaitIfConfined: Bool, _ body: @escaping () -> Void) {
        if queue == nil || isOnQueue {
            body()
        } else {
            nonisolated(unsafe) let work = body
            queue!.async { work() }
        }
    }

    // MARK: - Observing and merging

    /// Calls `observer` after every save of this context (and every save a
    /// child pushes into it). Keep the token to remove the observer.
    @discardableResult
    public func addDidSaveObserver(_ observer: @escaping @Sendable (ContextDidSaveNotification) -> Void) -> UUID {
        let token = UUID()
        performAndWait { observers[token] = observer }
        return token
    }

    /// Stops calling the observer that `addDidSaveObserver(_:)` returned
    /// `token` for; an unknown token does nothing.
    public func removeDidSaveObserver(_ token: UUID) {
        performAndWait { observers[token] = nil }
    }

    /// Brings another context's save into this one: updated objects take
    /// the saved values (keeping this context's own unsaved changes on
    /// top), deleted objects leave, and temporary IDs become permanent.
    public func mergeChanges(fromContextDidSave note: ContextDidSaveNotification) {
        performAndWait {
            if !note.permanentIDs.isEmpty { adoptPermanentIDs(note.permanentIDs) }
            for id in note.updatedObjectIDs + note.insertedObjectIDs {
                let id = note.permanentIDs[id] ?? id
                guard let object = registered[id], let snapshot = note.snapshots[id] else { continue }
                // Notifications of saves on other queues can arrive out of
                // order: never go back to an older row version.
                if note.isStoreSave && snapshot.version < object.version { continue }
                if object.isFault {
                    // A fault holding its row takes the newer one.
                    if object.committed != nil { object.committed = snapshot; object.version = snapshot.version }
                    continue
                }
                merge(snapshot, toMany: note.toMany[id] ?? [:], into: object)
            }
            for id in note.deletedObjectIDs {
                guard let object = registered[id] else { continue }
                forget(object)
            }
            noteUnregisteredChanges((note.insertedObjectIDs + note.updatedObjectIDs).map { note.permanentIDs[$0] ?? $0 },
                                    snapshots: note.isStoreSave ? note.snapshots : [:])
            processPendingChanges()
        }
    }

    private func merge(_ snapshot: Snapshot, toMany: [Int: [ObjectID]], into object: ManagedObject) {
        noteObjectChange(object)
        let local = object.changedAttributeIndexes
        let localRelationships = Set(object.changedRelationshipIndexes)
        var values = snapshot.values
        for i in local { values[i] = object.values[i] }
        object.values = values
        let key = ObjectIdentifier(object)
        for (i, relationship) in object.entity.relationships.enumerated() where !localRelationships.contains(i) {
            if relationship.isToOne {
                object.relationshipSlots[i] = .toOne(snapshot.toOneID(at: i))
            } else if let ids = toMany[i] {
                object.relationshipSlots[i] = .toMany(ObjectIDSet(ids))
            } else if case .toMany = object.relationshipSlots[i], parent == nil {
                object.relationshipSlots[i] = .toManyFault
            }
            // Touched here but not changed in the end: the saved contents
            // replace it, with nothing left marked.
            object.changedRelationshipSet.remove(i)
            committedToMany[key]?[i] = nil
        }
        object.committed = snapshot
        object.version = snapshot.version
        if object.state == .updated && !object.hasChanges { changed.remove(object); object.state = .clean }
    }
}

/// What validating one attribute needs to know, read once per entity per
/// save rather than from the description for every object.
struct AttributeCheck {
    let isTransient: Bool
    let isOptional: Bool
    let type: AttributeType
    /// Bounds, a pattern or predicates: the full check must run.
    let hasRules: Bool

    init(_ attribute: AttributeDescription) {
        isTransient = attribute.isTransient
        isOptional = attribute.isOptional
        type = attribute.type
        hasRules = attribute.minValue != nil || attribute.maxValue != nil || attribute.regularExpression != nil
            || !attribute.validationPredicates.isEmpty
    }
}
