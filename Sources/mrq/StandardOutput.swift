import CEditLine
import Foundation
import Predicates
import Shell

/// Writes session output to standard output and diagnostics to standard
/// error. Results are buffered (64 KB, a `write(2)` per block, not per
/// row); the buffer is written at the end of every statement, before
/// anything goes to standard error, and before a progress line is drawn,
/// so that results and diagnostics stay in the order they were made.
///
/// A write that fails never stops mrq: a reader that went away (`mrq … |
/// head -1`, with SIGPIPE ignored) just gets no more output, and the
/// statements still run to the end, their saves included (``isClosed``
/// tells a statement printing rows to stop fetching them); any other
/// failure (`> /dev/full`) is reported once on standard error and makes
/// the exit status 74.
///
/// Long work's progress line is drawn on standard error when
/// `showsProgress` (it is a terminal, and neither `--quiet` nor NO_COLOR
/// asked for quiet); any other write to the terminal takes it away first,
/// and the next report draws it again below.
final class StandardOutput: ShellOutput {
    /// Why standard output took no more, other than a closed pipe.
    private(set) var failure: String?
    private var outputClosed = false
    let showsProgress: Bool
    /// Whether a progress line is on the screen now.
    private var progressShown = false
    /// Results not written yet.
    private var buffer = ""
    private static let blockSize = 64 * 1024
    /// Whether results share the terminal with the progress line, which
    /// must then be taken away before they are written.
    private let outputIsTerminal = isatty(STDOUT_FILENO) == 1

    init(showsProgress: Bool = false) {
        self.showsProgress = showsProgress
        buffer.reserveCapacity(Self.blockSize + 4096)
    }

    var isClosed: Bool { outputClosed }

    func write(_ text: String) {
        guard !outputClosed else { return }
        buffer += text
        if buffer.utf8.count >= Self.blockSize { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !outputClosed else { return }
        if outputIsTerminal { clearProgress() }
        let code = DescriptorWriter.writeAll(STDOUT_FILENO, buffer)
        guard code != 0 else { return }
        outputClosed = true
        if code != EPIPE {
            let reason = String(cString: strerror(code)).lowercased()
            failure = reason
            writeError("mrq: cannot write to standard output: \(reason)\n")
        }
    }

    /// Writes a diagnostic, escaping the control characters a name or
    /// value from a file may have brought into it (see `TerminalText`);
    /// its own line breaks stay.
    func writeError(_ text: String) {
        flush()
        clearProgress()
        DescriptorWriter.writeAll(STDERR_FILENO, TerminalText.escaped(text, keepingLines: true))
    }

    func progress(_ progress: WorkProgress?) {
        guard showsProgress else { return }
        guard let progress else { return clearProgress() }
        flush()
        let columns = Int(mrq_terminal_columns(STDERR_FILENO))
        let line = progress.line(width: (columns > 0 ? columns : 80) - 1)
        DescriptorWriter.writeAll(STDERR_FILENO, "\r" + line + "\u{1B}[K")
        progressShown = true
    }

    private func clearProgress() {
        guard progressShown else { return }
        progressShown = false
        DescriptorWriter.writeAll(STDERR_FILENO, "\r\u{1B}[K")
    }
}
