import Foundation
@testable import ObjectStore
import Predicates
import Synchronization
import Testing

/// Many contexts saving at once, merges, conflicts and parent/child saves.
///
/// Soak, under the thread sanitizer:
/// `MRQ_SOAK=1 swift test --sanitize=thread --filter Concurrency`
@Suite struct ConcurrencyTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Counter") {
                Attribute("worker", .integer64, default: .int(0))
                Attribute("value", .integer64, default: .int(0))
            }
            Entity("Item") {
                Attribute("worker", .integer64, default: .int(0))
                Attribute("n", .integer64, default: .int(0))
            }
            Entity("Row") {
                Attribute("a", .integer64, default: .int(0))
                Attribute("b", .integer64, default: .int(0))
                Attribute("c", .integer64, default: .int(0))
            }
        }
    }

    static let workers = 8
    static let savesPerWorker = isSoak ? 1_000 : 60

    /// Objects a queue-bound context must keep alive (its registry holds
    /// clean objects weakly); touched on that context's queue only.
    final class Keep: @unchecked Sendable {
        var objects: [ManagedObject] = []
    }

    static func int(_ value: Value) -> Int64 {
        if case .int(let n) = value { return n }
        Issue.record("expected an integer, got \(value)")
        return -1
    }

    static func counter(of worker: Int, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest(entityName: "Counter", predicate: try Predicate(format: "worker == %d", .int(worker)))
        return try #require(try context.fetch(request).first)
    }

    /// Runs `body(i)` for each `i` in `0..<count` on its own thread and
    /// waits for them all without blocking the caller's thread.
    static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) async throws {
        let failures = Mutex<[any Error]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for i in 0..<count {
                DispatchQueue.global().async(group: group) {
                    do { try body(i) } catch { failures.withLock { $0.append(error) } }
                }
            }
            group.notify(queue: .global()) { done.resume() }
        }
        for error in failures.withLock({ $0 }) { Issue.record(error) }
    }

    /// Waits until everything queued on the main queue so far has run.
    static func drainMainQueue() async {
        await withCheckedContinuation { done in DispatchQueue.main.async { done.resume() } }
    }

    /// Reads every row of the store through a fresh coordinator.
    static func storeTotals(_ path: String, model: ManagedObjectModel) throws -> (counters: [Int64: Int64], items: [Int64: Int]) {
        try storeTotals(try SQLiteStore(path: path, model: model), model: model)
    }

    static func storeTotals(_ coordinator: PersistentStoreCoordinator, model: ManagedObjectModel) throws -> (counters: [Int64: Int64], items: [Int64: Int]) {
        try coordinator.store.withLock { try storeTotals(coordinator.store, model: model) }
    }

    static func storeTotals(_ store: SQLiteStore, model: ManagedObjectModel) throws -> (counters: [Int64: Int64], items: [Int64: Int]) {
        let counterTable = store.mapping.table(for: model.entity(named: "Counter")!).name
        let itemTable = store.mapping.table(for: model.entity(named: "Item")!).name
        var counters: [Int64: Int64] = [:]
        for row in try store.database.rows("SELECT worker, value FROM \(counterTable)") {
            counters[int(row[0])] = int(row[1])
        }
        var items: [Int64: Int] = [:]
        for row in try store.database.rows("SELECT worker, count(DISTINCT n) FROM \(itemTable) GROUP BY worker") {
            items[int(row[0])] = Int(int(row[1]))
        }
        return (counters, items)
    }

    // MARK: - Stress

    /// MagicalRecord's stack: eight private children of a private root
    /// saving context save at once, each through the root to the store,
    /// while a main-queue child merges every save.
    @Test func eightChildContextsSavingAtOnceLoseNoUpdate() async throws {
        let model = try Self.model()
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let coordinator = try TestModels.coordinator(model, path: path)
        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        root.mergePolicy = .mergeByPropertyObjectTrump
        try root.performAndWait {
            for worker in 0..<Self.workers {
                root.insertObject(forEntityName: "Counter")["worker"] = .int(Int64(worker))
            }
            try root.save()
        }
        let main = ManagedObjectContext(concurrencyType: .mainQueue, parent: root)
        main.automaticallyMergesChangesFromParent = true
        let mainCounters = Keep()
        try await main.perform {
            mainCounters.objects = try (0..<Self.workers).map { try Self.counter(of: $0, in: main) }
        }
        let rootSaves = Atomic<Int>(0)
        root.addDidSaveObserver { note in
            if note.context === root { rootSaves.add(1, ordering: .relaxed) }
        }

        try await Self.concurrently(Self.workers) { worker in
            let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
            child.mergePolicy = .mergeByPropertyObjectTrump
            for n in 0..<Self.savesPerWorker {
                try child.performAndWait {
                    let counter = try Self.counter(of: worker, in: child)
                    counter["value"] = .int(Self.int(counter["value"]) + 1)
                    let item = child.insertObject(forEntityName: "Item")
                    item["worker"] = .int(Int64(worker))
                    item["n"] = .int(Int64(n))
                    try child.save()
                }
                try root.performAndWait {
                    if root.hasChanges { try root.save() }
                }
            }
        }
        // The root posted its last merge to the main queue before its last
        // save returned; the main queue runs in order.
        await Self.drainMainQueue()

        let expected = Int64(Self.savesPerWorker)
        let totals = try Self.storeTotals(path, model: model)
        #expect(totals.counters == Dictionary(uniqueKeysWithValues: (0..<Int64(Self.workers)).map { ($0, expected) }))
        #expect(totals.items == Dictionary(uniqueKeysWithValues: (0..<Int64(Self.workers)).map { ($0, Self.savesPerWorker) }))
        #expect(rootSaves.load(ordering: .relaxed) >= 2)
        let merged = try await main.perform {
            (mainCounters.objects.map { Self.int($0["value"]) }, main.hasChanges)
        }
        #expect(merged.0 == Array(repeating: expected, count: Self.workers), "the main context's merged counters")
        #expect(merged.1 == false, "merging leaves no pending changes")
    }

    /// Eight private contexts on one coordinator increment one shared
    /// counter; a conflict (`.error`) is retried after a reset, so every
    /// increment lands once. A main-queue context merges every save, in
    /// whatever order the notifications reach it.
    @Test func eightContextsSharingOneCounterLoseNoUpdate() async throws {
        let model = try Self.model()
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let coordinator = try TestModels.coordinator(model, path: path)
        let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        setup.insertObject(forEntityName: "Counter")["worker"] = .int(-1)
        try setup.save()

        let main = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: coordinator)
        let mainCounter = Keep()
        try await main.perform { mainCounter.objects = [try Self.counter(of: -1, in: main)] }
        let conflicts = Atomic<Int>(0)

        try await Self.concurrently(Self.workers) { worker in
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            context.addDidSaveObserver { note in
                main.perform { main.mergeChanges(fromContextDidSave: note) }
            }
            for n in 0..<Self.savesPerWorker {
                while true {
                    do {
                        try context.performAndWait {
                            let counter = try Self.counter(of: -1, in: context)
                            counter["value"] = .int(Self.int(counter["value"]) + 1)
                            let item = context.insertObject(forEntityName: "Item")
                            item["worker"] = .int(Int64(worker))
                            item["n"] = .int(Int64(n))
                            try context.save()
                        }
                        break
                    } catch is MergeConflictError {
                        conflicts.add(1, ordering: .relaxed)
                        context.performAndWait { context.reset() }
                    }
                }
            }
        }
        // Each save queued its merge before returning.
        await Self.drainMainQueue()

        let total = Int64(Self.workers * Self.savesPerWorker)
        let totals = try Self.storeTotals(path, model: model)
        #expect(totals.counters == [-1: total])
        #expect(totals.items == Dictionary(uniqueKeysWithValues: (0..<Int64(Self.workers)).map { ($0, Self.savesPerWorker) }))
        let merged = try await main.perform { Self.int(mainCounter.objects[0]["value"]) }
        #expect(merged == total, "the main context merged \(merged), the store holds \(total) (\(conflicts.load(ordering: .relaxed)) conflicts retried)")
    }

    /// Saves on different queues post their notifications in a race, so a
    /// context may merge an older save after a newer one: it must keep the
    /// newer values, and its next save must not see a false conflict.
    @Test func mergingSavesOutOfOrderKeepsTheNewest() throws {
        let coordinator = try TestModels.coordinator(try Self.model(), path: nil)
        let writer = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        writer.insertObject(forEntityName: "Counter")["value"] = .int(0)
        try writer.save()
        let notes = Mutex<[ContextDidSaveNotification]>([])
        writer.addDidSaveObserver { note in notes.withLock { $0.append(note) } }
        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let seen = try Self.counter(of: 0, in: reader)
        let counter = try Self.counter(of: 0, in: writer)
        counter["value"] = .int(1)
        try writer.save()
        counter["value"] = .int(2)
        try writer.save()

        let saved = notes.withLock { $0 }
        try #require(saved.count == 2)
        reader.mergeChanges(fromContextDidSave: saved[1])
        reader.mergeChanges(fromContextDidSave: saved[0])
        #expect(seen["value"] == .int(2), "the older save was merged over the newer one")
        seen["worker"] = .int(5)
        try reader.save()
        #expect(try Self.storeTotals(coordinator, model: coordinator.model).counters == [5: 2])
    }

    // MARK: - Conflicts

    struct PolicyCase: Sendable, CustomTestStringConvertible {
        var policy: MergePolicy
        /// The row after the second save: a, b, c; nil when it must fail.
        var expected: [Int64]?
        var testDescription: String { "\(policy)" }
    }

    /// The row starts at a = b = c = 1. One context saves a = 2, c = 2;
    /// another, which read the row before, then saves a = 3, b = 3.
    @Test(arguments: [
        PolicyCase(policy: .error, expected: nil),
        PolicyCase(policy: .mergeByPropertyObjectTrump, expected: [3, 3, 2]),
        PolicyCase(policy: .mergeByPropertyStoreTrump, expected: [2, 3, 2]),
        PolicyCase(policy: .overwrite, expected: [3, 3, 1]),
        PolicyCase(policy: .rollback, expected: [2, 1, 2]),
    ])
    func twoContextsEditingOneRow(_ test: PolicyCase) throws {
        let model = try Self.model()
        let coordinator = try TestModels.coordinator(model, path: nil)
        let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let row = setup.insertObject(forEntityName: "Row")
        for key in ["a", "b", "c"] { row[key] = .int(1) }
        try setup.save()
        let request = FetchRequest(entityName: "Row")

        let first = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let second = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        second.mergePolicy = test.policy
        let mine = try #require(try first.fetch(request).first)
        let theirs = try #require(try second.fetch(request).first)
        #expect(Self.int(theirs["a"]) == 1)
        mine["a"] = .int(2)
        mine["c"] = .int(2)
        try first.save()
        theirs["a"] = .int(3)
        theirs["b"] = .int(3)

        func stored() throws -> [Int64] {
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let row = try #require(try fresh.fetch(request).first)
            return ["a", "b", "c"].map { Self.int(row[$0]) }
        }
        guard let expected = test.expected else {
            do {
                try second.save()
                Issue.record("the save should fail with a merge conflict")
            } catch let error as MergeConflictError {
                #expect(error.conflicts.count == 1)
                #expect(error.conflicts.first?.keys == ["a", "c"])
                #expect(error.conflicts.first?.isDeletedInStore == false)
                #expect(error.description.contains("changed in the store (a, c)"), "\(error)")
            }
            #expect(try stored() == [2, 1, 2], "a failed save writes nothing")
            #expect(second.hasChanges, "a failed save keeps the changes")
            return
        }
        try second.save()
        #expect(try stored() == expected)
        #expect(["a", "b", "c"].map { Self.int(theirs[$0]) } == expected, "the saving context's object")
        #expect(!second.hasChanges)
    }

    // MARK: - Parent and child

    @Test func childSaveReachesDiskOnlyWhenParentSaves() async throws {
        let model = try Self.model()
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let coordinator = try TestModels.coordinator(model, path: path)
        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
        try root.performAndWait {
            root.insertObject(forEntityName: "Counter")["value"] = .int(1)
            try root.save()
        }
        try await child.perform {
            let counter = try Self.counter(of: 0, in: child)
            counter["value"] = .int(2)
            let item = child.insertObject(forEntityName: "Item")
            item["n"] = .int(7)
            try child.save()
        }
        #expect(try Self.storeTotals(path, model: model).counters == [0: 1], "the child's update is not on disk")
        #expect(try Self.storeTotals(path, model: model).items.isEmpty, "the child's insert is not on disk")
        #expect(try await root.perform { root.hasChanges })
        try await root.perform { try root.save() }
        #expect(try Self.storeTotals(path, model: model).counters == [0: 2])
        #expect(try Self.storeTotals(path, model: model).items == [0: 1])
    }
}
