import Foundation
@testable import ObjectStore
import Testing

/// `PersistentStoreCoordinator.openingStore(at:options:)`: a store opened
/// with the model it keeps, in one step; read-only, a SQLite store reads
/// its model and its rows through one connection (issue 31, big models).
@Suite struct OpeningStoreTests {
    static func files(_ url: URL) -> [String: Data] {
        var contents: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            contents[suffix] = FileManager.default.contents(atPath: url.path + suffix)
        }
        return contents
    }

    @Test func aReadOnlyCoreDataStoreOpensWithItsModelOnOneConnection() throws {
        let url = try CoreDataLayoutTests.populatedStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = Self.files(url)
        var options = PersistentStoreOptions()
        options.readOnly = true
        let coordinator = try PersistentStoreCoordinator.openingStore(at: url, options: options)
        let original = try CoreDataLayoutTests.model()
        #expect(coordinator.model.entities.map(\.name).sorted() == original.entities.map(\.name).sorted())
        #expect(coordinator.model.entityVersionHashesByName == original.entityVersionHashesByName)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Note")) == 4)
        #expect(try context.fetch(FetchRequest(entityName: "Folder")).first?.objects(forKey: "notes").count == 3)
        let store = coordinator.store
        #expect(store.readConnectionCount == 0, "the store opened a connection besides the one its model was read on")
        #expect(store.statementsStarted == store.database.statementsStarted)
        context.insertObject(forEntityName: "Tag")
        let error = #expect(throws: StoreError.self) { try context.save() }
        #expect(error?.kind == .readOnly)
        coordinator.removeStores()
        #expect(Self.files(url) == before, "opening read-only changed the store's files")
    }

    @Test func aStoreThatKeepsNoModelIsNotFound() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-opening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = PersistentStoreOptions()
        options.readOnly = true
        let missing = directory.appendingPathComponent("none.sqlite")
        let error = #expect(throws: StoreError.self) { try PersistentStoreCoordinator.openingStore(at: missing, options: options) }
        #expect(error?.kind == .notFound)
        #expect(error?.description.contains("keeps no model") == true)
        // A SQLite database that is no store keeps no model either.
        let other = directory.appendingPathComponent("other.sqlite")
        try Database(path: other.path).execute("CREATE TABLE t (x)")
        let otherError = #expect(throws: StoreError.self) { try PersistentStoreCoordinator.openingStore(at: other, options: options) }
        #expect(otherError?.kind == .notFound)
        #expect(!FileManager.default.fileExists(atPath: missing.path), "opening read-only made a file")
    }

    @Test func openingForWritingReadsTheModelThenOpensTheStore() throws {
        let url = try CoreDataLayoutTests.populatedStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let coordinator = try PersistentStoreCoordinator.openingStore(at: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let tag = context.insertObject(forEntityName: "Tag")
        tag["name"] = .string("new")
        try context.save()
        coordinator.removeStores()
        var options = PersistentStoreOptions()
        options.readOnly = true
        let reopened = try PersistentStoreCoordinator.openingStore(at: url, options: options)
        let reading = ManagedObjectContext(concurrencyType: .confined, coordinator: reopened)
        let tags = try reading.fetch(FetchRequest(entityName: "Tag"))
        #expect(tags.compactMap { CoreDataLayoutTests.text($0["name"]) }.sorted() == ["food", "new", "swift"])
    }
}
