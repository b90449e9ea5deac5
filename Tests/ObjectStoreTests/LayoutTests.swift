import Foundation
import Testing

/// Issue 34, item 4: the folders show the architecture, and a test keeps
/// them honest, as the grammar tests keep `Grammar/` honest. Each engine
/// lives in a folder of its own: SQLite's C API and store types only under
/// `Engines/SQLite`, the XML stores only under `Engines/XML`, PostgreSQL
/// only in its library (and the shell, `mrq` and the tests that pick
/// it); the context, fetching, the coordinator and the SQL layer name no
/// concrete store. Comments may name anything: only code is checked.
@Suite struct LayoutTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift file under `Sources/`, as a path from the package root,
    /// with its lines of code (comments and string literals' text kept,
    /// whole-line comments dropped).
    static let sources: [(path: String, lines: [(Int, String)])] = {
        let sourcesURL = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sourcesURL.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".swift") }.sorted().map { file in
            let text = (try? String(contentsOf: sourcesURL.appendingPathComponent(file), encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
                let code = line.trimmingCharacters(in: .whitespaces)
                return code.hasPrefix("//") ? nil : (index + 1, String(line))
            }
            return ("Sources/" + file, lines)
        }
    }()

    /// The lines matching `pattern` in files outside every folder or file
    /// of `allowed` (paths from the package root).
    static func offenders(_ pattern: String, allowedUnder allowed: [String]) throws -> [String] {
        let regex = try Regex(pattern).wordBoundaryKind(.simple)
        var found: [String] = []
        for (path, lines) in sources where !allowed.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) {
            for (number, line) in lines where line.contains(regex) {
                found.append("\(path):\(number): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    /// Expects no line matching `pattern` outside `allowed`, listing the
    /// ones found.
    static func expectNone(_ pattern: String, outside allowed: [String],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let found = try offenders(pattern, allowedUnder: allowed)
        #expect(found.isEmpty, "\(pattern) found outside its place:\n\(found.joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }

    @Test func theSourcesAreWhereTheTestLooks() {
        #expect(Self.sources.count > 100)
        for folder in ["Context", "Coordinator", "Fetch", "Migration", "Model", "SQL", "StoreInterface", "Support",
                       "Engines/SQLite", "Engines/XML", "CoreDataFormats"] {
            #expect(Self.sources.contains { $0.path.hasPrefix("Sources/ObjectStore/\(folder)/") }, "no \(folder)/")
        }
    }

    @Test func sqlitesCAPIAndStoreTypesLiveInTheSQLiteEngine() throws {
        let sqlite = ["Sources/ObjectStore/Engines/SQLite", "Sources/CSQLite"]
        try Self.expectNone(#"^\s*import CSQLite|\bsqlite3_[a-z_0-9]+\("#, outside: sqlite)
        try Self.expectNone(#"\b(SQLiteStore|SQLiteEngine|ReaderPool|OpenConnections)\b"#,
                            outside: sqlite + ["Sources/ObjectStore/Engines/BuiltInEngines.swift",
                                               "Sources/mrq-fuzz", "Sources/mrq-crash-worker"])
    }

    @Test func theXMLStoresLiveInTheXMLEngine() throws {
        try Self.expectNone(#"\b(XMLStore|XMLEngine|AppleXMLStore\w*|XMLStoreDocument)\b"#,
                            outside: ["Sources/ObjectStore/Engines/XML", "Sources/ObjectStore/Engines/BuiltInEngines.swift",
                                      "Sources/mrq-fuzz"])
    }

    @Test func postgreSQLLivesInItsLibraryAndWhatPicksIt() throws {
        let pickers = ["Sources/ObjectStorePostgres", "Sources/CLibPQ", "Sources/Shell", "Sources/mrq",
                       "Sources/mrq-crash-worker"]
        try Self.expectNone(#"^\s*import (CLibPQ|ObjectStorePostgres)\b|\bPQ[a-z]+\("#, outside: pickers)
        try Self.expectNone(#"\b(PostgresStore|PostgresEngine|PostgresConnection)\b"#, outside: pickers)
    }

    @Test func theContextFetchingCoordinatorAndSQLNameNoConcreteStore() throws {
        let concrete = #"\b(SQLiteStore|XMLStore|PostgresStore|SQLiteEngine|XMLEngine|PostgresEngine)\b"#
        let engineFree = ["Context", "Fetch", "Coordinator", "SQL", "Migration", "StoreInterface", "Model"]
            .map { "Sources/ObjectStore/\($0)" }
        let everythingElse = Set(Self.sources.map { $0.path.split(separator: "/").prefix(3).joined(separator: "/") })
            .subtracting(engineFree).sorted()
        try Self.expectNone(concrete, outside: everythingElse)
    }
}
