import Foundation
import Predicates

/// A name in SQL — a table, a column, an index — written into a statement
/// only quoted: the one quoting function of both engines.
///
/// ```swift
/// let table = try SQLIdentifier("Per\"son")
/// "SELECT * FROM \(table)"   // SELECT * FROM "Per""son"
/// table.unquoted             // Per"son, for binding or showing
/// ```
///
/// Every identifier mrq writes into SQL is one of these: the schema
/// mapping hands out nothing else, and interpolating one quotes it, so a
/// name read from a store's model cache, a `.mom`, an Xcode model, an XML
/// store, a PostgreSQL catalogue or the user is only ever a name. SQLite
/// and PostgreSQL quote alike (`"`, doubled inside); neither can hold a
/// NUL in a name, and a NUL would end the statement's text where it
/// stands, so a name holding one is refused, never cut. `unquoted` is for
/// comparing, binding as a value (`sqlite_master.name = ?`) and messages;
/// a test (`IdentifierSourceTests`) fails when SQL text interpolates it.
public struct SQLIdentifier: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name as the database stores it.
    public let unquoted: String
    /// The name as SQL writes it: in double quotes, each `"` doubled.
    public let quoted: String

    /// `name` as an identifier; throws `StoreError` for a name holding a
    /// NUL character, which no SQL statement can carry.
    public init(_ name: String) throws {
        guard !name.holdsByte(0) else {
            throw StoreError(.validation, "the name '\(TerminalText.escaped(name))' holds a NUL character, which SQL cannot carry")
        }
        self.init(checked: name)
    }

    /// A name of mrq's own, written in its source (`_pk`, `Z_PK`); not a
    /// string literal conversion, so that `column ?? "NULL"` cannot pass
    /// for SQL's NULL.
    package init(constant name: StaticString) {
        let text = name.description
        precondition(!text.utf8.contains(0), "an SQL identifier constant holds a NUL")
        self.init(checked: text)
    }

    private init(checked name: String) {
        unquoted = name
        // Foundation's replacingOccurrences is slow; most names have no quote.
        if name.holdsByte(UInt8(ascii: "\"")) {
            quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        } else {
            // One allocation: `"\"" + name + "\""` makes two strings.
            var text = String()
            text.reserveCapacity(name.utf8.count + 2)
            text.append("\"")
            text.append(name)
            text.append("\"")
            quoted = text
        }
    }

    /// The quoted name: what interpolating an identifier writes.
    public var description: String { quoted }

    /// Two names run together (`Person` + `_fk`): an index or column
    /// name derived from others. Neither holds a NUL, so neither does the
    /// result.
    ///
    /// ```swift
    /// table.name + "_" + column.name + "_INDEX"   // "ZNOTE_ZFOLDER_INDEX"
    /// ```
    package static func + (lhs: SQLIdentifier, rhs: SQLIdentifier) -> SQLIdentifier {
        SQLIdentifier(checked: lhs.unquoted + rhs.unquoted)
    }

    /// A name with a suffix of mrq's own after it.
    package static func + (lhs: SQLIdentifier, rhs: StaticString) -> SQLIdentifier {
        lhs + SQLIdentifier(constant: rhs)
    }

    /// A name with a prefix of mrq's own before it.
    package static func + (lhs: StaticString, rhs: SQLIdentifier) -> SQLIdentifier {
        SQLIdentifier(constant: lhs) + rhs
    }

    /// Names are equal when they are the same text (SQLite and PostgreSQL
    /// compare quoted names exactly).
    public static func == (a: SQLIdentifier, b: SQLIdentifier) -> Bool { a.unquoted == b.unquoted }
    /// Hashes the name's text.
    public func hash(into hasher: inout Hasher) { hasher.combine(unquoted) }
    /// Orders by the name's text: the mapping lists its tables so.
    public static func < (a: SQLIdentifier, b: SQLIdentifier) -> Bool { a.unquoted < b.unquoted }
}

/// `name` quoted for SQL: for a name that is not the mapping's, such as
/// one read from `sqlite_master` or a PostgreSQL catalogue. Throws for a
/// NUL, as ``SQLIdentifier/init(_:)`` does.
package func quoteIdentifier(_ name: String) throws -> String {
    try SQLIdentifier(name).quoted
}
