import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// `PersistentStoreType.postgres` through a coordinator and contexts,
/// against the test server.
@Suite struct PostgresStoreTests {
    // MARK: - The same answers as SQLite

    /// One world: a store and a context on it, the objects found by key.
    final class World {
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext

        init(_ coordinator: PersistentStoreCoordinator) {
            self.coordinator = coordinator
            context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        }

        func find(_ entity: String, _ key: String, _ name: String) throws -> ManagedObject? {
            try context.fetch(FetchRequest(entityName: entity, predicate: try Predicate(format: "\(key) == %@", .string(name)))).first
        }

        /// Every object as a fresh context reads it from the store: its
        /// values and relationships, by key.
        func dump() throws -> [String] {
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            func key(_ object: ManagedObject) -> String {
                for name in ["firstName", "name", "label"] where object.entity.attribute(named: name) != nil {
                    if case .string(let s) = object[name] { return s }
                }
                return "?"
            }
            var lines: [String] = []
            for entity in ["Department", "Person", "Tag"] {
                for object in try fresh.fetch(FetchRequest(entityName: entity)) {
                    var line = "\(object.entity.name) \(key(object))"
                    for attribute in object.entity.attributes { line += " \(attribute.name)=\(object[attribute.name])" }
                    for relationship in object.entity.relationships {
                        if relationship.isToOne {
                            line += " \(relationship.name)=\(object.object(forKey: relationship.name).map(key) ?? "nil")"
                        } else {
                            let keys = object.objects(forKey: relationship.name).map(key)
                            line += " \(relationship.name)=\(relationship.isOrdered ? keys : keys.sorted())"
                        }
                    }
                    lines.append(line)
                }
            }
            return lines.sorted()
        }

        /// The keys a fetch finds, in its order.
        func keys(_ format: String, sortedBy keys: [String], limit: Int = 0, offset: Int = 0) throws -> [String] {
            var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: format))
            request.sortDescriptors = keys.map { SortKey(keyPath: $0.split(separator: ".").map(String.init), ascending: true) }
                + [SortKey(keyPath: ["firstName"], ascending: true)]
            request.fetchLimit = limit
            request.fetchOffset = offset
            return try context.fetch(request).map { if case .string(let s) = $0["firstName"] { s } else { "?" } }
        }
    }

    /// Random inserts, changes of every attribute type, relationships of
    /// every kind (to-one, one-to-many, many-to-many, ordered), deletes
    /// with cascades and saves, the same on a SQLite store and a
    /// PostgreSQL one: after every save a fresh context reads the same
    /// objects from both, and fetches with predicates, sorts and windows
    /// find the same ones.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func testRandomChangesReadBackAsFromSQLite(seed: UInt64) throws {
        let model = try TestModels.people()
        let sqlite = World(try TestModels.coordinator(model))
        let postgres = World(try PersistentStoreCoordinator.onPostgres(model, url: try PostgresServer.shared().createDatabase()))
        var random = SplitMix64(seed: seed)
        var people = 0, departments = 0, tags = 0
        func pick(_ prefix: String, _ count: Int) -> String? {
            count == 0 ? nil : "\(prefix)\(Int.random(in: 0..<count, using: &random))"
        }
        let queries: [(String, [String], Int, Int)] = [
            ("age > 10 AND active == YES", ["lastName"], 3, 1),
            ("department.name == 'd0' OR score < 0", ["age"], 0, 0),
            ("ANY tags.label IN {'t0', 't1'}", ["department.name"], 0, 0),
            ("lastName BEGINSWITH[c] 'z' OR lastName == nil", [], 2, 0),
            ("born > CAST(0, 'NSDate') AND photo != nil", ["born"], 0, 0),
        ]
        for step in 0..<60 {
            let worlds = [sqlite, postgres]
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<3:
                let entity = Bool.random(using: &random) ? "Manager" : "Person"
                for world in worlds { world.context.insertObject(forEntityName: entity)["firstName"] = .string("p\(people)") }
                people += 1
            case 3:
                for world in worlds { world.context.insertObject(forEntityName: "Department")["name"] = .string("d\(departments)") }
                departments += 1
            case 4:
                for world in worlds { world.context.insertObject(forEntityName: "Tag")["label"] = .string("t\(tags)") }
                tags += 1
            case 5..<9:
                guard let name = pick("p", people) else { continue }
                let (key, value) = Self.randomAttribute(&random)
                for world in worlds { try world.find("Person", "firstName", name)?[key] = value }
            case 9..<11:
                guard let name = pick("p", people) else { continue }
                let department = Int.random(in: 0..<4, using: &random) == 0 ? nil : pick("d", departments)
                for world in worlds {
                    try world.find("Person", "firstName", name)?.setObject(try department.flatMap { try world.find("Department", "name", $0) },
                                                                         forKey: "department")
                }
            case 11..<13:
                guard let name = pick("p", people), let tag = pick("t", tags) else { continue }
                let adding = Bool.random(using: &random)
                for world in worlds {
                    guard let person = try world.find("Person", "firstName", name), let label = try world.find("Tag", "label", tag) else { continue }
                    var current = person.objects(forKey: "tags").filter { $0 !== label }
                    if adding { current.append(label) }
                    person.setObjects(current, forKey: "tags")
                }
            case 13:
                guard let name = pick("p", people) else { continue }
                let reports = (0..<Int.random(in: 0..<4, using: &random)).compactMap { _ in pick("p", people) }
                for world in worlds {
                    guard let manager = try world.find("Person", "firstName", name), manager.entity.name == "Manager" else { continue }
                    var seen: Set<String> = []
                    let members = try reports.filter { seen.insert($0).inserted }.compactMap { try world.find("Person", "firstName", $0) }
                    manager.setObjects(members, forKey: "reports")
                }
            case 14:
                guard let name = Bool.random(using: &random) ? pick("p", people) : pick("d", departments) else { continue }
                for world in worlds {
                    let object = name.hasPrefix("p") ? try world.find("Person", "firstName", name) : try world.find("Department", "name", name)
                    if let object { world.context.delete(object) }
                }
            default:
                for world in worlds { try world.context.save() }
                let expected = try sqlite.dump()
                let found = try postgres.dump()
                #expect(found == expected, "seed \(seed), step \(step)")
                if found != expected { return }
                for (format, keys, limit, offset) in queries {
                    #expect(try postgres.keys(format, sortedBy: keys, limit: limit, offset: offset)
                                == sqlite.keys(format, sortedBy: keys, limit: limit, offset: offset), "\(format), seed \(seed)")
                }
            }
        }
    }

    /// A random attribute of Person and a value for it (µs-exact dates:
    /// PostgreSQL keeps microseconds).
    static func randomAttribute(_ random: inout SplitMix64) -> (String, Value) {
        let null = Int.random(in: 0..<6, using: &random) == 0
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return ("lastName", null ? .null : .string(PostgresConnectionTests.string(&random)))
        case 1: return ("age", .int(Int64.random(in: -50...30_000, using: &random)))
        case 2:
            // SQLite keeps -0.0 as 0: a difference no reader of a double sees.
            let score = PostgresConnectionTests.double(&random)
            return ("score", null ? .null : .double(score == 0 ? 0 : score))
        case 3: return ("active", .bool(Bool.random(using: &random)))
        case 4:
            let us = Int64.random(in: -2_000_000_000_000_000 ... 2_000_000_000_000_000, using: &random)
            return ("born", null ? .null : .date(PostgresTimestamp.date(microseconds: us)))
        case 5: return ("photo", null ? .null : .data(PostgresConnectionTests.bytes(&random)))
        case 6: return ("token", null ? .null : .uuid(PostgresConnectionTests.uuid(&random)))
        default: return ("nickname", .string("transient"))
        }
    }

    // MARK: - Several processes

    /// Two coordinators (two connections, as two processes) on one
    /// database: what one saves the other reads, and a row changed by the
    /// one since the other read it is a conflict for the merge policy,
    /// never a lost update.
    @Test func testConcurrentChangesAreMergedOrRefusedNeverLost() throws {
        let url = try PostgresServer.shared().createDatabase()
        let model = try TestModels.people()
        let first = World(try PersistentStoreCoordinator.onPostgres(model, url: url))
        let second = World(try PersistentStoreCoordinator.onPostgres(model, url: url))
        let ada = first.context.insertObject(forEntityName: "Person")
        ada["firstName"] = .string("Ada")
        ada["age"] = .int(36)
        try first.context.save()

        let seen = try #require(try second.find("Person", "firstName", "Ada"))
        #expect(seen["age"] == .int(36))
        ada["age"] = .int(37)
        try first.context.save()
        // The second read version 1; the row is at version 2 now.
        seen["lastName"] = .string("Lovelace")
        second.context.mergePolicy = .error
        #expect(throws: MergeConflictError.self) { try second.context.save() }
        second.context.mergePolicy = .mergeByPropertyObjectTrump
        try second.context.save()
        let fresh = World(try PersistentStoreCoordinator.onPostgres(model, url: url))
        let stored = try #require(try fresh.find("Person", "firstName", "Ada"))
        #expect(stored["age"] == .int(37) && stored["lastName"] == .string("Lovelace"))

        // The first read version 2 and the row is at 3: its delete is a
        // conflict too, until it reads the row again.
        first.context.delete(ada)
        #expect(throws: MergeConflictError.self) { try first.context.save() }
        first.context.rollback()
        first.context.refresh(ada, mergeChanges: false)
        first.context.delete(ada)
        try first.context.save()
        // Deleted by one, changed by the other.
        seen["age"] = .int(40)
        second.context.mergePolicy = .error
        #expect(throws: MergeConflictError.self) { try second.context.save() }
        #expect(try fresh.dump().filter { $0.hasPrefix("Person") }.isEmpty)
    }

    /// Threads each adding to the same rows through their own
    /// coordinators, reading again and retrying on a conflict: every
    /// addition lands (no two read-modify-writes of a row both succeed).
    @Test func testConcurrentWritersLoseNoUpdate() throws {
        let url = try PostgresServer.shared().createDatabase()
        let model = try TestModels.people()
        let setup = World(try PersistentStoreCoordinator.onPostgres(model, url: url))
        for name in ["a", "b"] { setup.context.insertObject(forEntityName: "Department")["name"] = .string(name) }
        try setup.context.save()
        let writers = 4, rounds = 15
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            do {
                let world = World(try PersistentStoreCoordinator.onPostgres(model, url: url))
                world.context.mergePolicy = .error
                for round in 0..<rounds {
                    guard let department = try world.find("Department", "name", round % 2 == 0 ? "a" : "b") else {
                        throw ServerError("no department")
                    }
                    while true {
                        world.context.refresh(department, mergeChanges: false)
                        guard case .double(let budget) = department["budget"] else { throw ServerError("no budget") }
                        department["budget"] = .double(budget + 1)
                        do {
                            try world.context.save()
                            break
                        } catch is MergeConflictError {
                            world.context.rollback()
                        }
                    }
                }
            } catch {
                failures.add("writer \(writer): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let check = World(try PersistentStoreCoordinator.onPostgres(model, url: url))
        check.context.mergePolicy = .error
        let budgets = try ["a", "b"].map { try check.find("Department", "name", $0)?["budget"] }
        #expect(budgets == [.double(Double(writers * ((rounds + 1) / 2))), .double(Double(writers * (rounds / 2)))])
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ failure: String) { lock.withLock { list.append(failure) } }
        var all: [String] { lock.withLock { list } }
    }

    // MARK: - Stores together, read-only, copies

    /// A save spanning a SQLite store and a PostgreSQL one (two
    /// configurations) writes both, or neither.
    @Test func testASaveSpanningSQLiteAndPostgreSQL() throws {
        let model = try TestModels.people(configurations: ["Local": ["Department"], "Shared": ["Person", "Manager", "Tag"]])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .inMemory, configuration: "Local", at: nil)
        try coordinator.addPersistentStore(type: .postgres, configuration: "Shared",
                                           at: URL(string: try PostgresServer.shared().createDatabase())!)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let department = context.insertObject(forEntityName: "Department")
        department["name"] = .string("Ops")
        let kim = context.insertObject(forEntityName: "Person")
        kim["firstName"] = .string("Kim")
        try context.save()
        let fresh = World(coordinator)
        #expect(try fresh.dump().count == 2)
        #expect(coordinator.persistentStores.map(\.storeType) == [.inMemory, .postgres])
        #expect(coordinator.persistentStores[1].layout == .mrq)
    }

    @Test func testReadOnlyRefusesSavesAndMakesNothing() throws {
        let url = try PostgresServer.shared().createDatabase()
        var options = PersistentStoreOptions()
        options.readOnly = true
        let model = try TestModels.people()
        let empty = #expect(throws: StoreError.self) { try PersistentStoreCoordinator.onPostgres(model, url: url, options: options) }
        #expect(empty?.kind == .readOnly)
        let writer = World(try PersistentStoreCoordinator.onPostgres(model, url: url))
        writer.context.insertObject(forEntityName: "Tag")["label"] = .string("t")
        try writer.context.save()
        let reader = World(try PersistentStoreCoordinator.onPostgres(model, url: url, options: options))
        #expect(try reader.dump().count == 1)
        reader.context.insertObject(forEntityName: "Tag")["label"] = .string("u")
        let refused = #expect(throws: StoreError.self) { try reader.context.save() }
        #expect(refused?.kind == .readOnly)
    }

    /// A SQLite store copied into PostgreSQL reads back the same; a
    /// PostgreSQL store that holds objects is not copied into.
    @Test func testMigratingASQLiteStoreIntoPostgreSQL() throws {
        let model = try TestModels.people()
        let context = try TestModels.seededPeople()
        let coordinator = context.persistentStoreCoordinator!
        let before = try World(coordinator).dump()
        let url = URL(string: try PostgresServer.shared().createDatabase())!
        let copy = try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: url, type: .postgres)
        #expect(copy.storeType == .postgres)
        #expect(try World(try PersistentStoreCoordinator.onPostgres(model, url: url.absoluteString)).dump() == before)
        let again = try TestModels.seededPeople().persistentStoreCoordinator!
        let refused = #expect(throws: StoreError.self) {
            try again.migratePersistentStore(again.persistentStores[0], to: url, type: .postgres)
        }
        #expect(refused?.description.contains("already holds objects") == true)
    }

    /// A store made with another model is refused, unless asked to delete
    /// it; the URL a store keeps has no password.
    @Test func testAnotherModelAndTheStoresURL() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase()
        _ = World(try PersistentStoreCoordinator.onPostgres(try TestModels.people(), url: url))
        let other = try ManagedObjectModel { Entity("Note") { Attribute("text", .string) } }
        let refused = #expect(throws: StoreError.self) { try PersistentStoreCoordinator.onPostgres(other, url: url) }
        #expect(refused?.kind == .modelMismatch)
        var options = PersistentStoreOptions()
        options.deleteOnModelMismatch = true
        let withPassword = url.replacingOccurrences(of: "mrq@", with: "mrq:secret@")
        let replaced = try PersistentStoreCoordinator.onPostgres(other, url: withPassword, options: options)
        #expect(replaced.persistentStores[0].url?.absoluteString == url)
        let world = World(replaced)
        world.context.insertObject(forEntityName: "Note")["text"] = .string("kept")
        try world.context.save()
        #expect(try PostgresConnection(url).rows("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
                    == [[.string("Note")], [.string("_mrq_metadata")]])
    }
}
