import Foundation
import ObjectStore
import Shell
import Synchronization

/// Catches Ctrl-C (SIGINT) for the lifetime of an interactive session,
/// so that it cancels the line being typed instead of ending the shell.
///
/// ```swift
/// Interrupt.install()
/// if Interrupt.take() { /* the user pressed Ctrl-C */ }
/// ```
///
/// The handler only sets a flag. It is installed without `SA_RESTART`, so
/// the `read` libedit is blocked in fails with `EINTR`; libedit then
/// restores the terminal and `readline` returns `NULL`, and the flag tells
/// that apart from end of input.
enum Interrupt {
    private static let pending = Atomic<Bool>(false)
    /// Set while a statement runs: Ctrl-C then stops it instead of waiting
    /// for the next prompt.
    static let running = Atomic<Bool>(false)
    private static let watcherStarted = Atomic<Bool>(false)

    static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            Interrupt.pending.store(true, ordering: .relaxed)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        // A parent may have started us with SIGINT blocked (a thread pool's
        // mask survives fork and exec); Ctrl-C must still arrive.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
        startWatcher()
    }

    /// A thread that turns a Ctrl-C pressed while a statement runs into an
    /// interrupt of the store's connections (sqlite3_interrupt is safe from
    /// another thread; the signal handler itself only sets a flag).
    private static func startWatcher() {
        guard !watcherStarted.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread {
            while true {
                usleep(50_000)
                if running.load(ordering: .relaxed), pending.exchange(false, ordering: .relaxed) {
                    StatementInterrupt.interruptAll()
                }
            }
        }
        thread.start()
    }

    /// Whether Ctrl-C was pressed since the last call; clears the flag.
    static func take() -> Bool {
        pending.exchange(false, ordering: .relaxed)
    }
}

/// The session, with Ctrl-C able to stop a running statement: marks each
/// `run` so the interrupt watcher knows a statement is under way.
final class InterruptibleSession: ShellSessionProtocol {
    let inner: ShellSessionProtocol

    init(_ inner: ShellSessionProtocol) { self.inner = inner }

    func run(_ source: String, fileName: String?, output: ShellOutput) -> Bool {
        Interrupt.running.store(true, ordering: .relaxed)
        defer { Interrupt.running.store(false, ordering: .relaxed) }
        return inner.run(source, fileName: fileName, output: output)
    }

    func isComplete(_ text: String) -> Bool { inner.isComplete(text) }
    func completions(in line: String, cursor: Int) -> [String] { inner.completions(in: line, cursor: cursor) }
    var prompt: String { inner.prompt }
    var renderOptions: RenderOptions {
        get { inner.renderOptions }
        set { inner.renderOptions = newValue }
    }
}
