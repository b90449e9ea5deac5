import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// A relationship change undone leaves nothing to save: the objects on
/// both sides are not "updated" any more (the shell's prompt goes back to
/// `mrq>` and leaving asks nothing).
@Suite struct ChangeUndoTests {
    @Test func undoingARelationshipChangeLeavesNoChanges() throws {
        let context = try TestModels.seededPeople()
        let undo = UndoManager()
        context.undoManager = undo
        let person = try #require(try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Jones'"))).first)
        let operations = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == 'Operations'"))).first)
        person.setObject(operations, forKey: "department")
        #expect(context.hasChanges)
        undo.endUndoGrouping()
        #expect(undo.undo())
        #expect(!context.hasChanges, "updated: \(context.updatedObjects)")
        #expect(context.updatedObjects.isEmpty)
        // Moving back by hand is no change either.
        let engineering = try #require(person.object(forKey: "department"))
        person.setObject(operations, forKey: "department")
        person.setObject(engineering, forKey: "department")
        #expect(!context.hasChanges)
    }

    /// Undo after a save does not bring back, or relink, an object the
    /// save deleted: its department does not get it back, and nothing is
    /// left to save.
    @Test func undoingASavedDeleteRelinksNothing() throws {
        let context = try TestModels.seededPeople()
        let undo = UndoManager()
        context.undoManager = undo
        let request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Jones'"))
        let jones = try #require(try context.fetch(request).first)
        let engineering = try #require(jones.object(forKey: "department"))
        let before = engineering.objects(forKey: "people").count
        context.delete(jones)
        undo.endUndoGrouping()
        try context.save()
        #expect(undo.undo())
        #expect(engineering.objects(forKey: "people").count == before - 1)
        #expect(!context.hasChanges, "updated: \(context.updatedObjects)")
        #expect(try context.fetch(request).isEmpty)
    }

    /// A to-one whose destination another process deleted reads as an
    /// empty object (every attribute nil), never a crash.
    @Test func aDestinationDeletedByAnotherProcessReadsAsNil() throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let model = try TestModels.people()
        let first = try TestModels.coordinator(model, path: path)
        let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: first)
        let department = setup.insertObject(forEntityName: "Department")
        department["name"] = .string("Eng")
        let person = setup.insertObject(forEntityName: "Person")
        person["lastName"] = .string("Ada")
        person.setObject(department, forKey: "department")
        try setup.save()

        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: first)
        let ada = try #require(try reader.fetch(FetchRequest(entityName: "Person")).first)
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        // A batch delete: the person's foreign key is left pointing at nothing.
        let gone = try #require(try other.fetch(FetchRequest(entityName: "Department")).first)
        try other.persistentStoreCoordinator!.store.withLock {
            try other.persistentStoreCoordinator!.store.database.execute("DELETE FROM \"Department\" WHERE _pk = ?", [.int(gone.objectID.primaryKey)])
        }
        // The key names no row: the relationship reads as nil.
        #expect(ada.object(forKey: "department") == nil)
        #expect(ada.value(forKeyPath: "department.name") == nil)
    }
}
