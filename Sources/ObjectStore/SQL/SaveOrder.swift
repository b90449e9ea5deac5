import Foundation
import Predicates

/// The order a save writes its rows in, so that a foreign key checked at
/// each statement (a DBA's own, not mrq's deferred ones) never sees a row
/// naming one that is not there: updates that let go of rows about to be
/// deleted first, then deletes (children before parents, each row's join
/// rows before it), then inserts (parents before children), then the
/// updates that name an inserted row or take a unique value a deleted row
/// freed.
///
/// ```swift
/// let order = SaveOrder(changes, mapping: mapping)
/// order.earlyUpdates; order.deleted; order.insertRank(entity); order.lateUpdates
/// ```
package struct SaveOrder {
    /// Updates to write before the deletes.
    package let earlyUpdates: [StoreChanges.Update]
    /// Updates to write after the inserts.
    package let lateUpdates: [StoreChanges.Update]
    /// The deleted rows, children before parents.
    package let deleted: [(id: ObjectID, expectedVersion: Int64)]
    private let ranks: [String: Int]

    /// Orders `changes`; `within` orders two rows of the same rank (the
    /// PostgreSQL store locks rows by table and key).
    package init(_ changes: StoreChanges, mapping: SchemaMapping, within: ((ObjectID, ObjectID) -> Bool)? = nil) {
        var ranks: [String: Int] = [:]
        for update in changes.updated { Self.rank(update.snapshot.id.entity.rootEntity, &ranks, visiting: []) }
        for deleted in changes.deleted { Self.rank(deleted.id.entity.rootEntity, &ranks, visiting: []) }
        // Inserts come in runs of one entity: a hierarchy's rank is asked
        // for (its name hashed) once per run, not once per row.
        var last: ObjectIdentifier?
        for i in changes.inserted.indices {
            let root = changes.inserted[i].id.entity.rootEntity
            if ObjectIdentifier(root) == last { continue }
            last = ObjectIdentifier(root)
            Self.rank(root, &ranks, visiting: [])
        }
        self.ranks = ranks
        var early: [StoreChanges.Update] = []
        var late: [StoreChanges.Update] = []
        for update in changes.updated {
            if Self.isLate(update) { late.append(update) } else { early.append(update) }
        }
        if let within {
            early.sort { within($0.snapshot.id, $1.snapshot.id) }
            late.sort { within($0.snapshot.id, $1.snapshot.id) }
        }
        earlyUpdates = early
        lateUpdates = late
        // A stable sort: rows of one rank keep their order.
        let deleted = changes.deleted.enumerated().sorted { a, b in
            let (x, y) = (ranks[a.element.id.entity.rootEntity.name] ?? 0, ranks[b.element.id.entity.rootEntity.name] ?? 0)
            if x != y { return x > y }
            if let within { return within(a.element.id, b.element.id) }
            return a.offset < b.offset
        }
        self.deleted = deleted.map(\.element)
    }

    /// Where rows of `entity` go among the inserts: lower first.
    package func insertRank(_ entity: EntityDescription) -> Int { ranks[entity.rootEntity.name] ?? 0 }

    /// The inserted rows' positions in `changes.inserted`, parents first,
    /// each entity's in their order.
    ///
    /// Ranks are few (one per hierarchy the save inserts): the rows are
    /// grouped by rank in two passes, each row's rank asked for once per
    /// run of one entity. A comparison sort asked for two ranks (two names
    /// hashed) at each of its n log n comparisons, 3.5% of an import whose
    /// people and departments come interleaved (mrq-bench d. import).
    package func insertOrder(_ inserted: [Snapshot]) -> [Int] {
        var rowRanks: [Int] = []
        rowRanks.reserveCapacity(inserted.count)
        var last: (entity: ObjectIdentifier, rank: Int)?
        for i in inserted.indices {
            let entity = inserted[i].id.entity
            if last?.entity != ObjectIdentifier(entity) { last = (ObjectIdentifier(entity), insertRank(entity)) }
            rowRanks.append(last!.rank)
        }
        let distinct = Set(rowRanks).sorted()
        // Many ranks (a save across many hierarchies): a pass per rank
        // would cost rows × ranks; sorted by the ranks found once instead.
        if distinct.count > 8 {
            return rowRanks.indices.sorted { (rowRanks[$0], $0) < (rowRanks[$1], $1) }
        }
        // Rows of one rank keep their order: one pass per rank.
        var positions: [Int] = []
        positions.reserveCapacity(inserted.count)
        for rank in distinct {
            for i in rowRanks.indices where rowRanks[i] == rank { positions.append(i) }
        }
        return positions
    }

    /// Whether the rows of every hierarchy the save inserts are already in
    /// insert order.
    package func isInInsertOrder(_ inserted: [Snapshot]) -> Bool {
        // Rows come in runs of one entity: its rank is looked up (a name
        // hashed) once per run, not once per row.
        var previous = Int.min
        var last: ObjectIdentifier?
        for i in inserted.indices {
            let entity = inserted[i].id.entity
            if ObjectIdentifier(entity) == last { continue }
            last = ObjectIdentifier(entity)
            let rank = insertRank(entity)
            if rank < previous { return false }
            previous = rank
        }
        return true
    }

    /// A hierarchy's depth among the to-ones stored in its table: 0 when
    /// they name no other hierarchy, else one more than the deepest they
    /// name (a cycle counts as naming nothing further).
    @discardableResult
    private static func rank(_ root: EntityDescription, _ ranks: inout [String: Int], visiting: Set<String>) -> Int {
        if let known = ranks[root.name] { return known }
        var visiting = visiting
        visiting.insert(root.name)
        var deepest = -1
        for entity in root.selfAndDescendants {
            for case let relationship as RelationshipDescription in entity.declaredProperties
            where relationship.isToOne && !relationship.isTransient {
                guard let destination = relationship.destination?.rootEntity,
                      !visiting.contains(destination.name) else { continue }
                deepest = max(deepest, rank(destination, &ranks, visiting: visiting))
            }
        }
        ranks[root.name] = deepest + 1
        return deepest + 1
    }

    /// An update names a row this save inserts, or changes a value a
    /// uniqueness constraint covers (one a deleted row may free).
    private static func isLate(_ update: StoreChanges.Update) -> Bool {
        let snapshot = update.snapshot
        for i in update.changedToOne where snapshot.toOneID(at: i)?.isTemporaryID == true { return true }
        var current: EntityDescription? = snapshot.id.entity
        while let entity = current {
            for constraint in entity.uniquenessConstraints {
                for name in constraint {
                    if let i = snapshot.id.entity.attributeSlot(named: name), update.changedAttributes.contains(i) { return true }
                    if let i = snapshot.id.entity.relationshipSlot(named: name), update.changedToOne.contains(i) { return true }
                }
            }
            current = entity.parent
        }
        return false
    }
}
