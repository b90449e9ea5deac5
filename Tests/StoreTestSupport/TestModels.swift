import Foundation
@testable import ObjectStore
import Predicates

/// Models built in code for the store and context tests.
package enum TestModels {
    /// Department ←→> Person, with a Manager sub-entity and a many-to-many Tag.
    package static func people(configurations: [String: [String]] = [:]) throws -> ManagedObjectModel {
        let department = EntityDescription(name: "Department")
        department.add(AttributeDescription(name: "name", type: .string, isOptional: false))
        department.add(AttributeDescription(name: "budget", type: .double, defaultValue: .double(0)))
        department.add(RelationshipDescription(name: "people", destination: "Person", inverse: "department",
                                               isToMany: true, deleteRule: .cascade))

        let person = EntityDescription(name: "Person")
        person.add(AttributeDescription(name: "firstName", type: .string))
        person.add(AttributeDescription(name: "lastName", type: .string))
        person.add(AttributeDescription(name: "age", type: .integer16, defaultValue: .int(0)))
        person.add(AttributeDescription(name: "score", type: .double))
        person.add(AttributeDescription(name: "active", type: .boolean, defaultValue: .bool(true)))
        person.add(AttributeDescription(name: "born", type: .date))
        person.add(AttributeDescription(name: "photo", type: .binary))
        person.add(AttributeDescription(name: "token", type: .uuid))
        person.add(AttributeDescription(name: "nickname", type: .string, isTransient: true))
        person.add(RelationshipDescription(name: "department", destination: "Department", inverse: "people"))
        person.add(RelationshipDescription(name: "tags", destination: "Tag", inverse: "people", isToMany: true))

        let manager = EntityDescription(name: "Manager", parent: "Person")
        manager.add(AttributeDescription(name: "level", type: .integer32, defaultValue: .int(1)))
        manager.add(RelationshipDescription(name: "reports", destination: "Person", isToMany: true, isOrdered: true))

        let tag = EntityDescription(name: "Tag")
        tag.add(AttributeDescription(name: "label", type: .string))
        tag.add(RelationshipDescription(name: "people", destination: "Person", inverse: "tags", isToMany: true))

        return try ManagedObjectModel(entities: [department, person, manager, tag], configurations: configurations)
    }

    /// Ten people in two departments, saved; returns a fresh context.
    ///
    /// | i | lastName | age | score | department | born (days after 2001) | active |
    /// |---|----------|-----|-------|------------|------|-------|
    /// | 0 | Smith (Manager) | 10 | – | Engineering | 0 | yes |
    /// | 1 | Jones | 15 | 0.5 | Engineering | – | no |
    /// | 2 | Stone | 20 | 1.0 | Engineering | 2 | yes |
    /// | 3 | Brown | 25 | – | Engineering | 3 | yes |
    /// | 4 | Zoë | 30 | 2.0 | Engineering | – | no |
    /// | 5 | smith | 35 | 2.5 | Operations | 5 | yes |
    /// | 6 | Adams | 40 | – | Operations | 6 | yes |
    /// | 7 | Sable | 45 | 3.5 | Operations | – | no |
    /// | 8 | Kim | 50 | 4.0 | Operations | 8 | yes |
    /// | 9 | Lee | 55 | – | Operations | 9 | yes |
    package static func seededPeople() throws -> ManagedObjectContext {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let eng = context.insertObject(forEntityName: "Department")
        eng["name"] = .string("Engineering")
        let ops = context.insertObject(forEntityName: "Department")
        ops["name"] = .string("Operations")
        let names = ["Smith", "Jones", "Stone", "Brown", "Zoë", "smith", "Adams", "Sable", "Kim", "Lee"]
        for (i, name) in names.enumerated() {
            let p = context.insertObject(forEntityName: i == 0 ? "Manager" : "Person")
            p["lastName"] = .string(name)
            p["firstName"] = .string("P\(i)")
            p["age"] = .int(Int64(10 + i * 5))
            if i % 3 != 0 { p["score"] = .double(Double(i) / 2) }
            if i % 3 != 1 { p["born"] = .date(Date(timeIntervalSinceReferenceDate: Double(i) * 86_400)) }
            p["active"] = .bool(i % 3 != 1)
            p.setObject(i < 5 ? eng : ops, forKey: "department")
        }
        try context.save()
        return ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
    }

    package static func coordinator(_ model: ManagedObjectModel, path: String? = nil, migrating: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: path.map { URL(fileURLWithPath: $0) }, migratesAutomatically: migrating)
        return coordinator
    }

    package static func temporaryStorePath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("store.sqlite").path
    }

    /// Departments and people: a required name, bounds, a to-one with a
    /// nullifying inverse, a many-to-many, a sub-entity's required value.
    package static func constrained() throws -> ManagedObjectModel {
        let department = EntityDescription(name: "Department")
        department.add(AttributeDescription(name: "name", type: .string, isOptional: false))
        let budget = AttributeDescription(name: "budget", type: .double, defaultValue: .double(0))
        budget.minValue = .double(0)
        department.add(budget)
        department.add(RelationshipDescription(name: "people", destination: "Person", inverse: "department",
                                               isToMany: true, deleteRule: .nullify))
        let person = EntityDescription(name: "Person")
        person.add(AttributeDescription(name: "name", type: .string, isOptional: false))
        let age = AttributeDescription(name: "age", type: .integer16, defaultValue: .int(0))
        age.minValue = .int(0)
        age.maxValue = .int(150)
        person.add(age)
        let code = AttributeDescription(name: "code", type: .string)
        code.maxValue = .int(4)
        person.add(code)
        person.add(RelationshipDescription(name: "department", destination: "Department", inverse: "people"))
        person.add(RelationshipDescription(name: "tags", destination: "Tag", inverse: "people", isToMany: true))
        let manager = EntityDescription(name: "Manager", parent: "Person")
        manager.add(AttributeDescription(name: "level", type: .integer32, isOptional: false, defaultValue: .int(1)))
        let tag = EntityDescription(name: "Tag")
        tag.add(AttributeDescription(name: "label", type: .string))
        tag.add(RelationshipDescription(name: "people", destination: "Person", inverse: "tags", isToMany: true))
        return try ManagedObjectModel(entities: [department, person, manager, tag])
    }
}
