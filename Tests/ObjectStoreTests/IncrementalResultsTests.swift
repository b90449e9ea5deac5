import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate

/// The fetched-results controller applies a change to its sections
/// without fetching again (issue 19, item 8), and its sections always
/// equal a fresh fetch's.
@Suite struct IncrementalResultsTests {
    final class Counter: FetchedResultsControllerDelegate {
        var changes = 0
        func controller(_ controller: FetchedResultsController, didChange object: ManagedObject,
                        at indexPath: ResultIndexPath?, for type: ResultsChangeType, newIndexPath: ResultIndexPath?) {
            changes += 1
        }
    }

    /// The sections as last names, for comparing.
    static func names(_ sections: [FetchedResultsController.Section]?) -> [[String]] {
        (sections ?? []).map { $0.objects.map { $0["lastName"].modelPlainText } }
    }

    static func fetched(_ request: FetchRequest, in context: ManagedObjectContext, sectionKey: String?) throws -> [[String]] {
        let fresh = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectionKey)
        try fresh.performFetch()
        return names(fresh.sections)
    }

    @Test func aChangeToTheFetchedEntityRunsNoSQL() throws {
        let model = try TestModels.people()
        let coordinator = try TestModels.coordinator(model)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for (i, name) in ["Adams", "Brown", "Clark", "Dunn"].enumerated() {
            let p = context.insertObject(forEntityName: "Person")
            p["lastName"] = .string(name)
            p["age"] = .int(Int64(20 + 10 * i))
        }
        try context.save()
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age >= 30"))
        request.sortDescriptors = try SortSpec.parse("lastName:NO")
        let results = FetchedResultsController(fetchRequest: request, context: context)
        let counter = Counter()
        results.delegate = counter
        try results.performFetch()
        #expect(Self.names(results.sections) == [["Dunn", "Clark", "Brown"]])

        let store = coordinator.store
        let before = store.statementsStarted
        let adams = try #require(try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Adams'"))).first)
        let afterFetch = store.statementsStarted
        adams["age"] = .int(60)                       // now matches: inserted
        let evans = context.insertObject(forEntityName: "Person")
        evans["lastName"] = .string("Evans")
        evans["age"] = .int(40)                       // a new match
        context.processPendingChanges()
        #expect(Self.names(results.sections) == [["Evans", "Dunn", "Clark", "Brown", "Adams"]])
        let clark = results.object(at: ResultIndexPath(item: 2, section: 0))
        clark["age"] = .int(10)                       // no longer matches: deleted
        context.processPendingChanges()
        #expect(Self.names(results.sections) == [["Evans", "Dunn", "Brown", "Adams"]])
        #expect(store.statementsStarted == afterFetch, "the controller went to the store \(store.statementsStarted - afterFetch) times")
        #expect(afterFetch - before == 1)
        #expect(counter.changes == 3)
    }

    /// Random changes, each processed: after every one the controller's
    /// sections equal a fresh fetch's, with and without sections and a
    /// predicate through a relationship (changes to departments make those
    /// fetch again).
    @Test(arguments: [0, 1, 2, 3])
    func sectionsAlwaysEqualAFreshFetch(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 77)
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let departments = ["Eng", "Ops", "Art"].map { name -> ManagedObject in
            let d = context.insertObject(forEntityName: "Department")
            d["name"] = .string(name)
            return d
        }
        var people: [ManagedObject] = []
        func addPerson() {
            let p = context.insertObject(forEntityName: "Person")
            p["lastName"] = .string(["Adams", "Brown", "Clark", "Dunn", "Evans", "Ford"][Int(random.next() % 6)])
            p["age"] = .int(Int64(random.next() % 80))
            if random.next() % 4 != 0 { p.setObject(departments[Int(random.next() % 3)], forKey: "department") }
            people.append(p)
        }
        for _ in 0..<12 { addPerson() }
        try context.save()
        let setups: [(String?, String?, String)] = [
            (nil, nil, "lastName,age"),
            ("age > 30", nil, "age:NO"),
            ("department.name != 'Ops'", "department.name", "department.name,lastName"),
            (nil, "lastName", "lastName,age:NO"),
        ]
        let controllers = try setups.map { format, sectionKey, sort -> (FetchedResultsController, FetchRequest, String?) in
            var request = FetchRequest(entityName: "Person", predicate: try format.map { try Predicate(format: $0) })
            request.sortDescriptors = try SortSpec.parse(sort)
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectionKey)
            try controller.performFetch()
            return (controller, request, sectionKey)
        }
        for step in 0..<60 {
            switch random.next() % 6 {
            case 0: addPerson()
            case 1:
                if let victim = people.filter({ $0.managedObjectContext === context && !$0.isDeleted }).randomElement(using: &random) { context.delete(victim) }
            // No department is renamed: a fetch with unsaved changes
            // matches a person by its department's saved name, as Core
            // Data's does (only changed objects of the fetched entity are
            // matched in memory), so neither a fetch nor the controller
            // sees a rename before it is saved, and the controller hears
            // nothing of the save.
            case 2: departments.randomElement(using: &random)!["budget"] = .double(Double(random.next() % 100))
            case 3:
                if let p = people.filter({ $0.managedObjectContext === context && !$0.isDeleted }).randomElement(using: &random) {
                    p.setObject(random.next() % 3 == 0 ? nil : departments[Int(random.next() % 3)], forKey: "department")
                }
            case 4: if random.next() % 3 == 0 { try context.save() } else { context.rollback() }
            default:
                if let p = people.filter({ $0.managedObjectContext === context && !$0.isDeleted }).randomElement(using: &random) {
                    p["age"] = .int(Int64(random.next() % 80))
                    p["lastName"] = .string(["Adams", "Brown", "Zed"][Int(random.next() % 3)])
                }
            }
            context.processPendingChanges()
            for (controller, request, sectionKey) in controllers {
                let expected = try Self.fetched(request, in: context, sectionKey: sectionKey)
                #expect(Self.names(controller.sections) == expected, "seed \(seed) step \(step) \(request.predicate.map { "\($0)" } ?? "")")
            }
        }
    }
}

/// A view model on the main actor, as an app writes one: it compiles as a
/// delegate under Swift 6 and hears the changes made on the main queue.
@MainActor final class MainActorListModel: @MainActor FetchedResultsControllerDelegate {
    var titles: [String] = []

    func controllerDidChangeContent(_ controller: FetchedResultsController) {
        titles = (controller.fetchedObjects ?? []).map { $0["lastName"].modelPlainText }
    }
}

extension IncrementalResultsTests {
    @MainActor @Test func aMainActorDelegateHearsMainQueueChanges() throws {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(try TestModels.people()))
        var request = FetchRequest(entityName: "Person")
        request.sortDescriptors = try SortSpec.parse("lastName")
        let results = FetchedResultsController(fetchRequest: request, context: context)
        let model = MainActorListModel()
        results.delegate = model
        try results.performFetch()
        context.insertObject(forEntityName: "Person")["lastName"] = .string("Ada")
        context.processPendingChanges()
        #expect(model.titles == ["Ada"])
    }
}
