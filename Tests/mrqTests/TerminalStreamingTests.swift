import Foundation
import Testing

// Long results at a terminal: Ctrl-C stops a print, a long fetch into a
// file shows its progress (not with --quiet), and a tall result goes
// through the pager, whose `q` stops the fetch.

extension TerminalTests {
    /// Starts mrq in tmux on a big store (`BigStore`), pager off unless
    /// `environment` gives one.
    func startOnBigStore(_ store: String, arguments: String = "", environment: String = "PAGER=") throws -> Tmux? {
        try startShell(arguments: "--store '\(store)' \(arguments)", environment: environment)
    }

    @Test func ctrlCStopsALongPrintAndTheShellGoesOn() throws {
        let store = try BigStore.make(people: 200_000)
        defer { BigStore.remove(store) }
        guard let tmux = try startOnBigStore(store) else { return }
        try tmux.type("Person")
        try tmux.press("Enter")
        try tmux.waitFor("rows on the screen") { $0.contains { $0.contains("@example.com") } }
        try tmux.press("C-c")
        try tmux.waitFor("the interrupt") { $0.contains { $0.hasSuffix("error: interrupted") } && $0.last == "mrq>" }
        try tmux.type("count Person where personID > 199990")
        try tmux.press("Enter")
        try tmux.waitFor("the next statement") { $0.contains("│    10 │") && $0.last == "mrq>" }
    }

    /// Polls the screen until the prompt is back; returns whether a line
    /// ever matched `progress` meanwhile.
    private func sawProgress(_ tmux: Tmux, _ progress: (String) -> Bool) throws -> Bool {
        var seen = false
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let screen = try tmux.screen()
            if screen.contains(where: progress) { seen = true }
            if screen.last == "mrq>" { return seen }
            usleep(30_000)
        }
        Issue.record("the prompt did not come back; screen:\n\(try tmux.screen().joined(separator: "\n"))")
        return seen
    }

    @Test func aLongFetchIntoAFileShowsItsProgressUnlessQuiet() throws {
        let store = try BigStore.make(people: 200_000)
        let file = NSTemporaryDirectory() + "mrq-progress-\(UUID().uuidString).json"
        defer {
            BigStore.remove(store)
            try? FileManager.default.removeItem(atPath: file)
        }
        let isProgress: (String) -> Bool = { $0.range(of: #"^[0-9,]+ written  [0-9.]+ s$"#, options: .regularExpression) != nil }
        for (arguments, shows) in [("", true), ("--quiet", false)] {
            // NO_COLOR would turn the progress line off: this shell runs without it.
            guard let tmux = try startOnBigStore(store, arguments: arguments, environment: "PAGER= NO_COLOR=") else { return }
            try tmux.type(".output \(file)")
            try tmux.press("Enter")
            try tmux.waitForLastLine("mrq>")
            try tmux.type(".mode json")
            try tmux.press("Enter")
            try tmux.waitForLastLine("mrq>")
            try tmux.type("Person")
            // Echoed before Enter: on a loaded machine the screen could
            // still end in the last prompt when the watching starts, and
            // that prompt would pass for the one after the fetch.
            try tmux.waitForLastLine("mrq> Person")
            try tmux.press("Enter")
            #expect(try sawProgress(tmux, isProgress) == shows, "\(arguments)")
            // The line is taken away at the end.
            #expect(!(try tmux.screen()).contains(where: isProgress))
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect(((attributes[.size] as? Int) ?? 0) > 200_000 * 200)
        }
    }

    /// A short result is printed; a tall one goes, whole, to the pager.
    @Test func aTallResultGoesThroughThePager() throws {
        let store = try BigStore.make(people: 100)
        let paged = NSTemporaryDirectory() + "mrq-paged-\(UUID().uuidString).txt"
        let pager = NSTemporaryDirectory() + "mrq-pager-\(UUID().uuidString).sh"
        try "#!/bin/sh\ncat > '\(paged)'\necho \"paged $(wc -l < '\(paged)') lines\"\n".write(toFile: pager, atomically: true, encoding: .utf8)
        defer {
            BigStore.remove(store)
            try? FileManager.default.removeItem(atPath: paged)
            try? FileManager.default.removeItem(atPath: pager)
        }
        guard let tmux = try startOnBigStore(store, environment: "PAGER='sh \(pager)'") else { return }
        try tmux.type("select personID from Person where personID <= 3")
        try tmux.press("Enter")
        try tmux.waitFor("the short result on the screen") { $0.contains("(3 rows)") && $0.last == "mrq>" }
        #expect(!FileManager.default.fileExists(atPath: paged))
        try tmux.type("select personID from Person")
        try tmux.press("Enter")
        try tmux.waitFor("the pager's report") { $0.contains("paged 105 lines") && $0.last == "mrq>" }
        let text = try String(contentsOfFile: paged, encoding: .utf8)
        #expect(text.hasSuffix("│      100 │\n└──────────┘\n(100 rows)\n"))
        try tmux.type(".pager off")
        try tmux.press("Enter")
        try tmux.type("select personID from Person")
        try tmux.press("Enter")
        try tmux.waitFor("the result on the screen") { $0.contains("(100 rows)") && $0.last == "mrq>" }
    }

    /// `q` in less stops a 200,000-row fetch at once, like `| head`.
    @Test func quittingLessStopsTheFetch() throws {
        let store = try BigStore.make(people: 200_000)
        defer { BigStore.remove(store) }
        guard let tmux = try startOnBigStore(store, environment: "PAGER=less") else { return }
        try tmux.type(".mode csv")
        try tmux.press("Enter")
        try tmux.waitForLastLine("mrq>")
        try tmux.type("Person")
        try tmux.press("Enter")
        try tmux.waitFor("less's first screen") {
            $0.contains("FirstName,LastName,age,email,salary,active,hiredAt,personID,department") && $0.last == ":"
        }
        try tmux.press("q")
        try tmux.waitForLastLine("mrq>")
        try tmux.type("\"after the pager\"")
        try tmux.press("Enter")
        try tmux.waitFor("the next statement") { $0.suffix(2) == ["after the pager", "mrq>"] }
    }
}
