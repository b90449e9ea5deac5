import Foundation
import Testing

// End-to-end: the built mrq at a real (tmux) terminal, with libedit.
// Output checks rely on the placeholder session, which echoes statements
// and completes `Pers` to `Person`; revisit them when the interpreter lands.

@Suite(.serialized, .enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
final class TerminalTests {
    let historyPath = NSTemporaryDirectory() + "mrq-history-\(UUID().uuidString)"

    deinit {
        try? FileManager.default.removeItem(atPath: historyPath)
    }

    /// Starts mrq in tmux with its own history file and waits for the
    /// prompt; `nil`, with an issue recorded, when tmux is missing.
    func startShell() throws -> Tmux? {
        guard let executable = Tmux.executable else {
            Issue.record(Tmux.missing)
            return nil
        }
        let command = "exec env MRQ_HISTORY='\(historyPath)' NO_COLOR=1 '\(MRQBinary.path)'"
        let tmux = try Tmux(executable: executable, command: command)
        try tmux.waitForLastLine("mrq>")
        return tmux
    }

    @Test func typedLineReachesTheSession() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("fetch Person")
        try tmux.waitForLastLine("mrq> fetch Person")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("the echo") { $0.suffix(2) == ["fetch Person", "mrq>"] }
        #expect(screen == ["mrq> fetch Person", "fetch Person", "mrq>"])
    }

    @Test func multiLineStatementShowsTheContinuationPrompt() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("fetch Person where (")
        try tmux.waitForLastLine("mrq> fetch Person where (")
        try tmux.press("Enter")
        try tmux.waitForLastLine("   ...>")
        try tmux.type("age > 3)")
        try tmux.press("Enter")
        let screen = try tmux.waitForLastLine("mrq>")
        #expect(screen == [
            "mrq> fetch Person where (",
            "   ...> age > 3)",
            "fetch Person where (",
            "age > 3)",
            "mrq>",
        ])
    }

    @Test func tabCompletesTheWordAtTheCursor() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("count Pers")
        try tmux.waitForLastLine("mrq> count Pers")
        try tmux.press("Tab")
        try tmux.waitForLastLine("mrq> count Person")
        try tmux.press("Enter")
        try tmux.waitFor("the completed statement echoed") { $0.contains("count Person") }
    }

    @Test func ctrlCCancelsTheLineAndKeepsTheShellRunning() throws {
        guard let tmux = try startShell() else { return }
        try tmux.type("fetch Per")
        try tmux.waitForLastLine("mrq> fetch Per")
        try tmux.press("C-c")
        try tmux.waitForLastLine("mrq>")
        // Also inside a multi-line statement: back to the main prompt.
        try tmux.type("fetch (")
        try tmux.press("Enter")
        try tmux.waitForLastLine("   ...>")
        try tmux.press("C-c")
        try tmux.waitForLastLine("mrq>")
        try tmux.type("ok")
        try tmux.press("Enter")
        let screen = try tmux.waitFor("'ok' echoed") { $0.suffix(2) == ["ok", "mrq>"] }
        #expect(screen == [
            "mrq> fetch Per^C",
            "mrq> fetch (",
            "   ...> ^C",
            "mrq> ok",
            "ok",
            "mrq>",
        ])
    }

    @Test func ctrlDOnAnEmptyLineExitsWithStatusZero() throws {
        guard let tmux = try startShell() else { return }
        try tmux.press("C-d")
        try tmux.waitFor("mrq to exit with status 0") { screen in
            screen.contains { $0.hasPrefix("Pane is dead (status 0") }
        }
    }

    @Test func upArrowRecallsHistoryFromThePreviousRun() throws {
        do {
            guard let first = try startShell() else { return }
            try first.type("count Department")
            try first.press("Enter")
            try first.waitFor("echo") { $0.suffix(2) == ["count Department", "mrq>"] }
            try first.type("fetch Person where (")
            try first.press("Enter")
            try first.type("age > 3)")
            try first.press("Enter")
            try first.waitFor("echo") { $0.suffix(2) == ["age > 3)", "mrq>"] }
            try first.press("C-d")
            try first.waitFor("exit") { $0.contains { $0.hasPrefix("Pane is dead") } }
        }
        let saved = try String(contentsOfFile: historyPath, encoding: .utf8)
        #expect(saved.split(separator: "\n").count == 3, "a header and two entries: \(saved)")

        guard let second = try startShell() else { return }
        try second.press("Up")
        // The multi-line statement comes back whole, as one entry.
        try second.waitFor("the multi-line entry") { $0.suffix(2) == ["mrq> fetch Person where (", "age > 3)"] }
        try second.press("Up")
        try second.waitFor("the first entry") { $0.last == "mrq> count Department" }
        try second.press("Enter")
        try second.waitFor("the recalled entry run") { $0.suffix(2) == ["count Department", "mrq>"] }
    }

    @Test func ctrlRSearchesHistoryBackwards() throws {
        guard let tmux = try startShell() else { return }
        for statement in ["fetch Person", "count Department"] {
            try tmux.type(statement)
            try tmux.press("Enter")
            try tmux.waitFor("echo") { $0.suffix(2) == [statement, "mrq>"] }
        }
        try tmux.press("C-r")
        try tmux.type("fet")
        try tmux.waitFor("the match") { $0.contains("mrq> fetch Person") && $0.last?.hasSuffix("fet") == true }
        try tmux.press("Enter")
        try tmux.waitFor("the found entry run") { $0.filter { $0 == "fetch Person" }.count == 2 }
    }
}
