import Foundation
import Shell
import Testing

// The REPL's logic without a terminal: entries assembled from lines,
// continuation prompts, Ctrl-C, history, and the session calls.

@Test func eachCompleteLineReachesTheSessionAndTheHistory() {
    let session = EchoSession()
    let reader = ScriptedLineReader([.line("fetch Person"), .line("count Person")], isComplete: session.isComplete)
    let output = CapturedOutput()
    #expect(InteractiveLoop.run(session: session, reader: reader, output: output))
    #expect(session.sources == ["fetch Person", "count Person"])
    #expect(reader.history == ["fetch Person", "count Person"])
    #expect(output.text == "fetch Person\ncount Person\n")
    #expect(reader.prompts == ["mrq> ", "mrq> ", "mrq> "])
}

@Test func incompleteTextPromptsForContinuationAndMakesOneEntry() {
    let session = EchoSession()
    let reader = ScriptedLineReader(
        [.line("fetch Person where ("), .line("  age > 3"), .line(")")],
        isComplete: session.isComplete
    )
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput())
    #expect(session.sources == ["fetch Person where (\n  age > 3\n)"])
    #expect(reader.history == ["fetch Person where (\n  age > 3\n)"])
    #expect(reader.prompts == ["mrq> ", "   ...> ", "   ...> ", "mrq> "])
}

@Test func interruptDropsThePartialEntryAndReturnsToTheMainPrompt() {
    let session = EchoSession()
    let reader = ScriptedLineReader(
        [.line("fetch ("), .interrupted, .line("count Person")],
        isComplete: session.isComplete
    )
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput())
    #expect(session.sources == ["count Person"])
    #expect(reader.prompts == ["mrq> ", "   ...> ", "mrq> ", "mrq> "])
}

@Test func blankLinesAtTheMainPromptAreSkipped() {
    let session = EchoSession()
    let reader = ScriptedLineReader([.line(""), .line("   "), .line("x")], isComplete: session.isComplete)
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput())
    #expect(session.sources == ["x"])
}

@Test func endOfInputInsideAnEntryHandsOverThePartialText() {
    let session = EchoSession()
    let reader = ScriptedLineReader([.line("fetch ("), .line("a")], isComplete: session.isComplete)
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput())
    #expect(session.sources == ["fetch (\na"])
}

@Test func aFailingEntryDoesNotStopTheLoop() {
    let session = EchoSession()
    let reader = ScriptedLineReader([.line("fail here"), .line("ok")], isComplete: session.isComplete)
    let output = CapturedOutput()
    #expect(!InteractiveLoop.run(session: session, reader: reader, output: output))
    #expect(session.sources == ["fail here", "ok"])
    #expect(output.errors == "error: fail here\n")
    #expect(output.text == "ok\n")
}

@Test func beforeEachRunsBeforeEveryEntry() {
    let session = EchoSession()
    let reader = ScriptedLineReader([.line("a"), .line("b")], isComplete: session.isComplete)
    var widths = 0
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput()) { session in
        widths += 1
        session.renderOptions.terminalWidth = 100 + widths
    }
    #expect(widths == 2)
    #expect(session.renderOptions.terminalWidth == 102)
}

// MARK: - Leaving with unsaved changes

private func sessionWithChanges() -> EchoSession {
    let session = EchoSession()
    session.pending = PendingChanges(entities: [.init(entity: "Person", inserted: 3, updated: 1)])
    return session
}

@Test func endOfInputWithUnsavedChangesAsksAndEnterStays() {
    let session = sessionWithChanges()
    // Ctrl-D, Enter (stay), then Ctrl-D and Ctrl-D again at the question.
    let reader = ScriptedLineReader([], answers: [""], isComplete: session.isComplete)
    let output = CapturedOutput()
    InteractiveLoop.run(session: session, reader: reader, output: output)
    #expect(reader.questions == [InteractiveLoop.leaveQuestion, InteractiveLoop.leaveQuestion])
    #expect(reader.prompts == ["mrq> ", "mrq> "])
    #expect(output.errors == String(repeating: "unsaved changes: Person: 3 inserted, 1 updated\n", count: 2))
    // Nobody left to answer: the loop ends with the changes pending, for
    // the caller to report.
    #expect(!session.pendingChanges.isEmpty)
    #expect(session.sources.isEmpty)
}

@Test(arguments: [("s", "save"), ("save", "save"), ("Y", "save"), ("d", "rollback"), ("discard", "rollback"), ("n", "rollback")])
func quitWithUnsavedChangesSavesOrDiscardsAsAnswered(answer: String, statement: String) {
    let session = sessionWithChanges()
    let reader = ScriptedLineReader([.line(".quit"), .line("\"never\"")], answers: [answer], isComplete: session.isComplete)
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput())
    #expect(session.sources == [".quit", statement])
    #expect(reader.history == [".quit"])
    #expect(session.pendingChanges.isEmpty)
}

@Test func stayingAfterQuitKeepsTheLoopGoing() {
    let session = sessionWithChanges()
    let reader = ScriptedLineReader([.line(".quit"), .line("\"more\""), .line(".quit")], answers: ["", "d"], isComplete: session.isComplete)
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput())
    #expect(session.sources == [".quit", "\"more\"", ".quit", "rollback"])
    #expect(reader.questions.count == 2)
}

@Test func aFailedSaveAsksAgain() {
    let session = sessionWithChanges()
    session.saveFails = true
    let reader = ScriptedLineReader([.line(".quit")], answers: ["s", "maybe", "d"], isComplete: session.isComplete)
    let output = CapturedOutput()
    InteractiveLoop.run(session: session, reader: reader, output: output)
    #expect(session.sources == [".quit", "save", "rollback"])
    #expect(reader.questions.count == 3)
    #expect(output.errors.contains("error: save failed\n"))
    #expect(output.errors.contains("answer s to save, d to discard, or press Enter to stay\n"))
}

@Test func nothingUnsavedLeavesWithoutAsking() {
    let session = EchoSession()
    let reader = ScriptedLineReader([.line(".quit"), .line("\"never\"")], isComplete: session.isComplete)
    InteractiveLoop.run(session: session, reader: reader, output: CapturedOutput())
    #expect(session.sources == [".quit"])
    #expect(reader.questions.isEmpty)
}

/// The real session, on a file: the answer decides what the store holds.
@Test(arguments: [("s", 1), ("d", 0)])
func realSessionSavesOrDiscardsOnLeaving(answer: String, kept: Int) throws {
    let store = NSTemporaryDirectory() + "mrq-leave-\(UUID().uuidString).sqlite"
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) } }
    let model = MRQBinary.packageRoot.appendingPathComponent("Samples/People.xcdatamodeld").path
    let session = try ShellSession(modelPath: model, storePath: store)
    let reader = ScriptedLineReader([.line("insert Department { name: \"Eng\" }")], answers: [answer], isComplete: session.isComplete)
    let output = CapturedOutput()
    InteractiveLoop.run(session: session, reader: reader, output: output)
    #expect(output.errors.contains("unsaved changes: Department: 1 inserted\n"))
    #expect(session.pendingChanges.isEmpty)
    let reopened = try ShellSession(modelPath: nil, storePath: store)
    let count = CapturedOutput()
    reopened.run("count Department", fileName: nil, output: count)
    #expect(count.text.contains("│     \(kept) │"))
}
