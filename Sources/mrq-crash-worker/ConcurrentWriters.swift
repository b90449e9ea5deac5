// `mrq-crash-worker pg-writer URL PROCESS CHANGES PER-SAVE POLICY`: one of the
// processes of the PostgreSQL multi-process test
// (Tests/ObjectStoreTests/PostgresMultiProcessTests.swift, which defines
// the same model).
//
// Makes CHANGES changes, PER-SAVE in each save, to the shared Tally rows
// under the merge policy POLICY: each change picks a row (a generator
// seeded with PROCESS; the rows of one save differ) and sets its counter `cPROCESS` to one more than the number of
// this process's changes that landed on the row, and `writer` to PROCESS.
// Only this process writes `cPROCESS`, so its value is exact unless an
// update is lost. A save refused (`.error`) or a change dropped by the
// policy (`.rollback`) is made again on the current rows until it lands. The
// context merges the other processes' saves as they are announced.
//
// Prints `landed R0 R1 …` (this process's changes per row, by slot) and
// `retries N`, then exits 0; on any other error prints it and exits 1.
import Foundation
import ObjectStore
import ObjectStorePostgres
import Predicates

let writerCount = 8

func tallyModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        Entity("Tally") {
            Attribute("slot", .integer64, default: .int(0))
            Attribute("writer", .integer64, default: .int(-1))
            for k in 0..<writerCount { Attribute("c\(k)", .integer64, default: .int(0)) }
        }
    }
}

func policy(named name: String) -> MergePolicy? {
    let all: [MergePolicy] = [.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]
    return all.first { "\($0)" == name }
}

func writeConcurrently(url: URL, process: Int, changes: Int, perSave: Int, policy: MergePolicy) throws {
    PersistentStoreCoordinator.register(PostgresEngine())
    let coordinator = PersistentStoreCoordinator(model: try tallyModel())
    var options = PersistentStoreOptions()
    options.postsRemoteChangeNotifications = true
    try coordinator.addPersistentStore(type: .postgres, at: url, options: options)
    let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    context.mergePolicy = policy
    context.automaticallyMergesChangesFromParent = true
    var request = FetchRequest(entityName: "Tally")
    request.sortDescriptors = try SortSpec.parse("slot")
    let rows = try context.performAndWait { Array(try context.fetch(request)) }
    guard !rows.isEmpty else { throw StoreError(.notFound, "no Tally rows to write") }
    var landed = [Int64](repeating: 0, count: rows.count)
    var retries = 0
    var random = SplitMix(seed: UInt64(process) &* 0x9E37_79B9 &+ 1)
    let key = "c\(process)"
    var made = 0
    while made < changes {
        // A save's changes go to distinct rows.
        var batch: [Int] = []
        while batch.count < min(perSave, changes - made, rows.count) {
            let r = Int(random.next() % UInt64(rows.count))
            if !batch.contains(r) { batch.append(r) }
        }
        made += batch.count
        // One block per attempt: merges of other processes' saves run
        // between them.
        while !batch.isEmpty {
            try context.performAndWait {
                for r in batch {
                    rows[r][key] = .int(landed[r] + 1)
                    rows[r]["writer"] = .int(Int64(process))
                }
                do {
                    try context.save()
                } catch is MergeConflictError {
                    context.rollback()
                    for r in batch { context.refresh(rows[r], mergeChanges: false) }
                    retries += 1
                    return
                }
                // `.rollback` drops the changes to rows that changed meanwhile.
                batch.removeAll { r in
                    guard rows[r][key] == .int(landed[r] + 1) else { return false }
                    landed[r] += 1
                    return true
                }
                if !batch.isEmpty { retries += 1 }
            }
        }
    }
    say("landed " + landed.map(String.init).joined(separator: " "))
    say("retries \(retries)")
    coordinator.removeStores()
}

/// A small seeded generator, the same on every platform.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
