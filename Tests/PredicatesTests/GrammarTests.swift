import Foundation
import Testing
@testable import Predicates

/// Keeps Grammar/predicate.ebnf in step with the parser and the lexer.
@Suite struct GrammarTests {
    static let root = RepoPaths.root()

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
            if let arrow = trimmed.range(of: " → ") {
                let name = String(trimmed[..<arrow.lowerBound])
                if name.allSatisfy({ $0.isLetter }) {
                    rules[name] = String(trimmed[arrow.upperBound...])
                    current = name
                    continue
                }
            }
            if let name = current, trimmed.hasPrefix("|") {
                rules[name, default: ""] += " " + trimmed
            } else {
                current = nil
            }
        }
        return rules.mapValues(normalize)
    }

    static func docRules() throws -> [String: (rule: String, file: String)] {
        let sources = root.appendingPathComponent("Sources/Predicates")
        var rules: [String: (String, String)] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        where file.hasPrefix("Parser") && file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let docLines = text.split(separator: "\n").compactMap { line -> String? in
                let t = line.trimmingCharacters(in: .whitespaces)
                return t.hasPrefix("///") ? String(t.dropFirst(3)) : nil
            }
            for (name, rule) in productions(in: docLines.joined(separator: "\n")) { rules[name] = (rule, file) }
        }
        return rules
    }

    static func ebnf() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Grammar/predicate.ebnf"), encoding: .utf8)
    }

    /// Each of mrq's additions is marked in the grammar, so that the
    /// grammar tells Apple's language from mrq's.
    @Test func everyAdditionIsMarked() throws {
        let text = try Self.ebnf()
        for addition in LanguageAddition.allCases {
            #expect(text.contains("[mrq addition: \(addition.rawValue)]"),
                    "Grammar/predicate.ebnf does not mark \(addition.rawValue); add `[mrq addition: \(addition.rawValue)]` where it is described")
        }
    }

    @Test func productionsMatchParseFunctions() throws {
        let grammar = Self.productions(in: Self.stripComments(try Self.ebnf()))
        let code = try Self.docRules()
        #expect(!code.isEmpty)
        for (name, (rule, file)) in code.sorted(by: { $0.key < $1.key }) {
            guard let written = grammar[name] else {
                Issue.record("Grammar/predicate.ebnf is out of date with \(file): rule '\(name)' is missing; add `\(name) → \(rule)`")
                continue
            }
            #expect(written == rule, "Grammar/predicate.ebnf is out of date with \(file): rule '\(name)' differs; copy `\(name) → \(rule)` from the doc comment")
        }
        for name in grammar.keys where code[name] == nil {
            Issue.record("Grammar/predicate.ebnf has rule '\(name)' with no parse function; remove it or document the function with `/// \(name) → …`")
        }
    }

    @Test func terminalsMatchLexerTables() throws {
        let text = Self.stripComments(try Self.ebnf())
        var terminals = Set<String>()
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "\"") {
            let after = rest.index(after: open)
            guard let close = rest[after...].firstIndex(of: "\"") else { break }
            terminals.insert(String(rest[after..<close]))
            rest = rest[rest.index(after: close)...]
        }
        let lexer = Set(Keyword.allCases.map(\.rawValue) + TokenKind.operatorSpellings.map(\.spelling)
            + [FormatSpecifier.object, .keyPath, .percent].map(\.rawValue))
        for missing in lexer.subtracting(terminals).sorted() {
            Issue.record("Grammar/predicate.ebnf is out of date with Lexer.swift: terminal \"\(missing)\" is in the lexer's tables but in no production")
        }
        for extra in terminals.subtracting(lexer).sorted() {
            Issue.record("Grammar/predicate.ebnf uses terminal \"\(extra)\" that the lexer's tables (Keyword, TokenKind.operatorSpellings, FormatSpecifier) do not have")
        }
    }
}
