import ObjectStore

/// What a session's context holds that its store does not: inserted,
/// updated and deleted objects, counted per entity.
///
/// ```swift
/// let pending = session.pendingChanges
/// if !pending.isEmpty { print("unsaved changes: \(pending)") }
/// // unsaved changes: Department: 1 deleted; Person: 3 inserted, 1 updated
/// ```
public struct PendingChanges: Sendable, Hashable, CustomStringConvertible {
    /// The changes to one entity's objects.
    public struct EntityChanges: Sendable, Hashable {
        /// The entity's name.
        public var entity: String
        /// Objects inserted, updated and deleted since the last save.
        public var inserted = 0
        public var updated = 0
        public var deleted = 0

        /// The counts for `entity`.
        public init(entity: String, inserted: Int = 0, updated: Int = 0, deleted: Int = 0) {
            self.entity = entity
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
        }

        /// Inserted, updated and deleted objects together.
        public var total: Int { inserted + updated + deleted }
    }

    /// One entry per entity with changes, sorted by entity name.
    public var entities: [EntityChanges]

    /// The changes of `entities`; entities without any are left out.
    public init(entities: [EntityChanges] = []) {
        self.entities = entities.filter { $0.total > 0 }.sorted { $0.entity < $1.entity }
    }

    /// The pending changes of `context`.
    init(of context: ManagedObjectContext) {
        var byName: [String: EntityChanges] = [:]
        for object in context.insertedObjects { byName[object.entity.name, default: EntityChanges(entity: object.entity.name)].inserted += 1 }
        for object in context.updatedObjects { byName[object.entity.name, default: EntityChanges(entity: object.entity.name)].updated += 1 }
        for object in context.deletedObjects { byName[object.entity.name, default: EntityChanges(entity: object.entity.name)].deleted += 1 }
        self.init(entities: Array(byName.values))
    }

    /// Whether nothing is pending.
    public var isEmpty: Bool { entities.isEmpty }

    /// Inserted, updated and deleted objects together.
    public var total: Int { entities.reduce(0) { $0 + $1.total } }

    /// `Department: 1 deleted; Person: 3 inserted, 1 updated`.
    public var description: String {
        entities.map { changes in
            let parts = [(changes.inserted, "inserted"), (changes.updated, "updated"), (changes.deleted, "deleted")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            return "\(changes.entity): " + parts.joined(separator: ", ")
        }.joined(separator: "; ")
    }
}
