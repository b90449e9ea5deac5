import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

@Suite struct BatchRequestTests {
    /// Two departments of three people each; everyone tagged "all", the
    /// first of each department tagged "lead" too.
    private func seeded() throws -> ManagedObjectContext {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let all = context.insertObject(forEntityName: "Tag")
        all["label"] = .string("all")
        let lead = context.insertObject(forEntityName: "Tag")
        lead["label"] = .string("lead")
        for (d, name) in ["Engineering", "Operations"].enumerated() {
            let department = context.insertObject(forEntityName: "Department")
            department["name"] = .string(name)
            for i in 0..<3 {
                let person = context.insertObject(forEntityName: "Person")
                person["lastName"] = .string("\(name.prefix(3))\(i)")
                person["age"] = .int(Int64(20 + d * 10 + i))
                person.setObject(department, forKey: "department")
                person.add(all, toKey: "tags")
                if i == 0 { person.add(lead, toKey: "tags") }
            }
        }
        try context.save()
        return ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
    }

    private func fetch(_ context: ManagedObjectContext, _ entity: String, _ format: String = "TRUEPREDICATE") throws -> [ManagedObject] {
        var request = FetchRequest(entityName: entity, predicate: try Predicate(format: format))
        request.sortDescriptors = try SortSpec.parse(entity == "Person" ? "lastName" : entity == "Tag" ? "label" : "name")
        return Array(try context.fetch(request))
    }

    @Test func aBatchUpdateIsSeenByALiveContextAfterMerging() throws {
        let live = try seeded()
        let people = try fetch(live, "Person")
        let eng0 = people[0]
        #expect(eng0["age"] == .int(20))
        let stale = ManagedObjectContext(concurrencyType: .confined, coordinator: live.persistentStoreCoordinator!)
        let staleEng1 = try fetch(stale, "Person", "lastName == 'Eng1'")[0]
        staleEng1["firstName"] = .string("stale")
        // Unsaved changes of the live context stay on top of the merge.
        people[2]["firstName"] = .string("mine")

        var request = BatchUpdateRequest(
            entityName: "Person", predicate: try Predicate(format: "department.name == 'Engineering'"),
            propertiesToUpdate: [
                "age": .expression(try Expression(format: "age + 1")),
                "active": .value(.bool(false)),
            ])
        request.resultType = .updatedObjectIDs
        let result = try live.execute(request)
        #expect(result.count == 3)
        #expect(Set(result.objectIDs ?? []) == Set(people.prefix(3).map(\.objectID)))
        // Not loaded: the live objects are stale until the merge.
        #expect(eng0["age"] == .int(20))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [live])
        #expect(people.prefix(3).map { $0["age"] } == [.int(21), .int(22), .int(23)])
        #expect(people.prefix(3).map { $0["active"] } == [.bool(false), .bool(false), .bool(false)])
        #expect(people[3]["age"] == .int(30) && people[3]["active"] == .bool(true))
        #expect(people[2]["firstName"] == .string("mine") && people[2].hasChanges)
        try live.save()
        // The version moved: the stale copy conflicts.
        #expect(throws: MergeConflictError.self) { try stale.save() }
    }

    @Test func aResidualPredicateAndAnInMemoryExpressionStillUpdateInSQL() throws {
        let live = try seeded()
        // Division is evaluated in memory, by the reference evaluator.
        let request = BatchUpdateRequest(
            entityName: "Person", predicate: try Predicate(format: "age / 2 >= 15"),
            propertiesToUpdate: ["lastName": .expression(try Expression(format: "uppercase:(lastName)"))])
        let result = try live.execute(request)
        #expect(result.count == 3)
        #expect(try fetch(live, "Person", "age >= 30").map { $0["lastName"] } == [.string("OPE0"), .string("OPE1"), .string("OPE2")])
        #expect(try fetch(live, "Person", "age < 30").map { $0["lastName"] } == [.string("Eng0"), .string("Eng1"), .string("Eng2")])
        let nothing = try live.execute(BatchUpdateRequest(entityName: "Person", predicate: try Predicate(format: "age > 99"),
                                                          propertiesToUpdate: ["age": .value(.int(1))]))
        #expect(nothing.count == 0)
        #expect(throws: StoreError.self) {
            try live.execute(BatchUpdateRequest(entityName: "Person", propertiesToUpdate: ["agee": .value(.int(1))]))
        }
        // A value the attribute cannot hold is a validation error (it was
        // .notFound), and nothing is written.
        let tooOld = #expect(throws: StoreError.self) {
            try live.execute(BatchUpdateRequest(entityName: "Person", predicate: try Predicate(format: "age / 2 >= 15"),
                                                propertiesToUpdate: ["age": .expression(try Expression(format: "age * 10000"))]))
        }
        #expect(tooOld?.kind == .validation)
        #expect(tooOld?.message.hasPrefix("'age * 10000' gives 300000 for a Person, which Integer 16 attribute 'age' cannot hold") == true,
                "\(String(describing: tooOld))")
        #expect(try fetch(live, "Person", "age >= 30").map { $0["age"] } == [.int(30), .int(31), .int(32)])
    }

    @Test func aBatchDeleteCascadesAndNullifiesInSQL() throws {
        let live = try seeded()
        let tags = try fetch(live, "Tag")
        #expect(tags.map { $0.objects(forKey: "people").count } == [6, 2])
        let ops = try fetch(live, "Department", "name == 'Operations'")[0]
        #expect(ops.objects(forKey: "people").count == 3)
        var request = BatchDeleteRequest(entityName: "Department", predicate: try Predicate(format: "name == 'Engineering'"))
        request.resultType = .deletedObjectIDs
        let result = try live.execute(request)
        #expect(result.count == 1)
        #expect(result.changes.deleted.count == 4)
        #expect(Set(result.changes.updated) == Set(tags.map(\.objectID)))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [live])
        #expect(tags.map { $0.objects(forKey: "people").count } == [3, 1])
        #expect(try fetch(live, "Person").map { $0["lastName"] } == [.string("Ope0"), .string("Ope1"), .string("Ope2")])

        // Nullify: a deleted person leaves its department's to-many.
        let ope1 = try fetch(live, "Person", "lastName == 'Ope1'")[0]
        let deleted = try live.execute(BatchDeleteRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Ope1'")))
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: deleted.changes, into: [live])
        #expect(ope1.managedObjectContext == nil)
        #expect(ops.objects(forKey: "people").map { $0["lastName"] } .sorted { "\($0)" < "\($1)" } == [.string("Ope0"), .string("Ope2")])
        #expect(tags[0].objects(forKey: "people").count == 2)
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: live.persistentStoreCoordinator!)
        #expect(try fetch(fresh, "Department").count == 1)
        #expect(try fetch(fresh, "Tag").map { $0.objects(forKey: "people").count } == [2, 1])
    }

    @Test func aBatchDeleteRefusesWhenADenyRelationshipStillHoldsObjects() throws {
        let context = try LifecycleModel.context()
        context.model.localizationDictionary = ["Entity/Folder": "Dossier"]
        let folder = context.insertObject(forEntityName: "Folder")
        folder["name"] = .string("inbox")
        let empty = context.insertObject(forEntityName: "Folder")
        empty["name"] = .string("empty")
        let note = Note(context: context)
        note.ratio = 1
        note.setObject(folder, forKey: "folder")
        try context.save()
        let error = try #require(throws: ValidationError.self) {
            try context.execute(BatchDeleteRequest(entityName: "Folder"))
        }
        #expect(error.description == "Dossier: cannot delete Dossier: its 'notes' still has 1 object (delete rule Deny)")
        #expect(try context.count(for: FetchRequest(entityName: "Folder")) == 2)
        // Deleting the notes too (they go first, in the same world) is fine.
        _ = try context.execute(BatchDeleteRequest(entityName: "Note"))
        let result = try context.execute(BatchDeleteRequest(entityName: "Folder"))
        #expect(result.count == 2)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
        #expect(try context.count(for: FetchRequest(entityName: "Folder")) == 0)
    }
}
