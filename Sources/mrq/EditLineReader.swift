import CEditLine
import Foundation
import Shell

/// Line editing on a terminal through libedit's readline interface:
/// history kept in a file, Ctrl-R reverse search, Tab completion, Ctrl-C
/// to cancel the current entry, Ctrl-D on an empty line to quit.
///
/// ```swift
/// let reader = EditLineReader(
///     historyPath: EditLineReader.defaultHistoryPath(),
///     isComplete: session.isComplete,
///     completion: session.completion
/// )
/// ```
///
/// A multi-line entry is one history item with embedded newlines; libedit
/// stores it escaped (`\012`) in its `_HiStOrY_V2_` file format and reads it
/// back whole. The history file is rewritten after every entry, so a
/// killed shell loses nothing.
///
/// libedit keeps global state, so use one reader per process, on one thread,
/// made after `mrq_set_locale()` (in the "C" locale it drops "é" as typed).
final class EditLineReader: LineReader {
    static let historyLimit: Int32 = 1000

    private let historyPath: String
    /// Whether the history lives in a file. A device (`MRQ_HISTORY=/dev/null`)
    /// or a pipe keeps it in memory: libedit would make a device private
    /// to its owner (it sets the history file's mode to 0600, which as
    /// root breaks /dev/null for everyone), and wait on a pipe.
    private let historyIsFile: Bool
    private let assembler: EntryAssembler
    private var lastEntry: String?
    private var warnedAboutHistory = false

    init(
        historyPath: String,
        isComplete: @escaping (String) -> Bool,
        completion: @escaping (_ lineBuffer: String, _ cursor: Int) -> Shell.Completion
    ) {
        self.historyPath = historyPath
        assembler = EntryAssembler(isComplete: isComplete)
        CompletionBridge.provider = completion

        // Word boundaries for libedit's word. The session decides what a
        // candidate replaces, and `Completion.replacements` rewrites the
        // candidates for libedit's word, so these only need to keep that
        // word short enough to list the candidates readably; `.`, `$`, `@`,
        // `/`, `-` and `~` are left out so that key paths, variables and
        // file names stay one word.
        mrq_rl_configure("mrq", completionAttempt, " \t\n\"'`><=;|&{}()[],!+*%")
        rl_initialize()
        using_history()
        stifle_history(Self.historyLimit)
        let kind = ShellFiles.kind(of: historyPath)
        historyIsFile = kind == .regular || kind == .missing
        if kind == .missing {
            _ = FileManager.default.createFile(atPath: historyPath, contents: nil)
        }
        if historyIsFile { _ = read_history(historyPath) }
        lastEntry = mrq_history_last().map { String(cString: $0) }
        _ = rl_parse_and_bind("bind ^R em-inc-search-prev")
        Interrupt.install()
    }

    /// `MRQ_HISTORY` if set, otherwise `~/.mrq_history`.
    static func defaultHistoryPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["MRQ_HISTORY"], !path.isEmpty { return path }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".mrq_history")
    }

    func readLine(prompt: String) -> String? {
        assembler.readEntry(prompt: prompt) { prompt in
            _ = Interrupt.take()
            var readFailedWithEINTR: Int32 = 0
            guard let line = mrq_readline(prompt, &readFailedWithEINTR) else {
                // Ctrl-C, not end of input: the flag, set by the time
                // readline returns because only this thread takes SIGINT
                // (see `Interrupt`), or the interrupted read's EINTR, which
                // does not depend on which thread ran the handler.
                if Interrupt.take() || readFailedWithEINTR != 0 {
                    DescriptorWriter.writeAll(STDOUT_FILENO, "^C\n")
                    return .interrupted
                }
                DescriptorWriter.writeAll(STDOUT_FILENO, "\n")
                return .endOfInput
            }
            defer { free(line) }
            return .line(String(cString: line))
        }
    }

    func readAnswer(prompt: String) -> String? {
        _ = Interrupt.take()
        var readFailedWithEINTR: Int32 = 0
        guard let line = mrq_readline(prompt, &readFailedWithEINTR) else {
            if Interrupt.take() || readFailedWithEINTR != 0 {
                DescriptorWriter.writeAll(STDOUT_FILENO, "^C\n")
                return ""
            }
            DescriptorWriter.writeAll(STDOUT_FILENO, "\n")
            return nil
        }
        defer { free(line) }
        return String(cString: line)
    }

    func addHistory(_ entry: String) {
        guard entry != lastEntry else { return }
        lastEntry = entry
        _ = add_history(entry)
        if historyIsFile, write_history(historyPath) != 0, !warnedAboutHistory {
            warnedAboutHistory = true
            DescriptorWriter.writeAll(STDERR_FILENO, "mrq: cannot write history file \(historyPath)\n")
        }
    }
}

/// The bridge from libedit's C completion callback to a Swift closure.
///
/// The static is `nonisolated(unsafe)` because C function pointers
/// cannot capture context. That is safe here: libedit calls back only
/// from inside `readline`, on the one thread that runs the line editor.
private enum CompletionBridge {
    nonisolated(unsafe) static var provider: ((String, Int) -> Shell.Completion)?
}

/// `rl_attempted_completion_function`: the session's candidates for the
/// line before the cursor, rewritten for libedit's word (`text`, from
/// `start`), which libedit replaces by the first entry of the list this
/// returns (malloc'd, like every string in it; libedit frees them).
/// Turns off filename completion.
private func completionAttempt(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    mrq_rl_completion_over()
    // The word being completed (`text`, from `start`, counted in
    // characters) is exact. The line before the cursor comes from the
    // shim, which works around libedit's rl_copy_text dropping the last
    // byte; when it cannot, from the characters before `start` and the
    // word (which misses the last character when the word is empty and
    // the cursor at the end).
    let word = text.map { String(cString: $0) } ?? ""
    var line = ""
    if let copy = mrq_rl_line_before_cursor() {
        line = String(cString: copy)
        free(copy)
    }
    if line.unicodeScalars.count != Int(end) || !line.hasSuffix(word) {
        var copied = ""
        if let copy = mrq_rl_copy_line() {
            copied = String(cString: copy)
            free(copy)
        }
        line = String(String.UnicodeScalarView(copied.unicodeScalars.prefix(max(0, Int(start))))) + word
    }
    let before = String(String.UnicodeScalarView(line.unicodeScalars.prefix(max(0, line.unicodeScalars.count - word.unicodeScalars.count))))
    guard let completion = CompletionBridge.provider?(line, line.utf8.count) else { return nil }
    let (common, candidates) = completion.replacements(forWordStartingAt: before.utf8.count, in: line)
    guard !candidates.isEmpty else { return nil }
    mrq_rl_set_append_character(Int32(completion.terminator.utf8.first ?? 0))
    // [what the word becomes, candidate…, NULL]; one candidate appears
    // twice, which is how libedit tells a unique match.
    let entries = [common] + candidates
    guard let list = malloc((entries.count + 1) * MemoryLayout<UnsafeMutablePointer<CChar>?>.stride)?
        .bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: entries.count + 1) else { return nil }
    for (i, entry) in entries.enumerated() { list[i] = strdup(entry) }
    list[entries.count] = nil
    return list
}
