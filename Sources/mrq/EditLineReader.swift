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
///     completions: session.completions
/// )
/// ```
///
/// A multi-line entry is one history item with embedded newlines; libedit
/// stores it escaped (`\012`) in its `_HiStOrY_V2_` file format and reads it
/// back whole. The history file is rewritten after every entry, so a
/// killed shell loses nothing.
///
/// libedit keeps global state, so use one reader per process, on one thread.
final class EditLineReader: LineReader {
    static let historyLimit: Int32 = 1000

    private let historyPath: String
    private let assembler: EntryAssembler
    private var lastEntry: String?
    private var warnedAboutHistory = false

    init(
        historyPath: String,
        isComplete: @escaping (String) -> Bool,
        completions: @escaping (_ lineBuffer: String, _ cursor: Int) -> [String]
    ) {
        self.historyPath = historyPath
        assembler = EntryAssembler(isComplete: isComplete)
        Completion.provider = completions

        // Word boundaries for completion. `.` and `$` are left out so that
        // key paths (`department.name`) and variables (`$name`) complete
        // as one word.
        mrq_rl_configure("mrq", completionAttempt, " \t\n\"'`@><=;|&{}()[],!+-*/%")
        rl_initialize()
        using_history()
        stifle_history(Self.historyLimit)
        if !FileManager.default.fileExists(atPath: historyPath) {
            _ = FileManager.default.createFile(atPath: historyPath, contents: nil)
        }
        _ = read_history(historyPath)
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
                    FileHandle.standardOutput.write(Data("^C\n".utf8))
                    return .interrupted
                }
                FileHandle.standardOutput.write(Data("\n".utf8))
                return .endOfInput
            }
            defer { free(line) }
            return .line(String(cString: line))
        }
    }

    func addHistory(_ entry: String) {
        guard entry != lastEntry else { return }
        lastEntry = entry
        _ = add_history(entry)
        if write_history(historyPath) != 0, !warnedAboutHistory {
            warnedAboutHistory = true
            FileHandle.standardError.write(Data("mrq: cannot write history file \(historyPath)\n".utf8))
        }
    }
}

/// The bridge from libedit's C completion callbacks to a Swift closure.
///
/// The statics are `nonisolated(unsafe)` because C function pointers
/// cannot capture context. That is safe here: libedit calls back only
/// from inside `readline`, on the one thread that runs the line editor.
private enum Completion {
    nonisolated(unsafe) static var provider: ((String, Int) -> [String])?
    nonisolated(unsafe) static var candidates: [String] = []
    nonisolated(unsafe) static var next = 0
}

/// `rl_attempted_completion_function`: gathers the candidates for the
/// word ending at the cursor, and turns off filename completion.
private func completionAttempt(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    mrq_rl_completion_over()
    // A fresh copy: rl_line_buffer may point at a stale conversion buffer
    // in libedit.
    var line = ""
    if let copy = mrq_rl_copy_line() {
        line = String(cString: copy)
        free(copy)
    }
    // libedit's copy can lag the last typed character; the word being
    // completed (`text`, from `start`) is exact, so rebuild the line
    // before the cursor from the two.
    if let text {
        let word = String(cString: text)
        line = String(String.UnicodeScalarView(line.unicodeScalars.prefix(Int(start)))) + word
    }
    Completion.candidates = Completion.provider?(line, line.utf8.count) ?? []
    Completion.next = 0
    guard !Completion.candidates.isEmpty, let text else { return nil }
    return rl_completion_matches(text, completionCandidate)
}

/// `rl_compentry_func_t`: hands out one candidate per call, as a malloc'd
/// string that libedit frees.
private func completionCandidate(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    if state == 0 { Completion.next = 0 }
    guard Completion.next < Completion.candidates.count else { return nil }
    defer { Completion.next += 1 }
    return strdup(Completion.candidates[Completion.next])
}
