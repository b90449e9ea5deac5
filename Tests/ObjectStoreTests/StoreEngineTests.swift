import Foundation
import Synchronization
import Testing
@testable import ObjectStore
import ObjectStorePostgres

/// Issue 34, item 1: an engine of a library of its own opens stores only
/// once the program registered it, by one explicit call; ObjectStore knows
/// it by the URL schemes it claims, never by name.
@Suite struct StoreEngineTests {
    /// An engine of made-up stores (in memory underneath), recording the
    /// URLs it was asked to open.
    final class RecordingEngine: StoreEngine {
        let storeType: PersistentStoreType
        let urlSchemes: Set<String>
        let opened = Mutex<[URL]>([])

        init(name: String) {
            storeType = PersistentStoreType(engine: name)
            urlSchemes = [name]
        }

        func open(url: URL?, model: ManagedObjectModel, configuration: String?,
                  options: PersistentStoreOptions) throws -> OpenedStore {
            if let url { opened.withLock { $0.append(url) } }
            return OpenedStore(try SQLiteStore(path: ":memory:", model: model))
        }

        func storedModel(at url: URL) throws -> ManagedObjectModel? { nil }
        func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview? { nil }
    }

    /// The scheme of a test's own engine, so that tests registering
    /// engines (the registry is the process's) never see each other's.
    static func uniqueScheme() -> String {
        "test-engine-" + UUID().uuidString.prefix(8).lowercased()
    }

    @Test func aSchemeNoEngineClaimsIsRefusedSayingHowToRegisterOne() throws {
        let scheme = Self.uniqueScheme()
        let url = try #require(URL(string: "\(scheme)://host/people"))
        let coordinator = PersistentStoreCoordinator(model: try OpeningTests.people())
        let expected = "no store engine is registered for '\(scheme)' stores: "
            + "register it first, with PersistentStoreCoordinator.register(_:)"
        let opening = #expect(throws: StoreError.self) { try coordinator.addPersistentStore(at: url) }
        #expect(opening?.message == expected)
        #expect(opening?.kind == .misuse)
        let reading = #expect(throws: StoreError.self) { try PersistentStoreCoordinator.storedModel(at: url) }
        #expect(reading?.message == expected)
        let previewing = #expect(throws: StoreError.self) {
            try PersistentStoreCoordinator.migrationPreview(at: url, model: coordinator.model)
        }
        #expect(previewing?.message == expected)
        #expect(PersistentStoreType(rawValue: scheme) == nil)
        #expect(!coordinator.hasStore)
    }

    @Test func aRegisteredEngineOpensTheURLsOfItsSchemesInAnyCase() throws {
        let scheme = Self.uniqueScheme()
        let engine = RecordingEngine(name: scheme)
        let url = try #require(URL(string: "\(scheme.uppercased())://host/people"))
        #expect(PersistentStoreType(rawValue: scheme) == nil)
        PersistentStoreCoordinator.register(engine)
        #expect(PersistentStoreType.forURL(url) == engine.storeType)
        #expect(PersistentStoreType(rawValue: scheme) == engine.storeType)
        let coordinator = PersistentStoreCoordinator(model: try OpeningTests.people())
        try coordinator.addPersistentStore(at: url)
        let other = try #require(URL(string: "\(scheme)://other"))
        try coordinator.addPersistentStore(type: engine.storeType, at: other)
        #expect(engine.opened.withLock { $0 } == [url, other])
        #expect(coordinator.persistentStores.count == 2)
    }

    @Test func postgreSQLURLsNameThePostgresTypeOnceItsEngineIsRegistered() throws {
        PersistentStoreCoordinator.register(PostgresEngine())
        for text in ["postgres:///people", "postgresql://app@db.local:5432/people", "POSTGRES://"] {
            #expect(PersistentStoreType.forURL(try #require(URL(string: text))) == .postgres)
        }
        #expect(PersistentStoreType(rawValue: "postgres") == .postgres)
        #expect(PersistentStoreType.forURL(URL(fileURLWithPath: "people.sqlite")) == .sqlite)
        #expect(PersistentStoreType.forURL(URL(fileURLWithPath: "people.xml")) == .xml)
    }
}

/// Issue 34, item 1: the coordinator holds engines and stores through
/// their protocols; the shell and `mrq` ask the protocol for what they
/// need instead of downcasting to a store or reaching its connection.
@Suite struct StoreSeamTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift files under `folder` whose names start with `prefix`, with
    /// the lines matching `pattern`.
    static func lines(matching pattern: String, under folder: String, prefix: String = "") throws -> [String] {
        let directory = root.appendingPathComponent(folder)
        let regex = try Regex(pattern).wordBoundaryKind(.simple)
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        for file in files.sorted() where file.hasSuffix(".swift") && (file as NSString).lastPathComponent.hasPrefix(prefix) {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(regex) {
                found.append("\(folder)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    @Test func theCoordinatorNamesNoConcreteStore() throws {
        let concrete = #"\b(SQLiteStore|XMLStore|PostgresStore)\b"#
        #expect(try Self.lines(matching: concrete, under: "Sources/ObjectStore/Coordinator", prefix: "PersistentStoreCoordinator") == [])
        #expect(try Self.lines(matching: #"switch .*[Tt]ype\b|case \.sqlite|case \.xml"#,
                               under: "Sources/ObjectStore/Coordinator", prefix: "PersistentStoreCoordinator") == [])
    }

    @Test func theShellAndMrqNeitherDowncastToAStoreNorReachItsConnection() throws {
        for folder in ["Sources/Shell", "Sources/mrq"] {
            #expect(try Self.lines(matching: #"\bPostgresStore\b|as\?? SQLiteStore|\.database\b|coordinator\.store\b"#,
                                   under: folder) == [])
        }
    }

    @Test func noCTargetRegistersAnEngineWhenTheProgramLoads() throws {
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(!package.contains("CPostgresEngine"))
        for library in ["Sources/ObjectStore", "Sources/ObjectStorePostgres"] {
            #expect(try Self.lines(matching: "@_cdecl", under: library) == [])
        }
    }
}
