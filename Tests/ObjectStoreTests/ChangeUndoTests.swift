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
}
