import Foundation
import Testing
@testable import Shell

/// Completion asked at every cursor position (every UTF-8 offset, inside
/// characters too) of every line anyone shows or types: it never traps,
/// and every candidate replaces a range of the line that ends at the
/// cursor, also once rewritten for libedit's own idea of the word.
@Suite struct CompletionCorpusTests {
    /// A session in the Samples folder, and a folder of odd file names
    /// (one character, spaces, quotes, multi-byte) to complete in.
    private static func shell() throws -> ShellHarness {
        let harness = try ShellHarness()
        try FileManager.default.createDirectory(atPath: harness.path("my dir"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: harness.path("sub"), withIntermediateDirectories: true)
        for name in ["a", "r", "r.json", "é", "quo\"te.json", "back\\slash", "sub/x.mrq", "sub/y z.json", ".hidden"] {
            try harness.write(name, Data("[]".utf8))
        }
        _ = harness.run("let x = 1\nlet people = Person")
        return harness
    }

    /// Checks one completion; returns a description of what is wrong.
    /// `thorough` tries four starts of libedit's word instead of one.
    static func problems(_ completion: Completion, line: String, cursor: Int, thorough: Bool = true) -> [String] {
        let bytes = Array(line.utf8)
        var aligned = min(max(0, cursor), bytes.count)
        while aligned > 0, aligned < bytes.count, bytes[aligned] & 0xC0 == 0x80 { aligned -= 1 }
        var found: [String] = []
        let range = completion.range
        if range.upperBound != aligned { found.append("range \(range) does not end at the cursor \(aligned)") }
        if range.lowerBound < 0 || range.lowerBound > range.upperBound { found.append("range \(range) is not inside the line") }
        if range.lowerBound < bytes.count, range.lowerBound >= 0, bytes[range.lowerBound] & 0xC0 == 0x80 {
            found.append("range \(range) starts inside a character")
        }
        for candidate in completion.candidates where candidate.isEmpty || candidate.contains("\n") {
            found.append("candidate \(candidate.debugDescription) is empty or holds a line break")
        }
        if completion.candidates.count != Set(completion.candidates).count { found.append("duplicate candidates") }
        // libedit's word may start anywhere before the cursor.
        let wordStarts = thorough ? Set([0, range.lowerBound, aligned, max(0, aligned - 1)]) : [max(0, aligned - 1)]
        for wordStart in wordStarts {
            let (common, rewritten) = completion.replacements(forWordStartingAt: wordStart, in: line)
            let word = String(decoding: bytes[min(wordStart, aligned)..<aligned], as: UTF8.self)
            if common.utf8.count < word.utf8.count { found.append("common \(common.debugDescription) shorter than the word") }
            if wordStart <= range.lowerBound, rewritten.count != completion.candidates.count {
                found.append("candidates lost when libedit's word starts at \(wordStart)")
            }
        }
        return found
    }

    static func check(_ session: ShellSession, _ line: String) -> [String] {
        var found: [String] = []
        for cursor in 0...line.utf8.count {
            let completion = session.completion(in: line, cursor: cursor)
            found += problems(completion, line: line, cursor: cursor).map { "\(line.debugDescription) at \(cursor): \($0)" }
        }
        return found
    }

    @Test func everyCorpusLineAtEveryCursor() throws {
        let shell = try Self.shell()
        let session = shell.session
        defer { withExtendedLifetime(shell) {} }
        var lines = StatementCorpus.all
        // Entries of several lines too, as the REPL gathers them.
        lines.append(".read r\ncount Person where (\n  age > 3)\n.mode json")
        lines.append("insert Person {\n  FirstName: \"Ada\",\n  department: first Department where name == \"r")
        #expect(lines.count > 300)
        var found: [String] = []
        for line in lines { found += Self.check(session, line) }
        #expect(found.isEmpty, "\(found.prefix(20).joined(separator: "\n"))")
    }

    @Test func garbledAndMutatedLinesAtEveryCursor() throws {
        let shell = try Self.shell()
        let session = shell.session
        defer { withExtendedLifetime(shell) {} }
        let seed = UInt64(ProcessInfo.processInfo.environment["MRQ_SEED"] ?? "") ?? 16
        var random = SplitMix64(seed: seed)
        let corpus = StatementCorpus.all
        var found: [String] = []
        for _ in 0..<400 {
            found += Self.check(session, StatementCorpus.garbled(&random))
            found += Self.check(session, StatementCorpus.mutated(corpus[random.below(corpus.count)], &random))
        }
        #expect(found.isEmpty, "seed \(seed) (MRQ_SEED=\(seed) replays it):\n\(found.prefix(20).joined(separator: "\n"))")
    }

    // MARK: - Repros and file names

    /// Was a SIGILL: NSString.deletingLastPathComponent traps on a
    /// one-character path on Linux.
    @Test(arguments: [".read a", "import Person from \"r", ".open a", ".output r", ".model é", ".read ~", ".read /"])
    func oneCharacterFileNames(line: String) throws {
        let shell = try Self.shell()
        let session = shell.session
        defer { withExtendedLifetime(shell) {} }
        let completion = session.completion(in: line, cursor: line.utf8.count)
        #expect(Self.problems(completion, line: line, cursor: line.utf8.count).isEmpty)
    }

    @Test func fileNamesCompleteWithTheirFolderAndQuotes() throws {
        let shell = try Self.shell()
        let session = shell.session
        defer { withExtendedLifetime(shell) {} }
        func complete(_ line: String) -> Completion { session.completion(in: line, cursor: line.utf8.count) }
        #expect(complete(".read r").candidates == ["r", "r.json"])
        #expect(complete(".read r.j") == Completion(range: 6..<9, candidates: ["r.json"], terminator: " "))
        #expect(complete(".read su") == Completion(range: 6..<8, candidates: ["sub/"], terminator: ""))
        #expect(complete(".read sub/").candidates == ["sub/x.mrq", "\"sub/y z.json\""])
        #expect(complete(".read my").candidates == ["\"my dir/"])
        #expect(complete(".read \"my").candidates == ["my dir/"])
        #expect(complete(".read \"sub/y") == Completion(range: 7..<12, candidates: ["sub/y z.json"], terminator: "\""))
        #expect(complete(".read quo").candidates == ["'quo\"te.json'"])
        #expect(complete(".read /nonexistent/dir/").candidates == [])
        #expect(complete(".read .h").candidates == [".hidden"])
        #expect(complete(".read ~").candidates == ["~/"])
        #expect(!complete(".read ").candidates.contains(".hidden"))
        // Inside an import's string: escaped as the lexer reads it back.
        #expect(complete("import Person from \"r.") == Completion(range: 20..<22, candidates: ["r.json"], terminator: "\""))
        #expect(complete("import Person from \"quo").candidates == ["quo\\\"te.json"])
        #expect(complete("import Person from \"back").candidates == ["back\\\\slash"])
        #expect(complete("import Person from 'quo").candidates == ["quo\"te.json"])
        #expect(complete("Person where FirstName == \"r").candidates == [])
        #expect(session.completion(in: "import Person from \"r.\"", cursor: 22).terminator == "")
    }

    /// Paths complete under any directory: up (`../`), absolute, and in
    /// the home directory (`~/`), in dot commands and in an import.
    @Test func pathsCompleteUnderAnyDirectory() throws {
        let shell = try Self.shell()
        let session = shell.session
        defer { withExtendedLifetime(shell) {} }
        func complete(_ line: String) -> [String] { session.completions(in: line, cursor: line.utf8.count) }
        let root = shell.directory.path
        #expect(complete(".read sub/../r.") == ["sub/../r.json"])
        #expect(complete(".read \(root)/sub/") == ["\(root)/sub/x.mrq", "\"\(root)/sub/y z.json\""])
        #expect(complete("import Person from \"\(root)/r.") == ["\(root)/r.json"])
        #expect(complete("import Person from \(root)/r.") == ["\"\(root)/r.json"])
        session.baseDirectory = URL(fileURLWithPath: shell.path("sub"), isDirectory: true)
        #expect(complete(".read ../r.") == ["../r.json"])
        #expect(complete(".open ../su") == ["../sub/"])
        #expect(complete("import Person from \"../sub/") == ["../sub/x.mrq", "../sub/y z.json"])
        let home = ShellFiles.homeDirectory
        let visible = ((try? FileManager.default.contentsOfDirectory(atPath: home)) ?? []).filter { !$0.hasPrefix(".") && !$0.contains("\n") }
        let inHome = complete(".read ~/")
        #expect(inHome.count == visible.count)
        #expect(inHome.allSatisfy { $0.hasPrefix("~/") || $0.hasPrefix("\"~/") || $0.hasPrefix("'~/") })
    }

    @Test func dotCommandArgumentsVariablesAndComments() throws {
        let shell = try Self.shell()
        let session = shell.session
        defer { withExtendedLifetime(shell) {} }
        func complete(_ line: String) -> [String] { session.completions(in: line, cursor: line.utf8.count) }
        #expect(complete(".mode j") == ["json"])
        #expect(complete(".headers o") == ["on", "off"])
        #expect(complete(".help op") == ["operators"])
        #expect(complete(".schema Dep") == ["Department"])
        #expect(complete(".save-as x.sqlite x") == ["xml"])
        #expect(Set(complete("  .mo")) == [".mode", ".model"])
        #expect(complete("Person where age > $") == ["$people", "$x"])
        #expect(session.completion(in: "count Person where age > $p", cursor: 27) == Completion(range: 25..<27, candidates: ["$people"]))
        #expect(complete("count Person # where ag") == [])
        #expect(complete("count Person; Pe") == ["Person"])
        #expect(complete("count Person where (age > 1 AND\n  department.na") == ["department.name"])
        // A line break outside brackets ends the statement.
        #expect(complete("count Person where age > 1\nPe") == ["Person"])
    }

    // MARK: - libedit's word

    @Test func candidatesAreRewrittenForLibeditsWord() {
        // The session replaces `people.@c`; libedit's word is `@c`.
        let line = "Department where people.@c"
        let completion = Completion(range: 17..<26, candidates: ["people.@count"])
        let (common, candidates) = completion.replacements(forWordStartingAt: 24, in: line)
        #expect(common == "@count")
        #expect(candidates == ["@count"])
        // libedit's word starts earlier (`$x+ag`): the text before the range stays.
        let sum = Completion(range: 3..<5, candidates: ["age"])
        #expect(sum.replacements(forWordStartingAt: 0, in: "$x+ag") == ("$x+age", ["$x+age"]))
        // No common beginning longer than the word: the word stays as typed.
        let two = Completion(range: 0..<2, candidates: ["Person", "people"])
        #expect(two.replacements(forWordStartingAt: 0, in: "pe") == ("pe", ["Person", "people"]))
        // A shared beginning never ends inside a character.
        let accents = Completion(range: 0..<1, candidates: ["cé", "cè"])
        #expect(accents.replacements(forWordStartingAt: 0, in: "c").common == "c")
        #expect(Completion.none(at: 3).replacements(forWordStartingAt: 1, in: "abc") == ("bc", []))
    }
}
