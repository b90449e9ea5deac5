/// What the `mrq` executable needs from a shell session: run text, tell
/// when a statement is complete, offer completions, and show a prompt.
///
/// ```swift
/// let session = try makeSession(options: options)
/// if !session.run("count Person", fileName: nil, output: output) {
///     // the statement failed; diagnostics were written to `output`
/// }
/// ```
///
/// The session is used from one thread only: the REPL's.
public protocol ShellSessionProtocol: AnyObject {
    /// Runs source text (one or more statements). Writes results and
    /// diagnostics through `output`. Returns false if any statement failed.
    func run(_ source: String, fileName: String?, output: ShellOutput) -> Bool

    /// Whether `text` holds complete statements (no open brace, paren or
    /// string), for continuation prompts.
    func isComplete(_ text: String) -> Bool

    /// Completion candidates for the word before `cursor` in `line`, and
    /// the part of the line they replace. `cursor` is a UTF-8 offset into
    /// `line`, like `SourceLocation`'s offset.
    func completion(in line: String, cursor: Int) -> Completion

    /// The prompt: `"mrq> "`, or `"mrq*> "` when there are unsaved changes.
    var prompt: String { get }

    /// The changes not saved to the store yet, per entity.
    var pendingChanges: PendingChanges { get }

    /// Set by `.quit` and `.exit`; whoever runs the session leaves when it
    /// is set, or clears it to stay.
    var quitRequested: Bool { get set }

    var renderOptions: RenderOptions { get set }
}

/// Where a session writes: results to `write`, diagnostics to
/// `writeError`. Text is written as is; include the newline.
public protocol ShellOutput: AnyObject {
    func write(_ text: String)
    func writeError(_ text: String)
}
