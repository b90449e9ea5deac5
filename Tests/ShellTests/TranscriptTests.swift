import Foundation
import Testing
@testable import Shell

/// REPL transcripts: `Tests/ShellTests/Transcripts/*.mrq`. Lines starting
/// with `mrq> ` (or `...> ` for continuation lines) are typed into a fresh
/// session over an in-memory store, started in the Samples folder; every
/// other line is the expected output (standard output and errors
/// interleaved as the user sees them). `MRQ_RECORD=1` rewrites the files.
@Suite struct TranscriptTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Transcripts")
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    static let transcripts: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".mrq") }.sorted()
    }()

    final class Capture: ShellOutput {
        var text = ""
        func write(_ s: String) { text += s }
        func writeError(_ s: String) { text += s }
    }

    /// Replays the inputs of a transcript and returns the transcript the
    /// session produces.
    static func replay(_ transcript: String) throws -> String {
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        session.baseDirectory = samples
        var result = ""
        var pending: [String] = []
        let capture = Capture()
        for line in transcript.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("mrq> ") || line.hasPrefix("mrq*> ") || line.hasPrefix("...> ") {
                let input = String(line.drop { $0 != " " }.dropFirst())
                result += (pending.isEmpty ? session.prompt : "...> ") + input + "\n"
                pending.append(input)
                let text = pending.joined(separator: "\n")
                if session.isComplete(text) {
                    capture.text = ""
                    session.run(text, fileName: nil, output: capture)
                    result += capture.text
                    pending = []
                }
            }
        }
        return result
    }

    @Test(arguments: transcripts)
    func transcriptReplaysExactly(_ name: String) throws {
        let url = Self.directory.appendingPathComponent(name)
        let expected = try String(contentsOf: url, encoding: .utf8)
        let actual = try Self.replay(expected)
        if ProcessInfo.processInfo.environment["MRQ_RECORD"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("recorded new baseline \(name)")
            return
        }
        #expect(actual == expected, "\(name) differs:\n\(Self.diff(expected, actual))")
    }

    static func diff(_ expected: String, _ actual: String) -> String {
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
            if out.count > 40 { break }
        }
        return out.joined(separator: "\n")
    }
}
