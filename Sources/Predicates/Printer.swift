import Foundation

/// Prints predicates and expressions in canonical form, like NSPredicate's
/// `predicateFormat`, with the fewest parentheses precedence allows.
///
/// ```swift
/// try Predicate(format: "(age>18) and name beginswith[c] 'eng'").format
/// // age > 18 AND name BEGINSWITH[c] "eng"
/// ```
///
/// `try Predicate(format: p.format) == p` for every tree the parser can
/// produce. Constants without a literal syntax print as a folded CAST:
/// `CAST("1.5", "NSDecimalNumber")`, `CAST("…", "NSUUID")`, non-whole-second
/// dates as `CAST(728362800.5, "NSDate")`, infinities as
/// `CAST("inf", "NSNumber")`. Whole-second dates print as `@2024-01-31` or
/// `@2024-01-31T10:00:00Z`, unless they were written as Apple's
/// `CAST(700000000, "NSDate")`, which prints back as written.
public enum Printer {
    /// The canonical format string of `predicate`, as ``Predicate/format``
    /// gives it: NSPredicate's `predicateFormat`.
    public static func format(_ predicate: Predicate) -> String {
        var out = ""
        write(predicate, minimum: 0, to: &out)
        return out
    }

    /// The canonical format string of `expression`, as ``Expression/format``
    /// gives it: NSExpression's `description`.
    public static func format(_ expression: Expression) -> String {
        var out = ""
        write(expression, minimum: 0, to: &out)
        return out
    }

    // MARK: Predicates

    private static func precedence(_ p: Predicate) -> Int {
        switch p.kind {
        case .or: return 1
        case .and: return 2
        case .not: return 3
        case .comparison, .constant: return 4
        }
    }

    private static func write(_ p: Predicate, minimum: Int, to out: inout String) {
        let parenthesize = precedence(p) < minimum
        if parenthesize { out += "(" }
        switch p.kind {
        case .constant(let value):
            out += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let operand):
            out += "NOT "
            write(operand, minimum: 3, to: &out)
        case .and(let operands):
            for (i, operand) in operands.enumerated() {
                if i > 0 { out += " AND " }
                write(operand, minimum: 3, to: &out)
            }
        case .or(let operands):
            for (i, operand) in operands.enumerated() {
                if i > 0 { out += " OR " }
                write(operand, minimum: 2, to: &out)
            }
        case .comparison(let c):
            if c.modifier != .direct { out += c.modifier.rawValue + " " }
            // Minimum 1: only an assignment takes parentheses here, which
            // read more plainly (`($x := age) > 3`).
            write(c.lhs, minimum: 1, to: &out)
            out += " " + c.op.rawValue + c.options.format + " "
            write(c.rhs, minimum: 1, to: &out)
        }
        if parenthesize { out += ")" }
    }

    // MARK: Expressions

    private static func precedence(_ e: Expression) -> Int {
        switch e.kind {
        case .binary(.add, _, _), .binary(.subtract, _, _): return 1
        case .binary(.multiply, _, _), .binary(.divide, _, _): return 2
        case .binary(.power, _, _): return 3
        case .negate: return 4
        case .constant(let value):
            switch value {
            case .int(let n): return n < 0 ? 4 : 6
            case .double(let d): return d.sign == .minus && d.isFinite ? 4 : 6
            default: return 6
            }
        case .index, .member, .collection: return 5
        case .assignment: return 0
        default: return 6
        }
    }

    private static func write(_ e: Expression, minimum: Int, to out: inout String) {
        let parenthesize = precedence(e) < minimum
        if parenthesize { out += "(" }
        switch e.kind {
        case .constant(.date(let d)) where e.isFoldedCast:
            out += castDate(d)
        case .constant(let value):
            writeConstant(value, to: &out)
        case .keyPath(let path):
            if path.isEmpty { out += "SELF" }
            for (i, key) in path.enumerated() {
                if i > 0 { out += "." }
                out += formatKey(key)
            }
        case .evaluatedObject:
            out += "SELF"
        case .variable(let name):
            out += "$" + name
        case .assignment(let name, let value):
            out += "$" + name + " := "
            write(value, minimum: 0, to: &out)
        case .aggregate(let elements):
            out += "{"
            writeList(elements, to: &out)
            out += "}"
        case .function(let function, let arguments):
            out += function.selector + "("
            writeList(arguments, to: &out)
            out += ")"
        case .method(let receiver, let selector, let arguments):
            out += "FUNCTION("
            write(receiver, minimum: 0, to: &out)
            out += ", " + quote(selector)
            for argument in arguments {
                out += ", "
                write(argument, minimum: 0, to: &out)
            }
            out += ")"
        case .binary(let op, let lhs, let rhs):
            let level = precedence(e)
            if op == .power {
                write(lhs, minimum: level + 1, to: &out)
                out += " ** "
                write(rhs, minimum: level, to: &out)
            } else {
                write(lhs, minimum: level, to: &out)
                out += " " + op.rawValue + " "
                write(rhs, minimum: level + 1, to: &out)
            }
        case .negate(let operand):
            out += "-"
            if case .constant(let value) = operand.kind, value.isNumeric {
                // `-(1)` stays a negation (`-1` would read back as the
                // constant); a negative constant needs no parentheses
                // (`- -1`), which would nest one level deeper than what
                // was parsed.
                var literal = ""
                write(operand, minimum: 0, to: &literal)
                out += literal.hasPrefix("-") ? " " + literal : "(" + literal + ")"
            } else {
                write(operand, minimum: 4, to: &out)
            }
        case .index(let base, let index):
            write(base, minimum: 5, to: &out)
            out += "["
            switch index {
            case .at(let i): write(i, minimum: 0, to: &out)
            case .first: out += "FIRST"
            case .last: out += "LAST"
            case .size: out += "SIZE"
            }
            out += "]"
        case .member(let base, let keys):
            switch base.kind {
            case .collection: write(base, minimum: 6, to: &out)
            default: write(base, minimum: 5, to: &out)
            }
            for key in keys { out += "." + formatKey(key) }
        case .collection(let op, let base, let key):
            if case .evaluatedObject = base.kind {
                out += op.format
            } else {
                write(base, minimum: 5, to: &out)
                out += "." + op.format
            }
            for k in key { out += "." + formatKey(k) }
        case .subquery(let collection, let variable, let predicate):
            out += "SUBQUERY("
            write(collection, minimum: 0, to: &out)
            out += ", $" + variable + ", "
            write(predicate, minimum: 0, to: &out)
            out += ")"
        case .cast(let operand, let type):
            out += "CAST("
            write(operand, minimum: 0, to: &out)
            out += ", " + quote(type.rawValue) + ")"
        case .placeholder(let spec):
            out += spec.rawValue
        case .object(let reference):
            out += reference.description
        }
        if parenthesize { out += ")" }
    }

    private static func writeList(_ list: [Expression], to out: inout String) {
        for (i, element) in list.enumerated() {
            if i > 0 { out += ", " }
            write(element, minimum: 0, to: &out)
        }
    }

    private static func writeConstant(_ value: Value, to out: inout String) {
        switch value {
        case .null: out += "nil"
        case .bool(let b): out += b ? "TRUE" : "FALSE"
        case .int(let n):
            out += n == .min ? "CAST(\"\(n)\", \"NSNumber\")" : String(n)
        case .double(let d):
            out += d.isFinite ? d.description : "CAST(\"\(d)\", \"NSNumber\")"
        case .decimal(let d): out += "CAST(\(quote(d.description)), \"NSDecimalNumber\")"
        case .string(let s): out += quote(s)
        case .date(let d):
            if let literal = dateLiteral(d) {
                out += literal
            } else {
                out += castDate(d)
            }
        case .data(let d): out += "CAST(\(quote(d.base64EncodedString())), \"NSData\")"
        case .uuid(let u): out += "CAST(\(quote(u.uuidString)), \"NSUUID\")"
        case .url(let u): out += "CAST(\(quote(u.absoluteString)), \"NSURL\")"
        }
    }

    /// Apple's spelling of a date constant: `CAST(700000000, "NSDate")`,
    /// seconds since 2001-01-01T00:00:00Z (whole seconds without `.0`).
    public static func castDate(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        let text = seconds.rounded() == seconds && Swift.abs(seconds) < 1e15 ? String(Int64(seconds)) : seconds.description
        return "CAST(\(text), \"NSDate\")"
    }

    /// A key as written in a key path: `#first` for reserved words.
    public static func formatKey(_ key: String) -> String {
        Keyword(spelling: key) != nil ? "#" + key : key
    }

    /// A double-quoted string literal with escapes.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\u0000"
            default:
                // What a terminal acts on, as TerminalText sees it: a
                // dump of a hostile value reads back as the value.
                if TerminalText.isUnsafe(scalar) {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `@2024-01-31` or `@2024-01-31T10:00:00Z` for whole-second dates in
    /// years 1–9999; nil otherwise.
    public static func dateLiteral(_ date: Date) -> String? {
        let reference = date.timeIntervalSinceReferenceDate
        guard reference.isFinite, reference.rounded() == reference else { return nil }
        let since1970 = date.timeIntervalSince1970
        guard abs(since1970) < 1e12 else { return nil }
        let seconds = Int(since1970)
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = DateMath.civilFromDays(days)
        guard (1...9999).contains(year) else { return nil }
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var out = "@\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        if secondOfDay != 0 {
            out += "T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
        }
        return out
    }
}

extension Value {
    var isNumeric: Bool {
        switch self {
        case .int, .double, .decimal: return true
        default: return false
        }
    }
}

extension Predicate: CustomStringConvertible {
    /// The canonical format string: `age > 18 AND name BEGINSWITH[c] "eng"`.
    public var format: String { Printer.format(self) }
    public var description: String { format }
}

extension Expression: CustomStringConvertible {
    /// The canonical format string: `children.@avg.age + 1`.
    public var format: String { Printer.format(self) }
    public var description: String { format }
}

extension Comparison: CustomStringConvertible {
    public var description: String { Printer.format(Predicate(.comparison(self))) }
}
