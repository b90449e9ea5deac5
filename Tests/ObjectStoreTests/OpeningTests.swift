import Foundation
import Synchronization
import Testing
@testable import ObjectStore
import Predicates

/// Issue 16, items 1 and 2: opening never changes a store unless asked,
/// and a bundle's version is picked as Xcode picks it.
@Suite struct OpeningTests {
    /// People (name, age) in departments.
    static func people() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Department") {
                Attribute("name", .string)
                ToMany("people", "Person", inverse: "department")
            }
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer16, default: .int(0))
                Attribute("fax", .string)
                ToOne("department", "Department", inverse: "people")
            }
        }
    }

    /// Two processes (two connections on two threads here) creating the
    /// same new store at once, as two server workers starting together do:
    /// one lays it out, the other opens what it laid out.
    @Test func twoOpenersCreatingTheSameStoreAtOnceBothOpenIt() throws {
        let model = try Self.people()
        for _ in 0..<12 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-open-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let url = directory.appendingPathComponent("people.sqlite")
            let identifiers = Mutex<[String]>([])
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    let coordinator = PersistentStoreCoordinator(model: model)
                    try coordinator.addSQLiteStore(at: url)
                    identifiers.withLock { $0.append(coordinator.store.identifier) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let ids = identifiers.withLock { $0 }
            #expect(ids.count == 2 && Set(ids).count == 1)
        }
    }

    /// Another app's model: nothing in common.
    static func mail() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("User") { Attribute("email", .string) }
        }
    }

    /// A store of `people()` with two departments, three people (two with
    /// a fax) in a fresh directory.
    static func seededStore() throws -> (directory: URL, url: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("people.sqlite")
        let coordinator = PersistentStoreCoordinator(model: try people())
        try coordinator.addSQLiteStore(at: url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let eng = context.insertObject(forEntityName: "Department")
        eng["name"] = .string("Eng")
        context.insertObject(forEntityName: "Department")["name"] = .string("Ops")
        for (name, fax) in [("Ada", "1"), ("Bob", nil), ("Cy", "3")] {
            let person = context.insertObject(forEntityName: "Person")
            person["name"] = .string(name)
            person["fax"] = fax.map(Value.string) ?? .null
            person.setObject(eng, forKey: "department")
        }
        try context.save()
        return (directory, url)
    }

    /// Every file of a directory: name, size, modification time, bytes.
    static func snapshot(_ directory: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let path = directory.appendingPathComponent(name).path
            var info = stat()
            stat(path, &info)
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
            result[name] = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(bytes.hashValue)"
        }
        return result
    }

    static func open(_ url: URL, _ model: ManagedObjectModel, migrate: Bool = false, dropData: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: url, migratesAutomatically: migrate, allowsMigrationDataLoss: dropData)
        return coordinator
    }

    static func refusal(_ body: () throws -> Void) -> StoreError? {
        do {
            try body()
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func anotherModelDoesNotOpenAndTheStoreIsLeftAsItWas() throws {
        let (directory, url) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.snapshot(directory)
        let error = try #require(Self.refusal { _ = try Self.open(url, try Self.mail()) })
        #expect(error.kind == .modelMismatch)
        #expect(error.message.contains("added entity User"), "\(error)")
        #expect(error.message.contains("removed entity Person (3 rows dropped)"), "\(error)")
        #expect(error.message.contains("migratesAutomatically"), "\(error)")
        #expect(error.migration?.dropsData == true)
        #expect(try Self.snapshot(directory) == before)
        // Still the store it was.
        let again = try Self.open(url, try Self.people())
        #expect(try ManagedObjectContext(concurrencyType: .confined, coordinator: again).count(for: FetchRequest(entityName: "Person")) == 3)
    }

    @Test func aMigrationThatDropsDataIsRefusedUnlessThatIsAskedForToo() throws {
        let (directory, url) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The same model without the fax: two values would go.
        let lean = try ManagedObjectModel {
            Entity("Department") {
                Attribute("name", .string)
                ToMany("people", "Person", inverse: "department")
            }
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer16, default: .int(0))
                ToOne("department", "Department", inverse: "people")
            }
        }
        let before = try Self.snapshot(directory)
        let error = try #require(Self.refusal { _ = try Self.open(url, lean, migrate: true) })
        #expect(error.message.contains("would drop data (Person.fax: 2 values)"), "\(error)")
        #expect(error.message.contains("allowsMigrationDataLoss"), "\(error)")
        #expect(try Self.snapshot(directory) == before)
        let migrated = try Self.open(url, lean, migrate: true, dropData: true)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: migrated)
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 3)
    }

    @Test func aModelLackingOneEntityIsRefusedWhileOnlyReading() throws {
        let (directory, url) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let departmentsOnly = try ManagedObjectModel { Entity("Department") { Attribute("name", .string) } }
        let before = try Self.snapshot(directory)
        let error = try #require(Self.refusal { _ = try Self.open(url, departmentsOnly) })
        #expect(error.message.contains("removed entity Person (3 rows dropped)"), "\(error)")
        #expect(try Self.snapshot(directory) == before)
    }

    @Test func thePreviewSaysWhatWouldChangeAndWritesNothing() throws {
        let (directory, url) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.snapshot(directory)
        let preview = try #require(try PersistentStoreCoordinator.migrationPreview(at: url, model: try Self.mail()))
        #expect(preview.changes.contains("removed entity Department (2 rows dropped)"))
        #expect(preview.losses.map(\.count).reduce(0, +) == 5)
        #expect(try PersistentStoreCoordinator.migrationPreview(at: url, model: try Self.people()) == nil)
        let now = try Self.snapshot(directory)
        #expect(now == before, "\(now) vs \(before)")
    }

    // MARK: - Versions

    /// A bundle holding each model under its version name.
    static func bundle(_ versions: [(String, ManagedObjectModel)], marker: String?, in directory: URL) throws -> URL {
        let bundle = directory.appendingPathComponent("Shop.xcdatamodeld")
        for (name, model) in versions {
            let version = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(model.xcdatamodelContents().utf8).write(to: version.appendingPathComponent("contents"))
        }
        if let marker {
            let body = marker.isEmpty ? "<dict/>" : "<dict><key>_XCCurrentVersionName</key><string>\(marker).xcdatamodel</string></dict>"
            try Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">\(body)</plist>".utf8)
                .write(to: bundle.appendingPathComponent(".xccurrentversion"))
        }
        return bundle
    }

    /// Version n has attributes a1 … an.
    static func shop(_ n: Int) throws -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        for i in 1...n { item.add(AttributeDescription(name: "a\(i)", type: .string)) }
        return try ManagedObjectModel(entities: [item])
    }

    static let versionNames = ["Shop"] + (2...10).map { "Shop \($0)" }

    @Test(arguments: [nil, ""])
    func withoutACurrentVersionTheHighestNumberedOneLoads(marker: String?) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-versions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let versions = try Self.versionNames.enumerated().map { ($1, try Self.shop($0 + 1)) }
        let bundle = try Self.bundle(versions, marker: marker, in: directory)
        let model = try ManagedObjectModel(contentsOf: bundle)
        #expect(model.versionName == "Shop 10")
        #expect(model.entity(named: "Item")?.attributes.count == 10)
    }

    @Test func theCurrentVersionMarkerWins() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-versions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let versions = try Self.versionNames.enumerated().map { ($1, try Self.shop($0 + 1)) }
        let model = try ManagedObjectModel(contentsOf: try Self.bundle(versions, marker: "Shop 3", in: directory))
        #expect(model.versionName == "Shop 3")
        #expect(model.entity(named: "Item")?.attributes.count == 3)
    }

    @Test func numberingFollowsXcode() {
        #expect(ModelVersionOrder.precedes("Shop", "Shop 2"))
        #expect(ModelVersionOrder.precedes("Shop 9", "Shop 10"))
        #expect(!ModelVersionOrder.precedes("Shop 10", "Shop 9"))
        #expect(ModelVersionOrder.isEarlier("Shop 2", than: "Shop 3"))
        #expect(!ModelVersionOrder.isEarlier("Other", than: "Shop 3"))
    }

    /// A store written by version 3 refuses version 2 of the same bundle,
    /// even when migration and data loss are both asked for.
    @Test func anEarlierVersionOfTheStoresOwnBundleIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-versions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try Self.bundle([("Shop", try Self.shop(1)), ("Shop 2", try Self.shop(2)), ("Shop 3", try Self.shop(3))],
                                     marker: nil, in: directory)
        let url = directory.appendingPathComponent("shop.sqlite")
        let current = try ManagedObjectModel(contentsOf: bundle)
        let writer = try Self.open(url, current)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: writer)
        context.insertObject(forEntityName: "Item")["a3"] = .string("kept")
        try context.save()
        let older = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop 2.xcdatamodel"))
        #expect(older.versionName == "Shop 2")
        let before = try Self.snapshot(directory)
        let error = try #require(Self.refusal { _ = try Self.open(url, older, migrate: true, dropData: true) })
        #expect(error.message.contains("written by model version 'Shop 3'; the model given is 'Shop 2', an earlier version"), "\(error)")
        #expect(try Self.snapshot(directory) == before)
    }

    // MARK: - Files

    /// A log another process left (frames not yet in the file) stays as it
    /// was when mrq only reads, and when it refuses the store.
    @Test func aLogLeftByAnotherProcessIsNotFoldedInByReadingOrRefusing() throws {
        let (directory, url) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let writer = try Database(path: url.path)
            try writer.execute("PRAGMA wal_autocheckpoint = 0")
            try writer.transaction { try writer.execute("UPDATE Person SET age = 99") }
            writer.keepLogOnClose()
        }
        var info = stat()
        #expect(stat(url.path + "-wal", &info) == 0 && info.st_size > 0, "the test needs a log with frames")
        // The -shm file is SQLite's shared index of the log, rebuilt by every
        // connection that opens it: no data, left out of the comparison.
        var before = try Self.snapshot(directory)
        before["people.sqlite-shm"] = nil
        _ = Self.refusal { _ = try Self.open(url, try Self.mail()) }
        var refused = try Self.snapshot(directory)
        refused["people.sqlite-shm"] = nil
        #expect(refused == before, "a refused open changed the files: \(refused) vs \(before)")
        do {
            let reader = try Self.open(url, try Self.people())
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: reader)
            let people = try context.fetch(FetchRequest(entityName: "Person"))
            #expect(people.allSatisfy { $0["age"] == .int(99) }, "the log's changes are read")
        }
        var after = try Self.snapshot(directory)
        after["people.sqlite-shm"] = nil
        #expect(after == before, "reading changed the files: \(after) vs \(before)")
    }

    @Test func aReadOnlyStoreReadsAndRefusesToSave() throws {
        let (directory, url) = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.snapshot(directory)
        do {
            let coordinator = PersistentStoreCoordinator(model: try Self.people())
            try coordinator.addSQLiteStore(at: url, readOnly: true)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            #expect(try context.count(for: FetchRequest(entityName: "Person")) == 3)
            context.insertObject(forEntityName: "Person")["name"] = .string("Dee")
            let error = try #require(Self.refusal { try context.save() })
            #expect(error.kind == .readOnly, "\(error)")
            #expect(error.message.contains("is open read-only"), "\(error)")
        }
        let now = try Self.snapshot(directory)
        #expect(now == before, "\(now) vs \(before)")
    }
}
