import Foundation
import Predicates

/// What a save does when an object changed elsewhere since the context
/// read it (Core Data's merge policies): in the store (another context or
/// process saved the row) or, for a child context, in its parent (a
/// sibling's save landed there).
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump
/// ```
///
/// Merges go property by property: a property this context changed is
/// "mine", one that changed elsewhere "theirs". A property changed only on
/// one side keeps that side's value under both property policies, so no
/// update is lost; they differ on properties changed on both sides. An
/// object deleted elsewhere stays deleted: this context's changes to it
/// are dropped (under `.error` the save is refused first). The same
/// policies resolve uniqueness-constraint conflicts (see `save()`).
public enum MergePolicy: Sendable {
    /// Refuse the save with a `MergeConflictError` naming each object and
    /// key (`NSErrorMergePolicy`); nothing is written.
    case error
    /// Keep the context's values for the properties it changed, take the
    /// current ones for the others (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrump
    /// Take the current values for properties changed elsewhere, keep the
    /// context's for the others it changed
    /// (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrump
    /// Write the context's whole objects over the current ones, properties
    /// it did not change included (`NSOverwriteMergePolicy`).
    case overwrite
    /// Drop the context's changes to objects that changed elsewhere
    /// (`NSRollbackMergePolicy`).
    case rollback
    /// Merge changes to different properties, refuse the rest: the save
    /// throws `MergeConflictError` (nothing written) when a property this
    /// context changed was changed elsewhere to another value, when an
    /// object it changed was deleted elsewhere, or when an object it
    /// deletes was changed elsewhere; and
    /// `ConstraintConflictError` when a new object shares a uniqueness
    /// constraint's values with a stored row, instead of merging into it.
    /// Changes that do not meet merge as under
    /// `.mergeByPropertyObjectTrump`, so no update is lost either way.
    ///
    /// ```swift
    /// context.mergePolicy = .mergeOrRefuse
    /// do { try context.save() } catch let error as MergeConflictError {
    ///     for conflict in error.conflicts { print(conflict.properties) }
    /// }
    /// ```
    case mergeOrRefuse
}

/// A save refused because objects changed elsewhere since the context
/// read them (under `MergePolicy.error`); nothing was written.
public struct MergeConflictError: Error, CustomStringConvertible {
    /// One object whose stored (or parent) state changed since the context
    /// read it.
    public struct Conflict: Sendable {
        /// The object in conflict.
        public let objectID: ObjectID
        /// The object as messages name it: its entity and unique key
        /// (`Person personID = 7`) when the entity has a one-attribute
        /// uniqueness constraint, else its entity and row (`Person p3`).
        public let objectName: String
        /// Keys whose current value differs from what the context last read.
        public let keys: [String]
        /// The object is gone: deleted in the store or the parent context.
        public let isDeletedInStore: Bool
        /// This context deletes the object, which changed elsewhere: the
        /// delete would drop those changes.
        public let isDeletedInContext: Bool
        /// The properties changed on both sides to different values (Core
        /// Data's `NSMergeConflict` snapshots, for those keys); for an
        /// object deleted elsewhere, the properties this context changed;
        /// for one this context deletes, those changed elsewhere.
        public let properties: [PropertyConflict]
    }

    /// One property of a conflict: what this context last read, what its
    /// source holds now, and what this context wants to write. A to-one's
    /// value is its destination's name (`Department p2`) or `.null`.
    public struct PropertyConflict: Sendable, Equatable {
        /// The attribute or to-one relationship.
        public let key: String
        /// The value this context last read (`cachedSnapshot`).
        public let cached: Value
        /// The value stored now (`persistedSnapshot`); nil when the object
        /// was deleted elsewhere.
        public let persisted: Value?
        /// This context's value (`objectSnapshot`).
        public let object: Value
    }

    /// Every object in conflict, in the order the save met them.
    public let conflicts: [Conflict]
    /// Whether the objects changed in the parent context (a child's save)
    /// rather than in the store.
    public let isInParentContext: Bool

    init(conflicts: [Conflict], isInParentContext: Bool) {
        self.conflicts = conflicts
        self.isInParentContext = isInParentContext
    }

    /// The first few conflicts in full, then how many more.
    public var description: String {
        let place = isInParentContext ? "the parent context" : "the store"
        let shown = conflicts.prefix(ConflictText.shown).map { conflict -> String in
            let name = conflict.objectName
            if conflict.isDeletedInStore {
                let changed = conflict.properties.map { property in
                    // A to-one's value is its destination's name, unquoted.
                    let isToOne = conflict.objectID.entity.relationshipSlot(named: property.key) != nil
                    var mine = ConflictText.literal(property.object)
                    if isToOne, case .string(let name) = property.object { mine = name }
                    return "\(property.key) is gone there, \(mine) yours"
                }
                return "\(name) was deleted in \(place)"
                    + (changed.isEmpty ? "" : ", so your change cannot be written: \(changed.joined(separator: "; "))")
            }
            let changed = "\(name) changed in \(place) (\(conflict.keys.joined(separator: ", ")))"
            guard !conflict.properties.isEmpty else { return changed }
            if conflict.isDeletedInContext {
                let values = conflict.properties.map { "\($0.key) is \($0.persisted.map(ConflictText.literal) ?? "nil") there" }
                return changed + " since you read it, and your save deletes it: " + values.joined(separator: ", ")
            }
            let values = conflict.properties.map { property in
                "\(property.key) is \(property.persisted.map(ConflictText.literal) ?? "nil") there, "
                    + "\(ConflictText.literal(property.object)) yours (read as \(ConflictText.literal(property.cached)))"
            }
            return changed + " since you read it: " + values.joined(separator: ", ")
        }
        return "merge conflict: " + ConflictText.list(shown, total: conflicts.count)
    }
}

/// A save refused because objects share the values of a uniqueness
/// constraint, with each other or with a stored row (Core Data's
/// `NSConstraintConflict`, under `MergePolicy.error`, or when two stored
/// rows would have to become one); nothing was written.
///
/// ```swift
/// catch let error as ConstraintConflictError {
///     for conflict in error.conflicts { print(conflict.constraint, conflict.values) }
/// }
/// ```
public struct ConstraintConflictError: Error, CustomStringConvertible {
    /// One set of values that more than one object holds for a uniqueness
    /// constraint.
    public struct Conflict: Sendable {
        /// The entity declaring the constraint, and its properties.
        public let entity: String
        /// The constraint's property names, as the model declares them.
        public let constraint: [String]
        /// The values the objects share, in constraint order.
        public let values: [Value]
        /// The saved objects holding them.
        public let objectIDs: [ObjectID]
        /// The stored object already holding them, if any.
        public let existingObjectID: ObjectID?
    }

    /// Every conflict the save found, one per shared set of values.
    public let conflicts: [Conflict]

    /// The first few conflicts in full, then how many more.
    public var description: String {
        let shown = conflicts.prefix(ConflictText.shown).map { conflict -> String in
            let keys = conflict.constraint.count == 1 ? conflict.constraint[0] : "(" + conflict.constraint.joined(separator: ", ") + ")"
            let values = conflict.values.map(ConflictText.literal)
            let value = values.count == 1 ? values[0] : "(" + values.joined(separator: ", ") + ")"
            var holders = conflict.objectIDs.count == 1 ? "a saved object" : "\(conflict.objectIDs.count) saved objects"
            // The stored row by entity and row number: its URI says no more
            // and buries the key in a line of text.
            if let existing = conflict.existingObjectID {
                holders += " and the stored \(existing.entity.name) (row \(existing.primaryKey))"
            }
            return "\(conflict.entity).\(keys) = \(value) (\(holders))"
        }
        return "uniqueness constraint conflict: " + ConflictText.list(shown, total: conflicts.count)
    }
}

/// How conflict errors list their conflicts.
enum ConflictText {
    /// How many conflicts an error message spells out.
    static let shown = 3

    static func list(_ shown: [String], total: Int) -> String {
        let more = total - shown.count
        return shown.joined(separator: "; ") + (more > 0 ? "; and \(more) more" : "")
    }

    static func literal(_ value: Value) -> String {
        if case .string(let s) = value { return Printer.quote(s) }
        return value.anyValue.map { "\($0)" } ?? "nil"
    }
}

/// Objects refused by validation; every failure of the save, together.
public struct ValidationError: Error, CustomStringConvertible {
    /// One rule one object broke: a missing required value, a value out of
    /// range, a relationship count, a deny delete rule or a refusal from a
    /// `validate…` hook.
    public struct Failure: Sendable, CustomStringConvertible {
        /// The object refused.
        public let objectID: ObjectID
        /// The name of the object's entity.
        public let entity: String
        /// The entity's name for users: `Entity/<name>` in the model's
        /// localization dictionary, or the name.
        public let localizedEntity: String
        /// The attribute or relationship at fault, or nil when the failure is
        /// about the whole object.
        public let key: String?
        /// What is wrong, for users (the model's localized message when it has
        /// one).
        public let message: String
        public var description: String { message }

        /// A failure of the object `objectID`, for `key` (nil for the
        /// object as a whole); throw it from a `validate…` hook inside a
        /// `ValidationError`.
        ///
        /// ```swift
        /// override func validateForInsert() throws {
        ///     if case .string(let code) = self["code"], code.count != 3 {
        ///         throw ValidationError(failures: [.init(
        ///             objectID: objectID, key: "code",
        ///             message: "a code has three letters")])
        ///     }
        /// }
        /// ```
        public init(objectID: ObjectID, key: String?, message: String) {
            self.objectID = objectID
            self.entity = objectID.entity.name
            self.localizedEntity = objectID.entity.model?.localizedName(ofEntity: entity) ?? entity
            self.key = key
            self.message = message
        }
    }

    /// Every failure of the save, for all its objects.
    public let failures: [Failure]

    /// An error holding `failures`.
    public init(failures: [Failure]) { self.failures = failures }

    public var description: String {
        let messages = failures.map { "\($0.localizedEntity): \($0.message)" }
        return messages.count == 1 ? messages[0] : "\(messages.count) validation errors: " + messages.joined(separator: "; ")
    }
}

/// What one save changed, for merging into other contexts.
public struct ContextDidSaveNotification: @unchecked Sendable {
    /// The objects the save inserted, with the IDs they have after it
    /// (permanent when the save reached the store).
    public let insertedObjectIDs: [ObjectID]
    /// The objects whose changes the save wrote.
    public let updatedObjectIDs: [ObjectID]
    /// The objects the save deleted.
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

    /// The name under which every save is also posted to
    /// `NotificationCenter.default`, with the saving context as the object
    /// (Core Data's `NSManagedObjectContextDidSave`). The notification
    /// carries no user info: use `addDidSaveObserver(_:)` for the changes.
    public static let name = Notification.Name("ManagedObjectContextDidSave")
}
