import Foundation
import Testing

/// Every Swift example in the README and in the DocC articles
/// (`Sources/*/*.docc/*.md`) compiles as written (issue 19, item 9): a
/// block that starts with `import` is a whole program; any other is
/// checked after a prelude that declares what the text around it has
/// introduced (`model`, `data`, `url`, `Person` and `Department` classes).
@Suite struct ReadmeSwiftTests {
    static let prelude = """
        import ActiveRecord
        import Foundation
        import ObjectStore
        import ObjectStorePostgres
        import Predicates
        import struct Predicates.Expression
        import struct Predicates.Predicate

        final class Person: ManagedObject {
            @Managed("FirstName") var firstName: String?
            @Managed("age") var age: Int16
            @ManagedToOne("department") var department: Department?
        }
        final class Department: ManagedObject {
            @Managed("name") var name: String
        }
        let model = try ManagedObjectModel(entities: [])
        let data = Data()
        let url = URL(fileURLWithPath: "People.sqlite")

        """

    /// The ```swift blocks of a Markdown text.
    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```swift") {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Type-checks `program` as a main file against the built modules; the
    /// compiler's complaints, or nil.
    static func typeCheck(_ program: String) throws -> String? {
        let root = MRQBinary.packageRoot
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("main.swift")
        try program.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-swift-version", "6",
                             "-I", root.appendingPathComponent(".build/debug/Modules").path,
                             file.path] + (try SystemModuleMaps.flags(root: root))
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : String(decoding: output, as: UTF8.self)
    }

    @Test func everySwiftExampleCompiles() throws {
        let readme = try String(contentsOf: MRQBinary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(readme)
        #expect(blocks.count >= 3)
        for block in blocks {
            let program = block.hasPrefix("import ") ? block : Self.prelude + block
            if let complaints = try Self.typeCheck(program) {
                Issue.record("a README example does not compile:\n\(block)\n\(complaints)")
            }
        }
    }

    /// The Markdown files of every documentation catalog under Sources/.
    static func articles() throws -> [URL] {
        let sources = MRQBinary.packageRoot.appendingPathComponent("Sources")
        var result: [URL] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let folder = sources.appendingPathComponent(target)
            for catalog in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            where catalog.hasSuffix(".docc") {
                let root = folder.appendingPathComponent(catalog)
                guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
                for case let file as String in files where file.hasSuffix(".md") {
                    result.append(root.appendingPathComponent(file))
                }
            }
        }
        return result.sorted { $0.path < $1.path }
    }

    @Test func everySwiftExampleInTheArticlesCompiles() throws {
        let articles = try Self.articles()
        #expect(articles.count >= 5, "expected the catalogs of Predicates, ObjectStore and ActiveRecord")
        var checked = 0
        for article in articles {
            let text = try String(contentsOf: article, encoding: .utf8)
            for block in Self.swiftBlocks(text) {
                checked += 1
                let program = block.hasPrefix("import ") ? block : Self.prelude + block
                if let complaints = try Self.typeCheck(program) {
                    Issue.record("an example of \(article.lastPathComponent) does not compile:\n\(block)\n\(complaints)")
                }
            }
        }
        #expect(checked >= 10)
    }

    @Test func aBrokenExampleIsCaught() throws {
        #expect(try Self.typeCheck(Self.prelude + "let n: Int = Person.findAll()") != nil)
    }
}
