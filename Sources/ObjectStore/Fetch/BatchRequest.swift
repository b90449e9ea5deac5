import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// A new value for a batch update: a constant, or an expression over the
/// row's own attributes (`age + 1`).
public enum BatchValue: Sendable {
    /// The same value for every row: `.value(.bool(false))`.
    case value(Value)
    /// A value computed per row from its own attributes, in SQL where it
    /// can be and in memory otherwise:
    /// `.expression(try Expression(format: "age + 1"))`.
    case expression(Expression)
}

/// Changes rows straight in the store, without loading objects.
///
/// ```swift
/// let request = BatchUpdateRequest(
///     entityName: "Person", predicate: try Predicate(format: "age < 18"),
///     propertiesToUpdate: ["active": .value(.bool(false))])
/// let result = try context.execute(request)
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
/// ```
///
/// The request sees the store only: unsaved changes of any context are
/// ignored, and live contexts keep stale objects until the result's
/// changes are merged into them. Each row's optimistic-locking version is
/// bumped, so a context saving a stale copy gets a merge conflict.
public struct BatchUpdateRequest: Sendable {
    /// What the ``BatchResult`` reports (Core Data's
    /// `NSBatchUpdateRequestResultType`). Its `changes` are there for
    /// every result type.
    public enum ResultType: Sendable {
        /// Nothing: `count` and `objectIDs` are nil.
        case statusOnly
        /// How many objects matched, in `count` (the default).
        case updatedObjectsCount
        /// The matching objects, in `objectIDs`, and their number in
        /// `count`.
        case updatedObjectIDs
    }

    /// The entity whose rows to change.
    public var entityName: String
    /// Which rows to change; nil changes every row of the entity.
    public var predicate: Predicate?
    /// Attribute name → new value.
    public var propertiesToUpdate: [String: BatchValue]
    /// Whether rows of sub-entities are changed too (true by default, as
    /// in Core Data).
    public var includesSubentities = true
    /// What the result reports; `.updatedObjectsCount` by default.
    public var resultType: ResultType = .updatedObjectsCount
    /// Objects the predicate names as `$variables` (see
    /// ``FetchRequest/objectVariables``).
    public var objectVariables: [String: ObjectVariable] = [:]

    /// The fetch of the matching rows' IDs.
    var matching: FetchRequest {
        FetchRequest.batchMatching(entity: entityName, predicate: predicate, includesSubentities: includesSubentities,
                                   objectVariables: objectVariables)
    }

    /// A request setting `propertiesToUpdate` on the rows of
    /// `entityName` that match `predicate` (every row for nil).
    public init(entityName: String, predicate: Predicate? = nil, propertiesToUpdate: [String: BatchValue]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// Deletes rows straight in the store, without loading objects, running
/// the delete rules in SQL: nullify clears the inverse side, cascade
/// deletes the destinations (recursively), deny refuses the whole request
/// when a matching object still has destinations.
///
/// ```swift
/// let result = try context.execute(BatchDeleteRequest(entityName: "Person",
///                                                     predicate: try Predicate(format: "active == NO")))
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
/// ```
public struct BatchDeleteRequest: Sendable {
    /// What the ``BatchResult`` reports (Core Data's
    /// `NSBatchDeleteRequestResultType`). Its `changes` are there for
    /// every result type.
    public enum ResultType: Sendable {
        /// Nothing: `count` and `objectIDs` are nil.
        case statusOnly
        /// How many objects matched, in `count` (the default).
        case deletedObjectsCount
        /// The matching objects, in `objectIDs`, and their number in
        /// `count`. Objects deleted by cascade are not among them: they
        /// are in `changes.deleted`.
        case deletedObjectIDs
    }

    /// The entity whose rows to delete.
    public var entityName: String
    /// Which rows to delete; nil deletes every row of the entity.
    public var predicate: Predicate?
    /// Whether rows of sub-entities are deleted too (true by default, as
    /// in Core Data).
    public var includesSubentities = true
    /// What the result reports; `.deletedObjectsCount` by default.
    public var resultType: ResultType = .deletedObjectsCount
    /// Objects the predicate names as `$variables` (see
    /// ``FetchRequest/objectVariables``).
    public var objectVariables: [String: ObjectVariable] = [:]

    /// The fetch of the matching rows' IDs.
    var matching: FetchRequest {
        FetchRequest.batchMatching(entity: entityName, predicate: predicate, includesSubentities: includesSubentities,
                                   objectVariables: objectVariables)
    }

    /// A request deleting the rows of `entityName` that match
    /// `predicate` (every row for nil), and what their delete rules
    /// reach.
    public init(entityName: String, predicate: Predicate? = nil) {
        self.entityName = entityName
        self.predicate = predicate
    }
}

/// What a batch request did.
public struct BatchResult: Sendable {
    /// How many objects matched the request (not counting cascades); nil
    /// for `statusOnly`.
    public let count: Int?
    /// The matching objects' IDs, for the `...ObjectIDs` result types.
    public let objectIDs: [ObjectID]?
    /// Every object the request changed or deleted, cascades and nullified
    /// inverses included: hand it to `mergeChanges(fromRemoteContextSave:into:)`.
    public let changes: RemoteChanges
}

/// Object IDs changed outside any context (by a batch request, another
/// process...), to bring into live contexts.
public struct RemoteChanges: Sendable {
    /// Objects that are new in the store.
    public var inserted: [ObjectID]
    /// Objects whose stored values changed.
    public var updated: [ObjectID]
    /// Objects no longer in the store.
    public var deleted: [ObjectID]

    /// Changes naming the given objects, for
    /// `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
    public init(inserted: [ObjectID] = [], updated: [ObjectID] = [], deleted: [ObjectID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether no object changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ManagedObjectContext {
    /// Runs a batch update in the store, in one transaction.
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        let entity = try self.entity(for: FetchRequest(entityName: request.entityName))
        let coordinator = batchCoordinator
        try coordinator.openStoresForWriting()
        let ids = try coordinator.sqlBackend(for: entity, purpose: "a batch update").batchUpdate(
            entity: entity, matching: request.matching, properties: request.propertiesToUpdate, coordinator: coordinator,
            listing: nil)
        return BatchResult(
            count: request.resultType == .statusOnly ? nil : ids.count,
            objectIDs: request.resultType == .updatedObjectIDs ? ids : nil,
            changes: RemoteChanges(updated: ids))
    }

    /// Runs a batch delete in the store, in one transaction; throws a
    /// `ValidationError` (and deletes nothing) when a Deny rule refuses.
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        let entity = try self.entity(for: FetchRequest(entityName: request.entityName))
        let coordinator = batchCoordinator
        try coordinator.openStoresForWriting()
        let outcome = try coordinator.sqlBackend(for: entity, purpose: "a batch delete").batchDelete(
            entity: entity, matching: request.matching, coordinator: coordinator)
        return BatchResult(
            count: request.resultType == .statusOnly ? nil : outcome.matched.count,
            objectIDs: request.resultType == .deletedObjectIDs ? outcome.matched : nil,
            changes: RemoteChanges(updated: outcome.updated, deleted: outcome.deleted))
    }

    /// The statements a batch update runs, without writing: the fetch of
    /// the matching keys (unsaved changes left out), then the UPDATE for
    /// those keys, 500 at a time, each followed by its range check; the
    /// attributes SQL cannot compute are named in `inMemory`, their rows
    /// read and written a few hundred a statement. A dry run: the reads
    /// run, so the statements are the ones the store's data asks for.
    ///
    /// ```swift
    /// let plan = try context.explain(request)
    /// print(plan.steps.map(\.sql))
    /// ```
    public func explain(_ request: BatchUpdateRequest) throws -> (FetchExplanation, inMemory: [String]) {
        let entity = try self.entity(for: FetchRequest(entityName: request.entityName))
        let store = try batchCoordinator.sqlBackend(for: entity, purpose: "a batch update")
        let plan = try store.batchUpdatePlan(entity: entity, properties: request.propertiesToUpdate)
        let listing = StatementList()
        _ = try store.batchUpdate(entity: entity, matching: request.matching, properties: request.propertiesToUpdate,
                                  coordinator: batchCoordinator, listing: listing)
        return (listing.explanation(engine: store.dialect.engine), plan.inMemory.map { $0.0.name })
    }

    /// The statements a batch delete runs, without writing: the fetch of
    /// the matching keys, the delete rules' reads and writes on those keys
    /// (cascades, Deny checks, nullified inverses), the bookkeeping of the
    /// highest keys, then the DELETE of each table's rows: all at once in
    /// PostgreSQL, 500 at a time in SQLite. A dry run: the reads run, so
    /// the statements are the ones the store's data asks for; a Deny that
    /// refuses ends the list.
    public func explain(_ request: BatchDeleteRequest) throws -> FetchExplanation {
        let entity = try self.entity(for: FetchRequest(entityName: request.entityName))
        let store = try batchCoordinator.sqlBackend(for: entity, purpose: "a batch delete")
        let listing = StatementList()
        _ = try store.batchDelete(entity: entity, matching: request.matching, coordinator: batchCoordinator, listing: listing)
        return listing.explanation(engine: store.dialect.engine)
    }

    private var batchCoordinator: PersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            preconditionFailure("the context has no coordinator")
        }
        return coordinator
    }

    /// Brings changes made outside any context into `contexts`, in order
    /// (give parents before their children): deleted objects leave, updated
    /// objects without unsaved changes turn into faults that reload, and
    /// updated objects with unsaved changes take the new values under them.
    public static func mergeChanges(fromRemoteContextSave changes: RemoteChanges, into contexts: [ManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeRemoteChanges(changes) }
        }
    }

    func mergeRemoteChanges(_ changes: RemoteChanges) {
        for id in changes.deleted {
            if let object = registered[id] { forget(object) }
        }
        for id in changes.updated {
            guard let object = registered[id] else { continue }
            if object.hasChanges {
                refresh(object, mergeChanges: true)
            } else if !object.isFault || object.committed != nil {
                refresh(object, mergeChanges: false)
            }
        }
        noteUnregisteredChanges(changes.inserted)
        processPendingChanges()
    }
}

extension FetchRequest {
    /// The fetch of a batch request's matching IDs: the stored objects of
    /// `entity` matching `predicate`, ignoring every context's unsaved
    /// changes.
    static func batchMatching(entity: String, predicate: Predicate?, includesSubentities: Bool,
                              objectVariables: [String: ObjectVariable]) -> FetchRequest {
        var request = FetchRequest(entityName: entity, predicate: predicate)
        request.includesSubentities = includesSubentities
        request.includesPendingChanges = false
        request.objectVariables = objectVariables
        return request
    }
}
