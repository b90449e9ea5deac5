import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The throwaway PostgreSQL cluster of one suite run, as the tests start
/// theirs (Tests/ObjectStoreTests/PostgresServer.swift, which the bench
/// cannot import): `initdb` in a new directory in /tmp with trust
/// authentication and the superuser `mrq`, listening on 127.0.0.1 only on
/// a free port, run as the `postgres` user (or `nobody`) when the bench
/// runs as root, since `initdb` refuses root. Stopped (immediately: the
/// data is thrown away) and deleted when the suite ends.
final class PostgresCluster {
    let directory: String
    let port: Int
    private let bin: String
    private let account: (name: String, uid: uid_t, gid: gid_t)?

    /// Why the PostgreSQL workloads cannot run, when the server programs
    /// are missing: the row's status.
    static let missing = "skipped: no PostgreSQL (initdb not found)"

    /// `postgres://mrq@127.0.0.1:PORT/database`.
    func url(_ database: String) -> String { "postgres://mrq@127.0.0.1:\(port)/\(database)" }

    /// `initdb`, `pg_ctl` and `postgres`: `pg_config --bindir`, else
    /// Debian's newest `/usr/lib/postgresql/VERSION/bin`, else the PATH;
    /// nil when none has them.
    static func binDirectory() -> String? {
        var candidates: [String] = []
        if let config = ["/usr/bin/pg_config", "/usr/local/bin/pg_config"].first(where: FileManager.default.isExecutableFile),
           let bindir = try? output(config, ["--bindir"]) {
            candidates.append(bindir.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map { "/usr/lib/postgresql/\($0)/bin" }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return candidates.first { dir in
            ["initdb", "pg_ctl", "postgres"].allSatisfy { FileManager.default.isExecutableFile(atPath: "\(dir)/\($0)") }
        }
    }

    init(bin: String) throws {
        self.bin = bin
        if getuid() == 0 {
            guard let entry = getpwnam("postgres") ?? getpwnam("nobody") else {
                throw BenchError("running as root, and there is neither a postgres nor a nobody user to run initdb as")
            }
            account = (String(cString: entry.pointee.pw_name), entry.pointee.pw_uid, entry.pointee.pw_gid)
        } else {
            account = nil
        }
        var template = Array("/tmp/mrq-bench-pg-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw BenchError("cannot make a directory in /tmp") }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let account { chown(directory, account.uid, account.gid) }
        port = try Self.freePort()
        watchOwner()
        do {
            try run("initdb", ["-D", "\(directory)/data", "-U", "mrq", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
            let settings = """

                listen_addresses = '127.0.0.1'
                port = \(port)
                unix_socket_directories = '\(directory)'
                fsync = off
                synchronous_commit = off
                full_page_writes = off
                max_connections = 50

                """
            let conf = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(directory)/data/postgresql.conf"))
            conf.seekToEndOfFile()
            conf.write(Data(settings.utf8))
            try conf.close()
            try run("pg_ctl", ["start", "-w", "-t", "60", "-s", "-D", "\(directory)/data", "-l", "\(directory)/server.log"])
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Stops the server at once and deletes its directory.
    func stop() {
        _ = try? run("pg_ctl", ["stop", "-m", "immediate", "-s", "-D", "\(directory)/data"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a process, apart from this one's session, that waits for
    /// this process to end, then stops the server and deletes the
    /// directory: `stop()` for a run interrupted (Ctrl-C) or crashed,
    /// which would leave the server running.
    private func watchOwner() {
        let data = "\(directory)/data"
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            pid=$(head -n 1 '\(data)/postmaster.pid' 2>/dev/null)
            if [ -n "$pid" ] && [ "$(readlink /proc/$pid/cwd)" = '\(data)' ]; then
                kill -QUIT "$pid"
                while [ "$(readlink /proc/$pid/cwd)" = '\(data)' ]; do sleep 0.1; done
            fi
            rm -rf '\(directory)'
            """
        guard let setsid = ["/usr/bin/setsid", "/bin/setsid"].first(where: FileManager.default.isExecutableFile) else { return }
        _ = try? Self.spawn([setsid, "/bin/sh", "-c", script], output: "/dev/null", wait: false)
    }

    /// Runs one of the server programs (as `account` under root); throws
    /// with its output and the server's log when it fails.
    private func run(_ tool: String, _ arguments: [String]) throws {
        var command = ["\(bin)/\(tool)"] + arguments
        if let account { command = ["/usr/sbin/runuser", "-u", account.name, "--"] + command }
        let log = "\(directory)/\(tool).out"
        let status = try Self.spawn(command, output: log)
        if let account { chown(log, account.uid, account.gid) }
        guard status == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let server = (try? String(contentsOfFile: "\(directory)/server.log", encoding: .utf8)) ?? ""
            throw BenchError("\(tool) failed (status \(status)): \(text)\(server.suffix(600))")
        }
    }

    private static func output(_ tool: String, _ arguments: [String]) throws -> String {
        let file = NSTemporaryDirectory() + "mrq-bench-pg-\(getpid()).out"
        defer { unlink(file) }
        guard try spawn([tool] + arguments, output: file) == 0 else { throw BenchError("\(tool) failed") }
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    /// Runs `command` with its output to the file `output` and its input
    /// from /dev/null, and waits for it (not the watchdog: `wait` false).
    /// By posix_spawn rather than Foundation's Process, which would wait for the server `pg_ctl`
    /// leaves running to let go of the descriptors it was handed.
    private static func spawn(_ command: [String], output: String, wait: Bool = true) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// A port on 127.0.0.1 that nothing listens on now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
