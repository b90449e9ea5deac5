import Foundation
import ObjectStore

/// Counts the rows of long work in a statement (an import, a fetch, rows
/// printed), stops it when Ctrl-C came, and reports its progress once it
/// has run for about a second.
///
/// ```swift
/// let meter = WorkMeter(action: "imported", total: rows.count, output: output)
/// defer { meter.finish() }
/// for row in rows {
///     try meter.advance()      // throws StoreError(.interrupted) after Ctrl-C
///     …
/// }
/// ```
///
/// `advance` is cheap enough to call per row: it looks at the clock and the
/// interrupt flag once every `stride` rows.
final class WorkMeter {
    let action: String
    var total: Int?
    /// Works out `total` when it is not known, the first time progress is
    /// shown: for a total that costs something to count (the elements of
    /// a large JSON file), paid only by work long enough to show it.
    var countTotal: (() -> Int)?
    private(set) var done = 0
    private let output: OutputSink
    private let started = DispatchTime.now().uptimeNanoseconds
    /// Nothing is shown before this many seconds have passed.
    private let showAfter: Double
    private var nextReport: UInt64
    private var shown = false
    private static let stride = 64
    private static let interval: UInt64 = 100_000_000
    /// Throws when the work must stop: Ctrl-C's flag.
    private let checkInterrupt: () throws -> Void

    init(action: String, total: Int? = nil, output: OutputSink, showAfter: Double = 1,
         checkInterrupt: @escaping () throws -> Void = StatementInterrupt.check) {
        self.checkInterrupt = checkInterrupt
        self.action = action
        self.total = total
        self.output = output
        self.showAfter = showAfter
        nextReport = started + UInt64(showAfter * 1e9)
    }

    /// Counts `rows` more done; throws when Ctrl-C asked the statement to
    /// stop.
    func advance(by rows: Int = 1) throws {
        let before = done
        done += rows
        guard done / Self.stride != before / Self.stride || rows >= Self.stride else { return }
        try checkInterrupt()
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= nextReport else { return }
        nextReport = now + Self.interval
        // Nothing to show (standard error is not a terminal): no total
        // to count either.
        guard output.showsProgress else { return }
        if !shown, total == nil, let countTotal { total = countTotal() }
        shown = true
        output.progress(WorkProgress(action: action, done: done, total: total,
                                     elapsed: Double(now - started) / 1e9))
    }

    /// Ends the work: takes the progress line away if one was shown.
    func finish() {
        if shown { output.progress(nil) }
        shown = false
    }
}
