import Foundation
import ObjectStore
import Predicates

extension ShellSession {
    /// Candidates for the word at `cursor` (a UTF-8 offset): dot commands at
    /// the start of a line, entity names where a statement or an entity is
    /// expected, key paths after `where`/`sort`/`set`/… and after a `.`,
    /// keywords and operators, and file names after `import … from` and
    /// `.read`.
    public func completions(in line: String, cursor: Int) -> [String] {
        let before = String(decoding: line.utf8.prefix(cursor), as: UTF8.self)
        let wordChars: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "@" || $0 == "#" }
        let word = String(before.reversed().prefix(while: wordChars).reversed())
        let head = String(before.dropLast(word.count))
        let trimmedHead = head.trimmingCharacters(in: .whitespaces)

        // Dot commands.
        if trimmedHead.isEmpty && word.hasPrefix(".") {
            return Self.dotCommands.map { "." + $0.name }.filter { $0.hasPrefix(word) }
        }
        // File names.
        if let pathStart = filePathContext(head) {
            return fileCandidates(String(before.dropFirst(pathStart)))
        }
        let previousWords = trimmedHead.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "(" || $0 == "{" || $0 == "," })
        let previous = previousWords.last.map(String.init)?.lowercased()
        let entities = model.entities.map(\.name).sorted()

        // Statement start: entities and statement words.
        if trimmedHead.isEmpty || trimmedHead.hasSuffix(";") {
            return filter(entities + StatementParser.statementWords, word)
        }
        // After words that take an entity.
        if let previous, ["first", "count", "insert", "update", "delete", "truncate", "import", "of", "from", "explain", "entity"].contains(previous) {
            if previous == "from", trimmedHead.lowercased().hasPrefix("import") { return [] }
            return filter(entities, word)
        }
        // Key paths: find the statement's entity, then walk the typed path.
        if let entity = statementEntity(head) {
            var current = entity
            var prefix = ""
            let parts = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for part in parts.dropLast() {
                guard let relationship = current.relationship(named: part), let destination = relationship.destination else {
                    return []
                }
                prefix += part + "."
                current = destination
            }
            let last = parts.last ?? ""
            if last.hasPrefix("@") {
                return filter(["@count", "@sum", "@avg", "@min", "@max"].map { prefix + $0 }, word)
            }
            var candidates = current.propertyNames.map { prefix + $0 }
            if prefix.isEmpty {
                candidates += Self.predicateWords + StatementParser.clauseWords
            }
            return filter(candidates, word)
        }
        return filter(Self.predicateWords + StatementParser.clauseWords, word)
    }

    static let predicateWords = [
        "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE",
        "MATCHES", "BETWEEN", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "nil", "now()",
    ]

    private func filter(_ candidates: [String], _ word: String) -> [String] {
        var seen: Set<String> = []
        return candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) && seen.insert($0).inserted }
    }

    /// The entity the statement being typed is about.
    private func statementEntity(_ head: String) -> EntityDescription? {
        let words = head.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
        for (i, word) in words.enumerated() {
            if let entity = model.entity(named: word) {
                // `of Person`, `from Person`, `insert Person`, or a statement starting with it.
                if i == 0 || ["first", "count", "insert", "update", "delete", "of", "from", "explain"].contains(words[i - 1].lowercased()) {
                    return entity
                }
            }
        }
        return nil
    }

    /// Where a file name starts, when the cursor is in one.
    private func filePathContext(_ head: String) -> Int? {
        let trimmed = head.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix(".read") || trimmed.lowercased().hasPrefix(".open") || trimmed.lowercased().hasPrefix(".output") || trimmed.lowercased().hasPrefix(".model") {
            if let space = head.lastIndex(of: " ") { return head.utf8.distance(from: head.startIndex, to: space) + 1 }
        }
        if let quote = head.lastIndex(of: "\""), head.lowercased().contains("import"), head.lowercased().contains(" from ") {
            return head.utf8.distance(from: head.startIndex, to: quote) + 1
        }
        return nil
    }

    private func fileCandidates(_ partial: String) -> [String] {
        let directoryPart = (partial as NSString).deletingLastPathComponent
        let namePart = (partial as NSString).lastPathComponent
        let directory = URL(fileURLWithPath: directoryPart.isEmpty ? "." : directoryPart, relativeTo: baseDirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let prefix = partial.hasSuffix("/") ? partial : (directoryPart.isEmpty ? "" : directoryPart + "/")
        let matching = partial.hasSuffix("/") ? names : names.filter { $0.hasPrefix(namePart) }
        return matching.sorted().map { name in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
            return prefix + name + (isDirectory.boolValue ? "/" : "")
        }
    }
}
