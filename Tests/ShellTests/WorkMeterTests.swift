import Foundation
import ObjectStore
import Testing
@testable import Shell

/// The progress line and the meter that counts long work.
@Suite struct WorkMeterTests {
    final class Recorder: ShellOutput {
        var reports: [WorkProgress?] = []
        func write(_ text: String) {}
        func writeError(_ text: String) {}
        func progress(_ progress: WorkProgress?) { reports.append(progress) }
    }

    @Test func lineShowsABarOnlyWhenTheTotalIsKnown() {
        let half = WorkProgress(action: "imported", done: 100_000, total: 200_000, elapsed: 1.44)
        let line = half.line(width: 79)
        #expect(line.hasPrefix("[###############...............]"))
        #expect(line.hasSuffix("100,000 / 200,000 imported  1.4 s"))
        let open = WorkProgress(action: "printed", done: 1_234_567, elapsed: 12)
        #expect(open.line(width: 79) == "1,234,567 printed  12.0 s")
    }

    @Test func lineNeverExceedsTheWidth() {
        for width in [0, 5, 20, 40, 79] {
            for total in [nil, 10, 1_000_000_000] as [Int?] {
                let line = WorkProgress(action: "fetched", done: 7, total: total, elapsed: 3).line(width: width)
                #expect(line.count <= width, "\(width) \(String(describing: total)): \(line)")
            }
        }
        // Done past the total (a count that grew) keeps the bar full, not wider.
        #expect(WorkProgress(action: "x", done: 20, total: 10, elapsed: 0).line(width: 79).hasPrefix("[" + String(repeating: "#", count: 30) + "]"))
    }

    @Test func meterReportsAfterItsDelayAndTakesTheLineAway() throws {
        let harness = try ShellHarness()
        let recorder = Recorder()
        let sink = OutputSink(base: recorder, session: harness.session)
        let quiet = WorkMeter(action: "imported", total: 1000, output: sink, showAfter: 3600)
        for _ in 0..<1000 { try quiet.advance() }
        quiet.finish()
        #expect(recorder.reports.isEmpty)

        let meter = WorkMeter(action: "imported", total: 1000, output: sink, showAfter: 0)
        for _ in 0..<1000 { try meter.advance() }
        meter.finish()
        let shown = recorder.reports.compactMap { $0 }
        #expect(!shown.isEmpty)
        #expect(shown.allSatisfy { $0.action == "imported" && $0.total == 1000 && $0.done <= 1000 })
        #expect(recorder.reports.last! == nil)
    }

    @Test func anOutputThatShowsNoProgressGetsNoneAndNoTotalIsCounted() throws {
        final class Hidden: ShellOutput {
            var reports = 0
            func write(_ text: String) {}
            func writeError(_ text: String) {}
            func progress(_ progress: WorkProgress?) { reports += 1 }
            var showsProgress: Bool { false }
        }
        let harness = try ShellHarness()
        for (base, shows) in [(Hidden() as ShellOutput, false), (Recorder() as ShellOutput, true)] {
            var counted = 0
            let meter = WorkMeter(action: "imported", output: OutputSink(base: base, session: harness.session), showAfter: 0)
            meter.countTotal = { counted += 1; return 1000 }
            for _ in 0..<1000 { try meter.advance() }
            meter.finish()
            #expect(counted == (shows ? 1 : 0))
            if let hidden = base as? Hidden { #expect(hidden.reports == 0) }
            if let recorder = base as? Recorder {
                #expect(recorder.reports.compactMap { $0 }.allSatisfy { $0.total == 1000 })
                #expect(recorder.reports.count >= 2)
            }
        }
    }

    @Test func meterStopsOnInterrupt() throws {
        let harness = try ShellHarness()
        let sink = OutputSink(base: Recorder(), session: harness.session)
        // The flag is the process's: this test raises its own, so that
        // statements of other tests running meanwhile go on.
        var pressed = false
        let meter = WorkMeter(action: "printed", output: sink) {
            if pressed { throw StoreError(.interrupted, "interrupted") }
        }
        for _ in 0..<100 { try meter.advance() }
        pressed = true
        #expect(throws: StoreError.self) {
            for _ in 0..<1000 { try meter.advance() }
        }
        #expect(meter.done <= 100 + 64)
    }
}
