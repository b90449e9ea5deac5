import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// The XML store: the same answers as SQLite, and "save as" between types.
@Suite struct XMLStoreTests {
    /// A graph using every kind of value and relationship of the people model.
    @discardableResult
    static func populate(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        let departments = ["R&D", "Ops <&> \"Sales\""].map { name -> ManagedObject in
            let d = context.insertObject(forEntityName: "Department")
            d["name"] = .string(name)
            d["budget"] = .double(name.count == 3 ? 1.0 / 3.0 : 1e300)
            return d
        }
        let tags = ["swift", "sql", "xml", "line\nbreak\t\r"].map { label -> ManagedObject in
            let t = context.insertObject(forEntityName: "Tag")
            t["label"] = .string(label)
            return t
        }
        var people: [ManagedObject] = []
        let names = ["Ada", "bob", "Cy", "dee", "Eve", "Fay", "Gus", "hal", "Ivy", "Jo"]
        for (i, name) in names.enumerated() {
            let p = context.insertObject(forEntityName: i % 4 == 3 ? "Manager" : "Person")
            p["firstName"] = .string(name)
            p["lastName"] = i % 3 == 0 ? .null : .string("L\(10 - i)")
            p["age"] = .int(Int64(20 + (i * 13) % 40))
            p["score"] = i % 5 == 0 ? .null : .double(Double(i) * 1.1)
            p["active"] = .bool(i % 2 == 0)
            p["born"] = .date(Date(timeIntervalSinceReferenceDate: Double(i) * 86_400.123456789 - 1e6))
            p["photo"] = i % 2 == 0 ? .data(Data([0, 1, 2, UInt8(i), 255])) : .null
            p["token"] = .uuid(UUID(uuidString: "00000000-0000-0000-0000-0000000000\(String(format: "%02d", i))")!)
            if i % 4 == 3 { p["level"] = .int(Int64(i)) }
            if i < 8 { p.setObject(departments[i % 2], forKey: "department") }
            for (j, tag) in tags.enumerated() where (i + j) % 3 == 0 { p.add(tag, toKey: "tags") }
            people.append(p)
        }
        for manager in people where manager.entity.name == "Manager" {
            for report in people.reversed().prefix(3) where report !== manager {
                manager.add(report, toKey: "reports")
            }
        }
        try context.save()
        return departments + tags + people
    }

    /// The whole graph as text, objects named by their natural key, so two
    /// stores with different IDs compare equal when they hold the same graph.
    static func dump(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        func key(_ object: ManagedObject) -> String {
            for name in ["firstName", "name", "label"] where object.entity.attributeIndex[name] != nil {
                return "\(object.entity.name):\(object[name])"
            }
            return "?"
        }
        var lines: [String] = []
        for entity in ["Department", "Person", "Manager", "Tag"] {
            var request = FetchRequest(entityName: entity)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var parts = [key(object)]
                for attribute in object.entity.attributes where !attribute.isTransient {
                    parts.append("\(attribute.name)=\(object[attribute.name])")
                }
                for relationship in object.entity.relationships {
                    if relationship.isToOne {
                        parts.append("\(relationship.name)->\(object.object(forKey: relationship.name).map(key) ?? "nil")")
                    } else {
                        let members = object.objects(forKey: relationship.name).map(key)
                        parts.append("\(relationship.name)->\(relationship.isOrdered ? members : members.sorted())")
                    }
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    @Test func migrationSQLiteToXMLToSQLiteKeepsEveryObjectAndRelationship() throws {
        let dir = URL(fileURLWithPath: TestModels.temporaryStorePath()).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: dir.appendingPathComponent("a.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let objects = try Self.populate(context)
        let original = try Self.dump(coordinator)
        #expect(original.count == 16)

        let xml = try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: dir.appendingPathComponent("a.xml"), type: .xml)
        #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores[0] === xml)
        #expect(try Self.dump(coordinator) == original)
        // A fresh coordinator reading the file sees the same graph.
        let reread = PersistentStoreCoordinator(model: model)
        try reread.addPersistentStore(type: .xml, at: dir.appendingPathComponent("a.xml"))
        #expect(try Self.dump(reread) == original)

        // The context that made the graph keeps working on the new store.
        let ada = try #require(objects.first { $0.entity.attributeIndex["firstName"] != nil && $0["firstName"] == .string("Ada") })
        #expect(ada.objects(forKey: "tags").count == 2)
        #expect(ada.objectID.storeIdentifier == xml.identifier)
        ada["age"] = .int(77)
        try context.save()

        let back = try coordinator.migratePersistentStore(xml, to: dir.appendingPathComponent("b.sqlite"), type: .sqlite)
        #expect(back.storeType == .sqlite)
        let final = try Self.dump(coordinator)
        #expect(final == original.map { $0.hasPrefix("Person:string(\"Ada\")") ? $0.replacingOccurrences(of: "age=int(20)", with: "age=int(77)") : $0 })
        let toMemory = try coordinator.migratePersistentStore(back, to: nil, type: .inMemory)
        #expect(toMemory.storeType == .inMemory)
        #expect(try Self.dump(coordinator) == final)
    }

    @Test func xmlStoreAnswersLikeSQLite() throws {
        let dir = URL(fileURLWithPath: TestModels.temporaryStorePath()).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let model = try TestModels.people()
        let sqlite = PersistentStoreCoordinator(model: model)
        try sqlite.addSQLiteStore(at: dir.appendingPathComponent("d.sqlite"))
        try Self.populate(ManagedObjectContext(concurrencyType: .confined, coordinator: sqlite))
        let xml = PersistentStoreCoordinator(model: model)
        let copy = try xml.addSQLiteStore(at: dir.appendingPathComponent("d.sqlite"))
        try xml.migratePersistentStore(xml.persistentStore(withIdentifier: copy)!, to: dir.appendingPathComponent("d.xml"), type: .xml)
        let cases: [(String, String, String, Int, Int)] = [
            ("Person", "TRUEPREDICATE", "firstName", 0, 0),
            ("Person", "age > 30", "age:NO,firstName", 0, 0),
            ("Person", "age >= 25 AND active == YES", "firstName", 3, 1),
            ("Person", "firstName BEGINSWITH[c] 'd' OR firstName CONTAINS 'y'", "firstName", 0, 0),
            ("Person", "firstName LIKE[c] '?o*'", "firstName", 0, 0),
            ("Person", "lastName == nil", "firstName", 0, 0),
            ("Person", "score BETWEEN {2, 6}", "score", 0, 0),
            ("Person", "firstName IN {'Ada', 'Eve', 'nobody'}", "firstName", 0, 0),
            ("Person", "department.name == 'R&D'", "firstName", 0, 0),
            ("Person", "ANY tags.label == 'sql'", "firstName", 0, 0),
            ("Person", "tags.@count >= 2", "firstName", 0, 0),
            ("Person", "photo != nil", "born:NO", 2, 2),
            ("Person", "TRUEPREDICATE", "lastName,firstName", 4, 3),
            ("Person", "TRUEPREDICATE", "department.name:NO,firstName", 0, 0),
            ("Manager", "level > 3", "level", 0, 0),
            ("Department", "ANY people.age > 50", "name", 0, 0),
            ("Department", "SUBQUERY(people, $p, $p.active == YES).@count > 1", "name", 0, 0),
            ("Tag", "people.@count == 0 OR label MATCHES '.*l'", "label", 0, 0),
        ]
        for (entity, format, sort, limit, offset) in cases {
            let results = try [sqlite, xml].map { coordinator -> [String] in
                let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
                var request = FetchRequest(entityName: entity, predicate: try Predicate(format: format))
                request.sortDescriptors = try SortSpec.parse(sort)
                request.fetchLimit = limit
                request.fetchOffset = offset
                let key = entity == "Department" ? "name" : entity == "Tag" ? "label" : "firstName"
                let names = MultiStoreTests.names(Array(try context.fetch(request)), key)
                #expect(try context.count(for: request) == names.count, "count of \(format)")
                return names
            }
            #expect(results[0] == results[1], "\(entity) \(format) sorted by \(sort)")
        }
    }

    @Test func xmlStoreReportsConflictsLikeSQLite() throws {
        let dir = URL(fileURLWithPath: TestModels.temporaryStorePath()).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let coordinator = PersistentStoreCoordinator(model: try TestModels.people())
        try coordinator.addPersistentStore(type: .xml, at: dir.appendingPathComponent("c.xml"))
        let first = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let department = first.insertObject(forEntityName: "Department")
        department["name"] = .string("R&D")
        try first.save()
        let second = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let same = try second.existingObject(with: department.objectID)
        same["budget"] = .double(2)
        try second.save()
        department["budget"] = .double(3)
        #expect(throws: (any Error).self) { try first.save() }
        let store = coordinator.backends[0]
        var changes = StoreChanges()
        changes.deleted = [(id: department.objectID, expectedVersion: 1)]
        #expect(throws: StoreConflictError.self) { try store.save(changes) }
    }
}
