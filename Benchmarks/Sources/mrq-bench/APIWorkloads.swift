import ActiveRecord
import Foundation
import ObjectStore
import Predicates
import Synchronization

/// The Swift API's workloads of issue 19: what a date column costs an
/// import, and reads from several contexts at once.
enum APIWorkloads {
    // MARK: - i. dates

    /// The import fixture with `created_at` as text in `yyyy-MM-dd'T'HH:mm:ssZ`
    /// (written once, outside the timing) or left as milliseconds.
    static func datedJSON(_ fixtures: Fixtures, count: Int, asText: Bool) throws -> JSON {
        let json = try MRQWorkloads.importJSON(fixtures, count: count)
        guard asText, case .array(let items) = json else { return json }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        return .array(try items.map { item in
            guard case .object(var object) = item, case .int(let millis)? = object["created_at"] else {
                throw BenchError("an import row without created_at")
            }
            object["created_at"] = .string(formatter.string(from: Date(timeIntervalSince1970: Double(millis / 1000))))
            return .object(object)
        })
    }

    /// The import model with `createdAt` read as text in a date format, or
    /// as milliseconds (`UnixTime`).
    static func datedModel(asText: Bool) throws -> ManagedObjectModel {
        let model = try Models.importing()
        let createdAt = model.entity(named: "Person")!.attribute(named: "createdAt")!
        createdAt.userInfo["dateFormat"] = asText ? "yyyy-MM-dd'T'HH:mm:ssZ" : "UnixTime"
        return model
    }

    /// Import and save into an in-memory store, so that the difference
    /// between the two forms is reading the dates.
    static func datedImport(_ scale: Scale, _ fixtures: Fixtures, runs: Int, asText: Bool) throws -> Measurement {
        let json = try datedJSON(fixtures, count: scale.importPeople, asText: asText)
        let model = try datedModel(asText: asText)
        let entity = model.entity(named: "Person")!
        var times: [Double] = []
        var checksum: Int64 = 0
        for _ in 0..<runs {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addSQLiteStore(at: nil)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            times.append(try time {
                try Importer(context: context).importArray(json, into: entity)
                try context.save()
            })
            let request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "createdAt > %@", Date(timeIntervalSince1970: 0)))
            checksum = Int64(try context.count(for: request))
        }
        return Measurement(times: times, rows: Int64(scale.importPeople), checksum: checksum, peakKB: 0)
    }

    // MARK: - p. parallel reads

    static let fetchesPerTask = 10

    /// The fetch each task repeats: the people of one city in one age
    /// band, sorted, every object filled (about 1,600 of 200,000 rows, the
    /// SELECT scanning the table).
    static func cityRequest(_ task: Int) throws -> FetchRequest {
        let cities = ["London", "Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Dublin", "Vienna"]
        var request = FetchRequest(entityName: "Person",
                                   predicate: try Predicate(format: "city == %@ AND age BETWEEN {30, 39}", cities[task % cities.count]),
                                   sortDescriptors: try SortSpec.parse("lastName,firstName"))
        request.returnsObjectsAsFaults = false
        return request
    }

    /// `tasks` Swift tasks at once, each with a private-queue context of
    /// its own on one coordinator (a server's stack), each running
    /// `fetchesPerTask` fetches and reading every object; a run lasts
    /// until the last task ends. One untimed round first opens what the
    /// reads need. With more than one task, each run is paired with a run
    /// of one task alone, in turn first and second, and the ratio is taken
    /// to those: on a shared machine, the load then weighs on both alike.
    /// Reports the objects read by the last run, checked against a count.
    static func parallelReads(_ scale: Scale, _ fixtures: Fixtures, runs: Int, tasks: Int) throws -> Measurement {
        let coordinator = try MRQWorkloads.open(fixtures.personStore, model: try Models.people())
        let contexts = (0..<tasks).map { _ in ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator) }
        let counter = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let expected = try (0..<tasks).map { try counter.count(for: try cityRequest($0)) }
        func round(_ count: Int) throws -> (rows: Int64, checksum: Int64) {
            try waitFor {
                try await withThrowingTaskGroup(of: (Int64, Int64).self) { group in
                    for (task, context) in contexts.prefix(count).enumerated() {
                        let want = expected[task]
                        group.addTask {
                            try await context.perform {
                                var total: (Int64, Int64) = (0, 0)
                                for _ in 0..<fetchesPerTask {
                                    let objects = try context.fetch(try cityRequest(task))
                                    guard objects.count == want else {
                                        throw BenchError("task \(task) fetched \(objects.count) people, expected \(want)")
                                    }
                                    let (rows, checksum) = MRQWorkloads.readAll(objects)
                                    total = (total.0 + rows, total.1 &+ checksum)
                                }
                                return total
                            }
                        }
                    }
                    return try await group.reduce(into: (Int64(0), Int64(0))) { $0 = ($0.0 + $1.0, $0.1 &+ $1.1) }
                }
            }
        }
        var result = try round(tasks)
        var times: [Double] = [], alone: [Double] = []
        var cpu = 0.0
        for run in 0..<runs {
            if tasks > 1 && run % 2 == 1 { alone.append(try time(wall: true) { _ = try round(1) }) }
            let cpuStart = cpuTime()
            times.append(try time(wall: true) { result = try round(tasks) })
            cpu += cpuTime() - cpuStart
            if tasks > 1 && run % 2 == 0 { alone.append(try time(wall: true) { _ = try round(1) }) }
        }
        // The work itself: more per fetch with more tasks would be
        // contention, whatever else the machine is running.
        let cpuPerFetch = cpu / Double(runs * tasks * fetchesPerTask)
        return Measurement(times: times, rows: result.rows, checksum: result.checksum, peakKB: 0,
                           note: String(format: "%d × %d fetches of %d–%d people, CPU %.1f ms a fetch", tasks, fetchesPerTask,
                                        expected.min() ?? 0, expected.max() ?? 0, cpuPerFetch * 1e3),
                           baseline: alone.isEmpty ? nil : median(alone))
    }

    /// This process's CPU time, in seconds.
    static func cpuTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Runs `body` on the cooperative pool and blocks this (non-pool)
    /// thread until it ends.
    static func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<T, any Error>?>(nil)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
