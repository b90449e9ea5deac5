import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// Deep and long predicates through the SQL path: whatever the parser
/// takes reaches SQLite in a form its parser takes (flat chains, grouped
/// lists), or runs in memory, and the answer is the evaluator's. Before,
/// 100 `+` terms were "SQLite error 1: parser stack overflow" and 1,001
/// OR terms "Expression tree is too large".
@Suite struct DeepPredicateFetchTests {
    struct Fixture {
        let context: ManagedObjectContext
        let objects: [ManagedObject]
        let entity: EntityDescription
        let store: SQLiteStore

        init(seed: UInt64) throws {
            let model = try DifferentialModel.make()
            var random = SeededRandom(seed: seed)
            context = try DifferentialModel.populate(model, random: &random)
            store = context.persistentStoreCoordinator!.store
            entity = model.entity(named: "Item")!
            var everything = FetchRequest(entityName: "Item")
            everything.returnsObjectsAsFaults = false
            objects = try context.fetch(everything).map { $0 }
            for object in objects { DifferentialModel.loadEverything(object) }
        }

        /// Fetches with `predicate` and checks the answer against the
        /// evaluator's; returns the plan's residual (nil: all in SQL).
        @discardableResult
        func check(_ predicate: Predicate, _ label: String) throws -> Predicate? {
            let request = FetchRequest(entityName: "Item", predicate: predicate)
            let plan = try FetchPlan(request: request, entity: entity, store: store, predicate: predicate)
            var expected: Set<Int64> = []
            for object in objects where try Evaluator().evaluate(predicate, on: object) {
                expected.insert(object.objectID.primaryKey)
            }
            do {
                let actual = Set(try context.fetch(request).objectIDs.map(\.primaryKey))
                #expect(actual == expected, "\(label): SQL and evaluator disagree")
                let count = try context.aggregate(.count, of: "", entity: "Item", where: predicate)
                #expect(count == .int(Int64(expected.count)), "\(label): COUNT(*) disagrees")
            } catch {
                Issue.record("\(label): \(String(describing: error).prefix(300))…\nSQL: \(plan.selectIDs(limit: 0, offset: 0).prefix(300))…")
            }
            return plan.residual
        }
    }

    static func key(_ path: String) -> Expression { .keyPath(path) }
    static func int(_ n: Int64) -> Expression { Expression(.constant(.int(n))) }
    static func comparison(_ lhs: Expression, _ op: Comparison.Operator, _ rhs: Expression) -> Predicate {
        Predicate(.comparison(Comparison(.direct, op, lhs, rhs)))
    }

    /// `i16 + i32 - 3 + dbl …`: the left-deep tree the parser builds.
    /// With `multiplying`, one link in ten is `* 2`: each switch of
    /// precedence needs parentheses in SQL, so those nest for real.
    static func chain(_ links: Int, multiplying: Bool = false, random: inout SeededRandom) -> Expression {
        var e = key("i16")
        for _ in 0..<links {
            let operand = random.chance(50) ? key(random.pick(["i16", "i32", "dbl", "owner.rank"])) : int(Int64(random.int(-5...5)))
            let op: ArithmeticOperator = multiplying && random.chance(10) ? .multiply : random.pick([.add, .subtract])
            e = Expression(.binary(op, e, op == .multiply ? int(2) : operand))
        }
        return e
    }

    @Test func longArithmeticChainsStayInSQL() throws {
        let fixture = try Fixture(seed: 41)
        var random = SeededRandom(seed: 42)
        for links in [1, 50, 99, 100, 127, 500] {
            let predicate = Self.comparison(Self.chain(links, random: &random), .greater, Self.int(0))
            let residual = try fixture.check(predicate, "\(links) links")
            #expect(residual == nil, "a chain of \(links) links runs in SQL")
            let mixed = Self.comparison(Self.chain(links, multiplying: true, random: &random), .less, Self.int(3))
            try fixture.check(mixed, "\(links) links with * 2")
        }
        // The same chain parsed from text, as the shell sends it.
        let text = "i16 + " + Array(repeating: "i32", count: 120).joined(separator: " - ") + " < 5"
        #expect(try fixture.check(try Predicate(format: text), "parsed chain") == nil)
    }

    @Test func longListsAreGroupedForSQLite() throws {
        let fixture = try Fixture(seed: 43)
        for count in [33, 1_001, 5_000] {
            let parts = (0..<count).map { Self.comparison(Self.key("i32"), .equal, Self.int(Int64($0 - count / 2))) }
            #expect(try fixture.check(Predicate(.or(parts)), "OR of \(count)") == nil)
            let negated = parts.map { Predicate(.not($0)) }
            #expect(try fixture.check(Predicate(.and(negated)), "AND of \(count)") == nil)
        }
    }

    @Test func moreValuesThanSQLiteBindsRunInMemory() throws {
        let fixture = try Fixture(seed: 44)
        let items = (0..<40_000).map { Self.int(Int64($0 % 997 - 500)) }
        let membership = Self.comparison(Self.key("i16"), .in, Expression(.aggregate(items)))
        #expect(try fixture.check(membership, "IN of 40,000") != nil)
        let within = Self.comparison(Self.key("i16"), .in, Expression(.aggregate(Array(items.prefix(1_000)))))
        #expect(try fixture.check(within, "IN of 1,000") == nil)
    }

    /// Random predicates nested along one spine (NOT, AND, OR around the
    /// generator's leaves, SUBQUERY and to-many among them), up to the
    /// parser's bound: SQLite never sees one it cannot parse.
    @Test(arguments: 0..<2)
    func deepSpinesAgree(shard: Int) throws {
        let fixture = try Fixture(seed: 45 + UInt64(shard))
        var generator = PredicateGenerator(random: SeededRandom(seed: 100 + UInt64(shard)))
        var inSQL = 0
        for n in 0..<60 {
            let depth = n < 30 ? n : generator.random.int(30...120)
            var p = generator.predicate(depth: 0)
            for _ in 0..<depth {
                let leaf = generator.predicate(depth: 0)
                switch generator.random.int(0...3) {
                case 0: p = Predicate(.not(p))
                case 1: p = Predicate(.or(generator.random.chance(50) ? [leaf, p] : [p, leaf]))
                default: p = Predicate(.and(generator.random.chance(50) ? [leaf, p] : [p, leaf]))
                }
            }
            if try fixture.check(p, "seed \(shard) spine \(n), depth \(depth)") == nil { inSQL += 1 }
        }
        #expect(inSQL > 0, "some deep predicates run wholly in SQL")
    }

    /// A key path through 70 to-one hops would join 70 tables; SQLite
    /// takes 64. The fetch still answers, in memory.
    @Test func moreJoinsThanSQLiteTakesRunInMemory() throws {
        let node = EntityDescription(name: "Node")
        node.add(AttributeDescription(name: "n", type: .integer32))
        node.add(RelationshipDescription(name: "next", destination: "Node", inverse: "previous"))
        node.add(RelationshipDescription(name: "previous", destination: "Node", inverse: "next"))
        let model = try ManagedObjectModel(entities: [node])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var previous: ManagedObject?
        for i in 0..<80 {
            let object = context.insertObject(forEntityName: "Node")
            object["n"] = .int(Int64(i))
            object.setValue(previous, forKey: "previous")
            previous = object
        }
        try context.save()
        for hops in [10, 55, 70] {
            let path = Array(repeating: "next", count: hops).joined(separator: ".") + ".n"
            let request = FetchRequest(entityName: "Node", predicate: try Predicate(format: "\(path) == %@", .int(hops + 3)))
            let found = try context.fetch(request).map { $0["n"] }
            #expect(found == [.int(3)], "\(hops) hops")
        }
    }
}
