import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// Kills a worker saving to an XML store in a loop and checks that the
/// file is always a whole save: the previous one or the new one.
@Suite struct XMLStoreCrashTests {
    @Test func killingDuringAnXMLSaveLeavesTheLastWholeFile() throws {
        let worker = try crashWorkerURL()
        let kills = isSoak ? 300 : 30
        let seed = ProcessInfo.processInfo.environment["MRQ_SEED"].flatMap(UInt64.init) ?? 0x786D_6C63_7261_7368
        var random = SplitMix64(seed: seed)
        let directory = URL(fileURLWithPath: TestModels.temporaryStorePath()).deletingLastPathComponent()
        let url = directory.appendingPathComponent("store.xml")
        defer { try? FileManager.default.removeItem(at: directory) }
        var counter: Int64 = 0
        for kill in 1...kills {
            let context = "kill \(kill) of \(kills), MRQ_SEED=\(seed)"
            let process = try WorkerProcess(worker, ["xml-save-loop", url.path, "\(CrashTests.rows)"])
            guard process.readLine() == "ready" else {
                process.waitForExit()
                Issue.record("the worker did not start (\(context)): \(process.standardError)")
                return
            }
            var reported: [Int64] = []
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                guard let line = process.readLine(), let n = CrashTests.savedNumber(line) else { break }
                reported.append(n)
            }
            usleep(UInt32.random(in: 0..<3_000, using: &random))
            process.killAndWait()
            try #require(process.wasKilled, "the worker exited by itself (\(context)): \(process.standardError)")
            reported += process.remainingLines().compactMap(CrashTests.savedNumber)
            let last = reported.last ?? counter
            let after = try Self.checkStore(url, context: context)
            try #require(after >= last && after <= last + 1, "the file is at save \(after), last reported \(last) (\(context))")
            counter = after
        }
        #expect(counter > Int64(kills / 2), "too little progress: \(counter) saves")
    }

    /// Reads the file whole and checks that it holds exactly save n.
    static func checkStore(_ url: URL, context: String) throws -> Int64 {
        let model = try crashModel()
        let store = try XMLStore(url: url, model: model, configuration: nil, options: PersistentStoreOptions())
        let rows = try store.allSnapshots()
        let counters = rows.filter { $0.id.entity.name == "Counter" }
        try #require(counters.count <= 1, "\(counters.count) counters (\(context))")
        guard let counter = counters.first, case .int(let n) = counter.values[0] else {
            try #require(rows.isEmpty, "items without a counter (\(context))")
            return 0
        }
        let item = model.entity(named: "Item")!
        let (tag, touched) = (item.attributeIndex["tag"]!, item.attributeIndex["touched"]!)
        var byTag: [Int64: Int] = [:]
        for row in rows where row.id.entity === item {
            guard case .int(let t) = row.values[tag], case .int(let u) = row.values[touched] else {
                Issue.record("an item without tag (\(context))")
                continue
            }
            byTag[t, default: 0] += 1
            #expect(u == (t == n ? 0 : t + 1), "item of save \(t) touched \(u) at save \(n) (\(context))")
        }
        let expected = Dictionary(uniqueKeysWithValues: (max(1, n - CrashTests.keep + 1)...n).map { ($0, Int(CrashTests.rows)) })
        try #require(byTag == expected, "items by save \(byTag), expected \(expected) (\(context))")
        return n
    }
}
