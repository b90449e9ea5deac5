import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// Eight processes saving to the same rows of one PostgreSQL store at once,
/// under each merge policy: no update lost.
///
/// Each process (`mrq-crash-worker pg-writer`, see
/// Sources/mrq-crash-worker/ConcurrentWriters.swift) makes its changes one
/// save of four on rows every process writes, setting its own counter `cK` to
/// the number of its changes that landed on the row (and `writer` to K),
/// making a change again when the policy refused or dropped it, and says
/// how many landed per row. Then every row is checked:
/// - its version moved once per landed change: no save was lost or
///   counted twice;
/// - under `.error`, the property policies and `.rollback`, each counter
///   is exactly its process's count: no process's update was lost;
/// - under `.overwrite`, which writes the whole object (the other
///   processes' counters too, as the saving context last read them), the
///   counter of the row's last writer is exact and no counter is ahead
///   of its process.
///
/// `MRQ_PG_CHANGES` sets the changes per process (1,000 by default).
@Suite(.serialized) struct PostgresMultiProcessTests {
    static let processes = 8
    static let rows = 16

    /// The worker's model (Sources/mrq-crash-worker/ConcurrentWriters.swift).
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Tally") {
                Attribute("slot", .integer64, default: .int(0))
                Attribute("writer", .integer64, default: .int(-1))
                for k in 0..<processes { Attribute("c\(k)", .integer64, default: .int(0)) }
            }
        }
    }

    static var changes: Int { ProcessInfo.processInfo.environment["MRQ_PG_CHANGES"].flatMap(Int.init) ?? 1_000 }
    /// Changes per save, to distinct rows: a save's round trips, not its
    /// rows, are most of its cost.
    static let perSave = 4

    @Test(arguments: [MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback])
    func eightProcessesLoseNoUpdate(policy: MergePolicy) throws {
        let url = try PostgresServer.shared().createSchema()
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: .postgres, at: URL(string: url)!)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for slot in 0..<Self.rows { context.insertObject(forEntityName: "Tally")["slot"] = .int(Int64(slot)) }
        try context.save()
        var request = FetchRequest(entityName: "Tally")
        request.sortDescriptors = try SortSpec.parse("slot")
        let startVersions = try context.fetch(request).map(\.version)

        let clock = Date()
        let worker = try crashWorkerURL()
        let workers = try (0..<Self.processes).map {
            try WorkerProcess(worker, ["pg-writer", url, "\($0)", "\(Self.changes)", "\(Self.perSave)", "\(policy)"])
        }
        var landed: [[Int64]] = []
        var retries = 0
        for (k, process) in workers.enumerated() {
            let lines = process.remainingLines()
            process.waitForExit()
            let counts = lines.first { $0.hasPrefix("landed ") }?.split(separator: " ").dropFirst().compactMap { Int64($0) }
            guard process.process.terminationStatus == 0, let counts, counts.count == Self.rows else {
                Issue.record("writer \(k) failed (status \(process.process.terminationStatus)): \(lines) \(process.standardError)")
                return
            }
            landed.append(counts)
            retries += lines.first { $0.hasPrefix("retries ") }.flatMap { Int($0.dropFirst(8)) } ?? 0
        }
        let seconds = Date().timeIntervalSince(clock)
        FileHandle.standardError.write(Data(String(format: "multi-process %@: %d saves in %.1f s, %d made again\n",
                                                   "\(policy)", Self.processes * Self.changes / Self.perSave, seconds, retries).utf8))
        #expect(landed.map { $0.reduce(0, +) } == Array(repeating: Int64(Self.changes), count: Self.processes))

        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let final = try fresh.fetch(request)
        #expect(final.count == Self.rows)
        for (r, row) in final.enumerated() {
            let counts = (0..<Self.processes).map { landed[$0][r] }
            #expect(row.version - startVersions[r] == counts.reduce(0, +), "row \(r): versions against changes landed")
            let stored = (0..<Self.processes).map { k -> Int64 in if case .int(let n) = row["c\(k)"] { n } else { -1 } }
            if policy == .overwrite && counts.reduce(0, +) > 0 {
                guard case .int(let writer) = row["writer"], (0..<Int64(Self.processes)).contains(writer) else {
                    Issue.record("row \(r) has no writer")
                    continue
                }
                #expect(stored[Int(writer)] == counts[Int(writer)], "row \(r): the last writer's counter")
                #expect(zip(stored, counts).allSatisfy { $0 <= $1 }, "row \(r): \(stored) against \(counts)")
            } else if policy != .overwrite {
                #expect(stored == counts, "row \(r)")
            }
        }
    }
}
