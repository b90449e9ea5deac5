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

    /// `--strict` is `.strict on` from the start: an addition is refused
    /// with Apple's spelling (exit 65), which runs.
    @Test func strictFlagRefusesAdditions() throws {
        let refused = try MRQBinary.run(["--strict", "-c", "avg({1, 2})"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("error: 'avg({1, 2})' calls a function by mrq's readable name; "
                                        + "in Apple's NSPredicate write average:({1, 2})"), "\(refused.stderr)")
        let apples = try MRQBinary.run(["--strict", "-c", "average:({1, 2})"])
        #expect(apples.status == 0)
        #expect(apples.stdout == "1.5\n")
        #expect(try MRQBinary.run(["-c", "avg({1, 2})"]).stdout == "1.5\n")
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

    /// `sqlite3 file.db` opens the database; `mrq file.db` says that a
    /// database is no script and how to open it, rather than calling it
    /// "not a text file".
    @Test func aDatabaseGivenAsAScriptSaysHowToOpenIt() throws {
        let path = try MRQBinary.temporaryFile("", suffix: ".sqlite")
        try Data("SQLite format 3\0".utf8 + [0x10, 0x00, 0x01, 0x01, 0x00]).write(to: URL(fileURLWithPath: path))
        let result = try MRQBinary.run([path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("it is an SQLite database, not a script (open a store with --store FILE, or .open FILE at the prompt)"),
                "\(result.stderr)")
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

    /// An error in -c text says `-c:LINE:COL`, counting the lines of
    /// that -c; the rest of it does not run, nor do later -c.
    @Test func errorsInCommandTextSayWhere() throws {
        let result = try MRQBinary.run(["-c", "\"one\"", "-c", "1 +\n  2\n\"three\"; 4 + )\n\"never\"", "-c", "\"never\""])
        #expect(result.status == 65)
        #expect(result.stdout == "one\n3\nthree\n")
        #expect(result.stderr == """
            -c:3:14: error: expected value after '+'
                "three"; 4 + )
                             ^

            """)
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
        #expect(help.stdout.contains("USAGE: mrq [<options>] [<file.mrq> ...]"))
        #expect(help.stdout.contains("--layout <layout>") && help.stdout.contains("--immutable"))
        #expect(help.stdout.contains("75 the run ended with unsaved changes"))
    }

    // MARK: - Unsaved changes at the end of a run

    static let model = MRQBinary.packageRoot.appendingPathComponent("Samples/People.xcdatamodeld").path
    static let unsavedNote = "mrq: the run ended with changes that were not saved (Department: 1 inserted; Person: 1 inserted); end it with 'save' to keep them or 'rollback' to drop them\n"
    static let changes = "insert Department { name: \"Eng\" }\ninsert Person { FirstName: \"Ada\", personID: 1 }\n"

    @Test func commandsEndingWithUnsavedChangesSaySoAndExit75() throws {
        let result = try MRQBinary.run(["--model", Self.model, "-c", "insert Department { name: \"Eng\" }",
                                        "-c", "insert Person { FirstName: \"Ada\", personID: 1 }"])
        #expect(result.status == 75)
        #expect(result.stdout == "inserted 1 Department\ninserted 1 Person\n")
        #expect(result.stderr == Self.unsavedNote)
    }

    @Test func pipedScriptEndingWithUnsavedChangesCountsAsAScript() throws {
        let result = try MRQBinary.run(["--model", Self.model], stdin: Self.changes)
        #expect(result.status == 75)
        #expect(result.stderr == Self.unsavedNote)
    }

    @Test func scriptFileEndingWithUnsavedChangesExits75() throws {
        let file = try MRQBinary.temporaryFile(Self.changes)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try MRQBinary.run(["--model", Self.model, file])
        #expect(result.status == 75)
        #expect(result.stderr == Self.unsavedNote)
    }

    @Test(arguments: ["save", "rollback"])
    func scriptEndingWithSaveOrRollbackExitsZero(last: String) throws {
        let result = try MRQBinary.run(["--model", Self.model], stdin: Self.changes + last + "\n")
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }

    /// Errors win: 65, and the dropped changes are still named.
    @Test func scriptWithAnErrorAndUnsavedChangesExits65AndNamesThem() throws {
        let result = try MRQBinary.run(["--model", Self.model], stdin: Self.changes + "count Nobody\n")
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("<stdin>:3:7: error: unknown entity 'Nobody'"))
        #expect(result.stderr.hasSuffix(Self.unsavedNote))
    }

    @Test func quitEndsTheWholeRunNotJustItsCommand() throws {
        let file = try MRQBinary.temporaryFile("\"never\"\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try MRQBinary.run(["-c", "\"one\"", "-c", ".quit", "-c", "\"two\"", file])
        #expect(result.status == 0)
        #expect(result.stdout == "one\n")
    }

    /// `-i` on a pipe is interactive: the question comes, on standard
    /// error; the end of input answers nothing, so nothing is saved.
    @Test func interactiveOnAPipeAsksThenReportsAtTheEndOfInput() throws {
        let result = try MRQBinary.run(["--model", Self.model, "-i"], stdin: Self.changes)
        #expect(result.status == 75)
        #expect(result.stderr == "unsaved changes: Department: 1 inserted; Person: 1 inserted\n"
            + "save, discard, or stay? [s/d/Enter=stay] " + Self.unsavedNote)
    }

    @Test func interactiveOnAPipeSavesWhenToldTo() throws {
        let store = NSTemporaryDirectory() + "mrq-cli-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let result = try MRQBinary.run(["--model", Self.model, "--store", store, "-i"], stdin: Self.changes + ".quit\ns\n")
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("saved 2 changes\n"))
        let count = try MRQBinary.run(["--store", store, "-c", "count Person"])
        #expect(count.stdout.contains("│     1 │"))
    }

    // MARK: - The end of a run

    /// A run leaves the objects it imported to the process's end (the
    /// kernel frees them at once), and still closes what it opened: the
    /// store, its log checkpointed and gone, and an `.output` file,
    /// written in full.
    @Test func aRunEndsWithItsStoreClosedAndItsOutputWritten() throws {
        let directory = NSTemporaryDirectory() + "mrq-end-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let departments = (0..<300).map { "{\"name\": \"D\($0)\"}" }.joined(separator: ",")
        try "[\(departments)]".write(toFile: directory + "/d.json", atomically: true, encoding: .utf8)
        let store = directory + "/s.sqlite"
        let result = try MRQBinary.run([
            "--model", Self.model, "--store", store, "-c", "import Department from \"\(directory)/d.json\"", "-c", "save",
            "-c", ".output \(directory)/out.txt", "-c", "count Department",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "imported 300 Department objects\nsaved 300 changes\n")
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: store + "-shm"))
        #expect(try String(contentsOfFile: directory + "/out.txt", encoding: .utf8).contains("│   300 │"))
        let count = try MRQBinary.run(["--store", store, "-c", "count Department"])
        #expect(count.stdout.contains("│   300 │"))
    }

    // MARK: - Standard output that takes no more

    /// Was a SIGILL: FileHandle.write is a try! on Linux.
    @Test func fullStandardOutputIsReportedWithStatus74() throws {
        let result = try MRQBinary.run(["-c", "\"x\""], stdoutPath: "/dev/full")
        #expect(result.status == 74)
        #expect(result.stderr == "mrq: cannot write to standard output: no space left on device\n")
    }

    /// A reader that leaves (`| true`) does not stop the run before its
    /// save.
    @Test func aClosedPipeDoesNotStopTheRunBeforeItsSave() throws {
        let store = NSTemporaryDirectory() + "mrq-pipe-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        let script = String(repeating: "1 + 1\n", count: 200) + Self.changes + "save\n"
        let file = try MRQBinary.temporaryFile(script)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try MRQBinary.bash("mrq --model '\(Self.model)' --store '\(store)' '\(file)' | true; exit ${PIPESTATUS[0]}")
        #expect(result.status == 0)
        let count = try MRQBinary.run(["--store", store, "-c", "count Person"])
        #expect(count.stdout.contains("│     1 │"))
    }

    /// With standard input closed, the first file opened takes its number
    /// (SQLite guards itself against that; the XML store and .read do
    /// not): reading the script then failed with "bad file descriptor".
    @Test func closedStandardInputReadsAsEmpty() throws {
        let store = NSTemporaryDirectory() + "mrq-closed-\(UUID().uuidString).xml"
        defer { try? FileManager.default.removeItem(atPath: store) }
        _ = try MRQBinary.run(["--model", Self.model, "--store", store, "-c", "insert Department { name: \"Eng\" }", "-c", "save"])
        let result = try MRQBinary.bash("mrq --store '\(store)' <&-")
        #expect(result.status == 0)
        #expect(result.output == "")
    }
}
