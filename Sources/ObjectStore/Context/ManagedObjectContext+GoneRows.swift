import Foundation

/// To-one keys naming rows that are gone.
///
/// A row deleted behind mrq's back (from `sqlite3` or `psql`, or missing
/// from a Core Data store) leaves the keys that named it. Such a key reads
/// as nil: the relationship has no destination, in `object(forKey:)`,
/// `value(forKey:)`, the typed accessors, the evaluator (so `department ==
/// nil` holds in memory as in SQL, see `SQLTranslator`) and key paths
/// through it. Where the store guarantees its keys (a PostgreSQL store
/// with its foreign keys), they are taken unchecked.
///
/// A key is checked when its destination is first handed out with no row
/// in hand; the destinations of the other objects of the context that
/// hold the same relationship are checked in the same query (up to
/// `destinationBatch`), so reading the department of each of a thousand
/// people costs a query or two, not a thousand. That is in a root context,
/// whose source is the store; a child reads a destination from its parent
/// when it hands it out, as firing its fault would, since rows looked up
/// ahead would be the parent's state of that moment, not of their read.
///
/// A save leaves a dangling key as it is unless the relationship is set:
/// opening and reading write nothing, and a change to another property
/// writes only that property. Setting the relationship (to an object or to
/// nil) writes the new key; the gone object's inverse is not touched.
extension ManagedObjectContext {
    /// How many destinations one query checks.
    static let destinationBatch = 500

    /// `id`'s object as the destination of `source`'s to-one at `index`:
    /// nil when its row is gone.
    func destination(_ id: ObjectID, of source: ManagedObject, relationship index: Int) -> ManagedObject? {
        if !goneIDs.isEmpty, goneIDs.contains(id) {
            // Still gone unless its row came back since (a merge or a
            // refresh filled it, or an ancestor's delete was undone). A
            // child knows it only while it holds the emptied object, as
            // it knows any object it read: its parent may have it again.
            if let object = registered[id] {
                guard object.committed != nil || object.isFault || object.hasChanges else { return nil }
            } else if parent == nil {
                return nil
            }
            goneIDs.remove(id)
        }
        if id.isTemporaryID { return unsavedDestination(id) }
        let object = self.object(with: id)
        guard object.isFault, object.committed == nil,
              keysMayDangle(source.entity.relationships[index], in: source.entity, destination: id) else { return object }
        if parent != nil {
            // A child reads the destination as its parent holds it now,
            // as any fault does; rows looked up ahead for other objects
            // would be the parent's state of the moment they were read.
            fulfillFault(object)
            return goneIDs.contains(id) ? nil : object
        }
        // A root trusts a row it found, as it trusts an object it holds.
        guard !presentIDs.contains(id) else { return object }
        checkDestinations(startingWith: object, of: source.entity, relationship: index)
        return goneIDs.contains(id) ? nil : object
    }

    /// An unsaved object as a destination: this context's, or an
    /// ancestor's; nil when none holds it any more (its insert undone or
    /// rolled back).
    private func unsavedDestination(_ id: ObjectID) -> ManagedObject? {
        if let object = registered[id], !object.isFault { return object }
        guard parent != nil, let snapshot = try? snapshotFromSource(id) else { return nil }
        let object = self.object(with: id)
        if object.isFault { fill(object, from: snapshot) }
        return object
    }

    /// Whether the to-one's keys may name rows that are gone (see
    /// `StoreBackend.enforcesKeys`), once per relationship.
    private func keysMayDangle(_ relationship: RelationshipDescription, in entity: EntityDescription,
                               destination: ObjectID) -> Bool {
        let key = ObjectIdentifier(relationship)
        if let known = keysMayDangle[key] { return known }
        var mayDangle = true
        if let coordinator = persistentStoreCoordinator, let store = try? coordinator.backend(for: destination) {
            mayDangle = !store.enforcesKeys(of: relationship, in: entity)
        }
        keysMayDangle[key] = mayDangle
        return mayDangle
    }

    /// Looks up `first`'s row and those of the other unchecked
    /// destinations of the relationship among the registered objects, in
    /// one query (in a root context, whose source is the store): the rows found are registered (as faults holding their
    /// row) and remembered as present, the others marked gone.
    ///
    /// The sources are scanned from where the last check of the
    /// relationship stopped (see `DestinationScan`), so reading the
    /// destination of each of n objects costs n / `destinationBatch`
    /// queries and one pass over the sources in all, not one per check.
    private func checkDestinations(startingWith first: ManagedObject, of entity: EntityDescription, relationship index: Int) {
        var ids = [first.objectID]
        var seen: Set<ObjectID> = [first.objectID]
        let key = DestinationScan.Key(entity: ObjectIdentifier(entity), relationship: index)
        var scan = destinationScans[key] ?? DestinationScan()
        var refilled = false
        while ids.count < Self.destinationBatch {
            if scan.next == scan.sources.count {
                // Out of sources: once per check, take the registered
                // objects as they are now (some came since).
                if refilled { break }
                refilled = true
                scan = DestinationScan(sources: registered.values.compactMap {
                    $0.entity === entity || $0.entity.isKind(of: entity) ? $0.objectID : nil
                })
                if scan.sources.isEmpty { break }
            }
            let sourceID = scan.sources[scan.next]
            scan.next += 1
            guard let source = registered[sourceID] else { continue }
            let slot: ObjectID?
            if source.isFault {
                slot = source.committed.flatMap { index < $0.links.count ? $0.toOneID(at: index) : nil }
            } else if index < source.relationshipSlots.count, case .toOne(let id) = source.relationshipSlots[index] {
                slot = id
            } else {
                slot = nil
            }
            guard let id = slot, !id.isTemporaryID, !seen.contains(id), !goneIDs.contains(id),
                  !presentIDs.contains(id) else { continue }
            if let registered = registered[id], !registered.isFault || registered.committed != nil { continue }
            seen.insert(id)
            ids.append(id)
        }
        destinationScans[key] = scan
        let snapshots: [Snapshot]
        do {
            snapshots = try snapshotsFromSource(ids)
        } catch {
            // Unknown: hand the objects out as before, faults whose row
            // may yet be read.
            MRLog.error("cannot look up the rows of \(ids.count) objects: \(error)")
            return
        }
        var found = Set<ObjectID>()
        var kept: [ManagedObject] = []
        kept.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            // A row of another entity than the key's fits no object's
            // slots: gone, as `fill` reads it.
            if let existing = registered[snapshot.id],
               !(snapshot.id.entity === existing.entity || snapshot.id.entity.isKind(of: existing.entity)) { continue }
            found.insert(snapshot.id)
            presentIDs.insert(snapshot.id)
            kept.append(register(snapshot, asFaults: true))
        }
        for id in ids where !found.contains(id) {
            markGone(self.object(with: id))
        }
        checkedDestinations = kept
    }

    /// The rows of `ids` this context's source holds, in batches: from the
    /// parent context (its current state) or the stores.
    func snapshotsFromSource(_ ids: [ObjectID]) throws -> [Snapshot] {
        guard let parent else { return try persistentStoreCoordinator?.snapshots(for: ids) ?? [] }
        return try parent.performAndWait { try parent.snapshotsForChild(ids) }
    }

    /// This context's current state of the objects, for a child: what it
    /// holds, and what its own source holds of the rest in one go.
    private func snapshotsForChild(_ ids: [ObjectID]) throws -> [Snapshot] {
        var result: [Snapshot] = []
        var unknown: [ObjectID] = []
        for id in ids {
            if let object = registered[id], !(object.isFault && object.committed == nil) {
                if let snapshot = try snapshotForChild(id) { result.append(snapshot) }
            } else if !goneIDs.contains(id) && !id.isTemporaryID {
                unknown.append(id)
            }
        }
        if !unknown.isEmpty { result += try snapshotsFromSource(unknown) }
        return result
    }

    /// Leaves `object` empty (every attribute nil) and known to be gone.
    func markGone(_ object: ManagedObject) {
        object.values = object.entity.attributes.map { _ in .null }
        object.relationshipSlots = object.entity.emptySlots
        object.committed = nil
        object.isFault = false
        if !object.objectID.isTemporaryID {
            goneIDs.insert(object.objectID)
            presentIDs.remove(object.objectID)
        }
    }

    /// Forgets which destinations were checked: after a reset or a
    /// refresh of everything, rows may have gone since.
    func forgetCheckedDestinations() {
        goneIDs.removeAll()
        presentIDs.removeAll()
        destinationScans.removeAll()
        checkedDestinations.removeAll()
    }

    /// Whether `id` names a row known to be gone.
    package func isGone(_ id: ObjectID) -> Bool { goneIDs.contains(id) }
}

/// Where the checks of one to-one's destinations have got in the sources
/// (the registered objects of its entity, as they were when the scan
/// began): each check goes on from `next`.
struct DestinationScan {
    struct Key: Hashable {
        let entity: ObjectIdentifier
        let relationship: Int
    }
    var sources: [ObjectID] = []
    var next = 0
}
