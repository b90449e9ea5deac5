import Foundation
@testable import ObjectStore
import Predicates
import Synchronization
import Testing

/// What a save leaves in the context: permanent IDs everywhere (identity
/// map, to-one slots, to-many sets, committed snapshots), committed state
/// equal to the saved values, and lifecycle hooks run for subclass objects
/// saved together with plain ones.
@Suite struct SaveStateTests {
    final class Audited: ManagedObject {
        nonisolated(unsafe) static var willSaves = 0
        nonisolated(unsafe) static var didSaves = 0
        override func willSave() { Self.willSaves += 1 }
        override func didSave() { Self.didSaves += 1 }
    }

    func context() throws -> (ManagedObjectContext, ManagedObjectModel) {
        let model = try TestModels.people()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        return (ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator), model)
    }

    @Test func savedObjectsHoldPermanentIDsOnBothSidesAndInTheirCommittedState() throws {
        let (context, _) = try context()
        let department = context.insertObject(forEntityName: "Department")
        department["name"] = .string("Research")
        let people = (0..<3).map { n -> ManagedObject in
            let person = context.insertObject(forEntityName: "Person")
            person["firstName"] = .string("P\(n)")
            person.setObject(department, forKey: "department")
            return person
        }
        try context.save()

        #expect(!department.objectID.isTemporaryID)
        #expect(department.objects(forKey: "people").map(\.objectID) == people.map(\.objectID))
        for person in people {
            #expect(!person.objectID.isTemporaryID)
            #expect(context.registered[person.objectID] === person)
            #expect(person.object(forKey: "department") === department)
            let committed = try #require(person.committed)
            #expect(committed.id == person.objectID)
            #expect(committed.version == 1)
            #expect(committed.values == person.values)
            #expect(committed.toOne.compactMap { $0 } == [department.objectID])
            #expect(!person.hasChanges)
        }
        #expect(department.committed?.id == department.objectID)
        #expect(!context.hasChanges)

        // The committed state is what a change is measured against.
        people[0]["firstName"] = .string("Changed")
        #expect(people[0].changedValues.keys.sorted() == ["firstName"])
        context.rollback()
        #expect(people[0]["firstName"] == .string("P0"))

        // A second save writes the change only, against version 1.
        people[1]["age"] = .int(40)
        try context.save()
        #expect(people[1].committed?.version == 2)
        #expect(people[1].committed?.values == people[1].values)
        #expect(people[2].committed?.version == 1)
    }

    @Test func aFetchedObjectsSlotsChangeApartFromItsCommittedState() throws {
        let model = try TestModels.people()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let writer = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let first = writer.insertObject(forEntityName: "Department")
        first["name"] = .string("First")
        let second = writer.insertObject(forEntityName: "Department")
        second["name"] = .string("Second")
        let person = writer.insertObject(forEntityName: "Person")
        person.setObject(first, forKey: "department")
        try writer.save()

        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let fetched = try #require(try reader.fetch(FetchRequest(entityName: "Person")).first)
        let firstAgain = try #require(fetched.object(forKey: "department"))
        #expect(firstAgain.objectID == first.objectID)
        let secondAgain = reader.object(with: second.objectID)
        fetched.setObject(secondAgain, forKey: "department")
        #expect((fetched.committedValues(forKeys: ["department"])["department"] as? ManagedObject) === firstAgain)
        #expect(fetched.changedValues.keys.sorted() == ["department"])
        #expect(firstAgain.objects(forKey: "people").isEmpty)
        #expect(secondAgain.objects(forKey: "people").map(\.objectID) == [fetched.objectID])
        reader.rollback()
        #expect(fetched.object(forKey: "department") === firstAgain)
        #expect(!fetched.hasChanges)
    }

    @Test func hooksRunForSubclassObjectsSavedWithPlainOnes() throws {
        let (context, model) = try context()
        let person = try #require(model.entity(named: "Person"))
        Audited.willSaves = 0
        Audited.didSaves = 0
        _ = context.insertObject(forEntityName: "Department")["name"] = .string("Plain")
        let audited = Audited(entity: person, insertInto: context)
        audited["firstName"] = .string("Hooked")
        try context.save()
        #expect(Audited.willSaves == 1)
        #expect(Audited.didSaves == 1)
        #expect(!audited.objectID.isTemporaryID)
    }

    /// A saved object nobody holds is let go of by the save: the context
    /// keeps the ones still held, and the others come back from the store,
    /// under their permanent IDs, when asked for.
    @Test func savedObjectsNobodyHoldsAreLetGoOf() throws {
        let (context, _) = try context()
        let noted = Mutex<ContextDidSaveNotification?>(nil)
        context.addDidSaveObserver { note in noted.withLock { $0 = note } }
        let held = context.insertObject(forEntityName: "Person")
        held["firstName"] = .string("Held")
        do {
            let department = context.insertObject(forEntityName: "Department")
            department["name"] = .string("Research")
            held.setObject(department, forKey: "department")
            for n in 0..<3 {
                let person = context.insertObject(forEntityName: "Person")
                person["firstName"] = .string("Unheld \(n)")
                person.setObject(department, forKey: "department")
            }
        }
        try context.save()

        #expect(context.registeredObjects.map { $0 === held } == [true])
        let note = try #require(noted.withLock { $0 })
        #expect(note.insertedObjectIDs.count == 5)
        #expect(note.insertedObjectIDs.allSatisfy { !$0.isTemporaryID })
        #expect(note.insertedObjectIDs.first == held.objectID, "in insertion order")
        // The observer's saved state of a let-go object names permanent IDs.
        guard case .toOne(let departmentID?) = held.relationshipSlots[0] else {
            Issue.record("the held person lost its department")
            return
        }
        #expect(!departmentID.isTemporaryID)
        let saved = try #require(note.snapshots[departmentID])
        #expect(saved.values == [.string("Research"), .double(0)])
        #expect(note.toMany[departmentID]?[0]?.allSatisfy { !$0.isTemporaryID } == true)

        let department = try #require(held.object(forKey: "department"))
        #expect(department.objectID == departmentID)
        #expect(department["name"] == .string("Research"))
        #expect(department.objects(forKey: "people").count == 4)
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 4)
        #expect(!context.hasChanges)
    }

    /// Without observers the save skips the saved state of the objects it
    /// lets go of; the store has all of them all the same.
    @Test func objectsLetGoOfWithoutObserversAreAllInTheStore() throws {
        let (context, _) = try context()
        for n in 0..<50 {
            let person = context.insertObject(forEntityName: "Person")
            person["firstName"] = .string("P\(n)")
            person["age"] = .int(Int64(n))
        }
        try context.save()
        #expect(context.registeredObjects.isEmpty)
        var request = FetchRequest(entityName: "Person")
        request.sortDescriptors = try SortSpec.parse("age")
        let fetched = try context.fetch(request)
        #expect(fetched.map { $0["firstName"] } == (0..<50).map { .string("P\($0)") })
        #expect(fetched.allSatisfy { !$0.objectID.isTemporaryID && !$0.hasChanges })
    }
}

extension SaveStateTests {
    /// A save nobody observes builds no list of saved IDs, and gives no
    /// permanent ID to the objects it lets go of: the objects still held
    /// get theirs everywhere all the same (identity map, relationships),
    /// and an observer added afterwards hears the next save in full.
    @Test func aSaveNobodyObservesStillGivesHeldObjectsPermanentIDs() throws {
        let (context, _) = try context()
        let department = context.insertObject(forEntityName: "Department")
        department["name"] = .string("Research")
        for n in 0..<20 {
            let person = context.insertObject(forEntityName: "Person")
            person["firstName"] = .string("Unheld \(n)")
            person.setObject(department, forKey: "department")
        }
        try context.save()

        #expect(!department.objectID.isTemporaryID)
        #expect(context.registeredObjects.map { $0 === department } == [true])
        #expect(context.object(with: department.objectID) === department)
        let people = department.objects(forKey: "people")
        #expect(people.count == 20)
        #expect(people.allSatisfy { !$0.objectID.isTemporaryID && $0.object(forKey: "department") === department })
        #expect(Set(people.map { $0["firstName"] }) == Set((0..<20).map { .string("Unheld \($0)") }))

        let noted = Mutex<ContextDidSaveNotification?>(nil)
        context.addDidSaveObserver { note in noted.withLock { $0 = note } }
        let late = context.insertObject(forEntityName: "Person")
        late["firstName"] = .string("Late")
        department["name"] = .string("Development")
        try context.save()
        let note = try #require(noted.withLock { $0 })
        #expect(note.insertedObjectIDs == [late.objectID])
        #expect(!late.objectID.isTemporaryID)
        #expect(note.updatedObjectIDs == [department.objectID])
    }
}
