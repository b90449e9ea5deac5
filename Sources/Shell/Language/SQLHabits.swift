import Predicates

/// SQL spellings of mrq statements: when a statement does not parse and
/// reads as SQL, the error says how mrq writes it.
///
/// ```
/// mrq> SELECT * FROM Person WHERE age > 18 ORDER BY age DESC
/// error: mrq has no SELECT *: a query starts with the entity; write Person where age > 18 sort age:NO
/// ```
///
/// The statement is rewritten token by token (`SELECT * FROM` dropped,
/// `DELETE FROM` → `delete`, `UPDATE … SET … WHERE …` → `update … where …
/// set …`, `INSERT INTO E (a) VALUES (1)` → `insert E { a: 1 }`, `ORDER BY
/// k DESC` → `sort k:NO`, `IS [NOT] NULL` → `==`/`!= nil`); the hint is
/// given only when the rewritten statement parses.
enum SQLHabits {
    /// The hint for the statement in `tokens` (ending with `.end`), with
    /// the SQL word it points at; nil when it does not read as SQL.
    static func hint(_ tokens: [Token], source: String) -> SyntaxError? {
        var rewriter = Rewriter(tokens: tokens.filter { $0.kind != .end }, source: source)
        guard let (what, at) = rewriter.rewrite() else { return nil }
        let fixed = rewriter.text()
        guard (try? StatementParser.parse(fixed))?.count == 1 else { return nil }
        return SyntaxError(message: ShellDiagnostics.sqlHabit(what, fixed: fixed), range: at.range)
    }

    private struct Rewriter {
        let tokens: [Token]
        let source: String
        /// The statement rewritten: a token of the original by index, or
        /// new text.
        var pieces: [Piece] = []

        enum Piece {
            case original(Int)
            case text(String)
        }

        init(tokens: [Token], source: String) {
            self.tokens = tokens
            self.source = source
        }

        func word(_ i: Int, _ w: String) -> Bool { i < tokens.count && tokens[i].isWord(w, in: source) }
        func kind(_ i: Int, _ k: TokenKind) -> Bool { i < tokens.count && tokens[i].kind == k }

        /// Rewrites the statement; returns what habit it found first and
        /// the token it points at.
        mutating func rewrite() -> (String, Token)? {
            var found: (String, Token)?
            func note(_ what: String, _ i: Int) { if found == nil { found = (what, tokens[i]) } }
            var i = 0
            if word(0, "select"), kind(1, .star), word(2, "from") {
                note("mrq has no SELECT *: a query starts with the entity", 1)
                i = 3
            } else if word(0, "select"), word(1, "count"), kind(2, .leftParen), kind(3, .star), kind(4, .rightParen), word(5, "from") {
                note("mrq counts with 'count Entity'", 1)
                pieces.append(.text("count"))
                i = 6
            } else if word(0, "delete"), word(1, "from"), tokens.count > 2, tokens[2].kind == .identifier,
                      !StatementParser.clauseWords.contains(tokens[2].name(in: source).lowercased()) {
                note("mrq deletes with 'delete Entity where …'", 1)
                pieces.append(.text("delete"))
                i = 2
            } else if word(0, "insert"), word(1, "into"), let insert = insertValues() {
                note("mrq inserts with 'insert Entity { key: value, … }'", 1)
                pieces = insert
                return found
            } else if word(0, "update"), let update = updateWhere() {
                note("in mrq the where comes before set", update.at)
                pieces = update.pieces
                i = update.next
            }
            while i < tokens.count {
                if word(i, "order"), word(i + 1, "by") {
                    note("mrq sorts with 'sort key' and 'sort key:NO'", i)
                    pieces.append(.text("sort"))
                    i += 2
                    var first = true
                    while i < tokens.count {
                        if !first {
                            guard kind(i, .comma) else { break }
                            pieces.append(.original(i))
                            i += 1
                        }
                        first = false
                        // key { "." key }
                        guard kind(i, .identifier) else { break }
                        var path = [i]
                        i += 1
                        while kind(i, .dot), kind(i + 1, .identifier) {
                            path += [i, i + 1]
                            i += 2
                        }
                        let key = path.map { tokens[$0].text(in: source) }.joined()
                        if word(i, "desc") {
                            pieces.append(.text(key + ":NO"))
                            i += 1
                        } else {
                            if word(i, "asc") { i += 1 }
                            pieces.append(.text(key))
                        }
                    }
                    continue
                }
                if word(i, "is"), word(i + 1, "not"), word(i + 2, "null") {
                    note("SQL's IS NOT NULL is != nil", i)
                    pieces += [.text("!="), .text("nil")]
                    i += 3
                    continue
                }
                if word(i, "is"), word(i + 1, "null") {
                    note("SQL's IS NULL is == nil", i)
                    pieces += [.text("=="), .text("nil")]
                    i += 2
                    continue
                }
                if word(i, "where") || word(i, "limit") || word(i, "offset") {
                    pieces.append(.text(tokens[i].text(in: source).lowercased()))
                } else {
                    pieces.append(.original(i))
                }
                i += 1
            }
            return found
        }

        /// `UPDATE E SET a = 1, … WHERE p …` as `update E where p … set a = 1, …`.
        func updateWhere() -> (pieces: [Piece], at: Int, next: Int)? {
            guard let set = tokens.indices.first(where: { word($0, "set") }), set == 2,
                  let whereIndex = tokens.indices.first(where: { $0 > set && word($0, "where") }) else { return nil }
            // The predicate runs to the end (or to a final `direct`).
            var end = tokens.count
            if word(end - 1, "direct") { end -= 1 }
            var pieces: [Piece] = [.original(0), .original(1), .text("where")]
            pieces += (whereIndex + 1..<end).map { .original($0) }
            pieces += (set..<whereIndex).map { .original($0) }
            return (pieces, whereIndex, end)
        }

        /// `INSERT INTO E (a, b) VALUES (1, 2)` as `insert E { a: 1, b: 2 }`.
        func insertValues() -> [Piece]? {
            guard tokens.count > 2, tokens[2].kind == .identifier, kind(3, .leftParen),
                  let closeKeys = tokens.indices.first(where: { $0 > 3 && kind($0, .rightParen) }),
                  word(closeKeys + 1, "values"), kind(closeKeys + 2, .leftParen), kind(tokens.count - 1, .rightParen) else { return nil }
            let keys = Array(4..<closeKeys).filter { !kind($0, .comma) }
            // The values, split at commas outside brackets.
            var values: [[Int]] = [[]]
            var depth = 0
            for i in (closeKeys + 3)..<(tokens.count - 1) {
                switch tokens[i].kind {
                case .leftParen, .leftBrace, .leftBracket: depth += 1
                case .rightParen, .rightBrace, .rightBracket: depth -= 1
                case .comma where depth == 0:
                    values.append([])
                    continue
                default: break
                }
                values[values.count - 1].append(i)
            }
            guard keys.count == values.count, keys.allSatisfy({ tokens[$0].kind == .identifier }) else { return nil }
            var pieces: [Piece] = [.text("insert"), .original(2), .text("{")]
            for (n, key) in keys.enumerated() {
                pieces.append(.text(tokens[key].text(in: source) + ":"))
                pieces += values[n].map { .original($0) }
                if n < keys.count - 1 { pieces.append(.text(",")) }
            }
            pieces.append(.text("}"))
            return pieces
        }

        /// The pieces joined: original neighbours keep the text between
        /// them, anything else is one space apart (none before a comma).
        func text() -> String {
            var out = ""
            var last: Int?
            for piece in pieces {
                switch piece {
                case .original(let i):
                    if let last, last == i - 1 {
                        let utf8 = Array(source.utf8)
                        out += String(decoding: utf8[tokens[last].range.end.offset..<tokens[i].range.start.offset], as: UTF8.self)
                    } else if !out.isEmpty, tokens[i].kind != .comma {
                        out += " "
                    }
                    out += tokens[i].text(in: source)
                    last = i
                case .text(let text):
                    if !out.isEmpty, text != "," { out += " " }
                    out += text
                    last = nil
                }
            }
            return out
        }
    }
}
