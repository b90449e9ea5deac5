import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// A item whose deinit asks its context for the registered objects: the
/// identity map must not release it while holding its lock.
final class LookingItem: ManagedObject {
    nonisolated(unsafe) static var context: ManagedObjectContext?
    nonisolated(unsafe) static var lookedUp = 0

    override class var entityName: String { "Item" }

    deinit {
        if let context = Self.context {
            _ = context.registered[objectID]
            Self.lookedUp += 1
        }
    }
}

/// The identity map holds its objects strongly and counts one only it
/// holds as gone (see `ObjectRegistry`): what users see must be what
/// weak references gave them.
@Suite(.serialized) struct RegistryHoldingTests {
    static func model() throws -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        item.add(AttributeDescription(name: "rank", type: .integer64, isOptional: false, defaultValue: .int(0)))
        item.add(AttributeDescription(name: "name", type: .string))
        return try ManagedObjectModel(entities: [item])
    }

    static func store(items: Int, model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for i in 0..<items {
            let item = setup.insertObject(forEntityName: "Item")
            item["rank"] = .int(Int64(i))
            item["name"] = .string("item \(i)")
        }
        try setup.save()
        return coordinator
    }

    /// At a process's end (mrq after its last statement) a context leaves
    /// its objects to the exit instead of letting go of each: they outlive
    /// the context, unreleased, and the map is empty; the store still
    /// closes when the context and coordinator go, its log checkpointed.
    @Test func objectsLeftToTheProcessExitOutliveTheirContextAndTheStoreStillCloses() throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        weak var left: ManagedObject?
        do {
            let coordinator = PersistentStoreCoordinator(model: try Self.model())
            try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path))
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            var items: [ManagedObject] = []
            for i in 0..<3 {
                let item = context.insertObject(forEntityName: "Item")
                item["rank"] = .int(Int64(i))
                items.append(item)
            }
            try context.save()
            left = items[0]
            #expect(context.registeredObjects.count == 3)
            context.leaveObjectsToProcessExit()
            #expect(context.registeredObjects.isEmpty)
            #expect(context.registered.count == 0)
            items = []
        }
        // The context and its coordinator are gone; the objects are not.
        #expect(left != nil)
        #expect(!OpenConnections.filenames().contains(path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = PersistentStoreCoordinator(model: try Self.model())
        try reopened.addSQLiteStore(at: URL(fileURLWithPath: path))
        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: reopened)
        #expect(try reader.count(for: FetchRequest(entityName: "Item")) == 3)
    }

    @Test func anObjectNobodyHoldsIsGoneAndARefetchSeesTheRowAsItIsNow() throws {
        let coordinator = try Self.store(items: 3, model: try Self.model())
        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let writer = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "rank == 1"))
        request.returnsObjectsAsFaults = false
        var first: ManagedObject? = try #require(try reader.fetch(request).first)
        #expect(first?["name"] == .string("item 1"))
        let id = try #require(first?.objectID)
        #expect(reader.registered[id] === first)
        first = nil
        // Only the map holds it: gone, to lookups and to the lists.
        #expect(reader.registered[id] == nil)
        #expect(reader.registeredObjects.isEmpty)
        #expect(reader.registered.count == 0)

        // Another context changes the row; the reader, which dropped its
        // object, fetches the row as it is now, not its old values.
        let other = try #require(try writer.fetch(request).first)
        other["name"] = .string("renamed")
        try writer.save()
        var again: ManagedObject? = try #require(try reader.fetch(request).first)
        #expect(again?["name"] == .string("renamed"))
        // Dropped again, then found by the map's own lookup: still gone.
        again = nil
        #expect(reader.registered[id] == nil)
    }

    @Test func anObjectInUseIsFoundAndOneInUseOnlyElsewhereIsKept() throws {
        let coordinator = try Self.store(items: 5, model: try Self.model())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let held = try context.fetch(FetchRequest(entityName: "Item"))
        #expect(held.count == 5)
        #expect(context.registeredObjects.count == 5)
        for object in held { #expect(context.registered[object.objectID] === object) }
        // Changed objects are held by the context's changes: kept when the
        // user lets them go.
        var changed: ManagedObject? = context.insertObject(forEntityName: "Item")
        let insertedID = try #require(changed?.objectID)
        changed = nil
        #expect(context.registered[insertedID] != nil)
        #expect(context.registeredObjects.count == 6)
        withExtendedLifetime(held) {}
    }

    /// A save lets go of the new objects only the map held, there and
    /// then; one the caller holds stays, filed under its permanent ID.
    @Test func aSavedInsertNobodyHoldsLeavesTheMapAndOneHeldIsFiledUnderItsRow() throws {
        let coordinator = try Self.store(items: 0, model: try Self.model())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for i in 0..<3 {
            let item = context.insertObject(forEntityName: "Item")
            item["rank"] = .int(Int64(i))
        }
        let held = context.insertObject(forEntityName: "Item")
        held["rank"] = .int(7)
        held["name"] = .string("held")
        #expect(context.registered.held == 4)
        try context.save()
        // Only the held object is left in the map, under its row.
        #expect(context.registered.held == 1)
        #expect(!held.objectID.isTemporaryID)
        #expect(context.registered[held.objectID] === held)
        #expect(context.object(with: held.objectID) === held)
        #expect(held.managedObjectContext === context)
        #expect(!held.hasChanges)
        // The others were written, and come back from their rows.
        let all = try context.fetch(FetchRequest(entityName: "Item", sortDescriptors: try SortSpec.parse("rank")))
        #expect(all.map { $0["rank"] } == [.int(0), .int(1), .int(2), .int(7)])
        #expect(all.last === held)
        held["name"] = .string("changed")
        try context.save()
        #expect(context.registered[held.objectID] === held)
    }

    /// A fetch registers each row after decoding the next (loading its
    /// slot ahead): rows sorted against their keys come back in order, as
    /// the objects already registered where there are some.
    @Test func rowsSortedAgainstTheirKeysAreRegisteredInOrderOncePerID() throws {
        let coordinator = try Self.store(items: 3_000, model: try Self.model())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let some = try context.fetch(FetchRequest(entityName: "Item", predicate: try Predicate(format: "rank >= 1000 AND rank < 1500")))
        let byID = Dictionary(uniqueKeysWithValues: some.map { ($0.objectID, $0) })
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = try SortSpec.parse("rank:NO")
        let all = try context.fetch(request)
        #expect(all.map { $0["rank"] } == (0..<3000).reversed().map { .int(Int64($0)) })
        #expect(Set(all.map { ObjectIdentifier($0) }).count == 3000)
        for object in all where byID[object.objectID] != nil { #expect(byID[object.objectID] === object) }
        #expect(context.registered.count == 3000)
        withExtendedLifetime(some) {}
    }

    @Test func streamingThroughManyRowsKeepsTheMapSmall() throws {
        let coordinator = try Self.store(items: 3_000, model: try Self.model())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var most = 0
        for round in 0..<12 {
            // Each round's objects are dropped before the next fetch:
            // without sweeping, the map would hold all 3,000 of them after
            // the first, and never let any go.
            var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "rank >= %d AND rank < %d", round * 250, round * 250 + 250))
            request.returnsObjectsAsFaults = false
            let objects = try context.fetch(request)
            #expect(objects.count == 250)
            most = max(most, context.registered.held)
        }
        // Never more than a sweep's worth beyond what is in use.
        #expect(most <= 4096 + 250)
        #expect(context.registered.count == 0)
        #expect(context.registered.held == 0)
    }

    @Test func aMapOfManyObjectsSweepsWhenItHasGrown() throws {
        let model = try Self.model()
        let coordinator = try Self.store(items: 20_000, model: model)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for start in stride(from: 0, to: 20_000, by: 1_000) {
            let request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "rank >= %d AND rank < %d", start, start + 1_000))
            #expect(try context.fetch(request).count == 1_000)
            // Dropped at once; the map sweeps them out as it grows.
            #expect(context.registered.held <= 2 * 4096)
        }
    }

    @Test func aSweepThatFreesLittleLetsTheMapGrowFourTimesBeforeTheNext() throws {
        let coordinator = try Self.store(items: 11_000, model: try Self.model())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var first: FetchResults? = try context.fetch(FetchRequest(entityName: "Item", predicate: try Predicate(format: "rank < 5000")))
        #expect(first?.count == 5_000)
        // Swept at 4,096 while the fetch held every object: nothing freed,
        // so the next sweep comes at four times what was left (16,384),
        // not twice (8,192, which would have freed the 5,000 let go here).
        first = nil
        var second: FetchResults? = try context.fetch(FetchRequest(entityName: "Item", predicate: try Predicate(format: "rank >= 5000")))
        #expect(second?.count == 6_000)
        #expect(context.registered.held == 11_000)
        #expect(context.registered.count == 6_000)
        second = nil
        // That sweep freed most: the next comes at twice what it left.
        #expect(context.registered.count == 0)
        for start in stride(from: 0, to: 11_000, by: 1_000) {
            let request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "rank >= %d AND rank < %d", start, start + 1_000))
            #expect(try context.fetch(request).count == 1_000)
            #expect(context.registered.held <= 2 * 4096)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aDeinitThatLooksInTheContextDoesNotDeadlock() throws {
        let model = try Self.model()
        try model.register(LookingItem.self)
        let coordinator = try Self.store(items: 50, model: model)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        LookingItem.context = context
        LookingItem.lookedUp = 0
        defer { LookingItem.context = nil }
        #expect(try context.fetch(FetchRequest(entityName: "Item")).count == 50)
        // The objects, held only by the map now, are dropped by these
        // lookups and lists; each one's deinit looks in the map.
        #expect(context.registeredObjects.isEmpty)
        #expect(LookingItem.lookedUp == 50)
    }

    // An object reaches its context through the context's one shared
    // `ChangeHearing`, which holds the context weakly: these pin down that
    // the object still holds its context as a weak reference did.

    @Test func anObjectKeepsNoContextAliveAndReadsNilOnceItIsGone() throws {
        let coordinator = try Self.store(items: 3, model: try Self.model())
        var context: ManagedObjectContext? = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        weak let watched = context
        var request = FetchRequest(entityName: "Item")
        request.returnsObjectsAsFaults = false
        let objects = Array(try #require(context).fetch(request))
        #expect(objects.count == 3)
        #expect(objects.allSatisfy { $0.managedObjectContext === context })
        context = nil
        #expect(watched == nil)
        #expect(objects.allSatisfy { $0.managedObjectContext == nil })
        // Filled before the context went: the values stay.
        #expect(Set(objects.map { $0["name"] }) == [.string("item 0"), .string("item 1"), .string("item 2")])
    }

    @Test func aFaultHoldingItsRowFillsWhileItsContextLivesAndNotAfter() throws {
        let coordinator = try Self.store(items: 2, model: try Self.model())
        var context: ManagedObjectContext? = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let sorted = [SortKey(keyPath: ["rank"], ascending: true)]
        let objects = Array(try #require(context).fetch(FetchRequest(entityName: "Item", sortDescriptors: sorted)))
        #expect(objects.count == 2 && objects.allSatisfy(\.isFault))
        // Filled from the row it was fetched with.
        #expect(objects[0]["name"] == .string("item 0"))
        #expect(!objects[0].isFault)
        // The context goes: the other fault is not filled, as when it had
        // a weak reference of its own that read nil.
        context = nil
        #expect(objects[1].isFault)
        #expect(objects[1]["name"] == .null)
        #expect(objects[1].isFault)
        #expect(objects[0]["name"] == .string("item 0"))
    }

    @Test func anObjectThatLeftItsContextReadsNilWhileTheContextLives() throws {
        let coordinator = try Self.store(items: 1, model: try Self.model())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let item = context.insertObject(forEntityName: "Item")
        #expect(item.managedObjectContext === context)
        try context.save()
        #expect(item.managedObjectContext === context)
        context.delete(item)
        try context.save()
        // Its delete saved: it has left the context.
        #expect(item.managedObjectContext == nil)
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let fetched = try #require(try other.fetch(FetchRequest(entityName: "Item")).first)
        #expect(fetched.managedObjectContext === other)
        other.reset()
        #expect(fetched.managedObjectContext == nil)
    }
}
