import ActiveRecord
import CBaseline
import Foundation
import ObjectStore
import Predicates

/// Person as a class of its own, for MagicalRecord's finders.
final class BenchPerson: ManagedObject {
    override class var entityName: String { "Person" }
}

/// Issue 19, item 4: `count(where:)` and `findFirst` in MagicalRecord's
/// default context, a child of the root saving context, with a few unsaved
/// changes (one person inserted, one deleted, one changed: the count and
/// the first stay the root's), against the same calls in the root saving
/// context and raw SQLite C, on 100,000 people (10,000 in the smoke run).
/// The store stays open: only the calls are timed.
enum ChildContextWorkloads {
    enum Place { case c, root, child }

    /// n. How many people are 18 or older.
    static func count(_ scale: Scale, _ fixtures: Fixtures, runs: Int, in place: Place) throws -> Measurement {
        try measure(fixtures, runs: runs, in: place, c: { db, result in bench_c_count_adults(db, 18, &result) }) { context in
            let count = Int64(try BenchPerson.count(where: "age >= %d", 18, in: context))
            return (count, count)
        }
    }

    /// o. The one of them with the highest score.
    static func first(_ scale: Scale, _ fixtures: Fixtures, runs: Int, in place: Place) throws -> Measurement {
        try measure(fixtures, runs: runs, in: place, c: { db, result in bench_c_first_adult(db, 18, &result) }) { context in
            guard let person = try BenchPerson.findFirst(where: "age >= %d", 18, sortedBy: "score", ascending: false, in: context) else {
                throw BenchError("findFirst found nobody")
            }
            return MRQWorkloads.readAll([person])
        }
    }

    private static func measure(_ fixtures: Fixtures, runs: Int, in place: Place,
                                c: (UnsafeMutableRawPointer?, inout bench_result) -> Int32,
                                mrq: (ManagedObjectContext) throws -> (Int64, Int64)) throws -> Measurement {
        var times: [Double] = []
        var result: (Int64, Int64) = (0, 0)
        if place == .c {
            guard let db = bench_c_open(fixtures.childStore.path) else { throw BenchError("cannot open the store") }
            defer { bench_c_close(db) }
            var row = bench_result()
            // Once before the clock, as for mrq below.
            try cCheck(c(db, &row))
            for _ in 0..<runs {
                var rc: Int32 = 0
                times.append(time { rc = c(db, &row) })
                try cCheck(rc)
            }
            return Measurement(times: times, rows: row.rows, checksum: row.checksum, peakKB: 0)
        }
        let stack = try CoreDataStack(model: try Models.people(), store: .url(fixtures.childStore))
        try stack.model.register(BenchPerson.self)
        let context = place == .root ? stack.rootSavingContext : stack.defaultContext
        if place == .child { try makeChanges(in: context) }
        // Once before the clock: the statements are prepared and the
        // pages read, as in a program that has run for a while.
        _ = try mrq(context)
        for _ in 0..<runs {
            times.append(try time { result = try mrq(context) })
        }
        return Measurement(times: times, rows: result.0, checksum: result.1, peakKB: 0,
                           note: place == .child ? "3 unsaved changes in the child" : "")
    }

    /// One adult inserted (with the lowest score), one deleted and one
    /// renamed (among those with the lowest scores): the count and the
    /// first stay the root's, so every implementation's answer is the same.
    private static func makeChanges(in context: ManagedObjectContext) throws {
        try context.performAndWait {
            var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age >= 18"),
                                       sortDescriptors: [SortKey(keyPath: ["score"], ascending: true)])
            request.fetchLimit = 2
            let people = try context.fetch(request)
            guard people.count == 2 else { throw BenchError("the store has too few people") }
            context.delete(people[0])
            people[1]["firstName"] = .string("Renamed")
            let added = context.insertObject(forEntityName: "Person")
            added["id"] = .int(-1)
            added["age"] = .int(40)
            added["score"] = .double(-1)
        }
        guard context.changeCount == 3 else { throw BenchError("expected 3 unsaved changes, not \(context.changeCount)") }
    }
}
