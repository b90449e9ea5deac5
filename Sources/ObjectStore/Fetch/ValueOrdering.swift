import Foundation
import Predicates

/// SQLite's ORDER BY, in Swift: the order in-memory sorting uses, so that a
/// fetch sorted in memory (after merging unsaved changes) comes out exactly
/// as the same fetch sorted by SQLite.
///
/// Nulls first, then numbers (booleans and dates count as numbers), then
/// text by UTF-8 bytes, then data by bytes.
public enum ValueOrdering {
    /// The class of a value in SQLite's order: 0 for null, 1 for numbers
    /// (booleans and dates included), 2 for text (UUIDs and URLs included),
    /// 3 for data. Values of a lower class sort first.
    public static func rank(_ value: Value) -> Int {
        switch value {
        case .null: return 0
        case .bool, .int, .double, .decimal, .date: return 1
        case .string, .uuid, .url: return 2
        case .data: return 3
        }
    }

    /// -1, 0 or 1.
    public static func compare(_ a: Value, _ b: Value) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.int(let x), .int(let y)): return x < y ? -1 : x == y ? 0 : 1
        case (.string(let x), .string(let y)): return compareBytes(x.utf8, y.utf8)
        case (.data(let x), .data(let y)): return compareBytes(x, y)
        default:
            if ra == 1 {
                let x = number(a), y = number(b)
                return x < y ? -1 : x == y ? 0 : 1
            }
            return compareBytes(text(a).utf8, text(b).utf8)
        }
    }

    private static func compareBytes<C: Sequence>(_ x: C, _ y: C) -> Int where C.Element == UInt8 {
        var i = x.makeIterator(), j = y.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
            }
        }
    }

    private static func number(_ v: Value) -> Double {
        switch v {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        case .date(let d): return d.timeIntervalSinceReferenceDate
        default: return 0
        }
    }

    private static func text(_ v: Value) -> String {
        switch v {
        case .string(let s): return s
        case .uuid(let u): return u.uuidString
        case .url(let u): return u.absoluteString
        default: return ""
        }
    }
}
