import Foundation
import Testing

/// The manual page (man/mrq.1), the shell completion scripts and `make
/// install` keep up with the options `mrq --help` lists.
@Suite(.serialized, .enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct ManualTests {
    static let manualPath = MRQBinary.packageRoot.appendingPathComponent("man/mrq.1").path

    /// The manual's text with roff's escaped hyphens read as hyphens.
    static func manual() throws -> String {
        try String(contentsOfFile: manualPath, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
    }

    /// Every option `mrq --help` lists (`--model`, `-c`, `-i`, …).
    static func options() throws -> [String] {
        let help = try MRQBinary.run(["--help"]).stdout
        let section = help.components(separatedBy: "OPTIONS:").last ?? ""
        var found: [String] = []
        for line in section.split(separator: "\n") where line.hasPrefix("  -") {
            let names = line.split(separator: " ").prefix { $0.hasPrefix("-") || $0.hasSuffix(",") }
            found += names.map { String($0.trimmingCharacters(in: [","])) }
        }
        return found
    }

    @Test func theManualNamesEveryOption() throws {
        let options = try Self.options()
        #expect(options.count >= 17)
        #expect(options.contains("--model") && options.contains("-c") && options.contains("-i"))
        // An option is described in a paragraph whose tag (the line after
        // .TP) names it.
        let lines = try Self.manual().split(separator: "\n").map(String.init)
        var tagged: Set<String> = []
        for (i, line) in lines.enumerated() where line == ".TP" && i + 1 < lines.count {
            tagged.formUnion(lines[i + 1].split(whereSeparator: { $0 == " " || $0 == "\"" || $0 == "," }).map(String.init))
        }
        for option in options + ["--generate-completion-script"] {
            #expect(tagged.contains(option), "man/mrq.1 does not describe \(option)")
        }
    }

    @Test func theManualGivesTheExitStatusesEnvironmentAndFiles() throws {
        let manual = try Self.manual()
        func section(_ name: String) -> String {
            guard let start = manual.range(of: ".SH \(name)\n") else { return "" }
            let rest = manual[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)])
        }
        // The statuses `mrq --help` gives, each described.
        let statuses = section("EXIT STATUS")
        for status in ["0", "64", "65", "70", "74", "75"] { #expect(statuses.contains(".B \(status)\n"), "exit status \(status)") }
        let environment = section("ENVIRONMENT")
        for variable in ["NO_COLOR", "MRQ_HISTORY", "PAGER", "MRQ_JSON_READ_AHEAD", "MRQ_LOG_LEVEL"] { #expect(environment.contains(".B \(variable)\n"), "\(variable)") }
        #expect(section("FILES").contains("~/.mrq_history"))
        let version = try MRQBinary.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(manual.contains(".TH MRQ 1 ") && manual.contains("\"mrq \(version)\""), "the manual's version is \(version)")
    }

    /// groff reads the page without a warning, when it is installed.
    @Test func theManualIsWellFormedRoff() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { return }
        let result = try MRQBinary.bash("groff -man -Tutf8 -ww -z '\(Self.manualPath)' 2>&1; echo status $?")
        #expect(result.output == "status 0\n")
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func theCompletionScriptNamesEveryOption(shell: String) throws {
        let result = try MRQBinary.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        #expect(result.stdout.contains("mrq"))
        for option in try Self.options() where option.hasPrefix("--") && option != "--help" && option != "--version" {
            let name = option.dropFirst(2)
            #expect(result.stdout.contains(option) || result.stdout.contains("-l \(name)") || result.stdout.contains("-l '\(name)'"),
                    "the \(shell) script leaves out \(option)")
        }
    }

    @Test func helpTellsOfCompletionAndTheManual() throws {
        let help = try MRQBinary.run(["--help"]).stdout
        #expect(help.contains("mrq --generate-completion-script bash"))
        #expect(help.contains("make install"))
    }

    /// `make install` copies the binary, the manual and the completion
    /// scripts under PREFIX; here with the built mrq, into a new folder.
    @Test func makeInstallPutsEachFileInItsPlace() throws {
        let prefix = NSTemporaryDirectory() + "mrq-prefix-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let root = MRQBinary.packageRoot.path
        let result = try MRQBinary.bash("make -s -C '\(root)' install-files PREFIX='\(prefix)' MRQ_BIN='\(MRQBinary.path)' 2>&1; echo status $?")
        #expect(result.output.hasSuffix("status 0\n"), "\(result.output)")
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/mrq"))
        #expect(FileManager.default.contentsEqual(atPath: prefix + "/share/man/man1/mrq.1", andPath: Self.manualPath))
        for script in ["bash-completion/completions/mrq", "zsh/site-functions/_mrq", "fish/vendor_completions.d/mrq.fish"] {
            let text = (try? String(contentsOfFile: prefix + "/share/" + script, encoding: .utf8)) ?? ""
            #expect(text.contains("store"), "\(script)")
        }
        let installed = try MRQBinary.bash("'\(prefix)/bin/mrq' --version")
        #expect(installed.status == 0)
    }
}
