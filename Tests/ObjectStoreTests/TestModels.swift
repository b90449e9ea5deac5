import Foundation
@testable import ObjectStore
import Predicates

/// Models built in code for the store and context tests.
enum TestModels {
    /// Department ←→> Person, with a Manager sub-entity and a many-to-many Tag.
    static func people(configurations: [String: [String]] = [:]) throws -> ManagedObjectModel {
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

    static func coordinator(_ model: ManagedObjectModel, path: String? = nil) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: path.map { URL(fileURLWithPath: $0) })
        return coordinator
    }

    static func temporaryStorePath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("store.sqlite").path
    }
}
