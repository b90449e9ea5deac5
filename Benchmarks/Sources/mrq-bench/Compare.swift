import Foundation

// `make bench-compare BASE=<commit>`: the core SQLite workloads of two
// builds of mrq-bench, the base's (mrq at BASE, this harness) and the
// working tree's, run in turn, round after round, each in a process of its
// own that times the workload's baseline and mrq interleaved. A ratio to
// the baseline of the same process cancels most of what the machine's
// other work does to both; running the builds in turn spreads what is left
// over both.
//
//   mrq-bench --compare BASE-MRQ-BENCH [--workloads a,c,e,w] [--rounds N] [--scale compare|smoke|full|PEOPLE] [--runs N]
//   mrq-bench --prepare SCALE WORKDIR                 (internal: the fixtures)
//   mrq-bench --pair WORKLOAD SCALE WORKDIR RUNS      (internal: one process's runs)

/// One workload `make bench-compare` runs.
struct CompareWorkload {
    let letter: String
    /// The key prefix in `implementations`: insert, fetch, ...
    let name: String
    /// Whether it has a baseline ("/c") to divide by; parse has none and
    /// is compared by its time per predicate.
    let hasBaseline: Bool
    /// Whether mrq must read or write the same rows and checksum as it.
    let sameData: Bool

    var label: String { "\(letter). \(name)" }
}

let compareWorkloads = [
    CompareWorkload(letter: "a", name: "insert", hasBaseline: true, sameData: true),
    CompareWorkload(letter: "b", name: "fetch", hasBaseline: true, sameData: true),
    CompareWorkload(letter: "c", name: "filter", hasBaseline: true, sameData: true),
    CompareWorkload(letter: "d", name: "import", hasBaseline: true, sameData: false),
    CompareWorkload(letter: "e", name: "parse", hasBaseline: false, sameData: false),
    CompareWorkload(letter: "w", name: "corpus", hasBaseline: true, sameData: true),
]

/// What one `--pair` process measured: seconds per run of mrq and of the
/// baseline, run in turn.
struct PairResult: Codable {
    var mrq: [Double] = []
    var baseline: [Double] = []
    /// GRDB's runs, for the workloads it has (a, b, c): run in turn with
    /// the other two, so "mrq against GRDB" is measured under the same load.
    var grdb: [Double] = []

    /// mrq's median over the baseline's, or mrq's median time when the
    /// workload has no baseline.
    var ratio: Double { baseline.isEmpty ? median(mrq) : median(mrq) / median(baseline) }

    /// mrq's median over GRDB's; nil for a workload GRDB does not run.
    var grdbRatio: Double? { grdb.isEmpty ? nil : median(mrq) / median(grdb) }
}

/// `--pair`: `runs` runs of the baseline and of mrq, in turn.
func runPair(_ workload: CompareWorkload, scale: Scale, fixtures: Fixtures, runs: Int,
             implementations: [String: Implementation]) throws -> PairResult {
    guard let mrq = implementations[workload.name + "/mrq"] else { throw BenchError("no mrq implementation of \(workload.name)") }
    let baseline = workload.hasBaseline ? implementations[workload.name + "/c"] : nil
    var result = PairResult()
    for _ in 0..<runs {
        var reference: Measurement?
        if let baseline {
            let c = try baseline(scale, fixtures, 1)
            result.baseline += c.times
            reference = c
        }
        let m = try mrq(scale, fixtures, 1)
        result.mrq += m.times
        if workload.sameData, let reference, m.rows != reference.rows || m.checksum != reference.checksum {
            throw BenchError("\(workload.label): mrq read \(m.rows) rows (checksum \(m.checksum)), the baseline \(reference.rows) (\(reference.checksum))")
        }
        if let grdb = implementations[workload.name + "/grdb"] {
            result.grdb += try grdb(scale, fixtures, 1).times
        }
    }
    return result
}

/// Runs `executable` with `arguments` (stderr passes through) and returns
/// the payload of its last stdout line starting with `prefix`.
func runTool(_ executable: URL, _ arguments: [String], prefix: String,
             environment extra: [String: String] = [:]) throws -> String {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["MRQ_BENCH_CHILD"] = "1"
    environment.merge(extra) { $1 }
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self)
    guard process.terminationStatus == 0,
          let line = text.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }) else {
        throw BenchError("\(executable.path) \(arguments.joined(separator: " ")) failed (status \(process.terminationStatus)): \(text.suffix(400))")
    }
    return String(line.dropFirst(prefix.count))
}

/// The workloads a `--workloads` list names, by letter or name.
func parseWorkloads(_ list: String) throws -> [CompareWorkload] {
    try list.split(separator: ",").map { item in
        let key = item.trimmingCharacters(in: .whitespaces).lowercased()
        guard let workload = compareWorkloads.first(where: { $0.letter == key || $0.name == key }) else {
            throw BenchError("unknown workload '\(key)' in --workloads: expected a letter or name of "
                             + compareWorkloads.map(\.label).joined(separator: ", "))
        }
        return workload
    }
}

/// `--compare`: both builds, round after round, then the table.
func runCompare(base: URL, workloads: [CompareWorkload], rounds: Int, scale: Scale, runs: Int) throws {
    let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let sides = [("A", base), ("B", own)]
    let work = benchmarksDirectory().appendingPathComponent(".build/bench-work")
    let directories = sides.map { work.appendingPathComponent("compare-\($0.0)-\(scale.name)").path }
    let start = now(wall: true)
    for (side, directory) in zip(sides, directories) {
        FileHandle.standardError.write("preparing \(side.0)'s fixtures (\(scale.name))...\n".data(using: .utf8)!)
        _ = try runTool(side.1, ["--prepare", scale.name, directory], prefix: "PREPARED")
    }
    // ratios[workload][side]: one per round.
    var ratios = Array(repeating: [[Double]](repeating: [], count: 2), count: workloads.count)
    // grdbRatios[workload][side]: mrq over GRDB, one per round, when GRDB runs it.
    var grdbRatios = ratios
    for round in 0..<rounds {
        for (w, workload) in workloads.enumerated() {
            // A B, then B A: a drift of the machine's load over a round
            // falls on both sides alike.
            let order = round % 2 == 0 ? [0, 1] : [1, 0]
            for side in order {
                FileHandle.standardError.write("round \(round + 1)/\(rounds): \(workload.label), \(sides[side].0)\n".data(using: .utf8)!)
                let payload = try runTool(sides[side].1, ["--pair", workload.name, scale.name, directories[side], String(runs)], prefix: "PAIR ")
                let result = try JSONDecoder().decode(PairResult.self, from: Data(payload.utf8))
                ratios[w][side].append(result.ratio)
                if let grdb = result.grdbRatio { grdbRatios[w][side].append(grdb) }
            }
        }
    }
    print("bench-compare, \(scale.name) scale (\(scale.people) people, import of \(scale.importPeople), parse ×\(scale.parseIterations)): "
          + "A = the base, B = the working tree, both release; \(rounds) rounds (A B, B A, ...), each a process per build "
          + "timing the raw SQLite C baseline and mrq \(runs)× in turn; ×C = median mrq / median C of one process "
          + "(e: µs per predicate, no baseline)\n")
    // The chance that one build's rounds all land above (or below) the
    // other's when the two are the same: 2 / C(2n, n).
    let chance = 200 / binomial(2 * rounds, rounds)
    var lines = [["workload", "A ×C median (min–max)", "B ×C median (min–max)", "B/A", "spread", "verdict",
                  "B ×GRDB median (min–max)"]]
    for (w, workload) in workloads.enumerated() {
        let a = ratios[w][0], b = ratios[w][1]
        // Each round's B over the same round's A: their spread is the
        // noise a change has to stand out of.
        let perRound = zip(b, a).map { $0 / $1 }
        let change = median(b) / median(a)
        let spread = ((perRound.max() ?? .nan) - (perRound.min() ?? .nan)) / 2 / change
        let verdict: String
        if chance > 5 {
            verdict = "not flagged: too few rounds"
        } else if (b.min() ?? .nan) > (a.max() ?? .nan) {
            verdict = String(format: "SLOWER by %.1f%%: every B above every A", (change - 1) * 100)
        } else if (b.max() ?? .nan) < (a.min() ?? .nan) {
            verdict = String(format: "faster by %.1f%%: every B below every A", (1 - change) * 100)
        } else {
            verdict = "within the spread"
        }
        func describe(_ values: [Double]) -> String {
            let f: (Double) -> String = workload.hasBaseline ? { String(format: "%.2f×", $0) } : { String(format: "%.2f µs", $0 * 1e6) }
            return "\(f(median(values))) (\(f(values.min() ?? .nan))–\(f(values.max() ?? .nan)))"
        }
        let grdb = grdbRatios[w][1]
        let againstGRDB = grdb.isEmpty ? "—"
            : String(format: "%.2f× (%.2f–%.2f)", median(grdb), grdb.min() ?? .nan, grdb.max() ?? .nan)
        lines.append([workload.label, describe(a), describe(b), String(format: "%.3f", change),
                      String(format: "±%.1f%%", spread * 100), verdict, againstGRDB])
    }
    let widths = lines[0].indices.map { i in lines.map { $0[i].count }.max() ?? 0 }
    for line in lines {
        print(line.indices.map { pad(line[$0], widths[$0]) }.joined(separator: "  "))
    }
    print(String(format: "\nB/A = median B ×C / median A ×C; ×GRDB = B's median mrq time over GRDB's in the same process "
                 + "(below 1: mrq ahead; GRDB runs a, b and c); spread = half the range of the rounds' B/A; "
                 + "a change is flagged when every round of one build is above every round of the other "
                 + "(by chance %.1f%% of the time with %ld rounds; none flagged above 5%%, below 4 rounds); wall time %.0f s",
                 chance, rounds, now(wall: true) - start))
}

func binomial(_ n: Int, _ k: Int) -> Double {
    (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
}

/// The entry points of this file's modes, from main.swift; nil when the
/// arguments name none of them.
func compareModeMain(_ arguments: [String], implementations: [String: Implementation]) -> Int32? {
    guard arguments.count > 1 else { return nil }
    func value(_ flag: String) -> String? {
        arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }
    do {
        switch arguments[1] {
        case "--prepare":
            guard arguments.count == 4 else { throw BenchError("usage: mrq-bench --prepare SCALE WORKDIR") }
            try Fixtures(directory: URL(fileURLWithPath: arguments[3])).make(Scale.named(arguments[2]))
            print("PREPARED")
        case "--pair":
            guard arguments.count == 6, let runs = Int(arguments[5]), runs > 0,
                  let workload = try parseWorkloads(arguments[2]).first else {
                throw BenchError("usage: mrq-bench --pair WORKLOAD SCALE WORKDIR RUNS")
            }
            let fixtures = Fixtures(directory: URL(fileURLWithPath: arguments[4]))
            let result = try runPair(workload, scale: Scale.named(arguments[3]), fixtures: fixtures, runs: runs,
                                     implementations: implementations)
            print("PAIR " + String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        case "--compare":
            guard arguments.count > 2 else { throw BenchError("usage: mrq-bench --compare BASE-MRQ-BENCH [--workloads a,c,e] [--rounds N] [--scale NAME] [--runs N]") }
            let scaleName = value("--scale") ?? "compare"
            guard ["smoke", "compare", "full"].contains(scaleName) || (Int(scaleName) ?? 0) >= 100 else {
                throw BenchError("unknown scale '\(scaleName)': expected smoke, compare, full or a number of people (at least 100)")
            }
            guard let rounds = Int(value("--rounds") ?? "5"), rounds >= 2,
                  let runs = Int(value("--runs") ?? "3"), runs >= 1 else {
                throw BenchError("--rounds needs a number of at least 2, --runs one of at least 1")
            }
            try runCompare(base: URL(fileURLWithPath: arguments[2]),
                           workloads: try parseWorkloads(value("--workloads") ?? "a,b,c,d,e,w"),
                           rounds: rounds, scale: Scale.named(scaleName), runs: runs)
        case "--instructions":
            guard arguments.count >= 3 else { throw BenchError("usage: mrq-bench --instructions BASELINE-FILE [--update] [--tolerance PERCENT]") }
            guard let tolerance = Double(value("--tolerance") ?? "3"), tolerance >= 0 else {
                throw BenchError("--tolerance needs a percentage")
            }
            return try runInstructionCheck(baseline: URL(fileURLWithPath: arguments[2]),
                                           update: arguments.contains("--update"), tolerance: tolerance) ? 0 : 1
        case "--measure":
            guard arguments.count == 4 else { throw BenchError("usage: mrq-bench --measure PATH WORKDIR") }
            try measureOnce(arguments[2], fixtures: Fixtures(directory: URL(fileURLWithPath: arguments[3])))
        default:
            return nil
        }
    } catch {
        print("error: \(error)")
        return 70
    }
    return 0
}
