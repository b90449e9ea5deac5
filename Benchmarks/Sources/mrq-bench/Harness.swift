import CBaseline
import Foundation
import ObjectStore

/// Sizes of one suite run: the real one, or a smoke run that exercises
/// every workload in about a second.
struct Scale: Sendable {
    var name: String
    var people: Int
    var importPeople: Int
    var naivePeople: Int
    var memoryRows: Int
    var parseIterations: Int
    /// Multiplies every workload's number of runs (at least 1 remains).
    var smoke: Bool

    static let full = Scale(name: "full", people: 200_000, importPeople: 100_000, naivePeople: 10_000,
                            memoryRows: 1_000_000, parseIterations: 2_000, smoke: false)
    static let smokeRun = Scale(name: "smoke", people: 20_000, importPeople: 10_000, naivePeople: 500,
                                memoryRows: 100_000, parseIterations: 200, smoke: true)

    /// `make bench-compare`'s default: a quarter of the full data, so
    /// several rounds of both builds fit in a few minutes.
    static let compare = Scale(name: "compare", people: 50_000, importPeople: 20_000, naivePeople: 1_000,
                               memoryRows: 100_000, parseIterations: 500, smoke: false)
    /// `make bench-instructions`: the 10k-row paths run under callgrind.
    static let instructions = Scale(name: "instructions", people: 10_000, importPeople: 2_000, naivePeople: 100,
                                    memoryRows: 1_000, parseIterations: 10, smoke: true)

    /// The scale a name gives: smoke, compare, instructions, full, or a
    /// number of people (the import half as many).
    static func named(_ name: String) -> Scale {
        switch name {
        case "smoke": return .smokeRun
        case "compare": return .compare
        case "instructions": return .instructions
        default:
            guard let people = Int(name), people >= 100 else { return .full }
            return Scale(name: name, people: people, importPeople: people / 2, naivePeople: min(people / 20, 10_000),
                         memoryRows: 100_000, parseIterations: max(10, people / 100), smoke: false)
        }
    }

    func runs(_ n: Int) -> Int { smoke ? 1 : n }
}

/// The files the workloads start from, made once per suite run.
struct Fixtures {
    let directory: URL
    var personTemplate: URL { directory.appendingPathComponent("person-empty.sqlite") }
    var personStore: URL { directory.appendingPathComponent("person-full.sqlite") }
    var millionStore: URL { directory.appendingPathComponent("person-memory.sqlite") }
    /// `importPeople` people, for the child-context workloads.
    var childStore: URL { directory.appendingPathComponent("person-child.sqlite") }
    var importTemplate: URL { directory.appendingPathComponent("import-empty.sqlite") }
    var importJSON: URL { directory.appendingPathComponent("people.json") }
    var model: URL { directory.appendingPathComponent("People.xcdatamodeld") }

    func scratch(_ name: String) -> URL { directory.appendingPathComponent("run-\(name).sqlite") }

    /// Creates every fixture: empty stores made by mrq (so the layout is
    /// exactly mrq's), filled by the C generator.
    func make(_ scale: Scale) throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let people = try Models.people()
        try makeEmptyStore(personTemplate, model: people)
        try makeEmptyStore(importTemplate, model: try Models.importing())
        try people.writeXcodeModel(to: model)
        for (url, count) in [(personStore, scale.people), (millionStore, scale.memoryRows), (childStore, scale.importPeople)] {
            try Fixtures.copy(personTemplate, to: url)
            try cCheck(bench_c_fill(url.path, dataSeed, Int64(count)))
        }
        try Dataset.importJSON(Dataset.people(scale.importPeople)).write(to: importJSON, atomically: false, encoding: .utf8)
        try CorpusWorkloads.prepare(self, scale)
    }

    private func makeEmptyStore(_ url: URL, model: ManagedObjectModel) throws {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: url)
        coordinator.removeStores()
    }

    /// A fresh copy of a closed store (its WAL was checkpointed on close).
    static func copy(_ source: URL, to destination: URL) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: destination.path + suffix)
        }
        try FileManager.default.copyItem(at: source, to: destination)
    }

    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func cCheck(_ rc: Int32) throws {
    if rc != 0 { throw BenchError("C baseline failed: " + String(cString: bench_c_last_error())) }
}

// MARK: - Measuring

/// The clock the workloads are timed with: wall time, or with
/// `MRQ_BENCH_CPU_TIME=1` the process's CPU time, steadier when the machine
/// is busy with other work (it leaves out waiting for the disk).
private let clock = getenv("MRQ_BENCH_CPU_TIME") != nil ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC

/// Seconds on `clock`, or on the wall clock with `wall`.
@inline(never)
func now(wall: Bool = false) -> Double {
    var ts = timespec()
    clock_gettime(wall ? CLOCK_MONOTONIC : clock, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Times `body` once. `wall` times it on the wall clock whatever
/// `MRQ_BENCH_CPU_TIME` says: the CPU times of work on several threads
/// add up, and would hide what running them at once saves.
func time(wall: Bool = false, _ body: () throws -> Void) rethrows -> Double {
    let start = now(wall: wall)
    try body()
    return now(wall: wall) - start
}

/// This process's peak resident set (VmHWM), in kilobytes.
func peakRSSKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
    return 0
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// What one child process reports for one implementation of one workload.
struct Measurement: Codable {
    /// Seconds per run (or per unit, for parse).
    var times: [Double]
    var rows: Int64
    var checksum: Int64
    var peakKB: Int
    /// Multiply the median by this for the reported time (a subset run).
    var extrapolation: Double = 1
    var note: String = ""
    var skipped: String?
    /// A second, less conservative estimate of the full-size time, shown
    /// as a note with `fitNote` saying how it was made.
    var fitted: Double?
    var fitNote: String?
    /// The baseline's time as this process measured it, its runs paired
    /// with these: the ratio is taken to it rather than to the baseline
    /// row's.
    var baseline: Double?

    var time: Double { median(times) * extrapolation }
}

/// Child side: prints the measurement as the last line of stdout.
func report(_ measurement: Measurement) {
    var m = measurement
    // Workloads that run a program report its peak (-1: not measured);
    // the others, ours.
    if m.peakKB == 0 { m.peakKB = peakRSSKilobytes() }
    let data = try! JSONEncoder().encode(m)
    print("RESULT " + String(decoding: data, as: UTF8.self))
    fflush(nil)
}

/// Parent side: runs one implementation in its own process, so its peak
/// RSS is its own.
func runChild(_ arguments: [String]) throws -> Measurement {
    let line = try runTool(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath(), arguments,
                           prefix: "RESULT ")
    return try JSONDecoder().decode(Measurement.self, from: Data(line.utf8))
}
