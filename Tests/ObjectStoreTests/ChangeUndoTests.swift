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
}
