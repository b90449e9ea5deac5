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
