import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

final class SampleDepartment: ManagedObject {
    override class var entityName: String { "Department" }
    @Managed("name") var name: String
}

final class SamplePerson: ManagedObject {
    override class var entityName: String { "Person" }
    @Managed("LastName") var lastName: String?
    @ManagedToOne("department") var department: SampleDepartment?
}

/// Managed objects and object IDs as arguments of every finder (issue 19,
/// item 1): as objects, IDs, arrays and sets of them, nil optionals; in the
/// root context and in a child; saved and unsaved.
@Suite(.serialized) struct ObjectArgumentFinderTests {
    private func teams(_ context: ManagedObjectContext) throws -> (core: Team, old: Team) {
        (try #require(try Team.findFirst(byAttribute: "name", withValue: "core", in: context)),
         try #require(try Team.findFirst(byAttribute: "name", withValue: "old-guard", in: context)))
    }

    private func lastNames(_ employees: [Employee]) -> Set<String> { Set(employees.compactMap(\.lastName)) }

    @Test func everyFinderTakesObjectsAndIDs() throws {
        let context = try FinderTests().context()
        let (core, old) = try teams(context)
        let coreNames: Set = ["Lovelace", "Turing", "Byron"]
        let everyone: Set = ["Lovelace", "Turing", "Byron", "Hopper"]
        #expect(lastNames(try Employee.findAll(where: "team == %@", core, in: context)) == coreNames)
        #expect(lastNames(try Employee.findAll(where: "team == %@", core.objectID, in: context)) == coreNames)
        #expect(lastNames(try Employee.findAll(where: "team IN %@", [core, old], in: context)) == everyone)
        #expect(lastNames(try Employee.findAll(where: "team IN %@", Set([old.objectID]), in: context)) == ["Hopper"])
        #expect(lastNames(try Employee.findAll(where: "team != %@ AND age > %d", core, 30, in: context)) == ["Hopper"])
        #expect(try Employee.findFirst(where: "team == %@", old, in: context)?.lastName == "Hopper")
        #expect(try Employee.findFirst(byAttribute: "team", withValue: old, in: context)?.lastName == "Hopper")
        #expect(try Employee.findFirst(byAttribute: "team", withValue: old.objectID, in: context)?.lastName == "Hopper")
        #expect(lastNames(try Employee.find(byAttribute: "team", withValue: core, orderedBy: "age", in: context)) == coreNames)
        #expect(try Employee.requestFirst(byAttribute: "team", withValue: core, in: context).fetchLimit == 1)
        #expect(try Employee.count(where: "team == %@", core, in: context) == 3)
        #expect(try Employee.hasAtLeastOne(where: "team == %@", old.objectID, in: context))
        #expect(try Team.count(where: "members CONTAINS %@", Employee.findFirst(byAttribute: "lastName", withValue: "Hopper", in: context), in: context) == 1)
        #expect(try Team.findFirst(where: "ANY members == %@", Employee.findFirst(where: "age == 20", in: context), in: context)?.name == "core")
        #expect(try Employee.aggregate(.max, of: "age", where: "team == %@", core, in: context) == .int(41))
        let groups = try Employee.aggregate(.count, of: "", where: "team IN %@", [core.objectID, old.objectID], groupBy: ["team.name"], in: context)
        #expect(groups.map(\.value) == [.int(3), .int(1)])
        #expect(try Employee.requestAll(where: "team == %@", core, in: context).predicate?.description.hasPrefix("team == <x-coredata://") == true)
        #expect(try Employee.deleteAll(matching: "team == %@", old, in: context) == 1)
        #expect(try Employee.count(in: context) == 3)
    }

    @Test func nilOptionalsAreNil() throws {
        let context = try FinderTests().context()
        let loner = try Employee.create(in: context)
        loner.lastName = "Loner"
        let none: Team? = nil
        #expect(lastNames(try Employee.findAll(where: "team == %@", none, in: context)) == ["Loner"])
        #expect(try Employee.findFirst(byAttribute: "team", withValue: none, in: context)?.lastName == "Loner")
        let core: Team? = try teams(context).core
        #expect(try Employee.count(where: "team == %@", core, in: context) == 3)
        let optionals: [Team?] = [try teams(context).old]
        #expect(try Employee.count(where: "team IN %@", optionals, in: context) == 1)
    }

    /// An unsaved team matches the unsaved changes that point at it, in
    /// the context and in a child of it, and nothing saved.
    @Test func unsavedObjectsAndChildContexts() throws {
        let context = try FinderTests().context()
        let fresh = try Team.create(in: context)
        fresh.name = "fresh"
        #expect(try Employee.count(where: "team == %@", fresh, in: context) == 0)
        let ada = try #require(try Employee.findFirst(byAttribute: "lastName", withValue: "Lovelace", in: context))
        ada.team = fresh
        #expect(try Employee.findAll(where: "team == %@", fresh, in: context).map(\.objectID) == [ada.objectID])
        #expect(try Employee.findFirst(byAttribute: "team", withValue: fresh.objectID, in: context) === ada)
        #expect(try Employee.count(where: "team IN %@", [fresh, try teams(context).old], in: context) == 2)

        let child = ManagedObjectContext(concurrencyType: .confined, parent: context)
        let inChild = try #require(try Employee.findFirst(where: "team == %@", fresh, in: child))
        #expect(inChild.objectID == ada.objectID && inChild !== ada)
        #expect(try Employee.count(where: "team == %@", fresh.objectID, in: child) == 1)
        // A child's own unsaved team, passed from the child.
        let newer = try Team.create(in: child)
        newer.name = "newer"
        inChild.team = newer
        #expect(try Employee.count(where: "team == %@", newer, in: child) == 1)
        #expect(try Employee.count(where: "team == %@", fresh, in: child) == 0)
        #expect(try Employee.count(where: "team == %@", newer, in: context) == 0)
        #expect(try Employee.count(where: "team == %@", fresh, in: context) == 1)
        try child.save()
        #expect(try Employee.findAll(where: "team == %@", newer.objectID, in: context).map(\.objectID) == [ada.objectID])
        try context.save()
        #expect(try Employee.count(where: "team == %@", ada.team, in: context) == 1)
    }

    /// The README's example, on the sample people (with an explicit
    /// context instead of the default stack's).
    @Test func theReadmeExample() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Samples")
        let model = try ManagedObjectModel(contentsOf: samples.appendingPathComponent("People.xcdatamodeld"))
        try model.register(SamplePerson.self)
        try model.register(SampleDepartment.self)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let data = try Data(contentsOf: samples.appendingPathComponent("people.json"))
        try Importer(context: context).importArray(JSON(data: data), into: model.entity(named: "Person")!)
        try context.save()
        let people = try SamplePerson.findAll(in: context)

        let sales = try SampleDepartment.findFirst(byAttribute: "name", withValue: "Sales", in: context)
        let support = try SampleDepartment.findFirst(byAttribute: "name", withValue: "Support", in: context)
        let staff = try SamplePerson.findAll(where: "department == %@", sales, sortedBy: "LastName", in: context)
        let both = try SamplePerson.count(where: "department IN %@", [sales, support], in: context)
        let first = try SamplePerson.findFirst(byAttribute: "department", withValue: support?.objectID, in: context)

        let inSales = people.filter { $0.department?.name == "Sales" }
        #expect(!inSales.isEmpty)
        #expect(Set(staff.map(\.objectID)) == Set(inSales.map(\.objectID)))
        #expect(staff.map { $0.lastName ?? "" } == staff.map { $0.lastName ?? "" }.sorted())
        #expect(both == inSales.count + people.filter { $0.department?.name == "Support" }.count)
        #expect(first?.department?.name == "Support")
    }

    /// `findFirstOrCreate(byAttribute:withValue:)` with an object sets the
    /// relationship of the object it creates, to the object of its own
    /// context.
    @Test func findFirstOrCreateSetsTheRelationship() throws {
        let context = try FinderTests().context()
        let empty = try Team.create(in: context)
        empty.name = "empty"
        try context.save()
        let child = ManagedObjectContext(concurrencyType: .confined, parent: context)
        let created = try Employee.findFirstOrCreate(byAttribute: "team", withValue: empty, in: child)
        #expect(created.managedObjectContext === child)
        #expect(created.team?.objectID == empty.objectID && created.team?.managedObjectContext === child)
        #expect(try Employee.findFirstOrCreate(byAttribute: "team", withValue: empty.objectID, in: child) === created)
        let core = try teams(context).core
        #expect(throws: FinderError.self) { _ = try Team.findFirstOrCreate(byAttribute: "members", withValue: core, in: context) }
    }
}
