import Foundation

/// The read-run-print loop, independent of where lines come from.
///
/// ```swift
/// InteractiveLoop.run(session: session, reader: reader, output: output)
/// ```
///
/// Each entry goes into the history (any URL's password masked), then
/// to the session; a failing entry does not stop the loop. It ends at the end of input or after
/// `.quit`; with unsaved changes it first asks whether to save them,
/// discard them, or stay (the default).
public enum InteractiveLoop {
    /// Asked before leaving with unsaved changes.
    public static let leaveQuestion = "save, discard, or stay? [s/d/Enter=stay] "

    /// Runs until `reader` reaches the end of input or the session asks
    /// to quit, and the user agrees to leave. `beforeEach` runs before
    /// every entry, for instance to pick up a new terminal width. Returns
    /// whether every entry succeeded.
    ///
    /// When the input ends while the question is asked, nobody is left to
    /// answer: the loop ends with the changes still pending, for the
    /// caller to report.
    @discardableResult
    public static func run(
        session: ShellSessionProtocol,
        reader: LineReader,
        output: ShellOutput,
        beforeEach: (ShellSessionProtocol) -> Void = { _ in }
    ) -> Bool {
        var succeeded = true
        while true {
            // Whatever is still buffered goes out before the prompt.
            output.flush()
            guard let entry = reader.readLine(prompt: session.prompt) else {
                if mayLeave(session: session, reader: reader, output: output) { return succeeded }
                continue
            }
            // A URL's password never reaches the history (nor its file).
            reader.addHistory(PostgresStoreURL.redactingPasswords(in: entry))
            beforeEach(session)
            if !session.run(entry, fileName: nil, output: output) {
                succeeded = false
            }
            if session.quitRequested {
                if mayLeave(session: session, reader: reader, output: output) { return succeeded }
                session.quitRequested = false
            }
        }
    }

    /// Whether to leave: at once with nothing unsaved; otherwise after
    /// saving (when the save works) or discarding, as the user answers.
    static func mayLeave(session: ShellSessionProtocol, reader: LineReader, output: ShellOutput) -> Bool {
        while !session.pendingChanges.isEmpty {
            output.writeError("unsaved changes: \(session.pendingChanges)\n")
            output.flush()
            guard let answer = reader.readAnswer(prompt: leaveQuestion) else { return true }
            switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
            case "s", "save", "y", "yes":
                // A failed save keeps the changes, and the question comes back.
                _ = session.run("save", fileName: nil, output: output)
            case "d", "discard", "n", "no":
                _ = session.run("rollback", fileName: nil, output: output)
            case "", "c", "stay", "cancel":
                return false
            default:
                output.writeError("answer s to save, d to discard, or press Enter to stay\n")
            }
        }
        return true
    }
}
