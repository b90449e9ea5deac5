import Shell

/// A test double for ``ShellSessionProtocol``: records what it runs,
/// echoes each source back, fails on sources starting with `fail`, and
/// treats text as complete when its parentheses balance.
final class EchoSession: ShellSessionProtocol {
    var renderOptions = RenderOptions()
    var prompt = "mrq> "
    var quitRequested = false
    /// What `pendingChanges` reports: set it to have unsaved changes;
    /// `save` and `rollback` clear it (unless `saveFails`).
    var pending = PendingChanges()
    var saveFails = false
    private(set) var sources: [String] = []

    var pendingChanges: PendingChanges { pending }

    func run(_ source: String, fileName: String?, output: ShellOutput) -> Bool {
        sources.append(source)
        if source == ".quit" { quitRequested = true }
        if source == "save" && saveFails {
            output.writeError("error: save failed\n")
            return false
        }
        if source == "save" || source == "rollback" { pending = PendingChanges() }
        if source.hasPrefix("fail") {
            output.writeError("error: \(source)\n")
            return false
        }
        output.write(source + "\n")
        return true
    }

    func isComplete(_ text: String) -> Bool {
        text.filter { $0 == "(" }.count <= text.filter { $0 == ")" }.count
    }

    func completion(in line: String, cursor: Int) -> Completion {
        Completion(range: 0..<cursor, candidates: ["Person", "Department"].filter { $0.hasPrefix(line) })
    }
}

/// Collects what a session writes.
final class CapturedOutput: ShellOutput {
    private(set) var text = ""
    private(set) var errors = ""

    func write(_ text: String) { self.text += text }
    func writeError(_ text: String) { errors += text }
}

/// A ``LineReader`` fed from a list of physical-line events, recording
/// the prompts it was asked to show and the history it was given.
final class ScriptedLineReader: LineReader {
    private var events: [LineEvent]
    private let assembler: EntryAssembler
    /// Answers to questions (`readAnswer`), in order; `nil` is the end
    /// of input.
    private var answers: [String?]
    private(set) var prompts: [String] = []
    private(set) var questions: [String] = []
    private(set) var history: [String] = []

    init(_ events: [LineEvent], answers: [String?] = [], isComplete: @escaping (String) -> Bool) {
        self.events = events
        self.answers = answers
        assembler = EntryAssembler(isComplete: isComplete)
    }

    func readLine(prompt: String) -> String? {
        assembler.readEntry(prompt: prompt) { prompt in
            prompts.append(prompt)
            return events.isEmpty ? .endOfInput : events.removeFirst()
        }
    }

    func readAnswer(prompt: String) -> String? {
        questions.append(prompt)
        return answers.isEmpty ? nil : answers.removeFirst()
    }

    func addHistory(_ entry: String) { history.append(entry) }
}
