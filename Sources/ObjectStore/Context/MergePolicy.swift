import Foundation
import Predicates

/// What a save does when a row changed in the store since the context read
/// it (Core Data's merge policies).
public enum MergePolicy: Sendable {
    /// Fail the save with a `MergeConflictError` naming each object and key.
    case error
    /// Keep the context's values for the keys it changed, take the store's
    /// for the others (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrump
    /// Keep the store's values for keys changed on both sides
    /// (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrump
    /// Write the context's whole objects over the store's (`NSOverwriteMergePolicy`).
    case overwrite
    /// Drop the context's changes to conflicting objects (`NSRollbackMergePolicy`).
    case rollback
}

/// A save refused because rows changed in the store meanwhile.
public struct MergeConflictError: Error, CustomStringConvertible {
    public struct Conflict: Sendable {
        public let objectID: ObjectID
        /// Keys whose stored value differs from what the context last read.
        public let keys: [String]
        public let isDeletedInStore: Bool
    }

    public let conflicts: [Conflict]

    public var description: String {
        let parts = conflicts.map { conflict in
            conflict.isDeletedInStore
                ? "\(conflict.objectID.entity.name) \(conflict.objectID) was deleted in the store"
                : "\(conflict.objectID.entity.name) \(conflict.objectID) changed in the store (\(conflict.keys.joined(separator: ", ")))"
        }
        return "merge conflict: " + parts.joined(separator: "; ")
    }
}

/// Objects refused by validation; every failure of the save, together.
public struct ValidationError: Error, CustomStringConvertible {
    public struct Failure: Sendable, CustomStringConvertible {
        public let objectID: ObjectID
        public let entity: String
        /// The entity's name for users: `Entity/<name>` in the model's
        /// localization dictionary, or the name.
        public let localizedEntity: String
        public let key: String?
        public let message: String
        public var description: String { message }

        public init(objectID: ObjectID, key: String?, message: String) {
            self.objectID = objectID
            self.entity = objectID.entity.name
            self.localizedEntity = objectID.entity.model?.localizedName(ofEntity: entity) ?? entity
            self.key = key
            self.message = message
        }
    }

    public let failures: [Failure]

    public init(failures: [Failure]) { self.failures = failures }

    public var description: String {
        let messages = failures.map { "\($0.localizedEntity): \($0.message)" }
        return messages.count == 1 ? messages[0] : "\(messages.count) validation errors: " + messages.joined(separator: "; ")
    }
}

/// What one save changed, for merging into other contexts.
public struct ContextDidSaveNotification: @unchecked Sendable {
    public let insertedObjectIDs: [ObjectID]
    public let updatedObjectIDs: [ObjectID]
    public let deletedObjectIDs: [ObjectID]
    /// Temporary ID → permanent ID for the objects the save inserted.
    public let permanentIDs: PermanentIDs
    /// The saved state of inserted and updated objects.
    package let snapshots: [ObjectID: Snapshot]
    /// To-many contents the save wrote.
    package let toMany: [ObjectID: [Int: [ObjectID]]]
    /// The context that saved.
    public weak var context: ManagedObjectContext?
    /// Whether the save wrote to the store (rather than to a parent
    /// context): its snapshots then carry the stored row versions.
    package var isStoreSave = false

    public static let name = Notification.Name("ManagedObjectContextDidSave")
}
