import Foundation
import ObjectStore

// v. One big value out of the shell (issue 30, class 6): a store of two
// Notes, one with a text of 100 MiB (10 MiB in a smoke run), one with a
// blob as big, printed whole by mrq in each mode into /dev/null. What is
// measured is the peak RSS over mrq's own on the same store (`count
// Note`), as a multiple of the value: fetching a value costs about twice
// its size (SQLite's copy and mrq's), and printing it must add less than
// one more, whether it is cut (table, line) or streamed (csv, json). The
// time is the program's wall time, run to run.

enum BigValueWorkloads {
    /// The size of each big value.
    static func size(_ scale: Scale) -> Int { scale.smoke ? 10 << 20 : 100 << 20 }

    /// The most a print may cost over mrq's start-up, in values; the
    /// row's target is this for the full run's 100 MiB (and 64 MB of
    /// start-up).
    static let limit = 3.0

    /// The store and its model, made once per suite run.
    static func fixtures(_ scale: Scale, _ fixtures: Fixtures) throws -> (store: URL, model: URL) {
        let store = fixtures.directory.appendingPathComponent("bigvalue.sqlite")
        let model = fixtures.directory.appendingPathComponent("Notes.xcdatamodeld")
        if FileManager.default.fileExists(atPath: store.path) { return (store, model) }
        let notes = try ManagedObjectModel {
            Entity("Note") {
                Attribute("title", .string)
                Attribute("body", .string)
                Attribute("blob", .binary)
            }
        }
        try notes.writeXcodeModel(to: model)
        let coordinator = try MRQWorkloads.open(store, model: notes)
        defer { coordinator.removeStores() }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let bytes = size(scale)
        let text = context.insertObject(forEntityName: "Note")
        text["title"] = .string("text")
        // Commas and quotes, so that CSV and JSON have something to do.
        text["body"] = .string(String(repeating: "lorem \"ipsum\", dolor ", count: bytes / 21))
        let blob = context.insertObject(forEntityName: "Note")
        blob["title"] = .string("blob")
        blob["blob"] = .data(Data((0..<bytes).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }))
        try context.save()
        return (store, model)
    }

    /// Both notes in `format`, `runs` times; the note gives the peak as a
    /// multiple of the value.
    static func print(format: String, _ scale: Scale, _ fixtures: Fixtures, runs: Int) throws -> Measurement {
        guard let mrq = MRQWorkloads.mrqBinary()?.path else { return ShellOutputWorkloads.skipped(.mrq) }
        let (store, model) = try self.fixtures(scale, fixtures)
        let arguments = ["--model", model.path, "--store", store.path, "--format", format, "-c", "Note"]
        var m = Measurement(times: [], rows: 2, checksum: 0, peakKB: 0, note: "")
        for _ in 0..<runs {
            m.times.append(try ShellOutputWorkloads.run(mrq, arguments, toDevNull: true).seconds)
        }
        m.peakKB = try ShellOutputWorkloads.peakKB(mrq, arguments, toDevNull: true)
        let start = try ShellOutputWorkloads.peakKB(mrq, ["--model", model.path, "--store", store.path, "-c", "count Note"],
                                                    toDevNull: true)
        guard m.peakKB > 0, start > 0 else {
            m.note = "no /usr/bin/time: peak RSS not measured"
            return m
        }
        let values = Double(m.peakKB - start) * 1024 / Double(size(scale))
        m.note = String(format: "peak %.0f MB, %.2f× the %d MiB value over mrq's start-up (%.0f MB): %@ (≤ %.0f×)",
                        Double(m.peakKB) / 1024, values, size(scale) >> 20, Double(start) / 1024,
                        values <= limit ? "met" : "MISSED", limit)
        return m
    }
}
