import Foundation
import Testing
@testable import Shell

/// Keeps Grammar/mrq.ebnf in step with the statement parser, and checks
/// that every sample script parses.
@Suite struct ShellGrammarTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func normalize(_ s: String) -> String {
        s.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).joined(separator: " ")
    }

    static func stripComments(_ s: String) -> String {
        var out = ""
        var rest = Substring(s)
        while let open = rest.range(of: "(*") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "*)") else { return out }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// `name → rhs` productions; continuation lines start with `|`.
    static func productions(in text: String) -> [String: String] {
        var rules: [String: String] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let arrow = trimmed.range(of: " → "), trimmed[..<arrow.lowerBound].allSatisfy(\.isLetter) {
                current = String(trimmed[..<arrow.lowerBound])
                rules[current!] = String(trimmed[arrow.upperBound...])
            } else if let name = current, trimmed.hasPrefix("|") {
                rules[name, default: ""] += " " + trimmed
            } else {
                current = nil
            }
        }
        return rules.mapValues(normalize)
    }

    static func codeRules() throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent("Sources/Shell/Language/StatementParser.swift"), encoding: .utf8)
        let docs = text.split(separator: "\n").compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            return t.hasPrefix("///") ? String(t.dropFirst(3)) : nil
        }
        return productions(in: docs.joined(separator: "\n"))
    }

    static func ebnf() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Grammar/mrq.ebnf"), encoding: .utf8)
    }

    @Test func productionsMatchTheParseFunctions() throws {
        let grammar = Self.productions(in: Self.stripComments(try Self.ebnf()))
        let code = try Self.codeRules()
        #expect(code.count >= 15)
        for (name, rule) in code.sorted(by: { $0.key < $1.key }) {
            guard let written = grammar[name] else {
                Issue.record("Grammar/mrq.ebnf is out of date with StatementParser.swift: rule '\(name)' is missing; add `\(name) → \(rule)`")
                continue
            }
            #expect(written == rule, "Grammar/mrq.ebnf is out of date with StatementParser.swift: rule '\(name)' differs; copy `\(name) → \(rule)` from the doc comment")
        }
        for name in grammar.keys where code[name] == nil {
            Issue.record("Grammar/mrq.ebnf has rule '\(name)' with no parse function; remove it or document the function with `/// \(name) → …`")
        }
    }

    @Test func everyStatementAndClauseWordIsATerminal() throws {
        let text = try Self.ebnf()
        for word in StatementParser.statementWords + StatementParser.clauseWords {
            #expect(text.contains("\"\(word)\""), "Grammar/mrq.ebnf does not mention the word \"\(word)\"; add it as a terminal")
        }
    }

    @Test func everySampleScriptParsesWithoutADiagnostic() throws {
        let samples = Self.root.appendingPathComponent("Samples")
        let names = try FileManager.default.contentsOfDirectory(atPath: samples.path).filter { $0.hasSuffix(".mrq") }
        #expect(!names.isEmpty)
        for name in names {
            let source = try String(contentsOf: samples.appendingPathComponent(name), encoding: .utf8)
            for item in ScriptSplitter.split(source) {
                switch item {
                case .lexError(let error):
                    Issue.record("Samples/\(name): \(error)")
                case .statements(let tokens):
                    var parser = StatementParser(parser: .init(tokens: tokens, source: source), source: source)
                    do { _ = try parser.parseWholeStatement() } catch {
                        Issue.record("Samples/\(name): \(error)")
                    }
                case .dotCommand(let line, _):
                    let name = line.trimmingCharacters(in: .whitespaces).dropFirst().split(separator: " ").first.map(String.init) ?? ""
                    #expect(ShellSession.dotCommands.contains { $0.name == name }, "Samples: unknown dot command \(line)")
                }
            }
        }
    }
}
