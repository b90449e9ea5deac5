import Foundation
import Predicates

/// How values read as text in the table, line and CSV modes, and as JSON.
///
/// The text forms are chosen so a value reads back the way you would type
/// it in a predicate:
///
/// | value | text | JSON |
/// |---|---|---|
/// | null | `NULL` (``RenderOptions/nullText``) | `null` |
/// | bool | `true`, `false` | `true`, `false` |
/// | int | `42` | `42` |
/// | double | Swift's shortest round-trip form: `3.5`, `1.0`, `1e+20`; `inf`, `-inf`, `nan` | the same; `null` when not finite |
/// | decimal | `3.14` | `3.14`; `null` for NaN |
/// | string | as is | escaped string |
/// | date | `2024-01-31 10:00:00` UTC, `.250` appended when the milliseconds are not zero | `"2024-01-31T10:00:00Z"`, `"…T10:00:00.250Z"` |
/// | data | `x'01ab'` (hex) | base64 string |
/// | uuid | `E621E1F8-C36C-495A-93FC-0C247A3E6E5F` | the same, as a string |
/// | url | its absolute string | the same, as a string |
///
/// Integral doubles keep their `.0` so a double never looks like an int.
enum ValueFormatter {
    /// The text form of a value, with `NULL` spelled `nullText`.
    static func text(_ value: Value, nullText: String) -> String {
        switch value {
        case .null: return nullText
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return doubleText(number)
        case .decimal(let number): return number.description
        case .string(let string): return string
        case .date(let date): return dateText(date, iso: false)
        case .data(let data): return "x'" + hex(data) + "'"
        case .uuid(let uuid): return uuid.uuidString
        case .url(let url): return url.absoluteString
        }
    }

    /// The text form of a to-many list: `[Ada, Grace]`.
    static func text(_ list: [Value], nullText: String) -> String {
        "[" + list.map { text($0, nullText: nullText) }.joined(separator: ", ") + "]"
    }

    static func text(_ cell: Cell, nullText: String) -> String {
        switch cell {
        case .value(let value): return text(value, nullText: nullText)
        case .list(let list): return text(list, nullText: nullText)
        }
    }

    /// Whether a cell holds a number, which tables right-align.
    static func isNumeric(_ cell: Cell) -> Bool {
        if case .value(let value) = cell { return isNumeric(value) }
        return false
    }

    static func isNumeric(_ value: Value) -> Bool {
        switch value {
        case .int, .double, .decimal: return true
        default: return false
        }
    }

    static func isNull(_ cell: Cell) -> Bool {
        if case .value(.null) = cell { return true }
        return false
    }

    /// Swift's shortest round-trip spelling, with `inf` and `nan` in
    /// lowercase as Swift prints them.
    static func doubleText(_ number: Double) -> String {
        number.description
    }

    // MARK: JSON

    /// A value as a JSON literal.
    static func json(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return number.isFinite ? number.description : "null"
        case .decimal(let number): return number.isNaN ? "null" : number.description
        case .string(let string): return jsonString(string)
        case .date(let date): return jsonString(dateText(date, iso: true))
        case .data(let data): return jsonString(data.base64EncodedString())
        case .uuid(let uuid): return jsonString(uuid.uuidString)
        case .url(let url): return jsonString(url.absoluteString)
        }
    }

    /// A JSON string literal: `"`, `\` and control characters escaped,
    /// everything else, non-ASCII included, left as UTF-8.
    static func jsonString(_ string: String) -> String {
        var result = "\""
        result.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20:
                result += "\\u00" + hexByte(UInt8(scalar.value))
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        result += "\""
        return result
    }

    // MARK: Dates

    /// `2024-01-31 10:00:00` or, with `iso`, `2024-01-31T10:00:00Z`; the
    /// milliseconds appear only when they are not zero.
    static func dateText(_ date: Date, iso: Bool) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e17 else {
            return iso ? "invalid" : "invalid date"
        }
        let total = Int64(milliseconds)
        let (seconds, millis) = floorDivide(total, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        var text = year >= 0 && year <= 9999
            ? pad(year, 4) : (year < 0 ? "-" + pad(-year, 6) : "+" + pad(year, 6))
        text += "-" + pad(month, 2) + "-" + pad(day, 2)
        text += iso ? "T" : " "
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2)
        text += ":" + pad(secondOfDay % 60, 2)
        if millis != 0 { text += "." + pad(millis, 3) }
        if iso { text += "Z" }
        return text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a >= 0 ? a / b : -((-a + b - 1) / b)
        return (quotient, a - quotient * b)
    }

    /// Howard Hinnant's days-to-civil algorithm, proleptic Gregorian.
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func pad(_ number: Int64, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // MARK: Bytes

    private static func hex(_ data: Data) -> String {
        var text = ""
        text.reserveCapacity(data.count * 2)
        for byte in data { text += hexByte(byte) }
        return text
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
