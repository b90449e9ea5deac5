import ObjectStore
import Predicates

/// What may come next in a statement being typed: read from the tokens
/// before the word being completed, by a scan that follows the statement
/// grammar (Grammar/mrq.ebnf) just far enough to know where the cursor
/// is: at the start, after an entity, on the left or the right of a
/// comparison, in a `sort`, `set` or `select` list, and so on.
///
/// ```swift
/// CompletionContext(model: model, head: "count Person where age ").expected
/// // words: ["BEGINSWITH", "CONTAINS", …]
/// ```
///
/// Nothing outside what may follow is offered: no key where an entity is
/// expected, no entity where a key is, no second key after a key.
struct CompletionContext {
    /// What the cursor may be followed by.
    struct Expected {
        var entities = false
        var statementWords = false
        /// Key paths of this entity, or of any entity when `anyEntity`.
        var keysOf: EntityDescription?
        var anyEntity = false
        /// Relationships end in `.`, as a key path goes on through them
        /// (`department.`); not where a relationship is assigned.
        var continuingKeys = true
        var words: [String] = []
        /// A file name in quotes (`import Person from "…`).
        var fileName = false

        var keys: Bool { keysOf != nil || anyEntity }
    }

    /// Which statement is being typed; decides its clauses.
    enum Kind {
        case query, first, count, delete, update, insert, select, aggregate, truncate, importing, declaration, other

        /// The clause words of the statement, in order.
        var clauses: [String] {
            switch self {
            case .query, .first, .count, .select: return ["where", "sort", "limit", "offset"]
            case .delete: return ["where", "direct"]
            case .update: return ["where", "set", "direct"]
            case .aggregate: return ["where", "group", "having", "sort", "limit"]
            default: return []
            }
        }
    }

    /// Where in a predicate the cursor is.
    enum PredicateState: Equatable {
        /// A predicate starts: a key, NOT, ANY…
        case start
        /// After ANY/ALL/NONE/SOME: a key path.
        case keyOnly
        /// The left side has a value; a comparison operator comes.
        case afterLeft
        /// After an arithmetic operator on the left.
        case leftOperand
        /// After a comparison operator: the right side.
        case right
        /// After `==[`: comparison options.
        case options
        /// A comparison is complete: AND, OR, or the next clause.
        case afterComparison
    }

    /// The scan's position.
    enum Position: Equatable {
        case statementStart, letName, letEquals
        case entityName(alsoOf: Bool)
        /// After the statement's entity or a finished clause.
        case clauses
        case predicate(PredicateState)
        case sortKey, afterSortKey, sortDirection
        case number, afterLimit
        case assignmentKey, afterAssignmentKey, assignmentValue, afterAssignmentValue
        case insertOpen
        case selectKey(first: Bool), afterSelectKey
        case aggregateKey, afterAggregateKey
        case groupBy, groupKey, afterGroupKey
        case importFrom, importFile
        case declarationOpen, propertyName, propertyColon, propertyType, afterPropertyType
        case nothing
    }

    /// A query inside a value (`department: first Department where …`),
    /// and what to go back to after it.
    private struct Frame {
        var kind: Kind
        var entity: EntityDescription?
        var clause: String?
    }

    let model: ManagedObjectModel
    private let source: String
    private var kind = Kind.other
    private var entity: EntityDescription?
    /// The last clause word of the statement (`where`, `sort`, …).
    private var clause: String?
    private var position = Position.statementStart
    private var outer: [Frame] = []
    /// For each open bracket, the predicate state to take when it closes
    /// (nil for a bracket the scan does not follow into).
    private var brackets: [PredicateState?] = []

    /// The context after `head`, the statement's text up to the word
    /// being completed; nil when it does not lex.
    init?(model: ManagedObjectModel, head: String) {
        self.model = model
        source = head
        guard let tokens = try? Lexer.tokenize(head, options: .shellComments) else { return nil }
        for (i, token) in tokens.enumerated() where token.kind != .end {
            scan(token, previous: i > 0 ? tokens[i - 1] : nil)
        }
    }

    // MARK: - What follows

    static let predicateStartWords = ["NOT", "ANY", "ALL", "NONE", "SOME", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE"]
    static let comparisonWords = ["BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "MATCHES", "IN", "BETWEEN"]
    static let valueWords = ["YES", "NO", "nil", "now()"]
    static let modifiers = ["required", "optional", "transient", "unique", "indexed", "ordered",
                            "cascade", "nullify", "deny", "noaction", "inverse", "min", "max"]

    /// What may follow the scanned text.
    var expected: Expected {
        var expected = Expected()
        switch position {
        case .statementStart:
            expected.entities = true
            expected.statementWords = true
        case .entityName(let alsoOf):
            expected.entities = true
            if alsoOf { expected.words = ["of"] }
        case .clauses where kind == .declaration:
            expected.words = ["abstract"]
        case .clauses, .afterSortKey, .afterLimit, .afterGroupKey:
            expected.words = clausesAfter(clause)
        case .predicate(let state):
            switch state {
            case .start:
                expected.keysOf = entity
                expected.words = Self.predicateStartWords + (clause == "having" ? aggregateWords : [])
            case .keyOnly:
                expected.keysOf = entity
            case .leftOperand, .right:
                expected.keysOf = entity
                expected.words = Self.valueWords
            case .afterLeft:
                expected.words = Self.comparisonWords
            case .options:
                break
            case .afterComparison:
                expected.words = ["AND", "OR"] + clausesAfter(clause)
            }
        case .sortKey, .groupKey:
            expected.keysOf = entity
            if kind == .aggregate, position == .sortKey { expected.words = aggregateWords }
        case .sortDirection:
            expected.words = ["YES", "NO"]
        case .assignmentKey:
            expected.keysOf = entity
            expected.continuingKeys = false
        case .assignmentValue:
            // An update's value may use the object's keys (`age + 1`).
            expected.keysOf = kind == .update ? entity : nil
            expected.words = Self.valueWords + ["first"]
        case .afterAssignmentValue:
            expected.words = kind == .update ? ["direct"] : []
        case .selectKey(let first):
            expected.anyEntity = true
            if first { expected.words = ["distinct"] }
        case .afterSelectKey:
            expected.words = ["from"]
        case .aggregateKey:
            expected.anyEntity = true
        case .afterAggregateKey:
            expected.words = ["of"]
        case .groupBy:
            expected.words = ["by"]
        case .importFrom:
            expected.words = ["from"]
        case .importFile:
            expected.fileName = true
        case .propertyType:
            expected.words = ["String", "Int16", "Int32", "Int64", "Double", "Float", "Decimal", "Bool", "Date",
                              "Data", "UUID", "URI", "Transformable"]
            expected.entities = true
        case .afterPropertyType:
            expected.words = Self.modifiers
        case .letName, .letEquals, .number, .afterAssignmentKey, .insertOpen, .declarationOpen, .propertyName,
             .propertyColon, .nothing:
            break
        }
        return expected
    }

    /// The aggregate's function as a word, for `having` and `sort`.
    private var aggregateWords: [String] {
        kind == .aggregate ? [aggregateFunction ?? "count"] : []
    }
    private var aggregateFunction: String?

    /// The statement's clause words after `clause` (all of them when nil).
    private func clausesAfter(_ clause: String?) -> [String] {
        let all = kind.clauses
        guard let clause, let index = all.firstIndex(of: clause == "by" ? "group" : clause) else { return all }
        return Array(all[(index + 1)...])
    }

    // MARK: - The scan

    private func word(_ token: Token) -> String? {
        switch token.kind {
        case .identifier:
            return token.text(in: source).hasPrefix("#") ? nil : token.name(in: source).lowercased()
        case .keyword(let keyword): return keyword.rawValue.lowercased()
        default: return nil
        }
    }

    private func entityNamed(_ token: Token) -> EntityDescription? {
        guard token.kind == .identifier else { return nil }
        let name = token.name(in: source)
        return model.entity(named: name)
            ?? model.entities.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    private static func isComparison(_ kind: TokenKind) -> Bool {
        switch kind {
        case .assign, .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual: return true
        case .keyword(let k): return [.in, .contains, .beginsWith, .endsWith, .like, .matches, .between].contains(k)
        default: return false
        }
    }

    private static func isArithmetic(_ kind: TokenKind) -> Bool {
        [.plus, .minus, .star, .slash, .power].contains(kind)
    }

    /// A token that is, or continues, a value: a key, a literal, a
    /// variable, `.` and collection operators in a key path.
    private static func isOperand(_ kind: TokenKind) -> Bool {
        switch kind {
        case .identifier, .variable, .collectionOperator, .string, .integer, .double, .date, .formatArgument, .dot:
            return true
        case .keyword(let k):
            return [.true, .false, .yes, .no, .null, .nil, .self, .first, .last, .size, .subquery, .function, .cast].contains(k)
        default:
            return false
        }
    }

    private mutating func scan(_ token: Token, previous: Token?) {
        let w = word(token)
        switch position {
        case .statementStart:
            startStatement(token, word: w)
        case .letName:
            position = token.kind == .identifier ? .letEquals : .nothing
        case .letEquals:
            position = token.kind == .assign ? .statementStart : .nothing
        case .entityName(let alsoOf):
            if alsoOf, w == "of" {
                kind = .aggregate
                aggregateFunction = "count"
                position = .entityName(alsoOf: false)
                return
            }
            guard token.kind == .identifier else { position = .nothing; return }
            entity = entityNamed(token)
            switch kind {
            case .insert: position = .insertOpen
            case .importing: position = .importFrom
            case .truncate: position = .nothing
            default: position = .clauses
            }
        case .clauses, .afterSortKey, .afterLimit, .afterGroupKey, .predicate(.afterComparison), .afterAssignmentValue:
            if let w, takeClause(w) { return }
            switch position {
            case .predicate: scanPredicate(token, previous: previous)
            case .afterSortKey: scanSort(token)
            case .afterGroupKey:
                if token.kind == .comma { position = .groupKey }
                else if ![.dot, .identifier, .collectionOperator].contains(token.kind) { position = .nothing }
            case .afterAssignmentValue: scanAssignment(token)
            default: endNested(token)
            }
        case .predicate:
            scanPredicate(token, previous: previous)
        case .sortKey, .sortDirection:
            scanSort(token)
        case .number:
            position = token.kind == .integer && clause == "limit" ? .afterLimit : .nothing
        case .assignmentKey, .afterAssignmentKey, .assignmentValue:
            scanAssignment(token)
        case .insertOpen:
            position = token.kind == .leftBrace ? .assignmentKey : .nothing
        case .selectKey:
            if w == "distinct", position == .selectKey(first: true) { position = .selectKey(first: false); return }
            position = token.kind == .identifier ? .afterSelectKey : .nothing
        case .afterSelectKey:
            if token.kind == .comma { position = .selectKey(first: false) }
            else if w == "from" { position = .entityName(alsoOf: false) }
            else if !Self.isOperand(token.kind) { position = .nothing }
        case .aggregateKey:
            position = token.kind == .identifier ? .afterAggregateKey : .nothing
        case .afterAggregateKey:
            if w == "of" { position = .entityName(alsoOf: false) }
            else if !Self.isOperand(token.kind) { position = .nothing }
        case .groupBy:
            position = w == "by" ? .groupKey : .nothing
            clause = "by"
        case .groupKey:
            position = token.kind == .identifier ? .afterGroupKey : .nothing
        case .importFrom:
            position = w == "from" ? .importFile : .nothing
        case .importFile:
            position = .nothing
        case .declarationOpen, .propertyName, .propertyColon, .propertyType, .afterPropertyType:
            scanDeclaration(token, previous: previous)
        case .nothing:
            break
        }
    }

    private mutating func startStatement(_ token: Token, word w: String?) {
        switch w {
        case "explain": return
        case "let": position = .letName; return
        case "first": kind = .first
        case "count": kind = .count; position = .entityName(alsoOf: true); return
        case "delete": kind = .delete
        case "update": kind = .update
        case "insert": kind = .insert
        case "truncate": kind = .truncate
        case "import": kind = .importing
        case "select": kind = .select; position = .selectKey(first: true); return
        case "sum", "min", "max", "avg":
            kind = .aggregate
            aggregateFunction = w
            position = .aggregateKey
            return
        case "entity":
            kind = .declaration
            position = .entityName(alsoOf: false)
            return
        default:
            if let found = entityNamed(token) {
                kind = .query
                entity = found
                position = .clauses
            } else {
                position = .nothing
            }
            return
        }
        position = .entityName(alsoOf: false)
    }

    /// Moves to the clause `word` starts, when it is one; a clause word of
    /// the statement ends a query nested in a value first.
    private mutating func takeClause(_ word: String) -> Bool {
        if kind == .declaration, position == .clauses {
            // `entity Name` then `:` or `abstract` or `{`.
            return false
        }
        guard kind.clauses.contains(word) || (kind == .aggregate && word == "group") else { return false }
        clause = word
        switch word {
        case "where", "having": position = .predicate(.start)
        case "sort": position = .sortKey
        case "limit", "offset": position = .number
        case "set": position = .assignmentKey
        case "group": position = .groupBy
        case "direct": position = .nothing
        default: return false
        }
        brackets = []
        return true
    }

    /// After a nested query, back to the statement around it.
    private mutating func endNested(_ token: Token) {
        if kind == .declaration {
            scanDeclaration(token, previous: nil)
            return
        }
        guard let frame = outer.popLast(), token.kind == .comma || token.kind == .semicolon || token.kind == .rightBrace else {
            position = .nothing
            return
        }
        (kind, entity, clause) = (frame.kind, frame.entity, frame.clause)
        position = token.kind == .rightBrace ? .nothing : .assignmentKey
    }

    private mutating func scanPredicate(_ token: Token, previous: Token?) {
        guard case .predicate(let state) = position else { return }
        var next = state
        switch token.kind {
        case .leftParen, .leftBrace, .leftBracket:
            if token.kind == .leftBracket, previous.map({ Self.isComparison($0.kind) }) == true {
                next = .options
                brackets.append(.right)
            } else if token.kind == .leftParen, state == .start || state == .keyOnly || state == .leftOperand {
                // A bracketed predicate, or an expression: say which at `)`.
                brackets.append(nil)
                next = .start
            } else {
                // A call's arguments, an aggregate `{…}`, an index: one
                // value, after which the state is the one a value gives.
                let after: PredicateState = state == .right || state == .afterComparison ? .afterComparison : .afterLeft
                brackets.append(after)
                next = .right
            }
        case .rightParen, .rightBrace, .rightBracket:
            guard let closing = brackets.popLast() else { endNested(token); return }
            if let after = closing {
                next = after
            } else {
                // `(age > 3)` is a predicate; `(a + b)` a value on the left.
                next = state == .afterLeft || state == .leftOperand ? .afterLeft : .afterComparison
            }
        case .comma:
            if brackets.isEmpty { endNested(token); return }
            next = .right
        case .semicolon:
            endNested(token)
            return
        case .keyword(.and), .keyword(.or), .keyword(.not):
            next = .start
        case .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.none):
            next = .keyOnly
        case let kind where Self.isComparison(kind):
            next = .right
        case let kind where Self.isArithmetic(kind):
            next = state == .afterComparison || state == .right ? .right : .leftOperand
        case let kind where Self.isOperand(kind):
            switch state {
            case .start, .keyOnly, .leftOperand: next = .afterLeft
            case .right: next = .afterComparison
            case .options: next = .options
            case .afterLeft, .afterComparison: break
            }
        default:
            position = .nothing
            return
        }
        position = .predicate(next)
    }

    private mutating func scanSort(_ token: Token) {
        switch (position, token.kind) {
        case (.sortKey, .identifier): position = .afterSortKey
        case (.afterSortKey, .dot), (.afterSortKey, .identifier), (.afterSortKey, .collectionOperator): break
        case (.afterSortKey, .colon): position = .sortDirection
        case (.afterSortKey, .comma): position = .sortKey
        case (.sortDirection, _): position = .afterSortKey
        default: endNested(token)
        }
    }

    /// `set key = value, …` and `{ key: value, … }`.
    private mutating func scanAssignment(_ token: Token) {
        let separator: TokenKind = kind == .insert ? .colon : .assign
        switch position {
        case .assignmentKey:
            if token.kind == .rightBrace, kind == .insert { position = .nothing; return }
            position = token.kind == .identifier ? .afterAssignmentKey : .nothing
        case .afterAssignmentKey:
            if token.kind == .dot || token.kind == .identifier { return }
            position = token.kind == separator ? .assignmentValue : .nothing
        case .assignmentValue:
            if token.kind == .keyword(.first) || (token.kind == .identifier && entityNamed(token) != nil
                && token.name(in: source).first?.isUppercase == true) {
                outer.append(Frame(kind: kind, entity: entity, clause: clause))
                kind = .first
                clause = nil
                if token.kind == .keyword(.first) {
                    position = .entityName(alsoOf: false)
                } else {
                    entity = entityNamed(token)
                    position = .clauses
                }
                return
            }
            if Self.isOperand(token.kind) || token.kind == .leftParen || token.kind == .leftBrace || token.kind == .minus {
                if token.kind == .leftParen || token.kind == .leftBrace { brackets.append(nil) }
                position = brackets.isEmpty ? .afterAssignmentValue : .assignmentValue
                return
            }
            position = .nothing
        case .afterAssignmentValue:
            if !brackets.isEmpty {
                if [.rightParen, .rightBrace].contains(token.kind) { brackets.removeLast() }
                return
            }
            switch token.kind {
            case .comma, .semicolon: position = .assignmentKey
            case .rightBrace where kind == .insert: position = .nothing
            case let k where Self.isArithmetic(k): position = .assignmentValue
            case .leftParen, .leftBracket:
                // A call such as `now()`, or an index.
                brackets.append(nil)
            case let k where Self.isOperand(k): break
            default:
                if word(token) == "direct" { position = .nothing } else { endNested(token) }
            }
        default:
            break
        }
    }

    /// `entity Name [: Parent] [abstract] { name: Type modifiers; … }`.
    private mutating func scanDeclaration(_ token: Token, previous: Token?) {
        // Properties may also be one a line.
        if position == .afterPropertyType, token.kind == .identifier, let previous,
           token.range.start.line > previous.range.end.line {
            position = .propertyColon
            return
        }
        switch (position, token.kind) {
        case (.clauses, .colon): position = .entityName(alsoOf: false)
        case (.clauses, _) where word(token) == "abstract": position = .declarationOpen
        case (_, .leftBrace) where position == .clauses || position == .declarationOpen:
            position = .propertyName
        case (.propertyName, .identifier): position = .propertyColon
        case (.propertyName, .semicolon), (.propertyName, .comma): break
        case (.propertyColon, .colon): position = .propertyType
        case (.propertyType, .leftBracket): break
        case (.propertyType, .identifier): position = .afterPropertyType
        case (.afterPropertyType, .semicolon), (.afterPropertyType, .comma): position = .propertyName
        case (.afterPropertyType, .rightBrace), (.propertyName, .rightBrace): position = .nothing
        case (.afterPropertyType, _):
            // A default value, `inverse x`, `min 1`, `]`: still modifiers.
            break
        default: position = .nothing
        }
    }
}
