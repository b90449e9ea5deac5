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
///
/// IDs usually arrive in the order their objects were made or stored: new
/// objects' temporary numbers, or rows in key order, as a fetch returns
/// them. While they do, the list is sorted by that number and is its own
/// index: an add is an append after one comparison and a lookup a binary
/// search, with no hashing and no hash table (a department's inverse
/// to-many grows by every employee an import adds). The first ID out of
/// that order builds a hash set, which is used from then on.
package struct ObjectIDSet: Sequence {
    package private(set) var ids: [ObjectID] = []
    /// nil while `ids` is in rank order (see `rank`).
    private var members: Set<ObjectID>?

    package init() {}
    package init<S: Sequence>(_ ids: S) where S.Element == ObjectID {
        for id in ids { insert(id) }
    }

    package var count: Int { ids.count }

    package func contains(_ id: ObjectID) -> Bool {
        if let members { return members.contains(id) }
        return sortedPosition(of: id) != nil
    }

    /// The order of sorted IDs: the temporary number or the row. Sorted
    /// IDs are all temporary or all of one store, of one hierarchy.
    @inline(__always)
    private static func rank(_ id: ObjectID) -> Int64 {
        id.primaryKey < 0 ? -id.primaryKey : id.primaryKey
    }

    /// Whether `id` may stand in a sorted list with `other`: only then
    /// can it be equal to it, and their ranks be compared.
    @inline(__always)
    private static func sameKind(_ id: ObjectID, _ other: ObjectID) -> Bool {
        id.isTemporaryID == other.isTemporaryID && id.storeNumber == other.storeNumber
            && id.entity.rootEntity === other.entity.rootEntity
    }

    /// Where `id` is in the sorted list.
    private func sortedPosition(of id: ObjectID) -> Int? {
        guard let first = ids.first, Self.sameKind(id, first) else { return nil }
        let rank = Self.rank(id)
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            let found = Self.rank(ids[middle])
            if found == rank { return middle }
            if found < rank { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Leaves the sorted order: from now on lookups hash.
    private mutating func buildMembers() {
        guard members == nil else { return }
        members = Set(ids)
    }

    @discardableResult
    package mutating func insert(_ id: ObjectID) -> Bool {
        if members == nil {
            guard let last = ids.last else {
                ids.append(id)
                return true
            }
            if Self.sameKind(id, last), Self.rank(id) > Self.rank(last) {
                ids.append(id)
                return true
            }
            if sortedPosition(of: id) != nil { return false }
            buildMembers()
        }
        guard members!.insert(id).inserted else { return false }
        ids.append(id)
        return true
    }

    package mutating func insert(_ id: ObjectID, at index: Int) {
        guard !contains(id) else { return }
        buildMembers()
        members!.insert(id)
        ids.insert(id, at: Swift.min(index, ids.count))
    }

    @discardableResult
    package mutating func remove(_ id: ObjectID) -> Bool {
        if members == nil {
            // Removing keeps the rest in order.
            guard let position = sortedPosition(of: id) else { return false }
            ids.remove(at: position)
            return true
        }
        guard members!.remove(id) != nil else { return false }
        ids.removeAll { $0 == id }
        return true
    }

    /// Replaces every ID by `transform`'s answer, keeping the order; an
    /// ID already present drops out.
    package mutating func replaceAll(_ transform: (ObjectID) -> ObjectID) {
        let old = ids
        ids.removeAll(keepingCapacity: true)
        members = nil
        for id in old { insert(transform(id)) }
    }

    package func makeIterator() -> IndexingIterator<[ObjectID]> { ids.makeIterator() }
}
