import Foundation
import Testing

/// Public API is documented as it is written (issue 19, item 9): every
/// public declaration of Predicates, ObjectStore, ObjectStorePostgres and ActiveRecord, read
/// from the symbol graph of the built modules, has a `///` comment.
@Suite struct DocumentationCoverageTests {
    static let modules = ["Predicates", "ObjectStore", "ObjectStorePostgres", "ActiveRecord"]

    /// `Module: Type.member kind (Sources/…/File.swift:line)` for each
    /// undocumented public declaration written in the package's sources
    /// (not synthesized, not inherited from a protocol's documentation).
    static func undocumented() throws -> Set<String> {
        let root = MRQBinary.packageRoot
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-symbols-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var result: Set<String> = []
        for module in modules {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swift", "symbolgraph-extract", "-module-name", module,
                                 "-I", root.appendingPathComponent(".build/debug/Modules").path,
                                 "-target", "x86_64-unknown-linux-gnu",
                                 "-minimum-access-level", "public", "-output-dir", folder.path]
                + (try SystemModuleMaps.flags(root: root))
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "symbolgraph-extract failed for \(module)")
        }
        let sources = root.appendingPathComponent("Sources").path
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".symbols.json") {
            let module = String(file.prefix { $0 != "." && $0 != "@" })
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for case let symbol as [String: Any] in graph["symbols"] as? [Any] ?? [] {
                guard let access = symbol["accessLevel"] as? String, access == "public" || access == "open",
                      let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String,
                      !identifier.contains("SYNTHESIZED"),
                      let uri = (symbol["location"] as? [String: Any])?["uri"] as? String, uri.contains(sources),
                      symbol["sourceOrigin"] == nil, symbol["docComment"] == nil else { continue }
                let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
                let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? "?"
                let line = (((symbol["location"] as? [String: Any])?["position"] as? [String: Any])?["line"] as? Int).map { $0 + 1 }
                let file = uri.components(separatedBy: root.path + "/").last ?? uri
                result.insert("\(module): \(path) \(kind) (\(file):\(line.map(String.init) ?? "?"))")
            }
        }
        return result
    }

    @Test func everyPublicDeclarationIsDocumented() throws {
        let found = try Self.undocumented().sorted()
        #expect(found.isEmpty, "public declarations without a /// comment:\n\(found.joined(separator: "\n"))")
    }
}
