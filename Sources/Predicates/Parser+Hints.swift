import Foundation

/// Habits from SQL and other languages that the grammar refuses, caught
/// where they happen so that the error points at the mistake and writes
/// the fix that keeps the meaning.
extension Parser {
    /// The source text between two offsets.
    func text(_ lo: Int, _ hi: Int) -> String { Token.slice(source, lo, hi) }

    /// The source text of a range.
    func text(_ range: SourceRange) -> String { text(range.start.offset, range.end.offset) }

    /// `age IN (16, 17)`: a list in parentheses. Called at the `,` after
    /// the first element; throws at the `(` with the list in braces when
    /// its `)` is found.
    func refuseParenthesizedList(openIndex: Int) throws(SyntaxError) {
        guard check(.comma), openIndex < tokens.count else { return }
        let open = tokens[openIndex]
        var nesting = 0
        var index = openIndex + 1
        while index < tokens.count {
            switch tokens[index].kind {
            case .leftParen, .leftBrace, .leftBracket: nesting += 1
            case .rightBrace, .rightBracket: nesting -= 1
            case .rightParen:
                if nesting == 0 {
                    let inner = text(open.range.end.offset, tokens[index].range.start.offset)
                    throw SyntaxError(.parenthesizedList("{" + inner + "}"), at: open.range)
                }
                nesting -= 1
            case .end: return
            default: break
            }
            if nesting < 0 { return }
            index += 1
        }
    }

    /// `age NOT IN {16, 17}`: NOT between the sides. Throws at the NOT,
    /// with the comparison written whole after it when it parses.
    mutating func refuseNotBeforeOperator(start: Token, lhs: Expression) throws(SyntaxError) {
        guard check(keyword: .not) else { return }
        let not = peek()
        let saved = (cursor, depth)
        advance()
        guard let opStart = Optional(peek()), let op = try? parseComparisonOperator() else {
            (cursor, depth) = saved
            return
        }
        var fix: String? = nil
        if (try? parseOptions()) != nil, canStartExpression, let rhs = try? parseExpression() {
            fix = "NOT (" + text(start.range.start.offset, lhs.range.end.offset) + " "
                + text(opStart.range.start.offset, rhs.range.end.offset) + ")"
        }
        throw SyntaxError(.notBeforeOperator(op.rawValue, fix: fix), at: not.range)
    }

    /// What may follow a whole comparison by mistake: `BETWEEN 16 AND 18`
    /// (SQL's BETWEEN) and `== 'weber'cd` (options after the value).
    mutating func refuseAfterComparison(start: Token, lhs: Expression, opToken: Token, op: Comparison.Operator,
                                        rhs: Expression) throws(SyntaxError) {
        let next = peek()
        if next.kind == .identifier, next.range.start.offset == rhs.range.end.offset,
           case .constant(.string) = rhs.kind {
            let letters = name(of: next)
            if !letters.isEmpty, letters.lowercased().allSatisfy({ "cdn".contains($0) }) {
                let fix = text(start.range.start.offset, opToken.range.end.offset) + "[" + letters.lowercased() + "]"
                    + text(opToken.range.end.offset, rhs.range.end.offset)
                throw SyntaxError(.optionsAfterValue(fix), at: next.range)
            }
        }
        guard op == .between, check(keyword: .and), !rhs.couldBePair else { return }
        let saved = (cursor, depth)
        advance()
        if canStartExpression, let high = try? parseExpression(), !startsComparisonOperator {
            let fix = text(start.range.start.offset, opToken.range.end.offset) + " {" + text(rhs.range) + ", "
                + text(high.range) + "}"
            throw SyntaxError(.betweenWithAnd(fix), at: rhs.range.union(high.range))
        }
        (cursor, depth) = saved
    }

    /// `FirstName BEGINSWITH 'Z' OR 'K'`: a value alone after OR or AND,
    /// meant as the same comparison again. Throws at the value.
    func refuseLoneValue(after joiner: Token, previous: Predicate) throws(SyntaxError) {
        let value = peek()
        switch value.kind {
        case .string, .integer, .double: break
        default: return
        }
        switch peek(1).kind {
        case .end, .keyword(.and), .keyword(.or), .rightParen, .semicolon: break
        default: return
        }
        guard case .comparison(let c) = previous.kind, case .constant = c.rhs.kind, c.range != .unknown else { return }
        let fix = text(c.range) + " " + text(joiner.range) + " " + text(c.range.start.offset, c.rhs.range.start.offset)
            + text(value.range)
        throw SyntaxError(.loneValue(text(value.range), after: text(joiner.range).uppercased(), fix: fix), at: value.range)
    }

    /// True when the current token is a comparison operator.
    var startsComparisonOperator: Bool { comparisonOperator(peek().kind) != nil }
}
