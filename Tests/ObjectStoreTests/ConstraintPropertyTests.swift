import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// Random use of a uniquely keyed entity from a root context, two of its
/// children and a second coordinator, under random merge policies, with
/// keys drawn from a small pool so that they collide often (issue 16,
/// item 5). After every step:
/// - no save fails with anything but a merge or constraint conflict (never
///   a raw SQLite error);
/// - the store never holds a key twice;
/// - a refused save changes nothing: not the store, not the pending
///   changes of any context of the chain;
/// - a save that succeeded lost no key it wrote: each key its new objects
///   held is stored afterwards (a changed object's key may go with it, when
///   another context deleted the row: the delete wins).
@Suite struct ConstraintPropertyTests {
    static let model: ManagedObjectModel = {
        try! ManagedObjectModel {
            Entity("Tag") {
                Attribute("key", .string)
                Attribute("n", .integer64, default: .int(0))
                Unique("key")
            }
        }
    }()

    static let keys = ["a", "b", "c", "d"]

    struct World {
        let directory: URL
        let contexts: [ManagedObjectContext]  // root, childA, childB, other
        let store: SQLiteStore

        init(policies: [MergePolicy], layout: SchemaMapping.Layout = .mrq) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-unique-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let url = directory.appendingPathComponent("store.sqlite")
            var options = PersistentStoreOptions()
            options.layout = layout
            let first = PersistentStoreCoordinator(model: ConstraintPropertyTests.model)
            try first.addPersistentStore(type: .sqlite, at: url, options: options)
            let second = PersistentStoreCoordinator(model: ConstraintPropertyTests.model)
            try second.addPersistentStore(type: .sqlite, at: url, options: options)
            let root = ManagedObjectContext(concurrencyType: .confined, coordinator: first)
            contexts = [root, ManagedObjectContext(concurrencyType: .confined, parent: root),
                        ManagedObjectContext(concurrencyType: .confined, parent: root),
                        ManagedObjectContext(concurrencyType: .confined, coordinator: second)]
            for (context, policy) in zip(contexts, policies) { context.mergePolicy = policy }
            store = first.store
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }

        /// The stored (key, n) pairs, sorted.
        func rows() throws -> [[Value]] {
            // Names from the mapping: the store may be in either layout.
            let tag = ConstraintPropertyTests.model.entity(named: "Tag")!
            let (key, n) = (store.mapping.column(for: "key", of: tag)!.name, store.mapping.column(for: "n", of: tag)!.name)
            let table = store.mapping.table(for: tag).name
            return try store.withLock { try store.database.rows("SELECT \(key), \(n) FROM \(table) ORDER BY \(key), \(n)") }
        }

        /// Every context's pending changes, as text that compares.
        func pending() -> [String] {
            contexts.map { context in
                func describe(_ objects: [ManagedObject]) -> [String] {
                    objects.map { "\($0["key"])/\($0["n"])" }.sorted()
                }
                return "\(describe(context.insertedObjects)) \(describe(context.updatedObjects)) \(describe(context.deletedObjects))"
            }
        }
    }

    static func run(seed: UInt64, steps: Int = 30) throws -> String? {
        var random = SplitMix64(seed: seed)
        let policies: [MergePolicy] = [.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]
        // Odd seeds on Core Data's layout.
        let world = try World(policies: (0..<4).map { _ in policies.randomElement(using: &random)! },
                              layout: seed % 2 == 1 ? .coreData : .mrq)
        defer { world.remove() }
        var log: [String] = []
        for _ in 0..<steps {
            let c = Int.random(in: 0..<4, using: &random)
            let context = world.contexts[c]
            let key = keys.randomElement(using: &random)!
            let n = Int64.random(in: 0...2, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3:
                log.append("\(c): insert \(key) \(n)")
                let tag = context.insertObject(forEntityName: "Tag")
                tag["key"] = .string(key)
                tag["n"] = .int(n)
            case 3..<5:
                let found = try context.fetch(FetchRequest(entityName: "Tag"))
                guard !found.isEmpty else { continue }
                let tag = found[Int.random(in: 0..<found.count, using: &random)]
                if Bool.random(using: &random) {
                    log.append("\(c): set n \(n) on \(tag["key"])")
                    tag["n"] = .int(n)
                } else {
                    log.append("\(c): set key \(key) on \(tag["key"])")
                    tag["key"] = .string(key)
                }
            case 5:
                let found = try context.fetch(FetchRequest(entityName: "Tag"))
                guard !found.isEmpty else { continue }
                let tag = found[Int.random(in: 0..<found.count, using: &random)]
                log.append("\(c): delete \(tag["key"])")
                context.delete(tag)
            case 6:
                log.append("\(c): rollback")
                context.rollback()
            default:
                let upToStore = c == 1 || c == 2 ? Bool.random(using: &random) : true
                log.append("\(c): \(upToStore ? "save up" : "save")")
                let rowsBefore = try world.rows()
                let pendingBefore = world.pending()
                // The new objects the save writes to the store.
                let chain = upToStore && c != 3 ? [context, world.contexts[0]] : [context]
                let inserted = upToStore || c == 0 || c == 3 ? chain.flatMap(\.insertedObjects) : []
                do {
                    if upToStore { try context.saveUpToStore() } else { try context.save() }
                    let stored = Set(try world.rows().compactMap { row -> String? in
                        if case .string(let s) = row[0] { return s } else { return nil }
                    })
                    // Each one still in its context (not dropped by a
                    // delete in the same save) is stored, under its key.
                    var written: Set<String> = []
                    for object in inserted where object.managedObjectContext != nil {
                        if case .string(let s) = object["key"] { written.insert(s) }
                    }
                    if !written.subtracting(stored).isEmpty {
                        return "saved keys \(written.sorted()) but the store holds \(stored.sorted())\n" + log.joined(separator: "\n")
                    }
                } catch is MergeConflictError, is ConstraintConflictError {
                    if try world.rows() != rowsBefore { return "a refused save changed the store\n" + log.joined(separator: "\n") }
                    if world.pending() != pendingBefore {
                        return "a refused save changed pending changes:\n  before \(pendingBefore)\n  after  \(world.pending())\n"
                            + log.joined(separator: "\n")
                    }
                } catch {
                    return "a save failed with \(error)\n" + log.joined(separator: "\n")
                }
            }
            let keysStored = try world.rows().map { $0[0] }
            if Set(keysStored).count != keysStored.count {
                return "the store holds a key twice: \(keysStored)\n" + log.joined(separator: "\n")
            }
        }
        return nil
    }

    @Test(arguments: 0..<4)
    func randomUseKeepsKeysUniqueAndLosesNothing(shard: Int) throws {
        let count = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1" ? 20_000 : 400
        var n = shard
        while n < count {
            if let failure = try Self.run(seed: 0xC0FFEE &+ UInt64(n)) {
                Issue.record("seed \(0xC0FFEE &+ UInt64(n)): \(failure)")
                return
            }
            n += 4
        }
    }
}
