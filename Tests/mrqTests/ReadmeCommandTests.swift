import Foundation
import Testing

/// The README's command lines run with the built `mrq`, in a fresh folder
/// that holds the samples as `Samples/`: the `mrq …` lines of a block
/// each exit 0, and a block of `$ …` lines prints exactly what the README
/// shows after each (standard output and error together, as a terminal
/// shows them). `make …` lines are left to the Makefile.
@Suite(.serialized, .enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct ReadmeCommandTests {
    /// The README's code blocks: the fence's language and the lines.
    static let fencedBlocks: [(language: String, lines: [String])] = {
        let readme = (try? String(contentsOf: MRQBinary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
        var blocks: [(language: String, lines: [String])] = []
        var current: (language: String, lines: [String])?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let block = current { blocks.append(block); current = nil } else { current = (String(line.dropFirst(3)), []) }
            } else {
                current?.lines.append(line)
            }
        }
        return blocks
    }()

    static var blocks: [[String]] { fencedBlocks.map(\.lines) }

    /// Every code block is one this suite or DocumentationExampleTests
    /// runs: a prompt session (`mrq> `, replayed exactly), a `$ ` block
    /// (its output compared), command lines (`mrq …` run here, `make …`
    /// naming a target of the Makefile), or Swift (the API, which the
    /// Swift test suites exercise, not run from the README).
    @Test func everyBlockIsOneThatRuns() throws {
        let makefile = try String(contentsOf: MRQBinary.packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)
        for block in Self.fencedBlocks {
            let lines = block.lines.filter { !$0.isEmpty }
            guard let first = lines.first else { Issue.record("an empty code block"); continue }
            if block.language == "swift" || first.hasPrefix("mrq> ") || first.hasPrefix("$ ") { continue }
            // The setup of a machine: installing PostgreSQL (no test
            // runs that), and the Debian recipe that starts a server and
            // makes the database, which PostgresShellTests runs whole.
            if block.language == "sh" {
                if lines.contains(where: { $0.contains("initdb") }) { continue }
                for line in lines {
                    #expect(["apt-get ", "brew ", "createdb "].contains { line.hasPrefix($0) }, "a setup line: \(line)")
                }
                continue
            }
            #expect(block.language.isEmpty, "a \(block.language) block: \(first)")
            for line in lines {
                if line.hasPrefix("make ") {
                    let target = line.dropFirst(5).prefix { !$0.isWhitespace }
                    #expect(makefile.contains("\n\(target):"), "README runs 'make \(target)', which the Makefile has not")
                } else {
                    #expect(line.hasPrefix("mrq "), "a README line that no test runs: \(line)")
                }
            }
        }
    }

    /// Runs `script` with bash in a new folder holding `Samples/`.
    static func bash(_ script: String) throws -> (status: Int32, output: String) {
        let folder = NSTemporaryDirectory() + "mrq-readme-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/Samples",
                                                   withDestinationPath: MRQBinary.packageRoot.appendingPathComponent("Samples").path)
        return try MRQBinary.bash(script, in: folder)
    }

    @Test func scriptLinesRunAndExitZero() throws {
        // The PostgreSQL lines need a server: PostgresShellTests runs them.
        let lines = Self.blocks.flatMap { $0 }.filter { $0.hasPrefix("mrq ") && !$0.contains("postgres") }
        #expect(lines.count >= 3)
        // One folder for the block: a later line reads what an earlier wrote.
        let commands = lines.map { $0.components(separatedBy: " # ")[0] }
        let script = commands.map { "\($0) > /dev/null || exit $?" }.joined(separator: "\n")
        let result = try Self.bash(script)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func dollarBlocksPrintWhatTheReadmeShows() throws {
        let blocks = Self.blocks.filter { $0.first?.hasPrefix("$ ") == true }
        #expect(!blocks.isEmpty)
        for block in blocks {
            let commands = block.filter { $0.hasPrefix("$ ") }.map { String($0.dropFirst(2)) }
            let expected = block.filter { !$0.hasPrefix("$ ") }.joined(separator: "\n") + "\n"
            let result = try Self.bash(commands.map { "\($0) 2>&1" }.joined(separator: "\n"))
            #expect(result.output == expected, "README block differs:\n\(TextDiff.lines(expected: expected, actual: result.output))")
        }
    }

    /// Issue 33: the README points at nothing outside the repository and
    /// quotes no test count that goes stale: every link is a web address,
    /// an anchor or a file of the repository, and no absolute path of a
    /// machine appears.
    @Test func theReadmeStaysInsideTheRepository() throws {
        let readme = try String(contentsOf: MRQBinary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for match in readme.matches(of: /\]\(([^)\s]+)\)/) {
            let link = String(match.1)
            if link.hasPrefix("https://") || link.hasPrefix("http://") || link.hasPrefix("#") { continue }
            #expect(!link.hasPrefix("/") && !link.contains(".."), "\(link)")
            #expect(FileManager.default.fileExists(atPath: MRQBinary.packageRoot.appendingPathComponent(link).path), "\(link)")
        }
        for machinePath in ["/work/", "/home/", "/Users/", "/tmp/"] {
            #expect(!readme.contains(machinePath), "\(machinePath)")
        }
        #expect(readme.firstMatch(of: /\b\d+ tests\b/) == nil)
    }
}
