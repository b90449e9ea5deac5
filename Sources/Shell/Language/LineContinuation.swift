import Predicates

/// Where a line break does not end a statement: after a token that
/// cannot end one, the statement goes on on the next line, at the prompt
/// (which shows the continuation prompt), in scripts and in `-c` text.
///
/// ```swift
/// StatementParser.isComplete("count Person where")      // false
/// StatementParser.isComplete("count Person where\nage > 3")  // true
/// ```
///
/// Those tokens are the binary operators (`+`, `==`, `BEGINSWITH`, …),
/// `AND`, `OR`, `NOT`, `ANY`/`ALL`/`NONE`/`SOME`, `.`, `,`, `=` and `:`,
/// and the statement words that must be followed by something (`where`,
/// `sort`, `limit`, `offset`, `set`, `from`, `of`, `group`, `by`,
/// `having`, `with`, `distinct`) where they are words of the statement
/// rather than a value (`x == from`), an escaped key (`#from`) or an
/// entity's name (`count Group`).
enum LineContinuation {
    /// The statement words a statement cannot end with.
    static let clauseWords: Set<String> = [
        "where", "sort", "limit", "offset", "set", "from", "of", "group", "by", "having", "with", "distinct",
    ]

    /// The words after which an entity name comes, so that an entity named
    /// like a statement word (`count Group`) ends the statement.
    private static let entityWords: Set<String> = [
        "first", "count", "insert", "update", "delete", "truncate", "import", "explain", "entity", "from", "of",
    ]

    /// Whether a statement whose last token on its line is `last`, after
    /// `before` (nil at the statement's start), goes on on the next line.
    static func continues(after last: Token, before: Token?, in source: String) -> Bool {
        if needsOperand(last.kind) { return true }
        guard last.kind == .identifier, let before, !needsOperand(before.kind), before.kind != .leftParen,
              before.kind != .leftBrace, before.kind != .leftBracket,
              !last.text(in: source).hasPrefix("#") else { return false }
        let word = last.name(in: source).lowercased()
        guard clauseWords.contains(word) else { return false }
        if word == "of" { return true }
        return before.kind != .identifier || !entityWords.contains(before.name(in: source).lowercased())
    }

    /// Whether the statement around a token of `kind` goes on after it.
    static func needsOperand(_ kind: TokenKind) -> Bool {
        switch kind {
        case .comma, .dot, .colon, .plus, .minus, .star, .slash, .power,
             .assign, .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual:
            return true
        case .keyword(let keyword):
            switch keyword {
            case .and, .or, .not, .any, .some, .all, .none, .in, .contains, .beginsWith, .endsWith, .like, .matches, .between:
                return true
            default:
                return false
            }
        default:
            return false
        }
    }

    /// Whether `tokens` (a statement so far, possibly ending with `.end`)
    /// end where a statement cannot end.
    static func continues(_ tokens: [Token], in source: String) -> Bool {
        let significant = tokens.last?.kind == .end ? tokens.dropLast() : tokens[...]
        guard let last = significant.last else { return false }
        return continues(after: last, before: significant.dropLast().last, in: source)
    }
}
