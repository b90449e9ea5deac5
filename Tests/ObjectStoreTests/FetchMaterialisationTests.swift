import Foundation
import Predicates
import Testing
@testable import ObjectStore

/// How a fetch turns rows into objects (issue 35): faults holding their
/// row, results read whole or in batches.
@Suite struct FetchMaterialisationTests {
    static let lastNames = ["Smith", "Jones", "Stone", "Brown", "Zoë", "smith", "Adams", "Sable", "Kim", "Lee"]

    /// A fault fetched with its row is filled from that row on its first
    /// access, values and to-ones, without asking the store: the rows are
    /// deleted behind the context's back after the fetch, and each object
    /// still reads what the fetch read.
    @Test func aFaultIsFilledFromTheRowItWasFetchedWith() throws {
        let context = try TestModels.seededPeople()
        let coordinator = try #require(context.persistentStoreCoordinator)
        let people = try context.fetch(FetchRequest(entityName: "Person", sortDescriptors: try SortSpec.parse("age")))
        #expect(people.count == 10)
        #expect(people.filter { !$0.isFault }.isEmpty)
        let person = try #require(coordinator.model.entity(named: "Person"))
        let store = try coordinator.sqlBackend(for: person, purpose: "the test")
        try store.sqlExecute("DELETE FROM \(store.mapping.table(for: person).name)", [])
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try fresh.count(for: FetchRequest(entityName: "Person")) == 0)
        for (i, object) in people.enumerated() {
            #expect(object["lastName"] == .string(Self.lastNames[i]))
            #expect(object["age"] == .int(Int64(10 + i * 5)))
            #expect(!object.isFault)
            #expect(object.object(forKey: "department")?["name"] == .string(i < 5 ? "Engineering" : "Operations"))
        }
    }

    /// The same request read whole and in batches gives the same objects,
    /// in the same order, and the same IDs.
    @Test func resultsReadTheSameWholeAndInBatches() throws {
        let context = try TestModels.seededPeople()
        var request = FetchRequest(entityName: "Person", sortDescriptors: try SortSpec.parse("age"))
        let whole = try context.fetch(request)
        request.fetchBatchSize = 3
        let batched = try context.fetch(request)
        #expect(whole.count == 10 && batched.count == 10)
        #expect(whole.objectIDs == batched.objectIDs)
        for i in whole.indices { #expect(whole[i] === batched[i]) }
        #expect(whole.map { $0["lastName"] } == Self.lastNames.map { .string($0) })
    }

    /// An entity's name table finds every name from its bytes, whatever
    /// made the string asked with (a literal, a substring, decoded bytes),
    /// short (kept in the string's own words) or long, ASCII or not; and
    /// no name it does not hold.
    @Test func slotTablesFindNamesByTheirBytes() {
        let names = ["", "a", "id", "age", "firstName", "fifteen_bytes_x", "sixteen_bytes_xy", "émile", "naïveté",
                     "日本語の名前", String(repeating: "long", count: 20), "x1", "x2", "1x", "2x"]
        let lookup = SlotLookup(names)
        for (i, name) in names.enumerated() {
            #expect(lookup.index(of: name) == i, "\(name)")
            #expect(lookup.index(of: String(Substring(name))) == i, "\(name)")
            #expect(lookup.index(of: String(decoding: Array(name.utf8), as: UTF8.self)) == i, "\(name)")
            #expect(lookup.index(of: name + "_") == nil, "\(name)")
        }
        #expect(lookup.index(of: "Age") == nil)
        #expect(lookup.index(of: "firstname") == nil)
    }

    /// A plain object is made under the map's lock: once for its ID, found
    /// again while it lives, made anew after its last reference went, and
    /// never while another lives; as a fetch of rows no one holds needs.
    @Test func theMapMakesAPlainObjectOnceAndAgainAfterItDied() throws {
        let context = try TestModels.seededPeople()
        // Sorted, the IDs come from SQL alone: no object is made for them.
        let id = try #require(try context.fetchObjectIDs(FetchRequest(entityName: "Department",
                                                                      sortDescriptors: try SortSpec.parse("name"))).first)
        #expect(context.registered.count == 0)
        var made = 0
        func lookUp() -> ManagedObject {
            context.registered.plainObject(for: id, orMake: { made += 1; return ManagedObject(fault: id, context: context) })
        }
        var first: ManagedObject? = lookUp()
        #expect(made == 1)
        #expect(lookUp() === first)
        #expect(made == 1)
        #expect(context.registered[id] === first)
        first = nil
        #expect(context.registered[id] == nil)
        let second = lookUp()
        #expect(made == 2)
        #expect(second.objectID == id && second.isFault)
        #expect(context.registered[id] === second)
        #expect(context.registered.values.filter { $0.objectID == id }.count == 1)
    }

    /// The map keeps apart what may share a number (hierarchies, stores,
    /// temporary and permanent IDs), finds a sub-entity's row under its
    /// hierarchy's, and counts, lists, removes and empties as it files.
    @Test func theMapKeepsHierarchiesStoresAndTemporaryIDsApart() throws {
        let model = try TestModels.people()
        let person = try #require(model.entity(named: "Person"))
        let manager = try #require(model.entity(named: "Manager"))
        let department = try #require(model.entity(named: "Department"))
        let ids = [ObjectID(entity: person, primaryKey: 5, store: .none),
                   ObjectID(entity: department, primaryKey: 5, store: .none),
                   ObjectID(entity: person, primaryKey: -5, store: .none),
                   ObjectID(entity: person, primaryKey: 5, storeIdentifier: "another store")]
        let objects = ids.map { ManagedObject(entity: $0.entity, insertInto: nil) }
        let registry = ObjectRegistry()
        for (id, object) in zip(ids, objects) { registry[id] = object }
        #expect(registry.count == 4)
        for (id, object) in zip(ids, objects) { #expect(registry[id] === object) }
        #expect(registry[ObjectID(entity: manager, primaryKey: 5, store: .none)] === objects[0])
        #expect(registry[ObjectID(entity: department, primaryKey: 6, store: .none)] == nil)
        #expect(registry.removeValue(forKey: ids[1]) === objects[1])
        #expect(registry[ids[1]] == nil && registry.count == 3)
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set([0, 2, 3].map { ObjectIdentifier(objects[$0]) }))
        registry[ids[2]] = nil
        #expect(registry.count == 2 && registry[ids[2]] == nil)
        registry.removeAll()
        #expect(registry.count == 0 && registry[ids[0]] == nil && registry.values.isEmpty)
        withExtendedLifetime(objects) {}
    }
}
