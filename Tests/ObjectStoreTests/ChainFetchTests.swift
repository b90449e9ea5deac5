import Foundation
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate
import Testing

/// Counts, first objects and fetches in a chain of contexts (root → child →
/// grandchild, as MagicalRecord's stack hands them out) with random unsaved
/// changes at every level: SQL answers, with the chain's changes merged
/// around it, and every answer must be the reference's, worked out in
/// memory as directly as the semantics read:
///
/// - an object changed, inserted or deleted in a context that merges its
///   changes (one with a change to the entity's hierarchy) is decided by
///   the nearest such context to the asking one: deleted, it is out;
///   otherwise it is in when the predicate holds on it there;
/// - any other saved object is in when the predicate holds on its stored
///   values;
/// - the order is by the sort keys as the nearest merging context sees the
///   objects (the store's values when none merges), then by key; the
///   limit and offset apply last.
///
/// Random data (DifferentialModel, with Gadget, a sub-entity of Item),
/// random changes at random levels (attributes, owners, labels, parts,
/// owners renamed, deletes that cascade and nullify, changes undone by
/// hand, saves up the chain, rollbacks) and random requests (predicates
/// from `PredicateGenerator` and over object variables, sorts, limits,
/// offsets, sub-entities, `includesPendingChanges`). `MRQ_SOAK=1` runs ten
/// times as many; `MRQ_SEED=<n>` changes the seed.
@Suite struct ChainFetchTests {
    static let soak = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1"
    static let baseSeed = ProcessInfo.processInfo.environment["MRQ_SEED"].flatMap { UInt64($0) } ?? 0x6368_6169

    @Test(arguments: SchemaMapping.Layout.allCases, 0..<3)
    func chainAnswersAsTheReference(layout: SchemaMapping.Layout, shard: Int) throws {
        let model = try DifferentialModel.make(gadget: true)
        var checked = 0
        var skipped = 0
        var aroundSQL = 0
        for set in 0..<(Self.soak ? 80 : 8) {
            let seed = Self.baseSeed &+ UInt64(shard) &* 1_000_003 &+ UInt64(set) &* 7 &+ UInt64(layout == .mrq ? 0 : 500_000)
            var run = try Run(model: model, seed: seed, layout: layout)
            for step in 0..<30 {
                try run.change()
                for _ in 0..<2 {
                    let request = run.request()
                    for level in run.chain.indices {
                        let where_ = "\(layout) seed \(seed) step \(step) level \(level): \(Run.describe(request))"
                        let context = run.chain[level]
                        let statement = try context.fetchStatement(request, entity: run.entity(request), wanting: .rows)
                        // What SQL cannot say is evaluated on the root's
                        // objects, unsaved changes and all (the root's
                        // plain path, not the reference's stored values).
                        if statement?.plan.residual != nil && run.chain[0].hasChanges {
                            skipped += 1
                            continue
                        }
                        let expected = try run.reference(request, at: level)
                        if case .excludingDecided? = statement?.merge { aroundSQL += 1 }
                        #expect(try context.fetch(request).objectIDs == expected, "\(where_)")
                        #expect(try context.count(for: request) == expected.count, "count, \(where_)")
                        var batched = request
                        batched.fetchBatchSize = 3
                        #expect(try context.fetch(batched).objectIDs == expected, "batched, \(where_)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked + skipped == (Self.soak ? 80 : 8) * 30 * 2 * 3)
        #expect(skipped < checked / 3, "\(skipped) skipped, \(checked) checked")
        // Most requests merge around SQL: the test exercises the fast path.
        #expect(aroundSQL > checked / 4, "only \(aroundSQL) of \(checked) merged around SQL")
    }

    /// A count or a first object in a child with a few unsaved changes reads
    /// no row of the other matches: neither the child nor its parent
    /// registers them.
    @Test func childCountAndFirstLoadOnlyTheChanges() throws {
        let (root, child) = try Self.people(count: 2_000)
        let byAge = [SortKey(keyPath: ["age"], ascending: true)]
        let people = try child.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "age < 3"), sortDescriptors: byAge))
        let young = try Predicate(format: "age < 50")
        let saved = try root.count(for: FetchRequest(entityName: "Person", predicate: young))
        // One moved out, one deleted, one inserted that matches, one that doesn't.
        people[0]["age"] = .int(90)
        child.delete(people[1])
        child.insertObject(forEntityName: "Person")["age"] = .int(-1)
        child.insertObject(forEntityName: "Person")["age"] = .int(70)
        let before = (root.registeredObjects.count, child.registeredObjects.count)
        #expect(try child.count(for: FetchRequest(entityName: "Person", predicate: young)) == saved - 2 + 1)
        var first = FetchRequest(entityName: "Person", predicate: young, sortDescriptors: byAge)
        first.fetchLimit = 1
        let found = try child.fetch(first)
        #expect(found.count == 1 && found[0]["age"] == .int(-1))
        first.fetchOffset = 1
        #expect(try child.fetch(first).first?["age"] == people[2]["age"])
        #expect(root.registeredObjects.count == before.0)
        #expect(child.registeredObjects.count <= before.1 + 2)
        // A grandchild with no changes of its own asks its parent, which
        // merges the same way.
        let grandchild = ManagedObjectContext(concurrencyType: .confined, parent: child)
        #expect(try grandchild.count(for: FetchRequest(entityName: "Person", predicate: young)) == saved - 1)
        #expect(root.registeredObjects.count == before.0)
    }

    /// Explain in a child shows the statements that run: a count, then the
    /// count of the changed saved objects among the matches; a first object
    /// keeps its LIMIT, widened by the offset and the changed objects.
    @Test func explainInAChildShowsTheStatementsThatRun() throws {
        let (_, child) = try Self.people(count: 10)
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age > 3"))
        request.resultType = .count
        let plain = try child.explain(request)
        #expect(plain.steps.count == 1 && plain.sql.hasPrefix("SELECT COUNT(*)") && !plain.mergesPendingChanges)
        let person = try child.fetch(FetchRequest(entityName: "Person"))[0]
        person["age"] = .int(99)
        let counting = try child.explain(request)
        #expect(counting.mergesPendingChanges)
        #expect(counting.steps.map(\.purpose) == ["count", "changed"])
        #expect(counting.steps[1].sql.contains("IN (SELECT value FROM json_each(?2))"))
        #expect(counting.steps[1].bindings.last == .keysOfPendingChanges)
        request.resultType = .managedObject
        request.sortDescriptors = [SortKey(keyPath: ["age"], ascending: false)]
        request.fetchLimit = 1
        request.fetchOffset = 2
        let first = try child.explain(request)
        #expect(first.steps.count == 1 && first.sql.hasSuffix("ORDER BY t.\"age\" DESC, t.\"_pk\" LIMIT ?2"))
        #expect(first.steps[0].bindings.last == .rowsPlusPendingChanges(3))
        #expect(first.mergesPendingChanges && first.windowsInMemory)
        #expect(try child.fetch(request).first?["age"] == .int(8))
    }

    /// A child reads an unsaved object of its grandparent's that its
    /// parent never touched.
    @Test func grandchildReadsAnObjectItsGrandparentInserted() throws {
        let (root, _) = try Self.people(count: 1)
        let inserted = root.insertObject(forEntityName: "Person")
        inserted["age"] = .int(41)
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let grandchild = ManagedObjectContext(concurrencyType: .confined, parent: child)
        #expect(grandchild.object(with: inserted.objectID)["age"] == .int(41))
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age == 41"))
        request.fetchLimit = 1
        #expect(try grandchild.fetch(request).map(\.objectID) == [inserted.objectID])
    }

    /// A root context on a saved store of `count` people aged 0..<count,
    /// and a child of it.
    static func people(count: Int) throws -> (ManagedObjectContext, ManagedObjectContext) {
        let entity = EntityDescription(name: "Person")
        entity.add(AttributeDescription(name: "age", type: .integer64))
        entity.add(AttributeDescription(name: "name", type: .string))
        let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: [entity]))
        try coordinator.addPersistentStore(type: .inMemory, at: nil, options: PersistentStoreOptions())
        let loader = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for age in 0..<count {
            let person = loader.insertObject(forEntityName: "Person")
            person["age"] = .int(Int64(age))
            person["name"] = .string("p\(age)")
        }
        try loader.save()
        let root = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        return (root, ManagedObjectContext(concurrencyType: .confined, parent: root))
    }
}

/// One random chain over one random store.
private struct Run {
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let chain: [ManagedObjectContext]
    var random: SeededRandom
    var predicates: PredicateGenerator

    init(model: ManagedObjectModel, seed: UInt64, layout: SchemaMapping.Layout) throws {
        self.model = model
        random = SeededRandom(seed: seed)
        let loader = try DifferentialModel.populate(model, random: &random, layout: layout)
        coordinator = loader.persistentStoreCoordinator!
        let root = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        chain = [root, child, ManagedObjectContext(concurrencyType: .confined, parent: child)]
        predicates = PredicateGenerator(random: SeededRandom(seed: seed ^ 0x5EED))
    }

    func entity(_ request: FetchRequest) -> EntityDescription { model.entity(named: request.entityName)! }

    // MARK: - Changes

    /// The objects of `entity`'s hierarchy `context` sees now: the saved
    /// rows and the unsaved inserts of the chain up to it, less what it
    /// or an ancestor deleted.
    func visible(_ entityName: String, in context: ManagedObjectContext) -> [ManagedObject] {
        let scratch = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var ids = (try? scratch.fetchObjectIDs(FetchRequest(entityName: entityName))) ?? []
        var level: ManagedObjectContext? = context
        while let current = level {
            ids += current.insertedObjects.filter { $0.entity.rootEntity.name == entityName }.map(\.objectID)
            level = current.parent
        }
        return ids.compactMap { id in
            if let object = context.registered[id] { return object.isDeleted ? nil : object }
            guard (try? context.snapshotFromSource(id)) ?? nil != nil else { return nil }
            return context.object(with: id)
        }
    }

    mutating func pick(_ entityName: String, in context: ManagedObjectContext) -> ManagedObject? {
        let objects = visible(entityName, in: context)
        return objects.isEmpty ? nil : random.pick(objects)
    }

    /// One random change at a random level.
    mutating func change() throws {
        let context = random.pick(chain)
        switch random.int(0...13) {
        case 0, 1:
            let item = context.insertObject(forEntityName: random.chance(30) ? "Gadget" : "Item")
            setRandomValues(item)
            if let owner = pick("Owner", in: context), random.chance(70) { item.setObject(owner, forKey: "owner") }
        case 2, 3, 4:
            if let item = pick("Item", in: context) { setRandomValues(item) }
        case 5:
            guard let item = pick("Item", in: context) else { return }
            item.setObject(random.chance(20) ? nil : pick("Owner", in: context), forKey: "owner")
        case 6:
            guard let item = pick("Item", in: context), let label = pick("Label", in: context) else { return }
            if item.objects(forKey: "labels").contains(where: { $0 === label }) {
                item.remove(label, fromKey: "labels")
            } else {
                item.add(label, toKey: "labels")
            }
        case 7:
            if let part = pick("Part", in: context) { part["qty"] = DifferentialModel.maybe(.int(random.pick(DifferentialModel.smallInts)), &random) }
        case 8:
            guard let owner = random.chance(30) ? context.insertObject(forEntityName: "Owner") : pick("Owner", in: context) else { return }
            owner["name"] = DifferentialModel.maybe(.string(random.pick(DifferentialModel.strings)), &random)
            owner["rank"] = .int(random.pick(DifferentialModel.smallInts))
        case 9:
            if let item = pick("Item", in: context) { context.delete(item) }
        case 10:
            if let other = pick(random.pick(["Owner", "Part", "Label"]), in: context) { context.delete(other) }
        case 11:
            // Changed and changed back: updated, with no change left.
            guard let item = pick("Item", in: context) else { return }
            let old = item["i16"]
            item["i16"] = .int(77)
            item["i16"] = old
        case 12:
            try? context.save()
        default:
            if random.chance(30) { context.rollback() } else { try? context.save() }
        }
    }

    mutating func setRandomValues(_ item: ManagedObject) {
        for _ in 0..<random.int(1...3) {
            switch random.int(0...6) {
            case 0: item["i16"] = DifferentialModel.maybe(.int(random.pick(DifferentialModel.smallInts)), &random)
            case 1: item["i64"] = DifferentialModel.maybe(.int(random.pick(DifferentialModel.bigInts)), &random)
            case 2: item["dbl"] = DifferentialModel.maybe(.double(random.pick(DifferentialModel.doubles)), &random)
            case 3: item["name"] = DifferentialModel.maybe(.string(random.pick(DifferentialModel.strings)), &random)
            case 4: item["when"] = DifferentialModel.maybe(.date(random.pick(DifferentialModel.dates)), &random)
            case 5: item["flag"] = DifferentialModel.maybe(.bool(random.chance(50)), &random)
            default:
                if item.entity.name == "Gadget" { item["watts"] = .int(Int64(random.int(0...3))) }
            }
        }
    }

    // MARK: - Requests

    /// Sort keys SQLite orders as memory does (decimals and UUIDs it
    /// orders otherwise, a known difference of the store's plain path).
    static let sortable = ["i16", "i64", "dbl", "name", "when", "flag", "owner.name", "owner.rank"]

    mutating func request() -> FetchRequest {
        var request = FetchRequest(entityName: random.chance(80) ? "Item" : "Gadget")
        let asking = chain[2]
        switch random.int(0...9) {
        case 0: break
        case 1, 2:
            let owners = visible("Owner", in: asking)
            let labels = visible("Label", in: asking)
            guard let owner = owners.isEmpty ? nil : random.pick(owners), let label = labels.isEmpty ? nil : random.pick(labels) else { break }
            request.predicate = try? Predicate(format: random.pick(["owner == $o", "owner IN $os OR i16 > 0", "ANY labels == $l",
                                                                   "NOT (owner == $o) AND flag == YES"]))
            request.objectVariables = ["o": .object(owner.objectID), "os": .objects(owners.prefix(2).map(\.objectID)),
                                       "l": .object(label.objectID)]
        default:
            request.predicate = predicates.predicate(depth: random.int(0...2))
        }
        request.sortDescriptors = (0..<random.int(0...2)).map { _ in
            SortKey(keyPath: random.pick(Self.sortable).split(separator: ".").map(String.init), ascending: random.chance(50))
        }
        if random.chance(50) { request.fetchLimit = random.pick([1, 2, 5]) }
        if random.chance(25) { request.fetchOffset = random.pick([1, 3]) }
        request.includesSubentities = random.chance(85)
        request.includesPendingChanges = random.chance(85)
        return request
    }

    static func describe(_ request: FetchRequest) -> String {
        "\(request.entityName) where \(request.predicate?.format ?? "-") sort \(request.sortDescriptors) limit \(request.fetchLimit) offset \(request.fetchOffset)"
            + (request.includesSubentities ? "" : " no-sub") + (request.includesPendingChanges ? "" : " no-pending")
    }

    // MARK: - Reference

    /// What a fetch of `request` in `chain[level]` returns, in memory.
    func reference(_ request: FetchRequest, at level: Int) throws -> [ObjectID] {
        let entity = entity(request)
        let kinds = Set((request.includesSubentities ? entity.selfAndDescendants : [entity]).map(ObjectIdentifier.init))
        // Saved objects: the predicate on their stored values.
        let scratch = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var rows = FetchRequest(entityName: entity.rootEntity.name)
        rows.returnsObjectsAsFaults = false
        var matches: [ObjectID: Bool] = [:]
        let saved = scratch.evaluator(for: request)
        for object in try scratch.fetch(rows) where kinds.contains(ObjectIdentifier(object.entity)) {
            matches[object.objectID] = try request.predicate.map { try saved.evaluate($0, on: object) } ?? true
        }
        // Changed objects: the nearest merging context decides.
        var nearest: ManagedObjectContext?
        if request.includesPendingChanges {
            var decided: Set<ObjectID> = []
            for context in chain[...level].reversed() where context.hasPendingChanges(affecting: entity) {
                nearest = nearest ?? context
                let evaluator = context.evaluator(for: request)
                for object in context.changed.values where object.state != .clean && kinds.contains(ObjectIdentifier(object.entity)) {
                    guard decided.insert(object.objectID).inserted else { continue }
                    matches[object.objectID] = try !object.isDeleted && (request.predicate.map { try evaluator.evaluate($0, on: object) } ?? true)
                }
            }
        }
        let seer = nearest ?? scratch
        let keys = request.sortDescriptors
        let sorted = matches.filter(\.value).map { id, _ in
            (id, keys.map { seer.object(with: id).sortValue($0.keyPath) })
        }.sorted { a, b in
            for (i, key) in keys.enumerated() {
                let c = ValueOrdering.compare(a.1[i], b.1[i])
                if c != 0 { return key.ascending == (c < 0) }
            }
            return a.0.primaryKey < b.0.primaryKey
        }.map(\.0)
        let start = min(request.fetchOffset, sorted.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, sorted.count) : sorted.count
        return Array(sorted[start..<end])
    }
}
