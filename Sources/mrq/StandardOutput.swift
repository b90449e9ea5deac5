import Foundation
import Shell

/// Writes session output to standard output and diagnostics to standard
/// error, unbuffered, so that they interleave in the order written.
final class StandardOutput: ShellOutput {
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
