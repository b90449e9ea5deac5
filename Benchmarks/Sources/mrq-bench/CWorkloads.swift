import CBaseline
import Foundation

/// The raw SQLite C baseline of each workload (the code is in CBaseline).
enum CWorkloads {
    static func insert(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let people = Dataset.cPeople(scale.people)
        let target = fixtures.scratch("insert-c")
        var times: [Double] = []
        for _ in 0..<runs {
            try Fixtures.copy(fixtures.personTemplate, to: target)
            var rc: Int32 = 0
            times.append(time { rc = people.withUnsafeBufferPointer { bench_c_insert(target.path, $0.baseAddress, Int64($0.count), 1) } })
            try cCheck(rc)
        }
        let written = try readBack(target)
        Fixtures.remove(target)
        return Measurement(times: times, rows: written.rows, checksum: written.checksum, peakKB: 0)
    }

    /// Reads a store written by an insert workload, for checking.
    static func readBack(_ url: URL) throws -> bench_result {
        var result = bench_result()
        try cCheck(bench_c_fetch(url.path, &result))
        return result
    }

    static func fetch(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(runs) { bench_c_fetch(fixtures.personStore.path, &$0) }
    }

    static func filter(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(runs) { bench_c_filter(fixtures.personStore.path, &$0) }
    }

    /// p's floor: raw C, `threads` threads each on its own connection
    /// running the query of mrq's task of the same number, against one
    /// thread alone timed in turn with it in the same process (the
    /// measurement's baseline), as mrq's rows are. On a machine of `n`
    /// cores, `threads / n` is perfect scaling; what SQLite itself gets
    /// here is the bound mrq's 8 tasks can reach.
    static func cityReads(_ scale: Scale, _ fixtures: Fixtures, runs: Int, threads: Int32) throws -> Measurement {
        var result = bench_result()
        func round(_ count: Int32) throws -> Double {
            var rc: Int32 = 0
            let seconds = try time(wall: true) { rc = bench_c_city_reads(fixtures.personStore.path, count, Int32(APIWorkloads.fetchesPerTask), &result) }
            try cCheck(rc)
            return seconds
        }
        _ = try round(threads)   // untimed: the file's pages into the OS cache
        var times: [Double] = [], alone: [Double] = []
        for run in 0..<runs {
            if run % 2 == 1 { alone.append(try round(1)) }
            times.append(try round(threads))
            let rows = result.rows, checksum = result.checksum
            if run % 2 == 0 { alone.append(try round(1)) }
            result.rows = rows
            result.checksum = checksum
        }
        return Measurement(times: times, rows: result.rows, checksum: result.checksum, peakKB: 0,
                           note: "SQLite's own scaling: \(threads) threads × \(APIWorkloads.fetchesPerTask) fetches against 1 thread alone",
                           baseline: median(alone))
    }

    static func memory(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        try query(runs) { bench_c_scan(fixtures.millionStore.path, &$0) }
    }

    private static func query(_ runs: Int, _ body: (inout bench_result) -> Int32) throws -> Measurement {
        var times: [Double] = []
        var result = bench_result()
        for _ in 0..<runs {
            var rc: Int32 = 0
            times.append(time { rc = body(&result) })
            try cCheck(rc)
        }
        return Measurement(times: times, rows: result.rows, checksum: result.checksum, peakKB: 0)
    }

    static func importInsert(_ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        let people = Dataset.cPeople(scale.importPeople)
        let target = fixtures.scratch("import-c")
        var times: [Double] = []
        for _ in 0..<runs {
            try Fixtures.copy(fixtures.importTemplate, to: target)
            var rc: Int32 = 0
            times.append(time { rc = people.withUnsafeBufferPointer { bench_c_import(target.path, $0.baseAddress, Int64($0.count)) } })
            try cCheck(rc)
        }
        Fixtures.remove(target)
        return Measurement(times: times, rows: Int64(people.count), checksum: 0, peakKB: 0)
    }
}
