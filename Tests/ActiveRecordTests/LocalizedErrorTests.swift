import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

/// Every public error says through `localizedDescription` what
/// `print(error)` says (issue 19, item 2).
@Suite struct LocalizedErrorTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The names of the public types of `module` declared as errors.
    static func publicErrorTypes(in module: String) throws -> Set<String> {
        var names: Set<String> = []
        let folder = sources.appendingPathComponent(module)
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
        let declaration = try Regex(#"public (?:final )?(?:struct|enum|class) (\w+)\s*:[^{]*\bError\b"#)
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: declaration) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    @Test(arguments: ["Predicates", "ObjectStore", "ActiveRecord"])
    func everyPublicErrorIsLocalized(module: String) throws {
        let errors = try Self.publicErrorTypes(in: module)
        #expect(!errors.isEmpty)
        var localized: Set<String> = []
        let folder = Self.sources.appendingPathComponent(module)
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
        where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: try Regex(#"(?:extension|enum|struct|class) (\w+)\s*:[^{]*\bLocalizedError\b"#)) {
                if let name = match.output[1].substring { localized.insert(String(name)) }
            }
        }
        #expect(errors.subtracting(localized).isEmpty, "public errors of \(module) without LocalizedError: \(errors.subtracting(localized).sorted())")
    }

    /// A thrown error, shown as a Swift user shows it.
    static func shown(_ body: () throws -> Void) -> (print: String, localized: String)? {
        do {
            try body()
            return nil
        } catch {
            return ("\(error)", error.localizedDescription)
        }
    }

    @Test func realErrorsSayTheSameBothWays() throws {
        let cases: [(String, () throws -> Void)] = [
            ("syntax", { _ = try Predicates.Predicate(format: "age > AND") }),
            ("model", { _ = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "/nonexistent/Model.xcdatamodeld")) }),
            ("json", { _ = try JSON(parsing: "{\"a\": [1, 2,}") }),
            ("store", {
                let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: []))
                try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "/nonexistent/dir/x.sqlite"))
            }),
        ]
        for (name, body) in cases {
            let shown = try #require(Self.shown(body), "\(name) threw nothing")
            #expect(shown.localized == shown.print, "\(name)")
            #expect(!shown.localized.contains("The operation could not be completed"), "\(name)")
        }
    }
}
