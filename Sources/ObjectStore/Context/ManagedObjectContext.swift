import Foundation
import Predicates
import Synchronization

/// A scratch pad of objects: inserts, changes and deletes stay here until
/// `save()` writes them, in one transaction, to the parent store or to the
/// parent context.
///
/// ```swift
/// let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
/// try context.performAndWait {
///     let person = context.insertObject(forEntityName: "Person")
///     person["age"] = .int(30)
///     try context.save()
/// }
/// ```
///
/// A context holds one object per ID (uniquing). Use a context and its
/// objects on its own queue only: inside `perform`/`performAndWait` for
/// queue-based contexts, or from one thread at a time for `.confined` ones.
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    /// Where a context does its work (Core Data's
    /// `NSManagedObjectContextConcurrencyType`, plus `.confined` for
    /// single-threaded programs).
    public enum ConcurrencyType: Sendable {
        /// Work runs on a private serial queue.
        case privateQueue
        /// Work runs on the main queue.
        case mainQueue
        /// Work runs on whichever thread calls; the caller keeps to one
        /// thread at a time (the shell and tests use this).
        case confined
    }

    /// Where the context does its work, fixed when it is made.
    public let concurrencyType: ConcurrencyType
    /// The coordinator whose stores the context reads and, for a root
    /// context, saves to; a child context shares its parent's.
    public let persistentStoreCoordinator: PersistentStoreCoordinator?
    /// The context this one saves into, or nil for a root context, which
    /// saves to the stores (Core Data's `parent`).
    public let parent: ManagedObjectContext?
    /// A name for `description` and debugging, such as MagicalRecord's
    /// "default context"; it changes nothing else.
    public var name: String?
    /// What `save()` does with objects that changed in the store or the
    /// parent since this context read them, and with uniqueness-constraint
    /// conflicts; `.error` (the default, as in Core Data) refuses the save.
    public var mergePolicy: MergePolicy = .error
    /// Records changes for undo and redo; nil (the default) records nothing.
    public var undoManager: UndoManager? {
        get { undo.manager }
        set {
            undo.manager = newValue
            hearing.update(self)
            renamedIDs = PermanentIDs()
        }
    }
    /// Hears how far the save under way has written (`save(progress:)`).
    var saveProgress: ((Int, Int) throws -> Void)?
    /// What `undoingAsOneAction` records while it runs.
    var bulkUndo: BulkUndoRecording? {
        get { undo.bulk }
        set { undo.bulk = newValue }
    }
    // Asked on every change of every object (is it recorded, and how), set
    // only when undo is set up or an action recorded as one runs, on the
    // context's queue: its accesses skip the runtime's exclusivity
    // bookkeeping (mrq-bench d. import).
    @exclusivity(unchecked) private var undo: (manager: UndoManager?, bulk: BulkUndoRecording?) = (nil, nil)
    /// Temporary IDs and the permanent ones saves gave them, kept while an
    /// undo manager may name them (see `currentID`).
    var renamedIDs = PermanentIDs()
    /// Shared with this context's objects: see `ManagedObject.hearing`.
    let hearing = ChangeHearing()
    /// Whether saves of the parent are merged into this context.
    public var automaticallyMergesChangesFromParent = false

    let queue: DispatchQueue?
    /// Names the queue for `isOnQueue`; shared by main-queue contexts.
    private let queueIdentity: ContextQueue.Identity?

    /// Every object this context holds, by ID (clean ones unretained).
    let registered = ObjectRegistry()
    /// Objects with pending changes (inserted, updated or deleted).
    var changed: ChangeSet {
        get { changeSet }
        _modify { yield &changeSet }
    }
    // Used on the context's queue only, and asked on every insert, delete
    // and first change of an object: its accesses skip the runtime's
    // exclusivity bookkeeping (mrq-bench a. insert, d. import).
    @exclusivity(unchecked) private var changeSet = ChangeSet()
    /// Contents of to-many relationships changed since the last save, kept
    /// as they were before the first change (for rollback).
    var committedToMany: [ObjectIdentifier: [Int: ObjectIDSet]] = [:]
    var observers: [UUID: @Sendable (ContextDidSaveNotification) -> Void] = [:]
    /// How many objects the last successful save wrote (inserted, updated
    /// and deleted; 0 for a save that had nothing to write): what its
    /// notification lists, without asking for the notification, whose
    /// saved state costs a snapshot per object.
    package internal(set) var lastSaveObjectCount = 0
    /// New objects a save merged into others by a uniqueness constraint,
    /// with the object each became (see `resolve(_:checkpoint:)`); for the
    /// save's notification.
    var absorbed: [(temporary: ObjectID, survivor: ManagedObject)] = []
    /// Changes not yet sent as an objects-did-change notification.
    let changeTracker = ChangeTracker()
    /// Objects whose row a to-one key names but no store holds (deleted
    /// behind mrq's back): they read as nil through the relationship (see
    /// `ManagedObjectContext+GoneRows.swift`).
    var goneIDs = Set<ObjectID>()
    /// The last batch of to-one destinations found to exist, held so that
    /// the reads after the one that looked them up find them registered.
    var checkedDestinations: [ManagedObject] = []
    /// To-one destinations whose rows a check found (they are not checked
    /// again while the context lives; see `forgetCheckedDestinations`).
    var presentIDs = Set<ObjectID>()
    /// How far the checks of each to-one have scanned their sources.
    var destinationScans: [DestinationScan.Key: DestinationScan] = [:]
    /// Whether a to-one's keys are checked, by relationship.
    var keysMayDangle: [ObjectIdentifier: Bool] = [:]
    private var childContexts: [ObjectIdentifier: Weak] = [:]
    private let childLock = NSLock()

    /// Entity → Swift class, looked up once per entity in this context.
    private var classCache: [ObjectIdentifier: ManagedObject.Type] = [:]

    /// The last answer of `objectClass(for:)`: inserts and fetches ask for
    /// the same entity many times in a row; asked for every object made,
    /// its accesses skip the runtime's exclusivity bookkeeping (mrq-bench
    /// a. insert, b. fetch).
    @exclusivity(unchecked) private var lastClass: (entity: ObjectIdentifier, type: ManagedObject.Type)?

    func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        let key = ObjectIdentifier(entity)
        if let last = lastClass, last.entity == key { return last.type }
        let type = classCache[key] ?? EntityClassRegistry.shared.objectClass(for: entity)
        classCache[key] = type
        lastClass = (key, type)
        return type
    }

    /// The live child contexts.
    var children: [ManagedObjectContext] {
        childLock.withLock { childContexts.values.compactMap(\.context) }
    }

    struct Weak { weak var context: ManagedObjectContext? }

    /// A root context: it reads from and saves to the stores of
    /// `coordinator` (Core Data's `init(concurrencyType:)` with its
    /// `persistentStoreCoordinator` set).
    public init(concurrencyType: ConcurrencyType, coordinator: PersistentStoreCoordinator) {
        self.concurrencyType = concurrencyType
        self.persistentStoreCoordinator = coordinator
        self.parent = nil
        (self.queue, self.queueIdentity) = ContextQueue.make(concurrencyType)
        hearing.context = self
        coordinator.register(self)
    }

    deinit {
        hearing.close()
    }

    /// A child context: its saves go to `parent`, not to the store.
    public init(concurrencyType: ConcurrencyType, parent: ManagedObjectContext) {
        self.concurrencyType = concurrencyType
        self.persistentStoreCoordinator = parent.persistentStoreCoordinator
        self.parent = parent
        (self.queue, self.queueIdentity) = ContextQueue.make(concurrencyType)
        hearing.context = self
        parent.childLock.withLock {
            parent.childContexts = parent.childContexts.filter { $0.value.context != nil }
            parent.childContexts[ObjectIdentifier(self)] = Weak(context: self)
        }
    }

    public var description: String {
        "<ManagedObjectContext \(name ?? "") \(registered.count) objects, \(changed.count) changed>"
    }

    var model: ManagedObjectModel {
        guard let coordinator = persistentStoreCoordinator else {
            preconditionFailure("the context has no coordinator")
        }
        return coordinator.model
    }

    // MARK: - Queues

    /// Runs `body` on the context's queue and waits; runs inline when
    /// already on it (so nested calls do not deadlock).
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        guard let queue, !isOnQueue else { return try body() }
        if concurrencyType == .mainQueue && Thread.isMainThread { return try body() }
        let held = ContextQueue.heldByCaller
        return try queue.sync { try ContextQueue.holding(held) { try body() } }
    }

    /// Schedules `body` on the context's queue and returns at once.
    public func perform(_ body: @escaping @Sendable () -> Void) {
        guard let queue else { return body() }
        queue.async(execute: body)
    }

    /// Runs `body` on the context's queue and returns its result.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard let queue else { return try body() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Whether the running code may use this context's state: it runs on
    /// the context's queue, or inside a `performAndWait` whose caller, now
    /// waiting for it, runs there.
    var isOnQueue: Bool {
        guard let queueIdentity else { return false }
        return ContextQueue.current === queueIdentity || ContextQueue.held.contains { $0 === queueIdentity }
    }

    // MARK: - Registration

    /// Every object the context holds now, in no particular order (Core
    /// Data's `registeredObjects`). Objects with unsaved changes are always
    /// here; unchanged ones stay only while your program holds them.
    public var registeredObjects: [ManagedObject] { registered.values }

    /// Leaves the objects this context holds to the end of the process
    /// instead of letting go of each when the context goes: for a process
    /// about to exit (mrq after its last statement), where taking a large
    /// graph apart object by object is work the kernel then does at once
    /// (200,000 imported people: 85 ms, 5.6% of mrq-bench m. shell
    /// import). Use the context for nothing afterwards but to let it go.
    package func leaveObjectsToProcessExit() { registered.leaveToProcessExit() }

    /// The objects inserted and not saved yet, in the order they were
    /// inserted (Core Data's `insertedObjects`).
    public var insertedObjects: [ManagedObject] { changedObjects(in: .inserted) }
    /// The saved objects with unsaved changes, in the order they first
    /// changed (Core Data's `updatedObjects`); an object whose values were
    /// set back to what was saved is not among them.
    public var updatedObjects: [ManagedObject] {
        changedObjects(in: .updated).filter { $0.hasChanges }
    }
    /// The objects deleted and not saved yet, in the order they first
    /// changed (Core Data's `deletedObjects`). Deleting an object that was
    /// never saved removes it instead: it is in none of the lists.
    public var deletedObjects: [ManagedObject] { changedObjects(in: .deleted) }

    func changedObjects(in state: ManagedObject.State) -> [ManagedObject] {
        changed.values.filter { $0.state == state }
    }

    /// The inserted, updated (with changes left) and deleted objects, in
    /// change order, from one pass over the change set; `hooked` when some
    /// are of a subclass, whose lifecycle hooks must run.
    func pendingChanges() -> (inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject], hooked: Bool) {
        var inserted: [ManagedObject] = [], updated: [ManagedObject] = [], deleted: [ManagedObject] = []
        var hooked = false
        inserted.reserveCapacity(changed.count)
        changed.forEach { object in
            if !hooked && type(of: object) != ManagedObject.self { hooked = true }
            switch object.state {
            case .inserted: inserted.append(object)
            case .updated: if object.hasChanges { updated.append(object) }
            case .deleted: deleted.append(object)
            case .clean: break
            }
        }
        return (inserted, updated, deleted, hooked)
    }

    /// How many objects a save would write now: the inserted, the updated
    /// with changes left, and the deleted. One pass, nothing built.
    public var changeCount: Int {
        var count = 0
        changed.forEach { object in
            switch object.state {
            case .inserted, .deleted: count += 1
            case .updated: if object.hasChanges { count += 1 }
            case .clean: break
            }
        }
        return count
    }

    /// Whether anything is inserted, deleted or changed.
    public var hasChanges: Bool {
        changed.contains { $0.hasChanges }
    }

    /// Inserts a new object of the named entity.
    @discardableResult
    public func insertObject(forEntityName name: String) -> ManagedObject {
        guard let entity = model.entity(named: name) else {
            preconditionFailure("the model has no entity '\(name)'")
        }
        let type = objectClass(for: entity)
        return type.init(entity: entity, insertInto: self)
    }

    /// Inserts `object` into this context.
    public func insert(_ object: ManagedObject) {
        precondition(!object.entity.isAbstract, "cannot insert an object of abstract entity \(object.entity.name)")
        // The context's state is read once each: every read of a stored
        // property of a class is checked for exclusive access.
        if let owner = object.managedObjectContext {
            precondition(owner === self, "the object belongs to another context")
            return
        }
        let bulk = bulkUndo
        bulk?.recordInsert(object)
        object.setContext(self)
        object.state = .inserted
        registered[object.objectID] = object
        // Only an object inserted before (an undone insert, redone) can
        // name objects a save renamed since: a new one has no
        // relationships yet.
        if object.hasAwokenFromInsert { renameSavedIDs(inRelationshipsOf: object) }
        markChanged(object)
        if bulk == nil { undoManager?.registerUndo { [weak self, object] in self?.undoInsert(object) } }
        if !object.hasAwokenFromInsert {
            object.hasAwokenFromInsert = true
            object.awakeFromInsert()
        }
    }

    private func undoInsert(_ object: ManagedObject) {
        guard object.state == .inserted else {
            // Saved since: undoing the insert deletes the object, as Core
            // Data's undo does (redo brings it back).
            if object.belongs(to: self), object.state != .deleted, registered[object.objectID] === object { delete(object) }
            return
        }
        // Relationship changes made after the insert are undone by their own
        // entries, which run first.
        registered[object.objectID] = nil
        changed.remove(object)
        committedToMany[ObjectIdentifier(object)] = nil
        object.state = .clean
        object.setContext(nil)
        noteObjectChange(object)
        undoManager?.registerUndo { [weak self, object] in self?.insert(object) }
    }

    @inline(__always)
    func markChanged(_ object: ManagedObject) {
        noteObjectChange(object)
        if object.changeOrder == 0 { changed.insert(object) }
    }

    /// The object for `id`, registered or a new fault; never nil.
    public func object(with id: ObjectID) -> ManagedObject {
        if let object = registered[id] { return object }
        let object = objectClass(for: id.entity).init(fault: id, context: self)
        registered[id] = object
        return object
    }

    /// The object for `id`, fulfilled; throws if it does not exist.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        if let object = registered[id], !object.isFault { return object }
        if id.isTemporaryID {
            throw StoreError(.notFound, "no object with ID \(id) in this context")
        }
        guard let snapshot = try snapshotFromSource(id) else {
            throw StoreError(.notFound, "no object with ID \(id)")
        }
        let object = self.object(with: snapshot.id)
        if object.isFault { fill(object, from: snapshot) }
        return object
    }

    /// The object ID named by a URI from `ObjectID.uriRepresentation`.
    public func objectID(forURIRepresentation uri: URL) -> ObjectID? {
        guard uri.scheme == "x-coredata" else { return nil }
        let parts = uri.path.split(separator: "/").map(String.init)
        guard parts.count == 2, let entity = model.entity(named: parts[0]),
              parts[1].hasPrefix("p"), let pk = Int64(parts[1].dropFirst()) else {
            if parts.count == 2, parts[1].hasPrefix("t"), let n = Int64(parts[1].dropFirst()) {
                return registered.keys.first { $0.primaryKey == -n }
            }
            return nil
        }
        return ObjectID(entity: entity, primaryKey: pk, storeIdentifier: uri.host)
    }

    /// The entity of a managed object class (its `entityName`), which the
    /// class now stands for in every context.
    public func entity(for type: ManagedObject.Type) -> EntityDescription {
        entity(forClass: type)
    }

    func entity(forClass type: ManagedObject.Type) -> EntityDescription {
        let name = type.entityName
        guard let entity = model.entity(named: name) else {
            preconditionFailure("the model has no entity '\(name)' for class \(type)")
        }
        EntityClassRegistry.shared.register(type, for: entity)
        classCache[ObjectIdentifier(entity)] = type
        lastClass = nil
        return entity
    }

    // MARK: - Faults

    func fulfillFault(_ object: ManagedObject) {
        guard object.isFault else { return }
        // A fault fetched with its row holds it already.
        if object.committed != nil {
            object.fillFromFetchedRow()
            return
        }
        do {
            if let snapshot = try snapshotFromSource(object.objectID) {
                fill(object, from: snapshot)
                return
            }
        } catch {
            MRLog.error("cannot fulfil fault \(object.objectID): \(error)")
        }
        // The row is gone: Core Data raises here; mrq leaves the object
        // empty (every attribute nil), never without values to read, and
        // a to-one naming it reads as nil.
        markGone(object)
    }

    func fill(_ object: ManagedObject, from snapshot: Snapshot) {
        // The row is of another entity than the key that led here says
        // (its entity column names a sibling, or a parent): its values do
        // not fit the object's slots. Read as a row that is gone, as a
        // dangling key's fault is; a sub-entity's row fits (its parent's
        // slots come first).
        guard snapshot.id.entity === object.entity || snapshot.id.entity.isKind(of: object.entity) else {
            MRLog.error("cannot fulfil fault \(object.objectID): its row is a \(snapshot.id.entity.name), not a \(object.entity.name)")
            markGone(object)
            return
        }
        object.values = snapshot.values
        if snapshot.toManysAreFaults, snapshot.links.count == object.entity.relationships.count {
            // A store's row: its slots are the object's, shared.
            object.relationshipSlots = snapshot.links
        } else {
            for (i, relationship) in object.entity.relationships.enumerated() where relationship.isToOne {
                object.relationshipSlots[i] = .toOne(snapshot.toOneID(at: i))
            }
        }
        object.committed = snapshot
        object.version = snapshot.version
        object.isFault = false
        object.awakeFromFetch()
    }

    /// Registers or refreshes objects from fetched snapshots; keeps the
    /// in-memory state of objects that have changes.
    ///
    /// With `asFaults`, new objects stay faults holding their row (Core
    /// Data's row cache): the first access fills them without a query.
    func register(_ snapshots: [Snapshot], asFaults: Bool = false) -> [ManagedObject] {
        return snapshots.map { register($0, asFaults: asFaults) }
    }

    /// Registers or refreshes one object from its row (see above);
    /// `nextKey` is the key of the row of its table registered after it,
    /// if known.
    func register(_ snapshot: consuming Snapshot, asFaults: Bool, nextKey: Int64? = nil) -> ManagedObject {
        let id = snapshot.id
        let object = registered.object(for: id, nextKey: nextKey) { objectClass(for: id.entity).init(fault: id, context: self) }
        if object.isFault {
            if asFaults {
                object.version = snapshot.version
                object.committed = snapshot
            } else {
                fill(object, from: snapshot)
            }
        }
        return object
    }

    func snapshotFromSource(_ id: ObjectID) throws -> Snapshot? {
        if let parent {
            return try parent.performAndWait { try parent.snapshotForChild(id) }
        }
        return try persistentStoreCoordinator!.snapshots(for: [id]).first
    }

    /// This context's current state of an object, for a child context.
    func snapshotForChild(_ id: ObjectID) throws -> Snapshot? {
        let object: ManagedObject
        if let registeredObject = registered[id] {
            object = registeredObject
        } else if id.isTemporaryID && parent == nil {
            return nil
        } else {
            // An unsaved object of an ancestor's, or a row.
            guard let snapshot = try snapshotFromSource(id) else { return nil }
            return snapshot
        }
        if object.isDeleted { return nil }
        if object.isFault {
            // A fault whose row is gone is gone for the child too.
            guard let snapshot = try snapshotFromSource(id) else { return nil }
            fill(object, from: snapshot)
        }
        return currentSnapshot(of: object)
    }

    func currentSnapshot(of object: ManagedObject) -> Snapshot {
        Snapshot(id: object.objectID, version: object.version, values: object.values, links: object.relationshipSlots)
    }
}

/// Which Swift class stands for each entity.
final class EntityClassRegistry: @unchecked Sendable {
    static let shared = EntityClassRegistry()
    private let lock = NSLock()
    /// Holds the entity too: a freed entity's address could otherwise be
    /// reused by another model's entity, which would inherit the class.
    private var classes: [ObjectIdentifier: (entity: EntityDescription, type: ManagedObject.Type)] = [:]

    func register(_ type: ManagedObject.Type, for entity: EntityDescription) {
        lock.withLock { classes[ObjectIdentifier(entity)] = (entity, type) }
    }

    func objectClass(for entity: EntityDescription) -> ManagedObject.Type {
        lock.withLock { classes[ObjectIdentifier(entity)]?.type } ?? ManagedObject.self
    }
}


/// Which context queue the running code is on, and which ones it holds
/// through callers blocked in `performAndWait`.
///
/// A child saving up to the store waits in its parent's `performAndWait`;
/// the parent's save must then update the child (permanent IDs, merges)
/// at once, not in a block queued behind the waiting child, and a nested
/// `performAndWait` back into the child must not deadlock.
enum ContextQueue {
    final class Identity: Sendable {}

    private static let key = DispatchSpecificKey<Identity>()
    private static let main: Identity = {
        let identity = Identity()
        DispatchQueue.main.setSpecific(key: key, value: identity)
        return identity
    }()

    static func make(_ type: ManagedObjectContext.ConcurrencyType) -> (DispatchQueue?, Identity?) {
        switch type {
        case .privateQueue:
            let queue = DispatchQueue(label: "mrq.context")
            let identity = Identity()
            queue.setSpecific(key: key, value: identity)
            return (queue, identity)
        case .mainQueue:
            return (DispatchQueue.main, main)
        case .confined:
            return (nil, nil)
        }
    }

    /// The context queue the current thread runs, if any.
    static var current: Identity? { DispatchQueue.getSpecific(key: key) }

    /// Queues held by callers waiting in `performAndWait` for the running code.
    static var held: [Identity] { heldStorage.value ?? [] }

    /// What a `performAndWait` hands to its body: everything this code
    /// holds, plus the queue it runs on.
    static var heldByCaller: [Identity] {
        var result = held
        if let current { result.append(current) }
        return result
    }

    static func holding<T>(_ queues: [Identity], _ body: () throws -> T) rethrows -> T {
        let saved = heldStorage.value
        heldStorage.value = queues
        defer { heldStorage.value = saved }
        return try body()
    }

    private static let heldStorage = ThreadLocal<[Identity]>()
}

/// A per-thread value.
final class ThreadLocal<Value>: @unchecked Sendable {
    private final class Box { let value: Value; init(_ value: Value) { self.value = value } }
    private var key = pthread_key_t()

    init() {
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
    }

    var value: Value? {
        get {
            guard let pointer = pthread_getspecific(key) else { return nil }
            return (Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? Box)?.value
        }
        set {
            if let old = pthread_getspecific(key) { Unmanaged<AnyObject>.fromOpaque(old).release() }
            let box = newValue.map { Unmanaged<AnyObject>.passRetained(Box($0)).toOpaque() }
            pthread_setspecific(key, box)
        }
    }
}

/// A context's objects with pending changes (inserted, updated or
/// deleted), in the order they first changed. An object's `changeOrder` is
/// its position here (0 when absent), so marking an object changed again,
/// which every setter does, and listing the changes in order cost no
/// lookup and no sort.
struct ChangeSet {
    private var slots: [ManagedObject?] = []
    private(set) var count = 0

    /// The objects, in the order they first changed.
    var values: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for case let object? in slots { result.append(object) }
        return result
    }

    var isEmpty: Bool { count == 0 }

    func forEach(_ body: (ManagedObject) throws -> Void) rethrows {
        for case let object? in slots { try body(object) }
    }

    func contains(where predicate: (ManagedObject) throws -> Bool) rethrows -> Bool {
        for case let object? in slots where try predicate(object) { return true }
        return false
    }

    mutating func insert(_ object: ManagedObject) {
        guard object.changeOrder == 0 else { return }
        // Removed objects leave holes; compact when they outnumber the rest.
        if slots.count > 64 && slots.count > 2 * count { compact() }
        slots.append(object)
        object.changeOrder = slots.count
        count += 1
    }

    mutating func remove(_ object: ManagedObject) {
        let position = object.changeOrder - 1
        guard position >= 0, position < slots.count, slots[position] === object else { return }
        slots[position] = nil
        object.changeOrder = 0
        count -= 1
    }

    mutating func removeAll() {
        for case let object? in slots { object.changeOrder = 0 }
        slots.removeAll()
        count = 0
    }

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        for (i, object) in slots.enumerated() { object!.changeOrder = i + 1 }
    }
}

/// A context as its objects see it, one per context, shared by its
/// objects: the context, held weakly, and whether it must hear of every
/// attribute change, even of an object it already counts as changed
/// (when it records undo or has observers of its changes).
///
/// An object reaches its context through this, not through a weak
/// reference of its own: a weak reference costs every object an atomic
/// count on the context's side table when it is made, another when it is
/// dropped, and a strong load (two more) at the object's first access;
/// together 6% of fetching 200,000 objects (mrq-bench b. fetch, c.
/// filter). One weak reference per context serves them all.
final class ChangeHearing: @unchecked Sendable {
    /// The context; nil once it is gone.
    weak var context: ManagedObjectContext?
    /// Whether the context is still there, read without loading the weak
    /// reference (see `ManagedObject.willAccessValues`): false from the
    /// context's deinit on.
    private let open = Atomic<Bool>(true)
    var isOpen: Bool { open.load(ordering: .acquiring) }
    func close() { open.store(false, ordering: .releasing) }

    var everyChange: Bool { heard.everyChange }
    /// Whether the context has observers of its objects-did-change
    /// notification.
    var observed: Bool { heard.observed }
    /// While changes are undone as one action, objects whose (temporary)
    /// primary key is below this were made meanwhile: undoing takes them
    /// out whole, so none of their changes needs a word. `Int64.min`
    /// otherwise.
    var bornBelow: Int64 {
        get { heard.bornBelow }
        set { heard.bornBelow = newValue }
    }
    // Written on the context's queue, read on every write of every object
    // in its change set: its accesses skip the runtime's exclusivity
    // bookkeeping (mrq-bench a. insert, d. import).
    @exclusivity(unchecked) private var heard = (everyChange: false, observed: false, bornBelow: Int64.min)

    func update(_ context: ManagedObjectContext) {
        heard.observed = !context.changeTracker.observers.isEmpty
        heard.everyChange = context.undoManager != nil || heard.observed
    }
}
