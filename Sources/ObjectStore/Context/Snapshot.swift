import Foundation
import Predicates

/// One object's persistent state as its source holds it: attribute values
/// in slot order, and the destination of every to-one.
package struct Snapshot: Sendable {
    package var id: ObjectID
    /// Optimistic-locking version: bumped by every save that changes the row.
    package var version: Int64
    /// Values in `entity.attributes` order; transient slots hold `.null`.
    package var values: [Value]
    /// Destinations in `entity.relationships` order; nil for a to-many slot
    /// or an empty to-one.
    package var toOne: [ObjectID?]
}

/// Relationship contents as a context holds them.
package enum RelationshipSlot {
    case toOne(ObjectID?)
    /// A to-many not yet loaded.
    case toManyFault
    case toMany(ObjectIDSet)
}

/// An insertion-ordered set of object IDs.
package struct ObjectIDSet: Sequence {
    package private(set) var ids: [ObjectID] = []
    private var members: Set<ObjectID> = []

    package init() {}
    package init<S: Sequence>(_ ids: S) where S.Element == ObjectID {
        for id in ids { insert(id) }
    }

    package var count: Int { ids.count }
    package func contains(_ id: ObjectID) -> Bool { members.contains(id) }

    @discardableResult
    package mutating func insert(_ id: ObjectID) -> Bool {
        guard members.insert(id).inserted else { return false }
        ids.append(id)
        return true
    }

    package mutating func insert(_ id: ObjectID, at index: Int) {
        guard members.insert(id).inserted else { return }
        ids.insert(id, at: Swift.min(index, ids.count))
    }

    @discardableResult
    package mutating func remove(_ id: ObjectID) -> Bool {
        guard members.remove(id) != nil else { return false }
        ids.removeAll { $0 == id }
        return true
    }

    /// Replaces every ID by `transform`'s answer, keeping the order; an
    /// ID already present drops out.
    package mutating func replaceAll(_ transform: (ObjectID) -> ObjectID) {
        let old = ids
        ids.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        for id in old { insert(transform(id)) }
    }

    package func makeIterator() -> IndexingIterator<[ObjectID]> { ids.makeIterator() }
}
