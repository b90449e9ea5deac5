import Foundation
@testable import Shell

/// Statements a user might type, from every place the project shows
/// them, and random garbled lines, for the completion and fuzz tests.
enum StatementCorpus {
    /// Every line of `Samples/*.mrq`.
    static let samples: [String] = {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: ShellHarness.samples.path)) ?? [])
            .filter { $0.hasSuffix(".mrq") }.sorted()
        return names.flatMap { name in
            lines(of: ShellHarness.samples.appendingPathComponent(name))
        }
    }()

    /// The input lines of the REPL transcripts.
    static let transcripts: [String] = {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: TranscriptTests.directory.path)) ?? [])
            .filter { $0.hasSuffix(".mrq") }.sorted()
        return names.flatMap { name in
            lines(of: TranscriptTests.directory.appendingPathComponent(name)).compactMap(promptInput)
        }
    }()

    /// Every line inside the README's code blocks.
    static let readme: [String] = {
        var inBlock = false
        var result: [String] = []
        for line in lines(of: ShellHarness.root.appendingPathComponent("README.md")) {
            if line.hasPrefix("```") { inBlock.toggle(); continue }
            if inBlock { result.append(promptInput(line) ?? line) }
        }
        return result
    }()

    /// Every line of `.help` and its topics.
    static let help: [String] = ([nil] + Help.topics).flatMap { topic in
        Help.text(topic: topic).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static var all: [String] { samples + transcripts + readme + help }

    /// What follows `mrq> `, `mrq*> ` or `...> `, if the line is input.
    static func promptInput(_ line: String) -> String? {
        for prompt in ["mrq> ", "mrq*> ", "...> "] where line.hasPrefix(prompt) {
            return String(line.dropFirst(prompt.count))
        }
        return nil
    }

    static func lines(of url: URL) -> [String] {
        ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    // MARK: - Garbled lines

    /// Pieces that odd lines are made of: words of the language, quotes,
    /// escapes, multi-byte characters, paths that exist or not.
    static let fragments: [String] = [
        "Person", "Department", "where", "age", " ", " ", "  ", "\t", "\"", "'", "\\", "\\\"", ".", "$", "@", "#",
        "# ", "/", "~", "~/", ";", "{", "}", "(", ")", "[", "]", ",", ":", "=", "==", ">", "é", "e\u{301}", "日本",
        "🎉", "\u{0}", "\r", "department.name", "people.@count", "import Person from \"", ".read ", ".open ",
        ".output ", ".model ", ".save-as ", ".mode ", "my dir/", "a b", "/nonexistent/dir/", "Samples/", "peo",
        "insert Person {", "FirstName:", "first", "count", "select", "sum", "of", "from", "sort", "limit", "let",
        "$x", "SUBQUERY(", "ANY", "BEGINSWITH[cd]", "\"unterminated", "'single'", "1", "-1", "9999999999999999999",
        "@2024-01-31", "nil", "YES", "explain", "update", "set", "delete", "direct", "entity", "X",
    ]

    /// A seeded random line of fragments.
    static func garbled(_ random: inout SplitMix64) -> String {
        let count = Int(random.next() % 9)
        var line = ""
        for _ in 0..<count {
            line += fragments[Int(random.next() % UInt64(fragments.count))]
        }
        return line
    }

    /// `line` with a few of its characters removed, repeated or replaced
    /// by a fragment.
    static func mutated(_ line: String, _ random: inout SplitMix64) -> String {
        var characters = Array(line)
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let position = characters.isEmpty ? 0 : Int(random.next() % UInt64(characters.count + 1))
            switch random.next() % 4 {
            case 0 where position < characters.count: characters.remove(at: position)
            case 1 where position < characters.count: characters.insert(characters[position], at: position)
            case 2 where position < characters.count: characters.removeSubrange(position...)
            default:
                let fragment = fragments[Int(random.next() % UInt64(fragments.count))]
                characters.insert(contentsOf: fragment, at: position)
            }
        }
        return String(characters)
    }
}

/// SplitMix64: a tiny seeded generator, the same on every platform, so a
/// failure replays from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        bound <= 0 ? 0 : Int(next() % UInt64(bound))
    }
}
