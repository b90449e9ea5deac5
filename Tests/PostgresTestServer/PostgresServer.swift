import Foundation
import ObjectStore
import ObjectStorePostgres
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for the PostgreSQL suite: one per test
/// process, started at its first use and stopped and deleted when the
/// process exits.
///
/// ```swift
/// let server = try PostgresServer.shared()
/// let url = try server.createDatabase()   // postgres://mrq@127.0.0.1:PORT/t1
/// ```
///
/// The cluster lives in a new directory `/tmp/mrq-pg-XXXXXX`: `initdb`
/// makes it there with trust authentication and the superuser `mrq`, and
/// the server listens on 127.0.0.1 only, on a free port, with its Unix
/// socket in the same directory. It runs with `fsync` off and small
/// buffers: nothing in it outlives the tests. `initdb` refuses to run as
/// root, so under root (as in CI) every server program runs as the
/// `postgres` user Debian's package creates (`nobody` when there is no
/// such user), which then owns the directory.
///
/// A test process that crashes cannot stop its server: a watchdog started
/// with the server stops it and deletes its directory when the process is
/// gone, and the next test process deletes whatever a crashed run left.
package final class PostgresServer: Sendable {
    /// The directory of the cluster: `data/` in it, and the socket.
    package let directory: String
    package let port: Int
    /// The superuser `initdb` made; trusted on loopback, so no password.
    package let user = "mrq"
    /// How long `initdb` and the start took, in seconds.
    package let startSeconds: Double
    private let bin: String
    private let postmaster: pid_t
    private let databases = Databases()

    /// Names prefixing the clusters' directories in /tmp.
    package static let prefix = "mrq-pg-"

    /// The server of this test process, started the first time it is asked
    /// for; throws what starting it threw, every time. The coordinators of
    /// the tests asking for it open PostgreSQL stores: its engine is
    /// registered here, as a program registers it when it starts.
    package static func shared() throws -> PostgresServer {
        PersistentStoreCoordinator.register(PostgresEngine())
        return try started.get()
    }

    private static let started = Result { try PostgresServer() }

    /// The server `atexit` stops: set once, before the handler is registered.
    nonisolated(unsafe) private static var running: PostgresServer?

    private init() throws {
        let clock = Date()
        Self.removeStale()
        bin = try Self.binDirectory()
        var template = Array("/tmp/\(Self.prefix)XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw ServerError("cannot make a directory in /tmp: \(String(cString: strerror(errno)))") }
        directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            let account = try Self.serverAccount()
            if let account, chown(directory, account.uid, account.gid) != 0 {
                throw ServerError("cannot give \(directory) to \(account.name): \(String(cString: strerror(errno)))")
            }
            try "\(getpid())\n".write(toFile: "\(directory)/owner", atomically: false, encoding: .utf8)
            try Self.run(bin + "/initdb", ["-D", "\(directory)/data", "-U", user, "-A", "trust", "-E", "UTF8",
                                           "--locale=C", "--no-sync", "--no-instructions"],
                         as: account, in: directory)
            (port, postmaster) = try Self.start(bin: bin, directory: directory, account: account)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        startSeconds = Date().timeIntervalSince(clock)
        Self.running = self
        atexit { PostgresServer.running?.stop() }
        watchOwner()
        FileHandle.standardError.write(Data(String(
            format: "PostgreSQL test server: port %d, %@, started in %.2f s\n", port, directory, startSeconds).utf8))
    }

    /// `postgres://mrq@127.0.0.1:PORT/database`.
    package func url(database: String) -> String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// A new, empty database of its own for one test; returns its URL.
    package func createDatabase() throws -> String {
        let name = try databases.create { try PostgresConnection(url(database: "postgres")) }
        return url(database: name)
    }

    /// A new, empty schema of its own in a database the tests share (made
    /// faster than a database); returns the URL of the database with the
    /// schema as its search path.
    package func createSchema() throws -> String {
        let name = try databases.createSchema { url(database: $0) }
        return url(database: "schemas") + "?options=-csearch_path%3D\(name)"
    }

    /// Runs SQL with `psql` as the superuser over TCP; returns its
    /// unaligned output.
    package func psql(_ sql: String, database: String = "postgres") throws -> String {
        try Self.run(bin + "/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                                     "-p", "\(port)", "-U", user, "-d", database, "-c", sql],
                     as: nil, in: directory)
    }

    // MARK: - Starting and stopping

    /// Starts the server on a free port; tries another port when one was
    /// taken meanwhile. Returns the port and the postmaster's process.
    private static func start(bin: String, directory: String, account: Account?) throws -> (Int, pid_t) {
        var lastError: Error?
        for _ in 0..<5 {
            let port = try freePort()
            let settings = """

                listen_addresses = '127.0.0.1'
                port = \(port)
                unix_socket_directories = '\(directory)'
                fsync = off
                synchronous_commit = off
                full_page_writes = off
                shared_buffers = 16MB
                max_connections = 50

                """
            let conf = FileHandle(forWritingAtPath: "\(directory)/data/postgresql.conf")
            conf?.seekToEndOfFile()
            conf?.write(Data(settings.utf8))
            try conf?.close()
            do {
                try run(bin + "/pg_ctl", ["start", "-w", "-t", "60", "-s", "-D", "\(directory)/data", "-l", "\(directory)/server.log"],
                        as: account, in: directory)
                let pidFile = try String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8)
                guard let pid = pidFile.split(separator: "\n").first.flatMap({ pid_t($0) }) else {
                    throw ServerError("no process in \(directory)/data/postmaster.pid")
                }
                return (port, pid)
            } catch {
                lastError = error
                let log = (try? String(contentsOfFile: "\(directory)/server.log", encoding: .utf8)) ?? ""
                guard log.contains("could not bind") else { break }
            }
        }
        throw lastError ?? ServerError("the server did not start")
    }

    /// Stops the server at once (no checkpoint: the data is thrown away)
    /// and deletes its directory.
    private func stop() {
        Self.stopPostmaster(postmaster, dataDirectory: "\(directory)/data")
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sends the postmaster of `dataDirectory` an immediate shutdown and
    /// waits (5 s at most) for it to go; does nothing when `pid` is some
    /// other process.
    private static func stopPostmaster(_ pid: pid_t, dataDirectory: String) {
        guard isPostmaster(pid, of: dataDirectory) else { return }
        kill(pid, SIGQUIT)
        for _ in 0..<500 where isPostmaster(pid, of: dataDirectory) { usleep(10_000) }
    }

    /// Whether `pid` is the server of `dataDirectory`: a postmaster's
    /// working directory is its data directory (a process that has ended
    /// has none).
    private static func isPostmaster(_ pid: pid_t, of dataDirectory: String) -> Bool {
        // readlink itself: /proc's links have no size for Foundation to go by.
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/\(pid)/cwd", &buffer, Int(PATH_MAX))
        return length > 0 && String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == dataDirectory
    }

    /// Starts a process, apart from this one's session, that waits for
    /// this process to end, then stops the server and deletes the
    /// directory: what `atexit` does, for a process that crashes.
    private func watchOwner() {
        let data = "\(directory)/data"
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            if [ "$(readlink /proc/\(postmaster)/cwd)" = '\(data)' ]; then
                kill -QUIT \(postmaster)
                while [ "$(readlink /proc/\(postmaster)/cwd)" = '\(data)' ]; do sleep 0.1; done
            fi
            rm -rf '\(directory)'
            """
        let setsid = ["/usr/bin/setsid", "/bin/setsid"].filter { FileManager.default.isExecutableFile(atPath: $0) }.prefix(1)
        _ = try? Self.spawn(setsid + ["/bin/sh", "-c", script], in: "/", output: -1)
    }

    /// Deletes the clusters of test processes that are gone (a crash, a
    /// kill), stopping a server still running in one.
    package static func removeStale() {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for entry in entries where entry.hasPrefix(prefix) {
            let directory = "/tmp/\(entry)"
            guard let owner = (try? String(contentsOfFile: "\(directory)/owner", encoding: .utf8))
                .flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else { continue }
            if kill(owner, 0) == 0 || errno == EPERM { continue }  // still running
            if let pid = (try? String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8))?
                .split(separator: "\n").first.flatMap({ pid_t($0) }) {
                stopPostmaster(pid, dataDirectory: "\(directory)/data")
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    // MARK: - Programs and accounts

    /// Where `initdb`, `pg_ctl` and `psql` are: `pg_config --bindir`,
    /// else Debian's `/usr/lib/postgresql/VERSION/bin` (the newest), else
    /// the PATH.
    package static func binDirectory() throws -> String {
        func hasServer(_ directory: String) -> Bool {
            ["initdb", "pg_ctl", "postgres", "psql"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: "\(directory)/\($0)")
            }
        }
        var candidates: [String] = []
        if let config = ["/usr/bin/pg_config", "/usr/local/bin/pg_config"].first(where: FileManager.default.isExecutableFile),
           let bindir = try? run(config, ["--bindir"], as: nil, in: "/") {
            candidates.append(bindir.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }
            .map { "/usr/lib/postgresql/\($0)/bin" }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        candidates.append("/usr/local/bin")
        guard let found = candidates.first(where: hasServer) else {
            throw ServerError("""
                PostgreSQL's server programs (initdb, pg_ctl, postgres, psql) are not installed: \
                `make test` installs them (Debian's postgresql package), or run `apt-get install postgresql`
                """)
        }
        return found
    }

    struct Account {
        let name: String
        let uid: uid_t
        let gid: gid_t
    }

    /// The account the server programs run as: nil for this process's own,
    /// when it is not root.
    private static func serverAccount() throws -> Account? {
        guard getuid() == 0 else { return nil }
        for name in ["postgres", "nobody"] {
            if let entry = getpwnam(name) { return Account(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid) }
        }
        throw ServerError("running as root, and there is neither a postgres nor a nobody user to run initdb as")
    }

    /// Runs `tool` (as `account` when given, through `runuser`) in
    /// `directory` and returns what it printed; throws with that output
    /// when it fails.
    @discardableResult
    private static func run(_ tool: String, _ arguments: [String], as account: Account?, in directory: String) throws -> String {
        var command = [tool] + arguments
        if let account {
            guard let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
                .first(where: FileManager.default.isExecutableFile) else {
                throw ServerError("running as root, and runuser (util-linux) is not installed to run \(tool) as \(account.name)")
            }
            command = [runuser, "-u", account.name, "--"] + command
        }
        // A file with no name: nothing is left behind, whatever happens.
        var template = Array("/tmp/mrq-pg-output-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw ServerError("cannot make a file in /tmp: \(String(cString: strerror(errno)))") }
        unlink(template)
        let output = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let status = wait(for: try spawn(command, in: directory, output: fd))
        lseek(fd, 0, SEEK_SET)
        let text = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else {
            throw ServerError("\(URL(fileURLWithPath: tool).lastPathComponent) \(arguments.joined(separator: " ")) failed "
                              + "(wait status \(status)):\n\(text)")
        }
        return text
    }

    /// Starts `command` in `directory`, its standard output and error to
    /// `output` (nowhere for -1), its input from /dev/null; returns its id.
    ///
    /// Spawned by hand rather than with Foundation's `Process`, which
    /// waits until every descendant has let go of a descriptor it hands
    /// the child (`pg_ctl start` leaves the server running), and passes on
    /// the signals the spawning thread blocks. Here the child has none
    /// blocked, and no descriptor of this process but the three (another
    /// test's pipe must not stay open in the server for its lifetime).
    package static func spawn(_ command: [String], in directory: String, output: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if output >= 0 {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        _ = addChdir?(&actions, directory)
        _ = addClosefrom?(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw ServerError("cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
        return pid
    }

    /// Waits for a child `spawn` started; returns its wait status (0 when
    /// it exited with 0).
    package static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` and
    /// `…_addclosefrom_np`, which the Glibc module does not import.
    private static let addChdir = glibc("posix_spawn_file_actions_addchdir_np",
                                        as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    private static let addClosefrom = glibc("posix_spawn_file_actions_addclosefrom_np",
                                            as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)

    private static func glibc<T>(_ name: String, as type: T.Type) -> T? {
        dlsym(nil, name).map { unsafeBitCast($0, to: type) }
    }

    /// A port on 127.0.0.1 that nothing listens on now.
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw ServerError("cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Waits (10 s at most) until `condition` holds, as what another
/// connection sends arrives; returns whether it did.
package func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while !condition() {
        if Date() > deadline { return false }
        usleep(5_000)
    }
    return true
}

/// The `name` of each object `controller` holds, read on `context`'s queue.
package func fetchedNames(_ controller: FetchedResultsController, in context: ManagedObjectContext) -> [String] {
    context.performAndWait {
        (controller.fetchedObjects ?? []).map { if case .string(let s) = $0["name"] { s } else { "?" } }
    }
}

/// Why the test server could not start.
package struct ServerError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Makes the tests' databases, `t1`, `t2`, …, through one connection, and
/// schemas `s1`, `s2`, … in the database `schemas` through another.
private final class Databases: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var connection: PostgresConnection?
    private var schemas: PostgresConnection?

    func create(connecting: () throws -> PostgresConnection) throws -> String {
        try lock.withLock {
            if connection == nil { connection = try connecting() }
            count += 1
            try connection!.execute("CREATE DATABASE t\(count)")
            return "t\(count)"
        }
    }

    func createSchema(url: (String) -> String) throws -> String {
        try lock.withLock {
            if schemas == nil {
                if connection == nil { connection = try PostgresConnection(url("postgres")) }
                try connection!.execute("CREATE DATABASE schemas")
                schemas = try PostgresConnection(url("schemas"))
            }
            count += 1
            try schemas!.execute("CREATE SCHEMA s\(count)")
            return "s\(count)"
        }
    }
}
