import Foundation
import Synchronization
import Testing
@testable import ObjectStore
import Predicates

@Suite struct StoreMigrationTests {
    private func v1() throws -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        person.add(AttributeDescription(name: "name", type: .string))
        person.add(AttributeDescription(name: "age", type: .integer16))
        person.add(RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", isToMany: true))
        return try ManagedObjectModel(entities: [person])
    }

    private func seed(_ path: String) throws {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(try v1(), path: path))
        let a = context.insertObject(forEntityName: "Person")
        a["name"] = .string("Ada")
        a["age"] = .int(36)
        let b = context.insertObject(forEntityName: "Person")
        b["name"] = .string("Bob")
        a.add(b, toKey: "friends")
        try context.save()
    }

    @Test func addedRenamedAndRequiredWithDefaultMigrateWithDataKept() throws {
        let path = TestModels.temporaryStorePath()
        try seed(path)
        let person = EntityDescription(name: "Person")
        let fullName = AttributeDescription(name: "fullName", type: .string)
        fullName.renamingIdentifier = "name"
        person.add(fullName)
        person.add(AttributeDescription(name: "age", type: .integer16, isOptional: false, defaultValue: .int(0)))
        person.add(AttributeDescription(name: "email", type: .string, defaultValue: .string("none")))
        person.add(RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", isToMany: true))
        let pet = EntityDescription(name: "Pet")
        pet.add(AttributeDescription(name: "name", type: .string))
        let v2 = try ManagedObjectModel(entities: [person, pet])

        let coordinator = try TestModels.coordinator(v2, path: path, migrating: true)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let store = coordinator.store
        let ids = try store.objectIDs(sql: "SELECT _pk, NULL FROM Person ORDER BY _pk", bindings: [], root: v2.entity(named: "Person")!)
        let ada = try context.existingObject(with: ids[0])
        let bob = try context.existingObject(with: ids[1])
        #expect(ada["fullName"] == .string("Ada"))
        #expect(ada["age"] == .int(36))
        #expect(bob["age"] == .int(0))
        #expect(ada["email"] == .string("none"))
        #expect(ada.objects(forKey: "friends").map(\.objectID) == [bob.objectID])
        #expect(try store.database.tableExists("Pet"))
        #expect(try store.database.scalar("PRAGMA integrity_check") == .string("ok"))
    }

    /// Two processes (here two connections on two threads) opening an old
    /// store with the new model at the same moment: the one that takes the
    /// write lock second finds the store migrated and leaves it be, rather
    /// than rebuilding new tables as if they were old ones.
    @Test func twoOpenersMigratingTheSameStoreAtOnceBothSucceedWithDataKept() throws {
        let person = EntityDescription(name: "Person")
        let fullName = AttributeDescription(name: "fullName", type: .string)
        fullName.renamingIdentifier = "name"
        person.add(fullName)
        person.add(AttributeDescription(name: "age", type: .integer16))
        person.add(RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", isToMany: true))
        let v2 = try ManagedObjectModel(entities: [person])
        for _ in 0..<12 {
            let path = TestModels.temporaryStorePath()
            try seed(path)
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    _ = try TestModels.coordinator(v2, path: path, migrating: true)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let coordinator = try TestModels.coordinator(v2, path: path)
            let names = try coordinator.store.database.rows("SELECT fullName FROM Person ORDER BY fullName").map { $0[0] }
            #expect(names == [.string("Ada"), .string("Bob")])
            #expect(try coordinator.store.database.scalar("PRAGMA integrity_check") == .string("ok"))
        }
    }

    @Test func aChangeThatCannotBeInferredIsANamedErrorAndChangesNothing() throws {
        let path = TestModels.temporaryStorePath()
        try seed(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let person = EntityDescription(name: "Person")
        person.add(AttributeDescription(name: "name", type: .string))
        person.add(AttributeDescription(name: "age", type: .string))
        person.add(RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", isToMany: true))
        let changed = try ManagedObjectModel(entities: [person])
        #expect {
            _ = try TestModels.coordinator(changed, path: path, migrating: true)
        } throws: { error in
            let e = error as? StoreError
            return e?.kind == .modelMismatch && e?.message.contains("Person.age") == true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func deleteOnMismatchRemovesTheStoreAndItsSidecars() throws {
        let path = TestModels.temporaryStorePath()
        try seed(path)
        let person = EntityDescription(name: "Person")
        person.add(AttributeDescription(name: "age", type: .string))
        let changed = try ManagedObjectModel(entities: [person])
        let coordinator = PersistentStoreCoordinator(model: changed)
        try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path), deleteOnModelMismatch: true)
        #expect(try coordinator.store.count(sql: "SELECT COUNT(*) FROM Person", bindings: []) == 0)
    }
}
