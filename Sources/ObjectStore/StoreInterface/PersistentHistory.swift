import Foundation
import Predicates

/// One transaction of Core Data's persistent history: a save, with who
/// made it and what it changed (`NSPersistentHistoryTransaction`).
///
/// ```swift
/// for transaction in try coordinator.persistentHistory() {
///     print(transaction.timestamp, transaction.author ?? "-", transaction.changes.count)
/// }
/// ```
public struct HistoryTransaction: Sendable, Hashable {
    /// The transaction's number in the store (`ATRANSACTION.Z_PK`), in
    /// the order the saves happened.
    public let number: Int64
    /// When the save happened.
    public let timestamp: Date
    /// `NSManagedObjectContext.transactionAuthor` of the saving context.
    public let author: String?
    /// The bundle identifier of the app that saved.
    public let bundleID: String?
    /// `NSManagedObjectContext.name` of the saving context.
    public let contextName: String?
    /// The process that saved, as Core Data records it.
    public let processID: String?
    /// The objects the save inserted, updated or deleted.
    public let changes: [HistoryChange]
}

/// One object's change in a ``HistoryTransaction``
/// (`NSPersistentHistoryChange`).
public struct HistoryChange: Sendable, Hashable {
    /// What a change did (`NSPersistentHistoryChangeType`).
    public enum Kind: String, Sendable, Hashable {
        /// The object was inserted.
        case insert
        /// The object's values or relationships changed.
        case update
        /// The object was deleted.
        case delete
    }

    /// The change's number in the store (`ACHANGE.Z_PK`).
    public let number: Int64
    /// What happened to the object.
    public let kind: Kind
    /// The changed object's entity: by name when the store numbers it,
    /// else `#<number>`.
    public let entityName: String
    /// The changed object's primary key (`Z_PK`).
    public let primaryKey: Int64
    /// For an update, the properties it changed, when the model names
    /// them; empty otherwise.
    public let updatedProperties: [String]
}

extension PersistentStoreCoordinator {
    /// The persistent history the store keeps (Core Data's
    /// `NSPersistentHistoryChangeRequest.fetchHistory(after:)`), oldest
    /// first; only transactions after `date` when one is given. A store
    /// without history tracking (every mrq store, and Core Data stores
    /// opened without `NSPersistentHistoryTrackingKey`) has none: empty.
    public func persistentHistory(after date: Date? = nil) throws -> [HistoryTransaction] {
        try backends.flatMap { try $0.persistentHistory(after: date) }
    }

    /// The statements ``persistentHistory(after:)`` runs, for `explain`:
    /// it reads the history (reads only), noting each statement, so the
    /// list is the one the store's tables ask for.
    ///
    /// ```swift
    /// print(try coordinator.explainPersistentHistory().steps.map(\.sql))
    /// ```
    public func explainPersistentHistory(after date: Date? = nil) throws -> FetchExplanation {
        let steps = try backends.flatMap { try $0.persistentHistoryStatements(after: date) }
        return FetchExplanation(steps: steps, residual: nil, sortsInMemory: false, mergesPendingChanges: false,
                                windowsInMemory: false, havingResidual: nil, engine: .sqlite)
    }
}
