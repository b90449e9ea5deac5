import Foundation
@testable import ObjectStore
import Predicates
import Testing


/// Kills a worker that saves in a loop at random moments, and checks after
/// each kill that the store is intact and every save is all or nothing.
@Suite struct CrashTests {
    /// Items per save.
    static let rows: Int64 = 20
    /// Save n deletes the items of save n - keep (as the worker does).
    static let keep: Int64 = 4

    @Test func everySaveIsAllOrNothingAcrossKills() throws {
        let worker = try crashWorkerURL()
        let kills = isSoak ? 1_000 : 100
        let seed = ProcessInfo.processInfo.environment["MRQ_SEED"].flatMap(UInt64.init) ?? 0x6D72_7163_7261_7368
        var random = SplitMix64(seed: seed)
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        var counter: Int64 = 0
        var inFlightCommits = 0
        for kill in 1...kills {
            let context = "kill \(kill) of \(kills), MRQ_SEED=\(seed)"
            let process = try WorkerProcess(worker, ["save-loop", path, "\(Self.rows)"])
            // -1: kill while the worker opens (and recovers) the store.
            let savesBeforeKill = Int.random(in: -1...3, using: &random)
            var reported: [Int64] = []
            if savesBeforeKill >= 0 {
                guard process.readLine() == "ready" else {
                    process.waitForExit()
                    Issue.record("the worker did not start (\(context)): \(process.standardError)")
                    return
                }
                for _ in 0..<savesBeforeKill {
                    guard let line = process.readLine(), let n = Self.savedNumber(line) else { break }
                    reported.append(n)
                }
            }
            // Not synchronisation: this picks the moment of the kill, most
            // often in the middle of the next save.
            usleep(UInt32.random(in: 0..<4_000, using: &random))
            process.killAndWait()
            guard process.wasKilled else {
                Issue.record("the worker exited by itself (\(context)): \(process.standardError)")
                return
            }
            reported += process.remainingLines().compactMap(Self.savedNumber)
            if let first = reported.first {
                try #require(first == counter + 1, "the worker resumed at save \(first) after save \(counter) (\(context))")
            }
            let last = reported.last ?? counter
            let after = try Self.checkStore(at: path, context: context)
            try #require(after >= last, "save \(last) was reported done but the store ends at save \(after) (\(context))")
            try #require(after <= last + 1, "the store is at save \(after), past the one save in flight after \(last) (\(context))")
            if after == last + 1 { inFlightCommits += 1 }
            counter = after
        }
        print("crash test: \(kills) kills, \(counter) saves, \(inFlightCommits) kills right after an unreported commit")
        #expect(counter > Int64(kills / 2), "the worker made too little progress to test anything: \(counter) saves")
    }

    static func savedNumber(_ line: String) -> Int64? {
        line.hasPrefix("saved ") ? Int64(line.dropFirst(6)) : nil
    }

    /// Reopens the store and checks it; returns the last complete save.
    static func checkStore(at path: String, context: String) throws -> Int64 {
        let store = try SQLiteStore(path: path, model: try crashModel())
        let db = store.database
        let integrity = try db.rows("PRAGMA integrity_check")
        try #require(integrity == [[.string("ok")]], "integrity_check: \(integrity) (\(context))")
        let item = store.mapping.table(for: store.model.entity(named: "Item")!).name
        let counterTable = store.mapping.table(for: store.model.entity(named: "Counter")!).name
        let counters = try db.rows("SELECT value FROM \(counterTable)")
        try #require(counters.count <= 1, "\(counters.count) counter rows (\(context))")
        let counter: Int64
        switch counters.first?.first {
        case .int(let n)?: counter = n
        case nil: counter = 0
        case let other?:
            Issue.record("counter value \(String(describing: other)) (\(context))")
            return 0
        }
        // tag → (rows, rows with the wrong `touched`, distinct slots)
        let groups = try db.rows("""
            SELECT tag, count(*), sum(touched != CASE WHEN tag = ? THEN 0 ELSE tag + 1 END), count(DISTINCT slot)
            FROM \(item) GROUP BY tag ORDER BY tag
            """, [.int(counter)])
        let expectedTags = counter < 1 ? [] : Array(Swift.max(1, counter - keep + 1)...counter)
        let tags = groups.compactMap { row -> Int64? in if case .int(let t) = row[0] { return t } else { return nil } }
        try #require(tags == expectedTags, "after save \(counter) the store holds the items of saves \(tags), expected \(expectedTags) (\(context))")
        for row in groups {
            let expected: [Value] = [row[0], .int(rows), .int(0), .int(rows)]
            try #require(row == expected, "save \(row[0]) is partial: rows, wrongly touched, slots = \(row[1...]) (\(context))")
        }
        return counter
    }
}

/// The crash worker's model (Sources/mrq-crash-worker/main.swift): the two
/// must stay identical, or reopening the worker's store migrates it.
func crashModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        Entity("Item") {
            Attribute("tag", .integer64, default: .int(0))
            Attribute("slot", .integer64, default: .int(0))
            Attribute("touched", .integer64, default: .int(0))
        }
        Entity("Counter") {
            Attribute("value", .integer64, default: .int(0))
        }
    }
}

/// Whether the long variants run: `MRQ_SOAK=1 swift test --filter Crash`.
let isSoak = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1"

/// The built `mrq-crash-worker`: `$MRQ_CRASH_WORKER`, else next to the
/// running test binary (any `--scratch-path`), else
/// `<package>/.build/debug/`.
func crashWorkerURL(filePath: String = #filePath) throws -> URL {
    var candidates: [URL] = []
    if let path = ProcessInfo.processInfo.environment["MRQ_CRASH_WORKER"] {
        candidates.append(URL(fileURLWithPath: path))
    }
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("mrq-crash-worker"))
    }
    let packageRoot = URL(fileURLWithPath: filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug/mrq-crash-worker"))
    if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
        return found
    }
    Issue.record("""
        the crash worker is not built: looked for \(candidates.map(\.path).joined(separator: ", ")); \
        run `swift build --build-tests` (it builds every target) or set MRQ_CRASH_WORKER
        """)
    throw CancellationError()
}

/// A running worker process with its standard output read line by line.
final class WorkerProcess {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer: [UInt8] = []
    private var atEnd = false

    init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Only the child may hold the write ends, so reads see end of file
        // once it is gone.
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
    }

    var pid: Int32 { process.processIdentifier }

    /// The next line, or nil at end of file (the worker exited).
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if atEnd { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(output.fileHandleForReading.fileDescriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { atEnd = true } else { buffer += chunk[..<n] }
        }
    }

    /// Every line left, up to end of file.
    func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    func killAndWait() {
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    func waitForExit() { process.waitUntilExit() }

    var wasKilled: Bool {
        process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    var standardError: String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}

/// A seeded generator, so that a failing run can be replayed with
/// `MRQ_SEED=<seed>`.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
