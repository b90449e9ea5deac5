import ActiveRecord
import CBaseline
import Foundation
import ObjectStore
import Predicates
import Shell

// `make bench-instructions`: the instructions the hot single-thread paths
// execute, counted by valgrind's callgrind in the release build, against
// Benchmarks/instructions-baseline.txt. A count does not move with the
// machine's load the way a time does, so a small change shows; it does
// move with the compiler, the build configuration and the machine's
// libraries, so the baseline is re-recorded (`make
// bench-instructions-update`) when those change, or when a change makes a
// path cheaper on purpose.

/// One path counted: its setup (not counted) returns the body that is.
struct InstructionPath {
    let name: String
    let label: String
    let setup: @Sendable (Fixtures) throws -> () throws -> Int64
}

let instructionPaths = [
    InstructionPath(name: "parse", label: "parse + translate 20 predicates ×10", setup: { fixtures in
        let store = fixtures.scratch("instructions-parse")
        try Fixtures.copy(fixtures.personTemplate, to: store)
        let context = ManagedObjectContext(concurrencyType: .confined,
                                           coordinator: try MRQWorkloads.open(store, model: try Models.people()))
        func translate(_ text: String) throws -> Int64 {
            var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: text))
            request.resultType = .count
            let plan = try context.explain(request)
            return Int64(plan.sql.utf8.count + plan.bindings.count)
        }
        for text in MRQWorkloads.predicates { _ = try translate(text) }   // the first plan of each is not counted
        return {
            var sizes: Int64 = 0
            for _ in 0..<Scale.instructions.parseIterations {
                for text in MRQWorkloads.predicates { sizes &+= try translate(text) }
            }
            return sizes
        }
    }),
    InstructionPath(name: "fetch", label: "fetch 10k people, read every attribute", setup: { fixtures in
        try query(fixtures) { MRQWorkloads.fetchRequest }
    }),
    InstructionPath(name: "insert", label: "insert 10k people + save", setup: { fixtures in
        let people = Dataset.people(Scale.instructions.people)
        let store = fixtures.scratch("instructions-insert")
        try Fixtures.copy(fixtures.personTemplate, to: store)
        let coordinator = try MRQWorkloads.open(store, model: try Models.people())
        return {
            try MRQWorkloads.insertAndSave(people, coordinator: coordinator)
            return Int64(people.count)
        }
    }),
    InstructionPath(name: "filter", label: "filter + sort 10k people (parse included)", setup: { fixtures in
        try query(fixtures) { try MRQWorkloads.filterRequest() }
    }),
    InstructionPath(name: "import", label: "import 2k people with departments + save", setup: { fixtures in
        let json = try MRQWorkloads.importJSON(fixtures, count: Scale.instructions.importPeople)
        let model = try Models.importing()
        guard let person = model.entity(named: "Person") else { throw BenchError("the import model has no Person") }
        let store = fixtures.scratch("instructions-import")
        try Fixtures.copy(fixtures.importTemplate, to: store)
        let coordinator = try MRQWorkloads.open(store, model: model)
        return {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            try Importer(context: context).importArray(json, into: person)
            try context.save()
            return Int64(context.registeredObjects.count)
        }
    }),
    InstructionPath(name: "shellimport", label: "shell: import 5k people from JSON, then save", setup: { fixtures in
        // The m row's mrq side, small: the same file form, store and
        // statements, through the Shell module the mrq binary runs.
        let file = fixtures.scratch("instructions-shellimport.json")
        try Dataset.importJSON(Dataset.people(5_000)).write(to: file, atomically: true, encoding: .utf8)
        let store = fixtures.scratch("instructions-shellimport")
        try Fixtures.copy(fixtures.importTemplate, to: store)
        let session = try ShellSession(modelPath: nil, storePath: store.path)
        let output = DiscardedOutput()
        return {
            guard session.run("import Person from \"\(file.path)\"", fileName: nil, output: output),
                  session.run("save", fileName: nil, output: output)
            else { throw BenchError("the shell's import or save failed") }
            let stored = try session.context.count(for: FetchRequest(entityName: "Person"))
            guard stored == 5_000 else { throw BenchError("the shell stored \(stored) people, not 5000") }
            return Int64(stored)
        }
    }),
    InstructionPath(name: "model", label: "open the stand-in largest model with no model, count every entity", setup: { fixtures in
        let url = CorpusWorkloads.standInStore(fixtures)
        let stored = try CorpusWorkloads.storedHashes(url)
        func run() throws -> Int64 { try CorpusWorkloads.openAndCount(url, hashes: stored).checksum }
        _ = try run()   // as the w row's runs after the first
        return run
    }),
]

/// A fetch on the 10k store, once before the counted one, as the
/// benchmark's runs after the first find the coordinator.
private func query(_ fixtures: Fixtures, _ makeRequest: @escaping () throws -> FetchRequest) throws -> () throws -> Int64 {
    let coordinator = try MRQWorkloads.open(fixtures.personStore, model: try Models.people())
    func run() throws -> Int64 {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        return MRQWorkloads.readAll(try context.fetch(try makeRequest())).1
    }
    _ = try run()
    return run
}

/// A shell output that keeps nothing.
private final class DiscardedOutput: ShellOutput {
    func write(_ text: String) {}
    func writeError(_ text: String) {}
    func flush() {}
    var isClosed: Bool { false }
    /// As the m row's mrq, whose standard error is /dev/null: no progress
    /// (whose total, counted once the import had run a second, made the
    /// path's count depend on how fast callgrind ran).
    var showsProgress: Bool { false }
}

/// What the counted body hands back through bench_measure's C frame.
private final class MeasuredBody {
    let body: () throws -> Int64
    var result: Result<Int64, any Error> = .success(0)
    init(_ body: @escaping () throws -> Int64) { self.body = body }
}

/// `--measure`: sets one path up and runs its body inside
/// `bench_measure`, the only function callgrind counts.
func measureOnce(_ name: String, fixtures: Fixtures) throws {
    guard let path = instructionPaths.first(where: { $0.name == name }) else {
        throw BenchError("unknown path '\(name)': expected " + instructionPaths.map(\.name).joined(separator: ", "))
    }
    let box = MeasuredBody(try path.setup(fixtures))
    bench_measure({ context in
        guard let context else { return }
        let box = Unmanaged<MeasuredBody>.fromOpaque(context).takeUnretainedValue()
        box.result = Result { try box.body() }
    }, Unmanaged.passUnretained(box).toOpaque())
    let checksum = try box.result.get()
    print("MEASURED \(checksum)")
}

/// Reads a baseline file: `name count` lines; `#` starts a comment.
func readInstructionBaseline(_ url: URL) throws -> [String: Int] {
    guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
    var counts: [String: Int] = [:]
    for (number, line) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        if fields.isEmpty { continue }
        guard fields.count == 2, let count = Int(fields[1]) else {
            throw BenchError("\(url.path):\(number + 1): expected a path name and an instruction count")
        }
        counts[String(fields[0])] = count
    }
    return counts
}

/// A copy of this program without its DWARF: valgrind 3.19 (Debian 12)
/// cannot read the DWARF 5 Swift writes and gives up. The symbol table
/// stays, so callgrind still finds bench_measure by name.
func strippedCopy(in directory: URL) throws -> URL {
    let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let copy = directory.appendingPathComponent("mrq-bench-stripped")
    try? FileManager.default.removeItem(at: copy)
    try FileManager.default.copyItem(at: own, to: copy)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["objcopy", "--strip-debug", copy.path]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchError("objcopy --strip-debug \(copy.path) failed") }
    return copy
}

/// Counts one path's instructions under callgrind, in `program` (this
/// one, stripped).
func countInstructions(_ path: InstructionPath, program own: URL, fixtures: Fixtures) throws -> Int {
    let log = fixtures.directory.appendingPathComponent("callgrind-\(path.name).log")
    _ = try runTool(URL(fileURLWithPath: "/usr/bin/env"),
                    ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=bench_measure",
                     "--callgrind-out-file=/dev/null", "--log-file=\(log.path)",
                     own.path, "--measure", path.name, fixtures.directory.path],
                    prefix: "MEASURED",
                    // The JSON read-ahead off: its thread is not counted, and
                    // whether it starts depends on the machine's load.
                    environment: ["SWIFT_DETERMINISTIC_HASHING": "1", "MRQ_JSON_READ_AHEAD": "0"])
    let text = try String(contentsOf: log, encoding: .utf8)
    guard let line = text.split(separator: "\n").first(where: { $0.contains("Collected :") }),
          let count = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") else {
        throw BenchError("no instruction count in \(log.path)")
    }
    return count
}

/// `--instructions`: counts every path and compares each with the
/// baseline file (or, with `update`, writes it). False when a path
/// exceeds its baseline by more than `tolerance` percent, or has none.
func runInstructionCheck(baseline url: URL, update: Bool, tolerance: Double) throws -> Bool {
    let fixtures = Fixtures(directory: benchmarksDirectory().appendingPathComponent(".build/bench-work/instructions"))
    let start = now(wall: true)
    FileHandle.standardError.write("preparing fixtures (instructions)...\n".data(using: .utf8)!)
    try fixtures.make(.instructions)
    let baseline = try readInstructionBaseline(url)
    let program = try strippedCopy(in: fixtures.directory)
    var counts: [(InstructionPath, Int)] = []
    for path in instructionPaths {
        FileHandle.standardError.write("counting \(path.name) under callgrind...\n".data(using: .utf8)!)
        counts.append((path, try countInstructions(path, program: program, fixtures: fixtures)))
    }
    if update {
        var text = "# Instructions each hot path executes, counted by `make bench-instructions`\n"
            + "# (valgrind's callgrind, the release build of Benchmarks/, Swift hashing\n"
            + "# made deterministic). Counts depend on the compiler, the configuration\n"
            + "# and the machine's libraries: re-record with `make bench-instructions-update`\n"
            + "# when those change or a change makes a path cheaper on purpose.\n"
        for (path, count) in counts { text += "\(path.name) \(count)\n" }
        try text.write(to: url, atomically: true, encoding: .utf8)
        print("recorded \(url.path)")
    }
    var passed = true
    var lines = [["path", "what", "baseline", "now", "change", "verdict"]]
    for (path, count) in counts {
        let verdict: String
        var change = ""
        if update {
            verdict = "recorded"
        } else if let old = baseline[path.name] {
            let delta = (Double(count) / Double(old) - 1) * 100
            change = String(format: "%+.2f%%", delta)
            if delta > tolerance {
                verdict = String(format: "FAILED: more than %.1f%% above the baseline", tolerance)
                passed = false
            } else if delta < -tolerance {
                verdict = "passed, below the baseline: re-record it with make bench-instructions-update"
            } else {
                verdict = "passed"
            }
        } else {
            verdict = "FAILED: no baseline for \(path.name) in \(url.path): record one with make bench-instructions-update"
            passed = false
        }
        lines.append([path.name, path.label, baseline[path.name].map { String($0) } ?? "-", String(count), change, verdict])
    }
    let widths = lines[0].indices.map { i in lines.map { $0[i].count }.max() ?? 0 }
    for line in lines {
        print(line.indices.map { pad(line[$0], widths[$0]) }.joined(separator: "  "))
    }
    print(String(format: "\ninstructions in the release build, tolerance %.1f%%; wall time %.0f s", tolerance, now(wall: true) - start))
    return passed
}
