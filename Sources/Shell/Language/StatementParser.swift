import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// Parses the mrq statement language on top of the predicate lexer and
/// parser.
///
/// ```swift
/// let statements = try StatementParser.parse("Person where age > 18 sort LastName:NO; count Person")
/// ```
///
/// Statements end at `;` or at a line break outside brackets. Every parse
/// function names its rule from Grammar/mrq.ebnf.
public struct StatementParser {
    var parser: Parser
    let source: String

    /// The words that start a statement (besides an entity name).
    public static let statementWords = [
        "first", "count", "select", "sum", "min", "max", "avg", "insert", "update", "delete",
        "truncate", "import", "save", "rollback", "undo", "redo", "entity", "let", "explain", "fetch",
    ]

    /// The words with a meaning inside statements.
    public static let clauseWords = [
        "where", "sort", "limit", "offset", "set", "from", "of", "group", "by", "having", "distinct",
        "inverse", "abstract", "direct", "with",
    ]

    /// Parses every statement of `source` (which holds no dot commands).
    public static func parse(_ source: String) throws(SyntaxError) -> [LocatedStatement] {
        let tokens = try Lexer.tokenize(source, options: .shellComments)
        var result: [LocatedStatement] = []
        for group in split(tokens, source: source) {
            var statementParser = StatementParser(parser: Parser(tokens: group, source: source), source: source)
            result.append(try statementParser.parseWholeStatement())
        }
        return result
    }

    /// Splits tokens (lexed from `source`) into statements at `;` and at
    /// line breaks outside brackets, except after a token that cannot end
    /// a statement (see `LineContinuation`). Each group ends with an
    /// `.end` token.
    public static func split(_ tokens: [Token], source: String) -> [[Token]] {
        var groups: [[Token]] = []
        var current: [Token] = []
        var depth = 0
        func close() {
            guard let last = current.last else { return }
            current.append(Token(kind: .end, range: SourceRange(at: last.range.end)))
            groups.append(current)
            current = []
        }
        for token in tokens {
            if token.kind == .end { break }
            if depth == 0 && token.kind == .semicolon {
                close()
                continue
            }
            // A line break outside brackets ends the statement, unless the
            // new line opens with `{` (a brace on its own line) or the
            // line ends where a statement cannot.
            if depth == 0, let last = current.last, token.range.start.line > last.range.end.line, token.kind != .leftBrace,
               !LineContinuation.continues(current, in: source) {
                close()
            }
            switch token.kind {
            case .leftParen, .leftBrace, .leftBracket: depth += 1
            case .rightParen, .rightBrace, .rightBracket: depth = max(0, depth - 1)
            default: break
            }
            current.append(token)
        }
        close()
        return groups
    }

    /// Whether `text` is complete: no open bracket or string, and not
    /// ending where a statement cannot end (see `LineContinuation`).
    public static func isComplete(_ text: String) -> Bool {
        do {
            let tokens = try Lexer.tokenize(text, options: .shellComments)
            var depth = 0
            for token in tokens {
                switch token.kind {
                case .leftParen, .leftBrace, .leftBracket: depth += 1
                case .rightParen, .rightBrace, .rightBracket: depth -= 1
                default: break
                }
            }
            return depth <= 0 && !LineContinuation.continues(tokens, in: text)
        } catch {
            return !error.isIncompleteInput
        }
    }

    // MARK: - Statements

    /// script → { ( statement | dotCommand ) ( ";" | NEWLINE ) }
    ///
    /// A statement that does not parse but reads as SQL (`SELECT * FROM`,
    /// `ORDER BY`, `UPDATE … SET … WHERE`) fails with mrq's spelling of it.
    mutating func parseWholeStatement() throws(SyntaxError) -> LocatedStatement {
        let start = parser.peek().range
        do throws(SyntaxError) {
            let statement = try parseStatement()
            if !parser.isAtEnd {
                throw SyntaxError(message: ShellDiagnostics.unexpectedAfterStatement(parser.describe(parser.peek())), range: parser.peek().range)
            }
            return LocatedStatement(statement: statement, range: start.union(parser.previous.range))
        } catch {
            if error.isIncompleteInput { throw error }
            throw SQLHabits.hint(parser.tokens, source: source) ?? error
        }
    }

    /// statement → query | "first" query | "count" query | select | aggregate | insert | update | "delete" query [ "direct" ]
    ///           | "truncate" entityName | import | "save" | "rollback" | "undo" | "redo" | entityDecl | let
    ///           | "explain" statement | fetchTemplate | expression
    mutating func parseStatement() throws(SyntaxError) -> Statement {
        let token = parser.peek()
        if token.kind == .keyword(.first) { parser.advance(); return .first(try parseQuery(after: "first")) }
        // FETCH is reserved in predicates: no entity or key is named so.
        if token.kind == .keyword(.fetch) {
            parser.advance()
            if parser.peek().kind == .end { return .templates }
            return .template(try parseTemplateFetch())
        }
        guard token.kind == .identifier else {
            if token.kind == .variable { return .expression(try parser.parseExpression()) }
            if token.kind == .end {
                throw SyntaxError(message: ShellDiagnostics.expectedStatement(parser.describe(token)), range: token.range)
            }
            return .expression(try parser.parseExpression())
        }
        let word = parser.name(of: token)
        switch word.lowercased() {
        case "count":
            parser.advance()
            if parser.check(word: "of") || parser.check(word: "of", at: 1) {
                return .aggregate(try parseAggregate(function: .count, word: token))
            }
            return .count(try parseQuery(after: "count"))
        case "sum", "min", "max", "avg":
            if parser.peek(1).kind == .identifier, parser.check(word: "of", at: 2) || parser.peek(1).kind != .leftParen {
                parser.advance()
                return .aggregate(try parseAggregate(function: AggregateQuery.PropertyFunction(rawValue: word.lowercased())!, word: token))
            }
        case "select":
            parser.advance()
            return .select(try parseSelect())
        case "insert":
            parser.advance()
            return try parseInsert()
        case "update":
            parser.advance()
            return try parseUpdate()
        case "delete":
            parser.advance()
            let query = try parseQuery(after: "delete")
            if parser.check(word: "direct") {
                parser.advance()
                return .directDelete(query)
            }
            return .delete(query)
        case "truncate":
            parser.advance()
            return .truncate(try parseEntityName(after: "truncate"))
        case "import":
            parser.advance()
            return try parseImport()
        case "save", "rollback", "undo", "redo":
            if parser.peek(1).kind == .end {
                parser.advance()
                switch word.lowercased() {
                case "save": return .save
                case "rollback": return .rollback
                case "undo": return .undo
                default: return .redo
                }
            }
        case "entity":
            if parser.peek(1).kind == .identifier {
                parser.advance()
                return .entity(try parseEntityDeclaration())
            }
        case "let":
            if parser.peek(1).kind == .identifier, parser.peek(2).kind == .assign {
                parser.advance()
                return try parseLet()
            }
        case "explain":
            parser.advance()
            try parser.enter()
            defer { parser.leave() }
            return .explain(try parseStatement())
        default:
            break
        }
        // An entity name starts a query.
        if word.first?.isLetter == true, parser.peek(1).kind == .end || parser.check(word: "where", at: 1)
            || parser.check(word: "sort", at: 1) || parser.check(word: "limit", at: 1) || parser.check(word: "offset", at: 1) {
            return .query(try parseQuery(entityToken: parser.advance()))
        }
        return .expression(try parser.parseExpression())
    }

    mutating func parseEntityName(after word: String) throws(SyntaxError) -> Name {
        let token = parser.peek()
        guard token.kind == .identifier else {
            // A keyword spelled as a name (an entity called Like or In)
            // is one once escaped.
            let text = token.text(in: parser.source)
            if text.first?.isLetter == true, text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                throw SyntaxError(message: ShellDiagnostics.keywordAsEntity(text, after: word), range: token.range)
            }
            throw SyntaxError(message: ShellDiagnostics.expectedEntity(after: word), range: token.range)
        }
        parser.advance()
        return Name(text: parser.name(of: token), range: token.range)
    }

    /// query → entityName [ "where" predicate ] [ "sort" sortKeys ] [ "limit" INTEGER ] [ "offset" INTEGER ]
    mutating func parseQuery(after word: String) throws(SyntaxError) -> Query {
        let name = try parseEntityName(after: word)
        return try parseQueryClauses(entity: name)
    }

    mutating func parseQuery(entityToken: Token) throws(SyntaxError) -> Query {
        guard entityToken.kind == .identifier else {
            throw SyntaxError(message: ShellDiagnostics.expectedEntity(after: "query"), range: entityToken.range)
        }
        return try parseQueryClauses(entity: Name(text: parser.name(of: entityToken), range: entityToken.range))
    }

    mutating func parseQueryClauses(entity: Name) throws(SyntaxError) -> Query {
        var query = Query(entity: entity, range: entity.range)
        if parser.check(word: "where") {
            parser.advance()
            query.predicate = try parser.parsePredicate()
        }
        if parser.check(word: "sort") {
            parser.advance()
            query.sort = try parser.parseSortKeys()
        }
        if parser.check(word: "limit") {
            parser.advance()
            query.limit = try parseCount(after: "limit")
        }
        if parser.check(word: "offset") {
            parser.advance()
            query.offset = try parseCount(after: "offset")
        }
        query.range = entity.range.union(parser.previous.range)
        return query
    }

    mutating func parseCount(after word: String) throws(SyntaxError) -> Int {
        let token = parser.peek()
        let n = token.integerValue
        guard token.kind == .integer, n >= 0, n <= Int64(Int32.max) else {
            throw SyntaxError(message: ShellDiagnostics.expectedNumber(after: word), range: token.range)
        }
        parser.advance()
        return Int(n)
    }

    /// keyPathList → keyPath { "," keyPath }
    mutating func parseKeyPathList() throws(SyntaxError) -> [(path: [String], range: SourceRange)] {
        var paths: [(path: [String], range: SourceRange)] = []
        repeat {
            let keyPath = try parser.parseKeyPath()
            paths.append(keyPath)
        } while parser.match(.comma)
        return paths
    }

    /// select → "select" [ "distinct" ] column { "," column } "from" query
    /// column → expression
    mutating func parseSelect() throws(SyntaxError) -> SelectQuery {
        var distinct = false
        if parser.check(word: "distinct") {
            parser.advance()
            distinct = true
        }
        var columns: [SelectQuery.Column] = []
        repeat {
            // `select from Person`, `select a, from Person`: a column is missing.
            if parser.check(word: "from"), parser.peek(1).kind == .identifier {
                throw SyntaxError(message: ShellDiagnostics.expected("a column (a key path or an expression) after '\(parser.name(of: parser.previous))'",
                                                                     found: "'from'"), range: parser.peek().range)
            }
            let expression = try parser.parseExpression()
            // Named as written: `age * 2`, `people.@avg.age`.
            // A column cut across lines is named as the predicate printer
            // writes it, on one line.
            let written = String(decoding: Array(source.utf8)[expression.range.offsets], as: UTF8.self)
            let name = written.contains(where: \.isNewline) ? Printer.format(expression) : written
            columns.append(SelectQuery.Column(expression: expression, name: name))
        } while parser.match(.comma)
        guard parser.check(word: "from") else {
            throw SyntaxError(message: ShellDiagnostics.expected("'from' and an entity name", found: parser.describe(parser.peek())), range: parser.peek().range)
        }
        parser.advance()
        return SelectQuery(distinct: distinct, columns: columns, query: try parseQuery(after: "from"))
    }

    /// aggregate → aggregateFunction [ keyPath ] "of" entityName [ "where" predicate ] [ "group" "by" keyPathList ] [ "having" predicate ] [ "sort" sortKeys ] [ "limit" INTEGER ]
    /// aggregateFunction → "sum" | "min" | "max" | "avg" | "count"
    mutating func parseAggregate(function: AggregateQuery.PropertyFunction, word: Token) throws(SyntaxError) -> AggregateQuery {
        var path: [String] = []
        var keyRange = word.range
        if !parser.check(word: "of") {
            let keyPath = try parser.parseKeyPath()
            path = keyPath.path
            keyRange = keyPath.range
        }
        guard parser.check(word: "of") else {
            throw SyntaxError(message: ShellDiagnostics.expected("'of' and an entity name", found: parser.describe(parser.peek())), range: parser.peek().range)
        }
        parser.advance()
        let entity = try parseEntityName(after: "of")
        var query = Query(entity: entity, range: entity.range)
        if parser.check(word: "where") {
            parser.advance()
            query.predicate = try parser.parsePredicate()
        }
        var groupBy: [(path: [String], range: SourceRange)] = []
        if parser.check(word: "group") {
            parser.advance()
            guard parser.check(word: "by") else {
                throw SyntaxError(message: ShellDiagnostics.expected("'by' after 'group'", found: parser.describe(parser.peek())), range: parser.peek().range)
            }
            parser.advance()
            groupBy = try parseKeyPathList()
        }
        var having: Predicate?
        if parser.check(word: "having") {
            parser.advance()
            having = try parser.parsePredicate()
        }
        if parser.check(word: "sort") {
            parser.advance()
            query.sort = try parser.parseSortKeys()
        }
        if parser.check(word: "limit") {
            parser.advance()
            query.limit = try parseCount(after: "limit")
        }
        query.range = entity.range.union(parser.previous.range)
        return AggregateQuery(function: function, keyPath: path, keyRange: keyRange, query: query, groupBy: groupBy, having: having)
    }

    /// insert → "insert" entityName "{" [ assignment { ( "," | ";" ) assignment } ] "}"
    mutating func parseInsert() throws(SyntaxError) -> Statement {
        let entity = try parseEntityName(after: "insert")
        let open = try parser.expect(.leftBrace)
        var assignments: [Assignment] = []
        while !parser.check(.rightBrace) {
            assignments.append(try parseAssignment(separator: .colon))
            if !parser.match(.comma) && !parser.match(.semicolon) { break }
        }
        _ = try parser.expect(.rightBrace, after: open)
        return .insert(entity: entity, assignments: assignments)
    }

    /// assignment → IDENTIFIER { "." IDENTIFIER } ( ":" | "=" ) value
    /// value → "first" query | query | expression
    mutating func parseAssignment(separator: TokenKind) throws(SyntaxError) -> Assignment {
        let token = parser.peek()
        guard token.kind == .identifier else {
            throw SyntaxError(message: ShellDiagnostics.expected("a property name", found: parser.describe(token)), range: token.range)
        }
        var key = parser.name(of: token)
        parser.advance()
        // An element of a composite attribute: `magnitude.richter`.
        while parser.check(.dot), parser.peek(1).kind == .identifier {
            parser.advance()
            key += "." + parser.name(of: parser.advance())
        }
        let range = token.range.union(parser.previous.range)
        _ = try parser.expect(separator)
        return Assignment(key: Name(text: key, range: range), value: try parseValueSource(for: key))
    }

    mutating func parseValueSource(for key: String) throws(SyntaxError) -> ValueSource {
        let token = parser.peek()
        if token.kind == .keyword(.first) {
            parser.advance()
            return .first(try parseQuery(after: "first"))
        }
        if token.kind == .identifier, parser.name(of: token).first?.isUppercase == true,
           parser.check(word: "where", at: 1) || parser.check(word: "sort", at: 1) || parser.check(word: "limit", at: 1) {
            parser.advance()
            return .all(try parseQuery(entityToken: token))
        }
        if token.kind == .end || token.kind == .comma || token.kind == .rightBrace {
            throw SyntaxError(message: ShellDiagnostics.expectedValueFor(key), range: token.range)
        }
        return .expression(try parser.parseExpression())
    }

    /// update → "update" entityName [ "where" predicate ] "set" assignment { "," assignment } [ "direct" ]
    mutating func parseUpdate() throws(SyntaxError) -> Statement {
        let entity = try parseEntityName(after: "update")
        var query = Query(entity: entity, range: entity.range)
        if parser.check(word: "where") {
            parser.advance()
            query.predicate = try parser.parsePredicate()
        }
        guard parser.check(word: "set") else {
            throw SyntaxError(message: ShellDiagnostics.expected("'set'", found: parser.describe(parser.peek())), range: parser.peek().range)
        }
        parser.advance()
        var assignments: [Assignment] = []
        repeat {
            assignments.append(try parseAssignment(separator: .assign))
        } while parser.match(.comma)
        if parser.check(word: "direct") {
            parser.advance()
            return .directUpdate(query, assignments: assignments)
        }
        return .update(query, assignments: assignments)
    }

    /// import → "import" entityName "from" STRING
    mutating func parseImport() throws(SyntaxError) -> Statement {
        let entity = try parseEntityName(after: "import")
        guard parser.check(word: "from") else {
            throw SyntaxError(message: ShellDiagnostics.expected("'from' and a file name in quotes", found: parser.describe(parser.peek())), range: parser.peek().range)
        }
        parser.advance()
        let token = parser.peek()
        guard token.kind == .string else {
            throw SyntaxError(message: ShellDiagnostics.expected("a file name in quotes", found: parser.describe(token)), range: token.range)
        }
        let path = parser.stringValue(of: token)
        parser.advance()
        return .importJSON(entity: entity, path: path, pathRange: token.range)
    }

    /// fetchTemplate → "fetch" [ IDENTIFIER [ "with" binding { "," binding } ] ]
    /// binding → IDENTIFIER ( "=" | ":" ) expression
    mutating func parseTemplateFetch() throws(SyntaxError) -> TemplateFetch {
        let token = parser.peek()
        guard token.kind == .identifier else {
            throw SyntaxError(message: ShellDiagnostics.expected("a fetch request template's name", found: parser.describe(token)), range: token.range)
        }
        parser.advance()
        var fetch = TemplateFetch(name: Name(text: parser.name(of: token), range: token.range), variables: [])
        guard parser.check(word: "with") else { return fetch }
        parser.advance()
        repeat {
            let variable = parser.peek()
            guard variable.kind == .identifier || variable.kind == .variable else {
                throw SyntaxError(message: ShellDiagnostics.expected("a variable name", found: parser.describe(variable)), range: variable.range)
            }
            parser.advance()
            if !parser.match(.assign) { _ = try parser.expect(.colon) }
            var name = parser.name(of: variable)
            if name.hasPrefix("$") { name.removeFirst() }
            fetch.variables.append((Name(text: name, range: variable.range), try parser.parseExpression()))
        } while parser.match(.comma)
        return fetch
    }

    /// let → "let" IDENTIFIER "=" statement
    mutating func parseLet() throws(SyntaxError) -> Statement {
        let token = parser.advance()
        guard token.kind == .identifier else {
            throw SyntaxError(message: ShellDiagnostics.expected("a variable name", found: parser.describe(token)), range: token.range)
        }
        let name = parser.name(of: token)
        _ = try parser.expect(.assign)
        try parser.enter()
        defer { parser.leave() }
        return .letBinding(name: Name(text: name, range: token.range), value: try parseStatement())
    }

    /// entityDecl → "entity" IDENTIFIER [ ":" entityName ] [ "abstract" ] "{" { ( propertyDecl | entityClause ) [ ";" | "," | NEWLINE ] } "}"
    mutating func parseEntityDeclaration() throws(SyntaxError) -> EntityDeclaration {
        let name = try parseEntityName(after: "entity")
        var parent: Name?
        if parser.match(.colon) { parent = try parseEntityName(after: ":") }
        var isAbstract = false
        if parser.check(word: "abstract") {
            parser.advance()
            isAbstract = true
        }
        let open = try parser.expect(.leftBrace)
        var declaration = EntityDeclaration(name: name, parent: parent, isAbstract: isAbstract, properties: [])
        while !parser.check(.rightBrace) && !parser.isAtEnd {
            if ["unique", "index", "userInfo"].contains(where: { parser.check(word: $0) }), parser.peek(1).kind != .colon {
                try parseEntityClause(into: &declaration)
            } else {
                declaration.properties.append(try parsePropertyDeclaration())
            }
            while parser.match(.semicolon) || parser.match(.comma) {}
        }
        _ = try parser.expect(.rightBrace, after: open)
        return declaration
    }

    /// entityClause → "unique" "(" IDENTIFIER { "," IDENTIFIER } ")" | "index" IDENTIFIER "(" sortKeys ")" | "userInfo" userInfo
    mutating func parseEntityClause(into declaration: inout EntityDeclaration) throws(SyntaxError) {
        let word = parser.name(of: parser.advance()).lowercased()
        if word == "userinfo" {
            declaration.userInfo = try parseUserInfo()
            return
        }
        var indexName: Name?
        if word == "index" { indexName = try parseEntityName(after: "index") }
        let open = try parser.expect(.leftParen)
        if let indexName {
            declaration.fetchIndexes.append((indexName, try parser.parseSortKeys()))
        } else {
            var names: [Name] = []
            repeat { names.append(try parseEntityName(after: names.isEmpty ? "(" : ",")) } while parser.match(.comma)
            declaration.uniquenessConstraints.append(names)
        }
        _ = try parser.expect(.rightParen, after: open)
    }

    /// userInfo → "{" [ ( IDENTIFIER | STRING ) ":" STRING { "," ( IDENTIFIER | STRING ) ":" STRING } ] "}"
    mutating func parseUserInfo() throws(SyntaxError) -> [(key: String, value: String)] {
        let open = try parser.expect(.leftBrace)
        var entries: [(key: String, value: String)] = []
        while !parser.check(.rightBrace) {
            let keyToken = parser.advance()
            guard keyToken.kind == .identifier || keyToken.kind == .string else {
                throw SyntaxError(message: ShellDiagnostics.expected("a user info key", found: parser.describe(keyToken)), range: keyToken.range)
            }
            _ = try parser.expect(.colon)
            let valueToken = parser.advance()
            guard valueToken.kind == .string else {
                throw SyntaxError(message: ShellDiagnostics.expected("a string", found: parser.describe(valueToken)), range: valueToken.range)
            }
            let key = keyToken.kind == .string ? keyToken.stringValue(in: parser.source) : parser.name(of: keyToken)
            entries.append((key, valueToken.stringValue(in: parser.source)))
            guard parser.match(.comma) else { break }
        }
        _ = try parser.expect(.rightBrace, after: open)
        return entries
    }

    /// propertyDecl → IDENTIFIER ":" ( typeName [ "=" expression ] | entityName | "[" entityName "]" ) { modifier }
    /// modifier → "required" | "optional" | "transient" | "unique" | "indexed" | "ordered" | deleteRule
    ///          | "inverse" ( IDENTIFIER | "[" IDENTIFIER "]" ) | "min" expression | "max" expression
    ///          | "pattern" STRING | "userInfo" userInfo
    /// deleteRule → "cascade" | "nullify" | "deny" | "noaction"
    mutating func parsePropertyDeclaration() throws(SyntaxError) -> EntityDeclaration.Property {
        let token = parser.peek()
        guard token.kind == .identifier else {
            throw SyntaxError(message: ShellDiagnostics.expected("a property name", found: parser.describe(token)), range: token.range)
        }
        let propertyName = parser.name(of: token)
        parser.advance()
        _ = try parser.expect(.colon)
        let line = parser.previous.range.end.line
        var kind: EntityDeclaration.Property.Kind
        if parser.match(.leftBracket) {
            let open = parser.previous
            let destination = try parseEntityName(after: "[")
            _ = try parser.expect(.rightBracket, after: open)
            kind = .relationship(destination: destination, toMany: true)
        } else {
            let typeName = try parseEntityName(after: ":")
            if AttributeTypeNames.type(named: typeName.text) != nil {
                var defaultValue: Expression?
                if parser.match(.assign) { defaultValue = try parser.parseExpression() }
                kind = .attribute(typeName: typeName, defaultValue: defaultValue)
            } else {
                kind = .relationship(destination: typeName, toMany: false)
            }
        }
        var property = EntityDeclaration.Property(name: Name(text: propertyName, range: token.range), kind: kind, modifiers: [])
        // Modifiers run to the end of the line, `;`, `,` or `}`.
        while parser.peek().kind == .identifier, parser.peek().range.start.line == line {
            let modifier = parser.advance()
            let word = parser.name(of: modifier)
            switch word.lowercased() {
            case "inverse":
                if parser.match(.leftBracket) {
                    let open = parser.previous
                    property.inverse = try parseEntityName(after: "inverse [")
                    property.inverseIsToMany = true
                    _ = try parser.expect(.rightBracket, after: open)
                } else {
                    property.inverse = try parseEntityName(after: "inverse")
                }
            case "min", "max":
                // A relationship's count; an attribute's bound (a length
                // for strings and data), any constant.
                if case .relationship = kind {
                    let count = try parseCount(after: word)
                    if word.lowercased() == "min" { property.minCount = count } else { property.maxCount = count }
                } else {
                    let bound = try parser.parseExpression()
                    if word.lowercased() == "min" { property.minValue = bound } else { property.maxValue = bound }
                }
            case "pattern":
                let pattern = parser.advance()
                guard pattern.kind == .string else {
                    throw SyntaxError(message: ShellDiagnostics.expected("a regular expression in quotes", found: parser.describe(pattern)), range: pattern.range)
                }
                property.pattern = pattern.stringValue(in: parser.source)
            case "userinfo":
                property.userInfo = try parseUserInfo()
            default:
                property.modifiers.append(Name(text: word, range: modifier.range))
            }
        }
        return property
    }
}

/// The attribute type names the `entity` statement accepts.
public enum AttributeTypeNames {
    public static let names: [String: String] = [
        "string": "String", "int16": "Integer 16", "int32": "Integer 32", "int64": "Integer 64", "int": "Integer 64",
        "integer16": "Integer 16", "integer32": "Integer 32", "integer64": "Integer 64",
        "double": "Double", "float": "Float", "decimal": "Decimal", "bool": "Boolean", "boolean": "Boolean",
        "date": "Date", "data": "Binary", "binary": "Binary", "uuid": "UUID", "uri": "URI", "url": "URI",
        "transformable": "Transformable", "undefined": "Undefined",
    ]

    /// The Core Data type name for a shell type name, any case.
    public static func type(named name: String) -> String? {
        names[name.lowercased()]
    }

    /// The shell's name for a Core Data type.
    public static func shellName(of coreDataName: String) -> String {
        ["String": "String", "Integer 16": "Int16", "Integer 32": "Int32", "Integer 64": "Int64", "Double": "Double",
         "Float": "Float", "Decimal": "Decimal", "Boolean": "Bool", "Date": "Date", "Binary": "Data", "UUID": "UUID",
         "URI": "URI", "Transformable": "Transformable", "ObjectID": "ObjectID", "Undefined": "Undefined"][coreDataName] ?? coreDataName
    }
}
