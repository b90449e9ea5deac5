import CEditLine
import Foundation
import Shell

/// Writes session output to standard output and diagnostics to standard
/// error, unbuffered, so that they interleave in the order written.
///
/// A write that fails never stops mrq: a reader that went away (`mrq … |
/// head -1`, with SIGPIPE ignored) just gets no more output, and the
/// statements still run to the end, their saves included; any other
/// failure (`> /dev/full`) is reported once on standard error and makes
/// the exit status 74.
///
/// Long work's progress line is drawn on standard error when
/// `showsProgress` (it is a terminal, and neither `--quiet` nor NO_COLOR
/// asked for quiet); any other write takes it away first, and the next
/// report draws it again below.
final class StandardOutput: ShellOutput {
    /// Why standard output took no more, other than a closed pipe.
    private(set) var failure: String?
    private var outputClosed = false
    let showsProgress: Bool
    /// Whether a progress line is on the screen now.
    private var progressShown = false

    init(showsProgress: Bool = false) {
        self.showsProgress = showsProgress
    }

    func write(_ text: String) {
        guard !outputClosed else { return }
        clearProgress()
        let code = DescriptorWriter.writeAll(STDOUT_FILENO, text)
        guard code != 0 else { return }
        outputClosed = true
        if code != EPIPE {
            let reason = String(cString: strerror(code)).lowercased()
            failure = reason
            writeError("mrq: cannot write to standard output: \(reason)\n")
        }
    }

    func writeError(_ text: String) {
        clearProgress()
        DescriptorWriter.writeAll(STDERR_FILENO, text)
    }

    func progress(_ progress: WorkProgress?) {
        guard showsProgress else { return }
        guard let progress else { return clearProgress() }
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
