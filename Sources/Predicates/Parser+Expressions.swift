import Foundation

extension Parser {
    /// Parses an expression and stops before the first token that cannot
    /// continue it (a comparison operator, `,`, `}`, `sort`…).
    ///
    /// expression → additive
    public mutating func parseExpression() throws(SyntaxError) -> Expression {
        if let leaf = parseLeaf() { return leaf }
        return try parseAdditive()
    }

    /// A key or a literal standing alone, as most sides of a comparison
    /// are (`age`, `18`, `"Ada"`): the tree the rules below would build for
    /// it, read at once instead of going down through each of them. Nil,
    /// having consumed nothing, when the token after it could continue an
    /// expression (`.` `[` `(` `:` or an arithmetic operator).
    mutating func parseLeaf() -> Expression? {
        switch peek(1).kind {
        case .dot, .leftBracket, .leftParen, .colon, .plus, .minus, .star, .slash, .power: return nil
        default: break
        }
        let token = peek()
        let kind: Expression.Kind
        switch token.kind {
        case .identifier: kind = .keyPath([name(of: token)])
        case .integer: kind = .constant(.int(token.integerValue))
        case .double: kind = .constant(.double(token.doubleValue))
        case .string: kind = .constant(.string(stringValue(of: token)))
        case .keyword(.true), .keyword(.yes): kind = .constant(.bool(true))
        case .keyword(.false), .keyword(.no): kind = .constant(.bool(false))
        case .keyword(.null), .keyword(.nil): kind = .constant(.null)
        default: return nil
        }
        advance()
        return Expression(kind, range: token.range)
    }

    /// additive → multiplicative { ( "+" | "-" ) multiplicative }
    mutating func parseAdditive() throws(SyntaxError) -> Expression {
        var lhs = try parseMultiplicative()
        var links = 0
        defer { depth -= links }
        while true {
            let op: ArithmeticOperator
            switch peek().kind {
            case .plus: op = .add
            case .minus: op = .subtract
            default: return lhs
            }
            let opToken = advance()
            try enterLink(&links)
            let rhs = try parseOperand(after: opToken) { p throws(SyntaxError) in try p.parseMultiplicative() }
            lhs = Expression(.binary(op, lhs, rhs), range: lhs.range.union(rhs.range))
        }
    }

    /// multiplicative → power { ( "*" | "/" ) power }
    mutating func parseMultiplicative() throws(SyntaxError) -> Expression {
        var lhs = try parsePower()
        var links = 0
        defer { depth -= links }
        while true {
            let op: ArithmeticOperator
            switch peek().kind {
            case .star: op = .multiply
            case .slash: op = .divide
            default: return lhs
            }
            let opToken = advance()
            try enterLink(&links)
            let rhs = try parseOperand(after: opToken) { p throws(SyntaxError) in try p.parsePower() }
            lhs = Expression(.binary(op, lhs, rhs), range: lhs.range.union(rhs.range))
        }
    }

    /// power → unary [ "**" power ]
    mutating func parsePower() throws(SyntaxError) -> Expression {
        let lhs = try parseUnary()
        guard check(.power) else { return lhs }
        let opToken = advance()
        try enter()
        defer { leave() }
        let rhs = try parseOperand(after: opToken) { p throws(SyntaxError) in try p.parsePower() }
        return Expression(.binary(.power, lhs, rhs), range: lhs.range.union(rhs.range))
    }

    /// unary → "-" unary | postfix
    mutating func parseUnary() throws(SyntaxError) -> Expression {
        guard check(.minus) else { return try parsePostfix() }
        let minus = advance()
        try enter()
        defer { leave() }
        let literal = peek()
        let operand = try parseOperand(after: minus) { p throws(SyntaxError) in try p.parseUnary() }
        let range = range(from: minus)
        // `-5` is the constant -5; `-(5)` and `- -5` stay negations.
        if operand.range == literal.range, case .constant(let value) = operand.kind {
            switch (literal.kind, value) {
            case (.integer, .int(let n)): return Expression(.constant(.int(-n)), range: range)
            case (.double, .double(let d)): return Expression(.constant(.double(-d)), range: range)
            default: break
            }
        }
        return Expression(.negate(operand), range: range)
    }

    /// Parses the operand after a binary or unary operator, reporting
    /// "expected value after '+'" when none follows.
    mutating func parseOperand(after op: Token,
                               _ parse: (inout Parser) throws(SyntaxError) -> Expression) throws(SyntaxError) -> Expression {
        guard canStartExpression else {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.expectedValue(after: describe(op)), at: peek().range)
        }
        return try parse(&self)
    }

    /// postfix → primary { "." ( IDENTIFIER | collectionOperator ) | index }
    mutating func parsePostfix() throws(SyntaxError) -> Expression {
        var base = try parsePrimary()
        var links = 0
        defer { depth -= links }
        while true {
            if check(.dot) {
                let dot = advance()
                switch peek().kind {
                case .identifier:
                    let key = name(of: advance())
                    base = Parser.appending([key], to: base, range: range(from: base.range))
                case .collectionOperator:
                    try enterLink(&links)
                    base = try parseCollectionOperator(base: base)
                case .keyword(let keyword):
                    throw SyntaxError(.reservedWord(keyword.rawValue), at: peek().range)
                default:
                    if isAtEnd { throw incompleteInput() }
                    throw SyntaxError(.expectedKey(after: describe(dot)), at: peek().range)
                }
            } else if check(.leftBracket) {
                try enterLink(&links)
                base = try parseIndex(base: base)
            } else {
                return base
            }
        }
    }

    /// Appends keys to an expression: `SELF` and key paths grow into key
    /// paths, members grow, anything else becomes a member access.
    static func appending(_ keys: [String], to base: Expression, range: SourceRange) -> Expression {
        switch base.kind {
        case .evaluatedObject: return Expression(.keyPath(keys), range: range)
        case .keyPath(let path): return Expression(.keyPath(path + keys), range: range)
        case .member(let inner, let path): return Expression(.member(inner, path + keys), range: range)
        default: return Expression(.member(base, keys), range: range)
        }
    }

    /// index → "[" ( "FIRST" | "LAST" | "SIZE" | expression ) "]"
    mutating func parseIndex(base: Expression) throws(SyntaxError) -> Expression {
        let open = advance()
        let index: Index
        switch peek().kind {
        case .keyword(.first): advance(); index = .first
        case .keyword(.last): advance(); index = .last
        case .keyword(.size): advance(); index = .size
        default:
            try enter()
            defer { leave() }
            index = .at(try parseOperand(after: open) { p throws(SyntaxError) in try p.parseExpression() })
        }
        _ = try expectClosing(.rightBracket, opening: open)
        return Expression(.index(base, index), range: range(from: base.range))
    }

    /// collectionOperator → COLLECTION_OPERATOR { "." IDENTIFIER }
    mutating func parseCollectionOperator(base: Expression) throws(SyntaxError) -> Expression {
        let token = advance()
        guard token.kind == .collectionOperator else { throw SyntaxError(.unexpected(describe(token)), at: token.range) }
        let name = name(of: token)
        guard let op = CollectionOperator(name: name) else {
            let suggestion = Suggestions.closest(to: name, in: CollectionOperator.allCases.map(\.rawValue))
            throw SyntaxError(.unknownCollectionOperator(name, suggestion: suggestion.map { "@" + $0 }), at: token.range)
        }
        var key: [String] = []
        while check(.dot), peek(1).kind == .identifier {
            advance()
            key.append(self.name(of: advance()))
        }
        let start = base.range == .unknown ? token.range : base.range
        return Expression(.collection(op, base, key: key), range: range(from: start))
    }

    /// primary → literal | function | keyPath | assignment | VARIABLE | "SELF" | collectionOperator | aggregate | subquery | functionExpression | cast | formatArgument | "(" expression ")" | reserved
    mutating func parsePrimary() throws(SyntaxError) -> Expression {
        let token = peek()
        switch token.kind {
        case .string, .integer, .double, .date,
             .keyword(.true), .keyword(.yes), .keyword(.false), .keyword(.no), .keyword(.null), .keyword(.nil):
            return try parseLiteral()
        case .identifier:
            if peek(1).kind == .leftParen || selectorLength() != nil { return try parseFunction() }
            let (path, range) = try parseKeyPath()
            return Expression(.keyPath(path), range: range)
        case .variable:
            if peek(1).kind == .colon, peek(2).kind == .assign, peek(1).range.end == peek(2).range.start {
                return try parseAssignment()
            }
            advance()
            return Expression(.variable(name(of: token)), range: token.range)
        case .keyword(.self):
            advance()
            return Expression(.evaluatedObject, range: token.range)
        case .collectionOperator:
            return try parseCollectionOperator(base: Expression(.evaluatedObject, range: .unknown))
        case .leftBrace:
            return try parseAggregate()
        case .keyword(.subquery):
            return try parseSubquery()
        case .keyword(.function):
            return try parseFunctionExpression()
        case .keyword(.cast):
            return try parseCast()
        case .formatArgument:
            return try parseFormatArgument()
        case .leftParen:
            let openIndex = cursor
            advance()
            try enter()
            defer { leave() }
            let inner = try parseOperand(after: token) { p throws(SyntaxError) in try p.parseExpression() }
            try refuseParenthesizedList(openIndex: openIndex)
            _ = try expectClosing(.rightParen, opening: token)
            return Expression(inner.kind, range: range(from: token))
        case .keyword(let keyword) where keyword.isReservedOnly:
            try parseReserved()
            throw unexpected()
        default:
            throw unexpected()
        }
    }

    /// Apple's BNF writes `assignment_expression ::= predicate_variable
    /// ":=" expression` and documents nothing more; mrq gives it the meaning
    /// Foundation's variable assignment expression has: the value of the
    /// expression, kept in `$name` for the rest of the evaluation.
    ///
    /// assignment → VARIABLE ":" "=" expression
    mutating func parseAssignment() throws(SyntaxError) -> Expression {
        let variable = advance()
        advance()
        let assign = advance()
        try enter()
        defer { leave() }
        let value = try parseOperand(after: assign) { p throws(SyntaxError) in try p.parseExpression() }
        return Expression(.assignment(name(of: variable), value), range: range(from: variable))
    }

    /// literal → STRING | INTEGER | DOUBLE | DATE | "TRUE" | "YES" | "FALSE" | "NO" | "NULL" | "NIL"
    mutating func parseLiteral() throws(SyntaxError) -> Expression {
        let token = advance()
        let value: Value
        switch token.kind {
        case .string: value = .string(stringValue(of: token))
        case .integer: value = .int(token.integerValue)
        case .double: value = .double(token.doubleValue)
        case .date: value = .date(token.dateValue)
        case .keyword(.true), .keyword(.yes): value = .bool(true)
        case .keyword(.false), .keyword(.no): value = .bool(false)
        case .keyword(.null), .keyword(.nil): value = .null
        default: throw SyntaxError(.unexpected(describe(token)), at: token.range)
        }
        return Expression(.constant(value), range: token.range)
    }

    /// keyPath → IDENTIFIER { "." IDENTIFIER }
    public mutating func parseKeyPath() throws(SyntaxError) -> (path: [String], range: SourceRange) {
        let first = peek()
        guard first.kind == .identifier else { throw unexpected() }
        advance()
        var path = [name(of: first)]
        while check(.dot), peek(1).kind == .identifier {
            advance()
            path.append(name(of: advance()))
        }
        return (path, range(from: first))
    }

    /// The number of tokens of a selector call prefix `name:(` or
    /// `add:to:(`, without the `(`; nil when the tokens are not one.
    func selectorLength() -> Int? {
        var offset = 0
        while peek(offset).kind == .identifier, peek(offset + 1).kind == .colon {
            offset += 2
            if peek(offset).kind == .leftParen { return offset }
        }
        return nil
    }

    /// function → IDENTIFIER "(" [ arguments ] ")" | IDENTIFIER ":" { IDENTIFIER ":" } "(" [ arguments ] ")"
    mutating func parseFunction() throws(SyntaxError) -> Expression {
        let start = peek()
        var name = ""
        var isSelector = false
        if let length = selectorLength() {
            isSelector = true
            for _ in 0..<length {
                let token = advance()
                name += token.kind == .identifier ? self.name(of: token) : ":"
            }
        } else {
            let token = advance()
            if token.kind == .identifier { name = self.name(of: token) }
        }
        let nameRange = range(from: start)
        let open = try expect(.leftParen)
        var arguments: [Expression] = []
        if !check(.rightParen) {
            try enter()
            defer { leave() }
            arguments = try parseArguments(after: open)
        }
        _ = try expectClosing(.rightParen, opening: open)
        let function: Function?
        if isSelector {
            function = Function(selector: name)
        } else {
            function = Function.readable(name, argumentCount: arguments.count)
        }
        guard let function else {
            let candidates = isSelector ? Function.allCases.map(\.selector) : Function.readableNames
            throw SyntaxError(.unknownFunction(name, suggestion: Suggestions.closest(to: name, in: candidates)),
                              at: nameRange)
        }
        if let arity = function.arity, arity != arguments.count {
            throw SyntaxError(.functionArity(name, expected: "\(arity)", got: arguments.count), at: range(from: start))
        }
        if function.arity == nil, arguments.isEmpty {
            throw SyntaxError(.functionArity(name, expected: "1 or more", got: 0), at: range(from: start))
        }
        return Expression(.function(function, arguments), range: range(from: start))
    }

    /// arguments → expression { "," expression }
    mutating func parseArguments(after open: Token) throws(SyntaxError) -> [Expression] {
        var arguments = [try parseOperand(after: open) { p throws(SyntaxError) in try p.parseExpression() }]
        while check(.comma) {
            let comma = advance()
            arguments.append(try parseOperand(after: comma) { p throws(SyntaxError) in try p.parseExpression() })
        }
        return arguments
    }

    /// functionExpression → "FUNCTION" "(" expression "," STRING { "," expression } ")"
    mutating func parseFunctionExpression() throws(SyntaxError) -> Expression {
        let start = advance()
        let open = try expect(.leftParen)
        try enter()
        defer { leave() }
        let receiver = try parseOperand(after: open) { p throws(SyntaxError) in try p.parseExpression() }
        _ = try expect(.comma)
        guard peek().kind == .string else {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.selectorMustBeString, at: peek().range)
        }
        let selector = stringValue(of: advance())
        var arguments: [Expression] = []
        while check(.comma) {
            let comma = advance()
            arguments.append(try parseOperand(after: comma) { p throws(SyntaxError) in try p.parseExpression() })
        }
        _ = try expectClosing(.rightParen, opening: open)
        return Expression(.method(receiver: receiver, selector: selector, arguments: arguments), range: range(from: start))
    }

    /// aggregate → "{" [ arguments ] "}"
    mutating func parseAggregate() throws(SyntaxError) -> Expression {
        let open = advance()
        try enter()
        defer { leave() }
        var elements: [Expression] = []
        if !check(.rightBrace) {
            elements = try parseArguments(after: open)
        }
        _ = try expectClosing(.rightBrace, opening: open)
        return Expression(.aggregate(elements), range: range(from: open))
    }

    /// A SUBQUERY is parsed once wherever it starts: a parenthesis in a
    /// predicate is tried as a predicate, then as an expression, so the
    /// SUBQUERYs inside were parsed again for every parenthesis around
    /// them, and again for theirs, which fuzzing found to take minutes for
    /// 245 bytes. The answer (or the error) and where it ended are kept
    /// by starting token and depth.
    mutating func parseSubquery() throws(SyntaxError) -> Expression {
        let key = cursor &* (Parser.maximumDepth + 1) &+ depth
        if let known = subqueries[key] {
            cursor = known.end
            return try known.result.get()
        }
        subqueriesParsed += 1
        let result: Result<Expression, SyntaxError>
        do {
            result = .success(try parseSubqueryOnce())
        } catch {
            result = .failure(error)
        }
        subqueries[key] = (result, cursor)
        return try result.get()
    }

    /// subquery → "SUBQUERY" "(" expression "," VARIABLE "," predicate ")"
    mutating func parseSubqueryOnce() throws(SyntaxError) -> Expression {
        let start = advance()
        let open = try expect(.leftParen)
        try enter(levels: Parser.subqueryLevels)
        defer { depth -= Parser.subqueryLevels }
        let collection = try parseOperand(after: open) { p throws(SyntaxError) in try p.parseExpression() }
        let comma = try expect(.comma)
        guard peek().kind == .variable else {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.expected("a variable such as $x", after: describe(comma)), at: peek().range)
        }
        let variable = name(of: advance())
        let secondComma = try expect(.comma)
        guard canStartPredicate else {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.expectedPredicate(after: describe(secondComma)), at: peek().range)
        }
        let predicate = try parsePredicate()
        _ = try expectClosing(.rightParen, opening: open)
        return Expression(.subquery(collection: collection, variable: variable, predicate: predicate),
                          range: range(from: start))
    }

    /// cast → "CAST" "(" expression "," STRING ")"
    mutating func parseCast() throws(SyntaxError) -> Expression {
        let start = advance()
        let open = try expect(.leftParen)
        try enter()
        defer { leave() }
        let operand = try parseOperand(after: open) { p throws(SyntaxError) in try p.parseExpression() }
        _ = try expect(.comma)
        let typeToken = peek()
        guard typeToken.kind == .string else {
            if isAtEnd { throw incompleteInput() }
            throw SyntaxError(.castTypeMustBeString, at: typeToken.range)
        }
        let typeName = stringValue(of: advance())
        _ = try expectClosing(.rightParen, opening: open)
        guard let type = CastType(rawValue: typeName) else {
            let suggestion = Suggestions.closest(to: typeName, in: CastType.allCases.map(\.rawValue))
            throw SyntaxError(.unknownCastType(typeName, suggestion: suggestion), at: typeToken.range)
        }
        let range = range(from: start)
        if case .constant(let value) = operand.kind {
            // The printer writes constants without a literal syntax this
            // way; fold them back (Apple folds CAST of a literal too).
            if let folded = Parser.foldCast(value, to: type) {
                var expression = Expression(.constant(folded), range: range)
                expression.isFoldedCast = type == .date
                return expression
            }
            if Parser.castIsFolded(value, to: type) {
                throw SyntaxError(.invalidCastConstant(Printer.format(.constant(value)), type: type.rawValue),
                                  at: operand.range)
            }
        }
        return Expression(.cast(operand, type), range: range)
    }

    /// The kinds of CAST of a literal the parser folds into a constant.
    static func castIsFolded(_ value: Value, to type: CastType) -> Bool {
        switch (value, type) {
        case (.int, .date), (.double, .date): return true
        case (.string, .number), (.string, .decimal), (.string, .uuid), (.string, .url), (.string, .data): return true
        default: return false
        }
    }

    static func foldCast(_ value: Value, to type: CastType) -> Value? {
        switch (value, type) {
        case (.int(let n), .date): return .date(Date(timeIntervalSinceReferenceDate: Double(n)))
        case (.double(let d), .date): return .date(Date(timeIntervalSinceReferenceDate: d))
        case (.string(let s), .number):
            if let n = Int64(s) { return .int(n) }
            if let d = Double(s) { return .double(d) }
            return nil
        case (.string(let s), .decimal): return Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
        case (.string(let s), .uuid): return UUID(uuidString: s).map { .uuid($0) }
        case (.string(let s), .url): return URL(string: s).map { .url($0) }
        case (.string(let s), .data): return Data(base64Encoded: s).map { .data($0) }
        default: return nil
        }
    }

    /// formatArgument → "%@" | "%K" | "%%" | PRINTF_CONVERSION
    mutating func parseFormatArgument() throws(SyntaxError) -> Expression {
        let token = advance()
        guard case .formatArgument(let spec) = token.kind else { throw SyntaxError(.unexpected(describe(token)), at: token.range) }
        if spec == .percent { return Expression(.constant(.string("%")), range: token.range) }
        placeholderCount += 1
        return Expression(.placeholder(spec), range: token.range)
    }

    /// reserved → "ANYKEY" | "FETCH" | "CASEINSENSITIVE" | "CI"
    mutating func parseReserved() throws(SyntaxError) {
        let token = peek()
        if case .keyword(let keyword) = token.kind, keyword.isReservedOnly {
            throw SyntaxError(.reservedWord(keyword.rawValue), at: token.range)
        }
    }

    /// True when the current token can begin an expression.
    public var canStartExpression: Bool {
        switch peek().kind {
        case .string, .integer, .double, .date, .identifier, .variable, .collectionOperator, .formatArgument,
             .leftParen, .leftBrace, .minus:
            return true
        case .keyword(let keyword):
            switch keyword {
            case .true, .yes, .false, .no, .null, .nil, .self, .subquery, .function, .cast: return true
            default: return keyword.isReservedOnly
            }
        default:
            return false
        }
    }
}
