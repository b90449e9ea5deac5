import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

@Suite struct GroupedFetchTests {
    @Test func fetchAllGroupedByGivesLiveSections() throws {
        let team = EntityDescription(name: "Crew")
        team.add(AttributeDescription(name: "name", type: .string))
        let member = EntityDescription(name: "Sailor")
        member.add(AttributeDescription(name: "name", type: .string))
        member.add(AttributeDescription(name: "ship", type: .string))
        let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: [team, member]))
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for (name, ship) in [("Ann", "Bounty"), ("Bo", "Argo"), ("Cy", "Bounty")] {
            let sailor = context.insertObject(forEntityName: "Sailor")
            sailor["name"] = .string(name)
            sailor["ship"] = .string(ship)
        }
        try context.save()
        let results = try Finder.fetchAllGrouped(entityName: "Sailor", by: "ship", where: try Predicate(format: "name != 'Cy'"),
                                                 sortedBy: "ship,name", in: context)
        #expect(results.sections?.map(\.name) == ["Argo", "Bounty"])
        #expect(results.sections?.map(\.numberOfObjects) == [1, 1])
        let dee = context.insertObject(forEntityName: "Sailor")
        dee["name"] = .string("Dee")
        dee["ship"] = .string("Argo")
        context.processPendingChanges()
        #expect(results.sections?.map(\.numberOfObjects) == [2, 1])
    }
}
