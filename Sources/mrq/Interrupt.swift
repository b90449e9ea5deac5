import Foundation
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
    }

    /// Whether Ctrl-C was pressed since the last call; clears the flag.
    static func take() -> Bool {
        pending.exchange(false, ordering: .relaxed)
    }
}
