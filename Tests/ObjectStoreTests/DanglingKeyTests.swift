import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Synchronization
import Testing

/// A to-one key naming a row that is gone (deleted from `sqlite3` or `psql`
/// behind mrq's back) reads as nil everywhere: in Swift, in predicates
/// run in SQL and in memory, and in counts; a save leaves the key alone
/// unless the relationship is set.
@Suite struct DanglingKeyTests {
    enum Engine: String, CaseIterable, CustomStringConvertible {
        case sqlite, coreData, postgres
        var description: String { rawValue }
    }

    /// A store of departments A and B, people p1…p3 in B, p4 in A, p5 in
    /// none, whose B row has then been deleted behind mrq's back (on
    /// PostgreSQL, after dropping the foreign keys, as a store made before
    /// them has none).
    struct Store {
        let open: () throws -> ManagedObjectContext
        /// The department column of a person's row, read with raw SQL.
        let departmentKey: (String) throws -> Value
        let goneKey: Int64
        let keptKey: Int64
    }

    static func store(_ engine: Engine, people extra: Int = 0) throws -> Store {
        let model = try TestModels.constrained()
        let layout: SchemaMapping.Layout = engine == .coreData ? .coreData : .mrq
        let path = TestModels.temporaryStorePath()
        let url = engine == .postgres ? try PostgresServer.shared().createDatabase() : path
        func open() throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(model: model)
            var options = PersistentStoreOptions()
            options.layout = layout
            let location = engine == .postgres ? URL(string: url)! : URL(fileURLWithPath: path)
            try coordinator.addPersistentStore(type: engine == .postgres ? .postgres : .sqlite, at: location, options: options)
            return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        }
        let context = try open()
        let a = context.insertObject(forEntityName: "Department")
        a["name"] = .string("A")
        let b = context.insertObject(forEntityName: "Department")
        b["name"] = .string("B")
        for (name, department) in [("p1", b), ("p2", b), ("p3", b), ("p4", a), ("p5", nil)] {
            let person = context.insertObject(forEntityName: "Person")
            person["name"] = .string(name)
            person.setObject(department, forKey: "department")
        }
        // People each in a department of their own, all deleted.
        for n in 0..<extra {
            let person = context.insertObject(forEntityName: "Person")
            person["name"] = .string("x\(n)")
            let own = context.insertObject(forEntityName: "Department")
            own["name"] = .string("own\(n)")
            person.setObject(own, forKey: "department")
        }
        try context.save()
        let goneKey = b.objectID.primaryKey, keptKey = a.objectID.primaryKey
        let mapping = try SchemaMapping(model: model, layout: layout)
        let departmentEntity = try #require(model.entity(named: "Department"))
        let personEntity = try #require(model.entity(named: "Person"))
        let departments = mapping.table(for: departmentEntity).name
        let people = mapping.table(for: personEntity)
        let nameColumn = try #require(mapping.column(for: "name", of: personEntity)).name
        let departmentColumn = try #require(mapping.toOne("department", of: personEntity)).foreignKey
        let departmentName = try #require(mapping.column(for: "name", of: departmentEntity)).name
        let deletion = "DELETE FROM \(departments) WHERE \(departmentName) = 'B' OR \(departmentName) LIKE 'own%'"
        let read = "SELECT \(departmentColumn) FROM \(people.name) WHERE \(nameColumn) = "
        if engine == .postgres {
            let connection = try PostgresConnection(url)
            for constraint in try SchemaBuilder.constraints(mapping: mapping, model: model)
            where constraint.addSQL.contains("FOREIGN KEY") {
                try connection.execute(constraint.dropSQL)
            }
            try connection.execute(deletion)
            return Store(open: open, departmentKey: { try connection.scalar(read + "$1", [.string($0)]) ?? .null },
                         goneKey: goneKey, keptKey: keptKey)
        }
        let database = try Database(path: path)
        try database.execute(deletion)
        return Store(open: open, departmentKey: { try database.rows(read + "?", [.string($0)]).first?.first ?? .null },
                     goneKey: goneKey, keptKey: keptKey)
    }

    static func people(_ context: ManagedObjectContext) throws -> [String: ManagedObject] {
        var result: [String: ManagedObject] = [:]
        for person in try context.fetch(FetchRequest(entityName: "Person")) {
            if case .string(let name) = person["name"] { result[name] = person }
        }
        return result
    }

    static func count(_ context: ManagedObjectContext, _ format: String) throws -> Int {
        try context.count(for: FetchRequest(entityName: "Person", predicate: try Predicate(format: format)))
    }

    @Test(arguments: Engine.allCases)
    func testADanglingToOneReadsAsNilInSwift(_ engine: Engine) throws {
        let store = try Self.store(engine)
        let context = try store.open()
        let people = try Self.people(context)
        let p1 = try #require(people["p1"]), p4 = try #require(people["p4"])
        #expect(p1.value(forKey: "department") == nil)
        #expect(p1.object(forKey: "department") == nil)
        #expect(p1.value(forKeyPath: "department.name") == nil)
        #expect(p4.object(forKey: "department")?["name"] == .string("A"))
        // The evaluator reads the same.
        #expect(try p1.matches(Predicate(format: "department == nil")))
        #expect(try !p1.matches(Predicate(format: "department != nil")))
        #expect(try p4.matches(Predicate(format: "department != nil")))
    }

    @Test(arguments: Engine.allCases)
    func testCountsAndFiltersAgreeWithMemory(_ engine: Engine) throws {
        let store = try Self.store(engine)
        let context = try store.open()
        let everyone = Array(try context.fetch(FetchRequest(entityName: "Person")))
        for (format, expected) in [("department != nil", 1), ("department == nil", 4), ("NOT (department == nil)", 1),
                                   ("nil != department", 1), ("department.name == nil", 4),
                                   ("department == nil AND name BEGINSWITH 'p'", 4),
                                   ("ANY department.people.name == 'p2'", 0)] {
            #expect(try Self.count(context, format) == expected, "\(format) in SQL on \(engine)")
            let inMemory = try everyone.filter { try $0.matches(Predicate(format: format)) }.count
            #expect(inMemory == expected, "\(format) in memory on \(engine)")
            let fetched = try context.fetch(FetchRequest(entityName: "Person", predicate: Predicate(format: format)))
            #expect(fetched.count == expected, "\(format) fetched on \(engine)")
        }
        // With an unsaved change, the fetch merges it in memory: the same.
        let p4 = try #require(Self.people(context)["p4"])
        p4["age"] = .int(40)
        #expect(try Self.count(context, "department != nil") == 1)
        #expect(try Self.count(context, "department == nil") == 4)
    }

    /// Reading one person's department looks up the departments of the
    /// other people the context holds in the same query: each is then
    /// known to exist (holding its row) or known gone.
    @Test(arguments: Engine.allCases)
    func testGoneRowsAreFoundInBatches(_ engine: Engine) throws {
        let store = try Self.store(engine, people: 30)
        let context = try store.open()
        let everyone = Array(try context.fetch(FetchRequest(entityName: "Person")))
        #expect(everyone.count == 35)
        let found = everyone.first { $0["name"] == .string("p1") }
        let p1 = try #require(found)
        #expect(p1.object(forKey: "department") == nil)
        var gone = 0, present = 0
        for person in everyone {
            person.willAccessValues()
            guard case .toOne(let id?) = person.relationshipSlots[person.entity.relationshipSlot(named: "department")!]
            else { continue }
            if context.goneIDs.contains(id) { gone += 1 }
            if let object = context.registered[id], object.committed != nil { present += 1 }
        }
        #expect(gone == 33 && present == 1, "gone \(gone), present \(present) on \(engine)")
        #expect(everyone.filter { $0.object(forKey: "department") != nil }.count == 1)
    }

    /// In a child, a destination reads its parent's state when it is
    /// read, as any fault does: checking the keys of the child's other
    /// objects does not keep their destinations' rows as they were then
    /// (ChainFetchTests saw a child sort by a rank its parent had changed
    /// since, or not, as objects happened to be released).
    @Test(arguments: Engine.allCases)
    func testAChildReadsADestinationAsItsParentHoldsItNow(_ engine: Engine) throws {
        let store = try Self.store(engine)
        let root = try store.open()
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let people = try Self.people(child)
        let p1 = try #require(people["p1"]), p4 = try #require(people["p4"])
        // Checks p1's department, and those of the child's other people.
        #expect(p1.object(forKey: "department") == nil)
        let a = try #require(Self.people(root)["p4"]?.object(forKey: "department"))
        a["name"] = .string("A2")
        #expect(p4.object(forKey: "department")?["name"] == .string("A2"))
    }

    /// A destination its parent deleted reads as nil in a child; once the
    /// parent rolls the delete back, the child reads it again (when it no
    /// longer holds the emptied object, as for any object it read).
    @Test(arguments: Engine.allCases)
    func testAChildSeesADestinationItsParentRestored(_ engine: Engine) throws {
        let store = try Self.store(engine)
        let root = try store.open()
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let p4 = try #require(Self.people(child)["p4"])
        let a = try #require(Self.people(root)["p4"]?.object(forKey: "department"))
        root.delete(a)
        #expect(p4.object(forKey: "department") == nil)
        root.rollback()
        #expect(p4.object(forKey: "department")?["name"] == .string("A"))
    }

    /// A save leaves a dangling key as it is unless the relationship is
    /// set: opening and reading never write, and a change to another
    /// property does not either.
    @Test(arguments: Engine.allCases)
    func testASaveKeepsADanglingKeyUnlessTheRelationshipIsSet(_ engine: Engine) throws {
        let store = try Self.store(engine)
        let context = try store.open()
        let people = try Self.people(context)
        let p1 = try #require(people["p1"]), p2 = try #require(people["p2"]), p3 = try #require(people["p3"])
        #expect(p1.object(forKey: "department") == nil)
        p1["age"] = .int(33)
        let a = try #require(people["p4"]?.object(forKey: "department"))
        p2.setObject(a, forKey: "department")
        context.delete(p3)
        try context.save()
        #expect(try store.departmentKey("p1") == .int(store.goneKey))
        #expect(try store.departmentKey("p2") == .int(store.keptKey))
        #expect(try Self.count(try store.open(), "department != nil") == 2)
        // Setting it to nil writes nil.
        p1.setObject(nil, forKey: "department")
        try context.save()
        #expect(try store.departmentKey("p1") == .null)
    }
}

/// Checking destinations stays linear: reading the department of each of
/// n people, each in a department of their own, in an order the checks
/// do not know, looks the departments up in about n / 500 queries, not one
/// or more per person (the checks once rescanned every registered object
/// and looked up again the rows whose objects had been released, which
/// took 5 s for 2,000 people).
@Suite struct DestinationCheckCostTests {
    @Test func readingEachOwnDestinationLooksThemUpInBatches() throws {
        let model = try TestModels.constrained()
        let path = TestModels.temporaryStorePath()
        func open() throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: PersistentStoreOptions())
            return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        }
        let n = 3_000
        let context = try open()
        for i in 0..<n {
            let person = context.insertObject(forEntityName: "Person")
            person["name"] = .string("x\(i)")
            let own = context.insertObject(forEntityName: "Department")
            own["name"] = .string("own\(i)")
            person.setObject(own, forKey: "department")
        }
        try context.save()
        let statements = Mutex<[String]>([])
        StatementObservers.observe(path) { sql in statements.withLock { $0.append(sql) } }
        defer { StatementObservers.stop(path) }
        let fresh = try open()
        var people = Array(try fresh.fetch(FetchRequest(entityName: "Person")))
        var random = SplitMix64(seed: 7)
        people.shuffle(using: &random)
        statements.withLock { $0.removeAll() }
        var named = 0
        for person in people where person.value(forKeyPath: "department.name") != nil { named += 1 }
        #expect(named == n)
        // Lookups of many departments at once, and in all: at most a
        // single-row read per person besides (a released department's
        // fault), never a batch per person.
        let all = statements.withLock { $0 }
        let lookups = all.filter { $0.contains("IN (?,") }
        #expect(lookups.count <= n / ManagedObjectContext.destinationBatch + 2, "\(lookups.count) batch lookups")
        #expect(all.count <= n + n / ManagedObjectContext.destinationBatch + 2, "\(all.count) statements")
    }
}
