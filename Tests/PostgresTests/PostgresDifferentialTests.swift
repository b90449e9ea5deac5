import Foundation
import Testing
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import struct Predicates.Predicate

/// The random predicates of `DifferentialFetchTests` on SQLite, on
/// PostgreSQL and in the evaluator, over the same data: every answer
/// equal — the objects in order (sorted and windowed), the counts, and
/// dictionary fetches (COUNT(*), sums and averages grouped by a key path).
///
/// One server for the suite (`PostgresServer.shared()`), a schema of its
/// own per data set. `MRQ_SEED=<n>` changes the seed, as there.
@Suite struct PostgresDifferentialTests {
    static let sortKeys = ["i16", "i64", "dbl", "name", "note", "when", "flag", "owner.name", "link"]

    @Test(arguments: 0..<2)
    func postgresAgreesWithSQLiteAndTheEvaluator(shard: Int) throws {
        let server = try PostgresServer.shared()
        let model = try DifferentialModel.make()
        var total = 0, wholeInSQL = 0, failures = 0
        for set in 0..<6 {
            let seed = SeededRandom.baseSeed &+ 77 &+ UInt64(shard) &* 1_000_003 &+ UInt64(set)
            var random = SeededRandom(seed: seed)
            var copy = random
            let sqlite = try DifferentialModel.populate(model, random: &random)
            let postgres = try DifferentialModel.populate(model, random: &copy, type: .postgres, at: URL(string: try server.createSchema())!)
            let store = try #require(postgres.persistentStoreCoordinator!.backends.first as? PostgresStore)
            var everything = FetchRequest(entityName: "Item")
            everything.returnsObjectsAsFaults = false
            let all = try sqlite.fetch(everything).map { $0 }
            for object in all { DifferentialModel.loadEverything(object) }
            // The same rows under the same keys in both stores.
            let pgAll = try postgres.fetch(everything).map { $0 }
            for object in pgAll { DifferentialModel.loadEverything(object) }
            // (SQLite keeps -0.0 as 0.0, PostgreSQL keeps its sign; they compare equal.)
            func dump(_ object: ManagedObject) -> String {
                DifferentialModel.dump(object).replacingOccurrences(of: "=-0.0 ", with: "=0.0 ").replacingOccurrences(of: " -0.0,", with: " 0.0,")
            }
            try #require(all.map(dump) == pgAll.map(dump), "seed \(seed): the two stores hold other data")

            let evaluator = Evaluator()
            var generator = PredicateGenerator(random: random)
            var choices = SeededRandom(seed: seed ^ 0x5EED)
            for n in 0..<60 {
                let predicate = generator.predicate(depth: 2)
                total += 1
                var request = FetchRequest(entityName: "Item", predicate: predicate)
                request.sortDescriptors = (0..<choices.int(0...2)).map { _ in
                    SortKey(keyPath: choices.pick(Self.sortKeys).split(separator: ".").map(String.init), ascending: choices.chance(50))
                }
                if choices.chance(30) { request.fetchLimit = choices.int(1...5) }
                if choices.chance(20) { request.fetchOffset = choices.int(1...4) }
                let plan = try FetchPlan(request: request, entity: model.entity(named: "Item")!, store: store, predicate: predicate)
                if plan.residual == nil { wholeInSQL += 1 }
                let context = "seed \(seed) case \(n): \(predicate.format) sorted by \(request.sortDescriptors.map(\.key))"
                    + " limit \(request.fetchLimit) offset \(request.fetchOffset)\nPostgreSQL: \(plan.selectIDs(limit: 0, offset: 0)) \(plan.bindings)"

                let matching = try all.filter { try evaluator.evaluate(predicate, on: $0) }
                let ordered = Self.sorted(matching, by: request.sortDescriptors)
                let window = ManagedObjectContext.window(count: ordered.count, limit: request.fetchLimit, offset: request.fetchOffset)
                let expected = ordered[window].map(\.objectID.primaryKey)
                let fromSQLite = try sqlite.fetch(request).map(\.objectID.primaryKey)
                let fromPostgres: [Int64]
                do {
                    fromPostgres = try postgres.fetch(request).map(\.objectID.primaryKey)
                } catch {
                    failures += 1
                    Issue.record("\(context)\nPostgreSQL failed: \(error)")
                    continue
                }
                if fromSQLite != expected || fromPostgres != expected {
                    failures += 1
                    Issue.record("\(context)\nevaluator: \(expected)\nSQLite:    \(fromSQLite)\nPostgreSQL: \(fromPostgres)")
                }
                var counting = request
                counting.sortDescriptors = []
                let counts = (try sqlite.count(for: counting), try postgres.count(for: counting))
                if counts.0 != expected.count || counts.1 != expected.count {
                    failures += 1
                    Issue.record("\(context)\ncounts: evaluator \(expected.count), SQLite \(counts.0), PostgreSQL \(counts.1)")
                }
                if n % 5 == 0 {
                    let count = try postgres.aggregate(.count, of: "", entity: "Item", where: predicate)
                    let groups = { (context: ManagedObjectContext) in
                        try context.aggregate(.sum, of: "i32", entity: "Item", where: predicate, groupBy: ["owner.name", "flag"])
                            + context.aggregate(.average, of: "i16", entity: "Item", where: predicate, groupBy: ["owner"])
                            + context.aggregate(.max, of: "when", entity: "Item", where: predicate, groupBy: ["owner.rank"])
                    }
                    let (inSQLite, inPostgres) = (try groups(sqlite), try groups(postgres))
                    if count != .int(Int64(matching.count)) || inSQLite != inPostgres {
                        failures += 1
                        Issue.record("\(context)\nCOUNT(*) \(count) for \(matching.count)\nSQLite groups:     \(inSQLite)\nPostgreSQL groups: \(inPostgres)")
                    }
                }
                if failures >= 8 { return }
            }
            for n in 0..<25 {
                let predicate = generator.predicate(depth: 1)
                let (request, refused) = Self.dictionaryRequest(&choices, predicate: predicate)
                let context = "seed \(seed) dictionary \(n): \(predicate.format) properties \(request.propertiesToFetch!.map(\.name)) "
                    + "group by \(request.propertiesToGroupBy ?? []) distinct \(request.returnsDistinctResults) "
                    + "sorted by \(request.sortDescriptors.map(\.description)) limit \(request.fetchLimit)"
                var answers: [DictionaryAnswer] = []
                for store in [sqlite, postgres] {
                    do {
                        answers.append(.rows(try store.fetchRows(request).rows))
                    } catch let error as StoreError {
                        answers.append(.refused(error.message))
                    }
                }
                if refused {
                    guard case .refused(let a) = answers[0], case .refused(let b) = answers[1], a == b, a.hasPrefix("cannot sort by") else {
                        failures += 1
                        Issue.record("\(context)\nexpected the same refusal, got\nSQLite:     \(answers[0])\nPostgreSQL: \(answers[1])")
                        continue
                    }
                    continue
                }
                let expected = try Self.dictionaryRows(request, of: all.filter { try evaluator.evaluate(predicate, on: $0) })
                if answers[0] != .rows(expected) || answers[1] != .rows(expected) {
                    failures += 1
                    Issue.record("\(context)\nevaluator:  \(expected)\nSQLite:     \(answers[0])\nPostgreSQL: \(answers[1])")
                }
                if failures >= 8 { return }
            }
        }
        // The comparison means something only if most cases run in SQL.
        #expect(wholeInSQL * 2 >= total, "only \(wholeInSQL) of \(total) predicates ran wholly in SQL on PostgreSQL")
    }

    /// A random dictionary fetch over plain keys (and a to-one's key),
    /// maybe a count or a sum grouped by them, maybe distinct, sorted by
    /// fetched names or key paths; `refused` when a sort key has many
    /// values in one row of the result (both engines must refuse it).
    static func dictionaryRequest(_ choices: inout SeededRandom, predicate: Predicate) -> (FetchRequest, refused: Bool) {
        var keys: [String] = []
        for _ in 0..<choices.int(1...2) {
            let key = choices.pick(["name", "owner.name", "flag", "i16", "owner"])
            if !keys.contains(key) { keys.append(key) }
        }
        var request = FetchRequest(entityName: "Item", predicate: predicate)
        request.resultType = .dictionary
        var properties = keys.map { PropertyToFetch(keyPath: $0) }
        let aggregate = choices.chance(40) ? choices.pick([PropertyToFetch(.count, of: "", as: "n"), PropertyToFetch(.sum, of: "i32", as: "total")]) : nil
        if let aggregate { properties.append(aggregate) }
        request.propertiesToFetch = properties
        if aggregate != nil || choices.chance(30) { request.propertiesToGroupBy = keys }
        request.returnsDistinctResults = choices.chance(50)
        let grouped = aggregate != nil || request.propertiesToGroupBy != nil || request.returnsDistinctResults
        var refused = false
        for _ in 0..<choices.int(0...2) {
            let key = choices.pick(keys + [aggregate?.name ?? "name", "owner.name", "i32"])
            let decided = keys.contains(key) || key == aggregate?.name
                || (key == "owner.name" && keys.contains("owner") && !(aggregate != nil && request.returnsDistinctResults))
            if grouped && !decided { refused = true }
            request.sortDescriptors.append(SortKey(keyPath: key.split(separator: ".").map(String.init), ascending: choices.chance(50)))
        }
        if choices.chance(30) { request.fetchLimit = choices.int(1...4) }
        if choices.chance(20) { request.fetchOffset = choices.int(1...3) }
        return (request, refused)
    }

    /// A dictionary fetch's rows as the evaluator makes them from the
    /// matching objects: grouped (or one per object), counted and summed,
    /// distinct, sorted (ties by every column, or by the object), windowed.
    static func dictionaryRows(_ request: FetchRequest, of objects: [ManagedObject]) throws -> [[Value]] {
        let properties = request.propertiesToFetch!
        func value(_ object: ManagedObject, _ key: String) -> Value {
            if key == "owner" { return object.object(forKey: "owner").map { .int($0.objectID.primaryKey) } ?? .null }
            return object.sortValue(key.split(separator: ".").map(String.init))
        }
        let plain = properties.filter { $0.function == nil }
        let aggregate = properties.first { $0.function != nil }
        // SQL groups strings by their bytes (NFC and NFD apart); Swift's
        // == by canonical equivalence.
        func exact(_ values: [Value]) -> [Value] {
            values.map { if case .string(let s) = $0 { return .data(Data(s.utf8)) }; return $0 }
        }
        // Each row with an object it came from, for sort keys it decides.
        var rows: [(values: [Value], object: ManagedObject)] = []
        if aggregate != nil || request.propertiesToGroupBy != nil {
            var groups: [[Value]: [ManagedObject]] = [:]
            var order: [[Value]] = []
            for object in objects {
                let key = plain.map { value(object, $0.keyPath) }
                if groups[exact(key)] == nil { order.append(key) }
                groups[exact(key), default: []].append(object)
            }
            for key in order {
                let members = groups[exact(key)] ?? []
                var values = key
                if let aggregate {
                    if aggregate.function == .count {
                        values.append(.int(Int64(members.count)))
                    } else {
                        values.append(.int(members.reduce(0) { sum, o in if case .int(let i) = o["i32"] { return sum + i }; return sum }))
                    }
                }
                if let first = members.first { rows.append((values, first)) }
            }
        } else {
            rows = objects.map { object in (plain.map { value(object, $0.keyPath) }, object) }
        }
        if request.returnsDistinctResults {
            var seen: Set<[Value]> = []
            rows = rows.filter { seen.insert(exact($0.values)).inserted }
        }
        let grouped = aggregate != nil || request.propertiesToGroupBy != nil || request.returnsDistinctResults
        func sortValue(_ row: (values: [Value], object: ManagedObject), _ key: SortKey) -> Value {
            if key.keyPath.count == 1, let i = properties.firstIndex(where: { $0.name == key.keyPath[0] }) { return row.values[i] }
            return value(row.object, key.keyPath.joined(separator: "."))
        }
        rows.sort { a, b in
            for key in request.sortDescriptors {
                let c = ValueOrdering.compare(sortValue(a, key), sortValue(b, key))
                if c != 0 { return key.ascending ? c < 0 : c > 0 }
            }
            if grouped {
                for (x, y) in zip(a.values, b.values) {
                    let c = ValueOrdering.compare(x, y)
                    if c != 0 { return c < 0 }
                }
                return false
            }
            return a.object.objectID.primaryKey < b.object.objectID.primaryKey
        }
        let window = ManagedObjectContext.window(count: rows.count, limit: request.fetchLimit, offset: request.fetchOffset)
        return rows[window].map(\.values)
    }

    /// The evaluator's order: `ValueOrdering` by each key, then the key.
    static func sorted(_ objects: [ManagedObject], by keys: [SortKey]) -> [ManagedObject] {
        objects.sorted { a, b in
            for key in keys {
                let c = ValueOrdering.compare(a.sortValue(key.keyPath), b.sortValue(key.keyPath))
                if c != 0 { return key.ascending ? c < 0 : c > 0 }
            }
            return a.objectID.primaryKey < b.objectID.primaryKey
        }
    }

    /// A filtered fetch, a count and a dictionary fetch bring only what
    /// they answer back from the server: the WHERE runs in PostgreSQL.
    @Test func filtersRunInPostgreSQL() throws {
        let model = try DifferentialModel.make()
        let predicate = try Predicate(format: "i16 == 1 AND (ANY parts.qty > 0 OR owner.name BEGINSWITH 'a' OR name LIKE '*b*')")
        // The first data set where some items match, not all.
        var context: ManagedObjectContext!
        var all: [ManagedObject] = []
        var expected: [ManagedObject] = []
        for seed in UInt64(3)..<20 where expected.isEmpty || expected.count == all.count {
            var random = SeededRandom(seed: seed)
            context = try DifferentialModel.populate(model, random: &random, type: .postgres,
                                                     at: URL(string: try PostgresServer.shared().createSchema())!)
            all = try context.fetch(FetchRequest(entityName: "Item")).map { $0 }
            expected = try all.filter { try $0.matches(predicate) }
        }
        let store = try #require(context.persistentStoreCoordinator!.backends.first as? PostgresStore)
        #expect(!expected.isEmpty && expected.count < all.count)

        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        var request = FetchRequest(entityName: "Item", predicate: predicate)
        request.sortDescriptors = [SortKey(keyPath: ["name"], ascending: false)]
        let before = store.rowsReturned
        let found = try fresh.fetch(request)
        #expect(store.rowsReturned - before == expected.count)
        #expect(Set(found.map(\.objectID)) == Set(expected.map(\.objectID)))
        let plan = try fresh.explain(request)
        #expect(plan.residual == nil)

        let counted = store.rowsReturned
        #expect(try fresh.count(for: request) == expected.count)
        #expect(try fresh.aggregate(.count, of: "", entity: "Item", where: predicate) == .int(Int64(expected.count)))
        #expect(store.rowsReturned - counted == 1, "a dictionary count is one row")
    }

    /// Batch requests run as statements on PostgreSQL, bump the version
    /// of what they change (a context holding an older version gets a
    /// conflict, not a lost update) and delete with the delete rules.
    @Test func batchRequestsRunInPostgreSQL() throws {
        let model = try DifferentialModel.make()
        var random = SeededRandom(seed: 5)
        let context = try DifferentialModel.populate(model, random: &random, type: .postgres,
                                                     at: URL(string: try PostgresServer.shared().createSchema())!)
        let all = try context.fetch(FetchRequest(entityName: "Item")).map { $0 }
        let predicate = try Predicate(format: "i16 >= 1 OR name MATCHES 'a.*'")
        let expected = try all.filter { try $0.matches(predicate) }
        #expect(!expected.isEmpty && expected.count < all.count)
        let held = expected[0]
        _ = held["note"]

        var update = BatchUpdateRequest(entityName: "Item", predicate: predicate, propertiesToUpdate: ["note": .value(.string("batch")), "i32": .value(.int(9))])
        update.resultType = .updatedObjectIDs
        let result = try context.execute(update)
        #expect(Set(result.objectIDs ?? []) == Set(expected.map(\.objectID)))
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        #expect(try fresh.count(for: FetchRequest(entityName: "Item", predicate: try Predicate(format: "note == 'batch' AND i32 == 9"))) == expected.count)

        // The held object still has the old version: its save conflicts.
        held["note"] = .string("mine")
        #expect(throws: (any Error).self) { try context.save() }

        let doomed = try all.filter { try $0.matches(try Predicate(format: "i16 < 0")) }
        let partsBefore = try fresh.count(for: FetchRequest(entityName: "Part"))
        let doomedParts = doomed.reduce(0) { $0 + $1.objects(forKey: "parts").count }
        var delete = BatchDeleteRequest(entityName: "Item", predicate: try Predicate(format: "i16 < 0"))
        delete.resultType = .deletedObjectIDs
        let deleted = try context.execute(delete)
        #expect(Set(deleted.objectIDs ?? []) == Set(doomed.map(\.objectID)))
        #expect(try fresh.count(for: FetchRequest(entityName: "Item")) == all.count - doomed.count)
        #expect(try fresh.count(for: FetchRequest(entityName: "Part")) == partsBefore - doomedParts, "parts cascade")
    }
}

/// What a store answers a dictionary fetch: its rows, or its refusal.
private enum DictionaryAnswer: Equatable {
    case rows([[Value]])
    case refused(String)
}
