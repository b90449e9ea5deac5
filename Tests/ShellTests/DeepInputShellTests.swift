import Foundation
import Testing
@testable import Shell

/// Issue 16, item 7 of what was seen, as a user types it: deep input that
/// ended the process with a segfault (or a SQLite parser error) is now a
/// "nested too deeply" error that leaves the session working, or an
/// answer.
@Suite struct DeepInputShellTests {
    static func repeated(_ s: String, _ n: Int, separator: String = "") -> String {
        Array(repeating: s, count: n).joined(separator: separator)
    }

    @Test(arguments: [
        "count Person where " + repeated("age", 1_000, separator: " + ") + " > 0",
        "count Person where age" + repeated("[0]", 1_000) + " > 0",
        repeated("explain ", 1_000) + "count Person",
        repeated("let x = ", 1_000) + "count Person",
        "count Person where " + repeated("(", 5_000) + "age > 1" + repeated(")", 5_000),
    ])
    func tooDeepIsAnErrorAndTheSessionGoesOn(text: String) throws {
        let shell = try ShellHarness()
        shell.run("insert Person {FirstName: \"Ann\", age: 30}")
        let result = shell.run(text)
        #expect(!result.ok)
        #expect(result.errors.contains("nested too deeply (more than 128 levels"), "\(result.errors.prefix(200))")
        #expect(shell.count("Person") == 1)
    }

    @Test func longChainsAnswer() throws {
        let shell = try ShellHarness()
        shell.run("insert Person {FirstName: \"Ann\", age: 30}; insert Person {FirstName: \"Bo\", age: 0}; save")
        for text in ["count Person where " + Self.repeated("age", 120, separator: " + ") + " > 0",
                     "count Person where " + (0..<2_000).map { "age == \($0 * 30)" }.joined(separator: " OR "),
                     "count Person where age IN {" + (0..<40_000).map { "\($0 * 30)" }.joined(separator: ", ") + "}",
                     "count Person where " + Self.repeated("NOT ", 120) + "age > 0"] {
            let result = shell.run(text)
            #expect(result.ok, "\(result.errors.prefix(300))")
            #expect(result.text.contains("2") || result.text.contains("1"), "\(result.text)")
        }
        let explained = shell.run("explain count Person where " + Self.repeated("age", 120, separator: " + ") + " > 0")
        #expect(explained.ok)
        #expect(!explained.text.contains("in memory"), "a long chain runs in SQL:\n\(explained.text.prefix(400))")
    }

    @Test func aModelOfSixBadBytesIsAnError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-deep-\(UUID().uuidString)")
        let model = directory.appendingPathComponent("Bad.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data([0xFE, 0xFF, 0xD9, 0x5B, 0x22, 0x00]).write(to: model.appendingPathComponent("contents"))
        #expect {
            _ = try ShellSession(modelPath: model.path, storePath: ":memory:")
        } throws: { error in
            "\(error)".contains("not UTF-16 text (a lone surrogate) at byte 2")
        }
    }
}
