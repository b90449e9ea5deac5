import Foundation
import Testing
@testable import Predicates

/// A token with its value read from the source, as the tests compare them.
enum Lexeme: Equatable {
    case string(String), integer(Int64), double(Double), date(Date)
    case identifier(String), variable(String), collectionOperator(String)
    case other(TokenKind)

    init(_ token: Token, in source: String) {
        switch token.kind {
        case .string: self = .string(token.stringValue(in: source))
        case .integer: self = .integer(token.integerValue)
        case .double: self = .double(token.doubleValue)
        case .date: self = .date(token.dateValue)
        case .identifier: self = .identifier(token.name(in: source))
        case .variable: self = .variable(token.name(in: source))
        case .collectionOperator: self = .collectionOperator(token.name(in: source))
        default: self = .other(token.kind)
        }
    }

    static let end = Lexeme.other(.end)
    static let dot = Lexeme.other(.dot)
    static let colon = Lexeme.other(.colon)
    static let comma = Lexeme.other(.comma)
    static let semicolon = Lexeme.other(.semicolon)
    static let assign = Lexeme.other(.assign)
    static let greater = Lexeme.other(.greater)
    static let leftBrace = Lexeme.other(.leftBrace)
    static let rightBrace = Lexeme.other(.rightBrace)
    static func keyword(_ keyword: Keyword) -> Lexeme { .other(.keyword(keyword)) }
    static func formatArgument(_ spec: FormatSpecifier) -> Lexeme { .other(.formatArgument(spec)) }
}

@Suite struct LexerTests {
    func kinds(_ source: String, _ options: Lexer.Options = []) throws -> [Lexeme] {
        try Lexer.tokenize(source, options: options).map { Lexeme($0, in: source) }
    }

    @Test func operatorsAndPunctuation() throws {
        let source = TokenKind.operatorSpellings.map(\.spelling).joined(separator: " ")
        #expect(try kinds(source) == TokenKind.operatorSpellings.map { .other($0.kind) } + [.end])
    }

    @Test func tokensAreReadFromTheSource() throws {
        let source = #"#first $x @count 'a\tb' "plain" ==[c]"#
        let tokens = try Lexer.tokenize(source)
        #expect(tokens.map { $0.description(in: source) } ==
            ["'first'", "'$x'", "'@count'", "string \"a\tb\"", "string \"plain\"", "'=='", "'['", "'c'", "']'", "end of input"])
        #expect(tokens[0].text(in: source) == "#first")
        #expect(tokens[7].isWord("C", in: source))
    }

    @Test func keywordsAreCaseInsensitive() throws {
        for keyword in Keyword.allCases {
            #expect(try kinds(keyword.rawValue.lowercased()) == [.keyword(keyword), .end])
            #expect(try kinds(keyword.rawValue) == [.keyword(keyword), .end])
        }
        #expect(try kinds("BeginsWith") == [.keyword(.beginsWith), .end])
    }

    @Test func escapedKeywordIsAKey() throws {
        #expect(try kinds("#first.#SIZE") == [.identifier("first"), .dot, .identifier("SIZE"), .end])
    }

    @Test(arguments: [
        ("42", Lexeme.integer(42)), ("0x1f", .integer(31)), ("0o17", .integer(15)), ("0b101", .integer(5)),
        ("1.5", .double(1.5)), ("2e3", .double(2000)), ("1.25E-2", .double(0.0125)), ("1e+20", .double(1e20)),
        ("9223372036854775807", .integer(.max)), ("9223372036854775808", .double(9223372036854775808)),
    ])
    func numbers(source: String, kind: Lexeme) throws {
        #expect(try kinds(source) == [kind, .end])
    }

    @Test func strings() throws {
        #expect(try kinds(#""a\"b" 'c\'d' "\\ \n \t \r \0""#) ==
            [.string("a\"b"), .string("c'd"), .string("\\ \n \t \r \0"), .end])
        #expect(try kinds(#""\u00e9\uD83D\uDE00""#) == [.string("é😀"), .end])
        #expect(try kinds(#""\\d+""#) == [.string("\\d+"), .end])
        #expect(try kinds("'Zoë'") == [.string("Zoë"), .end])
    }

    @Test func namesVariablesOperatorsArguments() throws {
        #expect(try kinds("$x @count %@ %K %d %i %f %ld %lld %u %% café") == [
            .variable("x"), .collectionOperator("count"), .formatArgument(.object), .formatArgument(.keyPath),
            .formatArgument(.int), .formatArgument(.integer), .formatArgument(.float), .formatArgument(.long),
            .formatArgument(.longLong), .formatArgument(.unsigned), .formatArgument(.percent), .identifier("café"), .end,
        ])
    }

    @Test func dates() throws {
        let tokens = try kinds("@2024-01-31 @2024-01-31T10:00:00Z @2024-01-31T10:00:00.5+01:00")
        #expect(tokens[0] == .date(Date(timeIntervalSince1970: 1_706_659_200)))
        #expect(tokens[1] == .date(Date(timeIntervalSince1970: 1_706_695_200)))
        #expect(tokens[2] == .date(Date(timeIntervalSince1970: 1_706_691_600.5)))
    }

    @Test func shellStatementLines() throws {
        #expect(try kinds("Person where age > 18 sort LastName:NO,FirstName limit 10") == [
            .identifier("Person"), .identifier("where"), .identifier("age"), .greater, .integer(18),
            .identifier("sort"), .identifier("LastName"), .colon, .keyword(.no), .comma, .identifier("FirstName"),
            .identifier("limit"), .integer(10), .end,
        ])
        #expect(try kinds("insert Person { firstName: \"John\", age: 30 }") == [
            .identifier("insert"), .identifier("Person"), .leftBrace, .identifier("firstName"), .colon,
            .string("John"), .comma, .identifier("age"), .colon, .integer(30), .rightBrace, .end,
        ])
        #expect(try kinds("let x = 3; count Person") == [
            .identifier("let"), .identifier("x"), .assign, .integer(3), .semicolon, .identifier("count"),
            .identifier("Person"), .end,
        ])
    }

    @Test func shellComments() throws {
        #expect(try kinds("# a comment\nage > 1 # trailing\n#first", .shellComments) ==
            [.identifier("age"), .greater, .integer(1), .identifier("first"), .end])
        #expect(throws: SyntaxError.self) { try kinds("# comment") }
    }

    @Test func locations() throws {
        let tokens = try Lexer.tokenize("a ==\n  'é' b")
        #expect(tokens[1].range == SourceRange(start: SourceLocation(line: 1, column: 3, offset: 2),
                                               end: SourceLocation(line: 1, column: 5, offset: 4)))
        #expect(tokens[2].range.start == SourceLocation(line: 2, column: 3, offset: 7))
        #expect(tokens[3].range.start == SourceLocation(line: 2, column: 7, offset: 12))
        #expect(tokens[4].kind == .end)
        #expect(tokens[4].range.start.offset == 13)
    }

    /// Names and strings of every length around a small String's 15
    /// bytes, ASCII or not, are read whole from the source.
    @Test func namesAndStringsOfEveryLengthAreReadWhole() throws {
        for length in 1...20 {
            for letter in ["a", "é", "語"] {
                let name = String(repeating: letter, count: length)
                let source = "\(name) == '\(name)' AND #\(name) != \"\(name)x\""
                #expect(try kinds(source) == [.identifier(name), .other(.equal), .string(name), .keyword(.and),
                                              .identifier(name), .other(.notEqual), .string(name + "x"), .end])
            }
        }
    }

    /// A decimal literal is the double `Double(text)` reads, to the bit:
    /// those of up to 15 digits without an exponent (divided exactly in
    /// the lexer) and longer ones or with an exponent (parsed as text).
    @Test func decimalLiteralsAreTheDoublesTheirTextIs() throws {
        var generator = SystemRandomNumberGenerator()
        var texts = ["500.5", "250.25", "0.1", "0.3", "0.2", "1.7976931348623", "999999999999999.9",
                     "99999999999999.9", "0.000000000000001", "0.00000000000001", "123456789012.345",
                     "1234567890123.456", "9007199254740.993", "007.50", "1.5e3", "2.5E-3", "1e22"]
        for _ in 0..<3_000 {
            let digits = Int.random(in: 2...18, using: &generator)
            let text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let point = Int.random(in: 1..<digits, using: &generator)
            texts.append(String(text.prefix(point)) + "." + String(text.dropFirst(point)))
        }
        for text in texts {
            let tokens = try Lexer.tokenize(text)
            let expected = try #require(Double(text))
            #expect(tokens.count == 2 && tokens[0].kind == .double, "\(text)")
            #expect(tokens[0].doubleValue.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    /// Blanks other than a newline each move one column; a newline starts
    /// the next line at column 1.
    @Test func blanksMoveOneColumnEach() throws {
        let tokens = try Lexer.tokenize("a \t\u{0B}\u{0C}\r b\n \tc")
        #expect(tokens[1].range.start == SourceLocation(line: 1, column: 8, offset: 7))
        #expect(tokens[2].range.start == SourceLocation(line: 2, column: 3, offset: 11))
    }

    @Test(arguments: [
        ("a ~ b", "unexpected character '~'", 2, 3),
        ("'abc", "unterminated string", 0, 4),
        ("18abc", "invalid number '18abc'", 0, 5),
        ("0x", "invalid number '0x'", 0, 2),
        ("0xFFFFFFFFFFFFFFFFFF", "integer '0xFFFFFFFFFFFFFFFFFF' does not fit in 64 bits", 0, 20),
        ("%q", "unknown format specifier '%q', expected %@, %K, %% or a printf conversion such as %d %lu %x %f %g", 0, 2),
        ("@2024-13-01", "invalid date '@2024-13-01', expected @YYYY-MM-DD or @YYYY-MM-DDTHH:MM:SSZ", 0, 11),
        ("a → b", "unexpected character '→'", 2, 5),
    ])
    func lexicalErrors(source: String, message: String, start: Int, end: Int) {
        do {
            _ = try Lexer.tokenize(source)
            Issue.record("no error for \(source)")
        } catch {
            #expect(error.message == message)
            #expect(error.range.offsets == start..<end)
        }
    }

    @Test func dumpListsTokens() throws {
        let dump = Lexer.dump(try Lexer.tokenize("age > 18"), source: "age > 18")
        #expect(dump == "1:1-1:4 identifier age\n1:5-1:6 punctuation >\n1:7-1:9 integer 18\n1:9-1:9 end")
    }

    /// The parser looks at a token many times per token: a look must be a
    /// plain copy, with no string or reference inside to retain and
    /// release, so a format specifier keeps its spelling packed in the
    /// token and not as a String.
    @Test func tokensArePlainValues() {
        #expect(_isPOD(TokenKind.self))
        #expect(_isPOD(Token.self))
        #expect(_isPOD(FormatSpecifier.self))
    }

    /// Every specifier the lexer accepts keeps its spelling and conversion
    /// through the packed form, and the others are refused.
    @Test func everyFormatSpecifierKeepsItsSpelling() {
        var valid = 0
        for length in ["", "h", "hh", "l", "ll", "q", "z", "t", "j", "L", "lh"] {
            for conversion in "diouxXeEfFgGaAcCsS@K%yw" {
                let text = "%" + length + String(conversion)
                guard let spec = FormatSpecifier(rawValue: text) else { continue }
                valid += 1
                #expect(spec.rawValue == text)
                #expect(spec.conversion == conversion)
                #expect(spec.takesInteger == "diouxXcC".contains(conversion))
                #expect(FormatSpecifier(rawValue: text) == spec)
            }
        }
        // 21 bare conversions, 6 integer ones with 8 lengths, 8 float ones with 2.
        #expect(valid == 21 + 6 * 8 + 8 * 2)
        #expect(FormatSpecifier(rawValue: "%lld") != FormatSpecifier(rawValue: "%ld"))
        #expect(FormatSpecifier(rawValue: "") == nil)
        #expect(FormatSpecifier(rawValue: "%") == nil)
        #expect(FormatSpecifier(rawValue: "%llld") == nil)
    }
}
