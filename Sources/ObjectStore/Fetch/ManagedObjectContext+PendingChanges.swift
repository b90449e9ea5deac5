import Foundation
import Predicates

/// What the unsaved changes of a context and its ancestors say about a
/// fetch: the objects they decide, and which of those match.
///
/// SQL answers for every other saved object. A count is then SQL's count,
/// less the decided objects SQL counted, plus the decided ones that match;
/// a fetch merges the decided matches into SQL's sorted rows. Each context
/// merging its changes over its parent's answer gives the same.
struct PendingOverlay {
    /// Objects inserted, changed or deleted in a context of the chain.
    private(set) var decided: Set<ObjectID> = []
    /// The decided objects that match, in the order they were decided.
    private(set) var matching: [ObjectID] = []

    mutating func decide(_ id: ObjectID, matches: Bool) {
        decided.insert(id)
        if matches { matching.append(id) }
    }

    /// How many decided objects may have a row in the store.
    var savedCount: Int { decided.count { !$0.isTemporaryID } }

    /// The primary keys of the decided objects that may have a row, as the
    /// JSON list a statement's `json_each` reads.
    var savedKeys: Value {
        .string("[" + decided.lazy.filter { !$0.isTemporaryID }.map { String($0.primaryKey) }.joined(separator: ",") + "]")
    }
}

extension ManagedObjectContext {
    /// Whether this context or one of its ancestors has unsaved changes
    /// that can change the answer for `entity`.
    func chainHasPendingChanges(affecting entity: EntityDescription) -> Bool {
        if hasPendingChanges(affecting: entity) { return true }
        guard let parent else { return false }
        return parent.performAndWait { parent.chainHasPendingChanges(affecting: entity) }
    }

    /// Collects the unsaved changes of this context and its ancestors that
    /// decide `request`'s objects, then runs `body` with them on the root
    /// context, every context of the chain held meanwhile (as a parent
    /// answering its child is), so that no change reaches the store or
    /// another context in between.
    ///
    /// The context nearest this one with a change to an object decides it:
    /// deleted, it is out; inserted or changed, it is in when the predicate
    /// holds on it there. A context with no change to the entity's
    /// hierarchy merges nothing, and decides nothing.
    func withPendingOverlay<T>(_ request: FetchRequest, entity: EntityDescription,
                               _ body: (PendingOverlay) throws -> T) throws -> (overlay: PendingOverlay, result: T) {
        var overlay = PendingOverlay()
        let result = try collectPendingChanges(request, entity: entity, into: &overlay, then: body)
        return (overlay, result)
    }

    private func collectPendingChanges<T>(_ request: FetchRequest, entity: EntityDescription, into overlay: inout PendingOverlay,
                                          then body: (PendingOverlay) throws -> T) throws -> T {
        try performAndWait {
            if request.includesPendingChanges && hasPendingChanges(affecting: entity) {
                let predicate = try resolvedPredicate(request)
                let evaluator = evaluator(for: request)
                let kinds = Self.kinds(of: request, entity: entity)
                try changed.forEach { object in
                    guard object.state != .clean, kinds.contains(ObjectIdentifier(object.entity)),
                          !overlay.decided.contains(object.objectID) else { return }
                    try StatementInterrupt.check()
                    let matches = try !object.isDeleted && (predicate.map { try evaluator.evaluate($0, on: object) } ?? true)
                    overlay.decide(object.objectID, matches: matches)
                }
            }
            guard let parent else { return try body(overlay) }
            return try parent.collectPendingChanges(request, entity: entity, into: &overlay, then: body)
        }
    }

    /// The answer of a count statement (see `fetchStatement`), with the
    /// chain's unsaved changes counted when it says so.
    func count(_ statement: FetchStatement, request: FetchRequest, entity: EntityDescription) throws -> Int {
        let store = statement.store
        guard case .countingDecided(let decidedSQL) = statement.merge else {
            return try store.count(sql: statement.sql, bindings: statement.bindings)
        }
        let (overlay, untouched) = try withPendingOverlay(request, entity: entity) { overlay in
            let all = try store.count(sql: statement.sql, bindings: statement.bindings)
            guard overlay.savedCount > 0 else { return all }
            return all - (try store.count(sql: decidedSQL, bindings: statement.bindings + [overlay.savedKeys]))
        }
        return Self.window(count: untouched + overlay.matching.count, limit: request.fetchLimit, offset: request.fetchOffset).count
    }

    /// The objects of a rows statement whose answer the chain's unsaved
    /// changes adjust (see `fetchStatement`): its rows but the decided
    /// ones, in SQL's order, with the decided objects that match merged in.
    ///
    /// Each row comes as this context sees its object: as it holds it, or
    /// as the nearest ancestor holding it does, as a parent answering its
    /// child gives it.
    func mergedAroundSQL(_ statement: FetchStatement, window: Int, request: FetchRequest, entity: EntityDescription) throws -> [ManagedObject] {
        let plan = statement.plan
        let (overlay, rows) = try withPendingOverlay(request, entity: entity) { overlay in
            var rows: [Snapshot] = []
            let limit: [Value] = window > 0 ? [.int(Int64(window + overlay.savedCount))] : []
            try statement.store.forEachSnapshot(sql: statement.sql, bindings: plan.bindings + limit, root: plan.root) { row in
                if !overlay.decided.contains(row.id) { rows.append(row) }
            }
            parent?.seenFromHere(&rows)
            return rows
        }
        let untouched = register(rows)
        let coming = overlay.matching.map { object(with: $0) }
        try fulfill(coming)
        let objects = merge(coming, into: untouched, by: request.sortDescriptors)
        return Array(objects[Self.window(count: objects.count, limit: request.fetchLimit, offset: request.fetchOffset)])
    }

    /// Replaces each stored row by the state of its object in the nearest
    /// context, from this one down to the root, that holds it filled.
    private func seenFromHere(_ rows: inout [Snapshot]) {
        var open = Array(rows.indices)
        var level: ManagedObjectContext? = self
        while let context = level, !open.isEmpty {
            context.performAndWait {
                open.removeAll { i in
                    guard let object = context.registered[rows[i].id], !object.isFault else { return false }
                    rows[i] = context.currentSnapshot(of: object)
                    return true
                }
            }
            level = context.parent
        }
    }

    /// `coming`, sorted by `keys`, merged into `sorted` (already in that
    /// order): a binary search for each, so a few objects merge into many
    /// rows without reading every row's sort values.
    func merge(_ coming: [ManagedObject], into sorted: [ManagedObject], by keys: [SortKey]) -> [ManagedObject] {
        guard !coming.isEmpty else { return sorted }
        func keyed(_ object: ManagedObject) -> SortRow { SortRow(object: object, values: keys.map { object.sortValue($0.keyPath) }) }
        var result: [ManagedObject] = []
        result.reserveCapacity(sorted.count + coming.count)
        var start = 0
        for object in sortInMemory(coming, by: keys) {
            let row = keyed(object)
            var (low, high) = (start, sorted.count)
            while low < high {
                let middle = (low + high) / 2
                if keyed(sorted[middle]).precedes(row, by: keys) { low = middle + 1 } else { high = middle }
            }
            result += sorted[start..<low]
            result.append(object)
            start = low
        }
        result += sorted[start...]
        return result
    }
}

/// An object with its sort values, for ordering as SQL orders.
struct SortRow {
    let object: ManagedObject
    let values: [Value]

    /// Whether this row comes first by `keys`, then by key (the tie-break
    /// SQL's ORDER BY ends with).
    func precedes(_ other: SortRow, by keys: [SortKey]) -> Bool {
        for (i, key) in keys.enumerated() {
            let c = ValueOrdering.compare(values[i], other.values[i])
            if c != 0 { return key.ascending ? c < 0 : c > 0 }
        }
        let (x, y) = (object.objectID, other.object.objectID)
        return x.primaryKey != y.primaryKey ? x.primaryKey < y.primaryKey
            : (x.storeIdentifier ?? "") < (y.storeIdentifier ?? "")
    }
}
