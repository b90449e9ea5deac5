import Foundation
@testable import ObjectStore
import Predicates
import Testing


/// Kills a worker that saves in a loop at random moments, and checks after
/// each kill that the store is intact and every save is all or nothing.
@Suite struct CrashTests {
    /// Items per save.
    static let rows: Int64 = 20
    /// Save n deletes the items of save n - keep (as the worker does).
    static let keep: Int64 = 4

    @Test func everySaveIsAllOrNothingAcrossKills() throws {
        let worker = try crashWorkerURL()
        let kills = isSoak ? 1_000 : 100
        let seed = ProcessInfo.processInfo.environment["MRQ_SEED"].flatMap(UInt64.init) ?? 0x6D72_7163_7261_7368
        var random = SplitMix64(seed: seed)
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        var counter: Int64 = 0
        var inFlightCommits = 0
        for kill in 1...kills {
            let context = "kill \(kill) of \(kills), MRQ_SEED=\(seed)"
            let process = try WorkerProcess(worker, ["save-loop", path, "\(Self.rows)"])
            // -1: kill while the worker opens (and recovers) the store.
            let savesBeforeKill = Int.random(in: -1...3, using: &random)
            var reported: [Int64] = []
            if savesBeforeKill >= 0 {
                guard process.readLine() == "ready" else {
                    process.waitForExit()
                    Issue.record("the worker did not start (\(context)): \(process.standardError)")
                    return
                }
                for _ in 0..<savesBeforeKill {
                    guard let line = process.readLine(), let n = Self.savedNumber(line) else { break }
                    reported.append(n)
                }
            }
            // Not synchronisation: this picks the moment of the kill, most
            // often in the middle of the next save.
            usleep(UInt32.random(in: 0..<4_000, using: &random))
            process.killAndWait()
            guard process.wasKilled else {
                Issue.record("the worker exited by itself (\(context)): \(process.standardError)")
                return
            }
            reported += process.remainingLines().compactMap(Self.savedNumber)
            if let first = reported.first {
                try #require(first == counter + 1, "the worker resumed at save \(first) after save \(counter) (\(context))")
            }
            let last = reported.last ?? counter
            let after = try Self.checkStore(at: path, context: context)
            try #require(after >= last, "save \(last) was reported done but the store ends at save \(after) (\(context))")
            try #require(after <= last + 1, "the store is at save \(after), past the one save in flight after \(last) (\(context))")
            if after == last + 1 { inFlightCommits += 1 }
            counter = after
        }
        print("crash test: \(kills) kills, \(counter) saves, \(inFlightCommits) kills right after an unreported commit")
        #expect(counter > Int64(kills / 2), "the worker made too little progress to test anything: \(counter) saves")
    }

    static func savedNumber(_ line: String) -> Int64? {
        line.hasPrefix("saved ") ? Int64(line.dropFirst(6)) : nil
    }

    /// Reopens the store and checks it; returns the last complete save.
    static func checkStore(at path: String, context: String) throws -> Int64 {
        let store = try SQLiteStore(path: path, model: try crashModel())
        let db = store.database
        let integrity = try db.rows("PRAGMA integrity_check")
        try #require(integrity == [[.string("ok")]], "integrity_check: \(integrity) (\(context))")
        let item = store.mapping.table(for: store.model.entity(named: "Item")!).name
        let counterTable = store.mapping.table(for: store.model.entity(named: "Counter")!).name
        let counters = try db.rows("SELECT value FROM \(counterTable)")
        try #require(counters.count <= 1, "\(counters.count) counter rows (\(context))")
        let counter: Int64
        switch counters.first?.first {
        case .int(let n)?: counter = n
        case nil: counter = 0
        case let other?:
            Issue.record("counter value \(String(describing: other)) (\(context))")
            return 0
        }
        // tag → (rows, rows with the wrong `touched`, distinct slots)
        let groups = try db.rows("""
            SELECT tag, count(*), sum(touched != CASE WHEN tag = ? THEN 0 ELSE tag + 1 END), count(DISTINCT slot)
            FROM \(item) GROUP BY tag ORDER BY tag
            """, [.int(counter)])
        let expectedTags = counter < 1 ? [] : Array(Swift.max(1, counter - keep + 1)...counter)
        let tags = groups.compactMap { row -> Int64? in if case .int(let t) = row[0] { return t } else { return nil } }
        try #require(tags == expectedTags, "after save \(counter) the store holds the items of saves \(tags), expected \(expectedTags) (\(context))")
        for row in groups {
            let expected: [Value] = [row[0], .int(rows), .int(0), .int(rows)]
            try #require(row == expected, "save \(row[0]) is partial: rows, wrongly touched, slots = \(row[1...]) (\(context))")
        }
        return counter
    }
}
