import Foundation
import ObjectStore
import Predicates

extension ShellSession {
    /// Candidates for the word before `cursor` (a UTF-8 offset into
    /// `line`; one inside a character counts from that character's start):
    /// dot commands and their arguments at the start of a line, and in a
    /// statement only what may follow at the cursor (see
    /// `CompletionContext`): entity names where an entity goes, key paths
    /// where a key goes (a relationship as `department.`, with no space
    /// after it; `@count`, `@sum.`… after a to-many), operators after a
    /// key, clause words after a complete part, variables after `$`, and
    /// file names after `import … from` and in the dot commands that take
    /// one, under any directory (`../`, `/`, `~/`). Nothing inside a
    /// string but a file name.
    ///
    /// ```swift
    /// session.completion(in: "Person where ag", cursor: 15).candidates  // ["age"]
    /// ```
    public func completion(in line: String, cursor: Int) -> Completion {
        let bytes = Array(line.utf8)
        var end = min(max(0, cursor), bytes.count)
        while end > 0, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        let next = end < bytes.count ? bytes[end] : nil
        var lineStart = end
        while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        let earlier = String(decoding: bytes[0..<lineStart], as: UTF8.self)
        let current = Array(bytes[lineStart..<end])
        if Self.isDotCommandStart(current), lineStart == 0 || ScriptSplitter.isComplete(earlier) {
            return dotCommandCompletion(current, lineStart: lineStart, next: next)
        }
        return statementCompletion(Array(bytes[0..<end]), next: next)
    }

    /// The candidates alone, for the word before `cursor`.
    public func completions(in line: String, cursor: Int) -> [String] {
        completion(in: line, cursor: cursor).candidates
    }

    static let predicateWords = [
        "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE",
        "MATCHES", "BETWEEN", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "nil", "now()",
    ]

    // MARK: - Dot commands

    private static func isDotCommandStart(_ line: [UInt8]) -> Bool {
        let text = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard text.first == UInt8(ascii: ".") else { return false }
        guard let second = text.dropFirst().first else { return true }
        return (second | 0x20) >= UInt8(ascii: "a") && (second | 0x20) <= UInt8(ascii: "z")
    }

    /// One word of a dot command line as typed so far.
    private struct ShellWord {
        var start: Int
        var text: [UInt8] = []
        /// The quote the word is still inside, and where it opened.
        var openQuote: (quote: UInt8, at: Int)?
        var hasQuotes = false
    }

    /// Splits a dot command line as ``shellWords(_:)`` does, keeping
    /// where each word starts; the last word is the one being typed.
    private static func dotWords(_ line: [UInt8]) -> [ShellWord] {
        var words: [ShellWord] = []
        var current: ShellWord?
        for (offset, byte) in line.enumerated() {
            if var word = current, let open = word.openQuote {
                if byte == open.quote { word.openQuote = nil } else { word.text.append(byte) }
                current = word
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                var word = current ?? ShellWord(start: offset)
                word.openQuote = (byte, offset)
                word.hasQuotes = true
                current = word
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                if let word = current { words.append(word) }
                current = nil
            } else {
                var word = current ?? ShellWord(start: offset)
                word.text.append(byte)
                current = word
            }
        }
        words.append(current ?? ShellWord(start: line.count))
        return words
    }

    private func dotCommandCompletion(_ line: [UInt8], lineStart: Int, next: UInt8?) -> Completion {
        let cursor = lineStart + line.count
        let words = Self.dotWords(line)
        guard let word = words.last else { return .none(at: cursor) }
        let start = lineStart + word.start
        let typed = String(decoding: word.text, as: UTF8.self)
        if words.count == 1 {
            let names = Self.dotCommands.map { "." + $0.name }
            return Completion(range: start..<cursor, candidates: Self.filter(names, typed))
        }
        let command = String(decoding: words[0].text.dropFirst(), as: UTF8.self).lowercased()
        let argument = words.count - 2
        func choose(_ options: [String]) -> Completion {
            word.hasQuotes ? .none(at: cursor) : Completion(range: start..<cursor, candidates: Self.filter(options, typed))
        }
        switch (command, argument) {
        case ("read", 0), ("output", 0), ("model", 0), ("open", 0), ("open", 1), ("save-as", 0):
            return dotFileCompletion(word, lineStart: lineStart, cursor: cursor, next: next)
        case ("save-as", 1): return choose(["sqlite", "coredata", "xml"])
        case ("mode", 0): return choose(OutputMode.allCases.map(\.rawValue))
        case ("binary", 0): return choose(BinaryDisplay.allCases.map(\.rawValue))
        case ("headers", 0), ("timer", 0), ("bail", 0): return choose(["on", "off"])
        case ("merge-policy", 0): return choose(Self.mergePolicies.map(\.name))
        case ("help", 0): return choose(Help.topics)
        case ("schema", 0): return choose(model.entities.map(\.name).sorted())
        default: return .none(at: cursor)
        }
    }

    /// A file name argument of a dot command: quoted when it holds a
    /// space or a quote, as ``shellWords(_:)`` reads it back.
    private func dotFileCompletion(_ word: ShellWord, lineStart: Int, cursor: Int, next: UInt8?) -> Completion {
        if let open = word.openQuote {
            // Only a quote that opens the word: `"my fi`, not `my"fi`.
            guard open.at == word.start else { return .none(at: cursor) }
            let quote = Character(Unicode.Scalar(open.quote))
            let files = fileCandidates(String(decoding: word.text, as: UTF8.self)).filter { !$0.name.contains(quote) }
            let closing = next == open.quote ? "" : String(quote)
            return fileCompletion(files, range: lineStart + word.start + 1..<cursor, closing: closing)
        }
        guard !word.hasQuotes else { return .none(at: cursor) }
        let files = fileCandidates(String(decoding: word.text, as: UTF8.self))
        let quoted = files.map { file -> FileCandidate in
            guard file.name.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" }) else { return file }
            let quote = file.name.contains("\"") ? "'" : "\""
            return FileCandidate(name: quote + file.name + (file.isDirectory ? "" : quote), isDirectory: file.isDirectory)
        }
        return fileCompletion(quoted, range: lineStart + word.start..<cursor, closing: " ")
    }

    private func fileCompletion(_ files: [FileCandidate], range: Range<Int>, closing: String) -> Completion {
        let terminator = files.count == 1 && !files[0].isDirectory ? closing : ""
        return Completion(range: range, candidates: files.map(\.name), terminator: terminator)
    }

    // MARK: - Statements

    /// Where the cursor is in a statement: which statement, and whether
    /// inside a string or a comment.
    private struct StatementPosition {
        /// Where the statement being typed starts.
        var statementStart = 0
        /// The quote of the string the cursor is in, and where it opened.
        var string: (quote: UInt8, at: Int)?
        var inComment = false
    }

    private static func position(in bytes: [UInt8]) -> StatementPosition {
        var position = StatementPosition()
        var depth = 0
        var escaped = false
        for (offset, byte) in bytes.enumerated() {
            // A line break outside brackets ends the statement, unless
            // the line ends where a statement cannot.
            func lineBreak() {
                if depth == 0, ScriptSplitter.isComplete(String(decoding: bytes[position.statementStart..<offset], as: UTF8.self)) {
                    position.statementStart = offset + 1
                }
            }
            if position.inComment {
                if byte == UInt8(ascii: "\n") { position.inComment = false; lineBreak() }
                continue
            }
            if let string = position.string {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == string.quote || byte == UInt8(ascii: "\n") {
                    position.string = nil
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): position.string = (byte, offset)
            case UInt8(ascii: "#"):
                let following = offset + 1 < bytes.count ? bytes[offset + 1] : UInt8(ascii: "\n")
                if following == UInt8(ascii: " ") || following == UInt8(ascii: "\t") || following == UInt8(ascii: "\n") {
                    position.inComment = true
                }
            case UInt8(ascii: "("), UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "}"), UInt8(ascii: "]"): depth = max(0, depth - 1)
            case UInt8(ascii: ";"): if depth == 0 { position.statementStart = offset + 1 }
            case UInt8(ascii: "\n"): lineBreak()
            default: break
            }
        }
        // `#` at the very end starts a comment only once a space follows.
        if position.inComment, bytes.last == UInt8(ascii: "#") { position.inComment = false }
        return position
    }

    private func statementCompletion(_ bytes: [UInt8], next: UInt8?) -> Completion {
        let cursor = bytes.count
        let position = Self.position(in: bytes)
        if position.inComment { return .none(at: cursor) }
        let statementStart = min(position.statementStart, cursor)
        if let string = position.string {
            return stringCompletion(bytes, statementStart: statementStart, string: string, next: next)
        }
        // The word before the cursor, by Unicode scalars.
        let text = String(decoding: bytes[statementStart..<cursor], as: UTF8.self)
        let scalars = Array(text.unicodeScalars)
        var wordStartIndex = scalars.count
        while wordStartIndex > 0, Self.isWordScalar(scalars[wordStartIndex - 1]) { wordStartIndex -= 1 }
        let word = String(String.UnicodeScalarView(scalars[wordStartIndex...]))
        let head = String(String.UnicodeScalarView(scalars[..<wordStartIndex]))
        let start = cursor - word.utf8.count
        // Variables: `$` and the name.
        if head.unicodeScalars.last == "$" {
            let names = variables.keys.sorted().map { "$" + $0 }
            return Completion(range: start - 1..<cursor, candidates: Self.filter(names, "$" + word))
        }
        // A file name not in quotes yet (`import Person from Sam`): the
        // word runs back to the space, and gets its opening quote.
        var pathStart = scalars.count
        while pathStart > 0, !scalars[pathStart - 1].properties.isWhitespace { pathStart -= 1 }
        let pathHead = String(String.UnicodeScalarView(scalars[..<pathStart]))
        if CompletionContext(model: model, head: pathHead)?.expected.fileName == true {
            let typed = String(String.UnicodeScalarView(scalars[pathStart...]))
            let files = fileCandidates(typed).map { FileCandidate(name: "\"" + Self.escape($0.name, quote: "\""), isDirectory: $0.isDirectory) }
            return fileCompletion(files, range: cursor - typed.utf8.count..<cursor, closing: "\"")
        }
        let candidates = wordCandidates(word: word, head: head)
        // A key path that goes on (`department.`) takes no space after it.
        let goesOn = candidates.count == 1 && candidates[0].hasSuffix(".")
        return Completion(range: start..<cursor, candidates: candidates, terminator: goesOn ? "" : " ")
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar == "." || scalar == "@" || scalar == "#"
            || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    private func wordCandidates(word: String, head: String) -> [String] {
        let trimmedHead = head.trimmingCharacters(in: .whitespacesAndNewlines)
        let entities = model.entities.map(\.name).sorted()
        let previousWords = trimmedHead.split(whereSeparator: { $0.isWhitespace || $0 == "(" || $0 == "{" || $0 == "," })
        let previous = previousWords.last.map(String.init)?.lowercased()
        // `fetch Template with variable = …, …`
        if previousWords.first?.lowercased() == "fetch" || (previousWords.first?.lowercased() == "explain" && previousWords.dropFirst().first?.lowercased() == "fetch") {
            let words = previousWords.drop { $0.lowercased() == "explain" }.map(String.init)
            if words.count == 1 { return Self.filter(model.fetchRequestTemplatesByName.keys.sorted(), word) }
            if words.count == 2 { return Self.filter(["with"], word) }
            if previous == "with" || trimmedHead.hasSuffix(",") {
                return Self.filter(model.substitutionVariables(ofTemplate: words[1]), word)
            }
            return Self.filter(Self.predicateWords, word)
        }
        guard let context = CompletionContext(model: model, head: head) else { return [] }
        let expected = context.expected
        var candidates: [String] = []
        if expected.keys {
            let roots = expected.keysOf.map { [$0] } ?? model.entities
            for root in roots { candidates += Self.keyPaths(word, from: root, continuing: expected.continuingKeys) }
        }
        if expected.entities { candidates += entities }
        if expected.statementWords { candidates += StatementParser.statementWords }
        return Self.filter(candidates + expected.words, word)
    }

    /// The key paths from `root` that start like `word` (a key path as
    /// typed so far): through relationships, to-one or to-many, then the
    /// destination's properties; after a to-many also `@count` and the
    /// other collection operators (`people.@sum.`), the latter followed
    /// by the destination's attributes. With `continuing`, relationships
    /// end in `.`, as the path goes on through them.
    static func keyPaths(_ word: String, from root: EntityDescription, continuing: Bool) -> [String] {
        var parts = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var last = parts.removeLast()
        var current = root
        var prefix = ""
        var toMany = false
        var afterOperator = false
        for (i, part) in parts.enumerated() {
            if !afterOperator, let relationship = current.relationship(named: part), let destination = relationship.destination {
                current = destination
                toMany = relationship.isToMany
            } else if toMany, part.hasPrefix("@"), let op = CollectionOperator(name: String(part.dropFirst())), op != .count {
                afterOperator = true
                toMany = false
            } else {
                // An element of a composite attribute (`size.width`) is
                // an attribute named with its dot: match the rest whole.
                last = (parts[i...] + [last]).joined(separator: ".")
                break
            }
            prefix += part + "."
        }
        var names = current.attributes.map(\.name)
        if !afterOperator {
            names += current.relationships.map { $0.name + (continuing ? "." : "") }
            if toMany {
                names += CollectionOperator.allCases.map { $0 == .count ? $0.format : $0.format + "." }
            }
        }
        let lowered = last.lowercased()
        return names.filter { $0.lowercased().hasPrefix(lowered) }.map { prefix + $0 }
    }

    /// Inside a string: a file name after `import Entity from`, else
    /// nothing.
    private func stringCompletion(_ bytes: [UInt8], statementStart: Int, string: (quote: UInt8, at: Int), next: UInt8?) -> Completion {
        let cursor = bytes.count
        let before = String(decoding: bytes[statementStart..<min(max(statementStart, string.at), cursor)], as: UTF8.self)
        let words = before.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        guard words.count == 3, words[0] == "import", words[2] == "from" else { return .none(at: cursor) }
        let quote = Character(Unicode.Scalar(string.quote))
        let typed = Self.unescape(String(decoding: bytes[(string.at + 1)...], as: UTF8.self))
        let files = fileCandidates(typed).map { FileCandidate(name: Self.escape($0.name, quote: quote), isDirectory: $0.isDirectory) }
        return fileCompletion(files, range: string.at + 1..<cursor, closing: next == string.quote ? "" : String(quote))
    }

    /// A string literal's text with its `\\` and `\"` escapes undone, as
    /// far as typed.
    private static func unescape(_ text: String) -> String {
        var out = ""
        var escaped = false
        for character in text {
            if escaped { out.append(character); escaped = false } else if character == "\\" { escaped = true } else { out.append(character) }
        }
        return out
    }

    private static func escape(_ text: String, quote: Character) -> String {
        var out = ""
        for character in text {
            if character == "\\" || character == quote { out.append("\\") }
            out.append(character)
        }
        return out
    }

    static func filter(_ candidates: [String], _ word: String) -> [String] {
        var seen: Set<String> = []
        let lowered = word.lowercased()
        return candidates.filter { $0.lowercased().hasPrefix(lowered) && seen.insert($0).inserted }
    }

    // MARK: - Files

    struct FileCandidate {
        var name: String
        var isDirectory: Bool
    }

    /// The files and directories whose path starts with `partial` (as
    /// typed: relative to the script's folder, `~` for the home
    /// directory), as `partial`'s folder part plus the name, directories
    /// ending in `/`. Hidden files only when their `.` is typed.
    func fileCandidates(_ partial: String) -> [FileCandidate] {
        if partial == "~" { return [FileCandidate(name: "~/", isDirectory: true)] }
        let (directoryPart, namePart) = ShellFiles.splitDirectory(partial)
        let directory = ShellFiles.resolve(directoryPart.isEmpty ? "." : directoryPart, relativeTo: baseDirectory)
        guard ShellFiles.kind(of: directory) == .directory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let showHidden = namePart.hasPrefix(".")
        return names.filter { $0.hasPrefix(namePart) && (showHidden || !$0.hasPrefix(".")) && !$0.contains("\n") }
            .sorted()
            .map { name in
                let isDirectory = ShellFiles.kind(of: directory + "/" + name) == .directory
                return FileCandidate(name: directoryPart + name + (isDirectory ? "/" : ""), isDirectory: isDirectory)
            }
    }
}
