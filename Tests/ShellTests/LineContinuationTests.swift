import Foundation
import Predicates
import Testing
@testable import Shell

/// A line that ends where a statement cannot end (after an operator,
/// `AND`, `where`, a comma…) goes on on the next line: the prompt waits
/// for it (`isComplete`), and scripts and `-c` text read it as one
/// statement (`split`).
@Suite struct LineContinuationTests {
    @Test(arguments: [
        "count Person where", "Person where age >", "Person where age > 3 AND", "Person where age > 3 OR",
        "Person where NOT", "Person where !", "Person where ANY", "Person where name BEGINSWITH", "Person where age IN",
        "Person where department.", "Person where age + ", "select FirstName,", "select distinct", "select FirstName from",
        "update Person set", "update Person set age =", "update Person where age > 3 set age = 1,", "count of",
        "sum age of", "count of Person group", "count of Person group by", "count of Person group by age having",
        "Person sort", "Person sort age:", "Person limit", "Person where age > 3 offset", "let x =",
        "import Person from", "fetch PeopleOlderThan with", "insert Person { FirstName:", "Person WHERE",
        "count Person where # a comment", "count Person; Person where",
    ])
    func aStatementCannotEndHere(text: String) {
        #expect(!StatementParser.isComplete(text))
        #expect(!ScriptSplitter.isComplete(text))
    }

    @Test(arguments: [
        "count Person", "Person where age > 3", "Person where x == from", "Person where #where", "count Group",
        "Person where name == \"where\"", "save", "count Person where age > 3 # AND", "select a from Person",
        "count of Person group by age", "Department where people.@count > 1", "Person where active == YES",
        "Person sort age:NO", ".mode json", "count Person;", "1 - 2",
    ])
    func aStatementCanEndHere(text: String) {
        #expect(StatementParser.isComplete(text))
        #expect(ScriptSplitter.isComplete(text))
    }

    @Test func aScriptReadsTheContinuedLinesAsOneStatement() throws {
        let shell = try ShellHarness()
        let result = shell.run("""
            insert Department { name: "Eng" }
            insert Person { FirstName: "Ada", age: 36, personID: 1, department: first Department where
                name == "Eng" }
            select FirstName,
                department.name from
              Person where
                age > 30 AND
                department.name ==
                "Eng"
            """, fileName: "script.mrq")
        #expect(result.ok, "\(result.errors)")
        #expect(result.text.contains("Ada"))
        #expect(result.text.contains("Eng"))
    }

    /// `text` with a line break (and some indentation) after each token
    /// where a statement cannot end, outside brackets, or after a random
    /// half of them.
    static func broken(_ text: String, everywhere: Bool, random: inout SplitMix64) -> String? {
        guard let tokens = try? Lexer.tokenize(text, options: .shellComments) else { return nil }
        var cuts: [Int] = []
        var depth = 0
        for (i, token) in tokens.enumerated() {
            switch token.kind {
            case .leftParen, .leftBrace, .leftBracket: depth += 1
            case .rightParen, .rightBrace, .rightBracket: depth -= 1
            default: break
            }
            let next = i + 1 < tokens.count ? tokens[i + 1].kind : .end
            guard depth == 0, next != .end, LineContinuation.continues(after: token, before: i > 0 ? tokens[i - 1] : nil, in: text),
                  everywhere || random.below(2) == 0 else { continue }
            cuts.append(token.range.end.offset)
        }
        guard !cuts.isEmpty else { return nil }
        var bytes = Array(text.utf8)
        for cut in cuts.reversed() {
            bytes.insert(contentsOf: Array(("\n" + String(repeating: " ", count: random.below(5))).utf8), at: cut)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An error's message, without where it points (which moves when the
    /// statement is cut into lines).
    static func messages(_ errors: String) -> [String] {
        errors.split(separator: "\n").filter { $0.hasPrefix("error:") || $0.hasPrefix("warning:") }.map {
            $0.replacingOccurrences(of: #"\d+:\d+"#, with: "L:C", options: .regularExpression)
        }
    }

    /// Any statement of the grammar (StatementGenerator's), cut into lines
    /// after tokens where it cannot end, runs as it does on one line: the
    /// same results, the same errors, the same changes; and the prompt
    /// waits after every line but the last.
    @Test func aStatementCutWhereItCannotEndRunsAsOnOneLine() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["MRQ_SEED"] ?? "") ?? 18
        let flat = try ShellHarness()
        let cut = try ShellHarness()
        cut.session.baseDirectory = flat.session.baseDirectory
        var generator = StatementGenerator(seed: seed, model: flat.session.model, directory: flat.directory.path)
        try generator.writeFiles()
        var random = SplitMix64(seed: seed)
        var compared = 0
        var problems: [String] = []
        for step in 0..<600 {
            generator.model = flat.session.model
            let statement = generator.statement()
            guard !statement.contains("now()") else { continue }
            let lines = Self.broken(statement, everywhere: step % 2 == 0, random: &random)
            let expected = flat.run(statement)
            let actual = cut.run(lines ?? statement)
            guard let lines else { continue }
            compared += 1
            let pieces = lines.split(separator: "\n", omittingEmptySubsequences: false)
            for count in 1..<pieces.count where ScriptSplitter.isComplete(pieces.prefix(count).joined(separator: "\n")) {
                problems.append("complete after \(count) of its lines: \(lines.debugDescription)")
            }
            if ScriptSplitter.split(lines).count != ScriptSplitter.split(statement).count {
                problems.append("split differently: \(lines.debugDescription)")
            }
            if expected.ok != actual.ok || expected.text != actual.text || Self.messages(expected.errors) != Self.messages(actual.errors) {
                problems.append("""
                    \(statement.debugDescription) on one line: \(expected.ok) \(expected.text) \(expected.errors)
                    cut into lines \(lines.debugDescription): \(actual.ok) \(actual.text) \(actual.errors)
                    """)
            }
        }
        #expect(compared > 250)
        #expect(problems.isEmpty, "seed \(seed) (MRQ_SEED=\(seed) replays it):\n\(problems.prefix(5).joined(separator: "\n"))")
        #expect(ShellFuzzTests.counts(flat.session) == ShellFuzzTests.counts(cut.session))
    }
}
