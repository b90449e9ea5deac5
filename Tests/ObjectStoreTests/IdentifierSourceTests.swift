import Foundation
import Testing

/// Reads the SQL the stores write, as text in their sources, and fails
/// when a statement takes a name any way but through `SQLIdentifier`:
/// the dynamic tests (`HostileNameTests`) try the paths they know; this
/// one sees the paths written since.
///
/// In every string literal of `Sources/ObjectStore` and
/// `Sources/ObjectStorePostgres` that holds SQL (an upper-case keyword),
/// an interpolation must not
/// - read a name unquoted (`.unquoted`),
/// - read a model's name, which is text, not an identifier
///   (`entity.name`, `attribute.name`, `relationship.name`, `.rootEntity`,
///   `.property`, `.destinationName`, …),
/// and no literal may quote by hand (`"\"\(…)\""`), nor may any file
/// but `SQLIdentifier.swift` double quotes itself. The few places that
/// write such text but never run it are listed in `allowed`, with why.
@Suite struct IdentifierSourceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `file: function` → why its SQL-looking text may do so.
    static let allowed: [String: String] = [
        "SchemaBuilder.swift: fingerprint": "the DDL as the first stores wrote it, hashed for the fingerprint, never run",
    ]

    static var keyword: Regex<AnyRegexOutput> { try! Regex(#"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|FROM|WHERE|JOIN|SET|INTO|VALUES|INDEX|TABLE|ORDER BY|GROUP BY|PRAGMA|ATTACH|LISTEN|RETURNING|EXISTS|RENAME|ON CONFLICT)\b"#) }

    /// Model names: text a file chose, never an identifier by itself.
    static var modelName: Regex<AnyRegexOutput> { try! Regex(
        #"(\b(entity|attribute|relationship|property|inverse|destination|owner|root|fetched|index|element|composite|declared|e|a|r|p)\.name|\.(rootEntity|property|destinationName|inverseName|parentName|entityName|versionName))\s*$"#) }

    struct Finding: CustomStringConvertible {
        var file: String
        var line: Int
        var text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    @Test func noStatementWritesANameUnquoted() throws {
        var findings: [Finding] = []
        var literalsSeen = 0
        for file in try Self.sources() {
            let source = try String(contentsOf: file, encoding: .utf8)
            let name = file.lastPathComponent
            for literal in Self.literals(in: source) where literal.text.contains(Self.keyword) {
                literalsSeen += 1
                let function = Self.enclosingFunction(in: source, at: literal.offset)
                guard Self.allowed["\(name): \(function)"] == nil else { continue }
                if literal.text.contains("\\\"\\(") {
                    findings.append(Finding(file: name, line: literal.line, text: "quotes by hand: \(literal.text)"))
                }
                for expression in Self.interpolations(in: literal.text) {
                    if expression.contains(".unquoted") || expression.contains(Self.modelName) {
                        findings.append(Finding(file: name, line: literal.line, text: "\\(\(expression)) in \(literal.text)"))
                    }
                }
            }
            if name != "SQLIdentifier.swift", source.contains(#"with: "\"\"""#) {
                findings.append(Finding(file: name, line: 0, text: "doubles quotes itself: quote through SQLIdentifier"))
            }
        }
        #expect(literalsSeen > 150, "the scan finds the SQL (\(literalsSeen) literals)")
        #expect(findings.isEmpty, "SQL that takes a name unquoted:\n\(findings.map(\.description).joined(separator: "\n"))")
    }

    /// The scan finds what it is meant to: each of these would be a
    /// finding in a source file.
    @Test(arguments: [
        #"try db.execute("DROP TABLE \(name.unquoted)")"#,
        #"let sql = "SELECT * FROM \(entity.name) WHERE x = 1""#,
        #"let sql = "UPDATE t SET \(attribute.name) = ?""#,
        #"let sql = "SELECT \(column.property) FROM t""#,
        #"let sql = "CREATE INDEX \"\(index)\" ON t (x)""#,
    ])
    func theScanCatchesUnquotedNames(line: String) throws {
        let literal = try #require(Self.literals(in: line).first)
        let caught = literal.text.contains("\\\"\\(")
            || Self.interpolations(in: literal.text).contains { $0.contains(".unquoted") || $0.contains(Self.modelName) }
        #expect(caught)
    }

    static func sources() throws -> [URL] {
        var files: [URL] = []
        for folder in ["Sources/ObjectStore", "Sources/ObjectStorePostgres"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if url.pathExtension == "swift" { files.append(url) }
            }
        }
        #expect(files.count > 50)
        return files
    }

    struct Literal {
        var text: String
        var line: Int
        var offset: Int
    }

    /// The string literals of Swift source (single-line and `"""`), with
    /// what their interpolations hold; comments skipped.
    static func literals(in source: String) -> [Literal] {
        let s = Array(source.utf8)
        var result: [Literal] = []
        var i = 0, line = 1
        func starts(_ text: String, at j: Int) -> Bool {
            let t = Array(text.utf8)
            return j + t.count <= s.count && Array(s[j..<j + t.count]) == t
        }
        while i < s.count {
            if s[i] == UInt8(ascii: "\n") { line += 1; i += 1; continue }
            if starts("//", at: i) {
                while i < s.count && s[i] != UInt8(ascii: "\n") { i += 1 }
                continue
            }
            guard s[i] == UInt8(ascii: "\"") else { i += 1; continue }
            let multi = starts("\"\"\"", at: i)
            let start = i + (multi ? 3 : 1), startLine = line
            var j = start, depth = 0
            while j < s.count {
                if s[j] == UInt8(ascii: "\n") {
                    line += 1
                    if !multi && depth == 0 { break }
                }
                if depth == 0 && s[j] == UInt8(ascii: "\\") {
                    if j + 1 < s.count && s[j + 1] == UInt8(ascii: "(") { depth = 1; j += 2; continue }
                    j += 2
                    continue
                }
                if depth > 0 {
                    if s[j] == UInt8(ascii: "(") { depth += 1 }
                    if s[j] == UInt8(ascii: ")") { depth -= 1 }
                    if s[j] == UInt8(ascii: "\"") {
                        // A string inside an interpolation: skipped whole.
                        j += 1
                        while j < s.count && s[j] != UInt8(ascii: "\"") { j += s[j] == UInt8(ascii: "\\") ? 2 : 1 }
                    }
                    j += 1
                    continue
                }
                if multi ? starts("\"\"\"", at: j) : s[j] == UInt8(ascii: "\"") { break }
                j += 1
            }
            let end = min(j, s.count)
            result.append(Literal(text: String(decoding: s[start..<end], as: UTF8.self), line: startLine, offset: i))
            i = end + (multi ? 3 : 1)
        }
        return result
    }

    /// The expressions interpolated in a literal's text.
    static func interpolations(in text: String) -> [String] {
        let s = Array(text.utf8)
        var result: [String] = []
        var i = 0
        while i + 1 < s.count {
            guard s[i] == UInt8(ascii: "\\"), s[i + 1] == UInt8(ascii: "(") else { i += 1; continue }
            var j = i + 2, depth = 1
            while j < s.count && depth > 0 {
                if s[j] == UInt8(ascii: "(") { depth += 1 }
                if s[j] == UInt8(ascii: ")") { depth -= 1 }
                j += 1
            }
            result.append(String(decoding: s[(i + 2)..<max(i + 2, j - 1)], as: UTF8.self))
            i = j
        }
        return result
    }

    /// The name of the last `func` declared before `offset`.
    static func enclosingFunction(in source: String, at offset: Int) -> String {
        let before = String(decoding: Array(source.utf8)[..<offset], as: UTF8.self)
        guard let range = before.range(of: "func ", options: .backwards) else { return "" }
        return String(before[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }
}
