import Foundation

/// The kind of a token, with the decoded payload of literals.
///
/// ```swift
/// if case .identifier(let name) = parser.peek().kind { print(name) }
/// ```
///
/// Aliases lex to one kind: `<>` is `.notEqual`, `=<` is `.lessEqual`,
/// `=>` is `.greaterEqual`, `&&` `||` `!` are the keywords AND OR NOT.
/// `=` and `==` stay apart because the shell uses `=` for assignment.
public enum TokenKind: Sendable, Hashable, CustomStringConvertible {
    // Single-character punctuation.
    case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket
    case comma, dot, colon, semicolon
    case plus, minus, star, slash

    // One- or two-character operators.
    case assign          // =
    case equal           // ==
    case notEqual        // != <>
    case less            // <
    case lessEqual       // <= =<
    case greater         // >
    case greaterEqual    // >= =>
    case power           // **

    // Literals.
    case string(String)
    case integer(Int64)
    case double(Double)
    /// `@2024-01-31` or `@2024-01-31T10:00:00Z`.
    case date(Date)

    // Names.
    /// A key, possibly escaped with `#` (the payload has no `#`).
    case identifier(String)
    /// `$name`, payload without `$`.
    case variable(String)
    /// `@count`, payload without `@`.
    case collectionOperator(String)
    /// `%@`, `%K`, `%d`...
    case formatArgument(FormatSpecifier)
    case keyword(Keyword)

    /// End of input; its range is empty, at the end.
    case end

    public var description: String {
        switch self {
        case .string(let s): return "string \"\(s)\""
        case .integer(let n): return "'\(n)'"
        case .double(let d): return "'\(d)'"
        case .date: return "date literal"
        case .identifier(let name): return "'\(name)'"
        case .variable(let name): return "'$\(name)'"
        case .collectionOperator(let name): return "'@\(name)'"
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
    case and = "AND", or = "OR", not = "NOT"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    case `true` = "TRUE", yes = "YES", `false` = "FALSE", no = "NO"
    case null = "NULL", `nil` = "NIL", `self` = "SELF"
    case any = "ANY", some = "SOME", all = "ALL", none = "NONE"
    case `in` = "IN", contains = "CONTAINS", beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH", like = "LIKE", matches = "MATCHES"
    case between = "BETWEEN"
    case subquery = "SUBQUERY", function = "FUNCTION", cast = "CAST"
    case first = "FIRST", last = "LAST", size = "SIZE"
    // Reserved by Apple with no meaning in mrq's format language.
    case anyKey = "ANYKEY", fetch = "FETCH"
    case caseInsensitive = "CASEINSENSITIVE", ci = "CI"

    private static let table: [String: Keyword] = {
        var table: [String: Keyword] = [:]
        for keyword in allCases { table[keyword.rawValue] = keyword }
        return table
    }()

    /// The keyword spelled `spelling` in any case, or nil.
    public init?(spelling: String) {
        guard let keyword = Keyword.table[spelling.uppercased()] else { return nil }
        self = keyword
    }

    /// Looks up an uppercase ASCII spelling (the lexer's fast path).
    static func lookupUppercased(_ spelling: String) -> Keyword? { table[spelling] }

    /// True for words Apple reserves that mrq gives no meaning.
    public var isReservedOnly: Bool {
        switch self {
        case .anyKey, .fetch, .caseInsensitive, .ci: return true
        default: return false
        }
    }
}

/// A format-argument placeholder: `%@ %K %d %i %f %ld %lld %u %%`.
public enum FormatSpecifier: String, Sendable, Hashable, CaseIterable {
    case object = "%@"
    case keyPath = "%K"
    case int = "%d"
    case integer = "%i"
    case float = "%f"
    case long = "%ld"
    case longLong = "%lld"
    case unsigned = "%u"
    /// `%%`, a literal percent sign (the string "%").
    case percent = "%%"
}
