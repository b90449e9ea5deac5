import Foundation

/// The kind of a token; literals and names carry no payload.
///
/// ```swift
/// if parser.peek().kind == .identifier { print(parser.name(of: parser.peek())) }
/// ```
///
/// A token's text stays in the source: read it with ``Token/name(in:)``,
/// ``Token/stringValue(in:)`` or the parser's helpers, and numbers and
/// dates with ``Token/integerValue``, ``Token/doubleValue`` and
/// ``Token/dateValue``. Tokens are plain values, cheap to copy.
///
/// Aliases lex to one kind: `<>` is `.notEqual`, `=<` is `.lessEqual`,
/// `=>` is `.greaterEqual`, `&&` `||` `!` are the keywords AND OR NOT.
/// `=` and `==` stay apart because the shell uses `=` for assignment.
public enum TokenKind: Sendable, Hashable, CustomStringConvertible {
    // Single-character punctuation.
    /// `(` `)` around groups and calls, `{` `}` around aggregates, `[` `]`
    /// around options and indexes.
    case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket
    /// `,` between arguments and sort keys, `.` in key paths, `:` in
    /// selectors and sort directions, `;` between shell statements.
    case comma, dot, colon, semicolon
    /// `+`, `-`, `*` and `/`.
    case plus, minus, star, slash

    // One- or two-character operators.
    /// `=`: equality in a predicate, assignment in the shell.
    case assign          // =
    /// `==`.
    case equal           // ==
    /// `!=` or `<>`.
    case notEqual        // != <>
    /// `<`.
    case less            // <
    /// `<=` or `=<`.
    case lessEqual       // <= =<
    /// `>`.
    case greater         // >
    /// `>=` or `=>`.
    case greaterEqual    // >= =>
    /// `**`.
    case power           // **

    // Literals.
    /// A quoted string, `'…'` or `"…"`; read it with
    /// ``Token/stringValue(in:)``.
    case string
    /// An integer literal (decimal, `0x`, `0o` or `0b`); read it with
    /// ``Token/integerValue``.
    case integer
    /// A floating-point literal such as `1.5` or `2e3`; read it with
    /// ``Token/doubleValue``.
    case double
    /// `@2024-01-31` or `@2024-01-31T10:00:00Z`.
    case date

    // Names.
    /// A key, possibly escaped with `#`.
    case identifier
    /// `$name`.
    case variable
    /// `@count`.
    case collectionOperator
    /// `%@`, `%K`, `%d`...
    case formatArgument(FormatSpecifier)
    /// A reserved word such as `AND`, `BEGINSWITH` or `SUBQUERY`, in any case.
    case keyword(Keyword)

    /// End of input; its range is empty, at the end.
    case end

    /// The kind in general terms, for "expected …" messages; a token's own
    /// spelling comes from ``Token/description(in:)``.
    public var description: String {
        switch self {
        case .string: return "a string"
        case .integer, .double: return "a number"
        case .date: return "a date literal"
        case .identifier: return "a name"
        case .variable: return "a variable"
        case .collectionOperator: return "a collection operator"
        case .formatArgument(let spec): return "'\(spec.rawValue)'"
        case .keyword(let keyword): return "'\(keyword.rawValue)'"
        case .end: return "end of input"
        default:
            return "'\(TokenKind.spelling(of: self) ?? "?")'"
        }
    }

    /// Every operator and punctuation spelling the lexer knows, with its kind.
    ///
    /// `GrammarTests` checks this table against Grammar/predicate.ebnf.
    public static let operatorSpellings: [(spelling: String, kind: TokenKind)] = [
        ("(", .leftParen), (")", .rightParen), ("{", .leftBrace), ("}", .rightBrace),
        ("[", .leftBracket), ("]", .rightBracket), (",", .comma), (".", .dot),
        (":", .colon), (";", .semicolon), ("+", .plus), ("-", .minus),
        ("*", .star), ("/", .slash), ("**", .power),
        ("=", .assign), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual),
        ("<", .less), ("<=", .lessEqual), ("=<", .lessEqual),
        (">", .greater), (">=", .greaterEqual), ("=>", .greaterEqual),
        ("&&", .keyword(.and)), ("||", .keyword(.or)), ("!", .keyword(.not)),
    ]

    /// The canonical spelling of a punctuation or operator kind.
    public static func spelling(of kind: TokenKind) -> String? {
        for entry in operatorSpellings where entry.kind == kind { return entry.spelling }
        return nil
    }
}

/// A reserved word, matched case-insensitively; write `#word` to use one as
/// a key.
///
/// ```swift
/// Keyword(spelling: "beginswith") == .beginsWith   // true
/// ```
public enum Keyword: String, Sendable, Hashable, CaseIterable {
    /// `AND` (`&&`), `OR` (`||`) and `NOT` (`!`).
    case and = "AND", or = "OR", not = "NOT"
    /// The constant predicates `TRUEPREDICATE` and `FALSEPREDICATE`.
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    /// The Boolean literals `TRUE`/`YES` and `FALSE`/`NO`.
    case `true` = "TRUE", yes = "YES", `false` = "FALSE", no = "NO"
    /// `NULL` and `NIL` (no value), and `SELF`, the object being evaluated.
    case null = "NULL", `nil` = "NIL", `self` = "SELF"
    /// The quantifiers in front of a comparison; `SOME` means `ANY`.
    case any = "ANY", some = "SOME", all = "ALL", none = "NONE"
    /// The word operators `IN`, `CONTAINS` and `BEGINSWITH`.
    case `in` = "IN", contains = "CONTAINS", beginsWith = "BEGINSWITH"
    /// The word operators `ENDSWITH`, `LIKE` and `MATCHES`.
    case endsWith = "ENDSWITH", like = "LIKE", matches = "MATCHES"
    /// The operator `BETWEEN`.
    case between = "BETWEEN"
    /// The uniform type operators `UTI-CONFORMS-TO` and `UTI-EQUALS`, each
    /// written as one word with its hyphens.
    case utiConformsTo = "UTI-CONFORMS-TO", utiEquals = "UTI-EQUALS"
    /// `SUBQUERY(…)`, `FUNCTION(…)` and `CAST(…)`.
    case subquery = "SUBQUERY", function = "FUNCTION", cast = "CAST"
    /// The indexes `[FIRST]`, `[LAST]` and `[SIZE]`.
    case first = "FIRST", last = "LAST", size = "SIZE"
    // Reserved by Apple with no meaning in mrq's format language.
    /// `ANYKEY` and `FETCH`: reserved by NSPredicate, with no meaning in mrq
    /// (write `#fetch` for a key of that name).
    case anyKey = "ANYKEY", fetch = "FETCH"
    /// `CASEINSENSITIVE` and `CI`: reserved by NSPredicate, with no meaning in
    /// mrq.
    case caseInsensitive = "CASEINSENSITIVE", ci = "CI"

    private static let table: [String: Keyword] = {
        var table: [String: Keyword] = [:]
        for keyword in allCases { table[keyword.rawValue] = keyword }
        return table
    }()

    /// The keywords by spelling length, each spelling packed into two
    /// words (see ``pack(_:)``), for the lexer's lookup without a String.
    private static let packed: [[(low: UInt64, high: UInt64, keyword: Keyword)]] = {
        var byLength = Array(repeating: [(low: UInt64, high: UInt64, keyword: Keyword)](), count: 17)
        for keyword in allCases {
            let bytes = Array(keyword.rawValue.utf8)
            let (low, high) = bytes.withUnsafeBufferPointer { pack($0, uppercasing: false) }
            byLength[bytes.count].append((low, high, keyword))
        }
        return byLength
    }()

    /// Up to 16 ASCII bytes in two words, uppercased when asked.
    @inline(__always)
    static func pack(_ bytes: UnsafeBufferPointer<UInt8>, uppercasing: Bool) -> (UInt64, UInt64) {
        var low: UInt64 = 0, high: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            let c = uppercasing && b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z") ? b - 32 : b
            if i < 8 { low |= UInt64(c) << (8 * UInt64(i)) } else { high |= UInt64(c) << (8 * UInt64(i - 8)) }
        }
        return (low, high)
    }

    /// The keyword spelled `spelling` in any case, or nil.
    public init?(spelling: String) {
        guard let keyword = Keyword.table[spelling.uppercased()] else { return nil }
        self = keyword
    }

    /// The keyword spelled by `bytes`, ASCII in any case (the lexer's path).
    static func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> Keyword? {
        guard bytes.count >= 2, bytes.count <= 16 else { return nil }
        let (low, high) = pack(bytes, uppercasing: true)
        return lookup(low: low, high: high, length: bytes.count)
    }

    /// The keyword of `length` bytes packed, uppercased, into `low` and
    /// `high` (see ``pack(_:uppercasing:)``), or nil.
    @inline(__always)
    static func lookup(low: UInt64, high: UInt64, length: Int) -> Keyword? {
        guard length >= 2, length <= 16 else { return nil }
        for entry in packed[length] where entry.low == low && entry.high == high { return entry.keyword }
        return nil
    }

    /// True for words Apple reserves that mrq gives no meaning.
    public var isReservedOnly: Bool {
        switch self {
        case .anyKey, .fetch, .caseInsensitive, .ci: return true
        default: return false
        }
    }
}

/// A format-argument placeholder: `%@`, `%K`, `%%` or a printf-style
/// conversion such as `%d`, `%lu`, `%x`, `%g` or `%hi`.
///
/// ```swift
/// FormatSpecifier(rawValue: "%lu")?.takesInteger   // true
/// FormatSpecifier(rawValue: "%y")                  // nil
/// ```
///
/// Apple's format string syntax "supports printf-style format specifiers
/// such as %x" besides `%@` and `%K` (Predicate Format String Syntax); the
/// BNF writes `format_argument ::= "@" | "%" | "K" | printf style
/// conversion character`. mrq accepts the conversions of
/// `String(format:)` that take a value: `d i o u x X` (integers, with the
/// length modifiers `h hh l ll q z t j`), `e E f F g G a A` (floating
/// point, with `l` or `L`), `c C` (a character code), `s S` (a string),
/// plus `@`, `K` and `%`. Every one takes its argument as given.
public struct FormatSpecifier: RawRepresentable, Sendable, Hashable {
    /// The specifier's bytes, the first in the lowest byte: a valid one is
    /// two to four ASCII bytes (`%@`, `%lld`), so it fits, and a token
    /// holding one stays a plain value with nothing to retain.
    private let bytes: UInt32

    /// The whole specifier as written: `%lu`.
    public var rawValue: String {
        var text = ""
        var rest = bytes
        while rest != 0 {
            text.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: rest)))
            rest >>= 8
        }
        return text
    }

    /// The specifier spelled `rawValue`; nil for one Apple's parser does
    /// not know (`%y`, `%lK`).
    public init?(rawValue: String) {
        self.init(bytes: Array(rawValue.utf8))
    }

    /// The specifier spelled by `bytes` (from `%`), or nil.
    init?(bytes: [UInt8]) {
        guard FormatSpecifier.isValid(bytes) else { return nil }
        self.init(known: bytes)
    }

    private init(known: [UInt8]) {
        var packed: UInt32 = 0
        for (i, b) in known.prefix(4).enumerated() { packed |= UInt32(b) << (8 * UInt32(i)) }
        bytes = packed
    }

    private init(known: String) { self.init(known: Array(known.utf8)) }

    /// `%@`: any value (an object argument in NSPredicate).
    public static let object = FormatSpecifier(known: "%@")
    /// `%K`: a key path, substituted as a key and not a string.
    public static let keyPath = FormatSpecifier(known: "%K")
    /// `%d`: an integer.
    public static let int = FormatSpecifier(known: "%d")
    /// `%i`: an integer.
    public static let integer = FormatSpecifier(known: "%i")
    /// `%f`: a floating-point number.
    public static let float = FormatSpecifier(known: "%f")
    /// `%ld`: a long integer.
    public static let long = FormatSpecifier(known: "%ld")
    /// `%lld`: a 64-bit integer.
    public static let longLong = FormatSpecifier(known: "%lld")
    /// `%u`: an unsigned integer.
    public static let unsigned = FormatSpecifier(known: "%u")
    /// `%%`, a literal percent sign (the string "%").
    public static let percent = FormatSpecifier(known: "%%")

    /// The conversion character: `u` for `%lu`.
    public var conversion: Character {
        var last = bytes
        while last > 0xFF { last >>= 8 }
        return Character(Unicode.Scalar(UInt8(truncatingIfNeeded: last)))
    }

    /// True for the integer conversions `d i o u x X c C` (with any length).
    public var takesInteger: Bool { "diouxXcC".contains(conversion) }
    /// True for the floating-point conversions `e E f F g G a A`.
    public var takesFloatingPoint: Bool { "eEfFgGaA".contains(conversion) }

    static let integerConversions = Array("diouxX".utf8)
    static let floatConversions = Array("eEfFgGaA".utf8)
    static let otherConversions = Array("cCsS@K%".utf8)
    static let integerLengths: [[UInt8]] = ["hh", "h", "ll", "l", "q", "z", "t", "j"].map { Array($0.utf8) }
    static let floatLengths: [[UInt8]] = ["l", "L"].map { Array($0.utf8) }

    /// Whether `bytes` (starting with `%`) is one whole specifier.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "%"), let last = bytes.last else { return false }
        let length = Array(bytes[1..<(bytes.count - 1)])
        if length.isEmpty {
            return integerConversions.contains(last) || floatConversions.contains(last) || otherConversions.contains(last)
        }
        if integerConversions.contains(last) { return integerLengths.contains(length) }
        if floatConversions.contains(last) { return floatLengths.contains(length) }
        return false
    }

    /// The byte count of the specifier at the start of `bytes` (from `%`):
    /// `%`, any run of length modifier letters, and one more character.
    static func scanLength(_ byte: (Int) -> UInt8?) -> Int {
        var n = 1
        while let b = byte(n), "hlqLztj".utf8.contains(b) { n += 1 }
        return n
    }
}
