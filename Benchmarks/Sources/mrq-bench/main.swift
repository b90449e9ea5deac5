import Foundation
import ObjectStore
import ObjectStorePostgres

// mrq's benchmark suite: each implementation of each workload runs in its
// own process (so its peak RSS is its own), several times; the table shows
// medians as ratios to the raw SQLite C baseline measured in the same run.
//
//   mrq-bench [--smoke] [--only insert,fetch,csv,json,first,...,pg-insert,pg-fetch,pg-filter,pg-import,pg-writers,bigvalue,corpus]
//   mrq-bench --child WORKLOAD IMPL RUNS SCALE WORKDIR     (internal)
//   mrq-bench --compare BASE-MRQ-BENCH [...]              (make bench-compare, Compare.swift)
//   mrq-bench --instructions BASELINE-FILE [--update]     (make bench-instructions, Instructions.swift)

typealias Implementation = (Scale, Fixtures, Int) throws -> Measurement

let implementations: [String: Implementation] = [
    "insert/c": { try CWorkloads.insert($0, $1, runs: $2) },
    "insert/mrq": { try MRQWorkloads.insert($0, $1, runs: $2) },
    "insert/grdb": { try GRDBWorkloads.insert($0, $1, runs: $2) },
    "fetch/c": { try CWorkloads.fetch($0, $1, runs: $2) },
    "fetch/mrq": { try MRQWorkloads.fetch($0, $1, runs: $2) },
    "fetch/grdb": { try GRDBWorkloads.fetch($0, $1, runs: $2) },
    "filter/c": { try CWorkloads.filter($0, $1, runs: $2) },
    "filter/mrq": { try MRQWorkloads.filter($0, $1, runs: $2) },
    "filter/grdb": { try GRDBWorkloads.filter($0, $1, runs: $2) },
    "import/c": { try CWorkloads.importInsert($0, $1, runs: $2) },
    "import/mrq": { try MRQWorkloads.importer($0, $1, runs: $2) },
    "import/naive": { try MRQWorkloads.naiveImport($0, $1, runs: $2) },
    "parse/mrq": { try MRQWorkloads.parse($0, $1, runs: $2) },
    "parse/lex": { try MRQWorkloads.parseOnly($0, $1, runs: $2) },
    "parse/count": { try MRQWorkloads.parseAndCount($0, $1, runs: $2) },
    "shell/mrq": { try MRQWorkloads.shell($0, $1, runs: $2) },
    "memory/c": { try CWorkloads.memory($0, $1, runs: $2) },
    "memory/mrq": { try MRQWorkloads.memory($0, $1, runs: $2) },
    "csv/c": { try ShellOutputWorkloads.rowsOut(.sqlite3, format: "csv", $0, $1, runs: $2) },
    "csv/mrq": { try ShellOutputWorkloads.rowsOut(.mrq, format: "csv", $0, $1, runs: $2) },
    "json/c": { try ShellOutputWorkloads.rowsOut(.sqlite3, format: "json", $0, $1, runs: $2) },
    "json/mrq": { try ShellOutputWorkloads.rowsOut(.mrq, format: "json", $0, $1, runs: $2) },
    "first/c": { try ShellOutputWorkloads.firstRow(.sqlite3, $0, $1, runs: $2) },
    "first/mrq": { try ShellOutputWorkloads.firstRow(.mrq, $0, $1, runs: $2) },
    "model/800": { _, _, runs in try MRQWorkloads.deepModel(levels: 800, runs: runs) },
    "model/3000": { _, _, runs in try MRQWorkloads.deepModel(levels: 3_000, runs: runs) },
    "dates/c": { try APIWorkloads.datedImport($0, $1, runs: $2, asText: false) },
    "dates/text": { try APIWorkloads.datedImport($0, $1, runs: $2, asText: true) },
    "shellimport/c": { try ShellImportWorkloads.importer($0, $1, runs: $2) },
    "shellimport/sqlite3": { try ShellImportWorkloads.sqlite3($0, $1, runs: $2) },
    "shellimport/mrq": { try ShellImportWorkloads.shell($0, $1, runs: $2) },
    "childcount/c": { try ChildContextWorkloads.count($0, $1, runs: $2, in: .c) },
    "childcount/root": { try ChildContextWorkloads.count($0, $1, runs: $2, in: .root) },
    "childcount/child": { try ChildContextWorkloads.count($0, $1, runs: $2, in: .child) },
    "childfirst/c": { try ChildContextWorkloads.first($0, $1, runs: $2, in: .c) },
    "childfirst/root": { try ChildContextWorkloads.first($0, $1, runs: $2, in: .root) },
    "childfirst/child": { try ChildContextWorkloads.first($0, $1, runs: $2, in: .child) },
    "reads/c": { try APIWorkloads.parallelReads($0, $1, runs: $2, tasks: 1) },
    "reads/2": { try APIWorkloads.parallelReads($0, $1, runs: $2, tasks: 2) },
    "reads/4": { try APIWorkloads.parallelReads($0, $1, runs: $2, tasks: 4) },
    "reads/8": { try APIWorkloads.parallelReads($0, $1, runs: $2, tasks: 8) },
    "reads/raw8": { try CWorkloads.cityReads($0, $1, runs: $2, threads: 8) },
    "pg-insert/c": { try PGWorkloads.insertC($0, $1, runs: $2) },
    "pg-insert/mrq": { try PGWorkloads.insertMRQ($0, $1, runs: $2) },
    "pg-fetch/c": { try PGWorkloads.fetchC($0, $1, runs: $2) },
    "pg-fetch/mrq": { try PGWorkloads.fetchMRQ($0, $1, runs: $2) },
    "pg-filter/c": { try PGWorkloads.filterC($0, $1, runs: $2) },
    "pg-filter/mrq": { try PGWorkloads.filterMRQ($0, $1, runs: $2) },
    "pg-import/c": { try PGWorkloads.importC($0, $1, runs: $2) },
    "pg-import/mrq": { try PGWorkloads.importMRQ($0, $1, runs: $2) },
    "pg-writers/c": { try PGWorkloads.writersC($0, $1, runs: $2) },
    "pg-writers/mrq": { try PGWorkloads.writersMRQ($0, $1, runs: $2) },
    "bigvalue/table": { try BigValueWorkloads.print(format: "table", $0, $1, runs: $2) },
    "bigvalue/line": { try BigValueWorkloads.print(format: "line", $0, $1, runs: $2) },
    "bigvalue/csv": { try BigValueWorkloads.print(format: "csv", $0, $1, runs: $2) },
    "bigvalue/json": { try BigValueWorkloads.print(format: "json", $0, $1, runs: $2) },
    "corpus/c": { try CorpusWorkloads.c($0, $1, runs: $2) },
    "corpus/mrq": { try CorpusWorkloads.mrq($0, $1, runs: $2) },
    "corpus/sqlite3": { try CorpusWorkloads.wholeCommand(.sqlite3, $1, runs: $2) },
    "corpus/shell": { try CorpusWorkloads.wholeCommand(.mrq, $1, runs: $2) },
]

enum Target {
    case none
    /// At most this many times the baseline.
    case ratio(Double)
    /// At most this many times another row's time in the same run.
    case ratioTo(String, Double)
    /// At most this many seconds.
    case seconds(Double)
    /// Peak RSS at most this many megabytes.
    case megabytes(Double)
}

struct Row {
    let workload: String
    let key: String
    let label: String
    let runs: Int
    let target: Target
    /// Whether rows and checksum must equal the baseline's.
    var compare = true
}

let rows: [Row] = [
    Row(workload: "a. insert", key: "insert/c", label: "raw C (baseline)", runs: 5, target: .none),
    Row(workload: "a. insert", key: "insert/mrq", label: "mrq", runs: 5, target: .ratio(1.5)),
    Row(workload: "a. insert", key: "insert/grdb", label: "GRDB 7 record", runs: 5, target: .none),
    Row(workload: "b. fetch", key: "fetch/c", label: "raw C (baseline)", runs: 7, target: .none),
    Row(workload: "b. fetch", key: "fetch/mrq", label: "mrq", runs: 7, target: .ratio(1.3)),
    Row(workload: "b. fetch", key: "fetch/grdb", label: "GRDB 7 record", runs: 7, target: .none),
    Row(workload: "c. filter", key: "filter/c", label: "raw C (baseline)", runs: 9, target: .none),
    Row(workload: "c. filter", key: "filter/mrq", label: "mrq", runs: 9, target: .ratio(1.1)),
    Row(workload: "c. filter", key: "filter/grdb", label: "GRDB 7 record", runs: 9, target: .none),
    Row(workload: "d. import", key: "import/c", label: "raw C insert (baseline)", runs: 5, target: .none, compare: false),
    Row(workload: "d. import", key: "import/mrq", label: "mrq Importer + save", runs: 5, target: .ratio(2), compare: false),
    Row(workload: "d. import", key: "import/naive", label: "naive fetch-per-row", runs: 1, target: .none, compare: false),
    Row(workload: "e. parse ×20", key: "parse/mrq", label: "lex+parse+translate, per predicate", runs: 7, target: .seconds(2e-6), compare: false),
    Row(workload: "e. parse ×20", key: "parse/lex", label: "of which lex+parse", runs: 7, target: .none, compare: false),
    Row(workload: "e. parse ×20", key: "parse/count", label: "+plan+SQL+count(empty)", runs: 5, target: .none, compare: false),
    Row(workload: "f. shell", key: "shell/mrq", label: "mrq -c 'count Person'", runs: 10, target: .seconds(0.030), compare: false),
    Row(workload: "g. memory", key: "memory/c", label: "raw C scan (baseline)", runs: 3, target: .none),
    Row(workload: "g. memory", key: "memory/mrq", label: "mrq fetchBatchSize 500", runs: 3, target: .megabytes(64)),
    Row(workload: "h. deep model", key: "model/800", label: "load + lay out 800 levels", runs: 5, target: .seconds(0.5), compare: false),
    Row(workload: "h. deep model", key: "model/3000", label: "load + lay out 3,000 levels", runs: 3, target: .seconds(3), compare: false),
    Row(workload: "i. rows out, csv", key: "csv/c", label: "sqlite3 -csv (baseline)", runs: 5, target: .none, compare: false),
    Row(workload: "i. rows out, csv", key: "csv/mrq", label: "mrq --format csv", runs: 5, target: .ratio(2), compare: false),
    Row(workload: "j. rows out, json", key: "json/c", label: "sqlite3 -json (baseline)", runs: 5, target: .none, compare: false),
    Row(workload: "j. rows out, json", key: "json/mrq", label: "mrq --format json", runs: 5, target: .ratio(2), compare: false),
    Row(workload: "k. first row", key: "first/c", label: "sqlite3 -csv | head -1 (baseline)", runs: 9, target: .none, compare: false),
    Row(workload: "k. first row", key: "first/mrq", label: "mrq --format csv | head -1", runs: 9, target: .seconds(0.1), compare: false),
    Row(workload: "l. date column", key: "dates/c", label: "import, dates as numbers (baseline)", runs: 5, target: .none),
    Row(workload: "l. date column", key: "dates/text", label: "import, dates as text with a dateFormat", runs: 5, target: .ratio(1.3)),
    Row(workload: "m. shell import", key: "shellimport/c", label: "Importer + save (baseline)", runs: 3, target: .none, compare: false),
    Row(workload: "m. shell import", key: "shellimport/sqlite3", label: "sqlite3 CLI json_each insert", runs: 3, target: .none, compare: false),
    Row(workload: "m. shell import", key: "shellimport/mrq", label: "mrq -c 'import Person from …' -c save", runs: 3, target: .ratio(1.2), compare: false),
    Row(workload: "n. child count", key: "childcount/c", label: "raw C COUNT(*) (baseline)", runs: 15, target: .none),
    Row(workload: "n. child count", key: "childcount/root", label: "count(where:), root context", runs: 15, target: .none),
    Row(workload: "n. child count", key: "childcount/child", label: "count(where:), default (child) context", runs: 15,
        target: .ratioTo("childcount/root", 1.5)),
    Row(workload: "o. child first", key: "childfirst/c", label: "raw C ORDER BY … LIMIT 1 (baseline)", runs: 15, target: .none),
    Row(workload: "o. child first", key: "childfirst/root", label: "findFirst, root context", runs: 15, target: .none),
    Row(workload: "o. child first", key: "childfirst/child", label: "findFirst, default (child) context", runs: 15,
        target: .ratioTo("childfirst/root", 1.5)),
    Row(workload: "p. parallel reads", key: "reads/c", label: "1 task × 10 fetches (baseline)", runs: 7, target: .none, compare: false),
    Row(workload: "p. parallel reads", key: "reads/2", label: "2 tasks × 10 fetches", runs: 7, target: .none, compare: false),
    Row(workload: "p. parallel reads", key: "reads/4", label: "4 tasks × 10 fetches", runs: 5, target: .none, compare: false),
    Row(workload: "p. parallel reads", key: "reads/8", label: "8 tasks × 10 fetches", runs: 5, target: .ratio(4), compare: false),
    Row(workload: "p. parallel reads", key: "reads/raw8", label: "raw C: 8 threads × 10 fetches", runs: 5, target: .none, compare: false),
    Row(workload: "q. pg insert", key: "pg-insert/c", label: "libpq C binary COPY (baseline)", runs: 5, target: .none),
    Row(workload: "q. pg insert", key: "pg-insert/mrq", label: "mrq insert + save", runs: 5, target: .ratio(2)),
    Row(workload: "r. pg fetch", key: "pg-fetch/c", label: "libpq C SELECT, binary (baseline)", runs: 7, target: .none),
    Row(workload: "r. pg fetch", key: "pg-fetch/mrq", label: "mrq fetch", runs: 7, target: .none),
    Row(workload: "s. pg filter", key: "pg-filter/c", label: "libpq C SELECT … WHERE (baseline)", runs: 9, target: .none),
    Row(workload: "s. pg filter", key: "pg-filter/mrq", label: "mrq fetch with a predicate", runs: 9, target: .none),
    Row(workload: "t. pg import", key: "pg-import/c", label: "libpq C binary COPY (baseline)", runs: 5, target: .none, compare: false),
    Row(workload: "t. pg import", key: "pg-import/mrq", label: "mrq Importer + save", runs: 5, target: .ratio(2), compare: false),
    Row(workload: "u. pg writers", key: "pg-writers/c", label: "libpq C, 8 threads (baseline)", runs: 3, target: .none, compare: false),
    Row(workload: "u. pg writers", key: "pg-writers/mrq", label: "mrq, 8 coordinators", runs: 3, target: .none, compare: false),
    Row(workload: "v. big value out", key: "bigvalue/table", label: "mrq, a 100 MiB text and blob, table", runs: 3,
        target: .megabytes(64 + BigValueWorkloads.limit * 100), compare: false),
    Row(workload: "v. big value out", key: "bigvalue/line", label: "line", runs: 3,
        target: .megabytes(64 + BigValueWorkloads.limit * 100), compare: false),
    Row(workload: "v. big value out", key: "bigvalue/csv", label: "csv", runs: 3,
        target: .megabytes(64 + BigValueWorkloads.limit * 100), compare: false),
    Row(workload: "v. big value out", key: "bigvalue/json", label: "json", runs: 3,
        target: .megabytes(64 + BigValueWorkloads.limit * 100), compare: false),
    Row(workload: "w. corpus's largest model", key: "corpus/c",
        label: "sqlite3 C API in process: open the file, one count per entity (baseline)", runs: 41, target: .none),
    Row(workload: "w. corpus's largest model", key: "corpus/mrq", label: "mrq: model from the cache, hashes checked, counts",
        runs: 41, target: .ratio(2)),
    Row(workload: "w. corpus's largest model", key: "corpus/sqlite3", label: "sqlite3 CLI, whole process, the same counts",
        runs: 9, target: .none),
    Row(workload: "w. corpus's largest model", key: "corpus/shell", label: "mrq --read-only -c 'count …' ×entities, whole process",
        runs: 9, target: .none),
]

/// Issue 19's target for 8 tasks, besides at most 4× one task's time in
/// all: each task's share of the time, per core, within 1.5× of one task
/// alone (time₈ / 8 × cores ≤ 1.5 × time₁).
let perTaskPerCoreLimit = 1.5

func benchmarksDirectory() -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

func formatTime(_ seconds: Double) -> String {
    if seconds.isNaN { return "-" }
    if seconds < 1e-3 { return String(format: "%.2f µs", seconds * 1e6) }
    if seconds < 1 { return String(format: "%.1f ms", seconds * 1e3) }
    return String(format: "%.2f s", seconds)
}

func pad(_ text: String, _ width: Int) -> String {
    let count = text.count
    return count >= width ? text : text + String(repeating: " ", count: width - count)
}

func runSuite(scale: Scale, only: Set<String>?) throws -> Bool {
    let fixtures = Fixtures(directory: benchmarksDirectory().appendingPathComponent(".build/bench-work/\(scale.name)"))
    let start = now()
    FileHandle.standardError.write("preparing fixtures (\(scale.name))...\n".data(using: .utf8)!)
    try fixtures.make(scale)
    FileHandle.standardError.write(String(format: "fixtures ready in %.1f s\n", now() - start).data(using: .utf8)!)

    // The PostgreSQL workloads' server, when one of them is to run.
    var cluster: PostgresCluster?
    var clusterFailure: String?
    if rows.contains(where: { $0.key.hasPrefix("pg-") && only?.contains(String($0.key.split(separator: "/")[0])) != false }) {
        let start = now(wall: true)
        FileHandle.standardError.write("starting PostgreSQL and filling its databases...\n".data(using: .utf8)!)
        do {
            cluster = try PGWorkloads.prepare(scale)
            if cluster == nil { clusterFailure = PostgresCluster.missing }
        } catch {
            clusterFailure = "FAILED: cannot start PostgreSQL: \(error)"
        }
        FileHandle.standardError.write(String(format: "PostgreSQL ready in %.1f s\n", now(wall: true) - start).data(using: .utf8)!)
    }
    defer { cluster?.stop() }

    var results: [String: Measurement] = [:]
    var allMet = true
    var lines: [[String]] = []
    for row in rows {
        let workload = String(row.key.split(separator: "/")[0])
        if let only, !only.contains(workload) { continue }
        let runs = scale.runs(row.runs)
        FileHandle.standardError.write("running \(row.key) ×\(runs)...\n".data(using: .utf8)!)
        let m: Measurement
        do {
            if workload.hasPrefix("pg-"), let clusterFailure {
                if clusterFailure.hasPrefix("FAILED") { throw BenchError(clusterFailure) }
                m = Measurement(times: [], rows: 0, checksum: 0, peakKB: 0, skipped: clusterFailure)
            } else {
                m = try runChild(["--child", row.key, String(runs), scale.name, fixtures.directory.path])
            }
        } catch {
            lines.append([row.workload, row.label, "\(runs)", "error", "", "", "", "FAILED: \(error)"])
            failedRows.append(row.key)
            allMet = false
            continue
        }
        results[row.key] = m
        let baseline = results[workload + "/c"]
        var ratio: Double?
        if let own = m.baseline {
            ratio = m.time / own
        } else if let baseline, !row.key.hasSuffix("/c") {
            ratio = m.time / baseline.time
        }
        var status = ""
        var notes: [String] = []
        if let skipped = m.skipped {
            status = skipped
        } else {
            switch row.target {
            case .none: status = ""
            case .ratio(let limit):
                let met = (ratio ?? .infinity) <= limit
                status = (met ? "met" : "MISSED") + String(format: " (≤ %.1f×)", limit)
                allMet = allMet && met
            case .ratioTo(let key, let limit):
                let other = results[key].map { m.time / $0.time } ?? .infinity
                let met = other <= limit
                status = (met ? "met" : "MISSED") + String(format: " (≤ %.1f× %@)", limit, String(key.split(separator: "/")[1]))
                notes.append(String(format: "%.2f× %@", other, String(key.split(separator: "/")[1])))
                allMet = allMet && met
            case .seconds(let limit):
                let met = m.time <= limit
                status = (met ? "met" : "MISSED") + " (≤ \(formatTime(limit)))"
                allMet = allMet && met
            case .megabytes(let limit):
                let met = Double(m.peakKB) / 1024 <= limit
                status = (met ? "met" : "MISSED") + String(format: " (≤ %.0f MB)", limit)
                allMet = allMet && met
            }
        }
        if row.key == "import/naive", let importer = results["import/mrq"] {
            let speedup = m.time / importer.time
            let met = speedup >= 100
            status = (met ? "met" : "MISSED") + String(format: " (Importer %.0f× faster, ≥ 100×)", speedup)
            allMet = allMet && met
        }
        if row.key.hasPrefix("reads/"), m.skipped == nil, let ratio, let alone = m.baseline, let tasks = Int(row.key.dropFirst(6)) {
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let perTask = ratio / Double(tasks)
            notes.append(String(format: "1 task alone %@ in the same process; per task %.2f×, per task per core %.2f× (%d cores), %.2f× faster than one at a time",
                                formatTime(alone), perTask, perTask * Double(cores), cores, 1 / perTask))
            if tasks == 8 {
                let met = perTask * Double(cores) <= perTaskPerCoreLimit
                status += (met ? "; met" : "; MISSED") + String(format: " (≤ %.1f× per task per core)", perTaskPerCoreLimit)
                allMet = allMet && met
            }
        }
        if row.compare, let baseline, !row.key.hasSuffix("/c"), m.skipped == nil,
           m.rows != baseline.rows || m.checksum != baseline.checksum {
            status += " DATA MISMATCH (\(m.rows) rows vs \(baseline.rows))"
            allMet = false
        }
        if !m.note.isEmpty { notes.append(m.note) }
        if let fitted = m.fitted, let how = m.fitNote, let importer = results["import/mrq"] {
            notes.append(String(format: "fitted: %@ at full size, Importer %.0f× faster (%@)", formatTime(fitted), fitted / importer.time, how))
        }
        if row.compare && m.skipped == nil { notes.append("\(m.rows) rows") }
        for (key, cli) in [("shellimport/mrq", "shellimport/sqlite3"), ("corpus/shell", "corpus/sqlite3")] where row.key == key {
            if m.skipped == nil, let sqlite = results[cli], sqlite.skipped == nil {
                notes.append(String(format: "%.2f× the sqlite3 CLI", m.time / sqlite.time))
            }
        }
        lines.append([row.workload, row.label, m.skipped == nil ? "\(m.times.count)" : "-",
                      m.skipped == nil ? formatTime(m.time) : "-",
                      ratio.map { String(format: "%.2f×", $0) } ?? (row.key.hasSuffix("/c") ? "1.00×" : ""),
                      m.peakKB > 0 ? String(format: "%.0f MB", Double(m.peakKB) / 1024) : "-",
                      status, notes.joined(separator: "; ")])
    }
    print("mrq benchmarks, \(scale.name) scale: \(scale.people) people (a, b, c, f, i, j, k, m, p), import of \(scale.importPeople) (d), \(scale.importPeople) people (n, o), \(scale.memoryRows) rows (g); medians, ×C = ratio to the baseline of the same run (raw SQLite C; the sqlite3 CLI for i, j, k; the Importer for m; for w, the sqlite3 C API opening the file in process, and the CLI rows as whole processes; raw libpq C for q-u, on a throwaway PostgreSQL server, \(scale.importPeople) people, \(PGWorkloads.writers) writers × \(PGWorkloads.updatesPerWriter(scale)) updates); peak RSS of the measured process (i, j, k, m: of the program run; p: 1 task's time, timed in turn with each)\n")
    let header = ["workload", "implementation", "runs", "median", "×C", "peak RSS", "target", "notes"]
    let widths = header.indices.map { i in ([header] + lines).map { $0[i].count }.max()! }
    for line in [header] + lines {
        print(line.indices.map { pad(line[$0], widths[$0]) }.joined(separator: "  "))
    }
    print(String(format: "\nscale %@; suite wall time %.1f s (fixtures included)", scale.name, now() - start))
    return allMet
}

// Every process of the suite (parent and children) may open PostgreSQL
// stores: the engine is registered before anything runs.
PersistentStoreCoordinator.register(PostgresEngine())

/// Rows that failed with an error (a missed target is a finding; an error
/// fails the run, so the smoke run in CI catches a suite that rotted).
nonisolated(unsafe) var failedRows: [String] = []

let arguments = CommandLine.arguments
// --compare, --instructions and their children (Compare.swift, Instructions.swift).
if let status = compareModeMain(arguments, implementations: implementations) { exit(status) }
if arguments.count > 1, arguments[1] == "--child" {
    guard arguments.count == 6, let implementation = implementations[arguments[2]], let runs = Int(arguments[3]) else {
        FileHandle.standardError.write("usage: mrq-bench --child WORKLOAD/IMPL RUNS SCALE WORKDIR\n".data(using: .utf8)!)
        exit(64)
    }
    let fixtures = Fixtures(directory: URL(fileURLWithPath: arguments[5]))
    do {
        report(try implementation(Scale.named(arguments[4]), fixtures, runs))
    } catch {
        print("error: \(error)")
        exit(70)
    }
    exit(0)
}

// A child never runs the suite (that would recurse).
if ProcessInfo.processInfo.environment["MRQ_BENCH_CHILD"] != nil {
    FileHandle.standardError.write("mrq-bench: a child was started without --child arguments\n".data(using: .utf8)!)
    exit(70)
}

/// The suite's usage: its first lines' comment, for `--help` and a
/// mistyped argument (which must not start a seven-minute run).
let suiteUsage = """
    usage: mrq-bench [--smoke] [--only WORKLOAD,...]
           mrq-bench --compare BASE-MRQ-BENCH [--workloads a,c,e] [--rounds N] [--scale NAME] [--runs N]
           mrq-bench --instructions BASELINE-FILE [--update] [--tolerance PERCENT]
    workloads: \(Set(rows.map { String($0.key.split(separator: "/")[0]) }).sorted().joined(separator: ", "))

    """
var scale: Scale = .full
var only: Set<String>?
var index = 1
while index < arguments.count {
    switch arguments[index] {
    case "--smoke": scale = .smokeRun
    case "--only" where index + 1 < arguments.count:
        index += 1
        only = Set(arguments[index].split(separator: ",").map(String.init))
        let known = Set(rows.map { String($0.key.split(separator: "/")[0]) })
        if let unknown = only?.subtracting(known).sorted(), !unknown.isEmpty {
            FileHandle.standardError.write("mrq-bench: no workload named \(unknown.joined(separator: ", "))\n\(suiteUsage)".data(using: .utf8)!)
            exit(64)
        }
    case "--help", "-h":
        print(suiteUsage, terminator: "")
        exit(0)
    default:
        FileHandle.standardError.write("mrq-bench: unknown argument '\(arguments[index])'\n\(suiteUsage)".data(using: .utf8)!)
        exit(64)
    }
    index += 1
}
do {
    let met = try runSuite(scale: scale, only: only)
    // Missed targets are findings, not failures; only errors fail the run.
    _ = met
    if !failedRows.isEmpty {
        print("error: \(failedRows.count) workload rows failed: \(failedRows.joined(separator: ", "))")
        exit(70)
    }
} catch {
    print("error: \(error)")
    exit(70)
}
