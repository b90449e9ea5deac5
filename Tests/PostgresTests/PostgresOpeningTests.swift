import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import PostgresTestServer
import Predicates
import Testing

/// Reading a PostgreSQL store before opening it (the migration preview),
/// and opening it while another process migrates it.
@Suite struct PostgresOpeningTests {
    typealias Migration = PostgresMigrationTests

    /// The preview at a `postgres://` URL is the one at a SQLite file
    /// holding the same model and rows, and reading it writes nothing.
    @Test func testThePreviewAtAURLIsTheSQLiteFilesPreview() throws {
        let v1 = try Migration.model(Migration.v1)
        let v2 = try Migration.model(Migration.v2)
        let path = URL(fileURLWithPath: TestModels.temporaryStorePath())
        let url = URL(string: try PostgresServer.shared().createDatabase())!
        #expect(try PersistentStoreCoordinator.migrationPreview(at: url, model: v2) == nil)  // no store yet
        try Migration.seed(try Migration.open(v1, path, type: .sqlite))
        try Migration.seed(try Migration.open(v1, url, type: .postgres))
        let before = try Migration.snapshot(url.absoluteString)

        let onSQLite = try #require(try PersistentStoreCoordinator.migrationPreview(at: path, model: v2))
        let onPostgres = try #require(try PersistentStoreCoordinator.migrationPreview(at: url, model: v2))
        #expect(onPostgres.description == onSQLite.description)
        #expect(onPostgres.changes == onSQLite.changes)
        #expect(onPostgres.losses == onSQLite.losses)
        #expect(onPostgres.changes.contains("removed attribute Person.fax (4 values dropped)"))
        #expect(try PersistentStoreCoordinator.migrationPreview(at: url, model: v1) == nil)
        #expect(try PersistentStoreCoordinator.storedModel(at: url)?.fingerprint == v1.fingerprint)

        // A change that cannot be migrated is refused alike.
        let changedType = try Migration.model(Migration.v1.replacingOccurrences(
            of: #"name="age" optional="YES" attributeType="Integer 64""#, with: #"name="age" optional="YES" attributeType="String""#))
        let sqliteRefusal = #expect(throws: StoreError.self) { try PersistentStoreCoordinator.migrationPreview(at: path, model: changedType) }
        let postgresRefusal = #expect(throws: StoreError.self) { try PersistentStoreCoordinator.migrationPreview(at: url, model: changedType) }
        #expect(postgresRefusal?.kind == sqliteRefusal?.kind)
        #expect(try Migration.snapshot(url.absoluteString) == before)
    }

    /// What another process taking the schema's lock looks like: a
    /// transaction holding it.
    static func holdingTheSchemaLock<T>(_ connection: PostgresConnection, _ body: () throws -> T) throws -> T {
        try connection.transaction {
            try connection.execute(PostgresSchema.lockSchema)
            return try body()
        }
    }

    /// Runs `body` on a thread of its own; `wait` returns its result.
    final class Background<T: Sendable>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<T, any Error>?

        init(_ body: @escaping @Sendable () throws -> T) {
            Thread { [self] in
                result = Result { try body() }
                done.signal()
            }.start()
        }

        func isDone(after seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

        func wait() throws -> T {
            done.wait()
            return try result!.get()
        }
    }

    /// A second process opening the store while a first migrates it waits
    /// on the schema's lock past its `busyTimeout` (here 0.2 s), then
    /// opens the store the first one migrated.
    @Test func testOpeningWaitsForAMigrationUnderWayThenOpensTheMigratedStore() throws {
        let v1 = try Migration.model(Migration.v1)
        let v2 = try Migration.model(Migration.v2)
        let url = try PostgresServer.shared().createDatabase()
        try Migration.seed(try Migration.open(v1, URL(string: url)!, type: .postgres))
        let migrator = try PostgresConnection(url)
        var options = PersistentStoreOptions()
        options.busyTimeout = 0.2
        let opening = try Self.holdingTheSchemaLock(migrator) {
            // Opened with v2 and no migration asked: it opens only once the
            // migration below has committed.
            let opening = Background { [options] in try Migration.dump(try Migration.open(v2, URL(string: url)!, type: .postgres, options: options)) }
            #expect(waitUntil {
                (try? migrator.scalar("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                                      + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")) == .int(1)
            })
            #expect(!opening.isDone(after: 1), "still waiting, past its busyTimeout")
            var migrate = Migration.options(migrating: true, allowingLoss: true)
            migrate.busyTimeout = 0.2
            _ = try PostgresSchema.prepare(migrator, mapping: SchemaMapping(model: v2), model: v2, readOnly: false, options: migrate)
            return opening
        }
        let opened = try opening.wait()
        #expect(opened.count == 8)
        #expect(opened.contains { $0.hasPrefix("Person Ann active=true") })
    }

    /// With `migrationLockTimeout`, the wait ends there with an error
    /// saying another process is migrating; nothing is written.
    @Test func testOpeningGivesUpAtTheMigrationLockTimeoutSayingWhy() throws {
        let v1 = try Migration.model(Migration.v1)
        let url = try PostgresServer.shared().createDatabase()
        try Migration.seed(try Migration.open(v1, URL(string: url)!, type: .postgres))
        let migrator = try PostgresConnection(url)
        var options = PersistentStoreOptions()
        options.migrationLockTimeout = 0.3
        let failure = try Self.holdingTheSchemaLock(migrator) {
            #expect(throws: StoreError.self) { try Migration.open(v1, URL(string: url)!, type: .postgres, options: options) }
        }
        #expect(failure?.kind == .locked)
        #expect(failure?.description.contains("another process is creating or migrating the PostgreSQL store") == true)
        #expect(failure?.description.contains("migrationLockTimeout") == true)
        // Once the lock is free, it opens.
        #expect(try Migration.dump(try Migration.open(v1, URL(string: url)!, type: .postgres, options: options)).count == 8)
    }

    /// The lock is the schema's: a store in another schema of the same
    /// database opens while one is being migrated.
    @Test func testAMigrationInOneSchemaDoesNotHoldUpAnother() throws {
        let v1 = try Migration.model(Migration.v1)
        let migrating = try PostgresServer.shared().createSchema()
        let other = URL(string: try PostgresServer.shared().createSchema())!
        var options = PersistentStoreOptions()
        options.migrationLockTimeout = 0.3
        let opened = try Self.holdingTheSchemaLock(try PostgresConnection(migrating)) {
            try Migration.open(v1, other, type: .postgres, options: options)
        }
        try Migration.seed(opened)
        #expect(try Migration.dump(opened).count == 8)
    }
}

extension PostgresRemoteChangeTests {
    /// A child of a context that merges remote changes shows, in its
    /// fetched results, an object another process updated into them,
    /// though neither it nor its parent had read it; and the objects it
    /// holds take the new values from its parent.
    @Test func aChildsFetchedResultsTakeRemoteUpdatesItNeverRead() throws {
        let pair = try Pair()
        let writing = try pair.writing([("Ann", 30), ("Dee", 80)])
        #expect(waitUntil { pair.notes.inserted.count == 2 })

        let root = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: pair.reader)
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
        child.automaticallyMergesChangesFromParent = true
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age < 60"))
        request.sortDescriptors = try SortSpec.parse("name")
        let controller = FetchedResultsController(fetchRequest: request, context: child)
        let recorder = Recorder()
        try child.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
        }
        #expect(fetchedNames(controller, in: child) == ["Ann"])
        let ann = try child.performAndWait { try #require(controller.fetchedObjects?.first) }

        for object in try writing.fetch(FetchRequest(entityName: "Person")) {
            object["age"] = object["name"] == .string("Ann") ? .int(31) : .int(20)
        }
        try writing.save()
        #expect(waitUntil { fetchedNames(controller, in: child) == ["Ann", "Dee"] })
        #expect(child.performAndWait { ann["age"] } == .int(31))
        let recorded = child.performAndWait { recorder.changes.map { "\($0.0) \($0.1)" }.sorted() }
        #expect(recorded == ["insert Dee", "update Ann"])
    }
}
