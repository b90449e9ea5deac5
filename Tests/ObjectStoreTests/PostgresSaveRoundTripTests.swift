import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

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
}
