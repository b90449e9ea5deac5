import Foundation
import Testing
import PostgresTestServer
@testable import Shell

/// The fidelity corpus (issue 32, deliverable 5): predicates printed in
/// Apple's documentation, adapted to the People sample, each with the
/// answer Apple's documented semantics give, computed without mrq by
/// `Tests/AppleCorpus/reference.py` (see its header for the sources).
///
/// Every entry runs as `count <Entity> where <predicate>` three times: over
/// imported objects not yet saved (the evaluator, in memory), over the
/// saved SQLite store, and over a PostgreSQL database. A documented form
/// mrq refuses is listed with the message saying why.
enum AppleCorpus {
    enum Expected: Sendable, Equatable {
        /// The number of objects that match.
        case count(Int)
        /// Refused, with an error containing this text.
        case refused(String)
    }

    struct Entry: Sendable {
        let source: String
        let entity: String
        let setup: [String]
        let predicate: String
        let expected: Expected

        init(_ source: String, _ entity: String, _ setup: [String], _ predicate: String, _ expected: Expected) {
            (self.source, self.entity, self.setup, self.predicate, self.expected) = (source, entity, setup, predicate, expected)
        }
    }

    static var peopleJSON: String { ShellHarness.samples.appendingPathComponent("people.json").path }

    /// What `entry` gives in `shell`: the count, or the error.
    static func answer(_ entry: Entry, in shell: ShellHarness) -> Expected {
        for statement in entry.setup {
            let result = shell.run(statement)
            if !result.ok { return .refused("setup failed: \(result.errors)") }
        }
        let result = shell.run("count \(entry.entity) where \(entry.predicate)")
        guard result.ok else { return .refused(result.errors) }
        let number = result.text.split(whereSeparator: { !$0.isNumber && $0 != "-" }).compactMap { Int($0) }.last
        return number.map { .count($0) } ?? .refused("no count in \(result.text)")
    }

    /// Checks every entry in `shell`, naming the engine in failures.
    static func check(_ shell: ShellHarness, engine: String) {
        for entry in entries {
            let got = answer(entry, in: shell)
            switch entry.expected {
            case .count:
                #expect(got == entry.expected, "\(engine): \(entry.source): count \(entry.entity) where \(entry.predicate)")
            case .refused(let reason):
                guard case .refused(let message) = got else {
                    Issue.record("\(engine): \(entry.source): \(entry.predicate) gave \(got), expected a refusal: \(reason)")
                    continue
                }
                #expect(message.contains(reason), "\(engine): \(entry.predicate): \(message)")
            }
        }
    }
}

@Suite struct AppleCorpusTests {
    @Test func corpusIsLargeAndNamesItsSources() {
        #expect(AppleCorpus.entries.count >= 150)
        #expect(AppleCorpus.entries.allSatisfy { !$0.source.isEmpty })
        let sources = Set(AppleCorpus.entries.map { $0.source.prefix { $0 != ":" } })
        for expected in ["PPG-Syntax", "PPG-BNF", "PPG-Using", "PPG-Create", "NSExpression", "NSComparisonPredicate", "KVC-Ops", "UTType"] {
            #expect(sources.contains(Substring(expected)), "no entry from \(expected)")
        }
    }

    /// Imported and not saved, a fetch evaluates the objects in memory.
    @Test func inMemoryAnswersAreApples() throws {
        let shell = try ShellHarness()
        #expect(shell.run(#"import Person from "\#(AppleCorpus.peopleJSON)""#).ok)
        #expect(shell.count("Person") == 1200)
        AppleCorpus.check(shell, engine: "memory")
    }

    @Test func sqliteAnswersAreApples() throws {
        let shell = try ShellHarness(store: "corpus.sqlite")
        #expect(shell.run(#"import Person from "\#(AppleCorpus.peopleJSON)""#).ok)
        #expect(shell.run("save").ok)
        AppleCorpus.check(shell, engine: "SQLite")
    }

    @Test func postgresAnswersAreApples() throws {
        let server = try PostgresServer.shared()
        let shell = try ShellHarness(store: try server.createDatabase())
        #expect(shell.run(#"import Person from "\#(AppleCorpus.peopleJSON)""#).ok)
        #expect(shell.run("save").ok)
        AppleCorpus.check(shell, engine: "PostgreSQL")
    }
}
