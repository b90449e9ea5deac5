import Foundation
import Predicates
import Testing
@testable import Shell

/// The README's prompt sessions replay exactly, through the same loop as
/// the terminal (questions and answers included), on the People sample;
/// every example statement of `.help` runs on it, and every example
/// predicate of `.help predicates` and `.help operators` parses.
/// (README command lines run in mrqTests' ReadmeCommandTests.)
@Suite struct DocumentationExampleTests {
    /// The People sample store, as `make run` builds it, in memory, with
    /// file names relative to the package (as the README writes them).
    static func peopleSession() throws -> ShellSession {
        let session = try ShellSession(modelPath: ShellHarness.peopleModel, storePath: ":memory:")
        session.baseDirectory = ShellHarness.root
        let output = ShellHarness.Output()
        #expect(session.run("import Person from \"Samples/people.json\"\nsave", fileName: nil, output: output), "\(output.errors)")
        return session
    }

    /// Reads a README block's inputs and answers, and writes the
    /// transcript a terminal would show: prompts with what was typed,
    /// results and errors in order.
    final class TranscriptReader: LineReader, ShellOutput {
        private var lines: [String]
        private(set) var transcript = ""

        init(block: [String]) {
            lines = block
        }

        func readLine(prompt: String) -> String? {
            while let line = lines.first {
                lines.removeFirst()
                if let input = StatementCorpus.promptInput(line) {
                    transcript += prompt + input + "\n"
                    return input
                }
            }
            return nil
        }

        func readAnswer(prompt: String) -> String? {
            // Output lines come before the question's line.
            while let line = lines.first, !line.hasPrefix(prompt), StatementCorpus.promptInput(line) == nil {
                lines.removeFirst()
            }
            guard let line = lines.first, line.hasPrefix(prompt) else { return nil }
            lines.removeFirst()
            transcript += line + "\n"
            return String(line.dropFirst(prompt.count))
        }

        func addHistory(_ entry: String) {}
        func write(_ text: String) { transcript += text }
        func writeError(_ text: String) { transcript += text }
    }

    /// The README's code blocks, each as its lines.
    static let readmeBlocks: [[String]] = {
        var blocks: [[String]] = []
        var current: [String]?
        for line in StatementCorpus.lines(of: ShellHarness.root.appendingPathComponent("README.md")) {
            if line.hasPrefix("```") {
                if let block = current { blocks.append(block); current = nil } else { current = [] }
            } else {
                current?.append(line)
            }
        }
        return blocks
    }()

    @Test func readmePromptSessionsReplayExactly() throws {
        let blocks = Self.readmeBlocks.filter { $0.first?.hasPrefix("mrq> ") == true }
        #expect(blocks.count >= 6)
        let session = try Self.peopleSession()
        for block in blocks {
            let reader = TranscriptReader(block: block)
            session.quitRequested = false
            InteractiveLoop.run(session: session, reader: reader, output: reader)
            let expected = block.joined(separator: "\n") + "\n"
            #expect(reader.transcript == expected, "README block differs:\n\(TranscriptTests.diff(expected, reader.transcript))")
        }
    }

    /// `.help` lines that start like a statement and hold no template
    /// (`[where PRED]`, `a|b`, `…`) are examples: each must run.
    @Test func helpStatementExamplesRun() throws {
        let session = try Self.peopleSession()
        // `.help` names files as a script in Samples/ would.
        session.baseDirectory = ShellHarness.samples
        let starts = StatementParser.statementWords + ["Person", "Department", "history"]
        var examples: [String] = []
        for topic in [nil, "statements"] {
            for line in Help.text(topic: topic).split(separator: "\n") {
                // An example ends where two spaces start its comment.
                let text = String(line.trimmingCharacters(in: .whitespaces).components(separatedBy: "   ")[0])
                guard let first = text.split(separator: " ").first, starts.contains(String(first)) else { continue }
                if text.contains(" [") || text.contains("|") || text.contains("…") || text.contains("PRED") { continue }
                examples.append(text)
            }
        }
        #expect(examples.count >= 12)
        for example in examples {
            let output = ShellHarness.Output()
            if example.hasPrefix("entity ") {
                // A declaration replaces the sample's entity: on a model of its own.
                let fresh = try ShellSession(modelPath: nil, storePath: ":memory:")
                _ = fresh.run("entity Department { name: String }", fileName: nil, output: output)
                #expect(fresh.run(example, fileName: nil, output: output), "\(example): \(output.errors)")
                continue
            }
            #expect(session.run(example, fileName: nil, output: output), "\(example): \(output.errors)")
            _ = session.run("rollback", fileName: nil, output: output)
        }
    }

    /// The predicate examples of `.help predicates` and `.help operators`
    /// (columns two or more spaces apart) parse.
    @Test func helpPredicateExamplesParse() throws {
        var parsed = 0
        for topic in ["predicates", "operators"] {
            for line in Help.text(topic: topic).split(separator: "\n") where line.hasPrefix("  ") {
                let columns = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { $0.contains(" ") || $0.contains(".@") }
                for column in columns where Self.looksLikeAPredicate(column) {
                    #expect(throws: Never.self, "\(topic): \(column)") { _ = try Predicate(format: column) }
                    parsed += 1
                }
            }
        }
        #expect(parsed >= 35)
    }

    /// A column that compares something (`age > 18`, `ANY tags.label ==
    /// "vip"`), rather than prose or a list of operators.
    static func looksLikeAPredicate(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, CharacterSet.letters.contains(first) || first == "\"" || first == "{" else { return false }
        if text.hasSuffix(":") || text.contains(": ") || text.hasPrefix("(") { return false }
        // A list of operators (`NOT !`, `AND &&`), not an example.
        if !text.contains(where: { $0.isLowercase || $0.isNumber || $0 == "\"" }) { return false }
        let operators = ["==", "!=", ">", "<", " BEGINSWITH", " ENDSWITH", " CONTAINS", " LIKE", " MATCHES", " IN ", " BETWEEN", "NOT ", " AND ", " OR "]
        return operators.contains { text.contains($0) }
    }
}
