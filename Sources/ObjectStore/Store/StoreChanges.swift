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

    package init() {}

    package var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && toMany.isEmpty
    }

    /// The inserted snapshot at `index`, taken out: an empty one stays in
    /// its place, so the snapshot moves on without a copy of its arrays.
    mutating func takeInserted(at index: Int) -> Snapshot {
        var taken = Snapshot(id: inserted[index].id, version: 0, values: [], toOne: [])
        swap(&taken, &inserted[index])
        return taken
    }

    /// The updated snapshot at `index`, taken out as `takeInserted` does.
    mutating func takeUpdated(at index: Int) -> Snapshot {
        var taken = Snapshot(id: updated[index].snapshot.id, version: 0, values: [], toOne: [])
        swap(&taken, &updated[index].snapshot)
        return taken
    }
}

/// A row that changed in the store since a context read it.
package struct StoreConflict: Sendable {
    package var id: ObjectID
    package var expectedVersion: Int64
    /// The row as the store has it now; nil when it was deleted.
    package var current: Snapshot?
}
