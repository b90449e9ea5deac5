import Foundation
import Shell

/// Reads entries from standard input with no prompt and no editing, for
/// `--interactive` when standard input is not a terminal.
final class PlainLineReader: LineReader {
    private let assembler: EntryAssembler

    init(isComplete: @escaping (String) -> Bool) {
        assembler = EntryAssembler(isComplete: isComplete)
    }

    func readLine(prompt: String) -> String? {
        assembler.readEntry(prompt: prompt) { _ in
            Swift.readLine(strippingNewline: true).map(LineEvent.line) ?? .endOfInput
        }
    }

    /// Shows the question on standard error (standard output may be
    /// data) and reads one line.
    func readAnswer(prompt: String) -> String? {
        DescriptorWriter.writeAll(STDERR_FILENO, prompt)
        return Swift.readLine(strippingNewline: true)
    }

    func addHistory(_ entry: String) {}
}
