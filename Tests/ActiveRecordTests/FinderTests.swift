import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

final class Employee: ManagedObject {
    @Managed("firstName") var firstName: String?
    @Managed("lastName") var lastName: String?
    @Managed("age") var age: Int16
    @Managed("rating") var rating: Double?
    @ManagedToOne("team") var team: Team?
}

final class Team: ManagedObject {
    @Managed("name") var name: String
    @ManagedToMany("members") var members: [Employee]
    override class var stalenessPredicate: Predicates.Predicate? { try? Predicates.Predicate(format: "name BEGINSWITH 'old'") }
}

private func finderModel() throws -> ManagedObjectModel {
    let team = EntityDescription(name: "Team", userInfo: ["relatedByAttribute": "name"])
    team.add(AttributeDescription(name: "name", type: .string))
    team.add(RelationshipDescription(name: "members", destination: "Employee", inverse: "team", isToMany: true))
    let employee = EntityDescription(name: "Employee")
    employee.add(AttributeDescription(name: "firstName", type: .string))
    employee.add(AttributeDescription(name: "lastName", type: .string))
    employee.add(AttributeDescription(name: "age", type: .integer16, defaultValue: .int(0)))
    employee.add(AttributeDescription(name: "rating", type: .double))
    employee.add(RelationshipDescription(name: "team", destination: "Team", inverse: "members"))
    let model = try ManagedObjectModel(entities: [team, employee])
    try model.register(Employee.self)
    try model.register(Team.self)
    return model
}

@Suite(.serialized) struct FinderTests {
    func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: try finderModel())
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let data: [(String, String, Int16, String)] = [("Ada", "Lovelace", 36, "core"), ("Alan", "Turing", 41, "core"),
                                                     ("Grace", "Hopper", 85, "old-guard"), ("Ada", "Byron", 20, "core")]
        for (first, last, age, teamName) in data {
            let team = try Team.findFirstOrCreate(byAttribute: "name", withValue: .string(teamName), in: context)
            let e = try Employee.create(in: context)
            e.firstName = first
            e.lastName = last
            e.age = age
            e.team = team
        }
        try context.save()
        return context
    }

    @Test func typedPropertiesReadAndWrite() throws {
        let context = try context()
        let ada = try #require(try Employee.findFirst(where: "lastName == %@", "Lovelace", in: context))
        #expect(ada.age == 36)
        #expect(ada.rating == nil)
        ada.rating = 4.5
        #expect(ada["rating"] == .double(4.5))
        #expect(ada.team?.name == "core")
        #expect(ada.team?.members.count == 3)
    }

    @Test func sortStringsFollowMagicalRecordAndGoBeyond() throws {
        let context = try context()
        let keys = try Finder.sortKeys("firstName:YES, lastName:NO,age", ascending: true, entity: context.persistentStoreCoordinator!.model.entity(named: "Employee")!)
        #expect(keys.map(\.ascending) == [true, false, true])
        #expect(keys.map(\.key) == ["firstName", "lastName", "age"])
        let names = try Employee.findAll(sortedBy: "firstName:YES,lastName:NO", in: context).map { $0.lastName ?? "" }
        #expect(names == ["Lovelace", "Byron", "Turing", "Hopper"])
        let descending = try Employee.findAll(sortedBy: "age DESC", in: context).map(\.age)
        #expect(descending == [85, 41, 36, 20])
        let allDescending = try Employee.findAll(sortedBy: "age", ascending: false, in: context).map(\.age)
        #expect(allDescending == [85, 41, 36, 20])
        #expect(throws: FinderError(message: "unknown sort key 'agee' on Employee; did you mean 'age'?")) {
            _ = try Employee.findAll(sortedBy: "agee", in: context)
        }
    }

    @Test func requestFirstByNilIsAnEqualsNilPredicateWithLimitOne() throws {
        let context = try context()
        let request = try Employee.requestFirst(byAttribute: "rating", withValue: .null, in: context)
        #expect(request.fetchLimit == 1)
        #expect(request.predicate?.format == "rating == nil")
        #expect(try Employee.execute(request, in: context).count == 1)
    }

    @Test func findersCountsAndExistence() throws {
        let context = try context()
        #expect(try Employee.findAll(where: "age > %d", 30, in: context).count == 3)
        #expect(try Employee.find(byAttribute: "firstName", withValue: "Ada", orderedBy: "age", in: context).map(\.age) == [20, 36])
        #expect(try Employee.count(in: context) == 4)
        #expect(try Employee.count(where: "team.name == %@", "core", in: context) == 3)
        #expect(try Employee.hasAtLeastOne(where: "age > 80", in: context))
        #expect(try !Employee.hasAtLeastOne(where: "age > 90", in: context))
    }

    @Test func aggregatesRunInSQL() throws {
        let context = try context()
        #expect(try Employee.aggregate(.sum, of: "age", in: context) == .int(182))
        #expect(try Employee.aggregate(.max, of: "age", where: "team.name == %@", "core", in: context) == .int(41))
        #expect(try Employee.aggregate(.count, of: "", in: context) == .int(4))
        let groups = try Employee.aggregate(.average, of: "age", groupBy: ["team.name"], in: context)
        #expect(groups == [AggregateGroup(keys: ["core"], value: .double(97.0 / 3)), AggregateGroup(keys: ["old-guard"], value: .double(85))])
    }

    @Test func createDeleteTruncateAndPurge() throws {
        let context = try context()
        #expect(try Team.purgeStale(in: context) == 1)
        #expect(try Team.count(in: context) == 1)
        #expect(try Employee.deleteAll(matching: "age < %d", 30, in: context) == 1)
        #expect(try Employee.count(in: context) == 3)
        #expect(try Employee.truncateAll(in: context) == 3)
        #expect(try Employee.count(in: context) == 0)
        context.rollback()
        #expect(try Employee.count(in: context) == 4)
    }

    @Test func primaryKeyAndAttributeLookupsCreateOnlyWhenAsked() throws {
        let context = try context()
        #expect(try Team.object(primaryKeyValue: "core", createNew: false, in: context)?.name == "core")
        #expect(try Team.object(primaryKeyValue: "new", createNew: false, in: context) == nil)
        let created = try #require(try Team.object(primaryKeyValue: "new", createNew: true, in: context))
        #expect(created.isInserted && created.name == "new")
        let found = try Employee.object(attributes: ["firstName": "Ada", "age": 20], createNew: false, in: context)
        #expect(found?.lastName == "Byron")
        let made = try #require(try Employee.object(attributes: ["firstName": "Zed", "age": 1], createNew: true, in: context))
        #expect(made.isInserted && made.age == 1)
    }

    @Test func objectsMoveBetweenContextsByID() throws {
        let context = try context()
        let ada = try #require(try Employee.findFirst(where: "lastName == 'Lovelace'", in: context))
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        let there = try #require(ada.in(other))
        #expect(there !== ada)
        #expect(there.objectID == ada.objectID)
        #expect(there.age == 36)
    }

    @Test func classLevelImportReturnsTypedObjectsAndFindsExistingOnes() throws {
        let context = try context()
        let imported = try Employee.import(fromArray: try JSON(parsing: """
            [{"firstName": "Kay", "lastName": "Jones", "age": 30, "team": {"name": "core"}},
             {"firstName": "Lin", "team": "new-team"}]
            """), in: context)
        #expect(imported.map(\.firstName) == ["Kay", "Lin"])
        #expect(imported[0].age == 30)
        // "core" existed: found by the team's relatedByAttribute, not made again.
        #expect(imported[0].team?.name == "core")
        #expect(imported[1].team?.name == "new-team")
        #expect(try Team.count(where: "name == 'core'", in: context) == 1)
        #expect(try Team.count(in: context) == 3)

        let core = try #require(try Team.import(from: try JSON(parsing: #"{"name": "core"}"#), in: context))
        #expect(core.members.count == 4)
        #expect(try Team.findFirst(byAttribute: "name", withValue: .string("core"), in: context) === core)
        // A single object given where an array is expected is an array of one.
        let one = try Employee.import(fromArray: try JSON(parsing: #"{"firstName": "Solo"}"#), in: context)
        #expect(one.map(\.firstName) == ["Solo"])
    }

    @Test func classLevelImportOfAnUntypedClassNamesTheMissingEntity() throws {
        let context = try context()
        #expect(throws: FinderError(message: "unknown entity 'ManagedObject'")) {
            try ManagedObject.import(from: try JSON(parsing: "{}"), in: context)
        }
    }
}
