import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// Random predicates over random data: the SQL path of `fetch` must return
/// exactly the objects the reference evaluator picks in memory, and a
/// dictionary fetch's COUNT(*) must count them.
///
/// Each run checks 4 × 25 data sets × 100 predicates = 10,000 cases;
/// `MRQ_SOAK=1` runs ten times as many. `MRQ_SEED=<n>` changes the seed
/// (the failure messages name the seed and case to reproduce).
@Suite struct DifferentialFetchTests {
    static let soak = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1"

    /// Both layouts: Core Data's names its columns and stores UUIDs
    /// otherwise, through the same translator.
    @Test(arguments: SchemaMapping.Layout.allCases, 0..<4)
    func sqlAgreesWithTheEvaluator(layout: SchemaMapping.Layout, shard: Int) throws {
        let dataSets = Self.soak ? 250 : 25
        let predicatesPerSet = 100
        let model = try DifferentialModel.make()
        var translatedWhole = 0
        var total = 0
        var failures = 0
        for set in 0..<dataSets {
            let seed = SeededRandom.baseSeed &+ UInt64(shard) &* 1_000_003 &+ UInt64(set)
            var random = SeededRandom(seed: seed)
            let context = try DifferentialModel.populate(model, random: &random, layout: layout)
            let store = context.persistentStoreCoordinator!.store
            let entity = model.entity(named: "Item")!
            var everything = FetchRequest(entityName: "Item")
            everything.returnsObjectsAsFaults = false
            let all = try context.fetch(everything).map { $0 }
            for object in all { DifferentialModel.loadEverything(object) }
            let evaluator = Evaluator()
            var generator = PredicateGenerator(random: random)
            for n in 0..<predicatesPerSet {
                let predicate = generator.predicate(depth: 2)
                total += 1
                let request = FetchRequest(entityName: "Item", predicate: predicate)
                let plan: FetchPlan
                do {
                    plan = try FetchPlan(request: request, entity: entity, store: store, predicate: predicate)
                } catch {
                    failures += 1
                    Issue.record("\(layout) seed \(seed) case \(n): cannot plan \(predicate.format): \(error)")
                    continue
                }
                if plan.residual == nil { translatedWhole += 1 }
                var expected: Set<Int64> = []
                do {
                    for object in all where try evaluator.evaluate(predicate, on: object) {
                        expected.insert(object.objectID.primaryKey)
                    }
                } catch {
                    failures += 1
                    Issue.record("\(layout) seed \(seed) case \(n): the evaluator failed on \(predicate.format): \(error)")
                    continue
                }
                let actual: Set<Int64>
                do {
                    actual = Set(try context.fetch(request).objectIDs.map(\.primaryKey))
                } catch {
                    failures += 1
                    Issue.record("""
                        \(layout) seed \(seed) case \(n): fetch failed: \(error)
                        predicate: \(predicate.format)
                        SQL: \(plan.selectIDs(limit: 0, offset: 0)) \(plan.bindings)
                        """)
                    continue
                }
                if actual != expected {
                    failures += 1
                    Issue.record(Comment(rawValue: Self.report(
                        seed: seed, case: n, predicate: predicate, plan: plan,
                        expected: expected, actual: actual, objects: all)))
                }
                // Dictionary fetches take the same WHERE path (or run the
                // residual first): their count must agree too.
                if n % 10 == 0 {
                    let count = try? context.aggregate(.count, of: "", entity: "Item", where: predicate)
                    if count != .int(Int64(expected.count)) {
                        failures += 1
                        Issue.record("\(layout) seed \(seed) case \(n): COUNT(*) of \(predicate.format) is \(String(describing: count)), the evaluator finds \(expected.count)")
                    }
                }
                if failures >= 8 { return }
            }
            generator.random.advance()
        }
        // The test means something only if most cases run wholly in SQL.
        #expect(translatedWhole * 10 >= total * 6, "only \(translatedWhole) of \(total) predicates ran wholly in SQL")
    }

    /// `identifier == "3F25…"` and `url BEGINSWITH "https"` match, in SQL
    /// in both layouts (a UUID is 16 bytes in Core Data's, text in mrq's).
    @Test(arguments: SchemaMapping.Layout.allCases)
    func uuidsAndURIsMatchTheirStringFormsInSQL(layout: SchemaMapping.Layout) throws {
        let model = try DifferentialModel.make()
        var random = SeededRandom(seed: 7)
        let context = try DifferentialModel.populate(model, random: &random, layout: layout)
        let all = try context.fetch(FetchRequest(entityName: "Item")).map { $0 }
        for format in [#"token == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f""#, #"link BEGINSWITH "https""#,
                       #"token IN {"00000000-0000-0000-0000-000000000001"}"#, #"link == "file:///tmp/x""#,
                       #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F" != token"#, #"link CONTAINS[c] "EXAMPLE""#] {
            let predicate = try Predicate(format: format)
            let request = FetchRequest(entityName: "Item", predicate: predicate)
            let plan = try context.explain(request)
            #expect(plan.residual == nil, "\(layout): \(format) runs in SQL: \(plan.sql)")
            let fetched = Set(try context.fetch(request).objectIDs.map(\.primaryKey))
            let expected = Set(try all.filter { try $0.matches(predicate) }.map(\.objectID.primaryKey))
            #expect(fetched == expected, "\(layout): \(format)")
            #expect(!fetched.isEmpty, "\(layout): \(format)")
        }
    }

    /// `owner == $o` and `owner IN $os` with objects bound by ID: in SQL
    /// (the foreign key against the primary key) and in memory (identity,
    /// with unsaved changes), the same objects.
    @Test(arguments: SchemaMapping.Layout.allCases)
    func objectVariablesMatchInSQLAndInMemory(layout: SchemaMapping.Layout) throws {
        let model = try DifferentialModel.make()
        var random = SeededRandom(seed: 11)
        let context = try DifferentialModel.populate(model, random: &random, layout: layout)
        let owners = try context.fetch(FetchRequest(entityName: "Owner")).map { $0 }
        let labels = try context.fetch(FetchRequest(entityName: "Label")).map { $0 }
        let all = try context.fetch(FetchRequest(entityName: "Item")).map { $0 }
        let variables: [String: ObjectVariable] = ["o": .object(owners[0].objectID), "os": .objects(owners.prefix(2).map(\.objectID)),
                                                   "none": .objects([]), "l": .object(labels[0].objectID)]
        let evaluator = Evaluator(operands: ["o": .object(owners[0]), "os": .collection(owners.prefix(2).map { .object($0) }),
                                             "none": .collection([]), "l": .object(labels[0])])
        for format in ["owner == $o", "owner != $o", "owner IN $os", "NOT (owner IN $os) OR i16 > 1", "owner IN $none",
                       "$o == owner AND flag == YES", "labels CONTAINS $l", "owner == $l"] {
            let predicate = try Predicate(format: format)
            var request = FetchRequest(entityName: "Item", predicate: predicate)
            request.objectVariables = variables
            let expected = Set(try all.filter { try evaluator.evaluate(predicate, on: $0) }.map(\.objectID.primaryKey))
            #expect(Set(try context.fetch(request).objectIDs.map(\.primaryKey)) == expected, "\(layout): \(format)")
            request.resultType = .count
            #expect(try context.count(for: request) == expected.count, "\(layout): \(format)")
            if format.hasPrefix("owner") && !format.contains("$l") {
                #expect(try context.explain(request).residual == nil, "\(layout): \(format) runs in SQL")
            }
        }
        // With unsaved changes: a moved item, and an unsaved owner.
        let fresh = context.insertObject(forEntityName: "Owner")
        all[0].setObject(fresh, forKey: "owner")
        var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "owner == $o"))
        request.objectVariables = ["o": .object(fresh.objectID)]
        #expect(try context.fetch(request).map(\.objectID) == [all[0].objectID])
        request.objectVariables = ["o": .object(owners[0].objectID)]
        #expect(!(try context.fetch(request).contains { $0 === all[0] }))
    }

    private static func report(seed: UInt64, case n: Int, predicate: Predicate, plan: FetchPlan,
                               expected: Set<Int64>, actual: Set<Int64>, objects: [ManagedObject]) -> String {
        var text = """
            seed \(seed) case \(n): SQL and evaluator disagree
            predicate: \(predicate.format)
            SQL: \(plan.selectIDs(limit: 0, offset: 0))
            bindings: \(plan.bindings)
            residual: \(plan.residual?.format ?? "none")
            evaluator: \(expected.sorted())
            SQL:       \(actual.sorted())
            """
        let differing = expected.symmetricDifference(actual)
        for object in objects where differing.contains(object.objectID.primaryKey) {
            text += "\n  \(DifferentialModel.dump(object))"
        }
        return text
    }
}
