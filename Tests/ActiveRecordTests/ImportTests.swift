import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

/// A model with MagicalRecord import keys, built in code.
func importModel() throws -> ManagedObjectModel {
    let department = EntityDescription(name: "Department", userInfo: ["relatedByAttribute": "code"])
    department.add(AttributeDescription(name: "code", type: .string))
    department.add(AttributeDescription(name: "name", type: .string))
    department.add(RelationshipDescription(name: "people", destination: "Person", inverse: "department", isToMany: true))

    let person = EntityDescription(name: "Person")
    person.add(AttributeDescription(name: "personID", type: .integer64, userInfo: ["mappedKeyName": "id"]))
    person.add(AttributeDescription(name: "firstName", type: .string, userInfo: ["mappedKeyName": "first_name", "mappedKeyName.1": "given"]))
    person.add(AttributeDescription(name: "city", type: .string, userInfo: ["mappedKeyName": "address.city"]))
    person.add(AttributeDescription(name: "age", type: .integer16, defaultValue: .int(18), userInfo: ["useDefaultValueWhenNotPresent": "YES"]))
    person.add(AttributeDescription(name: "score", type: .double, defaultValue: .double(1.5)))
    person.add(AttributeDescription(name: "active", type: .boolean))
    person.add(AttributeDescription(name: "note", type: .string))
    person.add(AttributeDescription(name: "joined", type: .date))
    person.add(AttributeDescription(name: "born", type: .date, userInfo: ["dateFormat": "dd/MM/yyyy"]))
    person.add(AttributeDescription(name: "lastSeen", type: .date, userInfo: ["dateFormat": "UnixTime"]))
    person.add(AttributeDescription(name: "token", type: .uuid))
    person.add(AttributeDescription(name: "balance", type: .decimal))
    person.add(RelationshipDescription(name: "department", destination: "Department", inverse: "people"))
    person.add(RelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", isToMany: true))

    let pet = EntityDescription(name: "Pet", isAbstract: true)
    pet.add(AttributeDescription(name: "petID", type: .integer64))
    pet.add(AttributeDescription(name: "name", type: .string))
    pet.add(RelationshipDescription(name: "owner", destination: "Person", inverse: "pets"))
    let dog = EntityDescription(name: "Dog", parent: "Pet")
    dog.add(AttributeDescription(name: "barks", type: .boolean))
    let cat = EntityDescription(name: "Cat", parent: "Pet")
    return try ManagedObjectModel(entities: [department, person, pet, dog, cat])
}

private func setup() throws -> (ManagedObjectContext, ManagedObjectModel) {
    let model = try importModel()
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addSQLiteStore(at: nil)
    return (ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator), model)
}

private func importOne(_ text: String, _ entity: String = "Person", options: ImportOptions = ImportOptions()) throws -> (ManagedObject, ManagedObjectContext) {
    let (context, model) = try setup()
    let object = try Importer(context: context, options: options).importObject(try JSON(parsing: text), into: model.entity(named: entity)!)
    return (try #require(object), context)
}

@Suite struct ImportTests {
    @Test func importsEveryTypeFromPlainAndMappedKeys() throws {
        let (p, _) = try importOne("""
            {"id": 7, "first_name": "Ada", "address": {"city": "London"}, "age": 36, "score": 2.5, "active": true,
             "joined": "2011-07-23T22:30:40GMT", "born": "10/12/1815", "lastSeen": 1300000000123,
             "token": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "balance": "12.50"}
            """)
        #expect(p["personID"] == .int(7))
        #expect(p["firstName"] == .string("Ada"))
        #expect(p["city"] == .string("London"))
        #expect(p["age"] == .int(36))
        #expect(p["score"] == .double(2.5))
        #expect(p["active"] == .bool(true))
        #expect(p["joined"] == .date(Date(timeIntervalSince1970: 1_311_460_240)))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        #expect(p["born"] == .date(calendar.date(from: DateComponents(year: 1815, month: 12, day: 10))!))
        #expect(p["lastSeen"] == .date(Date(timeIntervalSince1970: 1_300_000_000.123)))
        #expect(p["token"] == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(p["balance"] == .decimal(Decimal(string: "12.50")!))
    }

    @Test func secondaryMappingIsUsedWhenThePrimaryKeyIsAbsent() throws {
        let (p, _) = try importOne(#"{"given": "Grace"}"#)
        #expect(p["firstName"] == .string("Grace"))
    }

    @Test func nullSetsNilEvenWithADefaultAndAbsentKeysUseTheDefaultWhenAsked() throws {
        let (p, _) = try importOne(#"{"score": null}"#)
        #expect(p["score"] == .null)
        #expect(p["age"] == .int(18))
    }

    @Test func numbersBecomeStringsAndTrueStringsBecomeBooleans() throws {
        let (p, _) = try importOne(#"{"note": 42, "active": "true", "age": "33"}"#)
        #expect(p["note"] == .string("42"))
        #expect(p["active"] == .bool(true))
        #expect(p["age"] == .int(33))
    }

    @Test func epochSecondsWithoutUnixTimeFormat() throws {
        let (p, _) = try importOne(#"{"joined": 86400}"#)
        #expect(p["joined"] == .date(Date(timeIntervalSince1970: 86400)))
    }

    @Test func aBadValueNamesItsJSONPath() throws {
        let (context, model) = try setup()
        let importer = Importer(context: context)
        #expect {
            try importer.importArray(try JSON(parsing: #"[{"id": 1}, {"id": 2, "age": "old"}]"#), into: model.entity(named: "Person")!)
        } throws: { error in
            (error as? ImportError)?.path == "$[1].age"
        }
    }

    @Test func toOneByDefaultKeyAndMappedKeyDoesNotDuplicate() throws {
        let (context, model) = try setup()
        let importer = Importer(context: context)
        let people = try importer.importArray(try JSON(parsing: """
            [{"id": 1, "department": {"code": "ENG", "name": "Engineering"}},
             {"id": 2, "department": "ENG"},
             {"id": 3, "department": {"code": "OPS"}}]
            """), into: model.entity(named: "Person")!)
        #expect(people.count == 3)
        #expect(people[0].object(forKey: "department") === people[1].object(forKey: "department"))
        #expect(context.insertedObjects.filter { $0.entity.name == "Department" }.count == 2)
        try context.save()
        // Importing again updates instead of duplicating.
        let again = Importer(context: context)
        _ = try again.importArray(try JSON(parsing: #"[{"id": 1, "first_name": "Ann", "department": "OPS"}]"#), into: model.entity(named: "Person")!)
        #expect(context.insertedObjects.isEmpty)
        #expect(people[0]["firstName"] == .string("Ann"))
        #expect(people[0].object(forKey: "department")?["code"] == .string("OPS"))
    }

    @Test func aBadNestedValueNamesItsPathThroughTheRelationship() throws {
        let (context, model) = try setup()
        #expect {
            try Importer(context: context).importArray(try JSON(parsing: """
                [{"id": 1, "department": "ENG"}, {"id": 2, "department": {"code": {"x": 1}}}]
                """), into: model.entity(named: "Person")!)
        } throws: { error in
            (error as? ImportError)?.path == "$[1].department.code"
        }
        #expect {
            try Importer(context: context).importObject(try JSON(parsing: #"{"id": 1, "department": [1]}"#), into: model.entity(named: "Person")!)
        } throws: { error in
            (error as? ImportError)?.path == "$.department"
        }
    }

    @Test func pendingObjectsOfTheContextAreFoundNotDuplicated() throws {
        let (context, model) = try setup()
        let saved = context.insertObject(forEntityName: "Person")
        saved["personID"] = .int(1)
        try context.save()
        saved["personID"] = .int(10)  // pending: 1 is free now, 10 is taken
        let pending = context.insertObject(forEntityName: "Person")
        pending["personID"] = .int(2)
        let department = context.insertObject(forEntityName: "Department")
        department["code"] = .string("ENG")
        let people = try Importer(context: context).importArray(try JSON(parsing: """
            [{"id": 2, "first_name": "Bo", "department": "ENG"}, {"id": 10, "first_name": "Al"}, {"id": 1, "first_name": "New"}]
            """), into: model.entity(named: "Person")!)
        #expect(people[0] === pending && people[0]["firstName"] == .string("Bo"))
        #expect(people[0].object(forKey: "department") === department)
        #expect(people[1] === saved && saved["firstName"] == .string("Al"))
        #expect(people[2] !== saved && people[2].isInserted)
        #expect(context.insertedObjects.count == 3)
    }

    @Test func aChildContextFindsItsParentsObjects() throws {
        let (parent, model) = try setup()
        let existing = parent.insertObject(forEntityName: "Person")
        existing["personID"] = .int(4)
        let child = ManagedObjectContext(concurrencyType: .confined, parent: parent)
        let people = try Importer(context: child).importArray(try JSON(parsing: #"[{"id": 4, "first_name": "Kim"}, {"id": 5}]"#),
                                                               into: model.entity(named: "Person")!)
        #expect(people[0].objectID == existing.objectID && !people[0].isInserted)
        #expect(people[1].isInserted)
        try child.save()
        #expect(existing["firstName"] == .string("Kim"))
    }

    @Test func duplicatesInsideOneBatchBecomeOneObject() throws {
        let (context, model) = try setup()
        let people = try Importer(context: context).importArray(try JSON(parsing: #"[{"id": 5, "age": 1}, {"id": 5, "age": 2}]"#), into: model.entity(named: "Person")!)
        #expect(people.count == 2)
        #expect(people[0] === people[1])
        #expect(people[0]["age"] == .int(2))
        #expect(context.insertedObjects.count == 1)
    }

    /// Keys met again, in the same batch or a later one, find the object
    /// the first made (found or made with one hash of the key), which
    /// keeps the last row's values.
    @Test func duplicatesAcrossBatchesBecomeOneObject() throws {
        let (context, model) = try setup()
        let importer = Importer(context: context)
        importer.options.batchSize = 3
        let text = "[" + (0..<10).map { #"{"id": \#($0 % 4), "age": \#($0)}"# }.joined(separator: ",") + "]"
        let count = try importer.importArray(from: JSONArrayReader(bytes: Array(text.utf8)), into: model.entity(named: "Person")!)
        #expect(count == 10)
        #expect(context.insertedObjects.count == 4)
        #expect(Set(context.insertedObjects.map { $0["age"] }) == [.int(8), .int(9), .int(6), .int(7)])
    }

    @Test func toManyFromFourObjectsThenEmptyObjectThenNull() throws {
        let (context, model) = try setup()
        let person = model.entity(named: "Person")!
        let importer = Importer(context: context)
        let p = try #require(try importer.importObject(try JSON(parsing: """
            {"id": 1, "pets": [{"petID": 1, "entity": "Dog"}, {"petID": 2, "entity": "Cat"}, {"petID": 3, "entity": "Dog"}, {"petID": 4, "entity": "Cat"}]}
            """), into: person))
        #expect(p.objects(forKey: "pets").count == 4)
        #expect(Set(p.objects(forKey: "pets").map(\.entity.name)) == ["Dog", "Cat"])
        _ = try importer.importObject(try JSON(parsing: #"{"id": 1}"#), into: person)
        #expect(p.objects(forKey: "pets").count == 4)
        _ = try importer.importObject(try JSON(parsing: #"{"id": 1, "pets": null}"#), into: person)
        #expect(p.objects(forKey: "pets").isEmpty)
    }

    @Test func anAbstractDestinationWithoutAnEntityKeyIsAClearError() throws {
        let (context, model) = try setup()
        #expect {
            try Importer(context: context).importObject(try JSON(parsing: #"{"id": 1, "pets": [{"petID": 9}]}"#), into: model.entity(named: "Person")!)
        } throws: { error in
            let e = error as? ImportError
            return e?.path == "$.pets[0]" && e?.message.contains("abstract entity Pet") == true
        }
    }

    @Test func replacingModeMakesTheToManyExactlyTheImportedObjects() throws {
        let (context, model) = try setup()
        var options = ImportOptions()
        options.toManyMode = .replacing
        let importer = Importer(context: context, options: options)
        let department = model.entity(named: "Department")!
        let d = try #require(try importer.importObject(try JSON(parsing: #"{"code": "X", "people": [1, 2, 3]}"#), into: department))
        #expect(d.objects(forKey: "people").count == 3)
        _ = try importer.importObject(try JSON(parsing: #"{"code": "X", "people": [3]}"#), into: department)
        #expect(d.objects(forKey: "people").map { $0["personID"] } == [.int(3)])
    }

    @Test func nestedDataSeenAgainNamesTheSameObjectAndTheLastDataWins() throws {
        let (context, model) = try setup()
        // The same department three times, then other data for it, then
        // the first data again: the first data must be imported again.
        let people = try Importer(context: context).importArray(try JSON(parsing: """
            [{"id": 1, "department": {"code": "X", "name": "A"}},
             {"id": 2, "department": {"code": "X", "name": "A"}},
             {"id": 3, "department": {"name": "A", "code": "X"}},
             {"id": 4, "department": {"code": "X", "name": "B"}},
             {"id": 5, "department": {"code": "X", "name": "A"}},
             {"id": 6, "department": {"code": "Y", "name": "A"}}]
            """), into: model.entity(named: "Person")!)
        let x = try #require(people[0].object(forKey: "department"))
        #expect(people[1...4].allSatisfy { $0.object(forKey: "department") === x })
        #expect(x["name"] == .string("A"))
        #expect(x.objects(forKey: "people").count == 5)
        #expect(people[5].object(forKey: "department")?["code"] == .string("Y"))
        #expect(try context.count(for: FetchRequest(entityName: "Department")) == 2)
    }

    @Test func nestedDataWithRelationshipsIsImportedEveryTime() throws {
        let (context, model) = try setup()
        var options = ImportOptions()
        options.toManyMode = .replacing
        // Row 3 repeats row 1's department data, whose people list must
        // replace what row 2 added: person 5 leaves the department.
        let people = try Importer(context: context, options: options).importArray(try JSON(parsing: """
            [{"id": 1, "department": {"code": "X", "people": [1]}},
             {"id": 5, "department": {"code": "X"}},
             {"id": 2, "department": {"code": "X", "people": [1]}}]
            """), into: model.entity(named: "Person")!)
        let x = try #require(people[0].object(forKey: "department"))
        #expect(Set(x.objects(forKey: "people").map { $0["personID"] }) == [.int(1), .int(2)])
        #expect(people[1].object(forKey: "department") == nil)
    }

    @Test func normalizedKeysMatchSnakeCase() throws {
        var options = ImportOptions()
        options.normalizesKeys = true
        let (p, _) = try importOne(#"{"ID": 3, "first_name": "Lin", "NOTE": "n"}"#, options: options)
        #expect(p["note"] == .string("n"))
        #expect(p["personID"] == .int(3))
    }
}

final class HookedPerson: ManagedObject, ImportHooks {
    override class var entityName: String { "Person" }
    nonisolated(unsafe) static var log: [String] = []

    func shouldImport(_ data: JSON) -> Bool {
        HookedPerson.log.append("should \(data["id"]?.serialized ?? "?")")
        return data["skip"] == nil
    }
    func willImport(_ data: JSON) { HookedPerson.log.append("will \(self["personID"])") }
    func didImport(_ data: JSON) { HookedPerson.log.append("did \(self["personID"])") }
    func importValue(_ value: JSON, forKey key: String) -> Bool {
        guard key == "note" else { return false }
        self["note"] = .string("custom: \(value.serialized)")
        return true
    }
}

@Suite(.serialized) struct ImportHookTests {
    @Test func hooksRunInOrderAndADeclinedNewObjectIsRemoved() throws {
        let model = try importModel()
        try model.register(HookedPerson.self)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        HookedPerson.log = []
        var progress: [Int] = []
        var options = ImportOptions()
        options.batchSize = 1
        let recorder = ProgressRecorder()
        options.progress = { done, _ in recorder.add(done) }
        let people = try Importer(context: context, options: options).importArray(
            try JSON(parsing: #"[{"id": 1, "note": 5}, {"id": 2, "skip": true}]"#), into: model.entity(named: "Person")!)
        progress = recorder.values
        #expect(people.count == 1)
        #expect(people[0] is HookedPerson)
        #expect(people[0]["note"] == .string("custom: 5"))
        #expect(HookedPerson.log == ["should 1", "will int(1)", "did int(1)", "should 2"])
        #expect(context.insertedObjects.count == 1)
        #expect(progress == [1, 2])
    }
}

extension ImportTests {
    /// An import into an empty store asks the store once, not once per
    /// batch: keys repeated across batches (even after a save between
    /// batches) still find the object the import made, and a second
    /// import, into a store that now holds them, updates them.
    @Test func keysRepeatedAcrossBatchesFindTheirObjectInAnEmptyStore() throws {
        let (context, model) = try setup()
        let person = try #require(model.entity(named: "Person"))
        var options = ImportOptions()
        options.batchSize = 2
        options.progress = { _, _ in try? context.save() }
        let json = #"""
            [{"id": 1, "first_name": "Ada", "department": {"code": "eng"}},
             {"id": 2, "first_name": "Alan", "department": {"code": "ops"}},
             {"id": 3, "first_name": "Grace", "department": {"code": "eng"}},
             {"id": 1, "first_name": "Ada L.", "department": {"code": "ops"}},
             {"id": 2, "first_name": "Alan T.", "department": {"code": "eng"}}]
            """#
        try Importer(context: context, options: options).importArray(try JSON(parsing: json), into: person)
        try context.save()
        func people() throws -> [String] {
            var request = FetchRequest(entityName: "Person")
            request.sortDescriptors = try SortSpec.parse("personID")
            return try context.fetch(request).map { person -> String in
                guard case .string(let name) = person["firstName"] else { return "?" }
                guard case .string(let code)? = person.object(forKey: "department")?["code"] else { return name + " -" }
                return name + " " + code
            }
        }
        #expect(try people() == ["Ada L. ops", "Alan T. eng", "Grace eng"])
        #expect(try context.count(for: FetchRequest(entityName: "Department")) == 2)
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        try Importer(context: fresh, options: options).importArray(
            try JSON(parsing: #"[{"id": 3, "first_name": "Grace H."}, {"id": 4, "first_name": "Edsger", "department": {"code": "eng"}}]"#),
            into: person)
        try fresh.save()
        #expect(try people() == ["Ada L. ops", "Alan T. eng", "Grace H. eng", "Edsger eng"])
        #expect(try context.count(for: FetchRequest(entityName: "Department")) == 2)
    }

    /// A new object takes imported values without a word to anyone only
    /// when no one listens: with an undo manager, every value is undoable;
    /// an existing object's new values are changes to save.
    @Test func importedValuesAreTrackedWhereSomeoneListens() throws {
        let (context, model) = try setup()
        let person = try #require(model.entity(named: "Person"))
        try Importer(context: context).importArray(try JSON(parsing: #"[{"id": 1, "first_name": "Ada"}]"#), into: person)
        try context.save()

        let undo = UndoManager()
        context.undoManager = undo
        let updated = try Importer(context: context).importArray(
            try JSON(parsing: #"[{"id": 1, "first_name": "Grace"}, {"id": 2, "first_name": "Alan"}]"#), into: person)
        #expect(updated.map { $0["firstName"] } == [.string("Grace"), .string("Alan")])
        #expect(updated[0].changedValues.keys.sorted() == ["firstName"])
        #expect(updated[1].isInserted)
        context.processPendingChanges()
        #expect(undo.undo())
        #expect(updated[0]["firstName"] == .string("Ada"))
        #expect(context.insertedObjects.isEmpty)
    }
}

final class ProgressRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int] = []
    func add(_ n: Int) { lock.withLock { stored.append(n) } }
    var values: [Int] { lock.withLock { stored } }
}
