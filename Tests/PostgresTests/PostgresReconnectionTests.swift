import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// A server that drops its connections (restarted, or a DBA's
/// `pg_terminate_backend`) while a coordinator sits idle.
@Suite struct PostgresReconnectionTests {
    /// Ends every other connection to `url`'s database, as a restart does.
    static func dropConnections(to url: String) throws {
        let connection = try PostgresConnection(url)
        _ = try connection.rows("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
    }

    /// A read runs again once on a fresh connection, and says so.
    @Test func aReadRunsAgainOnAFreshConnection() throws {
        let url = try PostgresServer.shared().createDatabase()
        let coordinator = try PersistentStoreCoordinator.onPostgres(try TestModels.constrained(), url: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        context.insertObject(forEntityName: "Department")["name"] = .string("Sales")
        try context.save()
        #expect(coordinator.takeStoreNotices().isEmpty)

        try Self.dropConnections(to: url)
        #expect(try context.count(for: FetchRequest(entityName: "Department")) == 1)
        #expect(coordinator.takeStoreNotices().map { $0.hasPrefix("reconnected to PostgreSQL (") } == [true])
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        try Self.dropConnections(to: url)
        #expect(try fresh.fetch(FetchRequest(entityName: "Department")).count == 1)
        #expect(coordinator.takeStoreNotices().count == 1)
        #expect(coordinator.takeStoreNotices().isEmpty)
    }

    /// A write is not run again: it is reported not applied, with the
    /// reconnection said, and the context keeps its changes to save again.
    @Test func aWriteIsReportedNotAppliedAndKept() throws {
        let url = try PostgresServer.shared().createDatabase()
        let coordinator = try PersistentStoreCoordinator.onPostgres(try TestModels.constrained(), url: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        context.insertObject(forEntityName: "Department")["name"] = .string("Sales")
        try context.save()
        context.insertObject(forEntityName: "Department")["name"] = .string("Ops")

        try Self.dropConnections(to: url)
        let failed = #expect(throws: StoreError.self) { try context.save() }
        #expect(failed?.message.contains("nothing of it was written") == true, "\(failed?.message ?? "")")
        #expect(failed?.message.contains("reconnected to PostgreSQL (") == true)
        #expect(context.hasChanges)
        #expect(try PostgresConnection(url).scalar("SELECT count(*) FROM \"Department\"") == .int(1))
        try context.save()
        #expect(try PostgresConnection(url).scalar("SELECT count(*) FROM \"Department\"") == .int(2))
    }
}
