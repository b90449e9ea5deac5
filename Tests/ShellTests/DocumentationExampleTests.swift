import Foundation
import ObjectStore
import Predicates
import Testing
@testable import Shell

/// The README's prompt sessions replay exactly, through the same loop as
/// the terminal (questions and answers included), on the People sample;
/// every example of every `.help` topic runs on it.
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

    /// The README's `code` spans outside code blocks, each on one line.
    static let readmeSpans: [String] = {
        var text = ""
        var inBlock = false
        for line in StatementCorpus.lines(of: ShellHarness.root.appendingPathComponent("README.md")) {
            if line.hasPrefix("```") { inBlock.toggle(); continue }
            if !inBlock { text += line + "\n" }
        }
        return text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }
            .map { $0.element.replacingOccurrences(of: "\n", with: " ") }
    }()

    /// The README's spans that are templates (a placeholder in capitals,
    /// `a|b`) or name a statement or dot command without being one: not
    /// run, and listed here so that a new one is not left out unseen.
    static let readmeSpansNotRun: Set<String> = [
        "explain", "import", "select", "entity", "save", "undo", "redo", "rollback", ".save-as",
        ".model --migrate PATH", ".save-as FILE coredata", ".save-as FILE sqlite", ".mode table|line|json|csv",
        // PostgreSQL's, which PostgresShellTests runs against a server.
        ".save-as postgres://…", ".save-as FILE.sqlite",
    ]

    /// Every statement and dot command the README's prose quotes runs on
    /// the People sample (dot commands in a folder of their own).
    @Test func readmeInlineStatementsAndDotCommandsRun() throws {
        let starts = Set(StatementParser.statementWords + ["Person", "Department", "history"]
                         + ShellSession.dotCommands.map { "." + $0.name })
        let candidates = Self.readmeSpans.filter { span in
            span.split(separator: " ").first.map { starts.contains(String($0)) } ?? false
        }
        let run = candidates.filter { !Self.readmeSpansNotRun.contains($0) }
        #expect(Set(candidates).isSuperset(of: Self.readmeSpansNotRun), "no longer in the README: \(Self.readmeSpansNotRun.subtracting(candidates))")
        #expect(run.count >= 8)
        let session = try Self.sampleSession()
        let folder = try ShellHarness()
        session.baseDirectory = folder.directory
        for span in run {
            #expect(Self.failure(span, on: session) == nil)
            session.quitRequested = false
        }
    }

    /// Runs `text` on `session`; the errors it printed, if any.
    static func failure(_ text: String, on session: ShellSession) -> String? {
        let output = ShellHarness.Output()
        let ok = session.run(text, fileName: nil, output: output)
        return ok && output.errors.isEmpty ? nil : "\(text): \(output.errors)"
    }

    /// A session on the People sample with file names relative to
    /// Samples/, as a script there would name them (and `.help` does).
    static func sampleSession() throws -> ShellSession {
        let session = try peopleSession()
        session.baseDirectory = ShellHarness.samples
        return session
    }

    /// Every statement topic's examples run, in order, each topic on a
    /// fresh copy of the People sample (an `entity` declaration on a
    /// model of its own), and each is shown in its topic, as run.
    @Test func everyStatementTopicsExamplesRun() throws {
        var ran = 0
        for statement in Help.statementHelp {
            let topic = Help.text(topic: statement.words[0])
            for word in statement.words { #expect(Help.text(topic: word) == topic, "\(word)") }
            #expect(!statement.examples.isEmpty, "\(statement.words[0]) has no example")
            let session = statement.words[0] == "entity"
                ? try ShellSession(modelPath: nil, storePath: ":memory:")
                : try Self.sampleSession()
            for example in statement.examples {
                #expect(topic.contains("\n  " + example + "\n") || topic.hasSuffix("\n  " + example), "\(example) is not shown")
                #expect(Self.failure(example, on: session) == nil)
                ran += 1
            }
        }
        #expect(ran >= 35)
    }

    /// The examples `.help` opens with, and `.help direct`'s, run.
    @Test func overviewAndDirectExamplesRun() throws {
        let session = try Self.sampleSession()
        for example in Help.overviewExamples {
            #expect(Help.text(topic: nil).contains("  " + example + "\n"))
            #expect(Self.failure(example, on: session) == nil)
        }
        let before = try #require(Self.countOf("Person", session))
        for example in Help.directExamples {
            #expect(Help.text(topic: "direct").contains("  " + example))
            #expect(Self.failure(example, on: session) == nil)
        }
        let after = try #require(Self.countOf("Person", session))
        #expect(after < before, "the direct delete deleted the people the direct update made inactive")
    }

    static func countOf(_ entity: String, _ session: ShellSession) -> Int? {
        let request = FetchRequest(entityName: entity)
        return try? session.context.count(for: request)
    }

    /// Every predicate of `.help predicates` and `.help operators` runs
    /// on the sample's Person or Department, and every literal of
    /// `.help predicates` is a statement that runs.
    @Test func everyPredicateExampleRuns() throws {
        let session = try Self.sampleSession()
        let examples = Help.predicateExamples.flatMap { $0 } + Help.operatorGroups.flatMap { $0.rows.map(\.example) }
        #expect(examples.count >= 45)
        for example in examples {
            let topics = Help.text(topic: "predicates") + Help.text(topic: "operators")
            #expect(topics.contains(example))
            let failures = ["Person", "Department"].compactMap { Self.failure("count \($0) where \(example)", on: session) }
            #expect(failures.count < 2, "\(example) runs on neither entity: \(failures)")
        }
        for literal in Help.literals {
            #expect(Self.failure(literal, on: session) == nil)
        }
        // mrq's additions and Apple's spelling of each run alike; strict
        // mode refuses the first and runs the second.
        for (mrq, apple) in Help.additionExamples {
            #expect(Help.text(topic: "predicates").contains(mrq) && Help.text(topic: "predicates").contains(apple))
            for entity in ["Person", "Department"] {
                let added = Self.failure("count \(entity) where \(mrq)", on: session)
                let applied = Self.failure("count \(entity) where \(apple)", on: session)
                #expect((added == nil) == (applied == nil), "\(entity): \(mrq) and \(apple) differ")
            }
            session.strict = true
            #expect(Self.failure("count Person where \(mrq)", on: session) != nil
                    && Self.failure("count Department where \(mrq)", on: session) != nil, "strict mode runs \(mrq)")
            #expect(Self.failure("count Person where \(apple)", on: session) == nil
                    || Self.failure("count Department where \(apple)", on: session) == nil, "strict mode refuses \(apple)")
            session.strict = false
        }
    }

    /// Nothing in `.help` looks like a statement without being one of the
    /// examples run above or a usage line: every indented line of every
    /// topic that starts with a statement word or an entity name is one.
    @Test func nothingInHelpIsSkipped() throws {
        let statements = Help.statementHelp
        let known = Set(statements.flatMap { $0.usage + $0.examples } + Help.overviewExamples + Help.directExamples)
            .union(Help.operatorGroups.flatMap { $0.rows.map(\.example) })
        let starts = Set(StatementParser.statementWords + ["Person", "Department", "history"])
        var unknown: [String] = []
        for topic in [nil] + Help.topics {
            for line in Help.text(topic: topic).split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard let first = text.split(separator: " ").first, starts.contains(String(first)) else { continue }
                if !known.contains(text) { unknown.append("\(topic ?? "overview"): \(text)") }
            }
        }
        #expect(unknown.isEmpty, "\(unknown.joined(separator: "\n"))")
    }
}
