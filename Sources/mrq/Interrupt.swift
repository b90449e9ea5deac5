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
///
/// Only the thread that installs this (the one running the line editor)
/// takes the terminal's signals. While `readline` waits, libedit's own
/// handler catches Ctrl-C, puts back ours and re-sends the signal to the
/// process with `kill(0, SIGINT)` while SIGINT is still blocked in its
/// thread. Another thread accepting SIGINT (the watcher did) gets that
/// second signal, and its run of our handler races the line editor's look
/// at the flag: when it loses, Ctrl-C reads as end of input and the shell
/// quits. With the other threads blocking it, the re-sent signal stays
/// pending until libedit's handler returns, and the same thread runs ours
/// before its `read` reports `EINTR`. (libdispatch's threads block these
/// signals themselves; `EditLineReader` also takes that `EINTR` as Ctrl-C.)
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
        // The watcher starts with this thread's mask, so it is created
        // while the terminal's signals are blocked here.
        var terminalSignals = Self.terminalSignals
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &terminalSignals, &previous)
        startWatcher()
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        // A parent may have started us with SIGINT blocked (a thread pool's
        // mask survives fork and exec); Ctrl-C must still arrive.
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
    }

    /// The signals libedit catches while `readline` waits (its handlers,
    /// and ours after it, must run in the line editor's thread): hangup,
    /// Ctrl-C, Ctrl-\, terminate, continue, Ctrl-Z and window resize.
    /// Other threads of ours block them.
    private static var terminalSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGCONT, SIGTSTP, SIGWINCH] {
            sigaddset(&set, signal)
        }
        return set
    }

    /// A thread that turns a Ctrl-C pressed while a statement runs into an
    /// interrupt of the store's connections (sqlite3_interrupt is safe from
    /// another thread; the signal handler itself only sets a flag). It
    /// blocks the terminal's signals (see ``Interrupt``), and only consumes
    /// the flag while a statement runs, so a Ctrl-C at the prompt is left
    /// for the line editor.
    private static func startWatcher() {
        guard !watcherStarted.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread {
            // Inherited from `install`; set again here so that this does
            // not depend on how Foundation creates the thread.
            var terminalSignals = Interrupt.terminalSignals
            pthread_sigmask(SIG_BLOCK, &terminalSignals, nil)
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
    func completion(in line: String, cursor: Int) -> Completion { inner.completion(in: line, cursor: cursor) }
    var prompt: String { inner.prompt }
    var pendingChanges: PendingChanges { inner.pendingChanges }
    var quitRequested: Bool {
        get { inner.quitRequested }
        set { inner.quitRequested = newValue }
    }
    var renderOptions: RenderOptions {
        get { inner.renderOptions }
        set { inner.renderOptions = newValue }
    }
}
