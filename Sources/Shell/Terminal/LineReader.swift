/// Where the REPL gets its input: the line editor on a terminal, plain
/// standard input otherwise, a script in tests.
///
/// ```swift
/// while let entry = reader.readLine(prompt: session.prompt) {
///     reader.addHistory(entry)
///     _ = session.run(entry, fileName: nil, output: output)
/// }
/// ```
///
/// An entry is one complete input, possibly several lines long: readers
/// keep reading, with ``EntryAssembler/continuationPrompt``, until the
/// session says the text is complete. Cancelling a half-typed entry
/// (Ctrl-C) is the reader's business and never reaches the caller.
public protocol LineReader: AnyObject {
    /// Reads one complete entry, its lines joined with `"\n"`; `nil` at
    /// the end of input.
    func readLine(prompt: String) -> String?

    /// Reads the answer to a question: one line, blank or not, kept out
    /// of the history; `""` when the user cancels it with Ctrl-C, `nil`
    /// at the end of input.
    func readAnswer(prompt: String) -> String?

    /// Remembers an entry so that Up-arrow recalls it, as one item even
    /// when it spans several lines.
    func addHistory(_ entry: String)
}

/// What one attempt to read a physical line produced.
public enum LineEvent: Sendable, Hashable {
    case line(String)
    /// The user pressed Ctrl-C: drop what has been typed so far.
    case interrupted
    case endOfInput
}
