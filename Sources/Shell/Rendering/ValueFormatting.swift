import Foundation
import ObjectStore
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
/// | data | `x'01ab'` (hex); see ``BinaryDisplay`` for what tables, lines and CSV show | base64 string, or an archive decoded (``BinaryDisplay``) |
/// | uuid | `E621E1F8-C36C-495A-93FC-0C247A3E6E5F` | the same, as a string |
/// | url | its absolute string | the same, as a string |
///
/// Integral doubles keep their `.0` so a double never looks like an int.
enum ValueFormatter {
    /// The text form of a value, with `NULL` spelled `nullText`.
    static func text(_ value: Value, nullText: String) -> String {
        switch value {
        case .string(let string): return string
        default:
            var text = TextBuffer()
            append(value, nullText: nullText, to: &text)
            return text.string
        }
    }

    /// Appends the text form of a value to `text`: what ``text(_:nullText:)``
    /// returns, without making a string per value.
    static func append(_ value: Value, nullText: String, to text: inout TextBuffer) {
        switch value {
        case .null: text += nullText
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text.appendDecimal(number)
        case .double(let number): text += doubleText(number)
        case .decimal(let number): text += number.description
        case .string(let string): text += string
        case .date(let date): appendDate(date, iso: false, to: &text)
        case .data(let data):
            text += "x'"
            appendHex(data, to: &text)
            text += "'"
        case .uuid(let uuid): text += uuid.uuidString
        case .url(let url): text += url.absoluteString
        }
    }

    /// The text form of a to-many list: `[Ada, Grace]`.
    static func text(_ list: [Value], nullText: String) -> String {
        text(.list(list), nullText: nullText)
    }

    /// A cell's text form; a list shows at most `listLimit` items, then
    /// how many more there are: `[1, 2, 3, … 997 more]`.
    static func text(_ cell: Cell, nullText: String, listLimit: Int = .max) -> String {
        switch cell {
        case .value(let value): return text(value, nullText: nullText)
        case .list:
            var text = TextBuffer()
            append(cell, nullText: nullText, listLimit: listLimit, to: &text)
            return text.string
        }
    }

    /// Appends a cell's text form (see ``text(_:nullText:listLimit:)``).
    static func append(_ cell: Cell, nullText: String, listLimit: Int = .max, to text: inout TextBuffer) {
        switch cell {
        case .value(let value):
            append(value, nullText: nullText, to: &text)
        case .list(let list):
            text += "["
            for (i, value) in list.prefix(listLimit).enumerated() {
                if i > 0 { text += ", " }
                append(value, nullText: nullText, to: &text)
            }
            if list.count > listLimit {
                text += (listLimit > 0 ? ", … " : "… ") + WorkProgress.grouped(list.count - listLimit) + " more"
            }
            text += "]"
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
        var text = TextBuffer()
        appendJSON(value, to: &text)
        return text.string
    }

    /// Appends a value as a JSON literal.
    static func appendJSON(_ value: Value, to text: inout TextBuffer) {
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text.appendDecimal(number)
        case .double(let number): text += number.isFinite ? number.description : "null"
        case .decimal(let number): text += number.isNaN ? "null" : number.description
        case .string(let string): appendJSONString(string, to: &text)
        case .date(let date):
            text += "\""
            appendDate(date, iso: true, to: &text)
            text += "\""
        case .data(let data):
            text += "\""
            appendBase64(data, to: &text)
            text += "\""
        case .uuid(let uuid): appendJSONString(uuid.uuidString, to: &text)
        case .url(let url): appendJSONString(url.absoluteString, to: &text)
        }
    }

    /// A JSON string literal: `"`, `\` and control characters escaped,
    /// everything else, non-ASCII included, left as UTF-8.
    static func jsonString(_ string: String) -> String {
        var text = TextBuffer()
        appendJSONString(string, to: &text)
        return text.string
    }

    /// Appends a JSON string literal: the runs that need no escape are
    /// appended whole, a block at a time (see ``TextBuffer/spill``), so a
    /// long string is written out as it is escaped, never copied whole.
    static func appendJSONString(_ string: String, to text: inout TextBuffer) {
        text.append(ascii: UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var run = 0
            for index in utf8.indices {
                let byte = utf8[index]
                // Every byte of a multi-byte character is 0x80 or above.
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                text.append(chunked: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                appendJSONEscape(byte, to: &text)
                text.spillIfFull()
                run = index + 1
            }
            text.append(chunked: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        text.append(ascii: UInt8(ascii: "\""))
    }

    private static func appendJSONEscape(_ byte: UInt8, to text: inout TextBuffer) {
        switch byte {
        case UInt8(ascii: "\""): text += "\\\""
        case UInt8(ascii: "\\"): text += "\\\\"
        case UInt8(ascii: "\n"): text += "\\n"
        case UInt8(ascii: "\r"): text += "\\r"
        case UInt8(ascii: "\t"): text += "\\t"
        case 0x08: text += "\\b"
        case 0x0C: text += "\\f"
        default:
            text += "\\u00"
            appendHex(byte, to: &text)
        }
    }

    /// Appends `data` in base64 (a JSON string's content), a block at a
    /// time: never the whole encoding at once, which for a blob of a
    /// gigabyte is 1.3 GB more.
    static func appendBase64(_ data: Data, to text: inout TextBuffer) {
        // A multiple of 3 bytes encodes alone, without padding.
        let block = 3 * 16 * 1024
        var start = data.startIndex
        while start < data.endIndex {
            let end = data.index(start, offsetBy: block, limitedBy: data.endIndex) ?? data.endIndex
            text += data[start..<end].base64EncodedString()
            text.spillIfFull()
            start = end
        }
    }

    // MARK: Dates

    /// `2024-01-31 10:00:00` or, with `iso`, `2024-01-31T10:00:00Z`; the
    /// milliseconds appear only when they are not zero.
    static func dateText(_ date: Date, iso: Bool) -> String {
        var text = TextBuffer()
        appendDate(date, iso: iso, to: &text)
        return text.string
    }

    /// Appends ``dateText(_:iso:)``, digit by digit: a date per row is the
    /// commonest value of a big result, and building it from strings cost
    /// more than the rest of the row.
    static func appendDate(_ date: Date, iso: Bool, to text: inout TextBuffer) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e17 else {
            text += iso ? "invalid" : "invalid date"
            return
        }
        let total = Int64(milliseconds)
        let (seconds, millis) = floorDivide(total, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        if year >= 0 && year <= 9999 {
            text.appendDecimal(year, width: 4)
        } else {
            text += year < 0 ? "-" : "+"
            text.appendDecimal(abs(year), width: 6)
        }
        text += "-"
        text.appendDecimal(month, width: 2)
        text += "-"
        text.appendDecimal(day, width: 2)
        text += iso ? "T" : " "
        text.appendDecimal(secondOfDay / 3600, width: 2)
        text += ":"
        text.appendDecimal(secondOfDay / 60 % 60, width: 2)
        text += ":"
        text.appendDecimal(secondOfDay % 60, width: 2)
        if millis != 0 {
            text += "."
            text.appendDecimal(millis, width: 3)
        }
        if iso { text += "Z" }
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

    // MARK: Bytes

    /// Binary bytes as `.binary decoded` or `.binary preview` shows them
    /// in text: an archive or property list decoded (at least `limit`
    /// bytes of its text form, when it is longer), else the size and first
    /// bytes, `<1.2 KB 0a061f2b…>`.
    static func binaryText(_ data: Data, _ binary: BinaryDisplay, limit: Int = .max) -> String {
        if binary == .decoded, let decoded = ArchivedObject(decoding: data) { return decoded.text(limit: limit) }
        return ArchivedObject.preview(of: data)
    }

    /// Appends binary bytes as JSON: an archive or property list decoded
    /// with `.binary decoded`, else base64.
    static func appendBinaryJSON(_ data: Data, _ binary: BinaryDisplay, to text: inout TextBuffer) {
        if binary == .decoded, let decoded = ArchivedObject(decoding: data) {
            text += decoded.json
            return
        }
        appendJSON(.data(data), to: &text)
    }

    /// Appends `data` in hexadecimal, a block at a time.
    static func appendHex(_ data: Data, to text: inout TextBuffer) {
        let block = 32 * 1024
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            hexDigits.withUTF8Buffer { hex in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * block) { digits in
                    var start = 0
                    while start < bytes.count {
                        let end = min(bytes.count, start + block)
                        var out = 0
                        for index in start..<end {
                            digits[out] = hex[Int(bytes[index] >> 4)]
                            digits[out + 1] = hex[Int(bytes[index] & 0xF)]
                            out += 2
                        }
                        text.append(chunked: UnsafeBufferPointer(rebasing: digits[0..<out]))
                        start = end
                    }
                }
            }
        }
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    private static func appendHex(_ byte: UInt8, to text: inout TextBuffer) {
        hexDigits.withUTF8Buffer { digits in
            text.append(ascii: digits[Int(byte >> 4)])
            text.append(ascii: digits[Int(byte & 0xF)])
        }
    }
}
