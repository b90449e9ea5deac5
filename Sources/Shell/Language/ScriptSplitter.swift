import Foundation
import Predicates

/// Cuts a script into what runs, in order: dot commands (whole lines
/// starting with `.`) and statements (token groups), keeping every range
/// relative to the whole text so errors point at the right line.
enum ScriptSplitter {
    enum Item {
        case dotCommand(String, SourceRange)
        case statements([Token])
        case lexError(SyntaxError)

        /// Where the item is in the script.
        var range: SourceRange {
            switch self {
            case .dotCommand(_, let range): return range
            case .statements(let tokens):
                guard let first = tokens.first, let last = tokens.last(where: { $0.kind != .end }) else { return .unknown }
                return first.range.union(last.range)
            case .lexError(let error): return error.range
            }
        }
    }

    static func isDotLine(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.first == ".", let next = trimmed.dropFirst().first else { return false }
        return next.isLetter
    }

    /// Whether `text` is complete: its last dot command or statement is
    /// not waiting for a closing bracket or quote.
    static func isComplete(_ text: String) -> Bool {
        var pending = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if pending.isEmpty && isDotLine(line) { continue }
            pending += line + "\n"
            if StatementParser.isComplete(pending) { pending = "" }
        }
        return pending.isEmpty || StatementParser.isComplete(pending)
    }

    static func split(_ source: String) -> [Item] {
        var bytes = Array(source.utf8)
        var dots: [(offset: Int, item: Item)] = []
        var pending = ""
        var offset = 0
        var lineNumber = 1
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let length = line.utf8.count
            if pending.isEmpty && isDotLine(line) {
                let start = SourceLocation(line: lineNumber, column: 1, offset: offset)
                let end = SourceLocation(line: lineNumber, column: line.unicodeScalars.count + 1, offset: offset + length)
                dots.append((offset, .dotCommand(String(line), SourceRange(start: start, end: end))))
                for i in offset..<(offset + length) { bytes[i] = UInt8(ascii: " ") }
            } else {
                pending += line + "\n"
                if StatementParser.isComplete(pending) { pending = "" }
            }
            offset += length + 1
            lineNumber += 1
        }
        let masked = String(decoding: bytes, as: UTF8.self)
        var items: [(offset: Int, item: Item)] = dots
        do {
            let tokens = try Lexer.tokenize(masked, options: .shellComments)
            for group in StatementParser.split(tokens, source: masked) {
                items.append((group[0].range.start.offset, .statements(group)))
            }
        } catch {
            // Run what comes before the broken line, then report it.
            var lineStart = min(max(0, error.range.start.offset), bytes.count)
            while lineStart > 0 && bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
            let prefix = String(decoding: bytes[0..<max(0, min(lineStart, bytes.count))], as: UTF8.self)
            if let tokens = try? Lexer.tokenize(prefix, options: .shellComments) {
                for group in StatementParser.split(tokens, source: masked) {
                    items.append((group[0].range.start.offset, .statements(group)))
                }
            }
            items = items.filter { $0.offset < error.range.start.offset }
            items.append((error.range.start.offset, .lexError(error)))
        }
        return items.sorted { $0.offset < $1.offset }.map(\.item)
    }
}
