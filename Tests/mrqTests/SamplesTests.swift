import Foundation
import Testing

/// Every `Samples/*.mrq` runs through the built `mrq` and prints exactly its
/// `.out` file, with exit code 0. `MRQ_RECORD=1` rewrites the `.out` files.
@Suite struct SamplesTests {
    static let samples: [String] = {
        let directory = MRQBinary.packageRoot.appendingPathComponent("Samples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".mrq") }.sorted()
    }()

    @Test func thereAreSamples() {
        #expect(Self.samples.contains("people.mrq"))
        #expect(Self.samples.contains("mail.mrq"))
    }

    @Test(arguments: samples)
    func sampleRunsWithItsExpectedOutput(_ name: String) throws {
        try #require(MRQBinary.isBuilt, MRQBinary.notBuilt)
        let script = MRQBinary.packageRoot.appendingPathComponent("Samples/\(name)")
        let expectedURL = script.deletingPathExtension().appendingPathExtension("out")
        let result = try MRQBinary.run([script.path])
        #expect(result.status == 0, "\(name) exited \(result.status): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(name) wrote to standard error: \(result.stderr)")
        if ProcessInfo.processInfo.environment["MRQ_RECORD"] == "1" || !FileManager.default.fileExists(atPath: expectedURL.path) {
            try result.stdout.write(to: expectedURL, atomically: true, encoding: .utf8)
            Issue.record("recorded new baseline \(expectedURL.lastPathComponent)")
            return
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        #expect(result.stdout == expected, "\(name) output differs:\n\(TextDiff.lines(expected: expected, actual: result.stdout))")
    }
}

/// A line-by-line diff for failure messages.
enum TextDiff {
    static func lines(expected: String, actual: String) -> String {
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String] = []
        for i in 0..<max(e.count, a.count) {
            let x = i < e.count ? String(e[i]) : nil
            let y = i < a.count ? String(a[i]) : nil
            if x != y {
                if let x { out.append("\(i + 1)- \(x)") }
                if let y { out.append("\(i + 1)+ \(y)") }
            }
            if out.count > 40 { out.append("…"); break }
        }
        return out.joined(separator: "\n")
    }
}

/// The Swift examples of Samples/ compile (they are targets) and print
/// their recorded output.
@Suite struct SwiftExampleTests {
    /// Runs the built example `product` on Samples/ (stopped after a
    /// minute: a hang is a failure) and compares what it prints with
    /// `Samples/<folder>/output.txt`.
    func expectRecordedOutput(of product: String, in folder: String) throws {
        let binary = MRQBinary.packageRoot.appendingPathComponent(".build/debug/\(product)").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "\(product) is not built: run `swift build --build-tests`")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [MRQBinary.packageRoot.appendingPathComponent("Samples").path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let timeout = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: timeout)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timeout.cancel()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let expected = try String(contentsOf: MRQBinary.packageRoot.appendingPathComponent("Samples/\(folder)/output.txt"), encoding: .utf8)
        #expect(String(decoding: data, as: UTF8.self) == expected)
    }

    @Test func mailExampleImportsThenSplitsLetters() throws {
        try expectRecordedOutput(of: "mail-example", in: "MailExample")
    }

    /// The server example: the `.server` setup, async saves in top-level
    /// code, parallel readers, and a completion handler, all while the main
    /// thread is blocked (with the app setup it would hang).
    @Test func serverExampleRunsWithItsMainThreadBlocked() throws {
        try expectRecordedOutput(of: "server-example", in: "ServerExample")
    }
}
