import Foundation

/// A recursive-descent parser over a token array, with a public cursor so
/// another parser (the shell's) can parse a predicate in the middle of a
/// statement and carry on after it.
///
/// ```swift
/// var parser = try Parser(source: "age > 18 sort name limit 10")
/// let predicate = try parser.parsePredicate()   // stops before `sort`
/// parser.check(word: "sort")                    // true
/// ```
///
/// Parsing stops without consuming the first token that cannot continue
/// what is being parsed (`sort`, `,`, `}`, `;`, end of input). Format
/// placeholders (`%@`, `%K`) stay in the tree as `.placeholder`; call
/// ``Predicate/substituting(arguments:)`` to fill them in.
public struct Parser {
    /// The tokens being parsed, ending with an `.end` token.
    public let tokens: [Token]
    /// The text the tokens were cut from; names and strings are read here.
    public let source: String
    /// The index of the next token to read.
    public var cursor: Int
    /// Nesting of parentheses, braces, NOT and unary minus.
    var depth = 0
    /// How many format placeholders (`%@`, `%K`…) were parsed, so that
    /// parsing without arguments can skip the substitution walk.
    var placeholderCount = 0
    /// SUBQUERYs parsed so far, by starting token and depth (see
    /// `parseSubquery`).
    var subqueries: [Int: (result: Result<Expression, SyntaxError>, end: Int)] = .init()
    /// How many times a SUBQUERY was parsed rather than found there.
    var subqueriesParsed = 0

    /// How deeply predicates, expressions and statements may nest: each
    /// parenthesis, operator link, subscript, function or statement level
    /// counts one (a SUBQUERY four). Chosen so that every walk of the
    /// deepest tree (parser, printer, evaluator, substitution, key check)
    /// fits in 3 MiB of stack in a debug build, measured; every thread of
    /// a Linux process has 8 MiB.
    public static let maximumDepth = 128

    /// A parser over `tokens`, lexed from `source`; they should end with
    /// an `.end` token (one is added when missing).
    public init(tokens: [Token], source: String) {
        var tokens = tokens
        if tokens.last?.kind != .end {
            let end = tokens.last?.range.end ?? .start
            tokens.append(Token(kind: .end, range: SourceRange(at: end)))
        }
        self.tokens = tokens
        self.source = source
        self.cursor = 0
    }

    /// Lexes `source` and makes a parser over its tokens.
    public init(source: String, options: Lexer.Options = []) throws(SyntaxError) {
        self.init(tokens: try Lexer.tokenize(source, options: options), source: source)
    }

    // MARK: Cursor

    /// The token `offset` places ahead; the `.end` token past the end.
    @inline(__always)
    public func peek(_ offset: Int = 0) -> Token {
        let index = cursor + offset
        return index < tokens.count ? tokens[index] : tokens[tokens.count - 1]
    }

    /// The token just consumed (the first token when nothing was).
    public var previous: Token { tokens[max(0, min(cursor, tokens.count) - 1)] }

    /// True at the `.end` token.
    public var isAtEnd: Bool { peek().kind == .end }

    /// Consumes and returns the current token; stays put at the end.
    @discardableResult
    public mutating func advance() -> Token {
        let token = peek()
        if cursor < tokens.count - 1 { cursor += 1 }
        return token
    }

    /// True when the current token is of `kind`, payload included.
    public func check(_ kind: TokenKind) -> Bool { peek().kind == kind }

    /// True when the current token is `keyword`.
    public func check(keyword: Keyword) -> Bool { peek().kind == .keyword(keyword) }

    /// True when the current token is the identifier or keyword `word`, in
    /// any case.
    public func check(word: String) -> Bool { peek().isWord(word, in: source) }

    /// True when the token `offset` places ahead is the identifier or
    /// keyword `word`, in any case.
    public func check(word: String, at offset: Int) -> Bool { peek(offset).isWord(word, in: source) }

    // MARK: Token text

    /// The name of an identifier, variable or collection operator token,
    /// without its `#`, `$` or `@`.
    public func name(of token: Token) -> String { token.name(in: source) }

    /// The value of a string token.
    public func stringValue(of token: Token) -> String { token.stringValue(in: source) }

    /// How diagnostics spell `token`: `'age'`, `'AND'`, `end of input`.
    public func describe(_ token: Token) -> String { token.description(in: source) }

    /// Consumes the current token when it is of `kind`.
    public mutating func match(_ kind: TokenKind) -> Bool {
        guard check(kind) else { return false }
        advance()
        return true
    }

    /// Consumes the current token when it is `keyword`.
    public mutating func match(keyword: Keyword) -> Bool { match(.keyword(keyword)) }

    /// Consumes a token of `kind` or throws "expected 'x' after 'y'".
    public mutating func expect(_ kind: TokenKind, after what: Token? = nil) throws(SyntaxError) -> Token {
        guard check(kind) else {
            if isAtEnd { throw incompleteInput() }
            let after = what ?? previous
            throw SyntaxError(.expected(kind.description, after: describe(after)), at: peek().range)
        }
        return advance()
    }

    /// Consumes a closing token, or throws "expected ')' to close '(' at 1:7".
    mutating func expectClosing(_ kind: TokenKind, opening: Token) throws(SyntaxError) -> Token {
        guard check(kind) else {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.expectedClosing(TokenKind.spelling(of: kind) ?? "?",
                                               opening: TokenKind.spelling(of: opening.kind) ?? "?",
                                               at: opening.range.start), at: peek().range)
        }
        return advance()
    }

    /// Throws unless the whole input has been consumed.
    public mutating func expectEnd() throws(SyntaxError) {
        guard isAtEnd else { throw SyntaxError(.unexpected(describe(peek())), at: peek().range) }
    }

    /// "unexpected 'x'" at the current token, or "incomplete input".
    public func unexpected() -> SyntaxError {
        if isAtEnd { return incompleteInput() }
        if case .keyword(let keyword) = peek().kind, keyword.isReservedOnly {
            return SyntaxError(.reservedWord(keyword.rawValue), at: peek().range)
        }
        return SyntaxError(.unexpected(describe(peek())), at: peek().range)
    }

    func incompleteInput() -> SyntaxError {
        SyntaxError(.incompleteInput, at: peek().range)
    }

    /// Skips to just after the next `;`, or to the first token on a later
    /// line, so the shell can report one error per statement and go on.
    ///
    /// recovery → { ANY_TOKEN } ( ";" | NEWLINE | END )
    public mutating func synchronize() {
        let line = peek().range.start.line
        while !isAtEnd {
            if match(.semicolon) { return }
            if peek().range.start.line > line { return }
            advance()
        }
    }

    /// Goes one level deeper, refusing past `maximumDepth` (leaving the
    /// depth as it was, so that a parser recovering after the error starts
    /// the next statement at the right level). Grammars built on this
    /// parser (the shell's statements) nest through it too, so that one
    /// bound and one error ("nested too deeply") cover everything a line
    /// can nest.
    public mutating func enter() throws(SyntaxError) {
        try enter(levels: 1)
    }

    /// Goes `levels` deeper at once: a SUBQUERY holds a whole predicate,
    /// and every walk descends the full grammar to reach it, so it counts
    /// as `subqueryLevels` (measured: its parse takes about four times the
    /// stack of a parenthesis).
    mutating func enter(levels: Int) throws(SyntaxError) {
        if depth + levels > Parser.maximumDepth {
            throw SyntaxError(.tooDeep, at: peek().range)
        }
        depth += levels
    }

    /// The levels one SUBQUERY counts for.
    static let subqueryLevels = 4

    /// Counts one more link of a left-deep chain (`a + b + …`, `a[0][1]…`,
    /// `a.@count.@count`) as a level of nesting: the tree it builds is that
    /// deep, and everything that walks it later (printer, evaluator, SQL)
    /// relies on the parser's bound. The caller gives the levels back with
    /// `depth -= links` when the chain ends.
    mutating func enterLink(_ links: inout Int) throws(SyntaxError) {
        try enter()
        links += 1
    }

    /// Comes back up one level after `enter()`.
    public mutating func leave() { depth -= 1 }

    func range(from start: Token) -> SourceRange {
        SourceRange(start: start.range.start, end: previous.range.end)
    }

    func range(from start: SourceRange) -> SourceRange {
        SourceRange(start: start.start, end: max(start.end, previous.range.end))
    }
}

extension Predicate {
    /// Parses a whole predicate; placeholders take `args` in order.
    ///
    /// ```swift
    /// let p = try Predicate(format: "age > %d AND name == %@", 18, "x")
    /// ```
    public init(format: String, _ args: FormatArgument...) throws(SyntaxError) {
        try self.init(format: format, arguments: args)
    }

    /// Parses `format`, its placeholders filled with Swift values in order
    /// (see ``PredicateArgument``): `Predicate(format: "age > %d", minAge)`.
    @_disfavoredOverload
    public init(format: String, _ args: any PredicateArgument...) throws(SyntaxError) {
        try self.init(format: format, arguments: args.map(\.formatArgument))
    }

    /// Parses a whole predicate; placeholders take `arguments` in order.
    public init(format: String, arguments: [FormatArgument]) throws(SyntaxError) {
        var parser = try Parser(source: format)
        let parsed = try parser.parsePredicate()
        try parser.expectEnd()
        // Without placeholders or arguments, substitution is the identity.
        self = parser.placeholderCount == 0 && arguments.isEmpty ? parsed : try parsed.substituting(arguments: arguments)
    }
}

extension Expression {
    /// Parses a whole expression; placeholders take `args` in order.
    ///
    /// ```swift
    /// let e = try Expression(format: "sum:(%@)", .array([1, 2, 3]))
    /// ```
    public init(format: String, _ args: FormatArgument...) throws(SyntaxError) {
        try self.init(format: format, arguments: args)
    }

    /// Parses `format`, its placeholders filled with Swift values in order
    /// (see ``PredicateArgument``): `Expression(format: "age + %d", years)`.
    @_disfavoredOverload
    public init(format: String, _ args: any PredicateArgument...) throws(SyntaxError) {
        try self.init(format: format, arguments: args.map(\.formatArgument))
    }

    /// Parses a whole expression; placeholders take `arguments` in order.
    public init(format: String, arguments: [FormatArgument]) throws(SyntaxError) {
        var parser = try Parser(source: format)
        let parsed = try parser.parseExpression()
        try parser.expectEnd()
        self = parser.placeholderCount == 0 && arguments.isEmpty ? parsed : try parsed.substituting(arguments: arguments)
    }
}
