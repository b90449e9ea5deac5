import Foundation

/// The objects of a context that changed since the last
/// `processPendingChanges()`: Core Data's objects-did-change notification.
public struct ObjectsDidChangeNotification {
    /// Objects inserted into the context (and not deleted since).
    public let insertedObjects: [ManagedObject]
    /// Objects whose values or relationships changed, by the program, a
    /// rollback, a refresh or a merge.
    public let updatedObjects: [ManagedObject]
    /// Objects deleted, or gone from the context (merged deletes, undone
    /// inserts, rolled-back inserts).
    public let deletedObjects: [ManagedObject]
    /// Whether every object may have changed, beyond those listed (Core
    /// Data's `NSInvalidatedAllObjectsKey`): another process saved more
    /// than it could list. Fetched results fetch again.
    public var invalidatedAllObjects = false
    /// The context whose objects changed.
    public weak var context: ManagedObjectContext?

    /// Whether `object` changed in any way.
    public func contains(_ object: ManagedObject) -> Bool {
        (insertedObjects + updatedObjects + deletedObjects).contains { $0 === object }
    }
}

/// What a context collects between two `processPendingChanges()`.
///
/// Used on its context's queue only.
final class ChangeTracker {
    var pending: [ObjectIdentifier: ManagedObject] = [:]
    var order: [ObjectIdentifier] = []
    var observers: [(UUID, (ObjectsDidChangeNotification) -> Void)] = []
    var isProcessing = false
    /// The next notification says that every object may have changed.
    var invalidatedAll = false
}

extension ManagedObjectContext {
    /// Records that `object` changed, for the next objects-did-change
    /// notification. A queue-based context processes its changes when the
    /// work in progress on its queue ends; a confined one on `save()`,
    /// merges, `rollback()` and `processPendingChanges()`.
    func noteObjectChange(_ object: ManagedObject) {
        guard hearing.observed else { return }
        let key = ObjectIdentifier(object)
        if changeTracker.pending[key] == nil {
            let first = changeTracker.pending.isEmpty
            changeTracker.pending[key] = object
            changeTracker.order.append(key)
            if first, let queue {
                queue.async { [weak self] in self?.processPendingChanges() }
            }
        }
    }

    /// Objects inserted or updated elsewhere and merged here that this
    /// context has not read: nothing to refresh, but observers (fetched
    /// results) must hear of them, as results they now belong in show
    /// them. Each is a fault until an observer reads it, holding its row
    /// when `snapshots` (saved rows) has it.
    func noteUnregisteredChanges(_ ids: [ObjectID], snapshots: [ObjectID: Snapshot] = [:]) {
        guard hearing.observed else { return }
        for id in ids where registered[id] == nil && !id.isTemporaryID {
            noteObjectChange(snapshots[id].map { register($0, asFaults: true) } ?? object(with: id))
        }
    }

    /// Sends the objects-did-change notification for the changes made
    /// since the last one, if any.
    public func processPendingChanges() {
        performAndWait {
            guard !changeTracker.isProcessing, !changeTracker.pending.isEmpty || changeTracker.invalidatedAll else { return }
            changeTracker.isProcessing = true
            defer { changeTracker.isProcessing = false }
            let objects = changeTracker.order.compactMap { changeTracker.pending[$0] }
            changeTracker.pending.removeAll()
            changeTracker.order.removeAll()
            var inserted: [ManagedObject] = [], updated: [ManagedObject] = [], deleted: [ManagedObject] = []
            for object in objects {
                if object.managedObjectContext !== self || object.isDeleted {
                    deleted.append(object)
                } else if object.isInserted {
                    inserted.append(object)
                } else {
                    updated.append(object)
                }
            }
            var note = ObjectsDidChangeNotification(insertedObjects: inserted, updatedObjects: updated,
                                                    deletedObjects: deleted, context: self)
            note.invalidatedAllObjects = changeTracker.invalidatedAll
            changeTracker.invalidatedAll = false
            for (_, observer) in changeTracker.observers { observer(note) }
        }
    }

    /// Calls `observer` with every objects-did-change notification of this
    /// context, on the context's queue. Keep the token to remove it.
    @discardableResult
    public func addObjectsDidChangeObserver(_ observer: @escaping (ObjectsDidChangeNotification) -> Void) -> UUID {
        let token = UUID()
        nonisolated(unsafe) let observer = observer
        performAndWait { changeTracker.observers.append((token, observer)); hearing.update(self) }
        return token
    }

    /// Stops calling the observer that `addObjectsDidChangeObserver(_:)`
    /// returned `token` for; an unknown token does nothing.
    public func removeObjectsDidChangeObserver(_ token: UUID) {
        performAndWait { changeTracker.observers.removeAll { $0.0 == token }; hearing.update(self) }
    }
}
