import Foundation
import Predicates

/// A position in sectioned results: the section, then the item in it.
public struct ResultIndexPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The section, from 0.
    public var section: Int
    /// The object's position in its section, from 0 (UIKit's `item` or
    /// `row`).
    public var item: Int

    /// The position of item `item` in section `section`.
    public init(item: Int, section: Int) {
        self.item = item
        self.section = section
    }

    public static func < (a: Self, b: Self) -> Bool { (a.section, a.item) < (b.section, b.item) }
    public var description: String { "[\(section), \(item)]" }
}

/// How an object or a section changed.
public enum ResultsChangeType: Sendable, Equatable {
    /// The object or section is new in the results.
    case insert
    /// The object or section left the results.
    case delete
    /// The object changed position (or section).
    case move
    /// The object changed but kept its position.
    case update
}

/// Told about every change of a `FetchedResultsController`'s results, with
/// exact positions: old index paths for deletes, moves and updates, new
/// ones for inserts and moves. Every method has an empty default.
///
/// The controller calls its delegate on its context's queue. A view model
/// on the main actor conforms with an isolated conformance, and follows a
/// main-queue context:
///
/// ```swift
/// @MainActor final class PeopleList: @MainActor FetchedResultsControllerDelegate { … }
/// ```
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// Called before the changes of one context notification are reported,
    /// once per batch: begin updating a table here.
    func controllerWillChangeContent(_ controller: FetchedResultsController)
    /// Called once per object that was inserted into, deleted from, moved in
    /// or updated in the results (Core Data's
    /// `controller(_:didChange:at:for:newIndexPath:)`).
    ///
    /// - Parameters:
    ///   - controller: The controller whose results changed.
    ///   - object: The object.
    ///   - indexPath: Its position before the change; nil for an insert.
    ///   - type: What happened to it. An object that changed without
    ///     moving is an `.update`.
    ///   - newIndexPath: Its position after the change; nil for a delete.
    ///
    /// Deletes come first, then inserts, moves and updates, each in
    /// index-path order.
    func controller(_ controller: FetchedResultsController, didChange object: ManagedObject,
                    at indexPath: ResultIndexPath?, for type: ResultsChangeType, newIndexPath: ResultIndexPath?)
    /// Called once per section that appeared (`.insert`) or disappeared
    /// (`.delete`), before the object changes; `sectionIndex` is its index
    /// after an insert, before a delete.
    func controller(_ controller: FetchedResultsController, didChange section: FetchedResultsController.Section,
                    atSectionIndex sectionIndex: Int, for type: ResultsChangeType)
    /// Called after all the changes of one batch were reported: end updating
    /// a table here, or reload it from `sections`.
    func controllerDidChangeContent(_ controller: FetchedResultsController)
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController) {}
    public func controller(_ controller: FetchedResultsController, didChange object: ManagedObject,
                           at indexPath: ResultIndexPath?, for type: ResultsChangeType, newIndexPath: ResultIndexPath?) {}
    public func controller(_ controller: FetchedResultsController, didChange section: FetchedResultsController.Section,
                           atSectionIndex sectionIndex: Int, for type: ResultsChangeType) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController) {}
}

/// The live results of a fetch request, in sections, kept up to date as
/// the context changes: NSFetchedResultsController.
///
/// ```swift
/// var request = FetchRequest(entityName: "Person")
/// request.sortDescriptors = try SortSpec.parse("department.name,lastName")
/// let results = FetchedResultsController(fetchRequest: request, context: context,
///                                        sectionNameKeyPath: "department.name")
/// results.delegate = self
/// try results.performFetch()
/// results.sections?[0].objects
/// ```
///
/// Changes arrive with the context's objects-did-change notifications:
/// changes made in the context (processed when its queue's work ends, or
/// on `processPendingChanges()` and `save()` for a confined context),
/// rollbacks, and saves merged from other contexts. Each is applied to
/// the sections in memory, without a fetch, when the request has no limit
/// or offset and the change is to the fetched entity (or the predicate,
/// sort and sections read no relationship); otherwise the fetch runs
/// again. Like Core Data's, the results follow a related object's change
/// (a department renamed) only once it is saved and fetched again. Give the section key
/// path's order as the first sort key, as Core Data requires; sections
/// otherwise follow the first appearance of each name.
public final class FetchedResultsController {
    /// One section: the objects sharing a value of the section key path.
    public struct Section {
        /// The section key path's value as text; "" for nil (and for the
        /// single section when there is no key path).
        public let name: String
        /// The name's first letter, capitalized.
        public let indexTitle: String?
        /// The section's objects, in the request's sort order.
        public let objects: [ManagedObject]
        /// How many objects the section holds.
        public var numberOfObjects: Int { objects.count }
    }

    /// The request whose results the controller holds; give it sort
    /// descriptors, the section key path first.
    public let fetchRequest: FetchRequest
    /// The context the controller fetches from and follows.
    public let context: ManagedObjectContext
    /// The key path whose value names each object's section (through to-one
    /// relationships too, `department.name`), or nil for one section.
    public let sectionNameKeyPath: String?
    /// Told about every change of the results; held weakly.
    public weak var delegate: FetchedResultsControllerDelegate?

    /// The results in sections, in order; nil until `performFetch()`.
    public private(set) var sections: [Section]?
    /// Every object of the results, section after section; nil until
    /// `performFetch()`.
    public var fetchedObjects: [ManagedObject]? { sections.map { $0.flatMap(\.objects) } }

    /// The sections' index titles, once each, in order.
    public var sectionIndexTitles: [String] {
        var seen: Set<String> = []
        return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
    }

    private var observation: UUID?
    private let streams = SnapshotStreams()

    /// A controller for `fetchRequest` in `context`, sectioned by
    /// `sectionNameKeyPath` (one section for nil). It fetches nothing until
    /// `performFetch()`.
    public init(fetchRequest: FetchRequest, context: ManagedObjectContext, sectionNameKeyPath: String? = nil) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
    }

    deinit {
        if let observation { context.removeObjectsDidChangeObserver(observation) }
        streams.finishAll()
    }

    /// Runs the fetch and starts following the context's changes.
    public func performFetch() throws {
        sections = try currentSections()
        if observation == nil {
            observation = context.addObjectsDidChangeObserver { [weak self] note in self?.contextDidChange(note) }
        }
        streams.yield(snapshot)
    }

    /// The object at `indexPath`. A position outside the results is a
    /// programming error and stops the program.
    public func object(at indexPath: ResultIndexPath) -> ManagedObject {
        guard let sections, sections.indices.contains(indexPath.section),
              sections[indexPath.section].objects.indices.contains(indexPath.item) else {
            preconditionFailure("no object at \(indexPath)")
        }
        return sections[indexPath.section].objects[indexPath.item]
    }

    /// The position of `object` in the results, or nil when it is not in
    /// them.
    public func indexPath(for object: ManagedObject) -> ResultIndexPath? {
        for (s, section) in (sections ?? []).enumerated() {
            if let i = section.objects.firstIndex(where: { $0 === object }) { return ResultIndexPath(item: i, section: s) }
        }
        return nil
    }

    // MARK: - Snapshots

    /// The results as IDs, which can cross to other tasks.
    public struct Snapshot: Sendable, Equatable {
        /// One section of a snapshot.
        public struct Section: Sendable, Equatable {
            /// The section's name, as in
            /// ``FetchedResultsController/Section/name``.
            public let name: String
            /// The IDs of the section's objects, in order.
            public let objectIDs: [ObjectID]
        }
        /// The sections, in order.
        public let sections: [Section]
        /// Every ID, section after section.
        public var objectIDs: [ObjectID] { sections.flatMap(\.objectIDs) }
    }

    /// The current results as a snapshot (empty before `performFetch()`).
    public var snapshot: Snapshot {
        Snapshot(sections: (sections ?? []).map { Snapshot.Section(name: $0.name, objectIDs: $0.objects.map(\.objectID)) })
    }

    /// Every new state of the results, starting with the current one once
    /// fetched: for `for await snapshot in results.snapshots { … }`.
    public var snapshots: AsyncStream<Snapshot> {
        let (stream, continuation) = AsyncStream<Snapshot>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = streams.add(continuation)
        continuation.onTermination = { [streams] _ in streams.remove(id) }
        if sections != nil { continuation.yield(snapshot) }
        return stream
    }

    // MARK: - Following changes

    private func currentSections() throws -> [Section] {
        sectioned(Array(try context.fetch(fetchRequest)))
    }

    /// The objects, in order, cut into sections by the section key path.
    private func sectioned(_ objects: [ManagedObject]) -> [Section] {
        guard let keyPath = sectionNameKeyPath else {
            return [Section(name: "", indexTitle: nil, objects: objects)]
        }
        let path = keyPath.split(separator: ".").map(String.init)
        var names: [String] = []
        var members: [String: [ManagedObject]] = [:]
        for object in objects {
            let name = Self.sectionName(object.sortValue(path))
            if members[name] == nil { names.append(name) }
            members[name, default: []].append(object)
        }
        return names.map { name in
            Section(name: name, indexTitle: name.first.map { String($0).uppercased() }, objects: members[name]!)
        }
    }

    private static func sectionName(_ value: Value) -> String {
        switch value {
        case .null: return ""
        case .string(let s): return s
        default: return value.modelPlainText
        }
    }

    /// The results after `note`, worked out from the results before it
    /// without a fetch: the changed objects leave, those that now match
    /// the predicate come back, and the list is sorted as a fetch sorts.
    /// Nil when that cannot give what a fetch would: a limit or offset (an
    /// object leaving the window lets one in from the store), or a change
    /// to another entity when the predicate, the sort or the sections may
    /// look through relationships at it; or a note that every object may
    /// have changed.
    private func applying(_ note: ObjectsDidChangeNotification, to old: [Section]) throws -> [Section]? {
        guard !note.invalidatedAllObjects, fetchRequest.fetchLimit == 0, fetchRequest.fetchOffset == 0,
              let entity = context.persistentStoreCoordinator?.model.entity(named: fetchRequest.entityName) else { return nil }
        let kinds = Set((fetchRequest.includesSubentities ? entity.selfAndDescendants : [entity]).map(ObjectIdentifier.init))
        let changed = note.insertedObjects + note.updatedObjects
        let looksThroughRelationships = fetchRequest.predicate != nil
            || fetchRequest.sortDescriptors.contains { $0.keyPath.count > 1 }
            || sectionNameKeyPath?.contains(".") == true
        if looksThroughRelationships,
           (changed + note.deletedObjects).contains(where: { !kinds.contains(ObjectIdentifier($0.entity)) }) {
            return nil
        }
        var leaving = Set(note.deletedObjects.map(ObjectIdentifier.init))
        var coming: [ManagedObject] = []
        for object in changed where kinds.contains(ObjectIdentifier(object.entity)) {
            leaving.insert(ObjectIdentifier(object))
            guard object.managedObjectContext === context, !object.isDeleted else { continue }
            if let predicate = fetchRequest.predicate, !(try object.matches(predicate)) { continue }
            coming.append(object)
        }
        let kept = old.flatMap(\.objects).filter { !leaving.contains(ObjectIdentifier($0)) }
        return sectioned(context.sortInMemory(kept + coming, by: fetchRequest.sortDescriptors))
    }

    private func contextDidChange(_ note: ObjectsDidChangeNotification) {
        guard let old = sections else { return }
        let new: [Section]
        do { new = try applying(note, to: old) ?? currentSections() } catch {
            MRLog.error("cannot refresh fetched results: \(error)")
            return
        }
        sections = new
        let changes = ResultsDiff(old: old, new: new, updated: Set((note.updatedObjects + note.insertedObjects).map(ObjectIdentifier.init)))
        guard !changes.isEmpty else { return }
        streams.yield(snapshot)
        guard let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for (index, section) in changes.deletedSections { delegate.controller(self, didChange: section, atSectionIndex: index, for: .delete) }
        for (index, section) in changes.insertedSections { delegate.controller(self, didChange: section, atSectionIndex: index, for: .insert) }
        for change in changes.objects {
            delegate.controller(self, didChange: change.object, at: change.old, for: change.type, newIndexPath: change.new)
        }
        delegate.controllerDidChangeContent(self)
    }
}

/// The changes between two states of sectioned results, with positions:
/// deletes at their old index paths, inserts at their new ones, moves for
/// objects that changed section or left the longest run of objects that
/// kept their relative order, updates for changed objects that did not move.
struct ResultsDiff {
    struct ObjectChange {
        let object: ManagedObject
        let type: ResultsChangeType
        let old: ResultIndexPath?
        let new: ResultIndexPath?
    }

    var deletedSections: [(Int, FetchedResultsController.Section)] = []
    var insertedSections: [(Int, FetchedResultsController.Section)] = []
    /// Deletes, inserts, moves, updates, each in index-path order.
    var objects: [ObjectChange] = []

    var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objects.isEmpty }

    init(old: [FetchedResultsController.Section], new: [FetchedResultsController.Section], updated: Set<ObjectIdentifier>) {
        let oldNames = Set(old.map(\.name)), newNames = Set(new.map(\.name))
        for (i, section) in old.enumerated() where !newNames.contains(section.name) { deletedSections.append((i, section)) }
        for (i, section) in new.enumerated() where !oldNames.contains(section.name) { insertedSections.append((i, section)) }

        func positions(_ sections: [FetchedResultsController.Section]) -> [ObjectIdentifier: (ResultIndexPath, ManagedObject)] {
            var result: [ObjectIdentifier: (ResultIndexPath, ManagedObject)] = [:]
            for (s, section) in sections.enumerated() {
                for (i, object) in section.objects.enumerated() { result[ObjectIdentifier(object)] = (ResultIndexPath(item: i, section: s), object) }
            }
            return result
        }
        let before = positions(old), after = positions(new)
        var deletes: [ObjectChange] = [], inserts: [ObjectChange] = [], moves: [ObjectChange] = [], updates: [ObjectChange] = []
        for (key, (path, object)) in before where after[key] == nil {
            deletes.append(ObjectChange(object: object, type: .delete, old: path, new: nil))
        }
        for (key, (path, object)) in after where before[key] == nil {
            inserts.append(ObjectChange(object: object, type: .insert, old: nil, new: path))
        }
        // Objects staying in a section of the same name keep their place
        // when they belong to the longest run that kept its order.
        var stayed: Set<ObjectIdentifier> = []
        for section in new {
            guard let previous = old.first(where: { $0.name == section.name }) else { continue }
            let survivors = previous.objects.map(ObjectIdentifier.init).filter { key in
                section.objects.contains { ObjectIdentifier($0) == key }
            }
            let newIndex = Dictionary(section.objects.enumerated().map { (ObjectIdentifier($1), $0) }, uniquingKeysWith: { a, _ in a })
            stayed.formUnion(Self.longestIncreasingRun(survivors, by: { newIndex[$0]! }))
        }
        for (key, (newPath, object)) in after {
            guard let (oldPath, _) = before[key] else { continue }
            if !stayed.contains(key) {
                moves.append(ObjectChange(object: object, type: .move, old: oldPath, new: newPath))
            } else if updated.contains(key) {
                updates.append(ObjectChange(object: object, type: .update, old: oldPath, new: newPath))
            }
        }
        objects = deletes.sorted { $0.old! < $1.old! } + inserts.sorted { $0.new! < $1.new! }
            + moves.sorted { $0.new! < $1.new! } + updates.sorted { $0.old! < $1.old! }
    }

    /// The longest subsequence of `items` whose keys increase (patience
    /// sorting), as a set.
    static func longestIncreasingRun(_ items: [ObjectIdentifier], by key: (ObjectIdentifier) -> Int) -> Set<ObjectIdentifier> {
        guard !items.isEmpty else { return [] }
        var tails: [Int] = []          // index into items of the smallest tail per length
        var previous = Array(repeating: -1, count: items.count)
        for (i, item) in items.enumerated() {
            let k = key(item)
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if key(items[tails[mid]]) < k { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var result: Set<ObjectIdentifier> = []
        var i = tails.last!
        while i >= 0 {
            result.insert(items[i])
            i = previous[i]
        }
        return result
    }
}

/// The continuations of a controller's snapshot streams.
final class SnapshotStreams: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<FetchedResultsController.Snapshot>.Continuation] = [:]

    func add(_ continuation: AsyncStream<FetchedResultsController.Snapshot>.Continuation) -> UUID {
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        return id
    }

    func remove(_ id: UUID) { _ = lock.withLock { continuations.removeValue(forKey: id) } }

    func yield(_ snapshot: FetchedResultsController.Snapshot) {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield(snapshot) }
    }

    func finishAll() {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.finish() }
    }
}

/// Follows one object: `onChange` after each change to it, `onDelete`
/// once when it is deleted or leaves its context.
///
/// ```swift
/// let observer = ObjectObserver(person, onChange: { print($0["age"]) }, onDelete: { _ in print("gone") })
/// ```
public final class ObjectObserver {
    /// The object followed.
    public let object: ManagedObject
    private weak var context: ManagedObjectContext?
    private var token: UUID?

    /// Starts following `object`, which must be in a context: `onChange`
    /// runs, on the context's queue, after each objects-did-change
    /// notification that names the object as updated; `onDelete` runs once
    /// when it is deleted or leaves the context, and observing stops. Keep
    /// the observer: releasing it stops observing too.
    public init(_ object: ManagedObject, onChange: @escaping (ManagedObject) -> Void,
                onDelete: @escaping (ManagedObject) -> Void = { _ in }) {
        precondition(object.managedObjectContext != nil, "the object belongs to no context")
        self.object = object
        let context = object.managedObjectContext!
        self.context = context
        token = context.addObjectsDidChangeObserver { [weak self] note in
            guard let self, self.token != nil else { return }
            if note.deletedObjects.contains(where: { $0 === self.object }) {
                self.cancel()
                onDelete(self.object)
            } else if note.updatedObjects.contains(where: { $0 === self.object }) {
                onChange(self.object)
            }
        }
    }

    /// Stops observing.
    public func cancel() {
        if let token { context?.removeObjectsDidChangeObserver(token) }
        token = nil
    }

    deinit { cancel() }
}
