import Foundation

/// A position in source text.
///
/// ```swift
/// let start = SourceLocation(line: 1, column: 1, offset: 0)
/// ```
///
/// `line` and `column` are 1-based; the column counts Unicode scalars from
/// the start of the line. `offset` is the 0-based UTF-8 byte offset.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The line, counting from 1.
    public var line: Int
    /// The column, counting Unicode scalars from 1 at the start of the line.
    public var column: Int
    /// The UTF-8 byte offset from the start of the source, counting from 0.
    public var offset: Int

    /// A location from its three coordinates; they must agree with each other
    /// in the source it points into.
    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// The start of any source: line 1, column 1, offset 0.
    public static let start = SourceLocation(line: 1, column: 1, offset: 0)

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        lhs.offset < rhs.offset
    }

    /// `line:column`, as diagnostics print it.
    public var description: String { "\(line):\(column)" }
}

/// A half-open range of source text, `start..<end`.
///
/// ```swift
/// let range = token.range   // "AND" at 1:7 covers offsets 6..<9
/// ```
public struct SourceRange: Sendable, Hashable, CustomStringConvertible {
    /// The first character of the range.
    public var start: SourceLocation
    /// Just past the last character of the range.
    public var end: SourceLocation

    /// The range from `start` up to, not including, `end`.
    public init(start: SourceLocation, end: SourceLocation) {
        self.start = start
        self.end = end
    }

    /// An empty range at `location`.
    public init(at location: SourceLocation) {
        self.start = location
        self.end = location
    }

    /// The range covering both `self` and `other`.
    public func union(_ other: SourceRange) -> SourceRange {
        SourceRange(start: min(start, other.start), end: max(end, other.end))
    }

    /// The UTF-8 offsets covered.
    public var offsets: Range<Int> { start.offset..<max(start.offset, end.offset) }

    /// A placeholder for nodes built in code rather than parsed.
    public static let unknown = SourceRange(at: .start)

    public var description: String { "\(start)-\(end)" }
}

/// One lexical token: its kind and its range in the source.
///
/// ```swift
/// let source = "age > 18"
/// let tokens = try Lexer.tokenize(source)
/// tokens[1].kind == .greater        // true
/// tokens[0].name(in: source)        // "age"
/// tokens[2].integerValue            // 18
/// ```
///
/// A token holds no text, so copying one costs nothing: names and strings
/// are cut from the source when asked for, and numbers and dates are
/// decoded by the lexer into the token.
public struct Token: Sendable, Hashable {
    /// What the token is: an operator, a keyword, a literal, a name or `.end`.
    public var kind: TokenKind
    /// Where the token is in the source; its text is cut from there.
    public var range: SourceRange
    /// `.integer`: the value's bits; `.double`: the Double's bits;
    /// `.date`: the bits of its seconds since 1970; `.string`: 1 when the
    /// literal has escapes to decode.
    var bits: UInt64

    /// A token of `kind` covering `range`: for a grammar built on ``Parser``
    /// that makes tokens of its own. A number or date token made this way has
    /// the value 0.
    public init(kind: TokenKind, range: SourceRange) {
        self.init(kind: kind, range: range, bits: 0)
    }

    init(kind: TokenKind, range: SourceRange, bits: UInt64) {
        self.kind = kind
        self.range = range
        self.bits = bits
    }

    /// The value of an `.integer` token.
    public var integerValue: Int64 { Int64(bitPattern: bits) }

    /// The value of a `.double` token.
    public var doubleValue: Double { Double(bitPattern: bits) }

    /// The value of a `.date` token.
    public var dateValue: Date { Date(timeIntervalSince1970: Double(bitPattern: bits)) }

    /// The token's source spelling, cut from `source`.
    public func text(in source: String) -> String {
        Token.slice(source, range.start.offset, range.end.offset)
    }

    /// The name of an `.identifier`, `.variable` or `.collectionOperator`
    /// token, without its `#`, `$` or `@`.
    public func name(in source: String) -> String {
        var lo = range.start.offset
        let hi = range.end.offset
        switch kind {
        case .variable, .collectionOperator: lo += 1
        case .identifier where Token.byte(source, at: lo) == UInt8(ascii: "#"): lo += 1
        default: break
        }
        return Token.slice(source, lo, hi)
    }

    /// The value of a `.string` token, escapes decoded.
    public func stringValue(in source: String) -> String {
        guard bits != 0 else { return Token.slice(source, range.start.offset + 1, range.end.offset - 1) }
        return Lexer.decodeString(source, range: range)
    }

    /// True when the token is the identifier or keyword `word`, in any case.
    ///
    /// The shell uses this for its own words (`sort`, `limit`, `where`).
    public func isWord(_ word: String, in source: String) -> Bool {
        switch kind {
        case .identifier:
            var lo = range.start.offset
            if Token.byte(source, at: lo) == UInt8(ascii: "#") { lo += 1 }
            return Token.equalsIgnoringASCIICase(source, lo, range.end.offset, word)
        case .keyword(let keyword): return keyword.rawValue.caseInsensitiveCompare(word) == .orderedSame
        default: return false
        }
    }

    /// The spelling used in diagnostics: `'AND'`, `'age'`, `string "x"`,
    /// `end of input`.
    public func description(in source: String) -> String {
        switch kind {
        case .string: return "string \"\(stringValue(in: source))\""
        case .integer: return "'\(integerValue)'"
        case .double: return "'\(doubleValue)'"
        case .identifier: return "'\(name(in: source))'"
        case .date: return "date literal"
        case .variable: return "'$\(name(in: source))'"
        case .collectionOperator: return "'@\(name(in: source))'"
        default: return kind.description
        }
    }

    // MARK: Source bytes

    @inline(__always)
    static func slice(_ source: String, _ lo: Int, _ hi: Int) -> String {
        if let text = source.utf8.withContiguousStorageIfAvailable({ buffer -> String in
            let lo = min(max(0, lo), buffer.count), hi = min(max(lo, hi), buffer.count)
            let bytes = UnsafeBufferPointer(rebasing: buffer[lo..<hi])
            // Most names and strings fit a small String: made this way, one
            // of ASCII bytes is taken as it is, where `String(decoding:)`
            // validated it first (~100 instructions a name, workload e).
            // Any other text is checked and repaired as `decoding` does.
            if bytes.count <= 15 {
                return String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
            }
            return String(decoding: bytes, as: UTF8.self)
        }) {
            return text
        }
        let utf8 = source.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: lo, limitedBy: utf8.endIndex) ?? utf8.endIndex
        let end = utf8.index(utf8.startIndex, offsetBy: hi, limitedBy: utf8.endIndex) ?? utf8.endIndex
        return start < end ? String(decoding: utf8[start..<end], as: UTF8.self) : ""
    }

    static func byte(_ source: String, at offset: Int) -> UInt8? {
        if let b = source.utf8.withContiguousStorageIfAvailable({ offset >= 0 && offset < $0.count ? $0[offset] : nil }) {
            return b
        }
        let utf8 = source.utf8
        guard offset >= 0, let i = utf8.index(utf8.startIndex, offsetBy: offset, limitedBy: utf8.endIndex),
              i < utf8.endIndex else { return nil }
        return utf8[i]
    }

    static func equalsIgnoringASCIICase(_ source: String, _ lo: Int, _ hi: Int, _ word: String) -> Bool {
        let text = slice(source, lo, hi)
        guard text.utf8.allSatisfy({ $0 < 0x80 }), word.utf8.allSatisfy({ $0 < 0x80 }) else {
            return text.caseInsensitiveCompare(word) == .orderedSame
        }
        guard text.utf8.count == word.utf8.count else { return false }
        for (a, b) in zip(text.utf8, word.utf8) {
            let x = a >= UInt8(ascii: "A") && a <= UInt8(ascii: "Z") ? a + 32 : a
            let y = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
            guard x == y else { return false }
        }
        return true
    }
}
