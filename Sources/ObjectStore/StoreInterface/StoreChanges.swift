import Foundation
import Predicates

/// Everything one save writes to a store, in one transaction.
package struct StoreChanges {
    package struct Update {
        package var snapshot: Snapshot
        /// The version the context last saw; the row must still have it.
        package var expectedVersion: Int64
        package var changedAttributes: [Int]
        package var changedToOne: [Int]
    }

    package struct ToManyContents {
        package var source: ObjectID
        package var relationship: RelationshipDescription
        /// The whole new contents, in order for ordered relationships.
        package var destinations: [ObjectID]
    }

    package var inserted: [Snapshot] = []
    package var updated: [Update] = []
    package var deleted: [(id: ObjectID, expectedVersion: Int64)] = []
    package var toMany: [ToManyContents] = []
    /// Hears how many more objects (rows inserted, updated or deleted) are
    /// written, every few hundred and at the end; throws to stop the save.
    package var progress: ((_ rows: Int) throws -> Void)?

    package init() {}

    /// The objects the save writes: inserted, updated and deleted.
    package var objectCount: Int { inserted.count + updated.count + deleted.count }

    package var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && toMany.isEmpty
    }

    /// Starts loading what letting go of the inserted snapshot at `index`
    /// touches, in two steps a few snapshots apart: `.list` loads its
    /// list of values, read from the snapshot without a retain (which
    /// would wait for it); `.strings` then its long strings, whose counts
    /// the last reference to the values drops (see
    /// `Prefetch`).
    func prefetchInserted(at index: Int, _ step: PrefetchStep) {
        guard index >= 0 && index < inserted.count else { return }
        inserted.withUnsafeBufferPointer { snapshots in
            switch step {
            case .list:
                let list = Self.valuesList(of: snapshots.baseAddress! + index)
                // The list's header and its values, one line at a time:
                // as many as the values need, by the snapshot's entity.
                Prefetch.bytes(at: list, count: 32 + MemoryLayout<Value>.stride * snapshots[index].id.entity.attributes.count)
            case .strings:
                Prefetch.strings(in: snapshots[index].values)
            }
        }
    }

    enum PrefetchStep { case list, strings }

    /// Where the list of `snapshot`'s values lives (an array is one
    /// reference to it), read without a retain. The values follow a
    /// 32-byte header (a test checks both).
    static func valuesList(of snapshot: UnsafePointer<Snapshot>) -> UnsafeRawPointer {
        UnsafeRawPointer(snapshot).load(fromByteOffset: MemoryLayout<Snapshot>.offset(of: \.values)!, as: UnsafeRawPointer.self)
    }

    /// Lets go of the values and slots of the inserted snapshot at
    /// `index` (its object's own, shared until then).
    mutating func dropInserted(at index: Int) {
        inserted[index].values = []
        inserted[index].links = []
    }

    /// Lets go of the values and slots of the updated snapshot at `index`.
    mutating func dropUpdated(at index: Int) {
        updated[index].snapshot.values = []
        updated[index].snapshot.links = []
    }
}

/// A row that changed in the store since a context read it.
package struct StoreConflict: Sendable {
    package var id: ObjectID
    package var expectedVersion: Int64
    /// The row as the store has it now; nil when it was deleted.
    package var current: Snapshot?

    package init(id: ObjectID, expectedVersion: Int64, current: Snapshot?) {
        self.id = id
        self.expectedVersion = expectedVersion
        self.current = current
    }
}

extension PermanentIDs {
    /// The ID a relationship of `source` stores for its destination `id`:
    /// its own, or the one this save gives it. A new object this save does
    /// not insert (deleted, or its insert undone, while something still
    /// named it) has no row to name: the save is refused, as Core Data
    /// refuses a dangling reference, rather than storing a key of nothing.
    package func destination(_ id: ObjectID, of source: ObjectID, key: String) throws -> ObjectID {
        guard id.isTemporaryID else { return id }
        if let permanent = self[id] { return permanent }
        throw Self.danglingReference(to: id, of: source, key: key)
    }

    static func danglingReference(to id: ObjectID, of source: ObjectID, key: String) -> ValidationError {
        ValidationError(failures: [.init(
            objectID: source, key: key,
            message: "\(key) names a new \(id.entity.name) that is not part of this save (deleted or its insert undone)")])
    }
}
