/// A position in source text.
///
/// ```swift
/// let start = SourceLocation(line: 1, column: 1, offset: 0)
/// ```
///
/// `line` and `column` are 1-based; the column counts Unicode scalars from
/// the start of the line. `offset` is the 0-based UTF-8 byte offset.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

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
    public var start: SourceLocation
    public var end: SourceLocation

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

/// One lexical token: its kind (with any literal payload) and its range.
///
/// ```swift
/// let tokens = try Lexer.tokenize("age > 18")
/// tokens[1].kind == .greater   // true
/// ```
public struct Token: Sendable, Hashable, CustomStringConvertible {
    public var kind: TokenKind
    public var range: SourceRange

    public init(kind: TokenKind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// The token's source spelling, cut from `source`.
    public func text(in source: String) -> String {
        let utf8 = source.utf8
        let lo = utf8.index(utf8.startIndex, offsetBy: range.start.offset, limitedBy: utf8.endIndex) ?? utf8.endIndex
        let hi = utf8.index(utf8.startIndex, offsetBy: range.end.offset, limitedBy: utf8.endIndex) ?? utf8.endIndex
        return String(decoding: source.utf8[lo..<hi], as: UTF8.self)
    }

    /// True when the token is the identifier or keyword `word`, in any case.
    ///
    /// The shell uses this for its own words (`sort`, `limit`, `where`).
    public func isWord(_ word: String) -> Bool {
        switch kind {
        case .identifier(let name): return name.caseInsensitiveCompare(word) == .orderedSame
        case .keyword(let keyword): return keyword.rawValue.caseInsensitiveCompare(word) == .orderedSame
        default: return false
        }
    }

    /// The spelling used in diagnostics: `'AND'`, `'age'`, `end of input`.
    public var description: String { kind.description }
}
