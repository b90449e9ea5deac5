import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing
import PostgresTestServer

/// What a small save costs in round trips to the server: the latency a
/// writer pays per save.
@Suite struct PostgresSaveRoundTripTests {
    @Test func aSaveOfOneUpdateTakesThreeRoundTrips() throws {
        let coordinator = try PostgresBatchDeleteTests.postgres(try PostgresBatchDeleteTests.pairModel())
        let store = try #require(coordinator.backends.first as? PostgresStore)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let item = context.insertObject(forEntityName: "Item")
        try context.save()
        var trips: [Int] = []
        for value in 1...3 {
            let before = store.roundTrips
            item["value"] = .int(Int64(value))
            try context.save()
            trips.append(store.roundTrips - before)
        }
        // The first prepares its statements; then BEGIN and the UPDATE in
        // one pipeline, the pg_notify for other processes, COMMIT: no
        // savepoint, no BEGIN of its own.
        #expect(Array(trips.dropFirst()) == [3, 3], "\(trips)")
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try fresh.fetch(FetchRequest(entityName: "Item")).map { $0["value"] } == [.int(3)])
    }

    /// A batch update whose values only the evaluator computes (integer
    /// arithmetic on PostgreSQL, a string function on both) writes many
    /// rows a statement, not one each: 1,200 rows in a handful of round
    /// trips, with the values SQLite's store gets.
    @Test func valuesComputedInMemoryGoManyRowsAStatement() throws {
        let model = try DifferentialModel.make()
        let sqlite = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model))
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: .postgres, at: URL(string: try PostgresServer.shared().createSchema())!)
        let postgres = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let store = try #require(coordinator.backends.first as? PostgresStore)
        for context in [sqlite, postgres] {
            for n in 0..<1_200 {
                let item = context.insertObject(forEntityName: "Item")
                item["i32"] = n % 7 == 0 ? .null : .int(Int64(n))
                item["name"] = .string("item \(n)")
                item["i16"] = .int(Int64(n % 50))
            }
            try context.save()
        }
        let request = BatchUpdateRequest(
            entityName: "Item", predicate: try Predicate(format: "i16 < 40"),
            propertiesToUpdate: ["i32": .expression(try Expression(format: "i32 * 3 + 1")),
                                 "note": .expression(try Expression(format: "uppercase:(name)")),
                                 "flag": .value(.bool(true))])
        let before = store.roundTrips
        let updated = try postgres.execute(request).count
        #expect(updated == 960)
        #expect(store.roundTrips - before < 30, "\(store.roundTrips - before) round trips")
        #expect(try sqlite.execute(request).count == 960)
        func rows(_ context: ManagedObjectContext) throws -> [String] {
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
            var all = FetchRequest(entityName: "Item")
            all.sortDescriptors = try SortSpec.parse("name")
            return try fresh.fetch(all).map { "\($0["name"]) \($0["i32"]) \($0["note"]) \($0["flag"])" }
        }
        let expected = try rows(sqlite)
        #expect(expected.contains("string(\"item 8\") int(25) string(\"ITEM 8\") bool(true)"), "\(expected.prefix(3))")
        #expect(try rows(postgres) == expected)
    }
}
