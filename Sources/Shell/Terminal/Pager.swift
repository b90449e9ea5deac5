import Foundation

/// One statement's results on a terminal, through a pager (`less`) when
/// they turn out taller than the terminal, as psql does.
///
/// ```swift
/// let paged = PagedOutput(command: "less -FRSX", height: 30, screen: output)
/// paged.write(rows)      // held until taller than the screen, then piped
/// paged.finish()         // short results go to the screen; waits for the pager
/// ```
///
/// The first lines are held until there are more than fit on the
/// screen; short results then go to the screen as they are. Once taller,
/// the pager starts (`/bin/sh -c COMMAND`, reading a pipe), gets what was
/// held, and every later row is streamed into its pipe: the fetch runs
/// only as fast as the pager reads. When the pager quits (`q`), writing
/// fails and ``isClosed`` turns true, which stops the fetch, as a closed
/// `| head` does. `LESS` is set to `FRSX` for the pager when it is unset,
/// so `PAGER=less` keeps colours and short results.
final class PagedOutput {
    /// What a pager that could not be run (the shell's status 126 or 127:
    /// no such command) leaves to report.
    private(set) var problem: String?
    private let command: String
    private let height: Int
    private let screen: ShellOutput
    private var held = ""
    private var heldLines = 0
    /// The pager's pipe, while it runs.
    private var pipe: Int32 = -1
    private var pid: pid_t = 0
    /// No pager could be started: the rest goes to the screen.
    private var direct = false
    /// Text for the pipe, written in blocks rather than row by row.
    private var pending = ""
    private static let blockSize = 16 * 1024
    private(set) var isClosed = false

    init(command: String, height: Int, screen: ShellOutput) {
        self.command = command
        self.height = max(height, 2)
        self.screen = screen
    }

    /// Whether the pager is running (the terminal is its).
    var isPaging: Bool { pipe >= 0 }

    func write(_ text: String) {
        guard !isClosed else { return }
        if direct { return screen.write(text) }
        if isPaging {
            pending += text
            if pending.utf8.count >= Self.blockSize { writePending() }
            return
        }
        held += text
        heldLines += text.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        // The prompt needs the last line.
        if heldLines >= height { start() }
    }

    /// Ends the statement's results: what was held goes to the screen, or
    /// the pager gets the end of its input and is waited for.
    func finish() {
        defer {
            held = ""
            heldLines = 0
            isClosed = false
            direct = false
        }
        guard isPaging else {
            if !held.isEmpty { screen.write(held) }
            return
        }
        writePending()
        close(pipe)
        pipe = -1
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        if exited, code == 126 || code == 127 {
            problem = "the pager '\(command)' could not be run (status \(code)); set PAGER to one that can, or turn it off with '.pager off'"
        }
    }

    /// The problem since the last call, if any.
    func takeProblem() -> String? {
        defer { problem = nil }
        return problem
    }

    private func start() {
        screen.flush()
        var descriptors: [Int32] = [0, 0]
        guard Glibc.pipe(&descriptors) == 0 else { return passThrough() }
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addclose(&actions, readEnd)

        // The pager gets the terminal's signals as a program of its own:
        // none blocked, and Ctrl-C, Ctrl-\ and a closed pipe doing what
        // they do by default (mrq ignores SIGPIPE and catches Ctrl-C).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGPIPE, SIGTSTP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = ProcessInfo.processInfo.environment
        if environment["LESS"] == nil { environment["LESS"] = "FRSX" }
        let arguments = ["/bin/sh", "-c", command]
        var cArguments = arguments.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &cArguments, &cEnvironment)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return passThrough()
        }
        pipe = writeEnd
        pending = held
        held = ""
        writePending()
    }

    /// No pager could be started: the results go to the screen.
    private func passThrough() {
        screen.write(held)
        held = ""
        direct = true
    }

    private func writePending() {
        guard isPaging, !pending.isEmpty else { return }
        if DescriptorWriter.writeAll(pipe, pending) != 0 { isClosed = true }
        pending.removeAll(keepingCapacity: true)
    }
}
