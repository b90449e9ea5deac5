import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// The committed state a fetched object keeps: its row's values and
/// slots, with its own ID and version, until a save replaces them.
@Suite struct FetchedCommittedStateTests {
    static func coordinator(items: Int) throws -> PersistentStoreCoordinator {
        let item = EntityDescription(name: "Item")
        item.add(AttributeDescription(name: "rank", type: .integer64, isOptional: false, defaultValue: .int(0)))
        item.add(AttributeDescription(name: "name", type: .string))
        let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: [item]))
        try coordinator.addSQLiteStore(at: nil)
        let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for i in 0..<items {
            let object = setup.insertObject(forEntityName: "Item")
            object["rank"] = .int(Int64(i))
            object["name"] = .string("item \(i)")
        }
        try setup.save()
        return coordinator
    }

    /// A fetched object's committed state is its row: what changed is
    /// told against it, rollback returns to it, and a save makes the saved
    /// values (and the next version) the committed ones.
    @Test func aFetchedObjectsCommittedStateIsItsRowUntilASaveReplacesIt() throws {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try Self.coordinator(items: 2))
        var request = FetchRequest(entityName: "Item")
        request.sortDescriptors = [SortKey(keyPath: ["rank"], ascending: true)]
        let object = try context.fetch(request)[1]
        #expect(object.isFault)
        #expect(object.committedValues(forKeys: ["name"])["name"] as? String == "item 1")
        object["name"] = .string("renamed")
        #expect(object.changedValues.keys.sorted() == ["name"])
        #expect(object.committedValues(forKeys: ["name"])["name"] as? String == "item 1")
        context.rollback()
        #expect(object["name"] == .string("item 1"))
        #expect(!object.hasChanges)

        let version = object.version
        object["name"] = .string("saved")
        try context.save()
        #expect(object.version == version + 1)
        #expect(object.committed?.version == object.version)
        #expect(object.committed?.id == object.objectID)
        #expect(object.committedValues(forKeys: ["name"])["name"] as? String == "saved")
        object["name"] = .string("again")
        #expect(object.changedValues.keys.sorted() == ["name"])
        context.rollback()
        #expect(object["name"] == .string("saved"))
    }
}

