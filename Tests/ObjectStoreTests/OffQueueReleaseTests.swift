import Foundation
import Testing
@testable import ObjectStore

/// Objects let go on another thread than their context's queue: fetched
/// in `performAndWait`, returned, and dropped outside while the queue
/// fetches the same rows. The identity map holds them unretained; before,
/// the queue's lookup revived an object whose deinit had begun, and the
/// process aborted ("deallocated with non-zero retain count") or the map
/// was corrupted, in 3 runs of 3.
@Suite struct OffQueueReleaseTests {
    final class Box: @unchecked Sendable {
        var objects: [ManagedObject] = []
    }

    static func store(owners: Int) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: try DifferentialModel.make())
        try coordinator.addSQLiteStore(at: nil)
        let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for i in 0..<owners { setup.insertObject(forEntityName: "Owner")["rank"] = .int(Int64(i)) }
        try setup.save()
        return coordinator
    }

    @Test func droppingFetchedObjectsOffTheQueueIsSafe() async throws {
        let coordinator = try Self.store(owners: 50)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let rounds = isSoak ? 20_000 : 600
        for _ in 0..<rounds {
            let box = Box()
            box.objects = try context.performAndWait { try context.fetch(FetchRequest(entityName: "Owner")).map { $0 } }
            try await ConcurrencyTests.concurrently(2) { worker in
                if worker == 0 {
                    box.objects = []
                } else {
                    let ranks = try context.performAndWait {
                        try context.fetch(FetchRequest(entityName: "Owner")).map { $0["rank"] }
                    }
                    #expect(ranks.count == 50)
                }
            }
        }
        // Whatever died is gone from the map; whatever lives is found.
        let alive = try context.performAndWait { try context.fetch(FetchRequest(entityName: "Owner")).map { $0 } }
        context.performAndWait {
            #expect(context.registeredObjects.count == 50)
            for object in alive { #expect(context.registered[object.objectID] === object) }
        }
    }

    @Test func theMapMakesOnceAndForgetsTheDead() throws {
        let coordinator = try Self.store(owners: 1)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let id = try #require(try context.fetch(FetchRequest(entityName: "Owner")).first?.objectID)
        var made = 0
        var first: ManagedObject? = context.registered.object(for: id) { made += 1; return ManagedObject(fault: id, context: context) }
        let again = context.registered.object(for: id) { made += 1; return ManagedObject(fault: id, context: context) }
        #expect(first === again && made <= 1)
        let address = ObjectIdentifier(again)
        first = nil
        _ = consume again
        // The last reference went: the map no longer has it.
        #expect(context.registered[id].map(ObjectIdentifier.init) != address || context.registered[id] == nil)
        #expect(context.registered.values.allSatisfy { $0.objectID != id })
        withExtendedLifetime(first) {}
    }
}
