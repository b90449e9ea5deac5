import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// Several stores in one coordinator: routing by configuration, fetches
/// across stores, saves split by store, and store migration.
@Suite struct MultiStoreTests {
    static let staffAndLabels = ["Staff": ["Department", "Person", "Manager"], "Labels": ["Tag"]]

    static func directory() -> URL {
        URL(fileURLWithPath: TestModels.temporaryStorePath()).deletingLastPathComponent()
    }

    static func fetch(_ context: ManagedObjectContext, _ entity: String, _ format: String? = nil, sort: String = "",
                      limit: Int = 0, offset: Int = 0, subentities: Bool = true) throws -> [ManagedObject] {
        var request = FetchRequest(entityName: entity)
        request.predicate = try format.map { try Predicate(format: $0) }
        request.sortDescriptors = try SortSpec.parse(sort)
        request.fetchLimit = limit
        request.fetchOffset = offset
        request.includesSubentities = subentities
        return Array(try context.fetch(request))
    }

    static func names(_ objects: [ManagedObject], _ key: String = "firstName") -> [String] {
        objects.map { if case .string(let s) = $0[key] { s } else { "?" } }
    }

    /// IDs carry their store as a number: the same row number in two
    /// stores is two objects, and the identifier reads back unchanged.
    @Test func objectIDsOfTwoStoresDifferByStore() throws {
        let model = try TestModels.people()
        let person = try #require(model.entity(named: "Person"))
        let a = ObjectID(entity: person, primaryKey: 7, storeIdentifier: "STORE-A-\(UUID().uuidString)")
        let b = ObjectID(entity: person, primaryKey: 7, storeIdentifier: "STORE-B-\(UUID().uuidString)")
        let a2 = ObjectID(entity: person, primaryKey: 7, storeIdentifier: a.storeIdentifier)
        #expect(a != b)
        #expect(a == a2)
        #expect(Set([a, b, a2]).count == 2)
        #expect(a.storeIdentifier?.hasPrefix("STORE-A-") == true)
        #expect(a.uriRepresentation.host == a.storeIdentifier)
        #expect(ObjectID(entity: person, primaryKey: 7, storeIdentifier: nil).storeIdentifier == nil)
        #expect(ObjectID(entity: person, primaryKey: 7, storeIdentifier: nil) != a)
    }

    @Test func saveIsSplitAcrossStoresByConfiguration() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people(configurations: Self.staffAndLabels)
        let (sqliteURL, xmlURL) = (dir.appendingPathComponent("staff.sqlite"), dir.appendingPathComponent("labels.xml"))
        let coordinator = PersistentStoreCoordinator(model: model)
        let staff = try coordinator.addPersistentStore(type: .sqlite, configuration: "Staff", at: sqliteURL)
        let labels = try coordinator.addPersistentStore(type: .xml, configuration: "Labels", at: xmlURL)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let lab = context.insertObject(forEntityName: "Department")
        lab["name"] = .string("Lab")
        for name in ["Ada", "Bob", "Cy"] {
            let person = context.insertObject(forEntityName: "Person")
            person["firstName"] = .string(name)
            person.setObject(lab, forKey: "department")
        }
        let tags = ["swift", "sql"].map { label -> ManagedObject in
            let tag = context.insertObject(forEntityName: "Tag")
            tag["label"] = .string(label)
            return tag
        }
        try context.save()
        #expect(lab.objectID.storeIdentifier == staff.identifier)
        #expect(tags.allSatisfy { $0.objectID.storeIdentifier == labels.identifier })
        #expect(tags[0].objectID.uriRepresentation.host == labels.identifier)

        // Reopened: each file holds its own configuration's objects only.
        let reopened = PersistentStoreCoordinator(model: model)
        try reopened.addPersistentStore(type: .sqlite, configuration: "Staff", at: sqliteURL)
        try reopened.addPersistentStore(type: .xml, configuration: "Labels", at: xmlURL)
        let again = ManagedObjectContext(concurrencyType: .confined, coordinator: reopened)
        #expect(try Self.names(Self.fetch(again, "Person", sort: "firstName")) == ["Ada", "Bob", "Cy"])
        #expect(try Self.fetch(again, "Department")[0].objects(forKey: "people").count == 3)
        #expect(try Set(Self.names(Self.fetch(again, "Tag"), "label")) == ["swift", "sql"])
        let sqliteOnly = try TestModels.coordinator(model, path: sqliteURL.path)
        #expect(try Self.fetch(ManagedObjectContext(concurrencyType: .confined, coordinator: sqliteOnly), "Tag").isEmpty)
        let xml = try String(contentsOf: xmlURL, encoding: .utf8)
        #expect(xml.contains("entity=\"Tag\"") && !xml.contains("entity=\"Person\""))
    }

    @Test func fetchesSpanStoresWithSortingAndLimits() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people(configurations: ["Main": ["Department", "Person", "Manager", "Tag"],
                                                           "Archive": ["Person", "Manager"]])
        let coordinator = PersistentStoreCoordinator(model: model)
        let main = try coordinator.addPersistentStore(type: .sqlite, configuration: "Main", at: dir.appendingPathComponent("main.sqlite"))
        let archive = try coordinator.addPersistentStore(type: .xml, configuration: "Archive", at: dir.appendingPathComponent("archive.xml"))
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var expected: [(name: String, age: Int64)] = []
        var people: [ManagedObject] = []  // the context holds saved objects weakly
        for i in 0..<12 {
            let person = context.insertObject(forEntityName: i % 4 == 0 ? "Manager" : "Person")
            let name = "P\(String(format: "%02d", i))"
            let age = Int64((i * 7) % 10 + 20)
            person["firstName"] = .string(name)
            person["age"] = .int(age)
            if i % 2 == 1 { context.assign(person, to: archive) }
            expected.append((name, age))
            people.append(person)
        }
        try context.save()
        let byStore = Dictionary(grouping: people, by: { $0.objectID.storeIdentifier ?? "" })
        #expect(byStore[main.identifier]?.count == 6 && byStore[archive.identifier]?.count == 6)
        // Primary keys repeat across the two stores; IDs stay distinct.
        #expect(Set(people.map(\.objectID)).count == 12)

        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let sorted = expected.sorted { ($1.age, $0.name) < ($0.age, $1.name) }.map(\.name)
        #expect(try Self.names(Self.fetch(fresh, "Person", sort: "age:NO,firstName")) == sorted)
        #expect(try Self.names(Self.fetch(fresh, "Person", sort: "age:NO,firstName", limit: 4, offset: 2)) == Array(sorted[2..<6]))
        let older = expected.filter { $0.age > 24 }.map(\.name).sorted()
        #expect(try Self.names(Self.fetch(fresh, "Person", "age > 24", sort: "firstName")) == older)
        #expect(try fresh.count(for: FetchRequest(entityName: "Person", predicate: try Predicate(format: "age > 24"))) == older.count)
        #expect(try Self.names(Self.fetch(fresh, "Manager", sort: "firstName")) == ["P00", "P04", "P08"])
        #expect(try Self.fetch(fresh, "Person", subentities: false).count == 9)

        // Unsaved changes merge in as with one store.
        let newcomer = fresh.insertObject(forEntityName: "Person")
        newcomer["firstName"] = .string("P99")
        newcomer["age"] = .int(99)
        #expect(try Self.names(Self.fetch(fresh, "Person", sort: "age:NO", limit: 1)) == ["P99"])
    }

    @Test func inMemoryStoreBesideSQLiteStore() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people(configurations: Self.staffAndLabels)
        let url = dir.appendingPathComponent("staff.sqlite")
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, configuration: "Staff", at: url)
        let cache = try coordinator.addPersistentStore(type: .inMemory, configuration: "Labels", at: nil)
        #expect(cache.storeType == .inMemory && cache.url == nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let person = context.insertObject(forEntityName: "Person")
        person["firstName"] = .string("Ada")
        let tag = context.insertObject(forEntityName: "Tag")
        tag["label"] = .string("cached")
        try context.save()
        #expect(tag.objectID.storeIdentifier == cache.identifier)
        tag["label"] = .string("cached again")
        try context.save()
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try Self.names(Self.fetch(fresh, "Tag"), "label") == ["cached again"])
        #expect(try Self.names(Self.fetch(fresh, "Person")) == ["Ada"])
        #expect(try fresh.existingObject(with: tag.objectID)["label"] == .string("cached again"))
        let diskOnly = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: url.path))
        #expect(try Self.fetch(diskOnly, "Tag").isEmpty && Self.fetch(diskOnly, "Person").count == 1)
    }

    @Test func relationshipAcrossStoresIsRejectedAtSave() throws {
        let model = try TestModels.people(configurations: Self.staffAndLabels)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .inMemory, configuration: "Staff", at: nil)
        try coordinator.addPersistentStore(type: .inMemory, configuration: "Labels", at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let person = context.insertObject(forEntityName: "Person")
        person["firstName"] = .string("Ada")
        let tag = context.insertObject(forEntityName: "Tag")
        person.add(tag, toKey: "tags")
        let error = #expect(throws: ValidationError.self) { try context.save() }
        #expect(error?.failures.contains { $0.key == "tags" && $0.message.contains("crosses stores (Staff → Labels)") } == true)
        // Nothing reached either store.
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try Self.fetch(fresh, "Person").isEmpty && Self.fetch(fresh, "Tag").isEmpty)
        // Without the link, the same objects save.
        person.remove(tag, fromKey: "tags")
        try context.save()
        #expect(try Self.fetch(fresh, "Person").count == 1 && Self.fetch(fresh, "Tag").count == 1)
    }
}
