/// The read-run-print loop, independent of where lines come from.
///
/// ```swift
/// InteractiveLoop.run(session: session, reader: reader, output: output)
/// ```
///
/// Each entry goes into the history, then to the session; a failing
/// entry does not stop the loop. It ends at the end of input.
public enum InteractiveLoop {
    /// Runs until `reader` reaches the end of input. `beforeEach` runs
    /// before every entry, for instance to pick up a new terminal width.
    /// Returns whether every entry succeeded.
    @discardableResult
    public static func run(
        session: ShellSessionProtocol,
        reader: LineReader,
        output: ShellOutput,
        beforeEach: (ShellSessionProtocol) -> Void = { _ in }
    ) -> Bool {
        var succeeded = true
        while let entry = reader.readLine(prompt: session.prompt) {
            reader.addHistory(entry)
            beforeEach(session)
            if !session.run(entry, fileName: nil, output: output) {
                succeeded = false
            }
        }
        return succeeded
    }
}
