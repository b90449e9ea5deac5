import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// Issue 33, Deliver 1: two writers (two coordinators, as two processes)
/// on one SQLite file or one PostgreSQL database. Under `.mergeOrRefuse`
/// every conflict is said, never trumped silently: a new object on a
/// stored row's unique key, a stale change to a property the other
/// writer changed, an update of a row the other deleted. Changes to
/// different properties still merge. Each case runs on both engines.
@Suite struct ConflictDetectionTests {
    /// One store with Ada (personID 1, age 70), opened by two writers.
    struct Writers {
        let a: PersistentStoreCoordinator
        let b: PersistentStoreCoordinator
        let directory: String?

        init(_ type: PersistentStoreType) throws {
            let model = try ConstraintConflictTests.model()
            let url: URL
            if type == .postgres {
                url = URL(string: try PostgresServer.shared().createDatabase())!
                directory = nil
            } else {
                let path = TestModels.temporaryStorePath()
                url = URL(fileURLWithPath: path)
                directory = url.deletingLastPathComponent().path
            }
            a = PersistentStoreCoordinator(model: model)
            try a.addPersistentStore(type: type, at: url)
            let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: a)
            let ada = ConstraintConflictTests.newPerson(1, "Ada", in: setup)
            ada["age"] = .int(70)
            try setup.save()
            b = PersistentStoreCoordinator(model: model)
            try b.addPersistentStore(type: type, at: url)
        }

        func remove() { if let directory { try? FileManager.default.removeItem(atPath: directory) } }

        static func context(_ coordinator: PersistentStoreCoordinator,
                            _ policy: MergePolicy = .mergeOrRefuse) -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            context.mergePolicy = policy
            return context
        }

        /// The stored values of person `id` (name and age), as a fresh
        /// context reads them; nil when there is none.
        func person(_ id: Int64) throws -> (name: Value, age: Value)? {
            var request = FetchRequest(entityName: "Person")
            request.predicate = try Predicate(format: "personID == %@", .int(id))
            let context = Self.context(a)
            guard let object = try context.fetch(request).first else { return nil }
            return (object["name"], object["age"])
        }

        func count() throws -> Int {
            try Self.context(a).count(for: FetchRequest(entityName: "Person"))
        }
    }

    static let engines: [PersistentStoreType] = [.sqlite, .postgres]

    @Test(arguments: engines)
    func aNewObjectOnAnotherWritersUniqueKeyIsRefusedNotMerged(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let first = Writers.context(writers.a)
        let second = Writers.context(writers.b)
        let mine = ConstraintConflictTests.newPerson(7, "Grace", in: first)
        mine["age"] = .int(40)
        let theirs = ConstraintConflictTests.newPerson(7, "Alan", in: second)
        theirs["age"] = .int(41)
        try first.save()
        do {
            try second.save()
            Issue.record("the second insert of personID 7 should be refused")
        } catch let error as ConstraintConflictError {
            let conflict = try #require(error.conflicts.first)
            #expect(conflict.entity == "Person" && conflict.constraint == ["personID"] && conflict.values == [.int(7)])
            #expect(conflict.existingObjectID == mine.objectID)
            #expect(error.description.contains("Person.personID = 7"), "\(error)")
        }
        #expect(theirs.isInserted && second.hasChanges, "the refused save keeps its changes")
        let stored = try #require(try writers.person(7))
        #expect(stored.name == .string("Grace") && stored.age == .int(40), "the first writer's row is untouched")
        #expect(try writers.count() == 2)
        // Choosing to merge into their row is still possible.
        second.mergePolicy = .mergeByPropertyObjectTrump
        try second.save()
        #expect(try writers.person(7)?.name == .string("Alan"))
        #expect(try writers.count() == 2)
    }

    @Test(arguments: engines)
    func aStaleChangeToTheSamePropertyIsRefusedNamingBothValues(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let a = Writers.context(writers.a)
        let b = Writers.context(writers.b)
        let bAda = try #require(try b.fetch(FetchRequest(entityName: "Person")).first)
        #expect(bAda["age"] == .int(70))
        let aAda = try #require(try a.fetch(FetchRequest(entityName: "Person")).first)
        aAda["age"] = .int(71)
        try a.save()
        // B adds ten to the 70 it read.
        bAda["age"] = .int(Self.int(bAda["age"]) + 10)
        do {
            try b.save()
            Issue.record("B's stale age should be refused")
        } catch let error as MergeConflictError {
            let conflict = try #require(error.conflicts.first)
            #expect(error.conflicts.count == 1)
            #expect(conflict.objectName == "Person personID = 1")
            #expect(!conflict.isDeletedInStore)
            #expect(conflict.properties == [.init(key: "age", cached: .int(70), persisted: .int(71), object: .int(80))])
            #expect(error.description
                == "merge conflict: Person personID = 1 changed in the store (age) since you read it: age is 71 there, 80 yours (read as 70)",
                    "\(error)")
        }
        #expect(try writers.person(1)?.age == .int(71), "A's 71 stays")
        #expect(bAda["age"] == .int(80) && b.hasChanges, "B keeps its change to decide")
    }

    @Test(arguments: engines)
    func changesToDifferentPropertiesStillMergeSilently(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let a = Writers.context(writers.a)
        let b = Writers.context(writers.b)
        let bAda = try #require(try b.fetch(FetchRequest(entityName: "Person")).first)
        let aAda = try #require(try a.fetch(FetchRequest(entityName: "Person")).first)
        aAda["age"] = .int(71)
        try a.save()
        bAda["name"] = .string("Ada King")
        // The same value on both sides is no conflict either.
        bAda["age"] = .int(71)
        try b.save()
        let stored = try #require(try writers.person(1))
        #expect(stored.name == .string("Ada King") && stored.age == .int(71))
    }

    /// A deleted-row conflict over a to-one names the relationship with
    /// their value (gone) and yours (the destination by its unique key):
    /// it named the relationship alone.
    @Test(arguments: engines)
    func aToOneChangeOfARowAnotherWriterDeletedNamesBothValues(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let a = Writers.context(writers.a)
        let b = Writers.context(writers.b)
        let sales = b.insertObject(forEntityName: "Department")
        sales["code"] = .string("SAL")
        try b.save()
        let bAda = try #require(try b.fetch(FetchRequest(entityName: "Person")).first)
        a.delete(try #require(try a.fetch(FetchRequest(entityName: "Person")).first))
        try a.save()
        bAda.setObject(sales, forKey: "department")
        do {
            try b.save()
            Issue.record("an update of a deleted row should be refused")
        } catch let error as MergeConflictError {
            #expect(error.description == "merge conflict: Person personID = 1 was deleted in the store, so your change "
                + "cannot be written: department is gone there, Department code = \"SAL\" yours", "\(error)")
        }
    }

    @Test(arguments: engines)
    func anUpdateOfARowAnotherWriterDeletedIsRefused(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let a = Writers.context(writers.a)
        let b = Writers.context(writers.b)
        let bAda = try #require(try b.fetch(FetchRequest(entityName: "Person")).first)
        let aAda = try #require(try a.fetch(FetchRequest(entityName: "Person")).first)
        a.delete(aAda)
        try a.save()
        bAda["age"] = .int(80)
        do {
            try b.save()
            Issue.record("an update of a deleted row should be refused")
        } catch let error as MergeConflictError {
            let conflict = try #require(error.conflicts.first)
            #expect(conflict.isDeletedInStore)
            #expect(conflict.properties == [.init(key: "age", cached: .int(70), persisted: nil, object: .int(80))])
            #expect(error.description
                == "merge conflict: Person personID = 1 was deleted in the store, so your change cannot be written: "
                + "age is gone there, 80 yours",
                    "\(error)")
        }
        #expect(try writers.count() == 0, "nothing was brought back")
        // Taking theirs drops the change, and writes nothing.
        b.mergePolicy = .mergeByPropertyStoreTrump
        try b.save()
        #expect(!b.hasChanges)
        #expect(try writers.count() == 0)
    }

    @Test(arguments: engines)
    func aDeleteOfARowAnotherWriterChangedIsRefused(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let a = Writers.context(writers.a)
        let b = Writers.context(writers.b)
        let bAda = try #require(try b.fetch(FetchRequest(entityName: "Person")).first)
        let aAda = try #require(try a.fetch(FetchRequest(entityName: "Person")).first)
        aAda["age"] = .int(71)
        try a.save()
        b.delete(bAda)
        let error = try #require(throws: MergeConflictError.self) { try b.save() }
        let conflict = try #require(error.conflicts.first)
        #expect(conflict.isDeletedInContext && !conflict.isDeletedInStore)
        #expect(conflict.properties == [.init(key: "age", cached: .int(70), persisted: .int(71), object: .int(70))])
        #expect(error.description
            == "merge conflict: Person personID = 1 changed in the store (age) since you read it, and your save deletes it: age is 71 there",
                "\(error)")
        #expect(try writers.count() == 1)
        // Deleting it anyway is a choice.
        b.mergePolicy = .mergeByPropertyObjectTrump
        try b.save()
        #expect(try writers.count() == 0)
        // A delete of a row already gone is no conflict: nothing to lose.
        let c = Writers.context(writers.a)
        let grace = ConstraintConflictTests.newPerson(2, "Grace", in: c)
        try c.save()
        let d = Writers.context(writers.b)
        let dGrace = try #require(try d.fetch(FetchRequest(entityName: "Person")).first)
        c.delete(grace)
        try c.save()
        d.delete(dGrace)
        try d.save()
        #expect(try writers.count() == 0)
    }

    @Test(arguments: engines)
    func theErrorPolicyReportsCoreDataSnapshotsOfEachConflict(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let a = Writers.context(writers.a)
        let b = Writers.context(writers.b, .error)
        let bAda = try #require(try b.fetch(FetchRequest(entityName: "Person")).first)
        let aAda = try #require(try a.fetch(FetchRequest(entityName: "Person")).first)
        aAda["age"] = .int(71)
        aAda["name"] = .string("Ada L")
        try a.save()
        bAda["age"] = .int(72)
        let error = try #require(throws: MergeConflictError.self) { try b.save() }
        let conflict = try #require(error.conflicts.first)
        #expect(conflict.keys.sorted() == ["age", "name"])
        #expect(conflict.properties == [.init(key: "age", cached: .int(70), persisted: .int(71), object: .int(72))])
    }

    /// A child context's save meets a sibling's the same way: in the
    /// parent, a stale same-property change is refused, another merges.
    @Test func siblingsSavingIntoOneParentAreCheckedAlike() throws {
        let writers = try Writers(.sqlite)
        defer { writers.remove() }
        let root = ManagedObjectContext(concurrencyType: .confined, coordinator: writers.a)
        func child() -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .confined, parent: root)
            context.mergePolicy = .mergeOrRefuse
            return context
        }
        let first = child(), second = child()
        let mine = try #require(try first.fetch(FetchRequest(entityName: "Person")).first)
        let theirs = try #require(try second.fetch(FetchRequest(entityName: "Person")).first)
        mine["age"] = .int(71)
        try first.save()
        theirs["age"] = .int(80)
        let error = try #require(throws: MergeConflictError.self) { try second.save() }
        #expect(error.isInParentContext)
        #expect(error.conflicts.first?.properties == [.init(key: "age", cached: .int(70), persisted: .int(71), object: .int(80))])
        #expect(error.description.contains("changed in the parent context (age) since you read it"), "\(error)")
        theirs["age"] = .int(70)
        theirs["name"] = .string("Ada K")
        try second.save()
        let merged = try #require(try root.fetch(FetchRequest(entityName: "Person")).first)
        #expect(merged["age"] == .int(71) && merged["name"] == .string("Ada K"))
    }

    /// Two new objects of one save sharing a key are this writer's own
    /// doing, not another's row: they still become one.
    @Test func newObjectsOfOneSaveSharingAKeyStillMerge() throws {
        let writers = try Writers(.sqlite)
        defer { writers.remove() }
        let context = Writers.context(writers.a)
        _ = ConstraintConflictTests.newPerson(9, "Lin", in: context)
        _ = ConstraintConflictTests.newPerson(9, "Lin Wu", in: context)
        try context.save()
        #expect(try writers.count() == 2)
        #expect(try writers.person(9)?.name == .string("Lin Wu"))
    }

    /// Two writers saving a stale same-property change at the same moment:
    /// exactly one wins, the other is refused; the stored value is the
    /// winner's, never a blend.
    @Test(arguments: engines)
    func twoSimultaneousSavesCannotBothPass(type: PersistentStoreType) throws {
        let writers = try Writers(type)
        defer { writers.remove() }
        let contexts = [Writers.context(writers.a), Writers.context(writers.b)]
        let objects = try contexts.map { try #require(try $0.fetch(FetchRequest(entityName: "Person")).first) }
        objects[0]["age"] = .int(71)
        objects[1]["age"] = .int(72)
        let outcomes = ThreadSafeResults()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            do {
                try contexts[i].save()
                outcomes.add(i, nil)
            } catch {
                outcomes.add(i, error)
            }
        }
        let results = outcomes.all
        let saved = results.filter { $0.error == nil }.map(\.index)
        #expect(saved.count == 1, "\(results)")
        #expect(results.allSatisfy { $0.error == nil || $0.error is MergeConflictError }, "\(results)")
        if let winner = saved.first {
            #expect(try writers.person(1)?.age == .int(71 + Int64(winner)))
        }
    }

    static func int(_ value: Value) -> Int64 {
        if case .int(let n) = value { return n }
        return 0
    }
}

/// Results gathered from several threads.
private final class ThreadSafeResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [(index: Int, error: (any Error)?)] = []

    func add(_ index: Int, _ error: (any Error)?) {
        lock.withLock { results.append((index, error)) }
    }

    var all: [(index: Int, error: (any Error)?)] { lock.withLock { results } }
}
