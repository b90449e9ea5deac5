import Foundation

/// Reads and writes Apple's `.strings` files (`"key" = "value";`), the form
/// of Core Data's model localization dictionary (`PeopleModel.strings`).
enum StringsFile {
    /// Parses a strings file; `file` names it in errors.
    static func parse(_ data: Data, file: String) throws -> [String: String] {
        let text: String
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            text = String(data: data, encoding: .utf16) ?? ""
        } else if let utf8 = String(data: data, encoding: .utf8) {
            text = utf8
        } else {
            throw ModelError("\(file): not UTF-8 or UTF-16 text")
        }
        var scanner = Scanner(Array(text.unicodeScalars), file: file)
        return try scanner.entries()
    }

    /// Writes entries sorted by key, one per line.
    static func write(_ entries: [String: String]) -> String {
        entries.sorted { $0.key < $1.key }
            .map { "\"\(escape($0.key))\" = \"\(escape($0.value))\";\n" }
            .joined()
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    private struct Scanner {
        let chars: [Unicode.Scalar]
        let file: String
        var index = 0
        var line = 1

        init(_ chars: [Unicode.Scalar], file: String) {
            self.chars = chars
            self.file = file
        }

        /// entries → (string ("=" string)? ";")*
        mutating func entries() throws -> [String: String] {
            var result: [String: String] = [:]
            skipTrivia()
            if peek == "\u{FEFF}" { index += 1; skipTrivia() }
            while index < chars.count {
                let key = try string()
                skipTrivia()
                var value = key
                if peek == "=" {
                    index += 1
                    skipTrivia()
                    value = try string()
                    skipTrivia()
                }
                guard peek == ";" else { throw error("expected ';' after \"\(key)\"") }
                index += 1
                result[key] = value
                skipTrivia()
            }
            return result
        }

        private var peek: Unicode.Scalar? { index < chars.count ? chars[index] : nil }

        private func error(_ message: String) -> ModelError {
            ModelError(message).located(file: file, line: line)
        }

        private mutating func skipTrivia() {
            while let c = peek {
                if c == "\n" { line += 1; index += 1 }
                else if c == " " || c == "\t" || c == "\r" { index += 1 }
                else if c == "/" && index + 1 < chars.count && chars[index + 1] == "*" {
                    index += 2
                    while index < chars.count && !(chars[index] == "*" && index + 1 < chars.count && chars[index + 1] == "/") {
                        if chars[index] == "\n" { line += 1 }
                        index += 1
                    }
                    index = min(index + 2, chars.count)
                } else if c == "/" && index + 1 < chars.count && chars[index + 1] == "/" {
                    while let d = peek, d != "\n" { _ = d; index += 1 }
                } else { return }
            }
        }

        private mutating func string() throws -> String {
            guard let first = peek else { throw error("expected a string") }
            var out = String.UnicodeScalarView()
            if first != "\"" {
                // An unquoted word: letters, digits and _ . / - :
                while let c = peek, c.properties.isAlphabetic || ("0"..."9").contains(c) || "_./-:$".unicodeScalars.contains(c) {
                    out.append(c)
                    index += 1
                }
                guard !out.isEmpty else { throw error("unexpected '\(first)'") }
                return String(out)
            }
            index += 1
            while true {
                guard let c = peek else { throw error("unterminated string") }
                index += 1
                if c == "\"" { break }
                if c == "\n" { line += 1 }
                guard c == "\\" else { out.append(c); continue }
                guard let e = peek else { throw error("unterminated string") }
                index += 1
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "U", "u":
                    var code: UInt32 = 0
                    for _ in 0..<4 {
                        guard let h = peek, let digit = UInt32(String(h), radix: 16) else {
                            throw error("bad \\U escape")
                        }
                        code = code * 16 + digit
                        index += 1
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("bad \\U escape") }
                    out.append(scalar)
                default: out.append(e)
                }
            }
            return String(out)
        }
    }
}
