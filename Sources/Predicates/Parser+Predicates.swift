import Foundation

extension Parser {
    /// Parses a predicate and stops before the first token that cannot
    /// continue it.
    ///
    /// predicate → orPredicate
    public mutating func parsePredicate() throws(SyntaxError) -> Predicate {
        try parseOrPredicate()
    }

    /// orPredicate → andPredicate { ( "OR" | "||" ) andPredicate }
    mutating func parseOrPredicate() throws(SyntaxError) -> Predicate {
        let first = try parseAndPredicate()
        guard check(keyword: .or) else { return first }
        var operands: [Predicate] = []
        operands.reserveCapacity(4)
        operands.append(first)
        while match(keyword: .or) {
            try refuseLoneValue(after: previous, previous: operands[operands.count - 1])
            operands.append(try parseAndPredicate())
        }
        return Predicate(.or(operands), range: first.range.union(operands[operands.count - 1].range))
    }

    /// andPredicate → notPredicate { ( "AND" | "&&" ) notPredicate }
    mutating func parseAndPredicate() throws(SyntaxError) -> Predicate {
        let first = try parseNotPredicate()
        guard check(keyword: .and) else { return first }
        var operands: [Predicate] = []
        operands.reserveCapacity(4)
        operands.append(first)
        while match(keyword: .and) {
            try refuseLoneValue(after: previous, previous: operands[operands.count - 1])
            operands.append(try parseNotPredicate())
        }
        return Predicate(.and(operands), range: first.range.union(operands[operands.count - 1].range))
    }

    /// notPredicate → ( "NOT" | "!" ) notPredicate | primaryPredicate
    mutating func parseNotPredicate() throws(SyntaxError) -> Predicate {
        guard check(keyword: .not) else { return try parsePrimaryPredicate() }
        let not = advance()
        try enter()
        defer { leave() }
        if !canStartPredicate {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.expectedPredicate(after: describe(not)), at: peek().range)
        }
        let operand = try parseNotPredicate()
        return Predicate(.not(operand), range: range(from: not))
    }

    /// primaryPredicate → "TRUEPREDICATE" | "FALSEPREDICATE" | "(" predicate ")" | comparison
    mutating func parsePrimaryPredicate() throws(SyntaxError) -> Predicate {
        let token = peek()
        switch token.kind {
        case .keyword(.truePredicate):
            advance()
            return Predicate(.constant(true), range: token.range)
        case .keyword(.falsePredicate):
            advance()
            return Predicate(.constant(false), range: token.range)
        case .leftParen:
            // `(` opens either a predicate or an expression such as
            // `(a + b) * 2 > 3`: try the predicate, then fall back.
            let start = cursor
            let savedDepth = depth
            let predicateError: SyntaxError
            do throws(SyntaxError) {
                advance()
                try enter()
                defer { leave() }
                let inner = try parsePredicate()
                _ = try expectClosing(.rightParen, opening: token)
                return Predicate(inner.kind, range: range(from: token))
            } catch {
                if error.kind == .tooDeep { throw error }
                predicateError = error
            }
            cursor = start
            depth = savedDepth
            do throws(SyntaxError) {
                return try parseComparison()
            } catch {
                if error.kind == .tooDeep { throw error }
                // Report whichever reading got further.
                throw error.range.start.offset >= predicateError.range.start.offset ? error : predicateError
            }
        default:
            if !canStartExpression && !isModifier { throw unexpected() }
            return try parseComparison()
        }
    }

    /// comparison → [ modifier ] expression comparisonOperator [ options ] expression
    mutating func parseComparison() throws(SyntaxError) -> Predicate {
        let start = peek()
        let modifier = parseModifier()
        if modifier != .direct, !canStartExpression {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.modifierNeedsComparison(describe(previous).trimmingCharacters(in: ["'"])),
                              at: peek().range)
        }
        let lhs = try parseExpression()
        let lastOfLhs = previous
        guard let op = try parseComparisonOperator() else {
            // `active` or `NOT active`: NSPredicate has no bare key path
            // as a predicate, and people write it for a Boolean.
            if case .keyPath = lhs.kind, modifier == .direct, endsComparison {
                let text = Token.slice(source, lhs.range.start.offset, lhs.range.end.offset)
                throw SyntaxError(.keyPathIsNotAPredicate(text), at: lhs.range)
            }
            try refuseNotBeforeOperator(start: start, lhs: lhs)
            if isAtEnd { throw incompleteInput() }
            var found: String? = nil
            if peek().kind == .identifier {
                found = Suggestions.closest(to: name(of: peek()), in: Parser.operatorWords)
            }
            throw SyntaxError(.expectedOperator(after: describe(lastOfLhs), found: describe(peek()),
                                                suggestion: found), at: peek().range)
        }
        let opToken = previous
        let options = try parseOptions()
        guard canStartExpression else {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.expectedValue(after: describe(opToken)), at: peek().range)
        }
        let rhs = try parseExpression()
        try refuseAfterComparison(start: start, lhs: lhs, opToken: opToken, op: op, rhs: rhs)
        let range = range(from: start)
        return Predicate(.comparison(Comparison(modifier, op, lhs, rhs, options: options, range: range)), range: range)
    }

    /// modifier → "ANY" | "SOME" | "ALL" | "NONE"
    mutating func parseModifier() -> Comparison.Modifier {
        switch peek().kind {
        case .keyword(.any), .keyword(.some): advance(); return .any
        case .keyword(.all): advance(); return .all
        case .keyword(.none): advance(); return .none
        default: return .direct
        }
    }

    /// comparisonOperator → "=" | "==" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>" | "BETWEEN" | "IN" | "CONTAINS" | "BEGINSWITH" | "ENDSWITH" | "LIKE" | "MATCHES" | "UTI-CONFORMS-TO" | "UTI-EQUALS"
    mutating func parseComparisonOperator() throws(SyntaxError) -> Comparison.Operator? {
        guard let op = comparisonOperator(peek().kind) else { return nil }
        advance()
        return op
    }

    /// The comparison operator a token spells, if any.
    func comparisonOperator(_ kind: TokenKind) -> Comparison.Operator? {
        switch kind {
        case .assign, .equal: return .equal
        case .notEqual: return .notEqual
        case .less: return .less
        case .lessEqual: return .lessEqual
        case .greater: return .greater
        case .greaterEqual: return .greaterEqual
        case .keyword(.between): return .between
        case .keyword(.in): return .in
        case .keyword(.contains): return .contains
        case .keyword(.beginsWith): return .beginsWith
        case .keyword(.endsWith): return .endsWith
        case .keyword(.like): return .like
        case .keyword(.matches): return .matches
        case .keyword(.utiConformsTo): return .utiConformsTo
        case .keyword(.utiEquals): return .utiEquals
        default: return nil
        }
    }

    /// options → "[" IDENTIFIER "]"
    mutating func parseOptions() throws(SyntaxError) -> Comparison.Options {
        guard check(.leftBracket) else { return [] }
        let open = advance()
        let letters = advance()
        guard letters.kind == .identifier else {
            if letters.kind == .end { throw incompleteInput() }
            throw SyntaxError(.unknownOption(describe(letters).trimmingCharacters(in: ["'"])),
                              at: letters.range)
        }
        let text = name(of: letters)
        var options: Comparison.Options = []
        for letter in text.utf8 {
            switch letter {
            case UInt8(ascii: "c"), UInt8(ascii: "C"): options.insert(.caseInsensitive)
            case UInt8(ascii: "d"), UInt8(ascii: "D"): options.insert(.diacriticInsensitive)
            case UInt8(ascii: "n"), UInt8(ascii: "N"): options.insert(.normalized)
            default: throw SyntaxError(.unknownOption(text), at: letters.range)
            }
        }
        _ = try expectClosing(.rightBracket, opening: open)
        return options
    }

    static let operatorWords = ["BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
                                "UTI-CONFORMS-TO", "UTI-EQUALS",
                                "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME"]

    /// Whether the current token ends a comparison that has not started:
    /// the end, AND, OR, or what closes or separates.
    var endsComparison: Bool {
        switch peek().kind {
        case .end, .keyword(.and), .keyword(.or), .rightParen, .rightBrace, .rightBracket, .comma, .semicolon: return true
        default: return false
        }
    }

    var isModifier: Bool {
        switch peek().kind {
        case .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.none): return true
        default: return false
        }
    }

    var canStartPredicate: Bool {
        switch peek().kind {
        case .keyword(.truePredicate), .keyword(.falsePredicate), .keyword(.not): return true
        default: return canStartExpression || isModifier
        }
    }
}

extension SyntaxError {
    /// Turns an error at the end of input into "incomplete input".
    func orIncomplete(_ parser: Parser) -> SyntaxError {
        parser.isAtEnd ? parser.incompleteInput() : self
    }
}
