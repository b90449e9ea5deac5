import Foundation

// i–k. Rows out of the shell, against the sqlite3 CLI on the same file:
// all 200,000 people as CSV and as JSON into /dev/null, and the time to
// the first CSV line through a pipe that closes after it (`| head -1`:
// timed until the program exits). Each run is its own process. The peak
// RSS comes from one more run under /usr/bin/time: a child's own rusage
// is no good here, as posix_spawn's vfork makes the kernel count the
// spawning process's peak (this bench's) as the child's.

/// The shell workloads of issue 18: `mrq` (the release build `make bench`
/// makes) and `sqlite3` run as programs, as a user runs them.
enum ShellOutputWorkloads {
    enum Tool {
        case mrq
        case sqlite3
    }

    /// The same rows both ways: every attribute, in row order.
    static let select = "SELECT id, firstName, lastName, email, age, score, balance, city, createdAt, active FROM Person ORDER BY _pk"

    /// The program and its arguments printing `store` in `format`.
    static func command(_ tool: Tool, format: String, store: URL, fixtures: Fixtures) -> (String, [String])? {
        switch tool {
        case .mrq:
            guard let binary = MRQWorkloads.mrqBinary() else { return nil }
            return (binary.path, ["--model", fixtures.model.path, "--store", store.path, "--format", format, "-c", "Person"])
        case .sqlite3:
            guard let cli = sqlite3CLI() else { return nil }
            return (cli, ["-\(format)"] + (format == "csv" ? ["-header"] : []) + [store.path, select])
        }
    }

    static func sqlite3CLI() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func skipped(_ tool: Tool) -> Measurement {
        var m = Measurement(times: [], rows: 0, checksum: 0, peakKB: -1)
        m.skipped = tool == .mrq ? "skipped: no built mrq (make release)" : "skipped: no sqlite3 CLI on the PATH"
        return m
    }

    /// i, j. Every row into /dev/null, `runs` times; the note gives the
    /// peak RSS of one mrq run over the 1,000,000-row store too, to show
    /// memory that does not grow with the rows.
    static func rowsOut(_ tool: Tool, format: String, _ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        guard let (program, arguments) = command(tool, format: format, store: fixtures.personStore, fixtures: fixtures) else {
            return skipped(tool)
        }
        // Once through a pipe first: the rows must all be there.
        let probe = try run(program, arguments, firstLineOnly: false)
        let rows = Int64(probe.lines) - (format == "csv" ? 1 : 0)
        var m = Measurement(times: [], rows: rows, checksum: 0, peakKB: 0)
        for _ in 0..<runs {
            m.times.append(try run(program, arguments, toDevNull: true).seconds)
        }
        var notes: [String] = []
        if format == "csv", rows != Int64(scale.people) {
            notes.append("EXPECTED \(scale.people) ROWS")
        }
        m.peakKB = try peakKB(program, arguments, toDevNull: true)
        if tool == .mrq, m.peakKB > 0,
           let (program, arguments) = command(tool, format: format, store: fixtures.millionStore, fixtures: fixtures) {
            let big = try peakKB(program, arguments, toDevNull: true)
            notes.append(String(format: "peak %.0f MB over %d rows", Double(big) / 1024, scale.memoryRows))
        }
        if m.peakKB <= 0 { notes.append("no /usr/bin/time: peak RSS not measured") }
        m.note = notes.joined(separator: "; ")
        return m
    }

    /// k. The first CSV line through a pipe closed right after it: the
    /// time until the program has exited.
    static func firstRow(_ tool: Tool, _ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        guard let (program, arguments) = command(tool, format: "csv", store: fixtures.personStore, fixtures: fixtures) else {
            return skipped(tool)
        }
        var m = Measurement(times: [], rows: 1, checksum: 0, peakKB: 0)
        for _ in 0..<runs {
            m.times.append(try run(program, arguments, firstLineOnly: true).seconds)
        }
        m.peakKB = try peakKB(program, arguments, firstLineOnly: true)
        if tool == .mrq {
            // What opening the store costs before any row: most of it.
            let start = ["--model", fixtures.model.path, "--store", fixtures.personStore.path, "-c", "1"]
            let startup = median(try (0..<runs).map { _ in try run(program, start, toDevNull: true).seconds })
            m.note = "of which starting mrq on the store (-c 1): " + formatTime(startup)
        }
        return m
    }

    /// The peak RSS of one run, in kilobytes, as GNU time reports it
    /// (its own few hundred kilobytes included); -1 without it.
    static func peakKB(_ program: String, _ arguments: [String], toDevNull: Bool = false,
                       firstLineOnly: Bool = false) throws -> Int {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { return -1 }
        let report = NSTemporaryDirectory() + "mrq-bench-rss-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: report) }
        _ = try run(time, ["-f", "%M", "-o", report, program] + arguments, toDevNull: toDevNull,
                    firstLineOnly: firstLineOnly, anyStatus: true)
        // After "Command terminated by signal 13" when the pipe closed.
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").last.flatMap { Int($0) } ?? -1
    }

    /// Seconds on the monotonic clock: the work is the child's, so the
    /// bench's own CPU time (`MRQ_BENCH_CPU_TIME`) would not see it.
    static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    struct Run {
        var seconds: Double
        /// Lines read from its standard output (none into /dev/null).
        var lines: Int
    }

    /// Runs `program` with standard output into /dev/null, or into a pipe
    /// read whole or closed after its first line; standard error is
    /// dropped. Wall time from spawn to exit. A status other than 0 (or,
    /// when the pipe closed early, SIGPIPE) is an error unless `anyStatus`.
    static func run(_ program: String, _ arguments: [String], toDevNull: Bool = false,
                    firstLineOnly: Bool = false, anyStatus: Bool = false) throws -> Run {
        var fds: [Int32] = [-1, -1]
        if !toDevNull, pipe(&fds) != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if toDevNull {
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
            posix_spawn_file_actions_addclose(&actions, fds[0])
            posix_spawn_file_actions_addclose(&actions, fds[1])
        }
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let start = wallClock()
        let rc = posix_spawn(&pid, program, &actions, nil, argv, environ)
        if !toDevNull { close(fds[1]) }
        guard rc == 0 else {
            if !toDevNull { close(fds[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO)
        }
        var lines = 0
        if !toDevNull {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            reading: while true {
                let n = read(fds[0], &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                for byte in buffer[0..<n] where byte == UInt8(ascii: "\n") {
                    lines += 1
                    if firstLineOnly { break reading }
                }
            }
            close(fds[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let seconds = wallClock() - start
        // A reader that left may end the program with SIGPIPE (sqlite3):
        // that is how `| head -1` ends it too.
        let signalled = status & 0x7f
        let exitStatus = (status >> 8) & 0xff
        guard anyStatus || (signalled == 0 && exitStatus == 0) || (firstLineOnly && signalled == SIGPIPE) else {
            throw BenchError("\(program) \(arguments.joined(separator: " ")) failed (status \(status))")
        }
        return Run(seconds: seconds, lines: lines)
    }
}
