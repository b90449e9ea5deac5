import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// Managed objects and object IDs as predicate constants (`owner == %@`,
/// `owner IN %@`, `labels CONTAINS %@`): in SQL (the foreign key against
/// the primary key, nothing bound for an unsaved object or one of another
/// store) and in memory (identity) they pick the same objects, in every
/// context and on every store type.
@Suite struct ObjectArgumentTests {
    /// Random predicates mixing object comparisons with the differential
    /// generator's scalar ones: a fetch (SQL, with the context's pending
    /// changes merged) returns exactly what the evaluator picks, in both
    /// layouts, before and after unsaved changes, and in a child context.
    @Test(arguments: SchemaMapping.Layout.allCases)
    func sqlAgreesWithTheEvaluator(layout: SchemaMapping.Layout) throws {
        let model = try DifferentialModel.make()
        var failures = 0
        for set in 0..<8 {
            let seed = 0x0b1a_0000 &+ UInt64(set)
            var random = SeededRandom(seed: seed)
            let world = try ObjectWorld(model: model, random: &random, layout: layout)
            var generator = ObjectPredicateGenerator(scalars: PredicateGenerator(random: random), pool: world.pool)
            // Saved state only: the unsaved owner and label touch no item.
            for n in 0..<60 {
                let leafOnly = n < 30
                let predicate = leafOnly ? generator.objectLeaf() : generator.predicate(depth: 2)
                let request = FetchRequest(entityName: "Item", predicate: predicate)
                if leafOnly {
                    let plan = try world.context.explain(request)
                    #expect(plan.residual == nil, "\(layout): \(predicate.format) runs wholly in SQL: \(plan.sql)")
                }
                failures += try world.check(predicate, label: "\(layout) seed \(seed) case \(n)", aggregate: n % 5 == 0)
            }
            // Unsaved changes: an item moved to the unsaved owner, the
            // unsaved label added to an item, a new item.
            world.makePendingChanges()
            generator.ownKeysOnly = true
            for n in 0..<40 {
                let predicate = generator.predicate(depth: 2)
                failures += try world.check(predicate, label: "\(layout) seed \(seed) pending case \(n)")
                failures += try world.check(predicate, label: "\(layout) seed \(seed) child case \(n)", inChild: true)
            }
            if failures >= 8 { return }
        }
    }

    /// The same predicates on every store type: SQLite in both layouts,
    /// XML and in memory.
    @Test(arguments: [(PersistentStoreType.sqlite, SchemaMapping.Layout.mrq), (.sqlite, .coreData), (.xml, .mrq), (.inMemory, .mrq)])
    func everyStoreTypeAgrees(type: PersistentStoreType, layout: SchemaMapping.Layout) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("objargs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url: URL? = type == .inMemory ? nil : directory.appendingPathComponent(type == .xml ? "store.xml" : "store.sqlite")
        var random = SeededRandom(seed: 41)
        let world = try ObjectWorld(model: try DifferentialModel.make(), random: &random, layout: layout, type: type, at: url)
        var generator = ObjectPredicateGenerator(scalars: PredicateGenerator(random: random), pool: world.pool)
        var failures = 0
        for n in 0..<40 {
            failures += try world.check(n < 20 ? generator.objectLeaf() : generator.predicate(depth: 1), label: "\(type) \(layout) case \(n)")
        }
        world.makePendingChanges()
        generator.ownKeysOnly = true
        for n in 0..<30 {
            let predicate = generator.predicate(depth: 1)
            failures += try world.check(predicate, label: "\(type) \(layout) pending case \(n)")
            failures += try world.check(predicate, label: "\(type) \(layout) child case \(n)", inChild: true)
        }
        #expect(failures == 0)
    }

    @Test func argumentsOfEveryShape() throws {
        var random = SeededRandom(seed: 5)
        let world = try ObjectWorld(model: try DifferentialModel.make(), random: &random, layout: .mrq)
        let owner = world.owners[0]
        let owned = Set(world.items.filter { $0.object(forKey: "owner") === owner }.map(\.objectID))
        func fetch(_ predicate: Predicate) throws -> Set<ObjectID> {
            Set(try world.context.fetch(FetchRequest(entityName: "Item", predicate: predicate)).map(\.objectID))
        }
        #expect(!owned.isEmpty)
        #expect(try fetch(Predicate(format: "owner == %@", owner)) == owned)
        #expect(try fetch(Predicate(format: "owner == %@", owner.objectID)) == owned)
        #expect(try fetch(Predicate(format: "owner IN %@", [owner])) == owned)
        #expect(try fetch(Predicate(format: "owner IN %@", Set([owner.objectID]))) == owned)
        #expect(try fetch(Predicate(format: "owner IN %@", [owner.objectID][...])) == owned)
        let none: ManagedObject? = nil
        let ownerless = Set(world.items.filter { $0.object(forKey: "owner") == nil }.map(\.objectID))
        #expect(try fetch(Predicate(format: "owner == %@", none)) == ownerless)
        #expect(try Predicate(format: "owner == %@", none) == Predicate(format: "owner == nil"))
        let maybe: ManagedObject? = owner
        #expect(try fetch(Predicate(format: "owner == %@", maybe)) == owned)
        #expect(try fetch(Predicate(format: "SELF IN %@", Array(owned))) == owned)
        let item = try #require(world.items.first { !$0.objects(forKey: "labels").isEmpty })
        let label = item.objects(forKey: "labels")[0]
        #expect(try fetch(Predicate(format: "labels CONTAINS %@", label)).contains(item.objectID))
        #expect(try fetch(Predicate(format: "%@ IN labels", label)) == fetch(Predicate(format: "ANY labels == %@", label)))
        // An empty list matches nothing, in SQL.
        #expect(try fetch(Predicate(format: "owner IN %@", [ObjectID]())).isEmpty)
    }

    /// A predicate holds the object: made while the object was unsaved, it
    /// matches by the permanent ID once saved. A temporary ID given alone
    /// names nothing after the save, as in Core Data.
    @Test func anObjectSavedAfterThePredicateWasMadeStillMatches() throws {
        var random = SeededRandom(seed: 9)
        let world = try ObjectWorld(model: try DifferentialModel.make(), random: &random, layout: .mrq)
        let fresh = world.context.insertObject(forEntityName: "Owner")
        let byObject = try Predicate(format: "owner == %@", fresh)
        let byTemporaryID = try Predicate(format: "owner == %@", fresh.objectID)
        world.items[0].setObject(fresh, forKey: "owner")
        let before = try world.context.fetch(FetchRequest(entityName: "Item", predicate: byObject)).map(\.objectID)
        #expect(before == [world.items[0].objectID])
        #expect(try world.context.fetch(FetchRequest(entityName: "Item", predicate: byTemporaryID)).map(\.objectID) == before)
        try world.context.save()
        #expect(!fresh.objectID.isTemporaryID)
        let request = FetchRequest(entityName: "Item", predicate: byObject)
        #expect(try world.context.explain(request).residual == nil)
        #expect(try world.context.fetch(request).map(\.objectID) == [world.items[0].objectID])
        #expect(try world.context.count(for: request) == 1)
        #expect(try world.context.fetch(FetchRequest(entityName: "Item", predicate: byTemporaryID)).isEmpty)
        #expect(byObject.format.hasSuffix("/Owner/p\(fresh.objectID.primaryKey)>"))
    }

    /// An unsaved object binds nothing: its comparison is decided in the
    /// SQL text, and the pending objects that point at it are found in
    /// memory.
    @Test func anUnsavedObjectIsNeverBoundAsAKey() throws {
        var random = SeededRandom(seed: 13)
        let world = try ObjectWorld(model: try DifferentialModel.make(), random: &random, layout: .coreData)
        let unsaved = world.unsavedOwner
        for (format, sql) in [("owner == %@", "0"), ("owner != %@", "1"), ("owner IN %@", "0")] {
            let argument: any PredicateArgument = format.contains("IN") ? [unsaved] as any PredicateArgument : unsaved
            let plan = try world.context.explain(FetchRequest(entityName: "Item", predicate: Predicate(format: format, argument)))
            #expect(plan.residual == nil)
            #expect(plan.sql.contains("WHERE \(sql)") || plan.sql.contains("WHERE (\(sql))"), "\(format): \(plan.sql)")
            #expect(!plan.bindings.contains(.int(unsaved.objectID.primaryKey)))
        }
        let mixed = try world.context.explain(FetchRequest(entityName: "Item", predicate: Predicate(format: "owner IN %@", [unsaved, world.owners[1]])))
        #expect(mixed.bindings == [.int(world.owners[1].objectID.primaryKey)])
        world.items[2].setObject(unsaved, forKey: "owner")
        let found = try world.context.fetch(FetchRequest(entityName: "Item", predicate: Predicate(format: "owner == %@", unsaved)))
        #expect(found.map(\.objectID) == [world.items[2].objectID])
    }

    /// A child's unsaved object given to its parent as `$variable`: the
    /// parent evaluates the predicate in memory (it has changes of its
    /// own) and matches nothing by it, and registers nothing for the
    /// child's temporary ID, so the child's save still brings the object
    /// up whole.
    @Test func aChildsUnsavedObjectAsAVariableLeavesTheParentClean() throws {
        var random = SeededRandom(seed: 23)
        let world = try ObjectWorld(model: try DifferentialModel.make(), random: &random, layout: .mrq)
        world.items[1].setValue("changed", forKey: "name")
        let child = ManagedObjectContext(concurrencyType: .confined, parent: world.context)
        let fresh = child.insertObject(forEntityName: "Owner")
        fresh.setValue("fresh", forKey: "name")
        var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "owner == $o OR $o.name == 'fresh'"))
        request.objectVariables = ["o": .object(fresh.objectID)]
        #expect(try world.context.fetch(request).isEmpty)
        // The in-memory path's evaluator, as a fetch the store cannot
        // answer in SQL makes it.
        #expect(try world.context.evaluator(for: request).evaluate(request.predicate!, on: world.items[0]) == false)
        #expect(world.context.registered[fresh.objectID] == nil)
        try child.save()
        let saved = try #require(world.context.registered[fresh.objectID])
        #expect(saved.isInserted)
        #expect(saved.value(forKey: "name") as? String == "fresh")
    }

    /// An object of another coordinator's store, with the same primary key
    /// as one of ours, matches nothing (and a predicate reading its keys
    /// through an ID says what to pass instead).
    @Test func anObjectOfAnotherStoreMatchesNothing() throws {
        var random = SeededRandom(seed: 17)
        let world = try ObjectWorld(model: try DifferentialModel.make(), random: &random, layout: .mrq)
        let foreign = world.foreignOwner
        #expect(foreign.objectID.primaryKey == world.owners[0].objectID.primaryKey)
        for format in ["owner == %@", "owner IN %@", "SELF == %@"] {
            let request = FetchRequest(entityName: "Item", predicate: try Predicate(format: format, foreign.objectID))
            #expect(try world.context.fetch(request).isEmpty, "\(format)")
            #expect(try world.context.count(for: request) == 0, "\(format)")
        }
        #expect(try world.context.count(for: FetchRequest(entityName: "Item", predicate: Predicate(format: "owner != %@", foreign)))
                == world.items.count)
        let byID = try Predicate(format: "%@.name == 'x'", world.owners[0].objectID)
        #expect(throws: EvaluationError.self) { try world.items[0].matches(byID) }
    }

    /// How a predicate with an object prints, and that a model cannot
    /// archive one (a fetch request template keeps $variables instead).
    @Test func printsAndRefusesToArchive() throws {
        var random = SeededRandom(seed: 19)
        let world = try ObjectWorld(model: try DifferentialModel.make(), random: &random, layout: .mrq)
        let owner = world.owners[1]
        let predicate = try Predicate(format: "owner IN %@ AND name != nil", [owner, world.owners[2]])
        let uri = owner.objectID.uriRepresentation.absoluteString
        #expect(predicate.description == "owner IN {<\(uri)>, <\(world.owners[2].objectID)>} AND name != nil")
        #expect(predicate.treeDescription.contains("object <\(uri)>"))
        #expect(throws: PredicateArchiveError.self) { _ = try PredicateArchive.node(for: predicate) }
        #expect(throws: SyntaxError.self) { try Predicate(format: "%K == 1", owner) }
        #expect(try Predicate(format: "owner == %@", owner) == Predicate(format: "owner == %@", owner))
        #expect(try Predicate(format: "owner == %@", owner.objectID) == Predicate(format: "owner == %@", owner.objectID))
        #expect(try Predicate(format: "owner == %@", owner) != Predicate(format: "owner == %@", world.owners[2]))
    }
}

// MARK: - The objects

/// A populated store and a context on it, with object constants of every
/// kind: saved objects and their IDs, an unsaved owner and label, an
/// owner of another context and one of another store.
final class ObjectWorld {
    let context: ManagedObjectContext
    var items: [ManagedObject]
    let owners: [ManagedObject]
    let labels: [ManagedObject]
    let parts: [ManagedObject]
    let unsavedOwner: ManagedObject
    let unsavedLabel: ManagedObject
    let foreignOwner: ManagedObject
    let otherContextOwner: ManagedObject
    private let keepAlive: [AnyObject]

    init(model: ManagedObjectModel, random: inout SeededRandom, layout: SchemaMapping.Layout,
         type: PersistentStoreType = .inMemory, at url: URL? = nil) throws {
        let context = try DifferentialModel.populate(model, random: &random, layout: layout, type: type, at: url)
        self.context = context
        func all(_ entity: String) throws -> [ManagedObject] {
            var request = FetchRequest(entityName: entity)
            request.returnsObjectsAsFaults = false
            return try context.fetch(request).map { $0 }.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
        }
        items = try all("Item")
        owners = try all("Owner")
        labels = try all("Label")
        parts = try all("Part")
        for item in items { DifferentialModel.loadEverything(item) }
        unsavedOwner = context.insertObject(forEntityName: "Owner")
        unsavedOwner["name"] = "unsaved"
        unsavedLabel = context.insertObject(forEntityName: "Label")
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        otherContextOwner = try other.existingObject(with: owners[owners.count - 1].objectID)
        // Another store, whose first owner has our first owner's key.
        let foreignCoordinator = PersistentStoreCoordinator(model: model)
        try foreignCoordinator.addPersistentStore(type: .inMemory, at: nil)
        let foreignContext = ManagedObjectContext(concurrencyType: .confined, coordinator: foreignCoordinator)
        foreignOwner = foreignContext.insertObject(forEntityName: "Owner")
        try foreignContext.save()
        keepAlive = [other, foreignContext, foreignCoordinator]
    }

    /// Every constant, as an object and as an ID.
    var pool: ObjectPool {
        func both(_ objects: [ManagedObject]) -> [Expression] {
            objects.map(\.predicateExpression) + objects.map(\.objectID.predicateExpression)
        }
        return ObjectPool(owners: both(owners + [unsavedOwner, foreignOwner, otherContextOwner]),
                          labels: both(labels + [unsavedLabel]), items: both(items), parts: both(parts))
    }

    /// An item moved to the unsaved owner, the unsaved label added to
    /// another, a new item owned by the first owner.
    func makePendingChanges() {
        items[0].setObject(unsavedOwner, forKey: "owner")
        items[1].add(unsavedLabel, toKey: "labels")
        let fresh = context.insertObject(forEntityName: "Item")
        fresh["i16"] = .int(1)
        fresh.setObject(owners[0], forKey: "owner")
        fresh.add(labels[0], toKey: "labels")
        items.append(fresh)
    }

    /// The number of disagreements (0 or 1) between the fetch (and count)
    /// of `predicate` and the evaluator over the items, each recorded.
    func check(_ predicate: Predicate, label: String, aggregate: Bool = false, inChild: Bool = false) throws -> Int {
        let expected: Set<ObjectID>
        do {
            expected = Set(try items.filter { try Evaluator().evaluate(predicate, on: $0) }.map(\.objectID))
        } catch {
            // A scalar part the evaluator refuses (the generator avoids
            // them): not what this test is about.
            return 0
        }
        let request = FetchRequest(entityName: "Item", predicate: predicate)
        let target = inChild ? ManagedObjectContext(concurrencyType: .confined, parent: context) : context
        let fetched = Set(try target.fetch(request).map(\.objectID))
        let counted = try target.count(for: request)
        var problems: [String] = []
        if fetched != expected {
            let plan = inChild ? nil : try? context.explain(request)
            problems.append("""
                fetch differs: \(predicate.format)
                evaluator: \(expected.map(\.primaryKey).sorted()) fetch: \(fetched.map(\.primaryKey).sorted())
                SQL: \(plan?.sql ?? "-") \(plan?.bindings ?? []) residual: \(plan?.residual?.format ?? "none")
                """)
        }
        if counted != expected.count { problems.append("count \(counted), evaluator \(expected.count): \(predicate.format)") }
        if aggregate, context.persistentStoreCoordinator!.soleStore(for: context.model.entity(named: "Item")!, includesSubentities: true) is SQLiteStore {
            let count = try context.aggregate(.count, of: "", entity: "Item", where: predicate)
            if count != .int(Int64(expected.count)) { problems.append("COUNT(*) \(count), evaluator \(expected.count): \(predicate.format)") }
        }
        for problem in problems { Issue.record("\(label): \(problem)") }
        return problems.isEmpty ? 0 : 1
    }
}

/// Object constants by the entity they belong to.
struct ObjectPool {
    var owners: [Expression]
    var labels: [Expression]
    var items: [Expression]
    var parts: [Expression]
}

/// Object comparisons of every form, mixed with the differential
/// generator's scalar predicates.
struct ObjectPredicateGenerator {
    var scalars: PredicateGenerator
    let pool: ObjectPool
    /// Only comparisons of the item's own keys and relationships. A fetch
    /// merging unsaved changes re-evaluates the changed objects only (as
    /// Core Data's does): a key path through another object
    /// (`owner.items`) can see a change that object's neighbours were not
    /// re-evaluated for. That holds for every predicate, with or without
    /// objects, so the tests of pending changes leave those paths out.
    var ownKeysOnly = false

    private mutating func pick(_ list: [Expression]) -> Expression { scalars.random.pick(list) }

    private mutating func list(_ from: [Expression]) -> Expression {
        Expression(.aggregate((0..<scalars.random.int(0...3)).map { _ in pick(from) }))
    }

    private func compare(_ lhs: Expression, _ op: Comparison.Operator, _ rhs: Expression,
                         _ modifier: Comparison.Modifier = .direct) -> Predicate {
        Predicate(.comparison(Comparison(modifier, op, lhs, rhs)))
    }

    mutating func predicate(depth: Int) -> Predicate {
        if depth > 0 && scalars.random.chance(40) {
            switch scalars.random.int(0...3) {
            case 0: return Predicate(.not(predicate(depth: depth - 1)))
            case 1: return Predicate(.or([predicate(depth: depth - 1), predicate(depth: depth - 1)]))
            default: return Predicate(.and([predicate(depth: depth - 1), predicate(depth: depth - 1)]))
            }
        }
        return scalars.random.chance(60) || ownKeysOnly ? objectLeaf() : scalars.predicate(depth: 0)
    }

    mutating func objectLeaf() -> Predicate {
        var random = scalars.random.int(0...13)
        if ownKeysOnly && [10, 12].contains(random) { random = 0 }
        let equality: Comparison.Operator = scalars.random.chance(70) ? .equal : .notEqual
        let modifier: Comparison.Modifier = scalars.random.pick([.direct, .any, .all, .none])
        switch random {
        case 0: return compare(.keyPath("owner"), equality, pick(pool.owners))
        case 1: return compare(pick(pool.owners), equality, .keyPath("owner"))
        case 2: return compare(.keyPath("owner"), .in, list(pool.owners))
        case 3: return compare(Expression(.evaluatedObject), equality, pick(pool.items))
        case 4: return compare(Expression(.evaluatedObject), .in, list(pool.items))
        case 5: return compare(.keyPath("labels"), .contains, pick(pool.labels))
        case 6: return compare(pick(pool.labels), .in, .keyPath("labels"))
        case 7: return compare(.keyPath("labels"), equality, pick(pool.labels), modifier)
        case 8: return compare(.keyPath("labels"), .in, list(pool.labels), scalars.random.pick([.direct, .any, .none]))
        case 9: return compare(.keyPath("parts"), scalars.random.chance(50) ? .contains : .equal, pick(pool.parts))
        case 10: return compare(.keyPath("owner.items"), .contains, pick(pool.items))
        case 11: return compare(.keyPath("parts.item"), equality, pick(pool.items), modifier)
        case 12: return compare(pick(pool.items), .in, .keyPath("owner.items"))
        default:
            // Another entity's object: equal to no owner.
            return compare(.keyPath("owner"), equality, pick(pool.labels))
        }
    }
}
