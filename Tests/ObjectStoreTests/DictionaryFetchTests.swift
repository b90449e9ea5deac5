import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate

@Suite struct DictionaryFetchTests {
    private func seeded() throws -> ManagedObjectContext { try TestModels.seededPeople() }

    private func day(_ n: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(n) * 86_400) }

    private func request(_ properties: [PropertyToFetch], where format: String? = nil, sort: String = "",
                         groupBy: [String]? = nil, having: String? = nil) throws -> FetchRequest {
        var request = FetchRequest(entityName: "Person")
        request.resultType = .dictionary
        request.propertiesToFetch = properties
        request.predicate = try format.map { try Predicate(format: $0) }
        request.sortDescriptors = sort.isEmpty ? [] : try SortSpec.parse(sort)
        request.propertiesToGroupBy = groupBy
        request.havingPredicate = try having.map { try Predicate(format: $0) }
        return request
    }

    private func departmentKey(_ context: ManagedObjectContext, _ name: String) throws -> Int64 {
        let request = FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == '\(name)'"))
        return try context.fetchObjectIDs(request)[0].primaryKey
    }

    @Test func keyPathsThroughToOneAndRelationshipKeys() throws {
        let context = try seeded()
        let rows = try context.fetchDictionaries(try request(
            [PropertyToFetch(keyPath: "lastName"), PropertyToFetch(keyPath: "department.name"),
             PropertyToFetch(keyPath: "department")],
            where: "age > 40", sort: "lastName"))
        let ops = Value.int(try departmentKey(context, "Operations"))
        #expect(rows == [
            ["lastName": "Kim", "department.name": "Operations", "department": ops],
            ["lastName": "Lee", "department.name": "Operations", "department": ops],
            ["lastName": "Sable", "department.name": "Operations", "department": ops],
        ])
    }

    @Test func nilValuesAreLeftOutOfDictionariesButKeptInRows() throws {
        let context = try seeded()
        let request = try request([PropertyToFetch(keyPath: "lastName"), PropertyToFetch(keyPath: "score"),
                                   PropertyToFetch(keyPath: "born")], where: "lastName == 'Brown' OR lastName == 'Jones'",
                                  sort: "lastName")
        #expect(try context.fetchDictionaries(request) == [
            ["lastName": "Brown", "born": .date(day(3))],
            ["lastName": "Jones", "score": 0.5],
        ])
        let rows = try context.fetchRows(request)
        #expect(rows.columns == ["lastName", "score", "born"])
        #expect(rows.rows == [[.string("Brown"), .null, .date(day(3))], [.string("Jones"), .double(0.5), .null]])
    }

    @Test func everyPropertyWhenNoneAreNamed() throws {
        let context = try seeded()
        var request = FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == 'Operations'"))
        request.resultType = .dictionary
        let rows = try context.fetchRows(request)
        #expect(rows.columns == ["name", "budget"])
        #expect(rows.rows == [[.string("Operations"), .double(0)]])
    }

    @Test func aggregatesAreTypedByTheirAttributes() throws {
        let context = try seeded()
        let rows = try context.fetchRows(try request([
            PropertyToFetch(.sum, of: "age", as: "sumAge"),
            PropertyToFetch(.average, of: "age", as: "avgAge"),
            PropertyToFetch(.min, of: "age", as: "minAge"),
            PropertyToFetch(.max, of: "score", as: "maxScore"),
            PropertyToFetch(.sum, of: "score", as: "sumScore"),
            PropertyToFetch(.count, of: "", as: "rows"),
            PropertyToFetch(.count, of: "score", as: "scores"),
            PropertyToFetch(.min, of: "born", as: "firstBorn"),
            PropertyToFetch(.max, of: "born", as: "lastBorn"),
            PropertyToFetch(.sum, of: "active", as: "activeCount"),
            PropertyToFetch(.max, of: "lastName", as: "lastName"),
            PropertyToFetch(.min, of: "active", as: "anyInactive"),
        ]))
        #expect(rows.rows == [[
            .int(325), .double(32.5), .int(10), .double(4.0), .double(13.5), .int(10), .int(6),
            .date(day(0)), .date(day(9)), .int(7), .string("smith"), .bool(false),
        ]])
    }

    @Test func aggregatesOfNothing() throws {
        let context = try seeded()
        let rows = try context.fetchRows(try request([
            PropertyToFetch(.sum, of: "age"), PropertyToFetch(.sum, of: "score"), PropertyToFetch(.average, of: "age"),
            PropertyToFetch(.max, of: "born"), PropertyToFetch(.count, of: ""),
        ], where: "age > 1000"))
        #expect(rows.columns == ["sum(age)", "sum(score)", "average(age)", "max(born)", "count()"])
        #expect(rows.rows == [[.int(0), .double(0), .null, .null, .int(0)]])
    }

    @Test func groupsWithHavingOverFetchedNames() throws {
        let context = try seeded()
        let properties = [PropertyToFetch(keyPath: "department.name"), PropertyToFetch(.count, of: "", as: "people"),
                          PropertyToFetch(.sum, of: "age", as: "total"), PropertyToFetch(.average, of: "score", as: "meanScore")]
        let all = try context.fetchDictionaries(try request(properties, groupBy: ["department.name"]))
        let expected: [[String: Value]] = [
            ["department.name": .string("Engineering"), "people": .int(5), "total": .int(100), "meanScore": .double(3.5 / 3)],
            ["department.name": .string("Operations"), "people": .int(5), "total": .int(225), "meanScore": .double(10.0 / 3)],
        ]
        #expect(all == expected)
        let big = try context.fetchDictionaries(try request(properties, groupBy: ["department.name"], having: "total > 150"))
        #expect(big.map { $0["department.name"] } == [.string("Operations")])
        // A HAVING part SQL cannot express (division) runs on the rows.
        let exact = try context.fetchDictionaries(try request(properties, groupBy: ["department.name"],
                                                              having: "total / people == 20 AND people > 1"))
        #expect(exact.map { $0["department.name"] } == [.string("Engineering")])
        let byKeyPath = try context.fetchDictionaries(try request(properties, groupBy: ["department.name"],
                                                                  having: "department.name BEGINSWITH 'O'"))
        #expect(byKeyPath.map { $0["total"] } == [.int(225)])
    }

    @Test func sortingByFetchedNamesWithLimitAndOffset() throws {
        let context = try seeded()
        let properties = [PropertyToFetch(keyPath: "department.name"), PropertyToFetch(.sum, of: "age", as: "total")]
        var request = try request(properties, sort: "total:NO", groupBy: ["department.name"])
        request.fetchLimit = 1
        #expect(try context.fetchDictionaries(request) == [["department.name": "Operations", "total": 225]])
        request.fetchOffset = 1
        #expect(try context.fetchDictionaries(request) == [["department.name": "Engineering", "total": 100]])
        // With a HAVING residual, the window applies after the filter.
        request.havingPredicate = try Predicate(format: "total / 5 >= 20")
        request.fetchOffset = 1
        #expect(try context.fetchDictionaries(request) == [["department.name": "Engineering", "total": 100]])

        var plain = try self.request([PropertyToFetch(keyPath: "lastName")], sort: "department.name:NO,age:NO")
        plain.fetchLimit = 3
        plain.fetchOffset = 1
        #expect(try context.fetchDictionaries(plain) == [["lastName": "Kim"], ["lastName": "Sable"], ["lastName": "Adams"]])
    }

    @Test func distinctResults() throws {
        let context = try seeded()
        var request = try request([PropertyToFetch(keyPath: "department.name"), PropertyToFetch(keyPath: "active")],
                                  sort: "department.name:NO")
        request.returnsDistinctResults = true
        #expect(try context.fetchRows(request).rows == [
            [.string("Operations"), .bool(false)], [.string("Operations"), .bool(true)],
            [.string("Engineering"), .bool(false)], [.string("Engineering"), .bool(true)],
        ])
    }

    @Test func aResidualPredicateRunsOnTheMatchingRowsOnly() throws {
        let context = try seeded()
        // age ** 1 > 40 is evaluated in memory: ages 45, 50, 55.
        let request = try request([PropertyToFetch(.sum, of: "age", as: "total"), PropertyToFetch(.count, of: "", as: "n")],
                                  where: "age ** 1 > 40 AND lastName != 'Kim'")
        let store = context.persistentStoreCoordinator!.store
        let entity = context.model.entity(named: "Person")!
        #expect(try DictionaryPlan(request: request, entity: entity, store: store).whereResidual != nil)
        #expect(try context.fetchDictionaries(request) == [["total": 100, "n": 2]])
    }

    @Test func unsavedChangesAreIgnored() throws {
        let context = try seeded()
        let extra = context.insertObject(forEntityName: "Person")
        extra["lastName"] = .string("Unsaved")
        extra["age"] = .int(99)
        let lee = try context.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "lastName == 'Lee'")))[0]
        lee["age"] = .int(1)
        #expect(try context.aggregate(.sum, of: "age", entity: "Person") == .int(325))
        // Also when part of the predicate is evaluated in memory.
        #expect(try context.aggregate(.count, of: "", entity: "Person", where: try Predicate(format: "age ** 1 > 50")) == .int(1))
        #expect(try context.aggregate(.max, of: "age", entity: "Person", where: try Predicate(format: "age ** 1 > 40")) == .int(55))
    }

    @Test func theAggregateConvenience() throws {
        let context = try seeded()
        #expect(try context.aggregate(.sum, of: "age", entity: "Person") == .int(325))
        #expect(try context.aggregate(.count, of: "", entity: "Person", where: try Predicate(format: "score != nil")) == .int(6))
        #expect(try context.aggregate(.average, of: "score", entity: "Person", where: try Predicate(format: "age < 0")) == .null)
        #expect(try context.aggregate(.min, of: "born", entity: "Manager") == .date(day(0)))
        #expect(try context.aggregate(.max, of: "age", entity: "Person", where: nil, groupBy: ["department.name", "active"]) == [
            AggregateGroup(keys: [.string("Engineering"), .bool(false)], value: .int(30)),
            AggregateGroup(keys: [.string("Engineering"), .bool(true)], value: .int(25)),
            AggregateGroup(keys: [.string("Operations"), .bool(false)], value: .int(45)),
            AggregateGroup(keys: [.string("Operations"), .bool(true)], value: .int(55)),
        ])
    }

    @Test func subentitiesCountUnlessTurnedOff() throws {
        let context = try seeded()
        var request = try request([PropertyToFetch(.count, of: "")])
        #expect(try context.fetchRows(request).rows == [[.int(10)]])
        request.includesSubentities = false
        #expect(try context.fetchRows(request).rows == [[.int(9)]])
    }

    @Test func theSQLIsOneSelect() throws {
        let context = try seeded()
        let request = try request([PropertyToFetch(keyPath: "department.name"), PropertyToFetch(.sum, of: "age", as: "total")],
                                  where: "age > 18", sort: "total:NO", groupBy: ["department.name"], having: "total > 100")
        let plan = try DictionaryPlan(request: request, entity: context.model.entity(named: "Person")!,
                                      store: context.persistentStoreCoordinator!.store)
        #expect(plan.sql == """
            SELECT a1."name", COALESCE(SUM(t."age"), 0) FROM "Person" t LEFT JOIN "Department" a1 ON a1."_pk" = t."department" \
            WHERE t."age" > ?1 GROUP BY a1."name" HAVING COALESCE(SUM(t."age"), 0) > ?2 \
            ORDER BY COALESCE(SUM(t."age"), 0) DESC, 1, 2
            """)
        #expect(plan.bindings == [.int(18), .int(100)])
    }

    @Test(arguments: [
        (["lastName"], "sum", "age", [String]?.none, "'lastName' must be grouped by, or aggregated, when a dictionary fetch groups or aggregates"),
        ([], "sum", "lastName", nil, "cannot take the sum of 'lastName' (String)"),
        ([], "average", "born", nil, "cannot take the average of 'born' (Date)"),
        ([], "sum", "department", nil, "cannot take the sum of 'department' (a relationship)"),
        ([], "max", "tags.label", nil, "cannot max 'tags.label': to-many in a scalar key path"),
        (["agee"], "count", "", nil, "unknown key 'agee' on Person; did you mean 'age'?"),
        (["lastName"], "count", "", ["firstName"], "'lastName' must be grouped by, or aggregated, when a dictionary fetch groups or aggregates"),
        ([], "min", "", nil, "min needs a key path; only count counts rows"),
    ])
    func invalidRequestsSayWhy(plain: [String], function: String, keyPath: String, groupBy: [String]?, message: String) throws {
        let context = try seeded()
        let properties = plain.map { PropertyToFetch(keyPath: $0) } + [PropertyToFetch(PropertyToFetch.Function(rawValue: function)!, of: keyPath)]
        #expect {
            _ = try context.fetchRows(try request(properties, groupBy: groupBy))
        } throws: { error in
            "\(error)" == message
        }
    }

    /// The cursor form hands over the same rows as the array form, one
    /// at a time, and stops when its body throws.
    @Test func theCursorStreamsTheRowsAndStopsWhenAsked() throws {
        let context = try seeded()
        let request = try request([PropertyToFetch(keyPath: "lastName"), PropertyToFetch(keyPath: "department.name")],
                                  sort: "lastName")
        var streamed: [[Value]] = []
        let columns = try context.fetchRows(request) { streamed.append($0) }
        #expect(columns == ["lastName", "department.name"])
        #expect(streamed == (try context.fetchRows(request)).rows)
        #expect(streamed.count == 10)

        struct Enough: Error {}
        var seen = 0
        #expect(throws: Enough.self) {
            try context.fetchRows(request) { _ in
                seen += 1
                if seen == 3 { throw Enough() }
            }
        }
        #expect(seen == 3)
        // The statement was reset: the next fetch starts from the first row.
        var first: [Value]?
        try context.fetchRows(request) { row in if first == nil { first = row } }
        #expect(first == streamed.first)
    }

    /// With a HAVING residual the cursor filters, then windows, as the
    /// array form does.
    @Test func theCursorWindowsAfterAHavingResidual() throws {
        let context = try seeded()
        let properties = [PropertyToFetch(keyPath: "department.name"), PropertyToFetch(.sum, of: "age", as: "total")]
        var request = try request(properties, sort: "total", groupBy: ["department.name"], having: "total / 5 >= 20")
        request.fetchOffset = 1
        var rows: [[Value]] = []
        try context.fetchRows(request) { rows.append($0) }
        #expect(rows == [[.string("Operations"), .int(225)]])
        request.fetchOffset = 0
        request.fetchLimit = 1
        rows = []
        try context.fetchRows(request) { rows.append($0) }
        #expect(rows == [[.string("Engineering"), .int(100)]])
    }

    @Test func havingReadsOnlyFetchedNamesInMemory() throws {
        let context = try seeded()
        let request = try request([PropertyToFetch(keyPath: "department.name"), PropertyToFetch(.sum, of: "age", as: "total")],
                                  groupBy: ["department.name"], having: "total ** 1 > budget")
        #expect {
            _ = try context.fetchRows(request)
        } throws: { error in
            "\(error)".contains("'budget' is not a fetched property")
        }
    }
}
