import Foundation
@testable import ObjectStore
import Predicates
import Synchronization
import Testing

/// Issue 35: a save builds the saved state of its objects (a snapshot per
/// object) only for those who merge it. What every other context and
/// observer sees of a save stays as it was: these pin it down.
@Suite struct SavePayloadTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Person") {
                Attribute("personID", .integer64, default: .int(0))
                Attribute("firstName", .string, optional: false, default: .string(""))
                Attribute("age", .integer16, default: .int(0))
            }
        }
    }

    /// A confined root on a fresh store, and the directory to remove.
    static func root() throws -> (ManagedObjectContext, directory: String) {
        let path = TestModels.temporaryStorePath()
        let coordinator = try TestModels.coordinator(try model(), path: path)
        let root = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        return (root, URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    @discardableResult
    static func insert(_ id: Int64, _ name: String, age: Int64 = 30, in context: ManagedObjectContext) -> ManagedObject {
        let person = context.insertObject(forEntityName: "Person")
        person["personID"] = .int(id)
        person["firstName"] = .string(name)
        person["age"] = .int(age)
        return person
    }

    static func person(_ id: Int64, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "personID == %@", .int(id)))
        return try #require(try context.fetch(request).first)
    }

    /// A child that nobody hears saves into the root, the root saves: the
    /// child's objects have permanent IDs, and a later change of one saves
    /// through both levels without a version conflict.
    @Test func childSaveThenRootSaveGivesPermanentIDsAndWorkingVersions() throws {
        let (root, directory) = try Self.root()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        root.mergePolicy = .error
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        child.mergePolicy = .error
        let people = (1...3).map { Self.insert(Int64($0), "P\($0)", in: child) }
        try child.save()
        try root.save()
        #expect(people.allSatisfy { !$0.objectID.isTemporaryID })
        #expect(!child.hasChanges && !root.hasChanges)
        people[1]["age"] = .int(41)
        try child.saveUpToStore()
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: root.persistentStoreCoordinator!)
        #expect(try Self.person(2, in: fresh)["age"] == .int(41))
        #expect(try Self.person(2, in: fresh).version == 2)
    }

    /// A sibling that merges automatically sees the values another child
    /// pushed into their parent, on the object it holds.
    @Test func siblingThatMergesSeesAnotherChildsSave() throws {
        let (root, directory) = try Self.root()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        Self.insert(1, "Ann", in: root)
        try root.save()
        let writer = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let reader = ManagedObjectContext(concurrencyType: .confined, parent: root)
        reader.automaticallyMergesChangesFromParent = true
        let held = try Self.person(1, in: reader)
        #expect(held["age"] == .int(30))
        try Self.person(1, in: writer)["age"] = .int(31)
        try writer.save()
        #expect(held["age"] == .int(31))
        #expect(!reader.hasChanges)
    }

    /// A root's save reaches its children that merge automatically with
    /// the saved values and row versions; one that does not merge keeps
    /// its values and only renames the new objects.
    @Test func rootSaveReachesMergingChildrenWithValuesAndVersions() throws {
        let (root, directory) = try Self.root()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        Self.insert(1, "Ann", in: root)
        try root.save()
        let merging = ManagedObjectContext(concurrencyType: .confined, parent: root)
        merging.automaticallyMergesChangesFromParent = true
        let still = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let heldMerging = try Self.person(1, in: merging)
        let heldStill = try Self.person(1, in: still)
        try Self.person(1, in: root)["age"] = .int(32)
        try root.save()
        #expect(heldMerging["age"] == .int(32))
        #expect(heldMerging.version == 2)
        #expect(heldStill["age"] == .int(30))
    }

    /// The parent's save observers hear a child's save with its IDs, and
    /// can merge its saved state into a context of their own.
    @Test func parentObserverHearsChildSaveAndCanMerge() throws {
        let (root, directory) = try Self.root()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        Self.insert(1, "Ann", in: root)
        try root.save()
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let other = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let held = try Self.person(1, in: other)
        let heard = Mutex<ContextDidSaveNotification?>(nil)
        let token = root.addDidSaveObserver { note in heard.withLock { $0 = note } }
        defer { root.removeDidSaveObserver(token) }
        Self.insert(2, "Bo", in: child)
        try Self.person(1, in: child)["firstName"] = .string("Anna")
        try child.save()
        let note = try #require(heard.withLock { $0 })
        #expect(note.insertedObjectIDs.count == 1)
        #expect(note.updatedObjectIDs.count == 1)
        other.mergeChanges(fromContextDidSave: note)
        #expect(held["firstName"] == .string("Anna"))
    }

    /// `lastSaveObjectCount` counts what a save wrote, as the notification
    /// lists it, and a failed save leaves it and the context as they were.
    @Test func lastSaveObjectCountCountsWritesAndAFailedSaveKeepsIt() throws {
        let (root, directory) = try Self.root()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ann = Self.insert(1, "Ann", in: root)
        let bo = Self.insert(2, "Bo", in: root)
        Self.insert(3, "Cy", in: root)
        try root.save()
        #expect(root.lastSaveObjectCount == 3)
        ann["age"] = .int(40)
        root.delete(bo)
        try root.save()
        #expect(root.lastSaveObjectCount == 2)
        // A save with nothing to write counts nothing, not the last one's.
        try root.save()
        #expect(root.lastSaveObjectCount == 0)
        let eve = Self.insert(5, "Eve", in: root)
        root.delete(eve)
        try root.save()
        #expect(root.lastSaveObjectCount == 0)

        // A child's push, then a root save that fails on an object of the
        // root's own: the child's objects keep their temporary IDs and the
        // root keeps its changes.
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let dee = Self.insert(4, "Dee", in: child)
        let invalid = root.insertObject(forEntityName: "Person")
        invalid["firstName"] = .null
        #expect(throws: (any Error).self) { try child.saveUpToStore() }
        #expect(dee.objectID.isTemporaryID)
        #expect(child.hasChanges)
        #expect(root.lastSaveObjectCount == 0)
        root.delete(invalid)
        try child.saveUpToStore()
        #expect(!dee.objectID.isTemporaryID)
        #expect(root.lastSaveObjectCount == 1)
    }
}
