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

    /// Called once, after the last statement, when the process is about
    /// to exit: the session may leave what only takes memory to the end
    /// of the process, rather than free it piece by piece. Whatever holds
    /// a file, a connection or a temporary folder is still closed when
    /// the session goes. The session runs nothing afterwards.
    func prepareForExit()
}

extension ShellSessionProtocol {
    /// Leaves everything to the session's own teardown.
    public func prepareForExit() {}
}

/// Where a session writes: results to `write`, diagnostics to
/// `writeError`. Text is written as is; include the newline.
///
/// An output may hold results back (mrq buffers standard output); the
/// session calls `flush` at the end of every statement, and an output
/// must write what it holds before any diagnostic, so the two stay in
/// order.
public protocol ShellOutput: AnyObject {
    func write(_ text: String)
    func writeError(_ text: String)
    /// Writes whatever results are held back.
    func flush()
    /// Whether results can no longer be written (the reader of a pipe
    /// went away): a statement printing rows then stops fetching them.
    var isClosed: Bool { get }
    /// Long work under way, or `nil` when it ended: a progress bar on a
    /// terminal (see ``WorkProgress``). Outputs that show none keep the
    /// default, which ignores it.
    func progress(_ progress: WorkProgress?)
    /// Whether `progress(_:)` shows anything. When false, a session works
    /// out no progress to report: a JSON import then skips reading the
    /// rest of its file for the bar's total. The default is true.
    var showsProgress: Bool { get }
}

/// How far a long statement has got: rows imported, fetched or printed,
/// out of how many when that is known, and for how long it has run.
/// Sessions report it through ``ShellOutput/progress(_:)`` about ten
/// times a second once the work has run for a second.
public struct WorkProgress: Sendable, Hashable {
    /// What is being counted, as a past participle: "imported", "printed".
    public var action: String
    /// The rows (or objects) done so far.
    public var done: Int
    /// How many there are in all, when known.
    public var total: Int?
    /// Seconds since the work began.
    public var elapsed: Double

    public init(action: String, done: Int, total: Int? = nil, elapsed: Double) {
        self.action = action
        self.done = done
        self.total = total
        self.elapsed = elapsed
    }

    /// The progress line, at most `width` columns: a bar when the total
    /// is known, then the counts and the time.
    ///
    /// ```
    /// [##########..........]  100,000 / 200,000 imported  1.4 s
    /// ```
    public func line(width: Int) -> String {
        let counts = total.map { "\(Self.grouped(done)) / \(Self.grouped($0)) \(action)" } ?? "\(Self.grouped(done)) \(action)"
        let text = counts + "  " + String(format: "%.1f s", elapsed)
        guard let total, total > 0 else { return String(text.prefix(max(0, width))) }
        let barWidth = min(30, width - text.count - 4)
        guard barWidth >= 5 else { return String(text.prefix(max(0, width))) }
        let filled = min(barWidth, barWidth * min(done, total) / total)
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]  " + text
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var result = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return n < 0 ? "-" + result : result
    }
}

extension ShellOutput {
    /// Long work under way (`nil`: it ended). Only a terminal shows it;
    /// the default ignores it.
    public func progress(_ progress: WorkProgress?) {}

    /// Nothing held back: the default writes at once.
    public func flush() {}

    /// The default never closes.
    public var isClosed: Bool { false }

    /// By default, progress is reported (and shown or not by
    /// `progress(_:)`).
    public var showsProgress: Bool { true }
}
