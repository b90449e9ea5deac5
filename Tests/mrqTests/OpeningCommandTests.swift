import Foundation
@testable import ObjectStore
import Testing

/// Issue 16, items 1 and 2, through the built `mrq`: opening never changes
/// a store unless asked, reading never writes, and model versions load as
/// Xcode picks them.
@Suite(.enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct OpeningCommandTests {
    static let samples = MRQBinary.packageRoot.appendingPathComponent("Samples")
    static let people = samples.appendingPathComponent("People.xcdatamodeld").path
    static let mail = samples.appendingPathComponent("Mail.xcdatamodeld").path

    /// A directory holding `people.sqlite`, loaded from the People sample.
    static func peopleStore() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-opening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = directory.appendingPathComponent("people.sqlite").path
        let loaded = try MRQBinary.run(["--model", people, "--store", store,
                                        samples.appendingPathComponent("people-load.mrq").path])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        return directory
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

    static func count(_ entity: String, in store: String) throws -> String {
        try MRQBinary.run(["--store", store, "--format", "csv", "-c", "count \(entity)"]).stdout
    }

    @Test func anotherModelIsRefusedAndTheStoreIsLeftAsItWas() throws {
        let directory = try Self.peopleStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("people.sqlite").path
        let before = try Self.snapshot(directory)
        let result = try MRQBinary.run(["--model", Self.mail, "--store", store, "-c", "count User"])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("'people.sqlite' was made with another model (added entity User"), "\(result.stderr)")
        #expect(result.stderr.contains("removed entity Person (1200 rows dropped)"), "\(result.stderr)")
        #expect(result.stderr.contains("use --migrate-dropping-data to migrate it anyway"), "\(result.stderr)")
        #expect(try Self.snapshot(directory) == before)
        // The same through .model, and with a model lacking one entity
        // while only listing the entities.
        let script = try MRQBinary.temporaryFile(".model \(Self.mail)\n")
        defer { try? FileManager.default.removeItem(atPath: script) }
        let viaDotModel = try MRQBinary.run(["--store", store, script])
        #expect(viaDotModel.status == 65)
        #expect(viaDotModel.stderr.contains("use .model --migrate-dropping-data to migrate it anyway"), "\(viaDotModel.stderr)")
        #expect(try Self.snapshot(directory) == before)
    }

    @Test func migratingBacksUpFirstAndSaysWhatChanged() throws {
        let directory = try Self.peopleStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("people.sqlite").path
        let before = try Self.snapshot(directory)
        // The first refusal names the flag that is needed: both at once.
        let unasked = try MRQBinary.run(["--model", Self.mail, "--store", store, "-c", "count User"])
        #expect(unasked.stderr.contains("migrating it drops data (Department: 8 rows; Person: 1200 rows): use --migrate-dropping-data"),
                "\(unasked.stderr)")
        let refused = try MRQBinary.run(["--model", Self.mail, "--store", store, "--migrate", "-c", "count User"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("would drop data (Department: 8 rows; Person: 1200 rows); add --migrate-dropping-data"),
                "\(refused.stderr)")
        #expect(try Self.snapshot(directory) == before)

        let migrated = try MRQBinary.run(["--model", Self.mail, "--store", store, "--migrate-dropping-data", "-c", "count User"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(migrated.stderr.contains("mrq: backed up people.sqlite to people.before-migration.sqlite"), "\(migrated.stderr)")
        #expect(migrated.stderr.contains("mrq: migrated people.sqlite: added entity User; added entity Letter; "
                                         + "removed entity Department (8 rows dropped)"), "\(migrated.stderr)")
        let backup = directory.appendingPathComponent("people.before-migration.sqlite").path
        #expect(try Self.count("Person", in: backup).contains("1200"), "the backup holds the old data")
        #expect(try Self.count("User", in: store).contains("0"))
        // A second backup never overwrites the first.
        let again = try MRQBinary.run(["--model", Self.people, "--store", store, "--migrate", "-c", "count Person"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("people.before-migration-2.sqlite"), "\(again.stderr)")
        #expect(try Self.count("Person", in: backup).contains("1200"))
    }

    @Test func readingNeverWrites() throws {
        let directory = try Self.peopleStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("people.sqlite").path
        let before = try Self.snapshot(directory)
        for arguments in [["-c", ".entities"], ["-c", ".schema"], ["-c", "count Person where age > 30"],
                          ["-c", "Person where LastName BEGINSWITH \"W\" sort age limit 3"],
                          ["-c", "explain Person where age > 18"], ["-c", "max age of Person group by department.name"],
                          ["--read-only", "-c", "count Department"]] {
            let result = try MRQBinary.run(["--store", store] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(try Self.snapshot(directory) == before, "\(arguments) changed the files")
        }
    }

    @Test func aReadOnlyStoreRefusesToSave() throws {
        let directory = try Self.peopleStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("people.sqlite").path
        let before = try Self.snapshot(directory)
        let result = try MRQBinary.run(["--store", store, "--read-only", "-c", "update Person set age = 1", "-c", "save"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("is open read-only"), "\(result.stderr)")
        #expect(try Self.snapshot(directory) == before)
    }

    @Test func aMissingStoreWithoutAModelIsAnErrorNotANewFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-opening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("typo.sqlite").path
        let result = try MRQBinary.run(["--store", store, "-c", "count Person"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("no store at '\(store)'; give --model to create one"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// A foreign SQLite database with a log not yet folded in: refused, and
    /// both files exactly as they were.
    @Test func aForeignDatabaseIsRefusedAndItsLogKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-opening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("other.sqlite").path
        do {
            let db = try Database(path: path)
            try db.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE notes (body TEXT)")
            try db.transaction { try db.execute("INSERT INTO notes VALUES ('kept')") }
            db.keepLogOnClose()
        }
        var before = try Self.snapshot(directory)
        before["other.sqlite-shm"] = nil  // SQLite's shared index, rebuilt by every reader
        #expect(before["other.sqlite-wal"] != nil)
        let result = try MRQBinary.run(["--store", path, "-c", ".entities"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("a SQLite database but neither an mrq store nor a Core Data store"), "\(result.stderr)")
        var after = try Self.snapshot(directory)
        after["other.sqlite-shm"] = nil
        #expect(after == before)
    }

    // MARK: - Versions

    /// A bundle `Shop.xcdatamodeld` with versions Shop … Shop 10, version
    /// n's Item having attributes a1 … an, and no `.xccurrentversion`.
    static func shopBundle(in directory: URL) throws -> URL {
        let bundle = directory.appendingPathComponent("Shop.xcdatamodeld")
        for n in 1...10 {
            let name = n == 1 ? "Shop" : "Shop \(n)"
            let version = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            let attributes = (1...n).map { "<attribute name=\"a\($0)\" optional=\"YES\" attributeType=\"String\"/>" }.joined()
            try Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><model><entity name=\"Item\">\(attributes)</entity></model>".utf8)
                .write(to: version.appendingPathComponent("contents"))
        }
        return bundle
    }

    @Test func theHighestVersionLoadsAndAnEarlierOneIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-opening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = try Self.shopBundle(in: directory)
        let store = directory.appendingPathComponent("shop.sqlite").path
        let made = try MRQBinary.run(["--verbose", "--model", bundle.path, "--store", store,
                                      "-c", "insert Item { a10: \"ten\" }", "-c", "save", "-c", ".model"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.contains("version Shop 10 (1 entity)"), "\(made.stderr)")
        #expect(made.stdout.contains("version Shop 10 of Shop.xcdatamodeld, 1 entity"), "\(made.stdout)")
        let before = try Self.snapshot(directory)
        let older = bundle.appendingPathComponent("Shop 9.xcdatamodel").path
        let refused = try MRQBinary.run(["--model", older, "--store", store, "--migrate-dropping-data", "-c", "count Item"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("'shop.sqlite' was written by model version 'Shop 10'; 'Shop 9' is an earlier version"),
                "\(refused.stderr)")
        #expect(try Self.snapshot(directory) == before)
    }
}
