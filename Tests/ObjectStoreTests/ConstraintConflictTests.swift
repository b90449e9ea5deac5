import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// Issue 16, item 5: a save that breaks a uniqueness constraint is a
/// constraint conflict the merge policy sees (Core Data's
/// NSConstraintConflict), never a raw SQLite error; a failed save leaves
/// every context of the chain as it was, so the next save works.
@Suite struct ConstraintConflictTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Department") {
                Attribute("code", .string)
                Attribute("name", .string)
                Attribute("budget", .double, default: .double(0))
                ToMany("people", "Person", inverse: "department")
                Unique("code")
            }
            Entity("Person") {
                Attribute("personID", .integer64, default: .int(0))
                Attribute("name", .string)
                Attribute("email", .string)
                Attribute("age", .integer16, default: .int(0))
                ToOne("department", "Department", inverse: "people")
                Unique("personID")
            }
        }
    }

    /// A store (file, XML or PostgreSQL) with Ada (personID 1, 36, ada@example.com)
    /// in Engineering (ENG, budget 100).
    struct Store {
        let coordinator: PersistentStoreCoordinator
        let directory: String

        init(type: PersistentStoreType = .sqlite) throws {
            let path = TestModels.temporaryStorePath()
            directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            coordinator = PersistentStoreCoordinator(model: try ConstraintConflictTests.model())
            let url = type == .postgres ? URL(string: try PostgresServer.shared().createDatabase())!
                : URL(fileURLWithPath: type == .xml ? path + ".xml" : path)
            try coordinator.addPersistentStore(type: type, at: url)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let eng = context.insertObject(forEntityName: "Department")
            eng["code"] = .string("ENG")
            eng["name"] = .string("Engineering")
            eng["budget"] = .double(100)
            let ada = context.insertObject(forEntityName: "Person")
            ada["personID"] = .int(1)
            ada["name"] = .string("Ada")
            ada["email"] = .string("ada@example.com")
            ada["age"] = .int(36)
            ada.setObject(eng, forKey: "department")
            try context.save()
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        func context(_ policy: MergePolicy) -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            context.mergePolicy = policy
            return context
        }

        /// Every stored row of `entity`, as name → value per attribute.
        func rows(_ entity: String, sortedBy key: String) throws -> [[String: Value]] {
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            var request = FetchRequest(entityName: entity)
            request.sortDescriptors = [SortKey(keyPath: [key], ascending: true)]
            return try fresh.fetch(request).map { object in
                var row = Dictionary(uniqueKeysWithValues: object.entity.attributes.map { ($0.name, object[$0.name]) })
                if let department = object.entity.relationship(named: "department"), department.isToOne {
                    row["department"] = object.object(forKey: "department")?["code"] ?? .null
                }
                return row
            }
        }
    }

    static func newPerson(_ id: Int64, _ name: String, in context: ManagedObjectContext) -> ManagedObject {
        let person = context.insertObject(forEntityName: "Person")
        person["personID"] = .int(id)
        person["name"] = .string(name)
        return person
    }

    @Test(arguments: [PersistentStoreType.sqlite, .xml, .postgres])
    func underErrorADuplicateIsANamedConflictAndNothingChanges(type: PersistentStoreType) throws {
        let store = try Store(type: type)
        defer { store.remove() }
        let context = store.context(.error)
        let duplicate = Self.newPerson(1, "Alan", in: context)
        do {
            try context.save()
            Issue.record("the save should be refused")
        } catch let error as ConstraintConflictError {
            let conflict = try #require(error.conflicts.first)
            #expect(conflict.entity == "Person")
            #expect(conflict.constraint == ["personID"])
            #expect(conflict.values == [.int(1)])
            #expect(conflict.objectIDs == [duplicate.objectID])
            #expect(conflict.existingObjectID != nil)
            #expect(error.description.hasPrefix("uniqueness constraint conflict: Person.personID = 1 (a saved object and the stored Person (row "),
                    "\(error)")
        }
        #expect(duplicate.isInserted && context.hasChanges, "the failed save keeps the context as it was")
        #expect(try store.rows("Person", sortedBy: "personID").map { $0["name"] } == [.string("Ada")])
        // The next, unrelated save works.
        context.rollback()
        _ = Self.newPerson(2, "Grace", in: context)
        try context.save()
        #expect(try store.rows("Person", sortedBy: "personID").count == 2)
    }

    /// Under the object-trump policy a duplicate is an upsert: the new
    /// object's values land in the existing row, which keeps the values
    /// the new object was not given; the new object becomes that row.
    @Test(arguments: [PersistentStoreType.sqlite, .xml, .postgres])
    func underObjectTrumpADuplicateUpdatesTheExistingRow(type: PersistentStoreType) throws {
        let store = try Store(type: type)
        defer { store.remove() }
        let context = store.context(.mergeByPropertyObjectTrump)
        let duplicate = Self.newPerson(1, "Ada King", in: context)
        try context.save()
        let rows = try store.rows("Person", sortedBy: "personID")
        #expect(rows.count == 1)
        #expect(rows[0]["name"] == .string("Ada King"))
        #expect(rows[0]["email"] == .string("ada@example.com"))
        #expect(rows[0]["age"] == .int(36))
        #expect(rows[0]["department"] == .string("ENG"))
        #expect(!duplicate.objectID.isTemporaryID)
        #expect(duplicate.managedObjectContext === context)
        #expect(duplicate["email"] == .string("ada@example.com"))
        #expect(!context.hasChanges)
    }

    @Test(arguments: [
        (MergePolicy.mergeByPropertyStoreTrump, "Ada"), (.rollback, "Ada"), (.overwrite, "Ada King"),
    ])
    func otherPoliciesMergeTheDuplicateTheirWay(policy: MergePolicy, name: String) throws {
        let store = try Store()
        defer { store.remove() }
        let context = store.context(policy)
        _ = Self.newPerson(1, "Ada King", in: context)
        try context.save()
        let rows = try store.rows("Person", sortedBy: "personID")
        #expect(rows.count == 1)
        #expect(rows[0]["name"] == .string(name))
        // Overwrite takes the whole new object: its nil email and default age.
        #expect(rows[0]["email"] == (policy == .overwrite ? .null : .string("ada@example.com")))
    }

    @Test func twoNewObjectsWithOneKeyBecomeOne() throws {
        let store = try Store()
        defer { store.remove() }
        let context = store.context(.mergeByPropertyObjectTrump)
        let first = Self.newPerson(5, "Kim", in: context)
        first["email"] = .string("kim@example.com")
        _ = Self.newPerson(5, "Kim Lee", in: context)
        try context.save()
        let rows = try store.rows("Person", sortedBy: "personID")
        #expect(rows.map { $0["personID"] } == [.int(1), .int(5)])
        #expect(rows[1]["name"] == .string("Kim Lee"))
        #expect(rows[1]["email"] == .string("kim@example.com"))
    }

    /// Objects that named a merged new object name the row it became.
    @Test func relationshipsToADuplicateMoveToTheExistingRow() throws {
        let store = try Store()
        defer { store.remove() }
        let context = store.context(.mergeByPropertyObjectTrump)
        let department = context.insertObject(forEntityName: "Department")
        department["code"] = .string("ENG")
        let grace = Self.newPerson(2, "Grace", in: context)
        grace.setObject(department, forKey: "department")
        try context.save()
        let departments = try store.rows("Department", sortedBy: "code")
        #expect(departments.count == 1)
        #expect(departments[0]["name"] == .string("Engineering"))
        #expect(departments[0]["budget"] == .double(100))
        #expect(try store.rows("Person", sortedBy: "personID").map { $0["department"] } == [.string("ENG"), .string("ENG")])
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: store.coordinator)
        let eng = try #require(try fresh.fetch(FetchRequest(entityName: "Department")).first)
        #expect(eng.objects(forKey: "people").count == 2)
    }

    @Test func rowsTradingTheirValuesInOneSaveAreNoConflict() throws {
        let store = try Store()
        defer { store.remove() }
        let setup = store.context(.error)
        _ = Self.newPerson(2, "Grace", in: setup)
        try setup.save()
        let context = store.context(.error)
        let people = try context.fetch(FetchRequest(entityName: "Person"))
        for person in people { person["personID"] = .int(person["personID"] == .int(1) ? 2 : 1) }
        try context.save()
        #expect(try store.rows("Person", sortedBy: "personID").map { $0["name"] } == [.string("Grace"), .string("Ada")])
    }

    /// An update taking another stored row's values cannot merge without
    /// deleting one of them: refused under every policy.
    @Test func anUpdateIntoAnotherRowsValuesIsRefused() throws {
        let store = try Store()
        defer { store.remove() }
        let setup = store.context(.error)
        _ = Self.newPerson(2, "Grace", in: setup)
        try setup.save()
        let context = store.context(.mergeByPropertyObjectTrump)
        let request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "personID == 2"))
        let grace = try #require(try context.fetch(request).first)
        grace["personID"] = .int(1)
        #expect(throws: ConstraintConflictError.self) { try context.save() }
        #expect(grace["personID"] == .int(1) && context.hasChanges)
        #expect(try store.rows("Person", sortedBy: "personID").map { $0["personID"] } == [.int(1), .int(2)])
    }

    /// The repro: a child of a root saving context saves a duplicate up to
    /// the store under `.error`. The failure leaves the root without the
    /// insert, so after the child's rollback other saves work.
    @Test func aFailedChainSaveLeavesTheRootAsItWas() throws {
        let store = try Store()
        defer { store.remove() }
        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: store.coordinator)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
        child.performAndWait {
            _ = Self.newPerson(1, "Alan", in: child)
            #expect(throws: ConstraintConflictError.self) { try child.saveUpToStore() }
            #expect(child.insertedObjects.count == 1, "the child keeps its insert")
        }
        #expect(!root.performAndWait { root.hasChanges }, "the root is as it was")
        try child.performAndWait {
            child.rollback()
            _ = Self.newPerson(3, "Edsger", in: child)
            try child.saveUpToStore()
        }
        #expect(try store.rows("Person", sortedBy: "personID").map { $0["personID"] } == [.int(1), .int(3)])
    }

    /// Under the merging policies, a duplicate saved through a child is an
    /// upsert too, and the child's object becomes the stored row.
    @Test func aDuplicateSavedThroughAChildUpdatesTheRow() throws {
        let store = try Store()
        defer { store.remove() }
        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: store.coordinator)
        root.mergePolicy = .mergeByPropertyObjectTrump
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
        child.mergePolicy = .mergeByPropertyObjectTrump
        let storedID = try child.performAndWait {
            let alan = Self.newPerson(1, "Ada Lovelace", in: child)
            try child.saveUpToStore()
            return alan.objectID
        }
        let rows = try store.rows("Person", sortedBy: "personID")
        #expect(rows.count == 1 && rows[0]["name"] == .string("Ada Lovelace") && rows[0]["age"] == .int(36))
        #expect(!storedID.isTemporaryID)
    }
}
