import Foundation
import Testing
@testable import ObjectStore
import Predicates

@Suite struct StoreRoundTripTests {
    @Test func savedObjectsComeBackInANewContextWithTheirRelationships() throws {
        let path = TestModels.temporaryStorePath()
        let model = try TestModels.people()
        do {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
            let eng = context.insertObject(forEntityName: "Department")
            eng["name"] = .string("Engineering")
            let ada = context.insertObject(forEntityName: "Person")
            ada["firstName"] = .string("Ada")
            ada["age"] = .int(36)
            ada["born"] = .date(Date(timeIntervalSince1970: -4_000_000_000))
            ada["photo"] = .data(Data([1, 2, 3]))
            ada.setObject(eng, forKey: "department")
            let boss = context.insertObject(forEntityName: "Manager")
            boss["firstName"] = .string("Grace")
            boss.add(ada, toKey: "reports")
            boss.setObject(eng, forKey: "department")
            #expect(eng.objects(forKey: "people").count == 2)
            #expect(ada.objectID.isTemporaryID)
            try context.save()
            #expect(!ada.objectID.isTemporaryID)
            #expect(!context.hasChanges)
        }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        let store = context.persistentStoreCoordinator!.store
        let ids = try store.objectIDs(sql: "SELECT _pk, _ent FROM Person ORDER BY _pk", bindings: [], root: model.entity(named: "Person")!)
        #expect(ids.count == 2)
        #expect(ids.map(\.entity.name) == ["Person", "Manager"])
        let ada = try context.existingObject(with: ids[0])
        #expect(ada["firstName"] == .string("Ada"))
        #expect(ada["age"] == .int(36))
        #expect(ada["photo"] == .data(Data([1, 2, 3])))
        #expect(ada["born"] == .date(Date(timeIntervalSince1970: -4_000_000_000)))
        #expect(ada["active"] == .bool(true))
        let department = try #require(ada.object(forKey: "department"))
        #expect(department["name"] == .string("Engineering"))
        #expect(department.objects(forKey: "people").count == 2)
        let boss = context.object(with: ids[1])
        #expect(boss.objects(forKey: "reports").map { $0.objectID } == [ada.objectID])
        #expect(boss["level"] == .int(1))
    }

    /// Names SQLite cannot tell apart — attributes `name` and `Name`,
    /// entities `Bar` and `bar`, an entity named as a join table — get
    /// tables and columns of their own; every value comes back.
    @Test func namesDifferingOnlyInCaseGetTablesAndColumnsOfTheirOwn() throws {
        let upper = EntityDescription(name: "Bar")
        upper.add(AttributeDescription(name: "name", type: .string))
        upper.add(AttributeDescription(name: "Name", type: .string))
        upper.add(AttributeDescription(name: "_PK", type: .integer64))
        upper.add(RelationshipDescription(name: "friends", destination: "Bar", inverse: "friends", isToMany: true))
        let lower = EntityDescription(name: "bar")
        lower.add(AttributeDescription(name: "y", type: .integer64))
        let joinNamed = EntityDescription(name: "Bar_friends")
        joinNamed.add(AttributeDescription(name: "z", type: .integer64))
        let model = try ManagedObjectModel(entities: [upper, lower, joinNamed])
        let mapping = try SchemaMapping(model: model)
        let tables = mapping.allTables.map(\.name.unquoted) + mapping.allJoinTables.map(\.name.unquoted)
        #expect(Set(tables.map { $0.lowercased() }).count == tables.count, "\(tables)")
        let columns = mapping.table(for: upper).columns.map(\.name.unquoted) + ["_pk", "_opt"]
        #expect(Set(columns.map { $0.lowercased() }).count == columns.count, "\(columns)")
        let path = TestModels.temporaryStorePath()
        do {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
            let a = context.insertObject(forEntityName: "Bar")
            a["name"] = .string("lower")
            a["Name"] = .string("upper")
            a["_PK"] = .int(7)
            let b = context.insertObject(forEntityName: "Bar")
            a.add(b, toKey: "friends")
            context.insertObject(forEntityName: "bar")["y"] = .int(2)
            context.insertObject(forEntityName: "Bar_friends")["z"] = .int(3)
            try context.save()
        }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        let named = try context.fetch(FetchRequest(entityName: "Bar", predicate: try Predicate(format: "name == 'lower'")))
        #expect(named.count == 1)
        #expect(named.first?["Name"] == .string("upper"))
        #expect(named.first?["_PK"] == .int(7))
        #expect(named.first?.objects(forKey: "friends").count == 1)
        #expect(try context.fetch(FetchRequest(entityName: "bar")).map { $0["y"] } == [.int(2)])
        #expect(try context.fetch(FetchRequest(entityName: "Bar_friends")).map { $0["z"] } == [.int(3)])
    }

    /// An attribute marked indexed gets an index in both layouts, used by
    /// a query on it; one a uniqueness constraint already leads with gets
    /// none more; and marking it leaves the fingerprint as it was, so a
    /// store made before such indexes were created opens without a
    /// migration.
    @Test func indexedAttributesGetAnIndexWithoutChangingTheFingerprint() throws {
        func model(indexed: Bool) throws -> ManagedObjectModel {
            let person = EntityDescription(name: "Person")
            let name = AttributeDescription(name: "name", type: .string)
            name.isIndexed = indexed
            person.add(name)
            let email = AttributeDescription(name: "email", type: .string)
            email.isIndexed = indexed
            person.add(email)
            person.uniquenessConstraints = [["email"]]
            return try ManagedObjectModel(entities: [person])
        }
        let plain = try model(indexed: false), indexed = try model(indexed: true)
        #expect(try SchemaBuilder.fingerprint(of: plain)
                == SchemaBuilder.fingerprint(of: indexed))
        for layout in SchemaMapping.Layout.allCases {
            let url = URL(fileURLWithPath: TestModels.temporaryStorePath())
            var options = PersistentStoreOptions()
            options.layout = layout
            let coordinator = PersistentStoreCoordinator(model: indexed)
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let db = try Database(path: url.path, readOnly: true)
            let table = layout == .mrq ? "Person" : "ZPERSON", column = layout == .mrq ? "name" : "ZNAME"
            let indexes = try db.rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                      [.string(table)]).compactMap { row -> String? in
                if case .string(let sql) = row[0] { return sql } else { return nil }
            }
            #expect(indexes.filter { $0.contains("(\"\(column)\")") || $0.contains("(\"\(column)\" ") }.count == 1, "\(layout): \(indexes)")
            #expect(indexes.filter { $0.lowercased().contains("email") }.count == 1, "\(layout): \(indexes)")
            let plan = try db.rows("EXPLAIN QUERY PLAN SELECT * FROM \(table) WHERE \(column) = 'Ada'").map { "\($0)" }.joined()
            #expect(plan.contains("USING INDEX"), "\(layout): \(plan)")
        }
        // A store of the unindexed model opens with the indexed one as it is.
        let path = TestModels.temporaryStorePath()
        _ = try TestModels.coordinator(plain, path: path)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(indexed, path: path))
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 0)
    }

    /// Strings reach SQLite byte for byte: empty is not NULL, long and
    /// short ones, non-ASCII and embedded NUL come back unchanged.
    @Test func stringsKeepEveryByteThroughTheStore() throws {
        let path = TestModels.temporaryStorePath()
        let model = try TestModels.people()
        let texts = ["", "a", "fifteen chars!!", "sixteen chars!!!", "Zoë 日本 🎉", "nul\u{0}inside", String(repeating: "x", count: 5000)]
        do {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
            for (i, text) in texts.enumerated() {
                let person = context.insertObject(forEntityName: "Person")
                person["firstName"] = .string(text)
                person["age"] = .int(Int64(i))
            }
            try context.save()
        }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        let people = try context.fetch(FetchRequest(entityName: "Person", sortDescriptors: try SortSpec.parse("age")))
        #expect(people.map { $0["firstName"] } == texts.map { .string($0) })
        let empty = try context.count(for: FetchRequest(entityName: "Person", predicate: try Predicate(format: "firstName == ''")))
        #expect(empty == 1)
    }

    /// An object already changed skips telling its context of further
    /// writes only while nobody listens: an undo manager or an observer set
    /// later still hears every one.
    @Test func writesToAChangedObjectReachUndoAndObserversAddedLater() throws {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined,
                                           coordinator: try TestModels.coordinator(model, path: TestModels.temporaryStorePath()))
        let ada = context.insertObject(forEntityName: "Person")
        ada["firstName"] = .string("Ada")
        try context.save()
        ada["age"] = .int(1)      // now in the change set, nobody listening
        ada["age"] = .int(2)
        context.undoManager = UndoManager()
        ada["age"] = .int(3)
        context.undoManager?.undo()
        #expect(ada["age"] == .int(2))
        context.undoManager = nil
        var updated: [ManagedObject] = []
        let token = context.addObjectsDidChangeObserver { updated += $0.updatedObjects }
        context.processPendingChanges()
        updated.removeAll()
        ada["age"] = .int(4)
        context.processPendingChanges()
        #expect(updated.count == 1 && updated.first === ada)
        context.removeObjectsDidChangeObserver(token)
        ada["age"] = .int(5)
        #expect(ada["age"] == .int(5) && ada.isUpdated && context.hasChanges)
    }

    @Test func aFailedSaveChangesNeitherTheStoreNorTheContext() throws {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let good = context.insertObject(forEntityName: "Department")
        good["name"] = .string("Ok")
        _ = context.insertObject(forEntityName: "Department")  // name is required
        #expect(throws: ValidationError.self) { try context.save() }
        #expect(context.insertedObjects.count == 2)
        #expect(good.objectID.isTemporaryID)
        let count = try context.persistentStoreCoordinator!.store.count(sql: "SELECT COUNT(*) FROM Department", bindings: [])
        #expect(count == 0)
    }

    @Test func deleteRulesCascadeAndNullify() throws {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let department = context.insertObject(forEntityName: "Department")
        department["name"] = .string("Sales")
        let person = context.insertObject(forEntityName: "Person")
        person.setObject(department, forKey: "department")
        let tag = context.insertObject(forEntityName: "Tag")
        person.add(tag, toKey: "tags")
        #expect(tag.objects(forKey: "people").count == 1)
        try context.save()
        context.delete(department)
        #expect(person.isDeleted)
        #expect(tag.objects(forKey: "people").isEmpty)
        try context.save()
        let store = context.persistentStoreCoordinator!.store
        #expect(try store.count(sql: "SELECT COUNT(*) FROM Person", bindings: []) == 0)
        #expect(try store.count(sql: "SELECT COUNT(*) FROM Person_tags", bindings: []) == 0)
        #expect(try store.count(sql: "SELECT COUNT(*) FROM Tag", bindings: []) == 1)
    }

    @Test func undoAndRedoWalkBackAndForth() throws {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let undo = UndoManager()
        context.undoManager = undo
        let person = context.insertObject(forEntityName: "Person")
        undo.endUndoGrouping()
        person["age"] = .int(5)
        person["age"] = .int(6)
        undo.endUndoGrouping()
        #expect(undo.undo())
        #expect(person["age"] == .int(0))
        #expect(undo.redo())
        #expect(person["age"] == .int(6))
        #expect(undo.undo())
        #expect(undo.undo())
        #expect(context.insertedObjects.isEmpty)
        #expect(undo.redo())
        #expect(context.insertedObjects.count == 1)
    }

    @Test func childSaveReachesTheParentButNotTheStore() throws {
        let model = try TestModels.people()
        let root = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let child = ManagedObjectContext(concurrencyType: .confined, parent: root)
        let person = child.insertObject(forEntityName: "Person")
        person["firstName"] = .string("Kid")
        try child.save()
        let store = root.persistentStoreCoordinator!.store
        #expect(try store.count(sql: "SELECT COUNT(*) FROM Person", bindings: []) == 0)
        #expect(root.insertedObjects.count == 1)
        #expect(root.insertedObjects.first?["firstName"] == .string("Kid"))
        try root.save()
        #expect(try store.count(sql: "SELECT COUNT(*) FROM Person", bindings: []) == 1)
        #expect(!person.objectID.isTemporaryID)
    }

    @Test func conflictingSavesFailUnderTheErrorPolicyAndResolveUnderTrumps() throws {
        let model = try TestModels.people()
        let coordinator = try TestModels.coordinator(model, path: TestModels.temporaryStorePath())
        let a = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let person = a.insertObject(forEntityName: "Person")
        person["firstName"] = .string("Original")
        try a.save()
        let b = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let other = try b.existingObject(with: person.objectID)
        person["firstName"] = .string("From A")
        person["age"] = .int(1)
        try a.save()
        other["firstName"] = .string("From B")
        do {
            try b.save()
            Issue.record("expected a merge conflict")
        } catch let error as MergeConflictError {
            #expect(error.conflicts.count == 1)
            #expect(error.conflicts[0].keys == ["firstName", "age"])
        }
        b.mergePolicy = .mergeByPropertyObjectTrump
        try b.save()
        let check = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let saved = try check.existingObject(with: person.objectID)
        #expect(saved["firstName"] == .string("From B"))
        #expect(saved["age"] == .int(1))
    }

    /// Strings are bound where they lie when stored apart from their value
    /// (longer than 15 UTF-8 bytes) and copied when small: every length
    /// around that edge, ASCII and not, comes back as written, from rows
    /// written in one statement run whose objects are gone afterwards.
    @Test func stringsOfEveryLengthAroundTheSmallStringEdgeComeBackAsWritten() throws {
        let path = TestModels.temporaryStorePath()
        let model = try TestModels.people()
        let coordinator = try TestModels.coordinator(model, path: path)
        var written: [String] = []
        for length in 0...40 {
            written.append(String(repeating: "a", count: length))
            written.append(String(repeating: "é", count: length / 2) + String(length))
        }
        do {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            for (n, text) in written.enumerated() {
                let person = context.insertObject(forEntityName: "Person")
                person["firstName"] = .string(text)
                person["lastName"] = .string(text + text)
                person["age"] = .int(Int64(n))
            }
            try context.save()
        }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var request = FetchRequest(entityName: "Person")
        request.sortDescriptors = try SortSpec.parse("age")
        let people = try context.fetch(request)
        #expect(people.map { $0["firstName"] } == written.map { .string($0) })
        #expect(people.map { $0["lastName"] } == written.map { .string($0 + $0) })
    }
}
