import Foundation
import Testing

/// Reads every source file and fails when a speed trick leaves the place
/// it is allowed in (issue 34):
/// - `@exclusivity(unchecked)` only on `private` (or `fileprivate`)
///   storage, and only under a comment that names the benchmark workload
///   it was measured on, as `mrq-bench b. fetch` (a row of
///   `Benchmarks/Sources/mrq-bench/main.swift`); a group of such
///   declarations may share one comment;
/// - nothing public or open is named with a leading underscore (such as
///   `_rawHashValue`): public API has proper names and docs.
@Suite struct SpeedTrickSourceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Finding: CustomStringConvertible {
        var file: String
        var line: Int
        var text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    static let unchecked = "@exclusivity(unchecked)"
    static let declarationKeywords: Set<String> = [
        "func", "var", "let", "class", "struct", "enum", "protocol", "typealias", "actor", "case",
    ]

    /// The workload names of the benchmark suite (`Row(workload: "…"`).
    static func workloads() throws -> Set<String> {
        let main = root.appendingPathComponent("Benchmarks/Sources/mrq-bench/main.swift")
        let marker = "Row(workload: \""
        var names: Set<String> = []
        for line in try String(contentsOf: main, encoding: .utf8).split(separator: "\n") {
            guard let start = line.range(of: marker)?.upperBound,
                  let end = line[start...].firstIndex(of: "\"") else { continue }
            names.insert(String(line[start..<end]))
        }
        return names
    }

    /// The name a public or open declaration on `code` declares, if any.
    static func publicName(_ code: String) -> String? {
        let tokens = code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
        guard let keyword = tokens.firstIndex(where: declarationKeywords.contains), keyword + 1 < tokens.count,
              tokens[..<keyword].contains(where: { $0 == "public" || $0 == "open" }) else { return nil }
        return tokens[keyword + 1]
    }

    /// The findings in one file's `lines`.
    static func findings(file: String, lines: [String], workloads: Set<String>) -> [Finding] {
        func comment(_ line: String) -> String? {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("//") else { return nil }
            return String(text.drop { $0 == "/" }).trimmingCharacters(in: .whitespaces)
        }
        var findings: [Finding] = []
        for (i, line) in lines.enumerated() where comment(line) == nil {
            let code = line.trimmingCharacters(in: .whitespaces)
            if let name = publicName(code), name.hasPrefix("_") {
                findings.append(Finding(file: file, line: i + 1, text: "underscored public name: \(code)"))
            }
            guard let attribute = code.range(of: unchecked) else { continue }
            let declaration = code[attribute.upperBound...].trimmingCharacters(in: .whitespaces)
            if !["private var ", "private let ", "fileprivate var ", "fileprivate let "].contains(where: declaration.hasPrefix) {
                findings.append(Finding(file: file, line: i + 1, text: "unchecked storage that is not private: \(code)"))
            }
            // The comment above, over the group's other declarations.
            var words: [String] = []
            var j = i - 1
            while j >= 0 {
                if let text = comment(lines[j]) {
                    words.insert(text, at: 0)
                } else if !lines[j].contains(unchecked) {
                    break
                }
                j -= 1
            }
            let text = words.joined(separator: " ")
            if !workloads.contains(where: { text.contains("mrq-bench \($0)") }) {
                findings.append(Finding(file: file, line: i + 1, text: "unchecked storage names no mrq-bench workload: \(code)"))
            }
        }
        return findings
    }

    @Test func speedTricksStayContained() throws {
        let workloads = try Self.workloads()
        #expect(workloads.contains("b. fetch"), "the suite's workloads are read (\(workloads.count))")
        var findings: [Finding] = []
        var files = 0
        let enumerator = FileManager.default.enumerator(at: Self.root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            files += 1
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            findings += Self.findings(file: url.lastPathComponent, lines: lines, workloads: workloads)
        }
        #expect(files > 200, "the scan reads the sources (\(files) files)")
        #expect(findings.isEmpty, "speed tricks outside their place:\n\(findings.map(\.description).joined(separator: "\n"))")
    }

    /// The scan finds what it is meant to: each of these is a finding.
    @Test(arguments: [
        ["public func _rawHashValue(seed: Int) -> Int {"],
        ["    public internal(set) var _stores: [Int] = []"],
        ["    /// Read on every access (mrq-bench b. fetch).", "    @exclusivity(unchecked) var values: [Int]"],
        ["    /// Read on every access (mrq-bench b. fetch).", "    @exclusivity(unchecked) private(set) var values: [Int]"],
        ["    /// Read on every access.", "    @exclusivity(unchecked) private var values: [Int]"],
        ["    /// Read on every access (mrq-bench z. nothing).", "    @exclusivity(unchecked) private var values: [Int]"],
    ])
    func theScanCatchesEscapedTricks(lines: [String]) throws {
        let found = Self.findings(file: "Example.swift", lines: lines, workloads: try Self.workloads())
        #expect(found.count == 1, "\(found)")
    }

    /// And lets the allowed form through, one comment for a group.
    @Test func theScanAllowsPrivateStorageNamingItsWorkload() throws {
        let lines = [
            "    // Written once by the model, read on every object access",
            "    // (mrq-bench b. fetch, a. insert).",
            "    @exclusivity(unchecked) private var values: [Int] = []",
            "    @exclusivity(unchecked) fileprivate var slots: [Int] = []",
            "    package var _notPublic = 0",
        ]
        #expect(Self.findings(file: "Example.swift", lines: lines, workloads: try Self.workloads()).isEmpty)
    }
}
