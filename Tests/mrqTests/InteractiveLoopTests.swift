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
