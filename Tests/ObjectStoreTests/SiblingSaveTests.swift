import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// Issue 16, item 4: two children of one root saving context (what
/// MagicalRecord's save blocks use) change one row; each saves up to the
/// store. The push through the parent merges by property, as a store save
/// does, under each of the five policies: an update is merged or refused,
/// never lost.
@Suite struct SiblingSaveTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Person") {
                Attribute("personID", .integer64, default: .int(0))
                Attribute("firstName", .string)
                Attribute("age", .integer16, default: .int(0))
            }
        }
    }

    /// A root on a store file holding one person (Ann, 30), and two private
    /// children of it, all with `policy`.
    struct Stack {
        let coordinator: PersistentStoreCoordinator
        let root: ManagedObjectContext
        let a: ManagedObjectContext
        let b: ManagedObjectContext
        let directory: String

        init(policy: MergePolicy) throws {
            let path = TestModels.temporaryStorePath()
            directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            coordinator = try TestModels.coordinator(try SiblingSaveTests.model(), path: path)
            root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            root.mergePolicy = policy
            try root.performAndWait { [root] in
                let person = root.insertObject(forEntityName: "Person")
                person["personID"] = .int(1)
                person["firstName"] = .string("Ann")
                person["age"] = .int(30)
                try root.save()
            }
            a = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
            b = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
            a.mergePolicy = policy
            b.mergePolicy = policy
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        /// The stored row, read by a context of its own.
        func stored() throws -> (firstName: Value, age: Value) {
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let person = try #require(try fresh.fetch(FetchRequest(entityName: "Person")).first)
            return (person["firstName"], person["age"])
        }
    }

    static func person(in context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entityName: "Person")).first)
    }

    /// The repro: b sets only age; a sets firstName and saves to the
    /// store; b saves. The row keeps a's firstName and b's age.
    @Test func aSiblingsUpdateOfAnotherPropertyIsNotLost() throws {
        let stack = try Stack(policy: .mergeByPropertyObjectTrump)
        defer { stack.remove() }
        try stack.b.performAndWait { try Self.person(in: stack.b)["age"] = .int(31) }
        try stack.a.performAndWait {
            try Self.person(in: stack.a)["firstName"] = .string("Bea")
            try stack.a.saveUpToStore()
        }
        try stack.b.performAndWait { try stack.b.saveUpToStore() }
        let row = try stack.stored()
        #expect(row.firstName == .string("Bea"))
        #expect(row.age == .int(31))
        // The saving child's object is the merged row too.
        #expect(try stack.b.performAndWait { try Self.person(in: stack.b)["firstName"] } == .string("Bea"))
    }

    /// The same when the first child's changes sit in the parent, unsaved.
    @Test func aSiblingsUnsavedPushIsNotOverwrittenEither() throws {
        let stack = try Stack(policy: .mergeByPropertyObjectTrump)
        defer { stack.remove() }
        try stack.b.performAndWait { try Self.person(in: stack.b)["age"] = .int(31) }
        try stack.a.performAndWait {
            try Self.person(in: stack.a)["firstName"] = .string("Bea")
            try stack.a.save()
        }
        try stack.b.performAndWait { try stack.b.save() }
        try stack.root.performAndWait { try stack.root.save() }
        let row = try stack.stored()
        #expect(row.firstName == .string("Bea"))
        #expect(row.age == .int(31))
    }

    /// Both children change both properties' worth: firstName on both
    /// sides, age only in b. What each policy keeps.
    @Test(arguments: [
        (MergePolicy.mergeByPropertyObjectTrump, "Cid", Int64(31)),
        (MergePolicy.mergeByPropertyStoreTrump, "Bea", Int64(31)),
        (MergePolicy.overwrite, "Cid", Int64(31)),
        (MergePolicy.rollback, "Bea", Int64(30)),
    ])
    func bothChangeOneProperty(policy: MergePolicy, firstName: String, age: Int64) throws {
        let stack = try Stack(policy: policy)
        defer { stack.remove() }
        try stack.b.performAndWait {
            let person = try Self.person(in: stack.b)
            person["age"] = .int(31)
            person["firstName"] = .string("Cid")
        }
        try stack.a.performAndWait {
            try Self.person(in: stack.a)["firstName"] = .string("Bea")
            try stack.a.saveUpToStore()
        }
        try stack.b.performAndWait { try stack.b.saveUpToStore() }
        let row = try stack.stored()
        #expect(row.firstName == .string(firstName))
        #expect(row.age == .int(age))
    }

    /// Under `.error` the second child's save is refused, naming the
    /// object and key, and every context and the store stay as they were.
    @Test func underErrorTheSecondSaveIsRefusedAndNothingChanges() throws {
        let stack = try Stack(policy: .error)
        defer { stack.remove() }
        try stack.b.performAndWait { try Self.person(in: stack.b)["age"] = .int(31) }
        try stack.a.performAndWait {
            try Self.person(in: stack.a)["firstName"] = .string("Bea")
            try stack.a.saveUpToStore()
        }
        try stack.b.performAndWait {
            do {
                try stack.b.saveUpToStore()
                Issue.record("the save should be refused")
            } catch let error as MergeConflictError {
                #expect(error.conflicts.first?.keys == ["firstName"])
                #expect(error.isInParentContext)
                #expect(error.description.contains("changed in the parent context (firstName)"), "\(error)")
            }
            #expect(stack.b.hasChanges)
            #expect(try Self.person(in: stack.b)["age"] == .int(31))
        }
        #expect(!stack.root.performAndWait { stack.root.hasChanges })
        let row = try stack.stored()
        #expect(row.firstName == .string("Bea"))
        #expect(row.age == .int(30))
        // Refreshing the object merges the parent's state in: saves then.
        try stack.b.performAndWait {
            stack.b.refresh(try Self.person(in: stack.b), mergeChanges: true)
            try stack.b.saveUpToStore()
        }
        #expect(try stack.stored().age == .int(31))
    }

    /// A row deleted by a sibling: under the merging policies the delete
    /// wins (nothing comes back); under `.error` the save is refused.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func aRowDeletedBySiblingStaysDeleted(policy: MergePolicy) throws {
        let stack = try Stack(policy: policy)
        defer { stack.remove() }
        try stack.b.performAndWait { try Self.person(in: stack.b)["age"] = .int(31) }
        try stack.a.performAndWait {
            stack.a.delete(try Self.person(in: stack.a))
            try stack.a.saveUpToStore()
        }
        var refused = false
        try stack.b.performAndWait {
            do { try stack.b.saveUpToStore() } catch is MergeConflictError { refused = true }
        }
        #expect(refused == (policy == .error))
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: stack.coordinator)
        #expect(try fresh.count(for: FetchRequest(entityName: "Person")) == 0)
    }

    /// Many rounds of two save blocks at once, each changing its own
    /// property of one row: nothing lost.
    @Test func concurrentSiblingSavesLoseNothing() async throws {
        let stack = try Stack(policy: .mergeByPropertyObjectTrump)
        defer { stack.remove() }
        let rounds = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1" ? 2_000 : 200
        for round in 1...rounds {
            let name = "R\(round)"
            let age = Int64(round % 150)
            try await ConcurrencyTests.concurrently(2) { worker in
                let context = ManagedObjectContext(concurrencyType: .privateQueue, parent: stack.root)
                context.mergePolicy = .mergeByPropertyObjectTrump
                try context.performAndWait {
                    let person = try Self.person(in: context)
                    if worker == 0 { person["firstName"] = .string(name) } else { person["age"] = .int(age) }
                    try context.saveUpToStore()
                }
            }
            let row = try stack.stored()
            try #require(row.firstName == .string(name) && row.age == .int(age), "round \(round): \(row)")
        }
    }
}

/// Many-to-many contents live in a join table: a store save under the
/// property policies merges them with what another process wrote (its
/// additions and removals both survive), as a child's push merges with
/// its parent.
@Suite struct ManyToManyMergeTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Item") {
                Attribute("name", .string)
                ToMany("tags", "Tag", inverse: "items")
            }
            Entity("Tag") {
                Attribute("label", .string)
                ToMany("items", "Item", inverse: "tags")
            }
        }
    }

    static func labels(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let item = try #require(try fresh.fetch(FetchRequest(entityName: "Item")).first)
        return item.objects(forKey: "tags").compactMap { if case .string(let s) = $0["label"] { return s } else { return nil } }.sorted()
    }

    @Test(arguments: [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .error])
    func twoCoordinatorsTaggingOneItemBothLand(policy: MergePolicy) throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let model = try Self.model()
        let first = try TestModels.coordinator(model, path: path)
        let second = try TestModels.coordinator(model, path: path)
        let setup = ManagedObjectContext(concurrencyType: .confined, coordinator: first)
        let item = setup.insertObject(forEntityName: "Item")
        item["name"] = .string("box")
        for label in ["old", "red", "blue"] {
            let tag = setup.insertObject(forEntityName: "Tag")
            tag["label"] = .string(label)
            if label == "old" { item.add(tag, toKey: "tags") }
        }
        try setup.save()

        func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            context.mergePolicy = policy
            return context
        }
        func tag(_ label: String, in context: ManagedObjectContext) throws -> ManagedObject {
            let request = FetchRequest(entityName: "Tag", predicate: try Predicate(format: "label == %@", .string(label)))
            return try #require(try context.fetch(request).first)
        }
        let mine = context(first), theirs = context(second)
        let myItem = try #require(try mine.fetch(FetchRequest(entityName: "Item")).first)
        let theirItem = try #require(try theirs.fetch(FetchRequest(entityName: "Item")).first)
        myItem.add(try tag("red", in: mine), toKey: "tags")
        theirItem.add(try tag("blue", in: theirs), toKey: "tags")
        theirItem.remove(try tag("old", in: theirs), fromKey: "tags")
        try theirs.save()
        if policy == .error {
            #expect(throws: MergeConflictError.self) { try mine.save() }
            #expect(try Self.labels(first) == ["blue"])
            return
        }
        try mine.save()
        #expect(try Self.labels(first) == ["blue", "red"])
    }
}

/// A chain save is one save: when the store level fails (here a required
/// value missing in the root's own changes), the child keeps its changes
/// and the root holds none of them; fixing the cause, it saves.
@Suite struct ChainSaveTests {
    @Test func aChainSaveFailingAtTheStoreLeavesEveryContextAsItWas() throws {
        let model = try ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string).required()
                Attribute("age", .integer16, default: .int(0))
            }
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let root = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let seeded = root.insertObject(forEntityName: "Person")
        seeded["name"] = .string("Ada")
        try root.save()
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let ada = try #require(try child.fetch(FetchRequest(entityName: "Person")).first)
        ada["age"] = .int(37)
        let grace = child.insertObject(forEntityName: "Person")
        grace["name"] = .string("Grace")
        // The root's own pending change cannot be saved: no name.
        let nameless = root.insertObject(forEntityName: "Person")
        #expect(throws: ValidationError.self) { try child.saveUpToStore() }
        #expect(child.insertedObjects.count == 1 && child.updatedObjects.count == 1, "the child keeps its changes")
        #expect(ada["age"] == .int(37) && grace.isInserted)
        #expect(root.insertedObjects.map { $0 === nameless } == [true], "the root holds none of the child's changes")
        #expect(root.updatedObjects.isEmpty)
        let stored = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try stored.count(for: FetchRequest(entityName: "Person")) == 1)
        nameless["name"] = .string("Alan")
        try child.saveUpToStore()
        #expect(try stored.count(for: FetchRequest(entityName: "Person")) == 3)
        #expect(!child.hasChanges && !root.hasChanges)
    }

    /// A relationship naming a new object that is no longer part of any
    /// save (a child's push named it, then the parent undid its insert) is
    /// refused, naming the key, instead of storing a foreign key of
    /// nothing.
    @Test func aDanglingReferenceToAnUnsavedObjectIsRefused() throws {
        let coordinator = PersistentStoreCoordinator(model: try TestModels.people())
        try coordinator.addSQLiteStore(at: nil)
        let root = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let undo = UndoManager()
        root.undoManager = undo
        let department = root.insertObject(forEntityName: "Department")
        department["name"] = .string("Eng")
        undo.endUndoGrouping()
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let person = child.insertObject(forEntityName: "Person")
        person["lastName"] = .string("Ada")
        person.setObject(try #require(try child.fetch(FetchRequest(entityName: "Department")).first), forKey: "department")
        try child.save()
        #expect(undo.undo())
        do {
            try root.save()
            Issue.record("the save should be refused")
        } catch let error as ValidationError {
            #expect(error.failures.first?.key == "department", "\(error)")
            #expect(error.description.contains("names a new Department that is not part of this save"), "\(error)")
        }
        #expect(root.insertedObjects.count == 1, "the failed save keeps the root's changes")
        let stored = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try stored.count(for: FetchRequest(entityName: "Person")) == 0)
    }
}
