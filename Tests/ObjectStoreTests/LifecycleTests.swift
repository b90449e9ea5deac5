import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// A note that counts its lifecycle calls and stamps its date on insert.
final class Note: ManagedObject {
    @Managed("title") var title: String?
    @Managed("created") var created: Date?
    @Managed("count") var count: Int32
    @Managed("ratio") var ratio: Double?

    var calls: [String: Int] = [:]
    var events: [String] = []
    var validatedKeys: [String] = []
    /// What the folder relationship held when prepareForDeletion ran.
    var folderAtDeletion: ManagedObject??

    private func record(_ name: String) {
        calls[name, default: 0] += 1
        events.append(name)
    }

    override func awakeFromInsert() {
        record("awakeFromInsert")
        setPrimitiveValue(.date(Date()), forKey: "created")
    }
    override func awakeFromFetch() { record("awakeFromFetch") }
    override func willSave() { record("willSave") }
    override func didSave() { record(isDeleted ? "didSave(deleted)" : "didSave") }
    override func prepareForDeletion() {
        record("prepareForDeletion")
        folderAtDeletion = .some(object(forKey: "folder"))
    }
    override func validateForInsert() throws { record("validateForInsert") }
    override func validateForUpdate() throws { record("validateForUpdate") }
    override func validateForDelete() throws { record("validateForDelete") }
    override func validateValue(_ value: inout Value, forKey key: String) throws {
        validatedKeys.append(key)
        if key == "title", case .string(let s) = value {
            if s == "forbidden" { throw ValidationError(self, key: key, message: "title is forbidden") }
            value = .string(s.trimmingCharacters(in: .whitespaces))
        }
    }
    override func setNilValueForKey(_ key: String) {
        record("setNilValueForKey(\(key))")
        super.setNilValueForKey(key)
    }
}

enum LifecycleModel {
    /// Folder ←→> Note; a folder's notes are Deny, a note's folder Nullify.
    static func make() throws -> ManagedObjectModel {
        let folder = EntityDescription(name: "Folder")
        folder.add(AttributeDescription(name: "name", type: .string, isOptional: false))
        folder.add(RelationshipDescription(name: "notes", destination: "Note", inverse: "folder",
                                           isToMany: true, deleteRule: .deny))
        let note = EntityDescription(name: "Note")
        note.add(AttributeDescription(name: "title", type: .string))
        note.add(AttributeDescription(name: "created", type: .date))
        note.add(AttributeDescription(name: "count", type: .integer32, isOptional: false, defaultValue: .int(7)))
        note.add(AttributeDescription(name: "ratio", type: .double, isOptional: false))
        note.add(RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"))
        let model = try ManagedObjectModel(entities: [folder, note])
        try model.register(Note.self)
        return model
    }

    static func context() throws -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(try make()))
    }
}

@Suite struct LifecycleTests {
    private func note(in context: ManagedObjectContext) -> Note {
        let note = Note(context: context)
        note.ratio = 1
        return note
    }

    @Test func awakeFromInsertFiresOnceThroughChildPushesAndRedo() throws {
        let root = try LifecycleModel.context()
        root.undoManager = UndoManager()
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        child.undoManager = UndoManager()
        let note = note(in: child)
        #expect(note.calls["awakeFromInsert"] == 1)
        #expect(note.created != nil)
        #expect(note.hasChanges)
        child.undoManager!.endUndoGrouping()
        #expect(child.undoManager!.undo())
        #expect(child.undoManager!.redo())
        #expect(note.calls["awakeFromInsert"] == 1)
        try child.save()
        let pushed = try #require(root.registeredObjects.first as? Note)
        #expect(pushed !== note)
        #expect(pushed.calls["awakeFromInsert"] == nil)
        #expect(pushed.created == note.created)
        try root.save()
        #expect(pushed.calls["awakeFromInsert"] == nil)
        #expect(note.calls["awakeFromInsert"] == 1)
    }

    @Test func awakeFromFetchFiresWhenTheFaultIsFilledOnly() throws {
        let context = try LifecycleModel.context()
        let note = note(in: context)
        note.title = "a"
        try context.save()
        #expect(note.calls["awakeFromFetch"] == nil)
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        let found = try other.fetch(FetchRequest(entityName: "Note"))
        let fetched = try #require(found.first as? Note)
        #expect(fetched.isFault)
        #expect(fetched.calls["awakeFromFetch"] == nil)
        #expect(fetched.title == "a")
        #expect(fetched.title == "a")
        #expect(fetched.calls["awakeFromFetch"] == 1)
        let child = ManagedObjectContext(concurrencyType: .confined, parent: other)
        let inChild = try #require(child.object(with: fetched.objectID) as? Note)
        #expect(inChild.title == "a")
        #expect(inChild.calls["awakeFromFetch"] == 1)
        #expect(fetched.calls["awakeFromFetch"] == 1)
    }

    @Test func willSaveAndDidSaveRunOnceForInsertedUpdatedAndDeletedObjects() throws {
        let context = try LifecycleModel.context()
        let a = note(in: context), b = note(in: context), c = note(in: context)
        try context.save()
        for n in [a, b, c] {
            #expect(n.calls["willSave"] == 1 && n.calls["didSave"] == 1)
            #expect(n.calls["validateForInsert"] == 1 && n.calls["validateForUpdate"] == nil)
        }
        b.title = "changed"
        context.delete(c)
        let d = note(in: context)
        try context.save()
        #expect(a.calls["willSave"] == 1 && a.calls["didSave"] == 1)
        #expect(b.calls["willSave"] == 2 && b.calls["didSave"] == 2 && b.calls["validateForUpdate"] == 1)
        #expect(c.calls["willSave"] == 2 && c.calls["didSave(deleted)"] == 1 && c.calls["validateForDelete"] == 1)
        #expect(d.calls["willSave"] == 1 && d.calls["didSave"] == 1 && d.calls["validateForInsert"] == 1)
        #expect(c.events.suffix(3) == ["willSave", "validateForDelete", "didSave(deleted)"])
        #expect(!c.isDeleted && c.managedObjectContext == nil)
        try context.save()
        #expect(b.calls["willSave"] == 2)
    }

    @Test func prepareForDeletionRunsBeforeTheDeleteRules() throws {
        let context = try LifecycleModel.context()
        let folder = context.insertObject(forEntityName: "Folder")
        folder["name"] = .string("inbox")
        let n = note(in: context)
        n.setObject(folder, forKey: "folder")
        try context.save()
        context.delete(n)
        context.delete(n)
        #expect(n.calls["prepareForDeletion"] == 1)
        #expect(n.folderAtDeletion! === folder)
        #expect(folder.objects(forKey: "notes").isEmpty)
    }

    @Test func keyValidationSeesChangedKeysAndReportsWithTheModel() throws {
        let context = try LifecycleModel.context()
        let n = note(in: context)
        n.title = "  padded "
        try context.save()
        #expect(Set(n.validatedKeys) == ["title", "created", "count", "ratio"])
        #expect(n.title == "padded")
        n.validatedKeys = []
        n.title = "forbidden"
        let folder = context.insertObject(forEntityName: "Folder")
        n.setObject(folder, forKey: "folder")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(n.validatedKeys == ["title"])
        #expect(error.failures.map(\.message).sorted() == ["name is required", "title is forbidden"])
    }

    @Test func primitiveValuesBypassChangeTracking() throws {
        let context = try LifecycleModel.context()
        let n = note(in: context)
        try context.save()
        n.setPrimitiveValue(.string("quiet"), forKey: "title")
        #expect(n.primitiveValue(forKey: "title") == .string("quiet"))
        #expect(!n.hasChanges && !context.hasChanges)
        n.title = "loud"
        #expect(n.hasChanges)
    }

    @Test func nilForARequiredScalarGoesToSetNilValueForKey() throws {
        let context = try LifecycleModel.context()
        let n = note(in: context)
        n.count = 3
        n.setValue(nil, forKey: "count")
        #expect(n.count == 7)
        n.ratio = nil
        #expect(n.ratio == 0)
        n.title = nil
        n.setValue(nil, forKey: "created")
        #expect(n.calls["setNilValueForKey(count)"] == 1)
        #expect(n.calls["setNilValueForKey(ratio)"] == 1)
        #expect(n.calls.keys.filter { $0.hasPrefix("setNil") }.count == 2)
        try context.save()
    }

    @Test func validationMessagesUseTheModelsLocalizedNames() throws {
        let context = try LifecycleModel.context()
        context.model.localizationDictionary = [
            "Entity/Folder": "Dossier",
            "Property/name/Entity/Folder": "nom",
            "Property/notes": "notes",
            "ErrorString/nom is required": "le nom est obligatoire",
        ]
        let folder = context.insertObject(forEntityName: "Folder")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.description == "Dossier: le nom est obligatoire")
        folder["name"] = .string("x")
        let n = note(in: context)
        n.setObject(folder, forKey: "folder")
        try context.save()
        context.delete(folder)
        let deny = try #require(throws: ValidationError.self) { try context.save() }
        #expect(deny.description == "Dossier: cannot delete Dossier: its 'notes' still has 1 object (delete rule Deny)")
    }

    /// An insert deleted before any save leaves its context, as in Core
    /// Data (`managedObjectContext` reads nil, deleting it again does
    /// nothing); undoing the delete, one by one or as one action, brings
    /// it back into the context, to be saved.
    @Test func aDeletedInsertLeavesItsContextAndUndoBringsItBack() throws {
        let context = try LifecycleModel.context()
        context.undoManager = UndoManager()
        let n = note(in: context)
        context.undoManager?.endUndoGrouping()
        context.delete(n)
        #expect(n.managedObjectContext == nil)
        #expect(!context.insertedObjects.contains { $0 === n })
        context.delete(n)
        #expect(n.managedObjectContext == nil)
        context.undoManager?.endUndoGrouping()
        context.undoManager?.undo()
        #expect(n.managedObjectContext === context)
        #expect(n.isInserted && !n.isDeleted)
        context.undoingAsOneAction { context.delete(n) }
        #expect(n.managedObjectContext == nil)
        context.undoManager?.undo()
        #expect(n.managedObjectContext === context)
        #expect(n.isInserted)
        try context.save()
        #expect(n.managedObjectContext === context && !n.isInserted)
        #expect(try context.count(for: FetchRequest(entityName: "Note")) == 1)
    }

    /// An insert deleted before any save leaves the context; under Deny
    /// its notes kept pointing at it, and reading their folder then
    /// trapped (a fault for an object that exists nowhere).
    @Test func deletingAnInsertUnderDenyLeavesNoDanglingReference() throws {
        let context = try LifecycleModel.context()
        context.undoManager = UndoManager()
        let folder = context.insertObject(forEntityName: "Folder")
        folder["name"] = .string("x")
        let n = note(in: context)
        n.setObject(folder, forKey: "folder")
        context.undoManager?.endUndoGrouping()
        context.delete(folder)
        #expect(n.object(forKey: "folder") == nil)
        context.undoManager?.endUndoGrouping()
        context.undoManager?.undo()
        #expect(n.object(forKey: "folder") === folder)
        #expect(folder.objects(forKey: "notes").map { $0 === n } == [true])
    }
}
