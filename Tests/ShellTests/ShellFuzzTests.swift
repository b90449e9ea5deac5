import Foundation
import ObjectStore
import Testing
@testable import Shell

/// The shell session fuzzed: a real `ShellSession` over an in-memory store
/// with the People model runs random input from `StatementGenerator`
/// (grammar-built statements with the model's names, mutated and garbled
/// ones, dot commands inside a temporary folder), and completion is asked
/// at every cursor position of every line. After every step:
///
/// - the statement succeeded, or reported an error whose `file:line:col`
///   lies inside what it ran;
/// - the session still works (`count Person`);
/// - `rollback` brings back the counts of the last save, an `insert` that
///   worked is undone and redone exactly, and a statement that failed
///   changed nothing.
///
/// Seeded and reproducible: a failure names its seed, and `MRQ_SEED=n`
/// replays that seed alone. A crash cannot name it; run again with
/// `MRQ_FUZZ_TRACE=1` to print every input before it runs. `MRQ_SOAK=1`
/// runs many more sessions, longer.
@Suite struct ShellFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let soak = environment["MRQ_SOAK"] == "1"
    static let trace = environment["MRQ_FUZZ_TRACE"] == "1"

    @Test func randomSessionsNeverBreakTheShell() throws {
        let seeds: [UInt64]
        if let seed = Self.environment["MRQ_SEED"].flatMap(UInt64.init) {
            seeds = [seed]
        } else {
            seeds = Array(1...(Self.soak ? 400 : 12))
        }
        let steps = Self.soak ? 400 : 70
        var outcomes = Outcomes()
        for seed in seeds {
            let problems = try Self.fuzz(seed: seed, steps: steps, outcomes: &outcomes)
            #expect(problems.isEmpty, "seed \(seed) (MRQ_SEED=\(seed) replays it):\n\(problems.prefix(10).joined(separator: "\n"))")
        }
        // The generator reaches both sides: statements that work and
        // statements that fail.
        #expect(outcomes.succeeded * 4 > outcomes.total && outcomes.failed * 10 > outcomes.total,
                "\(outcomes.succeeded) of \(outcomes.total) inputs worked, \(outcomes.failed) failed")
    }

    /// Replays the inputs a traced run printed (`MRQ_FUZZ_REPLAY=file`,
    /// the `run` lines of `MRQ_FUZZ_TRACE=1`, edited down by hand), to
    /// shrink a crash.
    @Test(.enabled(if: environment["MRQ_FUZZ_REPLAY"] != nil)) func replay() throws {
        let path = Self.environment["MRQ_FUZZ_REPLAY"] ?? ""
        let shell = try ShellHarness()
        var generator = StatementGenerator(seed: 0, model: shell.session.model, directory: shell.directory.path)
        try generator.writeFiles()
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            // `run 5: "text"`, the text as JSON.
            guard let colon = line.firstIndex(of: ":"),
                  let text = try? JSONDecoder().decode(String.self, from: Data(line[line.index(after: colon)...].utf8))
                    .replacingOccurrences(of: "TEMP", with: shell.directory.path) else { continue }
            FileHandle.standardError.write(Data("replay: \(text)\n".utf8))
            shell.run(text, fileName: "fuzz")
        }
    }

    struct Outcomes {
        var succeeded = 0
        var failed = 0
        var total: Int { succeeded + failed }
    }

    /// The counts the fuzz checks, read from the context (not through the
    /// output, which `.output` may send to a file).
    static func counts(_ session: ShellSession) -> [String: Int] {
        var counts: [String: Int] = [:]
        for name in ["Person", "Department"] where session.model.entity(named: name) != nil {
            counts[name] = try? session.context.count(for: FetchRequest(entityName: name))
        }
        return counts
    }

    /// One session of `steps` inputs; returns what went wrong.
    static func fuzz(seed: UInt64, steps: Int, outcomes: inout Outcomes) throws -> [String] {
        let shell = try ShellHarness()
        if trace {
            let directory = shell.directory.path
            shell.trace = { text in
                // JSON, so that a replay reads it back exactly; the folder as TEMP.
                let json = (try? JSONEncoder().encode(text.replacingOccurrences(of: directory, with: "TEMP"))) ?? Data()
                FileHandle.standardError.write(Data("run \(seed): ".utf8) + json + Data("\n".utf8))
            }
        }
        var generator = StatementGenerator(seed: seed, model: shell.session.model, directory: shell.directory.path)
        try generator.writeFiles()
        shell.run("""
            insert Department { name: "Eng", budget: 100 }
            insert Department { name: "Ops" }
            insert Person { FirstName: "Ada", age: 36, personID: 1, department: first Department where name == "Eng" }
            insert Person { FirstName: "Bob", age: 17, personID: 2, salary: 50000 }
            save
            """)
        var saved: [String: Int]? = counts(shell.session)
        var problems: [String] = []
        var history: [String] = []
        for step in 0..<steps {
            generator.model = shell.session.model
            let input = generator.input()
            history.append(input)
            func problem(_ text: String) {
                problems.append("step \(step) \(input.debugDescription): \(text)\n  after: \(history.suffix(8).dropLast().map(\.debugDescription).joined(separator: " | "))")
            }

            var lines = input.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.count > 1 { lines.append(input) }
            for line in lines {
                for cursor in 0...line.utf8.count {
                    let completion = shell.session.completion(in: line, cursor: cursor)
                    for issue in CompletionCorpusTests.problems(completion, line: line, cursor: cursor, thorough: false) {
                        problem("completion at \(cursor) of \(line.debugDescription): \(issue)")
                    }
                }
            }

            let before = counts(shell.session)
            let pendingBefore = shell.session.pendingChanges
            let result = shell.run(input, fileName: "fuzz")
            if result.ok { outcomes.succeeded += 1 } else { outcomes.failed += 1 }
            for issue in diagnosticProblems(result, source: input) { problem(issue) }
            let after = counts(shell.session)

            // A failed single statement that changes objects changes nothing.
            // (Objects whose relationships were changed and changed back
            // stay marked as updated: the context does not compare them.)
            if !result.ok, isSingleStatement(input), input.hasPrefix("insert ") || input.hasPrefix("update ") && !input.hasSuffix(" direct") {
                let pendingAfter = shell.session.pendingChanges
                if after != before || pendingAfter.insertedAndDeleted != pendingBefore.insertedAndDeleted {
                    problem("failed but changed the counts \(before) -> \(after) or the pending changes \(pendingBefore) -> \(pendingAfter)")
                }
            }
            if result.ok, input == "save" { saved = after }
            if result.ok, input == "rollback", let saved, after != saved {
                problem("rollback left \(after), the last save had \(saved)")
            }
            // Direct changes and new entities reach the store without a save.
            if result.ok, input.hasSuffix(" direct") || input.hasPrefix("entity ") || input.contains(".save-as") { saved = nil }
            if input.contains(";") || input.contains("\n") || input.hasPrefix(".read") { saved = nil }
            if saved == nil, input == "save", result.ok { saved = after }

            // An insert that worked is undone and redone exactly.
            if result.ok, isSingleStatement(input), input.hasPrefix("insert "), generator.chance(40) {
                let undo = shell.run("undo")
                let undone = counts(shell.session)
                let redo = shell.run("redo")
                let redone = counts(shell.session)
                if !undo.ok || !redo.ok || undone != before || redone != after {
                    problem("undo gave \(undone) (before: \(before)), redo \(redone) (after: \(after))")
                }
            }

            // The session still works.
            let count = shell.run("count Person")
            if !count.ok { problem("count Person failed afterwards: \(count.errors)") }
            if shell.session.quitRequested { problem("asked to quit") }
        }
        return problems
    }

    static func isSingleStatement(_ input: String) -> Bool {
        !input.contains(";") && !input.contains("\n")
    }

    /// Every error names a place inside the text that ran (`fuzz`, or a
    /// script it read), and a failure says why.
    static func diagnosticProblems(_ result: ShellHarness.Result, source: String) -> [String] {
        var found: [String] = []
        let errorLines = result.errors.split(separator: "\n").filter { $0.contains(": error: ") || $0.hasPrefix("error: ") }
        if !result.ok, errorLines.isEmpty { found.append("failed without an error: \(result.errors.debugDescription)") }
        if result.ok, !errorLines.isEmpty { found.append("succeeded with an error: \(result.errors)") }
        for line in errorLines where !line.hasPrefix("error: ") {
            guard let errorRange = line.range(of: ": error: ") else { continue }
            let location = line[..<errorRange.lowerBound].split(separator: ":")
            guard location.count >= 3, let lineNumber = Int(location[location.count - 2]), let column = Int(location[location.count - 1]) else {
                found.append("error without a location: \(line)")
                continue
            }
            let file = location.dropLast(2).joined(separator: ":")
            let text = file == "fuzz" ? source : ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard lineNumber >= 1, lineNumber <= lines.count else {
                found.append("error on line \(lineNumber) of \(lines.count): \(line)")
                continue
            }
            let width = lines[lineNumber - 1].unicodeScalars.count
            if column < 1 || column > width + 1 { found.append("error at column \(column) of a line of \(width): \(line)") }
        }
        return found
    }
}

extension PendingChanges {
    /// The inserted and deleted counts per entity, updates left out.
    var insertedAndDeleted: [String: [Int]] {
        var counts: [String: [Int]] = [:]
        for changes in entities where changes.inserted + changes.deleted > 0 {
            counts[changes.entity] = [changes.inserted, changes.deleted]
        }
        return counts
    }
}
