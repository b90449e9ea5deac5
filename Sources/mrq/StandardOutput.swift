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
final class StandardOutput: ShellOutput {
    /// Why standard output took no more, other than a closed pipe.
    private(set) var failure: String?
    private var outputClosed = false

    func write(_ text: String) {
        guard !outputClosed else { return }
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
        DescriptorWriter.writeAll(STDERR_FILENO, text)
    }
}
