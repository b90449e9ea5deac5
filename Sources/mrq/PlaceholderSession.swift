import Shell

/// A stand-in for the statement interpreter, so that the executable, the
/// line editor and their end-to-end tests work before it exists. Replace
/// it in ``makeSession(options:)``.
///
/// It echoes each statement back on its own line; counts brackets and
/// quotes to decide whether text is complete (unfinished text at the end
/// of a script fails with `incomplete input`); and completes from a fixed
/// word list, so that `Pers` completes to `Person`.
final class PlaceholderSession: ShellSessionProtocol {
    var renderOptions = RenderOptions()
    var prompt: String { "mrq> " }

    static let words = [
        "Department", "Person", "count", "delete", "fetch", "insert", "save",
        "sort", "where",
    ]

    func run(_ source: String, fileName: String?, output: ShellOutput) -> Bool {
        guard isComplete(source) else {
            output.writeError("\(fileName.map { $0 + ": " } ?? "")error: incomplete input\n")
            return false
        }
        for statement in Self.statements(in: source) {
            output.write(statement + "\n")
        }
        return true
    }

    func isComplete(_ text: String) -> Bool {
        Self.scan(text).depth == 0
    }

    func completions(in line: String, cursor: Int) -> [String] {
        let before = String(decoding: line.utf8.prefix(cursor), as: UTF8.self)
        let word = before.reversed().prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
        let prefix = String(word.reversed())
        return Self.words.filter { $0.hasPrefix(prefix) }
    }

    /// Splits at `;` and at line ends outside brackets and quotes,
    /// dropping blank statements.
    static func statements(in source: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var state = ScanState()
        for character in source {
            let wasOpen = state.depth > 0
            state.advance(character)
            if !wasOpen, state.depth == 0, character == ";" || character == "\n" {
                statements.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        statements.append(current)
        return statements
            .map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty }
    }

    private static func scan(_ text: String) -> ScanState {
        var state = ScanState()
        for character in text { state.advance(character) }
        return state
    }

    /// Open brackets plus an open quote count as depth.
    private struct ScanState {
        var brackets = 0
        var quote: Character?
        var escaped = false

        var depth: Int { max(brackets, 0) + (quote == nil ? 0 : 1) }

        mutating func advance(_ character: Character) {
            if let open = quote {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == open { quote = nil }
                return
            }
            switch character {
            case "\"", "'": quote = character
            case "(", "[", "{": brackets += 1
            case ")", "]", "}": brackets -= 1
            default: break
            }
        }
    }
}

private extension String {
    func trimmingWhitespace() -> String {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return String(self[start..<end])
    }
}
