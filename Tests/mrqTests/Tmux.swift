import Foundation
import Testing

/// Drives a program inside a detached tmux session on a private socket,
/// so tests can type keys and read the screen like a user.
final class Tmux {
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { "\($0)/tmux" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let missing: Comment = "tmux is not installed: apt-get install tmux (the Makefile's deps step must install it)"

    private let executable: String
    private let socket = NSTemporaryDirectory() + "mrq-tmux-\(UUID().uuidString.prefix(8)).sock"
    private let target = "mrq"

    /// Starts `command` (already shell-quoted) in a 120×30 pane that stays
    /// on screen after the program exits, so its exit status can be read.
    init(executable: String, command: String) throws {
        self.executable = executable
        try tmux(["new-session", "-d", "-x", "120", "-y", "30", "-s", target, command,
                  ";", "set-option", "-t", target, "remain-on-exit", "on"])
    }

    deinit {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Sends key names such as `Enter`, `Tab`, `Up`, `C-c`.
    func press(_ keys: String...) throws {
        try tmux(["send-keys", "-t", target] + keys)
    }

    /// Types text literally.
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", target, "-l", text])
    }

    /// Whether the program has exited, and its exit status when tmux saw
    /// it (tmux can notice the end of the terminal before the exit, and
    /// then knows no status).
    func exitStatus() throws -> (exited: Bool, status: Int?) {
        let fields = try tmux(["list-panes", "-t", target, "-F", "#{pane_dead} #{pane_dead_status}"])
            .split(separator: "\n").first?.split(separator: " ").map(String.init) ?? []
        return (fields.first == "1", fields.count > 1 ? Int(fields[1]) : nil)
    }

    /// Waits up to `timeout` seconds for the program to exit; returns its
    /// status when known.
    func waitForExit(timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let (exited, status) = try exitStatus()
            if exited { return status }
            usleep(20_000)
        }
        Issue.record("timed out waiting for the program to exit; \(programState()); screen:\n\(try screen().joined(separator: "\n"))", sourceLocation: sourceLocation)
        return nil
    }

    /// What the program in the pane is doing, for a timeout's message:
    /// its process state and the kernel function it waits in (`n_tty_read`
    /// with nothing typed pending is a key that never arrived), and its
    /// terminal's line discipline mode (canonical or raw, echo).
    func programState() -> String {
        guard let fields = try? tmux(["list-panes", "-t", target, "-F", "#{pane_pid} #{pane_tty}"])
            .split(separator: "\n").first?.split(separator: " ").map(String.init), fields.count == 2 else {
            return "pane unknown"
        }
        let (pid, tty) = (fields[0], fields[1])
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?
            .split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
        let wchan = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "?"
        var mode = "terminal mode unknown"
        let descriptor = open(tty, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        if descriptor >= 0 {
            defer { close(descriptor) }
            var settings = termios()
            if tcgetattr(descriptor, &settings) == 0 {
                let canonical = settings.c_lflag & tcflag_t(ICANON) != 0
                let echo = settings.c_lflag & tcflag_t(ECHO) != 0
                mode = "\(canonical ? "canonical" : "raw")\(echo ? ", echo" : "")"
            }
        }
        return "pid \(pid) state \(stat) waiting in \(wchan.isEmpty ? "-" : wchan), \(tty) \(mode)"
    }

    /// The visible screen, trailing blanks trimmed from each line and
    /// trailing empty lines dropped.
    func screen() throws -> [String] {
        var lines = try tmux(["capture-pane", "-t", target, "-p"])
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { String($0.reversed().drop { $0 == " " }.reversed()) }
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Waits up to `timeout` seconds for the screen to satisfy `condition`;
    /// records an issue with the last screen if it never does.
    @discardableResult
    func waitFor(
        _ description: String, timeout: Double = 30,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: ([String]) -> Bool
    ) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines = try screen()
        while !condition(lines) {
            guard Date() < deadline else {
                Issue.record("timed out waiting for \(description); \(programState()); screen:\n\(lines.joined(separator: "\n"))",
                             sourceLocation: sourceLocation)
                return lines
            }
            usleep(50_000)
            lines = try screen()
        }
        return lines
    }

    /// Waits for the last line on screen to be exactly `line`.
    @discardableResult
    func waitForLastLine(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try waitFor("last line '\(line)'", sourceLocation: sourceLocation) { $0.last == line }
    }

    /// Runs one tmux client command and returns its standard output; throws
    /// what the client said when it fails. A client that could not reach
    /// the server (its socket's backlog full on a loaded machine) sent
    /// nothing, so it is run again, up to five times.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        var attempt = 1
        while true {
            let (status, output, error) = try runClient(arguments)
            if status == 0 { return output }
            if error.contains("error connecting to"), attempt < 5 {
                attempt += 1
                usleep(100_000)
                continue
            }
            throw TmuxClientFailure(arguments: arguments, status: status, message: error)
        }
    }

    /// Runs one tmux client: its exit status, standard output and error.
    ///
    /// Not through Foundation's `Process`: the first command forks the tmux
    /// server, which would inherit the descriptors `Process` watches to see
    /// its child exit (and any pipe another test has open), and hang them.
    /// So this spawns tmux directly with only stdin, stdout and stderr open,
    /// no signals blocked, and stdout and stderr going to temporary files.
    private func runClient(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let outputPath = NSTemporaryDirectory() + "mrq-tmux-\(UUID().uuidString)"
        let errorPath = outputPath + "-error"
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        closeInheritedDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // -u: UTF-8 whatever the locale, so that typed "é" arrives whole.
        let argv = [executable, "-u", "-S", socket, "-f", "/dev/null"] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, &cArguments, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS are macros Swift does not import: a
        // signal's number in the low 7 bits, else the exit code above them.
        let exitCode = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
        return (exitCode,
                (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    /// Adds "close every descriptor from 3 up" to `actions`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's
    /// Glibc module does not export, or else one close per open descriptor.
    private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, 3) == 0 { return }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
}

/// A tmux client that exited with a failure, and what it said.
struct TmuxClientFailure: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let message: String

    var description: String {
        "tmux \(arguments.joined(separator: " ")) exited with \(status): \(message)"
    }
}
