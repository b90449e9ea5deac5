import Foundation
import Predicates

/// Objects another process saved to a store of the coordinator (Core
/// Data's `NSPersistentStoreRemoteChange` notification): PostgreSQL stores
/// added with `PersistentStoreOptions.postsRemoteChangeNotifications`
/// hear them from the server after each commit.
///
/// ```swift
/// var options = PersistentStoreOptions()
/// options.postsRemoteChangeNotifications = true
/// try coordinator.addPersistentStore(type: .postgres, at: url, options: options)
/// context.automaticallyMergesChangesFromParent = true   // merges them on its queue
/// coordinator.addRemoteChangeObserver { note in print(note.updatedObjectIDs) }
/// ```
///
/// The coordinator's own saves are not among them: its contexts hear
/// those through `addDidSaveObserver(_:)`.
public struct RemoteChangeNotification: Sendable {
    /// The identifier of the store that changed.
    public let storeIdentifier: String
    /// The objects the other process inserted.
    public let insertedObjectIDs: [ObjectID]
    /// The objects whose values or relationships it changed.
    public let updatedObjectIDs: [ObjectID]
    /// The objects it deleted.
    public let deletedObjectIDs: [ObjectID]
    /// Whether the lists are incomplete, so that every object of the store
    /// must be read again (Core Data's `NSInvalidatedAllObjectsKey`): a
    /// save of too many objects to list, or a listener that lost its
    /// connection and may have missed some.
    public let invalidatesAllObjects: Bool

    /// The name under which each notification is also posted to
    /// `NotificationCenter.default`, with the coordinator as the object.
    /// It carries no user info: use `addRemoteChangeObserver(_:)` for
    /// the changes.
    public static let name = Notification.Name("PersistentStoreRemoteChange")

    package init(storeIdentifier: String, inserted: [ObjectID] = [], updated: [ObjectID] = [], deleted: [ObjectID] = [],
         invalidatesAllObjects: Bool = false) {
        self.storeIdentifier = storeIdentifier
        insertedObjectIDs = inserted
        updatedObjectIDs = updated
        deletedObjectIDs = deleted
        self.invalidatesAllObjects = invalidatesAllObjects
    }
}

/// What hears another process's saves to a store, until stopped.
package protocol RemoteChangeListener: AnyObject, Sendable {
    /// Stops listening and waits for the listener's thread to end.
    func stop()
}

/// A coordinator's remote-change observers and the listeners of its stores.
final class RemoteChangeHub: @unchecked Sendable {
    private let lock = NSLock()
    private var observers: [UUID: @Sendable (RemoteChangeNotification) -> Void] = [:]
    private var listeners: [ObjectIdentifier: any RemoteChangeListener] = [:]

    /// Starts the listener of `store`, when its engine has one.
    func listen(to store: any StoreBackend, deliver: @escaping @Sendable (RemoteChangeNotification) -> Void) throws {
        guard let listener = try store.listenForRemoteChanges(deliver) else { return }
        lock.withLock { listeners[ObjectIdentifier(store)] = listener }
    }

    /// Stops the listener of `store`, if it has one, and waits for its thread.
    func stopListening(to store: any PersistentStore) {
        lock.withLock { listeners.removeValue(forKey: ObjectIdentifier(store)) }?.stop()
    }

    func stopAll() {
        let all = lock.withLock {
            defer { listeners = [:] }
            return Array(listeners.values)
        }
        for listener in all { listener.stop() }
    }

    func add(_ observer: @escaping @Sendable (RemoteChangeNotification) -> Void) -> UUID {
        let token = UUID()
        lock.withLock { observers[token] = observer }
        return token
    }

    func remove(_ token: UUID) { _ = lock.withLock { observers.removeValue(forKey: token) } }

    var currentObservers: [@Sendable (RemoteChangeNotification) -> Void] { lock.withLock { Array(observers.values) } }
}

extension PersistentStoreCoordinator {
    /// Calls `observer` with every `RemoteChangeNotification` of this
    /// coordinator's stores, on the listener's thread (hop to your
    /// context's queue with `perform`). Keep the token to remove it.
    @discardableResult
    public func addRemoteChangeObserver(_ observer: @escaping @Sendable (RemoteChangeNotification) -> Void) -> UUID {
        remoteChanges.add(observer)
    }

    /// Stops calling the observer that `addRemoteChangeObserver(_:)`
    /// returned `token` for; an unknown token does nothing.
    public func removeRemoteChangeObserver(_ token: UUID) {
        remoteChanges.remove(token)
    }

    /// Starts hearing other processes' saves to `store`, when it can.
    func listenForRemoteChanges(to store: any StoreBackend) throws {
        try remoteChanges.listen(to: store) { [weak self] note in self?.post(note) }
    }

    /// Tells the observers, then merges into the queue-based root contexts
    /// that merge automatically (they or a child of theirs set
    /// `automaticallyMergesChangesFromParent`), each on its queue.
    private func post(_ note: RemoteChangeNotification) {
        for observer in remoteChanges.currentObservers { observer(note) }
        NotificationCenter.default.post(name: RemoteChangeNotification.name, object: self)
        for context in rootContexts where context.queue != nil && context.mergesRemoteChanges {
            context.perform {
                do {
                    try context.mergeChanges(fromRemoteChange: note)
                } catch {
                    MRLog.error("cannot merge the changes another process saved to store \(note.storeIdentifier): \(error)")
                }
            }
        }
    }
}

extension ManagedObjectContext {
    /// Whether remote changes are merged here automatically: asked by
    /// this context or a child that merges its parent's changes.
    var mergesRemoteChanges: Bool {
        automaticallyMergesChangesFromParent || children.contains { $0.automaticallyMergesChangesFromParent }
    }

    /// Brings changes another process saved into this context (Core
    /// Data's `mergeChanges(fromRemoteContextSave:into:)`), then into its
    /// children that merge their parent's changes.
    ///
    /// ```swift
    /// coordinator.addRemoteChangeObserver { note in
    ///     context.perform { try? context.mergeChanges(fromRemoteChange: note) }
    /// }
    /// ```
    ///
    /// Each updated object this context holds is read again: one without
    /// changes takes the saved row; one with unsaved changes is merged by
    /// `mergePolicy` as a save would merge it (under `.error` it is left
    /// as it is, and the save that follows reports the conflict). Deleted
    /// objects leave the context; inserted ones reach its objects-did-change
    /// observers, so that fetched results show them. When the note
    /// `invalidatesAllObjects`, every object of the store is read again and
    /// fetched results fetch again.
    ///
    /// A child context takes the objects from its parent, which merged
    /// first, as Core Data's `mergeChanges(fromRemoteContextSave:into:)`
    /// merges into nested contexts; all of them in one visit to the parent.
    /// An updated object a context has not read is left alone (there is
    /// nothing to refresh) unless something observes the context's changes
    /// (a `FetchedResultsController`): then it is read with the others and
    /// reported as updated, so that results it now belongs in show it.
    public func mergeChanges(fromRemoteChange note: RemoteChangeNotification) throws {
        try performAndWait {
            var candidates = note.invalidatesAllObjects
                ? registered.keys.filter { !$0.isTemporaryID && $0.storeIdentifier == note.storeIdentifier }
                : note.updatedObjectIDs.filter { registered[$0] != nil }
            let deleted = Set(note.deletedObjectIDs)
            candidates.removeAll { deleted.contains($0) }
            // Updated objects not read here that fetched results may now hold.
            let unread = changeTracker.observers.isEmpty || note.invalidatesAllObjects ? []
                : note.updatedObjectIDs.filter { registered[$0] == nil && !deleted.contains($0) }
            var snapshots: [ObjectID: Snapshot] = [:]
            let wanted = candidates + unread
            if let parent {
                let read = try parent.performAndWait { try wanted.compactMap { try parent.snapshotForChild($0) } }
                for snapshot in read { snapshots[snapshot.id] = snapshot }
            } else {
                for snapshot in try persistentStoreCoordinator?.snapshots(for: wanted) ?? [] { snapshots[snapshot.id] = snapshot }
            }
            var updated: [ObjectID] = [], gone = note.deletedObjectIDs
            for id in candidates {
                guard let object = registered[id] else { continue }
                guard let current = snapshots[id] else {
                    gone.append(id)  // deleted since
                    continue
                }
                guard object.hasChanges && !object.isFault else {
                    updated.append(id)
                    continue
                }
                // The save that follows would meet the same row: merged
                // now as it would be then, or left for it to refuse.
                if current.version > object.version && mergePolicy != .error
                    && (mergePolicy != .mergeOrRefuse || refusedConflicts([(id, current)]).isEmpty) {
                    try merge(object, with: current)
                }
            }
            if note.invalidatesAllObjects { changeTracker.invalidatedAll = true }
            mergeChanges(fromContextDidSave: ContextDidSaveNotification(
                insertedObjectIDs: note.insertedObjectIDs, updatedObjectIDs: updated + unread, deletedObjectIDs: gone,
                permanentIDs: PermanentIDs(), snapshots: snapshots, toMany: [:], context: nil, isStoreSave: true))
            for child in children where child.automaticallyMergesChangesFromParent {
                child.perform(andWaitIfConfined: true) {
                    do {
                        try child.mergeChanges(fromRemoteChange: note)
                    } catch {
                        MRLog.error("cannot merge the changes another process saved to store \(note.storeIdentifier): \(error)")
                    }
                }
            }
        }
    }
}
