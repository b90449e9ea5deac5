import CSQLite
import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate

/// Counts the statements a store's connection runs (`MRQ_TRACE=1` prints
/// them).
private final class QueryCounter {
    var count = 0

    init(_ context: ManagedObjectContext) {
        sqlite3_trace_v2(context.persistentStoreCoordinator!.store.database.handle, UInt32(SQLITE_TRACE_STMT), { _, counter, p, x in
            if ProcessInfo.processInfo.environment["MRQ_TRACE"] != nil, let x { print("SQL:", String(cString: x.assumingMemoryBound(to: CChar.self))) }
            Unmanaged<QueryCounter>.fromOpaque(counter!).takeUnretainedValue().count += 1
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// How many statements `body` ran.
    func queries(_ body: () throws -> Void) rethrows -> Int {
        let before = count
        try body()
        return count - before
    }
}

@Suite struct PrefetchTests {
    /// Engineering: Ann, Bob, Cy (a manager reporting Bob then Ann);
    /// Operations: Dee, Eve; Fay has no department. Tags: red (Ann, Bob,
    /// Dee), blue (Ann, Eve), green (nobody).
    private func seeded() throws -> ManagedObjectContext {
        let model = try TestModels.people()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        func department(_ name: String) -> ManagedObject {
            let d = context.insertObject(forEntityName: "Department")
            d["name"] = .string(name)
            return d
        }
        let eng = department("Engineering"), ops = department("Operations")
        var people: [String: ManagedObject] = [:]
        for (name, dept) in [("Ann", eng), ("Bob", eng), ("Cy", eng), ("Dee", ops), ("Eve", ops), ("Fay", nil)] {
            let p = context.insertObject(forEntityName: name == "Cy" ? "Manager" : "Person")
            p["lastName"] = .string(name)
            p.setObject(dept, forKey: "department")
            people[name] = p
        }
        people["Cy"]!.add(people["Bob"]!, toKey: "reports")
        people["Cy"]!.add(people["Ann"]!, toKey: "reports")
        for (label, names) in [("red", ["Ann", "Bob", "Dee"]), ("blue", ["Ann", "Eve"]), ("green", [])] {
            let tag = context.insertObject(forEntityName: "Tag")
            tag["label"] = .string(label)
            for name in names { tag.add(people[name]!, toKey: "people") }
        }
        try context.save()
        return ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
    }

    private func request(_ entity: String, sort: String, prefetch: [String] = []) throws -> FetchRequest {
        var request = FetchRequest(entityName: entity)
        request.sortDescriptors = try SortSpec.parse(sort)
        request.relationshipKeyPathsForPrefetching = prefetch
        return request
    }

    private func text(_ value: Value) -> String {
        if case .string(let s) = value { return s }
        return "nil"
    }

    @Test func faultsKeepTheirRowsAndFillWithoutAQuery() throws {
        let context = try seeded()
        let counter = QueryCounter(context)
        var results: FetchResults!
        #expect(try counter.queries { results = try context.fetch(try request("Person", sort: "lastName")) } == 1)
        #expect(results.map(\.isFault) == Array(repeating: true, count: 6))
        var first = ""
        #expect(counter.queries { first = text(results[0]["lastName"]) } == 0)
        #expect(first == "Ann")
        #expect(results.map(\.isFault) == [false, true, true, true, true, true])
        #expect(results[2].entity.name == "Manager")
    }

    @Test func notAsFaultsFillsEverythingInOneQuery() throws {
        let context = try seeded()
        let counter = QueryCounter(context)
        var request = try request("Person", sort: "lastName")
        request.returnsObjectsAsFaults = false
        var results: FetchResults!
        #expect(try counter.queries { results = try context.fetch(request) } == 1)
        #expect(results.allSatisfy { !$0.isFault })
        var names: [String] = []
        #expect(counter.queries { names = results.map { text($0["lastName"]) } } == 0)
        #expect(names == ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"])
    }

    @Test func registeredObjectsKeepTheirStateAndResidualsFill() throws {
        let context = try seeded()
        var filled = try request("Person", sort: "lastName")
        filled.returnsObjectsAsFaults = false
        filled.predicate = try Predicate(format: "lastName == 'Bob'")
        let bob = try context.fetch(filled)[0]
        bob["firstName"] = .string("Robert")
        let again = try context.fetch(try request("Person", sort: "lastName"))
        #expect(again[1] === bob && !bob.isFault && bob["firstName"] == .string("Robert"))
        // Division runs in memory, so those objects had to be loaded.
        var residual = try request("Person", sort: "lastName")
        residual.predicate = try Predicate(format: "age / 2 == 0")
        residual.includesPendingChanges = false
        #expect(try context.fetch(residual).allSatisfy { !$0.isFault })
    }

    @Test func toOnePrefetchIsOneQuery() throws {
        let context = try seeded()
        let counter = QueryCounter(context)
        var people: FetchResults!
        #expect(try counter.queries { people = try context.fetch(try request("Person", sort: "lastName", prefetch: ["department"])) } == 2)
        var names: [String] = []
        #expect(counter.queries {
            names = people.map { $0.object(forKey: "department").map { text($0["name"]) } ?? "-" }
        } == 0)
        #expect(names == ["Engineering", "Engineering", "Engineering", "Operations", "Operations", "-"])
    }

    @Test func toManyAndManyToManyPrefetchIsOneQueryEach() throws {
        let context = try seeded()
        let counter = QueryCounter(context)
        var departments: FetchResults!
        #expect(try counter.queries {
            departments = try context.fetch(try request("Department", sort: "name", prefetch: ["people", "people.tags", "people.department"]))
        } == 3)
        var seen: [String] = []
        var inverses = true
        #expect(counter.queries {
            for department in departments {
                for person in department.objects(forKey: "people") {
                    let tags = person.objects(forKey: "tags").map { text($0["label"]) }.sorted()
                    seen.append("\(text(department["name"])):\(text(person["lastName"]))[\(tags.joined(separator: ","))]")
                    inverses = inverses && person.object(forKey: "department") === department
                }
            }
        } == 0)
        #expect(inverses)
        #expect(seen == ["Engineering:Ann[blue,red]", "Engineering:Bob[red]", "Engineering:Cy[]",
                         "Operations:Dee[red]", "Operations:Eve[blue]"])
    }

    @Test func orderedToManyOfASubentityKeepsItsOrder() throws {
        let context = try seeded()
        let counter = QueryCounter(context)
        var people: FetchResults!
        #expect(try counter.queries { people = try context.fetch(try request("Person", sort: "lastName", prefetch: ["reports"])) } == 2)
        var reports: [String] = []
        #expect(counter.queries { reports = people[2].objects(forKey: "reports").map { text($0["lastName"]) } } == 0)
        #expect(reports == ["Bob", "Ann"])
    }

    @Test func eachBatchPrefetchesItsOwn() throws {
        let context = try seeded()
        let counter = QueryCounter(context)
        var request = try request("Person", sort: "lastName", prefetch: ["tags"])
        request.fetchBatchSize = 4
        var people: FetchResults!
        #expect(try counter.queries { people = try context.fetch(request) } == 1)
        #expect(counter.queries { _ = people[0] } == 2)
        var tags: [String] = []
        #expect(counter.queries {
            tags = people[0].objects(forKey: "tags").map { text($0["label"]) }.sorted()
            _ = people[3].objects(forKey: "tags").map { $0["label"] }
        } == 0)
        #expect(tags == ["blue", "red"])
        #expect(counter.queries { _ = people[4] } == 2)
    }

    @Test func aChildContextPrefetchesThroughItsParent() throws {
        let context = try seeded()
        let ann = try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Ann'")))[0]
        let ops = try context.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == 'Operations'")))[0]
        ann.setObject(ops, forKey: "department")  // unsaved in the parent
        let child = ManagedObjectContext(concurrencyType: .confined, parent: context)
        let departments = try child.fetch(try request("Department", sort: "name", prefetch: ["people"]))
        let counter = QueryCounter(context)
        var members: [[String]] = []
        #expect(counter.queries {
            members = departments.map { $0.objects(forKey: "people").map { text($0["lastName"]) }.sorted() }
        } == 0)
        #expect(members == [["Bob", "Cy"], ["Ann", "Dee", "Eve"]])
    }

    @Test func prefetchingKeepsUnsavedChanges() throws {
        let context = try seeded()
        let eng = try context.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == 'Engineering'")))[0]
        eng["name"] = .string("R&D")
        let people = try context.fetch(try request("Person", sort: "lastName", prefetch: ["department"]))
        #expect(people[0].object(forKey: "department") === eng)
        #expect(eng["name"] == .string("R&D"))
    }

    @Test(arguments: [
        ("departmnt", "cannot prefetch 'departmnt': 'departmnt' is not a relationship of Person; did you mean 'department'?"),
        ("lastName", "cannot prefetch 'lastName': 'lastName' is not a relationship of Person"),
        ("department.name", "cannot prefetch 'department.name': 'name' is not a relationship of Department"),
    ])
    func prefetchKeyPathsMustBeRelationships(keyPath: String, message: String) throws {
        let context = try seeded()
        #expect {
            _ = try context.fetch(try request("Person", sort: "lastName", prefetch: [keyPath]))
        } throws: { error in
            "\(error)" == message
        }
    }
}
