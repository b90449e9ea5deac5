import Foundation
import Testing

// End-to-end: the built mrq at a real (tmux) terminal, with libedit, on
// the People sample model. A string literal statement prints itself, which
// keeps the screens short.

@Suite(.serialized, .enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
final class TerminalTests {
    let historyPath = NSTemporaryDirectory() + "mrq-history-\(UUID().uuidString)"

    deinit {
        try? FileManager.default.removeItem(atPath: historyPath)
    }

    /// Starts mrq in tmux with its own history file and waits for the
    /// prompt; `nil`, with an issue recorded, when tmux is missing.
    /// `unset` names environment variables mrq starts without.
    func startShell(in directory: String? = nil, arguments: String = "", environment: String = "", unset: [String] = []) throws -> Tmux? {
        let model = MRQBinary.packageRoot.appendingPathComponent("Samples/People.xcdatamodeld").path
        guard let executable = Tmux.executable else {
            Issue.record(Tmux.missing)
            return nil
        }
        let change = directory.map { "cd '\($0)' && " } ?? ""
        let unsetting = unset.map { "-u \($0) " }.joined()
        let command = "\(change)exec env \(unsetting)MRQ_HISTORY='\(historyPath)' NO_COLOR=1 \(environment) '\(MRQBinary.path)' --model '\(model)' \(arguments)"
        let tmux = try Tmux(executable: executable, command: command)
        try tmux.waitForLastLine("mrq>")
        return tmux
    }

    /// The screen below the banner mrq prints at start-up.
    static func afterBanner(_ screen: [String]) -> [String] {
        guard let end = screen.firstIndex(of: "Enter .help for help") else { return screen }
        return Array(screen[(end + 1)...])
    }

    @Test func theBannerNamesTheVersionModelAndStore() throws {
        let model = MRQBinary.packageRoot.appendingPathComponent("Samples/People.xcdatamodeld").path
        guard let tmux = try startShell() else { return }
        #expect(try tmux.screen() == [
            "mrq 0.1.0",
            "model \(model), version People (2 entities)",
            "store in memory",
            "Enter .help for help",
            "mrq>",
        ])
        // Not when -c or a file runs first, even with --interactive.
        guard let scripted = try startShell(arguments: "-c '\"one\"' -i") else { return }
        #expect(try scripted.screen() == ["one", "mrq>"])
    }

    @Test func typedLineReachesTheSession() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("\"hello\"")
        try tmux.waitForLastLine("mrq> \"hello\"")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("the result") { $0.suffix(2) == ["hello", "mrq>"] }
        #expect(Self.afterBanner(screen) == ["mrq> \"hello\"", "hello", "mrq>"])
    }

    @Test func multiLineStatementShowsTheContinuationPrompt() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("(1 +")
        try tmux.waitForLastLine("mrq> (1 +")
        try tmux.press("Enter")
        try tmux.waitForLastLine("   ...>")
        try tmux.type("2)")
        try tmux.press("Enter")
        let screen = try tmux.waitForLastLine("mrq>")
        #expect(Self.afterBanner(screen) == [
            "mrq> (1 +",
            "   ...> 2)",
            "3",
            "mrq>",
        ])
    }

    /// A line that ends where a statement cannot (after `where`, an
    /// operator, `AND`, a comma) goes on on the next.
    @Test func aLineEndingInAnOperatorContinues() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("select FirstName,")
        try tmux.press("Enter")
        try tmux.waitForLastLine("   ...>")
        try tmux.type("age from Person where")
        try tmux.press("Enter")
        try tmux.waitForLastLine("   ...>")
        try tmux.type("age > 3 AND")
        try tmux.press("Enter")
        try tmux.waitForLastLine("   ...>")
        try tmux.type("age < 1")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("the result") { $0.last == "mrq>" && $0.contains { $0.contains("FirstName") } }
        #expect(Self.afterBanner(screen).prefix(4) == [
            "mrq> select FirstName,",
            "   ...> age from Person where",
            "   ...> age > 3 AND",
            "   ...> age < 1",
        ])
        #expect(!screen.contains { $0.contains("error") })
    }

    @Test func tabCompletesTheWordAtTheCursor() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("count Pers")
        try tmux.waitForLastLine("mrq> count Pers")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> count Person")
        try tmux.type("where ag")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> count Person where age")
        try tmux.type("> 3")
        try tmux.press("Enter")
        try tmux.waitFor("the count of the completed statement") { $0.contains("│     0 │") && $0.last == "mrq>" }
    }

    /// No space after a key path that goes on (`department.`), collection
    /// operators after a to-many, and only the words that may follow.
    @Test func tabCompletesKeyPathsThroughRelationships() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("Person where depa")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> Person where department.")
        try tmux.type("na")
        try tmux.press("Tab")
        try tmux.type("== \"x\"")
        try tmux.waitForLastLine("mrq> Person where department.name == \"x\"")
        try tmux.press("C-u")
        try tmux.type("Department where people.@s")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> Department where people.@sum.")
        try tmux.type("sal")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> Department where people.@sum.salary")
        try tmux.press("C-u")
        try tmux.type("count Person ")
        try tmux.press("Tab")
        try tmux.press("Tab")
        try tmux.waitFor("the clause words listed") { $0.suffix(2) == ["limit   offset  sort    where", "mrq> count Person"] }
    }

    @Test func ctrlCCancelsTheLineAndKeepsTheShellRunning() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("count Per")
        try tmux.waitForLastLine("mrq> count Per")
        try tmux.press("C-c")
        try tmux.waitForLastLine("mrq>")
        // Also inside a multi-line statement: back to the main prompt.
        try tmux.type("(1 +")
        try tmux.press("Enter")
        try tmux.waitForLastLine("   ...>")
        try tmux.press("C-c")
        try tmux.waitForLastLine("mrq>")
        try tmux.type("\"ok\"")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("'ok' printed") { $0.suffix(2) == ["ok", "mrq>"] }
        #expect(Self.afterBanner(screen) == [
            "mrq> count Per^C",
            "mrq> (1 +",
            "   ...> ^C",
            "mrq> \"ok\"",
            "ok",
            "mrq>",
        ])
    }

    @Test func ctrlDOnAnEmptyLineExitsWithStatusZero() throws {
        guard let tmux = try startShell() else { return }
        try tmux.press("C-d")
        let status = try tmux.waitForExit()
        // tmux knows the status unless it saw the terminal close first.
        #expect(status == nil || status == 0)
    }

    @Test func upArrowRecallsHistoryFromThePreviousRun() throws {
        do {
            guard let first = try startShell() else { return }
            try first.type("\"first\"")
            try first.press("Enter")
            try first.waitFor("result") { $0.suffix(2) == ["first", "mrq>"] }
            try first.type("(1 +")
            try first.press("Enter")
            try first.type("2)")
            try first.press("Enter")
            try first.waitFor("result") { $0.suffix(2) == ["3", "mrq>"] }
            try first.press("C-d")
            _ = try first.waitForExit()
        }
        let saved = try String(contentsOfFile: historyPath, encoding: .utf8)
        #expect(saved.split(separator: "\n").count == 3, "a header and two entries: \(saved)")

        guard let second = try startShell() else { return }
        try second.press("Up")
        // The multi-line statement comes back whole, as one entry.
        try second.waitFor("the multi-line entry") { $0.suffix(2) == ["mrq> (1 +", "2)"] }
        try second.press("Up")
        try second.waitFor("the first entry") { $0.last == "mrq> \"first\"" }
        try second.press("Enter")
        try second.waitFor("the recalled entry run") { $0.suffix(2) == ["first", "mrq>"] }
    }

    @Test func ctrlRSearchesHistoryBackwards() throws {
        guard let tmux = try startShell() else { return }
        for (statement, result) in [("\"fetch me\"", "fetch me"), ("\"other\"", "other")] {
            try tmux.type(statement)
            try tmux.press("Enter")
            try tmux.waitFor("result") { $0.suffix(2) == [result, "mrq>"] }
        }
        try tmux.press("C-r")
        try tmux.type("fet")
        try tmux.waitFor("the match") { $0.contains("mrq> \"fetch me\"") && $0.last?.hasSuffix("fet") == true }
        try tmux.press("Enter")
        try tmux.waitFor("the found entry run") { $0.filter { $0 == "fetch me" }.count == 2 }
    }

    @Test func ctrlCStopsARunningStatement() throws {
        guard let tmux = try startShell() else { return }
        let people = MRQBinary.packageRoot.appendingPathComponent("Samples/people.json").path
        try tmux.type("import Person from \"\(people)\"")
        try tmux.press("Enter")
        try tmux.waitFor("the import") { $0.contains("imported 1200 Person objects") }
        try tmux.type("save")
        try tmux.press("Enter")
        try tmux.waitFor("the save") { $0.contains("saved 1208 changes") && $0.last == "mrq>" }
        // Nested correlated subqueries over 1,200 rows: seconds of SQLite work.
        try tmux.type("count Person where SUBQUERY(department.people, $p, SUBQUERY($p.department.people, $q, $q.age > 200).@count > 0).@count > 0")
        try tmux.press("Enter")
        try tmux.waitFor("the statement to start") { $0.contains { $0.contains("unt > 0") } }
        try tmux.press("C-c")
        try tmux.waitFor("the interrupt") { $0.contains { $0.hasSuffix("error: interrupted") } && $0.last == "mrq>" }
    }

    /// A long import draws its progress bar (rows imported / total) on
    /// the terminal; Ctrl-C stops it, nothing of it stays, and the next
    /// statement runs.
    @Test func aLongImportShowsProgressAndCtrlCStopsIt() throws {
        let directory = NSTemporaryDirectory() + "mrq-import-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var json = "["
        json.reserveCapacity(40_000_000)
        for n in 0..<1_000_000 { json += (n == 0 ? "" : ",\n") + #"{"id": \#(n), "first_name": "F\#(n % 100)"}"# }
        try Data((json + "]").utf8).write(to: URL(fileURLWithPath: directory + "/big.json"))
        // An empty NO_COLOR lets the bar show (startShell sets it to 1).
        guard let tmux = try startShell(in: directory, environment: "NO_COLOR=") else { return }
        try tmux.type(#"import Person from "big.json""#)
        try tmux.press("Enter")
        try tmux.waitFor("the progress bar") { $0.contains { ($0.hasPrefix("[#") || $0.hasPrefix("[.")) && $0.contains("/ 1,000,000 imported") } }
        try tmux.press("C-c")
        try tmux.waitFor("the interrupt") { $0.contains { $0.hasSuffix("error: interrupted") } && $0.last == "mrq>" }
        #expect(try !tmux.screen().contains { $0.contains("/ 1,000,000 imported") }, "the bar stays after the import stopped")
        try tmux.type("count Person")
        try tmux.press("Enter")
        try tmux.waitFor("the count") { $0.contains { $0.contains("│     0 │") } && $0.last == "mrq>" }
        try tmux.type(#""still here""#)
        try tmux.press("Enter")
        try tmux.waitFor("the next statement") { $0.contains("still here") && $0.last == "mrq>" }
    }

    /// A new temporary folder with `files` (paths inside it) holding `[]`.
    func folder(holding files: [String]) throws -> String {
        let directory = NSTemporaryDirectory() + "mrq-tab-\(UUID().uuidString)"
        for file in files {
            let url = URL(fileURLWithPath: directory + "/" + file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("[]".utf8).write(to: url)
        }
        return directory
    }

    /// Was a SIGILL: Tab after a one-character file name.
    @Test func tabCompletesOneCharacterFileNames() throws {
        let directory = try folder(holding: ["a1.mrq", "r.json", "Samples/people.json"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let tmux = try startShell(in: directory) else { return }
        try tmux.type(".read a")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> .read a1.mrq")
        try tmux.press("C-u")
        try tmux.type("import Person from \"r")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> import Person from \"r.json\"")
        try tmux.press("C-u")
        // The folder stays in the candidate, as typed; no space after it.
        try tmux.type("import Person from \"Sa")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> import Person from \"Samples/")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> import Person from \"Samples/people.json\"")
        try tmux.press("Enter")
        try tmux.waitFor("the import") { $0.contains("imported 0 Person objects") && $0.last == "mrq>" }
        try tmux.type("Department where people.@c")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> Department where people.@count")
    }

    /// mrq started in the "C" locale, where libedit drops every byte
    /// above 127 as it is typed: "é日本" arrived as "". Whatever the
    /// locale variables say (nothing, empty, "C"), typed UTF-8 is kept:
    /// it goes into the store and finds the object again.
    @Test(arguments: [
        ("", [String]()), ("LANG= LC_ALL= LC_CTYPE=", []), ("LC_ALL=C", []), ("", ["LANG", "LC_ALL", "LC_CTYPE"]),
    ])
    func typedNonASCIITextRoundTrips(environment: String, unset: [String]) throws {
        guard let tmux = try startShell(environment: environment, unset: unset) else { return }
        try tmux.type("\"é日本\"")
        try tmux.waitForLastLine("mrq> \"é日本\"")
        try tmux.press("Enter")
        try tmux.waitFor("the result") { $0.suffix(2) == ["é日本", "mrq>"] }
        try tmux.type("insert Person { FirstName: \"Zoë\", LastName: \"日本\" }")
        try tmux.press("Enter")
        try tmux.waitForLastLine("mrq*>")
        try tmux.type(".mode line")
        try tmux.press("Enter")
        try tmux.type("select FirstName, LastName from Person where FirstName == \"Zoë\" AND LastName == \"日本\"")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("the object found") { $0.last == "mrq*>" && $0.contains { $0.hasSuffix("LastName = 日本") } }
        #expect(screen.suffix(3) == ["FirstName = Zoë", " LastName = 日本", "mrq*>"])
    }

    /// A URL's password typed at the prompt stays off the screen below the
    /// line typed (the line echoed under the error) and out of the history
    /// file.
    @Test func aPasswordTypedAtThePromptIsNotKept() throws {
        let history = NSTemporaryDirectory() + "mrq-history-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: history) }
        guard let tmux = try startShell(environment: "MRQ_HISTORY='\(history)'") else { return }
        try tmux.type(".save-as postgres://app:hunter2@127.0.0.1:1/people")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("the refusal") { $0.last == "mrq>" && $0.contains { $0.contains("holds a password") } }
        let typed = screen.lastIndex { $0.hasPrefix("mrq> .save-as") } ?? 0
        #expect(!screen[(typed + 1)...].joined(separator: "\n").contains("hunter2"), "\(screen)")
        try tmux.type("\"next\"")
        try tmux.press("Enter")
        try tmux.waitFor("the next result") { $0.suffix(2) == ["next", "mrq>"] }
        let kept = try String(contentsOfFile: history, encoding: .utf8)
        #expect(kept.contains("app:********@127.0.0.1") && !kept.contains("hunter2"), "\(kept)")
    }

    /// libedit sets its history file's mode to 0600: with
    /// MRQ_HISTORY=/dev/null, as root, /dev/null became unwritable for
    /// everyone else; a pipe made mrq wait before its first prompt. Such a
    /// history stays in memory now (a pipe stands in for the device).
    @Test func aHistoryThatIsNotAFileIsLeftAlone() throws {
        let pipe = NSTemporaryDirectory() + "mrq-history-pipe-\(UUID().uuidString)"
        #expect(mkfifo(pipe, 0o644) == 0)
        defer { try? FileManager.default.removeItem(atPath: pipe) }
        guard let tmux = try startShell(environment: "MRQ_HISTORY='\(pipe)'") else { return }
        try tmux.type("\"kept\"")
        try tmux.press("Enter")
        try tmux.waitFor("the result") { $0.suffix(2) == ["kept", "mrq>"] }
        try tmux.press("Up")
        try tmux.waitForLastLine("mrq> \"kept\"")
        let attributes = try FileManager.default.attributesOfItem(atPath: pipe)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
        #expect(ShellKindProbe.isPipe(pipe))
    }

    /// libedit's rl_copy_text drops the line's last byte: after a space
    /// or a quote (an empty word) the session saw '.read' instead of
    /// '.read ', and offered nothing.
    @Test func tabAfterASpaceOrAQuoteCompletesTheNextWord() throws {
        let directory = try folder(holding: ["only.mrq"])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let tmux = try startShell(in: directory) else { return }
        try tmux.type(".read ")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> .read only.mrq")
        try tmux.press("C-u")
        try tmux.type("import Person from \"")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> import Person from \"only.mrq\"")
        try tmux.press("C-u")
        try tmux.type("count ")
        try tmux.press("Tab")
        try tmux.press("Tab")
        try tmux.waitFor("the entities listed") { $0.suffix(2) == ["Department  of          Person", "mrq> count"] }
    }

    static let question = "save, discard, or stay? [s/d/Enter=stay]"

    /// Types an insert, so that the session has an unsaved change.
    func insertDepartment(_ tmux: Tmux) throws {
        try tmux.type("insert Department { name: \"Eng\" }")
        try tmux.press("Enter")
        try tmux.waitForLastLine("mrq*>")
    }

    /// Types `answer` to the question and waits for mrq to exit with 0.
    func answer(_ answer: String, _ tmux: Tmux) throws {
        try tmux.type(answer)
        try tmux.press("Enter")
        let status = try tmux.waitForExit()
        #expect(status == nil || status == 0)
    }

    @Test func ctrlDWithUnsavedChangesAsksAndEnterStays() throws {
        guard let tmux = try startShell() else { return }
        try insertDepartment(tmux)
        try tmux.press("C-d")
        try tmux.waitFor("the question") { $0.suffix(2) == ["unsaved changes: Department: 1 inserted", Self.question] }
        try tmux.press("Enter")
        try tmux.waitForLastLine("mrq*>")
        try tmux.type(".quit")
        try tmux.press("Enter")
        try tmux.waitFor("the question again") { $0.last == Self.question }
        try answer("d", tmux)
        #expect(try tmux.screen().contains("rolled back 1 change"))
    }

    @Test func quitWithUnsavedChangesSavesWhenAsked() throws {
        let store = NSTemporaryDirectory() + "mrq-quit-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
        guard let tmux = try startShell(arguments: "--store '\(store)'") else { return }
        try insertDepartment(tmux)
        try tmux.type(".exit")
        try tmux.press("Enter")
        try tmux.waitFor("the question") { $0.last == Self.question }
        try answer("s", tmux)
        let count = try MRQBinary.run(["--store", store, "-c", "count Department"])
        #expect(count.stdout.contains("│     1 │"))
    }

    @Test func ctrlCAtTheQuestionStaysAndCtrlDLeavesWith75() throws {
        guard let tmux = try startShell() else { return }
        try insertDepartment(tmux)
        try tmux.press("C-d")
        try tmux.waitFor("the question") { $0.last == Self.question }
        try tmux.press("C-c")
        try tmux.waitForLastLine("mrq*>")
        try tmux.press("C-d")
        try tmux.waitFor("the question again") { $0.last == Self.question }
        try tmux.press("C-d")
        let status = try tmux.waitForExit()
        #expect(status == nil || status == 75)
        #expect(try tmux.screen().contains { $0.hasPrefix("mrq: the run ended with changes that were not saved (Department: 1 inserted)") })
    }
}

/// What is at a path, without the Shell module's internals.
enum ShellKindProbe {
    static func isPipe(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }
}
