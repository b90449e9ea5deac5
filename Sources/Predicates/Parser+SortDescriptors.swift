import Foundation

/// One key of a sort: a key path and a direction.
///
/// ```swift
/// let keys = try SortSpec.parse("LastName:NO,FirstName")
/// keys[0] == SortKey(keyPath: ["LastName"], ascending: false)   // true
/// ```
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// The key path's components: `["department", "name"]`.
    public var keyPath: [String]
    /// True for ascending order (`:YES`, `ASC`), false for descending.
    public var ascending: Bool
    /// Where the key was written; ignored by `==`.
    public var range: SourceRange

    /// A sort key built in code, as `NSSortDescriptor(key:ascending:)`.
    ///
    /// ```swift
    /// let byAge = SortKey(keyPath: ["age"], ascending: false)
    /// byAge.description   // age:NO
    /// ```
    public init(keyPath: [String], ascending: Bool, range: SourceRange = .unknown) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.range = range
    }

    /// The dotted key path, `department.name`.
    public var key: String { keyPath.joined(separator: ".") }

    public static func == (lhs: SortKey, rhs: SortKey) -> Bool {
        lhs.keyPath == rhs.keyPath && lhs.ascending == rhs.ascending
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyPath)
        hasher.combine(ascending)
    }

    /// `LastName:NO`, MagicalRecord's spelling.
    public var description: String {
        keyPath.map(Printer.formatKey).joined(separator: ".") + (ascending ? ":YES" : ":NO")
    }
}

/// MagicalRecord's sort strings: `"LastName:NO,FirstName"`.
public enum SortSpec {
    /// Parses comma-separated keys, each with an optional direction:
    /// `:YES`/`:NO`, `:ASC`/`:DESC` or ` ASC`/` DESC`, in any case.
    /// Keys without one use `defaultAscending`. Blank text gives no keys.
    ///
    /// ```swift
    /// try SortSpec.parse("LastName:NO, FirstName:YES,age", defaultAscending: true)
    /// ```
    public static func parse(_ text: String, defaultAscending: Bool = true) throws(SyntaxError) -> [SortKey] {
        var parser = try Parser(source: text)
        if parser.isAtEnd { return [] }
        let keys = try parser.parseSortKeys(defaultAscending: defaultAscending)
        try parser.expectEnd()
        return keys
    }
}

extension Parser {
    /// Parses a sort clause and stops before the first token that cannot
    /// continue it (`limit`, `;`…).
    ///
    /// sortKeys → sortKey { "," sortKey }
    public mutating func parseSortKeys(defaultAscending: Bool = true) throws(SyntaxError) -> [SortKey] {
        var keys = [try parseSortKey(defaultAscending: defaultAscending)]
        while match(.comma) {
            keys.append(try parseSortKey(defaultAscending: defaultAscending))
        }
        return keys
    }

    /// sortKey → keyPath [ [ ":" ] direction ]
    mutating func parseSortKey(defaultAscending: Bool) throws(SyntaxError) -> SortKey {
        guard peek().kind == .identifier else {
            if isAtEnd { throw incompleteInput() }
            if case .keyword(let keyword) = peek().kind {
                throw SyntaxError(.reservedWord(keyword.rawValue), at: peek().range)
            }
            throw SyntaxError(.expectedSortKey, at: peek().range)
        }
        let (path, pathRange) = try parseKeyPath()
        var ascending = defaultAscending
        if match(.colon) {
            guard let direction = try parseDirection() else {
                if isAtEnd { throw incompleteInput() }
                throw SyntaxError(.expectedSortDirection(found: describe(peek())), at: peek().range)
            }
            ascending = direction
        } else if let direction = try parseDirection() {
            ascending = direction
        }
        return SortKey(keyPath: path, ascending: ascending, range: range(from: pathRange))
    }

    /// direction → "YES" | "NO" | "TRUE" | "FALSE" | ASC | DESC
    mutating func parseDirection() throws(SyntaxError) -> Bool? {
        let token = peek()
        switch token.kind {
        case .keyword(.yes), .keyword(.true): advance(); return true
        case .keyword(.no), .keyword(.false): advance(); return false
        default:
            if check(word: "ASC") || check(word: "ASCENDING") { advance(); return true }
            if check(word: "DESC") || check(word: "DESCENDING") { advance(); return false }
            return nil
        }
    }
}
