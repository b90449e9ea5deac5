import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import struct Predicates.Predicate
import Testing

/// Batch deletes on PostgreSQL (each step one statement whatever the
/// count) against the same on SQLite, and saves that meet in a deadlock.
@Suite struct PostgresBatchDeleteTests {
    /// Every delete rule: Owner (and its sub-entity VIP) cascades to pets,
    /// which cascade to toys; badges many-to-many (nullify); memos by no
    /// action; a locker by Deny, one-to-one. Plain has no relationship.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Owner") {
                Attribute("name", .string)
                Attribute("kind", .integer64, default: .int(0))
                ToMany("pets", "Pet", inverse: "owner", deleteRule: .cascade)
                ToMany("badges", "Badge", inverse: "holders", deleteRule: .nullify)
                ToMany("memos", "Memo", inverse: "author", deleteRule: .noAction)
                ToOne("locker", "Locker", inverse: "holder", deleteRule: .deny)
            }
            Entity("VIP", parent: "Owner") {
                Attribute("tier", .integer64, default: .int(1))
            }
            Entity("Pet") {
                Attribute("name", .string)
                Attribute("age", .integer64, default: .int(0))
                ToOne("owner", "Owner", inverse: "pets", deleteRule: .nullify)
                ToMany("toys", "Toy", inverse: "pet", deleteRule: .cascade)
            }
            Entity("Toy") {
                Attribute("name", .string)
                ToOne("pet", "Pet", inverse: "toys", deleteRule: .nullify)
            }
            Entity("Badge") {
                Attribute("name", .string)
                ToMany("holders", "Owner", inverse: "badges", deleteRule: .nullify)
            }
            Entity("Memo") {
                Attribute("name", .string)
                ToOne("author", "Owner", inverse: "memos", deleteRule: .nullify)
            }
            Entity("Locker") {
                Attribute("name", .string)
                ToOne("holder", "Owner", inverse: "locker", deleteRule: .nullify)
            }
            Entity("Plain") {
                Attribute("name", .string)
                Attribute("n", .integer64, default: .int(0))
            }
        }
    }

    static let entities = ["Owner", "Pet", "Toy", "Badge", "Memo", "Locker", "Plain"]

    /// One store and what it holds, read by name.
    final class World {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        init(_ coordinator: PersistentStoreCoordinator) {
            self.coordinator = coordinator
            context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        }

        @discardableResult
        func insert(_ entity: String, _ name: String) -> ManagedObject {
            let object = context.insertObject(forEntityName: entity)
            object["name"] = .string(name)
            return object
        }

        /// Twelve owners (every fourth a VIP) with two pets each and their
        /// toys, three badges, memos and lockers for some, twenty plains.
        func seed() throws {
            let badges = (0..<3).map { insert("Badge", "b\($0)") }
            for i in 0..<12 {
                let owner = insert(i % 4 == 3 ? "VIP" : "Owner", "o\(i)")
                owner["kind"] = .int(Int64(i % 3))
                for p in 0..<2 {
                    let pet = insert("Pet", "p\(i)-\(p)")
                    pet["age"] = .int(Int64((i + p) % 5))
                    pet.setObject(owner, forKey: "owner")
                    for t in 0..<((i + p) % 3) { insert("Toy", "t\(i)-\(p)-\(t)").setObject(pet, forKey: "pet") }
                }
                for (b, badge) in badges.enumerated() where (i + b) % 2 == 0 { owner.add(badge, toKey: "badges") }
                if i % 2 == 0 { insert("Memo", "m\(i)").setObject(owner, forKey: "author") }
                if i % 5 == 0 { insert("Locker", "l\(i)").setObject(owner, forKey: "holder") }
            }
            for n in 0..<20 { insert("Plain", "n\(n)")["n"] = .int(Int64(n)) }
            try context.save()
        }

        /// Each object's name by its root entity and key, as a fresh
        /// context reads the store.
        func names() throws -> [String: String] {
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            var names: [String: String] = [:]
            for entity in PostgresBatchDeleteTests.entities {
                for object in try fresh.fetch(FetchRequest(entityName: entity)) {
                    names[Self.key(object.objectID)] = "\(object.entity.name) \(object["name"])"
                }
            }
            return names
        }

        static func key(_ id: ObjectID) -> String { "\(id.entity.rootEntity.name).\(id.primaryKey)" }

        /// Every object with its relationships, by name; a to-one naming a
        /// row that is gone says so.
        func dump() throws -> [String] {
            let names = try names()
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            var lines: [String] = []
            for entity in PostgresBatchDeleteTests.entities {
                for object in try fresh.fetch(FetchRequest(entityName: entity)) {
                    var line = names[Self.key(object.objectID)] ?? "?"
                    for attribute in object.entity.attributes { line += " \(attribute.name)=\(object[attribute.name])" }
                    for relationship in object.entity.relationships {
                        if relationship.isToOne {
                            let target = object.object(forKey: relationship.name).map { names[Self.key($0.objectID)] ?? "gone" }
                            line += " \(relationship.name)=\(target ?? "nil")"
                        } else {
                            line += " \(relationship.name)=\(object.objects(forKey: relationship.name).map { names[Self.key($0.objectID)] ?? "gone" }.sorted())"
                        }
                    }
                    lines.append(line)
                }
            }
            return lines.sorted()
        }

        /// Runs a batch delete; says what it matched, deleted and updated
        /// (or why it refused), then what the store holds.
        func delete(_ entity: String, _ format: String, subentities: Bool = true) throws -> [String] {
            let names = try names()
            let before = try dump()
            var request = BatchDeleteRequest(entityName: entity, predicate: try Predicate(format: format))
            request.includesSubentities = subentities
            request.resultType = .deletedObjectIDs
            func labels(_ ids: [ObjectID]) -> [String] { ids.map { names[Self.key($0)] ?? "unknown \($0)" }.sorted() }
            do {
                let result = try context.execute(request)
                return ["\(entity) where \(format): count \(result.count ?? -1)", "matched \(labels(result.objectIDs ?? []))",
                        "deleted \(labels(result.changes.deleted))", "updated \(labels(result.changes.updated))"]
                    + (try dump())
            } catch let error as ValidationError {
                let after = try dump()
                #expect(after == before, "a refused batch delete changed the store")
                return ["\(entity) where \(format): refused \(error.description)"] + after
            }
        }
    }

    static func postgres(_ model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .postgres, at: URL(string: try PostgresServer.shared().createSchema())!)
        return coordinator
    }

    @Test func everyDeleteRuleGivesWhatSQLiteGives() throws {
        let sqlite = World(try TestModels.coordinator(try Self.model()))
        let postgres = World(try Self.postgres(try Self.model()))
        let steps: [(String, String, Bool)] = [
            ("Plain", "n < 10", true),
            ("Pet", "age > 2", true),
            ("Owner", "kind == 1", true),  // o10 holds a locker: Deny
            ("Owner", "kind == 1 AND locker == nil", true),
            ("VIP", "TRUEPREDICATE", true),
            ("Badge", "name == 'b0'", true),
            ("Memo", "name BEGINSWITH 'm1'", true),
            ("Owner", "name MATCHES 'o[0-9]'", true),  // o0 and o5 hold lockers
            ("Locker", "TRUEPREDICATE", true),
            ("Owner", "kind == 0", false),
            ("Owner", "TRUEPREDICATE", true),
            ("Plain", "TRUEPREDICATE", true),
        ]
        var transcripts: [[String]] = []
        for world in [sqlite, postgres] {
            try world.seed()
            var lines = try world.dump()
            for (entity, format, subentities) in steps { lines += try world.delete(entity, format, subentities: subentities) }
            transcripts.append(lines)
        }
        #expect(transcripts[0].count == transcripts[1].count)
        for (a, b) in zip(transcripts[0], transcripts[1]) where a != b {
            Issue.record("SQLite: \(a)\nPostgreSQL: \(b)")
        }
        #expect(transcripts[1].contains { $0.contains("refused") })
        #expect(transcripts[1].contains("Owner where TRUEPREDICATE: count 4"), "\(transcripts[1].filter { $0.hasPrefix("Owner where") })")
    }

    @Test func aBatchDeleteOfTenThousandObjectsSendsAsManyStatementsAsOfTen() throws {
        let coordinator = try Self.postgres(try Self.model())
        let world = World(coordinator)
        let store = try #require(coordinator.backends.first as? PostgresStore)
        let badge = world.insert("Badge", "all")
        for (kind, count) in [(0, 5), (1, 10), (2, 10_000)] {
            for i in 0..<count {
                let owner = world.insert("Owner", "o\(i)")
                owner["kind"] = .int(Int64(kind))
                owner.add(badge, toKey: "badges")
                world.insert("Pet", "p\(i)").setObject(owner, forKey: "owner")
            }
        }
        for n in 0..<10_000 { world.insert("Plain", "n\(n)")["n"] = .int(Int64(n)) }
        try world.context.save()

        var trips: [Int] = []
        var results: [BatchResult] = []
        for kind in [0, 1, 2] {
            let before = store.roundTrips
            results.append(try world.context.execute(BatchDeleteRequest(entityName: "Owner", predicate: try Predicate(format: "kind == %@", .int(Int64(kind))))))
            trips.append(store.roundTrips - before)
        }
        #expect(results.map(\.count) == [5, 10, 10_000])
        #expect(results[2].changes.deleted.count == 20_000)
        #expect(results[2].changes.updated == [badge.objectID])
        // The statements prepared for the five serve the ten and the ten
        // thousand alike: BEGIN, the match, a query per cascade and Deny,
        // the join rows, the no-action memos, the pets' owners, a DELETE
        // per table, COMMIT.
        #expect(trips[2] == trips[1], "\(trips)")
        #expect(trips[2] <= 16, "\(trips)")
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try fresh.count(for: FetchRequest(entityName: "Owner")) == 0)
        #expect(try fresh.count(for: FetchRequest(entityName: "Pet")) == 0)
        #expect(try fresh.fetch(FetchRequest(entityName: "Badge")).first?.objects(forKey: "holders").isEmpty == true)

        // Nothing related: the match is the DELETE (BEGIN, prepare and
        // describe it, run it, COMMIT).
        let before = store.roundTrips
        let plain = try world.context.execute(BatchDeleteRequest(entityName: "Plain", predicate: try Predicate(format: "n >= 0")))
        #expect(plain.count == 10_000)
        #expect(store.roundTrips - before <= 5)
        #expect(try fresh.count(for: FetchRequest(entityName: "Plain")) == 0)
    }

    @Test func contextsHoldingDeletedObjectsMergeTheResult() throws {
        let coordinator = try Self.postgres(try Self.model())
        let world = World(coordinator)
        try world.seed()
        let live = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let owner = try #require(try live.fetch(FetchRequest(entityName: "Owner", predicate: try Predicate(format: "name == 'o4'"))).first)
        let pets = owner.objects(forKey: "pets")
        let toys = pets.flatMap { $0.objects(forKey: "toys") }
        let badges = owner.objects(forKey: "badges")
        #expect(pets.count == 2 && toys.count == 3 && badges.count == 2)
        let holders = badges.map { $0.objects(forKey: "holders").count }

        let result = try live.execute(BatchDeleteRequest(entityName: "Owner", predicate: try Predicate(format: "name == 'o4'")))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [live])
        #expect(owner.managedObjectContext == nil)
        #expect((pets + toys).allSatisfy { $0.managedObjectContext == nil })
        #expect(badges.map { $0.objects(forKey: "holders").count } == holders.map { $0 - 1 })
        #expect(try live.count(for: FetchRequest(entityName: "Pet")) == 22)
        #expect(try live.count(for: FetchRequest(entityName: "Toy")) == 24 - 3)
    }

    // MARK: - Deadlocks

    static func pairModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Item") {
                Attribute("name", .string)
                Attribute("pair", .integer64, default: .int(0))
                Attribute("value", .integer64, default: .int(0))
            }
            Entity("Log") {
                Attribute("writer", .integer64, default: .int(0))
                Attribute("pair", .integer64, default: .int(0))
            }
        }
    }

    /// One of two writers, on a thread of its own with a store of its own:
    /// in each round, deletes its item of the pair, updates the other's,
    /// and logs the round.
    final class PairWriter: @unchecked Sendable {
        let me: Int
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let ready = DispatchSemaphore(value: 0)
        var failures: [String] = []
        var retried = 0

        init(_ me: Int) { self.me = me }

        func start(url: String, rounds: Int) {
            Thread { self.run(url: url, rounds: rounds) }.start()
        }

        private func run(url: String, rounds: Int) {
            var context: ManagedObjectContext?
            var store: PostgresStore?
            do {
                let coordinator = PersistentStoreCoordinator(model: try PostgresBatchDeleteTests.pairModel())
                try coordinator.addPersistentStore(type: .postgres, at: URL(string: url)!)
                store = coordinator.backends.first as? PostgresStore
                context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
                context?.mergePolicy = .mergeByPropertyObjectTrump
            } catch {
                failures.append("cannot open: \(error)")
            }
            ready.signal()
            for pair in 0..<rounds {
                go.wait()
                defer {
                    retried = store?.transactionsRetried ?? -1
                    done.signal()
                }
                guard let context else { continue }
                do {
                    let items = try context.fetch(FetchRequest(entityName: "Item", predicate: try Predicate(format: "pair == %@", .int(Int64(pair)))))
                    let mine = me == 0 ? "a" : "b"
                    for item in items {
                        if item["name"] == .string(mine) { context.delete(item) } else { item["value"] = .int(Int64(me + 1)) }
                    }
                    let log = context.insertObject(forEntityName: "Log")
                    log["writer"] = .int(Int64(me))
                    log["pair"] = .int(Int64(pair))
                    try context.save()
                } catch {
                    failures.append("writer \(me), pair \(pair): \(error)")
                    context.rollback()
                }
            }
        }
    }

    /// Writer 0 deletes a and updates b while writer 1 deletes b and
    /// updates a; a third connection holds both rows until both writers
    /// wait for them, so that each then takes one and, unless the faster
    /// finishes first, waits for the other: PostgreSQL aborts one save
    /// (40P01), which runs again. Every save succeeds, every log is there
    /// once, both items are gone.
    @Test func savesCaughtInADeadlockRunAgainAndLoseNothing() throws {
        let url = try PostgresServer.shared().createDatabase()
        let database = try #require(URL(string: url)?.lastPathComponent)
        let blocker = try PostgresConnection(url)
        try blocker.execute("ALTER DATABASE \"\(database)\" SET deadlock_timeout = '20ms'")
        let rounds = 30
        let coordinator = PersistentStoreCoordinator(model: try Self.pairModel())
        try coordinator.addPersistentStore(type: .postgres, at: URL(string: url)!)
        let store = try #require(coordinator.backends.first as? PostgresStore)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for pair in 0..<rounds {
            for name in ["a", "b"] {
                let item = context.insertObject(forEntityName: "Item")
                item["name"] = .string(name)
                item["pair"] = .int(Int64(pair))
            }
        }
        try context.save()
        var keys = [[Int64]](repeating: [], count: rounds)
        for item in try context.fetch(FetchRequest(entityName: "Item")) {
            guard case .int(let pair) = item["pair"] else { continue }
            keys[Int(pair)].append(item.objectID.primaryKey)
        }
        let table = store.mapping.table(for: try #require(store.model.entity(named: "Item"))).name

        let writers = [PairWriter(0), PairWriter(1)]
        for writer in writers { writer.start(url: url, rounds: rounds) }
        for writer in writers { writer.ready.wait() }
        for pair in 0..<rounds {
            try blocker.execute("BEGIN")
            _ = try blocker.query("SELECT 1 FROM \(table) WHERE _pk = ANY(CAST($1 AS bigint[])) FOR UPDATE",
                                  [.string("{\(keys[pair].map(String.init).joined(separator: ","))}")])
            for writer in writers { writer.go.signal() }
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let waiting = try blocker.scalar("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                                 + "AND wait_event_type = 'Lock' AND wait_event IN ('transactionid', 'tuple')")
                if waiting == .int(2) { break }
                usleep(2_000)
            }
            try blocker.execute("COMMIT")
            for writer in writers { writer.done.wait() }
        }
        #expect(writers.flatMap(\.failures) == [])
        // Whether a round deadlocks is a race once the rows are free (the
        // faster writer may finish both rows first); over the rounds some do.
        #expect(writers.map(\.retried).reduce(0, +) > 0, "\(writers.map(\.retried))")
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try fresh.count(for: FetchRequest(entityName: "Item")) == 0)
        let logs = try fresh.fetch(FetchRequest(entityName: "Log")).map { "\($0["writer"]) \($0["pair"])" }
        #expect(logs.sorted() == (0..<rounds).flatMap { pair in (0..<2).map { "\(Value.int(Int64($0))) \(Value.int(Int64(pair)))" } }.sorted())
    }
}
