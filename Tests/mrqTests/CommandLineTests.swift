import Foundation
import Testing

// The built binary without a terminal: exit codes, argument errors, and
// scripts from stdin, -c and files. A string literal statement prints
// itself, which keeps the expected outputs short.

@Suite(.enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct CommandLineTests {
    @Test func pipedScriptRunsWithoutAPrompt() throws {
        let result = try MRQBinary.run([], stdin: "\"fetch\"\n1 + 1\n")
        #expect(result.status == 0)
        #expect(result.stdout == "fetch\n2\n")
        #expect(!result.stdout.contains("mrq>"))
        #expect(result.stderr == "")
    }

    @Test func pipedScriptWithErrorsExits65() throws {
        let result = try MRQBinary.run([], stdin: "count Person where (\n")
        #expect(result.status == 65)
        #expect(result.stderr.contains("incomplete input"))
    }

    @Test func unknownFlagIsAUsageError() throws {
        let result = try MRQBinary.run(["--bogus"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Unknown option '--bogus'"))
    }

    @Test func missingFileIsAUsageError() throws {
        let result = try MRQBinary.run(["/nonexistent/people.mrq"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("no such file: /nonexistent/people.mrq"))
        #expect(result.stdout == "")
    }

    @Test(arguments: [
        (["--param", "novalue"], "expected name=value"),
        (["--param", "=x"], "is not a parameter name"),
        (["--format", "xml"], "--format"),
        (["--model", "/nonexistent/Model.xcdatamodeld"], "no such file"),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try MRQBinary.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message))
    }

    @Test func goodParametersAreAccepted() throws {
        let result = try MRQBinary.run(["--param", "name=Ada", "--param", "age=36", "-c", "$name", "-c", "$age + 1"])
        #expect(result.status == 0)
        #expect(result.stdout == "Ada\n37\n")
    }

    @Test func commandsRunBeforeFilesInOrder() throws {
        let first = try MRQBinary.temporaryFile("\"two\"\n")
        let second = try MRQBinary.temporaryFile("\"three\"\n")
        defer { try? FileManager.default.removeItem(atPath: first); try? FileManager.default.removeItem(atPath: second) }
        let result = try MRQBinary.run(["-c", "\"one\"", first, second])
        #expect(result.status == 0)
        #expect(result.stdout == "one\ntwo\nthree\n")
    }

    @Test func firstFailingScriptStopsTheRunWith65() throws {
        let broken = try MRQBinary.temporaryFile("count Person where (\n")
        let never = try MRQBinary.temporaryFile("\"never\"\n")
        defer { try? FileManager.default.removeItem(atPath: broken); try? FileManager.default.removeItem(atPath: never) }
        let result = try MRQBinary.run([broken, never])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(broken):1:21: error: incomplete input"))
        #expect(!result.stdout.contains("never"))
    }

    @Test func failingCommandSkipsTheFiles() throws {
        let file = try MRQBinary.temporaryFile("\"never\"\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try MRQBinary.run(["-c", "count Person where (", file])
        #expect(result.status == 65)
        #expect(result.stdout == "")
    }

    @Test func filesIgnoreStandardInput() throws {
        let file = try MRQBinary.temporaryFile("\"from file\"\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try MRQBinary.run([file], stdin: "\"from stdin\"\n")
        #expect(result.stdout == "from file\n")
    }

    @Test func interactiveFlagReadsStdinAfterCommandsWithoutAPrompt() throws {
        let result = try MRQBinary.run(["-c", "\"one\"", "-i"], stdin: "(1 +\n2)\n\"four\"\n")
        #expect(result.status == 0)
        #expect(result.stdout == "one\n3\nfour\n")
    }

    @Test func versionAndHelp() throws {
        let version = try MRQBinary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "0.1.0\n")
        let help = try MRQBinary.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: mrq [--model <path>] [--store <path>] [--format <format>]"))
    }
}
