import Foundation
import Predicates
import struct Predicates.Predicate

extension ManagedObjectContext {
    /// Runs a fetch request and returns the matching objects.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Person")
    /// request.predicate = try Predicate(format: "age > 18")
    /// for person in try context.fetch(request) { print(person["firstName"]) }
    /// ```
    ///
    /// Unsaved changes count unless `includesPendingChanges` is false:
    /// matching inserts are included, deleted objects left out, changed
    /// objects re-evaluated and re-sorted. In a child context as in a root
    /// one, SQL answers for the saved objects no unsaved change touches
    /// (in the context or its ancestors): with a `fetchLimit`, when SQL
    /// says the whole predicate and sort, only that many rows (plus the
    /// offset) are read, whatever the number of matches. With a `fetchBatchSize`, only IDs are read at first and
    /// objects are loaded batch by batch as the results are read.
    ///
    /// With `returnsObjectsAsFaults` (the default), objects not yet
    /// registered come back as faults when SQL alone answers the request:
    /// only their IDs are read, and each loads its values when first
    /// touched. Set it to false to have every object filled by the fetch's
    /// own query. Objects the fetch had to load anyway (to evaluate part of
    /// the predicate, merge unsaved changes or sort in memory) come back
    /// filled either way.
    ///
    /// `relationshipKeyPathsForPrefetching` (`["department", "tags",
    /// "department.people"]`) loads the destinations of those
    /// relationships for all the results, one query per relationship, so
    /// that reading them fires no fault later, for as long as the results
    /// are held (they keep the prefetched objects alive); the results
    /// themselves are then filled too. With a batch size, each batch
    /// prefetches its own.
    ///
    /// A request for another result type is refused, naming the call that
    /// runs it: `fetchDictionaries(_:)` or `fetchRows(_:)` for
    /// dictionaries, `fetchObjectIDs(_:)` for IDs, `count(for:)` for a count.
    public func fetch(_ request: FetchRequest) throws -> FetchResults {
        try Self.checkObjectResults(request)
        return try performAndWait {
            let entity = try entity(for: request)
            try validatePrefetching(request.relationshipKeyPathsForPrefetching, from: entity)
            if request.fetchBatchSize > 0 {
                return FetchResults(context: self, ids: try matchingIDList(request, entity: entity),
                                    batchSize: request.fetchBatchSize, prefetching: request.relationshipKeyPathsForPrefetching)
            }
            let prefetching = request.relationshipKeyPathsForPrefetching
            guard !prefetching.isEmpty else { return FetchResults(objects: try matchingObjects(request, entity: entity)) }
            // The objects and what they prefetch, of one moment of the store.
            return try persistentStoreCoordinator!.readTransaction {
                let objects = try matchingObjects(request, entity: entity)
                return FetchResults(objects: objects, prefetched: try prefetch(prefetching, for: objects))
            }
        }
    }

    /// Refuses a request whose results are not objects, rather than
    /// return every object and drop what it asked for.
    static func checkObjectResults(_ request: FetchRequest) throws {
        let call: String
        switch request.resultType {
        case .managedObject: return
        case .dictionary: call = "fetchDictionaries(_:) (or fetchRows(_:))"
        case .managedObjectID: call = "fetchObjectIDs(_:)"
        case .count: call = "count(for:)"
        }
        throw StoreError(.misuse, "fetch(_:) returns objects, but this request's resultType is .\(request.resultType): run it with \(call)")
    }

    /// The IDs of the matching objects, in order.
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        try performAndWait {
            try matchingIDs(request, entity: try entity(for: request))
        }
    }

    /// How many objects match, counting unsaved changes as `fetch` does.
    ///
    /// SQL counts, in a child context too, when it can say the whole
    /// predicate: the unsaved changes of the context and its ancestors
    /// then adjust its count (objects deleted or changed no longer to
    /// match taken away, inserted or changed ones that match added), so
    /// the cost does not grow with the number of matches.
    public func count(for request: FetchRequest) throws -> Int {
        try performAndWait {
            let entity = try entity(for: request)
            if let statement = try fetchStatement(request, entity: entity, wanting: .count), statement.kind == .count {
                return try count(statement, request: request, entity: entity)
            }
            return try matchingIDs(request, entity: entity).count
        }
    }

    func entity(for request: FetchRequest) throws -> EntityDescription {
        guard let entity = model.entity(named: request.entityName) else {
            var message = "unknown entity '\(request.entityName)'"
            if let suggestion = Suggestions.closest(to: request.entityName, in: model.entities.map(\.name)) {
                message += "; did you mean '\(suggestion)'?"
            }
            throw StoreError(.notFound, message)
        }
        return entity
    }

    /// Whether unsaved changes of this context (not its parents') can
    /// change the answer for `entity`.
    func hasPendingChanges(affecting entity: EntityDescription) -> Bool {
        let root = entity.rootEntity
        return changed.contains { $0.entity.rootEntity === root && $0.hasChanges }
    }

    /// The SELECT a fetch of `request` runs on its SQLite store, for a
    /// count, the IDs or the rows (`wanting`): the count or the IDs when
    /// SQL answers them alone, else the rows. Nil when other stores
    /// answer. `fetch`, `count` and `explain` all take their SQL from
    /// here, so `explain` shows what runs.
    ///
    /// Unsaved changes in this context or its ancestors are merged around
    /// SQL when it says the whole predicate: a count counts every match,
    /// then (a second statement) those of the saved objects the changes
    /// decide; rows come sorted and windowed by SQL when it sorts as
    /// memory does (no sort key reads an entity with unsaved changes
    /// through a relationship), their LIMIT widened by the offset and by
    /// the number of decided saved objects, which are left out; the
    /// decided objects that match are merged in. Otherwise the rows of
    /// every match are read and the changes merged in memory.
    func fetchStatement(_ request: FetchRequest, entity: EntityDescription,
                        wanting: FetchStatement.Kind) throws -> FetchStatement? {
        guard let store = persistentStoreCoordinator!.soleSQLStore(for: entity, includesSubentities: request.includesSubentities) else {
            return nil
        }
        let pending = request.includesPendingChanges && chainHasPendingChanges(affecting: entity)
        let plan = try FetchPlan(request: request, entity: entity, store: store, predicate: try resolvedPredicate(request))
        let (limit, offset) = (request.fetchLimit, Swift.max(request.fetchOffset, 0))
        if plan.residual == nil {
            if wanting == .count {
                return pending
                    ? FetchStatement(kind: .count, sql: plan.selectCount(limit: 0, offset: 0), plan: plan, store: store,
                                     merge: .countingDecided(plan.selectCountAmongKeys()))
                    : FetchStatement(kind: .count, sql: plan.selectCount(limit: limit, offset: offset), plan: plan, store: store, merge: .none)
            }
            if !pending && wanting == .ids && plan.sortsInSQL {
                return FetchStatement(kind: .ids, sql: plan.selectIDs(limit: limit, offset: offset), plan: plan, store: store, merge: .none)
            }
            if pending && plan.orderMatchesMemory && !plan.orderReads.contains(where: chainHasPendingChanges(affecting:)) {
                return FetchStatement(kind: .rows, sql: plan.selectRows(store: store, limit: 0, offset: 0, limitBound: limit > 0),
                                      plan: plan, store: store, merge: .excludingDecided(rows: limit > 0 ? offset + limit : 0))
            }
        }
        let windowed = !(pending || plan.residual != nil || !plan.sortsInSQL)
        return FetchStatement(kind: .rows, sql: plan.selectRows(store: store, limit: windowed ? limit : 0, offset: windowed ? offset : 0),
                              plan: plan, store: store, merge: pending ? .inMemory : .none)
    }

    /// The entities whose objects a fetch of `entity` returns.
    static func kinds(of request: FetchRequest, entity: EntityDescription) -> Set<ObjectIdentifier> {
        request.includesSubentities ? Set(entity.selfAndDescendants.map(ObjectIdentifier.init)) : [ObjectIdentifier(entity)]
    }

    func resolvedPredicate(_ request: FetchRequest) throws -> Predicate? {
        request.predicate
    }

    /// The evaluator for `request`'s predicate in this context: its object
    /// variables are this context's objects, so identity compares.
    func evaluator(for request: FetchRequest) -> Evaluator {
        guard !request.objectVariables.isEmpty else { return Evaluator() }
        return Evaluator(operands: request.objectVariables.mapValues { variable in
            switch variable {
            case .object(let id): return .object(object(with: id))
            case .objects(let ids): return .collection(ids.map { .object(object(with: $0)) })
            }
        })
    }

    /// The matching objects, in order, windowed.
    func matchingObjects(_ request: FetchRequest, entity: EntityDescription) throws -> [ManagedObject] {
        let pending = request.includesPendingChanges && hasPendingChanges(affecting: entity)
        // A child with no changes of its own lets its parent answer (and
        // merge the changes it has); else the store's SQL answers here.
        let statement = parent == nil || pending ? try fetchStatement(request, entity: entity, wanting: .rows) : nil
        if let statement, case .excludingDecided(let rows) = statement.merge {
            return try mergedAroundSQL(statement, window: rows, request: request, entity: entity)
        }
        let predicate = try resolvedPredicate(request)
        let evaluator = evaluator(for: request)
        var objects: [ManagedObject]
        var sorted: Bool
        if let parent {
            // The parent answers with its own unsaved state; then this
            // context's changes are merged on top.
            var upstream = request
            if pending { upstream.fetchLimit = 0; upstream.fetchOffset = 0 }
            upstream.fetchBatchSize = 0
            // The parent answers with snapshots: it must fill its objects.
            upstream.returnsObjectsAsFaults = false
            let snapshots = try parent.performAndWait { () throws -> [Snapshot] in
                let found = try parent.matchingObjects(upstream, entity: entity)
                return found.map { parent.currentSnapshot(of: $0) }
            }
            objects = register(snapshots)
            sorted = true
            if !pending { return objects }
        } else if let statement {
            let plan = statement.plan
            if statement.readsInPages(request) {
                return try pagedMatches(statement, request: request, evaluator: evaluator)
            }
            let inMemory = statement.worksInMemory
            // As faults, new objects keep their row for their first access:
            // one query in all, as Core Data's row cache gives.
            let asFaults = !inMemory && request.returnsObjectsAsFaults && request.relationshipKeyPathsForPrefetching.isEmpty
            objects = []
            // Each row is registered once the next is decoded, and the
            // next one's slot in the map loads meanwhile: rows sorted by
            // anything but their key come in no order of key.
            var previous: Snapshot?
            try statement.store.forEachSnapshot(sql: statement.sql, bindings: plan.bindings, root: plan.root) { snapshot in
                if let row = previous.take() { objects.append(register(row, asFaults: asFaults, nextKey: snapshot.id.primaryKey)) }
                previous = snapshot
            }
            if let row = previous.take() { objects.append(register(row, asFaults: asFaults)) }
            if !inMemory { return objects }
            sorted = plan.sortsInSQL
            if let residual = plan.residual {
                objects = try objects.filter { try StatementInterrupt.check(); return try evaluator.evaluate(residual, on: $0) }
            }
        } else {
            // Other stores, or several: each answers for itself; the
            // results are merged, sorted and windowed here.
            let stores = persistentStoreCoordinator!.stores(for: entity, includesSubentities: request.includesSubentities)
            let whole = stores.count == 1 && !pending
            objects = []
            sorted = whole
            // A store evaluates without the object variables: those
            // predicates are evaluated here.
            let storePredicate = request.objectVariables.isEmpty ? predicate : nil
            for store in stores {
                let found = try store.fetchSnapshots(request, entity: entity, predicate: storePredicate, windowed: whole && storePredicate == predicate)
                var registered = register(found.snapshots)
                if let residual = storePredicate == nil ? predicate : found.residual {
                    registered = try registered.filter { try StatementInterrupt.check(); return try evaluator.evaluate(residual, on: $0) }
                }
                if !found.isSorted || found.residual != nil || storePredicate != predicate { sorted = false }
                objects += registered
            }
            if sorted { return objects }
            sorted = false
        }
        if pending {
            var seen = Set(objects.map { ObjectIdentifier($0) })
            var merged: [ManagedObject] = []
            merged.reserveCapacity(objects.count)
            for object in objects {
                if object.isDeleted { continue }
                try StatementInterrupt.check()
                if object.state == .updated, let predicate, !(try evaluator.evaluate(predicate, on: object)) { continue }
                merged.append(object)
            }
            let kinds = Self.kinds(of: request, entity: entity)
            for object in changed.values
            where (object.state == .inserted || object.state == .updated) && kinds.contains(ObjectIdentifier(object.entity)) {
                guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
                try StatementInterrupt.check()
                if let predicate, !(try evaluator.evaluate(predicate, on: object)) { continue }
                merged.append(object)
            }
            objects = merged
            sorted = false
        }
        if !sorted || !request.sortDescriptors.isEmpty && pending {
            objects = sortInMemory(objects, by: request.sortDescriptors)
        }
        return window(objects, limit: request.fetchLimit, offset: request.fetchOffset)
    }

    /// The window of a fetch whose predicate SQL says only in part (a
    /// widening filter and a residual), read in pages of the sorted rows:
    /// each page twice as many rows as the last (the first twice the
    /// window's end), the residual checked on each, until the window is
    /// full or the rows end; all in one read transaction, so the pages are
    /// of one moment of the store.
    private func pagedMatches(_ statement: FetchStatement, request: FetchRequest, evaluator: Evaluator) throws -> [ManagedObject] {
        let plan = statement.plan
        guard let residual = plan.residual else { return [] }
        let offset = Swift.max(request.fetchOffset, 0)
        let (wanted, tooMany) = offset.addingReportingOverflow(request.fetchLimit)
        return try statement.store.readTransaction {
            var matches: [ManagedObject] = []
            var (read, page) = (0, FetchStatement.firstPage(request))
            while tooMany || matches.count < wanted {
                var rows: [ManagedObject] = []
                try statement.store.forEachSnapshot(sql: plan.selectRows(store: statement.store, limit: page, offset: read),
                                                    bindings: plan.bindings, root: plan.root) { snapshot in
                    rows.append(register(snapshot, asFaults: false))
                }
                for object in rows {
                    try StatementInterrupt.check()
                    if try evaluator.evaluate(residual, on: object) { matches.append(object) }
                }
                read += rows.count
                if rows.count < page { break }
                let next = page.multipliedReportingOverflow(by: 2)
                page = next.overflow ? Int.max : next.partialValue
            }
            return window(matches, limit: request.fetchLimit, offset: offset)
        }
    }

    /// `matchingIDs`, kept compact when SQL answers alone.
    func matchingIDList(_ request: FetchRequest, entity: EntityDescription) throws -> ObjectIDList {
        if let statement = try fetchStatement(request, entity: entity, wanting: .ids), statement.kind == .ids {
            return try statement.store.objectIDList(sql: statement.sql, bindings: statement.bindings, root: statement.plan.root)
        }
        return ObjectIDList(try matchingObjects(request, entity: entity).map(\.objectID))
    }

    func matchingIDs(_ request: FetchRequest, entity: EntityDescription) throws -> [ObjectID] {
        if let statement = try fetchStatement(request, entity: entity, wanting: .ids), statement.kind == .ids {
            return try statement.store.objectIDs(sql: statement.sql, bindings: statement.bindings, root: statement.plan.root)
        }
        return try matchingObjects(request, entity: entity).map(\.objectID)
    }

    func sortInMemory(_ objects: [ManagedObject], by keys: [SortKey]) -> [ManagedObject] {
        objects.map { object in SortRow(object: object, values: keys.map { object.sortValue($0.keyPath) }) }
            .sorted { $0.precedes($1, by: keys) }
            .map(\.object)
    }

    private func window(_ objects: [ManagedObject], limit: Int, offset: Int) -> [ManagedObject] {
        Array(objects[Self.window(count: objects.count, limit: limit, offset: offset)])
    }

    /// The positions a fetch's limit and offset keep of `count` results.
    static func window(count: Int, limit: Int, offset: Int) -> Range<Int> {
        let start = Swift.min(Swift.max(offset, 0), count)
        return start..<(limit > 0 ? Swift.min(start + limit, count) : count)
    }

    /// Loads a batch of faults in one query; those whose row is gone are
    /// marked so.
    func fulfill(_ objects: [ManagedObject]) throws {
        let faults = objects.filter(\.isFault)
        guard !faults.isEmpty else { return }
        let snapshots: [Snapshot]
        if let parent {
            snapshots = try parent.performAndWait { try faults.compactMap { try parent.snapshotForChild($0.objectID) } }
        } else {
            snapshots = try persistentStoreCoordinator!.snapshots(for: faults.map(\.objectID))
        }
        for snapshot in snapshots {
            if let object = registered[snapshot.id], object.isFault { fill(object, from: snapshot) }
        }
        // The rows not found are gone: their objects read as such now
        // rather than one query each later.
        for object in faults where object.isFault { markGone(object) }
    }
}

/// The SELECT a fetch runs (see `fetchStatement`) and what it is for.
struct FetchStatement {
    enum Kind { case count, ids, rows }

    /// How the unsaved changes of the context and its ancestors join
    /// what SQL answers.
    enum Merge {
        /// They don't: none can change the answer, or the request leaves
        /// them out.
        case none
        /// On the rows of every match, in memory.
        case inMemory
        /// The decided objects that match are merged into the sorted rows,
        /// which leave out the decided ones: with `rows` (the window's
        /// end, offset plus limit), the LIMIT bound after the plan's values
        /// is that many plus the number of decided saved objects, which
        /// may be among them; with 0, every row is read.
        case excludingDecided(rows: Int)
        /// `sql` counts every match; this statement counts the saved
        /// objects the changes decide among them (their keys bound as a
        /// JSON list after the plan's values), which the changes count
        /// again.
        case countingDecided(String)
    }

    let kind: Kind
    let sql: String
    let plan: FetchPlan
    let store: any SQLStore
    let merge: Merge

    var bindings: [Value] { plan.bindings }

    /// Whether a root context reads the rows in pages until the window is
    /// full (see `pagedMatches`): the rows come sorted, a residual decides
    /// which match, and a limit ends the reading.
    func readsInPages(_ request: FetchRequest) -> Bool {
        !pending && plan.residual != nil && plan.sortsInSQL && request.fetchLimit > 0
    }

    /// How many rows the first page of a paged read asks for: twice the
    /// window's end, at least 16; every row when that does not fit an Int.
    static func firstPage(_ request: FetchRequest) -> Int {
        let (wanted, tooMany) = Swift.max(request.fetchOffset, 0).addingReportingOverflow(request.fetchLimit)
        let (page, overflow) = wanted.multipliedReportingOverflow(by: 2)
        return tooMany || overflow ? Int.max : Swift.max(page, 16)
    }

    /// The SQL the run starts with: a paged read's first page, else the
    /// statement's own.
    func firstSQL(_ request: FetchRequest, paged: Bool) -> String {
        paged ? plan.selectRows(store: store, limit: Self.firstPage(request), offset: 0) : sql
    }

    /// Whether unsaved changes are merged into the answer.
    var pending: Bool {
        if case .none = merge { return false }
        return true
    }

    /// Whether the answer is filtered, merged, sorted or windowed in memory
    /// after the SELECT (a window then in memory, or widened in SQL).
    var worksInMemory: Bool { pending || kind == .rows && (plan.residual != nil || !plan.sortsInSQL) }
}

/// The results of a fetch: all loaded, or loaded batch by batch.
///
/// With a batch size, the results hold only object IDs and the current
/// batch; reading an element loads its batch in one query, so iterating a
/// million rows keeps memory bounded.
public struct FetchResults: RandomAccessCollection {
    private let storage: Storage
    /// Objects loaded by prefetching: the context holds clean objects
    /// weakly, so the results keep them alive.
    private let prefetched: [ManagedObject]
    private enum Storage {
        case objects([ManagedObject])
        case batched(Batcher)
    }

    final class Batcher {
        let context: ManagedObjectContext
        let ids: ObjectIDList
        let batchSize: Int
        let prefetching: [String]
        var batchStart = -1
        var batch: [ManagedObject] = []
        /// What the current batch prefetched, kept alive with it.
        var prefetched: [ManagedObject] = []

        init(context: ManagedObjectContext, ids: ObjectIDList, batchSize: Int, prefetching: [String]) {
            self.context = context
            self.ids = ids
            self.batchSize = batchSize
            self.prefetching = prefetching
        }

        func object(at index: Int) -> ManagedObject {
            let start = index - index % batchSize
            if start != batchStart {
                let slice = start..<Swift.min(start + batchSize, ids.count)
                prefetched = []
                batch = context.performAndWait {
                    let objects = slice.map { context.object(with: ids[$0]) }
                    do {
                        try context.fulfill(objects)
                        prefetched = try context.prefetch(prefetching, for: objects)
                    } catch let error as StoreError where error.kind == .interrupted {
                        // Stopped on purpose (the shell's Ctrl-C): the
                        // objects stay faults, and the caller stops too.
                    } catch {
                        MRLog.error("cannot load a batch of \(slice.count) objects: \(error)")
                    }
                    return objects
                }
                batchStart = start
            }
            return batch[index - start]
        }
    }

    init(objects: [ManagedObject], prefetched: [ManagedObject] = []) {
        storage = .objects(objects)
        self.prefetched = prefetched
    }

    init(context: ManagedObjectContext, ids: ObjectIDList, batchSize: Int, prefetching: [String] = []) {
        storage = .batched(Batcher(context: context, ids: ids, batchSize: batchSize, prefetching: prefetching))
        prefetched = []
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch storage {
        case .objects(let objects): return objects.count
        case .batched(let batcher): return batcher.ids.count
        }
    }

    public subscript(position: Int) -> ManagedObject {
        switch storage {
        case .objects(let objects): return objects[position]
        case .batched(let batcher): return batcher.object(at: position)
        }
    }

    /// The IDs, without loading anything.
    public var objectIDs: [ObjectID] {
        switch storage {
        case .objects(let objects): return objects.map(\.objectID)
        case .batched(let batcher): return batcher.ids.all
        }
    }
}
