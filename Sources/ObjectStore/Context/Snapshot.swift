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
    /// Relationship slots in `entity.relationships` order: each to-one's
    /// destination, and to-manys as the source had them (a fault for a
    /// store's row). An object's own slots serve as they are: its snapshot
    /// shares them rather than listing its to-ones again.
    package var links: [RelationshipSlot]

    package init(id: ObjectID, version: Int64, values: [Value], links: [RelationshipSlot]) {
        self.id = id
        self.version = version
        self.values = values
        self.links = links
    }

    /// A snapshot from to-one destinations (nil for a to-many slot).
    package init(id: ObjectID, version: Int64, values: [Value], toOne: [ObjectID?]) {
        self.init(id: id, version: version, values: values, links: Self.links(toOne, of: id.entity))
    }

    private static func links(_ toOne: [ObjectID?], of entity: EntityDescription) -> [RelationshipSlot] {
        let relationships = entity.relationships
        return toOne.indices.map { i in
            i < relationships.count && relationships[i].isToMany ? .toManyFault : .toOne(toOne[i])
        }
    }

    /// The destination of the to-one at `index`; nil for an empty to-one
    /// or a to-many.
    @inline(__always)
    package func toOneID(at index: Int) -> ObjectID? {
        if case .toOne(let id) = links[index] { return id }
        return nil
    }

    package mutating func setToOneID(_ id: ObjectID?, at index: Int) {
        links[index] = .toOne(id)
    }

    /// Every slot's to-one destination, nil for a to-many.
    package var toOne: [ObjectID?] {
        get { links.indices.map { toOneID(at: $0) } }
        set { links = Self.links(newValue, of: id.entity) }
    }

    /// Whether the to-manys are all faults, as in a store's row: then an
    /// object can take `links` as its own slots.
    var toManysAreFaults: Bool {
        !links.contains { if case .toMany = $0 { return true }; return false }
    }
}

/// Relationship contents as a context holds them.
package enum RelationshipSlot: Sendable {
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
package struct ObjectIDSet: Sequence, Sendable {
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

    /// Whether both hold the same IDs (in the same order, when `ordered`).
    package func hasSameMembers(as other: ObjectIDSet, ordered: Bool) -> Bool {
        guard count == other.count else { return false }
        if ordered { return ids == other.ids }
        return ids.allSatisfy(other.contains)
    }
}
