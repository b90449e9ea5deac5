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
}
