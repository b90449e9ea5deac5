import Foundation

/// Turns source text into tokens, scanning UTF-8 bytes.
///
/// ```swift
/// let tokens = try Lexer.tokenize("age > 18 AND name BEGINSWITH[c] 'eng'")
/// ```
///
/// The lexer knows nothing about predicates beyond their words, so the
/// shell reuses it for whole statement lines (`insert Person { age: 3 }`,
/// `let x = 3; count Person`). The token array always ends with `.end`.
/// Unknown characters throw a ``SyntaxError`` with the character's range.
public struct Lexer: Sendable {
    /// Lexer options.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `#` followed by a space, a tab or the end of the line starts a
        /// comment running to the end of the line; `#word` stays an escaped
        /// key.
        public static let shellComments = Options(rawValue: 1)
    }

    /// The text to scan.
    public let source: String
    /// How to scan it: with or without shell comments.
    public let options: Options

    /// A lexer over `source`; ``tokenize()`` does the scanning.
    ///
    /// ```swift
    /// let lexer = Lexer(source: "age > 18 # adults", options: .shellComments)
    /// let tokens = try lexer.tokenize()   // age, >, 18, end
    /// ```
    public init(source: String, options: Options = []) {
        self.source = source
        self.options = options
    }

    /// All tokens of `source`, ending with an `.end` token.
    public static func tokenize(_ source: String, options: Options = []) throws(SyntaxError) -> [Token] {
        try Lexer(source: source, options: options).tokenize()
    }

    /// All tokens of the source, ending with an `.end` token.
    public func tokenize() throws(SyntaxError) -> [Token] {
        var copy = source
        let options = self.options
        let result: Result<[Token], SyntaxError> = copy.withUTF8 { buffer in
            var scanner = Scanner(bytes: buffer, options: options)
            do throws(SyntaxError) {
                return .success(try scanner.scanAll())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// A one-token-per-line dump for `explain`: `1:1-1:4 identifier age`.
    public static func dump(_ tokens: [Token], source: String) -> String {
        tokens.map { token in
            "\(token.range.start)-\(token.range.end) \(token.dumpName(in: source))"
        }.joined(separator: "\n")
    }

    /// The value of the string literal at `range` of `source`, escapes
    /// decoded (the literal lexed without error).
    static func decodeString(_ source: String, range: SourceRange) -> String {
        var copy = source
        return copy.withUTF8 { buffer in
            var scanner = Scanner(bytes: buffer, options: [])
            scanner.pos = range.start.offset
            let decoded = try? scanner.scanString(start: range.start)
            return (decoded ?? nil) ?? Token.slice(source, range.start.offset + 1, range.end.offset - 1)
        }
    }
}

extension Token {
    func dumpName(in source: String) -> String {
        switch kind {
        case .string: return "string \(Printer.quote(stringValue(in: source)))"
        case .integer: return "integer \(integerValue)"
        case .double: return "double \(doubleValue)"
        case .date: return "date \(Printer.dateLiteral(dateValue) ?? "\(dateValue)")"
        case .identifier: return "identifier \(name(in: source))"
        case .variable: return "variable $\(name(in: source))"
        case .collectionOperator: return "collectionOperator @\(name(in: source))"
        case .formatArgument(let spec): return "formatArgument \(spec.rawValue)"
        case .keyword(let keyword): return "keyword \(keyword.rawValue)"
        case .end: return "end"
        default: return "punctuation \(TokenKind.spelling(of: kind) ?? "?")"
        }
    }
}

// MARK: - Scanner

private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let options: Lexer.Options
    var pos = 0
    var line = 1
    var column = 1
    /// The payload of the token just scanned (see `Token.bits`).
    var bits: UInt64 = 0

    init(bytes: UnsafeBufferPointer<UInt8>, options: Lexer.Options) {
        self.bytes = bytes
        self.options = options
    }

    var location: SourceLocation { SourceLocation(line: line, column: column, offset: pos) }

    @inline(__always) func byte(at index: Int) -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always) mutating func bump() {
        let b = bytes[pos]
        pos += 1
        if b == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {
            column += 1
        }
    }

    @inline(__always) mutating func bump(_ count: Int) {
        for _ in 0..<count { bump() }
    }

    mutating func scanAll() throws(SyntaxError) -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count / 3 + 2)
        while true {
            skipTrivia()
            let start = location
            guard pos < bytes.count else {
                tokens.append(Token(kind: .end, range: SourceRange(at: start)))
                return tokens
            }
            bits = 0
            let kind: TokenKind
            do {
                kind = try scanToken(start: start)
            } catch {
                throw quoteEndedEarly(error, at: start, after: tokens) ?? error
            }
            tokens.append(Token(kind: kind, range: SourceRange(start: start, end: location), bits: bits))
        }
    }

    /// `'O'Brien'`: the string `'O'` ends at the apostrophe, `Brien` is a
    /// word and the last quote opens a string that never ends. The error
    /// then points at the quote that ended the string early, and says how
    /// to write the string whole.
    func quoteEndedEarly(_ error: SyntaxError, at start: SourceLocation, after tokens: [Token]) -> SyntaxError? {
        guard error.message == Diagnostic.unterminatedString.message, tokens.count >= 2,
              let word = tokens.last, word.kind == .identifier, word.range.end.offset == start.offset,
              case let string = tokens[tokens.count - 2], string.kind == .string,
              string.range.end.offset == word.range.start.offset, string.range.start.line == start.line,
              string.range.end.offset - string.range.start.offset >= 2 else { return nil }
        let quote = bytes[start.offset]
        guard bytes[string.range.end.offset - 1] == quote, bytes[string.range.start.offset] == quote else { return nil }
        func text(_ lo: Int, _ hi: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[lo..<hi]), as: UTF8.self)
        }
        let q = String(UnicodeScalar(quote))
        let whole = text(string.range.start.offset + 1, string.range.end.offset - 1) + q
            + text(word.range.start.offset, word.range.end.offset)
        let other = q == "'" ? "\"" : "'"
        let escaped = q + whole.replacingOccurrences(of: q, with: "\\" + q) + q
        let early = SourceLocation(line: string.range.end.line, column: string.range.end.column - 1,
                                   offset: string.range.end.offset - 1)
        return SyntaxError(.quoteEndsStringEarly(text(string.range.start.offset, string.range.end.offset),
                                                 escaped: escaped, otherQuotes: other + whole + other),
                           at: SourceRange(start: early, end: string.range.end))
    }

    mutating func skipTrivia() {
        while pos < bytes.count {
            switch bytes[pos] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                // A blank other than a newline is one column on, without
                // `bump`'s test for a line's end (mrq-bench e. parse ×20).
                pos += 1
                column += 1
            case UInt8(ascii: "\n"):
                bump()
            case UInt8(ascii: "#") where options.contains(.shellComments):
                let next = byte(at: pos + 1)
                guard next == nil || next == UInt8(ascii: " ") || next == UInt8(ascii: "\t")
                    || next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r") else { return }
                while pos < bytes.count, bytes[pos] != UInt8(ascii: "\n") { bump() }
            default:
                return
            }
        }
    }

    mutating func scanToken(start: SourceLocation) throws(SyntaxError) -> TokenKind {
        let b = bytes[pos]
        let next = byte(at: pos + 1)
        switch b {
        case UInt8(ascii: "("): bump(); return .leftParen
        case UInt8(ascii: ")"): bump(); return .rightParen
        case UInt8(ascii: "{"): bump(); return .leftBrace
        case UInt8(ascii: "}"): bump(); return .rightBrace
        case UInt8(ascii: "["): bump(); return .leftBracket
        case UInt8(ascii: "]"): bump(); return .rightBracket
        case UInt8(ascii: ","): bump(); return .comma
        case UInt8(ascii: "."): bump(); return .dot
        case UInt8(ascii: ":"): bump(); return .colon
        case UInt8(ascii: ";"): bump(); return .semicolon
        case UInt8(ascii: "+"): bump(); return .plus
        case UInt8(ascii: "-"): bump(); return .minus
        case UInt8(ascii: "/"): bump(); return .slash
        case UInt8(ascii: "*"):
            if next == UInt8(ascii: "*") { bump(2); return .power }
            bump(); return .star
        case UInt8(ascii: "="):
            if next == UInt8(ascii: "=") { bump(2); return .equal }
            if next == UInt8(ascii: "<") { bump(2); return .lessEqual }
            if next == UInt8(ascii: ">") { bump(2); return .greaterEqual }
            bump(); return .assign
        case UInt8(ascii: "!"):
            if next == UInt8(ascii: "=") { bump(2); return .notEqual }
            bump(); return .keyword(.not)
        case UInt8(ascii: "<"):
            if next == UInt8(ascii: "=") { bump(2); return .lessEqual }
            if next == UInt8(ascii: ">") { bump(2); return .notEqual }
            bump(); return .less
        case UInt8(ascii: ">"):
            if next == UInt8(ascii: "=") { bump(2); return .greaterEqual }
            bump(); return .greater
        case UInt8(ascii: "&"):
            if next == UInt8(ascii: "&") { bump(2); return .keyword(.and) }
            throw unexpectedCharacter(start)
        case UInt8(ascii: "|"):
            if next == UInt8(ascii: "|") { bump(2); return .keyword(.or) }
            throw unexpectedCharacter(start)
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            if try scanString(start: start) != nil { bits = 1 }
            return .string
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try scanNumber(start: start)
        case UInt8(ascii: "#"):
            guard next != nil, startsIdentifier(at: pos + 1) else { throw unexpectedCharacter(start) }
            bump()
            _ = skipIdentifier()
            return .identifier
        case UInt8(ascii: "$"):
            guard next != nil, startsIdentifier(at: pos + 1) else {
                bump()
                throw SyntaxError(.expectedVariableName, at: SourceRange(start: start, end: location))
            }
            bump()
            _ = skipIdentifier()
            return .variable
        case UInt8(ascii: "@"):
            if let n = next, Scanner.isDigit(n) { return try scanDate(start: start) }
            guard next != nil, startsIdentifier(at: pos + 1) else {
                bump()
                throw SyntaxError(.expectedCollectionOperator, at: SourceRange(start: start, end: location))
            }
            bump()
            _ = skipIdentifier()
            return .collectionOperator
        case UInt8(ascii: "%"):
            return try scanFormatArgument(start: start)
        default:
            if b < 0x80 ? Scanner.isIdentifierStart(b) : isIdentifierScalar(at: pos, start: true) { return scanWord() }
            throw unexpectedCharacter(start)
        }
    }

    mutating func unexpectedCharacter(_ start: SourceLocation) -> SyntaxError {
        // Consume one whole scalar so the range covers it.
        let first = pos
        bump()
        while pos < bytes.count, bytes[pos] & 0xC0 == 0x80 { bump() }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<pos]), as: UTF8.self)
        return SyntaxError(.unexpectedCharacter(text), at: SourceRange(start: start, end: location))
    }

    // MARK: Names

    @inline(__always) static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || b == UInt8(ascii: "_") || b >= 0x80
    }

    @inline(__always) static func isIdentifierContinue(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || isDigit(b)
    }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool {
        b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    func startsIdentifier(at index: Int) -> Bool {
        guard index < bytes.count else { return false }
        let b = bytes[index]
        return b < 0x80 ? Scanner.isIdentifierStart(b) : isIdentifierScalar(at: index, start: true)
    }

    /// True when the non-ASCII scalar at `index` may appear in a key
    /// (Unicode XID_Start, or XID_Continue when not at the start).
    func isIdentifierScalar(at index: Int, start: Bool) -> Bool {
        var end = index + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80, end - index < 4 { end += 1 }
        var decoder = UTF8()
        var iterator = UnsafeBufferPointer(rebasing: bytes[index..<end]).makeIterator()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return false }
        return start ? scalar.properties.isXIDStart : scalar.properties.isXIDContinue
    }

    /// Consumes identifier bytes; non-ASCII scalars must be XID_Continue.
    mutating func skipIdentifier() -> Bool {
        var ascii = true
        while pos < bytes.count {
            let b = bytes[pos]
            if b < 0x80 {
                guard Scanner.isIdentifierContinue(b) else { break }
                pos += 1
                column += 1
            } else {
                guard isIdentifierScalar(at: pos, start: false) else { break }
                ascii = false
                pos += 1
                column += 1
                while pos < bytes.count, bytes[pos] & 0xC0 == 0x80 { pos += 1 }
            }
        }
        return ascii
    }

    /// A key or a keyword. The ASCII run is packed, uppercased, as it is
    /// scanned, so the keyword lookup reads no byte twice and builds no
    /// String.
    mutating func scanWord() -> TokenKind {
        let first = pos
        var low: UInt64 = 0, high: UInt64 = 0
        // The run is read in locals and stored back once: `pos` and
        // `column` are the scanner's, written through at every byte
        // otherwise (mrq-bench e. parse ×20).
        let bytes = self.bytes
        var end = first
        while end < bytes.count {
            let b = bytes[end]
            guard b < 0x80, Scanner.isIdentifierContinue(b) else { break }
            let n = end &- first
            let c = b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") ? b &- 32 : b
            if n < 8 { low |= UInt64(c) &<< (8 &* UInt64(n)) } else if n < 16 { high |= UInt64(c) &<< (8 &* UInt64(n &- 8)) }
            end &+= 1
        }
        column += end - first
        pos = end
        // A word with a non-ASCII letter is never a keyword.
        if pos < bytes.count, bytes[pos] >= 0x80, !skipIdentifier() { return .identifier }
        if pos - first == 3, byte(at: pos) == UInt8(ascii: "-"), let keyword = scanHyphenated(from: first) {
            return .keyword(keyword)
        }
        if let keyword = Keyword.lookup(low: low, high: high, length: pos - first) { return .keyword(keyword) }
        return .identifier
    }

    /// `UTI-CONFORMS-TO` and `UTI-EQUALS`: one keyword with hyphens, when
    /// the letters and hyphens from `first` spell one; otherwise `UTI`
    /// stays a key and `-` a minus.
    mutating func scanHyphenated(from first: Int) -> Keyword? {
        var end = pos
        while end - first <= 16, let b = byte(at: end), b == UInt8(ascii: "-") || Scanner.isIdentifierStart(b) && b < 0x80 {
            end += 1
        }
        guard let keyword = Keyword.lookup(UnsafeBufferPointer(rebasing: bytes[first..<end])),
              keyword == .utiConformsTo || keyword == .utiEquals,
              byte(at: end).map({ !Scanner.isIdentifierContinue($0) }) ?? true else { return nil }
        bump(end - pos)
        return keyword
    }

    mutating func scanFormatArgument(start: SourceLocation) throws(SyntaxError) -> TokenKind {
        let first = pos
        let length = FormatSpecifier.scanLength { byte(at: first + $0) }
        bump(length)
        // The character after the length letters belongs to the
        // specifier, valid or not, so an error names all of it (`%lu`,
        // `%y`, `%lé`).
        if pos < bytes.count, bytes[pos] > 0x20 {
            bump()
            while pos < bytes.count, bytes[pos] & 0xC0 == 0x80 { bump() }
        }
        let text = Array(UnsafeBufferPointer(rebasing: bytes[first..<pos]))
        guard let spec = FormatSpecifier(bytes: text) else {
            throw SyntaxError(.unknownFormatSpecifier(String(decoding: text, as: UTF8.self)),
                              at: SourceRange(start: start, end: location))
        }
        return .formatArgument(spec)
    }

    // MARK: Strings

    /// Scans a string literal; nil when it has no escapes (its value is
    /// then the text between the quotes), else the decoded value.
    mutating func scanString(start: SourceLocation) throws(SyntaxError) -> String? {
        let quote = bytes[pos]
        bump()
        let contentStart = pos
        // Fast path: no escapes.
        while pos < bytes.count {
            let b = bytes[pos]
            if b == quote {
                bump()
                return nil
            }
            if b == UInt8(ascii: "\\") { break }
            if b == UInt8(ascii: "\n") {
                throw SyntaxError(.unterminatedString, at: SourceRange(start: start, end: location))
            }
            bump()
        }
        var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[contentStart..<pos]))
        while pos < bytes.count {
            let b = bytes[pos]
            if b == quote {
                bump()
                return String(decoding: out, as: UTF8.self)
            }
            if b == UInt8(ascii: "\n") { break }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                bump()
                continue
            }
            let escapeStart = location
            bump()
            guard let e = byte(at: pos) else { break }
            try scanEscape(e, from: escapeStart, into: &out)
        }
        throw SyntaxError(.unterminatedString, at: SourceRange(start: start, end: location))
    }

    /// Decodes the escape after a backslash, Apple's list: `\a \b \f \n
    /// \r \t \v \" \' \\`, `\0` (NUL), `\ooo` (three octal digits),
    /// `\xHH` (two hex digits), `\uHHHH` and `\UHHHH` (four hex digits;
    /// a surrogate pair combines). Anything else is an error at the escape:
    /// a regular expression writes its backslash twice, `"\\d+"`.
    mutating func scanEscape(_ e: UInt8, from escapeStart: SourceLocation, into out: inout [UInt8]) throws(SyntaxError) {
        func invalid(_ scanner: Scanner) -> SyntaxError {
            SyntaxError(.invalidEscape(String(decoding: UnsafeBufferPointer(rebasing: scanner.bytes[escapeStart.offset..<scanner.pos]),
                                              as: UTF8.self)),
                        at: SourceRange(start: escapeStart, end: scanner.location))
        }
        var scalar: UInt32
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"): out.append(e); bump(); return
        case UInt8(ascii: "a"): out.append(0x07); bump(); return
        case UInt8(ascii: "b"): out.append(0x08); bump(); return
        case UInt8(ascii: "f"): out.append(0x0C); bump(); return
        case UInt8(ascii: "n"): out.append(0x0A); bump(); return
        case UInt8(ascii: "r"): out.append(0x0D); bump(); return
        case UInt8(ascii: "t"): out.append(0x09); bump(); return
        case UInt8(ascii: "v"): out.append(0x0B); bump(); return
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            guard let o2 = byte(at: pos + 1), let o3 = byte(at: pos + 2),
                  (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(o2), (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(o3) else {
                guard e == UInt8(ascii: "0") else {
                    bump()
                    throw invalid(self)
                }
                out.append(0x00)
                bump()
                return
            }
            scalar = UInt32(e - 48) << 6 | UInt32(o2 - 48) << 3 | UInt32(o3 - 48)
            bump(3)
        case UInt8(ascii: "x"):
            bump()
            guard let h1 = byte(at: pos).flatMap(Scanner.hexValue) else { throw invalid(self) }
            bump()
            guard let h2 = byte(at: pos).flatMap(Scanner.hexValue) else { throw invalid(self) }
            bump()
            scalar = UInt32(h1) << 4 | UInt32(h2)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            bump()
            guard let hex = scanHex4() else {
                throw SyntaxError(.invalidUnicodeEscape, at: SourceRange(start: escapeStart, end: location))
            }
            scalar = hex
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by `\u` and a low one.
                guard byte(at: pos) == UInt8(ascii: "\\"), byte(at: pos + 1) == UInt8(ascii: "u") || byte(at: pos + 1) == UInt8(ascii: "U") else {
                    throw SyntaxError(.invalidUnicodeEscape, at: SourceRange(start: escapeStart, end: location))
                }
                bump(2)
                guard let low = scanHex4(), (0xDC00...0xDFFF).contains(low) else {
                    throw SyntaxError(.invalidUnicodeEscape, at: SourceRange(start: escapeStart, end: location))
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
        default:
            bump()
            while pos < bytes.count, bytes[pos] & 0xC0 == 0x80 { bump() }
            throw invalid(self)
        }
        guard let value = Unicode.Scalar(scalar) else {
            throw SyntaxError(.invalidUnicodeEscape, at: SourceRange(start: escapeStart, end: location))
        }
        out.append(contentsOf: Array(String(Character(value)).utf8))
    }

    mutating func scanHex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = byte(at: pos), let digit = Scanner.hexValue(b) else { return nil }
            value = value << 4 | UInt32(digit)
            bump()
        }
        return value
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    // MARK: Numbers

    mutating func scanNumber(start: SourceLocation) throws(SyntaxError) -> TokenKind {
        let first = pos
        if bytes[pos] == UInt8(ascii: "0"), let p = byte(at: pos + 1) {
            let radix: UInt64
            switch p {
            case UInt8(ascii: "x"), UInt8(ascii: "X"): radix = 16
            case UInt8(ascii: "o"), UInt8(ascii: "O"): radix = 8
            case UInt8(ascii: "b"), UInt8(ascii: "B"): radix = 2
            default: radix = 0
            }
            if radix != 0 {
                bump(2)
                var value: UInt64 = 0
                var digits = 0
                var overflow = false
                while let b = byte(at: pos), let d = Scanner.hexValue(b), UInt64(d) < radix {
                    let (m, o1) = value.multipliedReportingOverflow(by: radix)
                    let (s, o2) = m.addingReportingOverflow(UInt64(d))
                    overflow = overflow || o1 || o2
                    value = s
                    digits += 1
                    bump()
                }
                try finishNumber(first: first, start: start, valid: digits > 0)
                guard !overflow, value <= UInt64(Int64.max) else {
                    throw SyntaxError(.integerTooLarge(text(from: first)), at: SourceRange(start: start, end: location))
                }
                bits = value
                return .integer
            }
        }
        var value: Int64 = 0
        var overflow = false
        while let b = byte(at: pos), Scanner.isDigit(b) {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(b - UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            value = s
            bump()
        }
        var isDouble = false
        // The digits as one integer and how many follow the point, for
        // `exactDouble` (wrapping: used only when there are few enough).
        let integerDigits = pos - first
        var mantissa = value
        var fractionDigits = 0
        var hasExponent = false
        if byte(at: pos) == UInt8(ascii: "."), let d = byte(at: pos + 1), Scanner.isDigit(d) {
            isDouble = true
            bump()
            while let b = byte(at: pos), Scanner.isDigit(b) {
                mantissa = mantissa &* 10 &+ Int64(b &- UInt8(ascii: "0"))
                fractionDigits += 1
                bump()
            }
        }
        if let e = byte(at: pos), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var look = pos + 1
            if let s = byte(at: look), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { look += 1 }
            if let d = byte(at: look), Scanner.isDigit(d) {
                isDouble = true
                hasExponent = true
                bump(look - pos)
                while let b = byte(at: pos), Scanner.isDigit(b) { bump() }
            }
        }
        try finishNumber(first: first, start: start, valid: true)
        if isDouble && !overflow && !hasExponent && integerDigits + fractionDigits <= 15 {
            bits = Scanner.exactDouble(mantissa, fractionDigits: fractionDigits).bitPattern
            return .double
        }
        if isDouble || overflow {
            guard let d = Double(text(from: first)) else {
                throw SyntaxError(.invalidNumber(text(from: first)), at: SourceRange(start: start, end: location))
            }
            bits = d.bitPattern
            return .double
        }
        bits = UInt64(bitPattern: value)
        return .integer
    }

    /// `mantissa` / 10^`fractionDigits`, for a literal of at most 15
    /// digits without an exponent (`500.5`): the mantissa is then below
    /// 2^53 and the power of ten at most 10^15, both exact doubles, so the
    /// one division rounds correctly and gives what `Double(text)` does
    /// (Clinger's fast path), without a String made and parsed for it
    /// (~700 instructions a literal, mrq-bench e. parse ×20).
    static func exactDouble(_ mantissa: Int64, fractionDigits: Int) -> Double {
        var power = 1.0
        for _ in 0..<fractionDigits { power *= 10 }
        return Double(mantissa) / power
    }

    /// Rejects numbers running into letters, such as `18abc` or `0x`.
    mutating func finishNumber(first: Int, start: SourceLocation, valid: Bool) throws(SyntaxError) {
        if !valid || (pos < bytes.count && Scanner.isIdentifierContinue(bytes[pos])) {
            while pos < bytes.count, Scanner.isIdentifierContinue(bytes[pos]) { bump() }
            throw SyntaxError(.invalidNumber(text(from: first)), at: SourceRange(start: start, end: location))
        }
    }

    func text(from first: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<pos]), as: UTF8.self)
    }

    // MARK: Dates

    /// `@YYYY-MM-DD[THH:MM[:SS[.fff]][Z|±HH:MM]]`, UTC unless a zone is given.
    mutating func scanDate(start: SourceLocation) throws(SyntaxError) -> TokenKind {
        let first = pos
        bump()
        func digits(_ count: Int) -> Int? {
            var value = 0
            for i in 0..<count {
                guard let b = byte(at: pos + i), Scanner.isDigit(b) else { return nil }
                value = value * 10 + Int(b - UInt8(ascii: "0"))
            }
            bump(count)
            return value
        }
        func take(_ c: Character) -> Bool {
            guard byte(at: pos) == c.asciiValue else { return false }
            bump()
            return true
        }
        func fail() -> SyntaxError {
            while pos < bytes.count, Scanner.isIdentifierContinue(bytes[pos])
                || bytes[pos] == UInt8(ascii: ":") || bytes[pos] == UInt8(ascii: "-")
                || bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: ".") { bump() }
            return SyntaxError(.invalidDate(text(from: first)), at: SourceRange(start: start, end: location))
        }
        guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2) else {
            throw fail()
        }
        guard (1...12).contains(month), day >= 1, day <= DateMath.daysIn(month: month, year: year) else {
            throw fail()
        }
        var seconds = Double(DateMath.daysFromCivil(year: year, month: month, day: day) * 86_400)
        if take("T") {
            guard let hour = digits(2), take(":"), let minute = digits(2), hour < 24, minute < 60 else { throw fail() }
            var second = 0
            var fraction = 0.0
            if take(":") {
                guard let s = digits(2), s < 60 else { throw fail() }
                second = s
                if byte(at: pos) == UInt8(ascii: "."), let d = byte(at: pos + 1), Scanner.isDigit(d) {
                    let fracStart = pos
                    bump()
                    while let b = byte(at: pos), Scanner.isDigit(b) { bump() }
                    fraction = Double("0" + text(from: fracStart)) ?? 0
                }
            }
            var zoneOffset = 0
            if take("Z") {
                zoneOffset = 0
            } else if let s = byte(at: pos), s == UInt8(ascii: "+") || s == UInt8(ascii: "-"),
                      let d = byte(at: pos + 1), Scanner.isDigit(d) {
                bump()
                guard let zh = digits(2), take(":"), let zm = digits(2), zh < 24, zm < 60 else { throw fail() }
                zoneOffset = (zh * 3600 + zm * 60) * (s == UInt8(ascii: "-") ? -1 : 1)
            }
            seconds += Double(hour * 3600 + minute * 60 + second - zoneOffset) + fraction
        }
        if pos < bytes.count, Scanner.isIdentifierContinue(bytes[pos]) { throw fail() }
        bits = seconds.bitPattern
        return .date
    }
}

/// Calendar arithmetic for date literals, proleptic Gregorian, UTC.
enum DateMath {
    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
