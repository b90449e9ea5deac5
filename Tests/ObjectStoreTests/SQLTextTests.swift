import Foundation
import Testing
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import struct Predicates.Predicate

/// Generated SQL is written once and never read back (issue 34, "SQL is
/// text, parsed back"): a parameter's number, a condition that always
/// holds, a type's collation and a plan's parameters after other values
/// are known when the SQL is written, not found again in its text.
@Suite struct SQLTextTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What reading generated SQL back looked like, and where it was.
    static let parsingBack = [
        "parameterNumber(",          // SQLTranslator: `?3` → 3
        "shiftingParameters(",       // PostgresStore: `$1` → `$4`
        "condition == \"",           // FetchPlan: `WHERE 1`
        "replacingOccurrences(of: \" COLLATE",  // SQLDialect: a cast's type
    ]

    /// No source file reads generated SQL back.
    @Test func noSourceParsesGeneratedSQLBack() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var findings: [String] = []
        var read = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            read += 1
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for pattern in Self.parsingBack where line.contains(pattern) {
                    findings.append("\(url.path.dropFirst(Self.root.path.count + 1)):\(i + 1): \(pattern)")
                }
            }
        }
        #expect(read > 100, "found the sources")
        #expect(findings.isEmpty, "generated SQL read back:\n\(findings.joined(separator: "\n"))")
    }

    /// A count of every row has no WHERE (SQLite then counts pages, not
    /// rows), also for TRUEPREDICATE; any condition keeps its WHERE.
    @Test func countOfEveryRowHasNoWhere() throws {
        let (context, _) = try ChainFetchTests.people(count: 3)
        func countSQL(_ format: String?) throws -> String {
            var request = FetchRequest(entityName: "Person", predicate: try format.map { try Predicate(format: $0) })
            request.resultType = .count
            return try context.explain(request).sql
        }
        #expect(try countSQL(nil) == "SELECT COUNT(*) FROM \"Person\" t")
        #expect(try countSQL("TRUEPREDICATE") == "SELECT COUNT(*) FROM \"Person\" t")
        #expect(try countSQL("age > 3") == "SELECT COUNT(*) FROM \"Person\" t WHERE t.\"age\" > ?1")
        #expect(try countSQL("TRUEPREDICATE AND age > 3") == "SELECT COUNT(*) FROM \"Person\" t WHERE 1 AND t.\"age\" > ?1")
        #expect(try countSQL("FALSEPREDICATE") == "SELECT COUNT(*) FROM \"Person\" t WHERE 0")
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: try Predicate(format: "TRUEPREDICATE"))) == 3)
    }
}
