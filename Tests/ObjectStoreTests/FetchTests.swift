import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate

@Suite struct FetchTests {
    /// Ten people in two departments, saved (see `TestModels.seededPeople`).
    private func seeded() throws -> ManagedObjectContext { try TestModels.seededPeople() }

    private func names(_ context: ManagedObjectContext, _ format: String, sort: String = "lastName", limit: Int = 0, offset: Int = 0) throws -> [String] {
        var request = FetchRequest(entityName: "Person")
        request.predicate = try Predicate(format: format)
        request.sortDescriptors = try SortSpec.parse(sort)
        request.fetchLimit = limit
        request.fetchOffset = offset
        return try context.fetch(request).map { object -> String in
            if case .string(let s) = object["lastName"] { return s }
            return "?"
        }
    }

    @Test func comparisonsJoinsAndSorting() throws {
        let context = try seeded()
        #expect(try names(context, "age > 40") == ["Kim", "Lee", "Sable"])
        #expect(try names(context, "department.name == 'Operations' AND age < 50", sort: "age:NO") == ["Sable", "Adams", "smith"])
        #expect(try names(context, "lastName BEGINSWITH 'S'") == ["Sable", "Smith", "Stone"])
        #expect(try names(context, "lastName BEGINSWITH[c] 's'") == ["Sable", "Smith", "Stone", "smith"])
        #expect(try names(context, "lastName ==[cd] 'zoe'") == ["Zoë"])
        #expect(try names(context, "lastName LIKE '*o*'") == ["Brown", "Jones", "Stone", "Zoë"])
        #expect(try names(context, "lastName MATCHES '[A-Z][a-z]{2}'") == ["Kim", "Lee"])
        #expect(try names(context, "score == nil") == ["Adams", "Brown", "Lee", "Smith"])
        #expect(try names(context, "NOT (score > 2)").count == 7)
        #expect(try names(context, "age BETWEEN {20, 30}") == ["Brown", "Stone", "Zoë"])
        #expect(try names(context, "lastName IN {'Kim', 'Lee', 'Nobody'}") == ["Kim", "Lee"])
        #expect(try names(context, "TRUEPREDICATE", limit: 3, offset: 2) == ["Jones", "Kim", "Lee"])
    }

    @Test func toManyQuantifiersAndCollectionOperatorsRunInSQL() throws {
        let context = try seeded()
        func departments(_ format: String) throws -> [String] {
            var request = FetchRequest(entityName: "Department", predicate: try Predicate(format: format))
            request.sortDescriptors = try SortSpec.parse("name")
            return try context.fetch(request).map { if case .string(let s) = $0["name"] { return s }; return "?" }
        }
        #expect(try departments("ANY people.age > 50") == ["Operations"])
        #expect(try departments("ALL people.age < 35") == ["Engineering"])
        #expect(try departments("NONE people.lastName == 'Kim'") == ["Engineering"])
        #expect(try departments("people.@count == 5") == ["Engineering", "Operations"])
        #expect(try departments("people.@avg.age > 40") == ["Operations"])
        #expect(try departments("people.@sum.age == 100") == ["Engineering"])
        #expect(try departments("SUBQUERY(people, $p, $p.age > 30 AND $p.lastName BEGINSWITH 'S').@count > 0") == ["Operations"])
        // A SUBQUERY over a key path of the outer SUBQUERY's variable.
        #expect(try departments("SUBQUERY(people, $p, SUBQUERY($p.department.people, $q, $q.age > 50).@count > 0).@count > 0") == ["Operations"])
    }

    @Test func residualPartsAreEvaluatedInMemoryWithTheSameMeaning() throws {
        let context = try seeded()
        // Division is evaluated in memory; the rest in SQL.
        #expect(try names(context, "age / 2 > 22 AND lastName != 'Kim'") == ["Lee", "Sable"])
        #expect(try names(context, "age / 2 > 22", limit: 2) == ["Kim", "Lee"])
    }

    @Test func aFetchSeesUnsavedInsertsAndNotDeletedObjects() throws {
        let context = try seeded()
        let new = context.insertObject(forEntityName: "Person")
        new["lastName"] = .string("Aaron")
        new["age"] = .int(99)
        let kim = try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Kim'")))[0]
        context.delete(kim)
        let lee = try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Lee'")))[0]
        lee["age"] = .int(1)
        #expect(try names(context, "age > 40") == ["Aaron", "Sable"])
        #expect(try names(context, "age > 40", sort: "age:NO", limit: 2) == ["Aaron", "Sable"])
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age > 40"))
        #expect(try context.count(for: request) == 2)
        request.includesPendingChanges = false
        #expect(try context.count(for: request) == 3)
    }

    @Test func subentitiesAreIncludedUnlessTurnedOff() throws {
        let context = try seeded()
        var request = FetchRequest(entityName: "Person")
        #expect(try context.count(for: request) == 10)
        request.includesSubentities = false
        #expect(try context.count(for: request) == 9)
        #expect(try context.count(for: FetchRequest(entityName: "Manager")) == 1)
        #expect(try context.fetch(FetchRequest(entityName: "Manager"))[0].entity.name == "Manager")
    }

    @Test func batchedResultsLoadOnDemand() throws {
        let context = try seeded()
        var request = FetchRequest(entityName: "Person")
        request.sortDescriptors = try SortSpec.parse("age")
        request.fetchBatchSize = 3
        let results = try context.fetch(request)
        #expect(results.count == 10)
        let ages: [Value] = results.map { $0["age"] }
        let expected: [Value] = (0..<10).map { (n: Int) -> Value in .int(Int64(10 + n * 5)) }
        #expect(ages == expected)
    }

    @Test func aChildFetchSeesTheParentsUnsavedChanges() throws {
        let context = try seeded()
        let p = context.insertObject(forEntityName: "Person")
        p["lastName"] = .string("Parent")
        let child = ManagedObjectContext(concurrencyType: .confined, parent: context)
        #expect(try names(child, "lastName == 'Parent'") == ["Parent"])
        let c = child.insertObject(forEntityName: "Person")
        c["lastName"] = .string("Child")
        #expect(try names(child, "lastName ENDSWITH 't' OR lastName == 'Child'") == ["Child", "Parent"])
        #expect(try names(context, "lastName == 'Child'").isEmpty)
    }

    @Test func unknownKeysAreErrorsWithSuggestions() throws {
        let context = try seeded()
        #expect {
            _ = try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "agee > 3")))
        } throws: { error in
            "\(error)" == "unknown key 'agee' on Person; did you mean 'age'?"
        }
    }
}
