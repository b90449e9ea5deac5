import ActiveRecord
import CBaseline
import Foundation
import ObjectStore
import Predicates

/// The PostgreSQL workloads of issue 20, each against the raw libpq C
/// baseline (CBaseline/pg_baseline.c) on the same server in the same run:
/// the suite starts a throwaway cluster (`PostgresCluster`), makes a
/// database per workload with mrq's tables, and passes its address to the
/// child processes in `MRQ_BENCH_PG`.
enum PGWorkloads {
    /// How many rows the writers share, and how many updates each makes.
    static let writerRows: Int64 = 100
    static let writers: Int32 = 8
    static func updatesPerWriter(_ scale: Scale) -> Int32 { scale.smoke ? 50 : 500 }

    /// `postgres://mrq@127.0.0.1:PORT/database` of the suite's server.
    static func url(_ database: String) throws -> String {
        guard let base = ProcessInfo.processInfo.environment["MRQ_BENCH_PG"] else {
            throw BenchError("MRQ_BENCH_PG is not set: the PostgreSQL workloads run from the suite, which starts the server")
        }
        return base + database
    }

    // MARK: - The suite's side

    /// Starts the cluster and makes every workload's database: `people`
    /// filled with `importPeople` people (fetch, filter), empty `insert`
    /// and `import`, and `writers` with the rows the writers share.
    static func prepare(_ scale: Scale) throws -> PostgresCluster? {
        guard let bin = PostgresCluster.binDirectory() else { return nil }
        let cluster = try PostgresCluster(bin: bin)
        do {
            setenv("MRQ_BENCH_PG", cluster.url(""), 1)
            try withConnection("postgres") { conn in
                for name in ["people", "insert", "import", "writers"] { try pgCheck(bench_pg_exec(conn, "CREATE DATABASE \(name)")) }
            }
            for (name, model) in [("people", try Models.people()), ("insert", try Models.people()),
                                  ("import", try Models.importing()), ("writers", try Models.people())] {
                try MRQWorkloads.open(URL(string: try url(name))!, model: model).removeStores()
            }
            let people = Dataset.cPeople(scale.importPeople)
            try withConnection("people") { conn in
                try people.withUnsafeBufferPointer { try pgCheck(bench_pg_insert(conn, $0.baseAddress, Int64($0.count), 1)) }
                try pgCheck(bench_pg_exec(conn, "ANALYZE"))
            }
            try withConnection("writers") { conn in
                try people.withUnsafeBufferPointer { try pgCheck(bench_pg_insert(conn, $0.baseAddress, writerRows, 1)) }
            }
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    static func withConnection<T>(_ database: String, _ body: (UnsafeMutableRawPointer) throws -> T) throws -> T {
        guard let conn = bench_pg_connect(try url(database)) else { throw BenchError("libpq: " + String(cString: bench_pg_last_error())) }
        defer { bench_pg_close(conn) }
        return try body(conn)
    }

    static func pgCheck(_ rc: Int32) throws {
        if rc != 0 { throw BenchError("libpq baseline failed: " + String(cString: bench_pg_last_error())) }
    }

    private static func empty(_ database: String, tables: String) throws {
        try withConnection(database) { try pgCheck(bench_pg_exec($0, "TRUNCATE \(tables) RESTART IDENTITY")) }
    }

    private static func readBack(_ database: String) throws -> bench_result {
        var result = bench_result()
        try withConnection(database) { try pgCheck(bench_pg_fetch($0, &result)) }
        return result
    }

    // MARK: - pg-insert

    static func insertC(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let people = Dataset.cPeople(scale.importPeople)
        var times: [Double] = []
        for _ in 0..<runs {
            try empty("insert", tables: "\"Person\"")
            try withConnection("insert") { conn in
                var rc: Int32 = 0
                times.append(time { rc = people.withUnsafeBufferPointer { bench_pg_insert(conn, $0.baseAddress, Int64($0.count), 1) } })
                try pgCheck(rc)
            }
        }
        let written = try readBack("insert")
        return Measurement(times: times, rows: written.rows, checksum: written.checksum, peakKB: 0)
    }

    static func insertMRQ(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let people = Dataset.people(scale.importPeople)
        let model = try Models.people()
        var times: [Double] = []
        for _ in 0..<runs {
            try empty("insert", tables: "\"Person\"")
            let coordinator = try MRQWorkloads.open(URL(string: try url("insert"))!, model: model)
            times.append(try time { try MRQWorkloads.insertAndSave(people, coordinator: coordinator) })
            coordinator.removeStores()
        }
        let written = try readBack("insert")
        return Measurement(times: times, rows: written.rows, checksum: written.checksum, peakKB: 0)
    }

    // MARK: - pg-fetch and pg-filter

    static func fetchC(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try queryC(runs) { bench_pg_fetch($0, &$1) }
    }

    static func filterC(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try queryC(runs) { bench_pg_filter($0, &$1) }
    }

    private static func queryC(_ runs: Int, _ body: (UnsafeMutableRawPointer, inout bench_result) -> Int32) throws -> Measurement {
        var times: [Double] = []
        var result = bench_result()
        try withConnection("people") { conn in
            for _ in 0..<runs {
                var rc: Int32 = 0
                times.append(time { rc = body(conn, &result) })
                try pgCheck(rc)
            }
        }
        return Measurement(times: times, rows: result.rows, checksum: result.checksum, peakKB: 0)
    }

    static func fetchMRQ(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try MRQWorkloads.query(URL(string: try url("people"))!, runs: runs) { MRQWorkloads.fetchRequest }
    }

    static func filterMRQ(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try MRQWorkloads.query(URL(string: try url("people"))!, runs: runs) { try MRQWorkloads.filterRequest() }
    }

    // MARK: - pg-import

    static func importC(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let people = Dataset.cPeople(scale.importPeople)
        var times: [Double] = []
        for _ in 0..<runs {
            try empty("import", tables: "\"Person\", \"Department\"")
            try withConnection("import") { conn in
                var rc: Int32 = 0
                times.append(time { rc = people.withUnsafeBufferPointer { bench_pg_import(conn, $0.baseAddress, Int64($0.count)) } })
                try pgCheck(rc)
            }
        }
        let rows = try MRQWorkloads.verifyImport(URL(string: try url("import"))!, model: try Models.importing(), people: scale.importPeople)
        return Measurement(times: times, rows: rows, checksum: 0, peakKB: 0)
    }

    static func importMRQ(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let json = try MRQWorkloads.importJSON(fixtures, count: scale.importPeople)
        let model = try Models.importing()
        let store = URL(string: try url("import"))!
        var times: [Double] = []
        for _ in 0..<runs {
            try empty("import", tables: "\"Person\", \"Department\"")
            let coordinator = try MRQWorkloads.open(store, model: model)
            times.append(try time {
                let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
                try Importer(context: context).importArray(json, into: model.entity(named: "Person")!)
                try context.save()
            })
            coordinator.removeStores()
        }
        let rows = try MRQWorkloads.verifyImport(store, model: model, people: scale.importPeople)
        return Measurement(times: times, rows: rows, checksum: 0, peakKB: 0)
    }

    // MARK: - pg-writers

    /// Sets every shared row's score to 0 (before a run); after it, checks
    /// that the scores add up to one per update: no update lost.
    private static func writersRun(_ scale: Scale, _ body: () throws -> Int64) throws -> (time: Double, conflicts: Int64) {
        try withConnection("writers") { try pgCheck(bench_pg_exec($0, "UPDATE \"Person\" SET \"score\" = 0")) }
        var conflicts: Int64 = 0
        let seconds = try time(wall: true) { conflicts = try body() }
        var sum = 0.0
        try withConnection("writers") { try pgCheck(bench_pg_score_sum($0, &sum)) }
        let expected = Double(writers) * Double(updatesPerWriter(scale))
        guard sum == expected else { throw BenchError("the writers' scores add up to \(sum), not \(expected): updates were lost") }
        return (seconds, conflicts)
    }

    private static func writersMeasurement(_ scale: Scale, _ runs: [(time: Double, conflicts: Int64)]) -> Measurement {
        var m = Measurement(times: runs.map(\.time), rows: Int64(writers) * Int64(updatesPerWriter(scale)), checksum: 0, peakKB: 0)
        m.note = "\(writers) connections × \(updatesPerWriter(scale)) read-modify-writes of \(writerRows) shared rows, "
            + "0 lost; \(runs.map(\.conflicts).max() ?? 0) conflicts retried (most in a run)"
        return m
    }

    static func writersC(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let conninfo = try url("writers")
        return writersMeasurement(scale, try (0..<runs).map { _ in
            try writersRun(scale) {
                var conflicts: Int64 = 0
                try pgCheck(bench_pg_writers(conninfo, writers, updatesPerWriter(scale), writerRows, &conflicts))
                return conflicts
            }
        })
    }

    /// Eight threads, each with its own coordinator (its own connection,
    /// as a process of its own would have), each saving its updates one
    /// at a time: refresh the row, add 1, save; on a conflict, again.
    static func writersMRQ(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let store = URL(string: try url("writers"))!
        let model = try Models.people()
        let updates = updatesPerWriter(scale)
        return writersMeasurement(scale, try (0..<runs).map { _ in
            try writersRun(scale) {
                let outcomes = Outcomes()
                DispatchQueue.concurrentPerform(iterations: Int(writers)) { writer in
                    outcomes.record(Result { try writeRows(writer: Int32(writer), updates: updates, store: store, model: model) })
                }
                return try outcomes.total()
            }
        })
    }

    private static func writeRows(writer: Int32, updates: Int32, store: URL, model: ManagedObjectModel) throws -> Int64 {
        let coordinator = try MRQWorkloads.open(store, model: model)
        defer { coordinator.removeStores() }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        context.mergePolicy = .error
        var byID: [Int64: ManagedObject] = [:]
        for person in try context.fetch(FetchRequest(entityName: "Person")) {
            if case .int(let id) = person["id"] { byID[id] = person }
        }
        var conflicts: Int64 = 0
        for update in 0..<updates {
            guard let person = byID[bench_writer_row(writer, update, writerRows)] else { throw BenchError("a shared row is missing") }
            while true {
                context.refresh(person, mergeChanges: false)
                guard case .double(let score) = person["score"] else { throw BenchError("a shared row has no score") }
                person["score"] = .double(score + 1)
                do {
                    try context.save()
                    break
                } catch is MergeConflictError {
                    context.rollback()
                    conflicts += 1
                }
            }
        }
        return conflicts
    }

    /// The writers' results, from their threads.
    private final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Result<Int64, any Error>] = []
        func record(_ result: Result<Int64, any Error>) { lock.withLock { results.append(result) } }
        func total() throws -> Int64 { try lock.withLock { try results.reduce(0) { try $0 + $1.get() } } }
    }
}
