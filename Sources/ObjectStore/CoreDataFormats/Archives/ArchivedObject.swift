import Foundation

/// A value decoded from an archived attribute: what an `NSKeyedArchiver`
/// archive (binary or XML), or a plain property list, holds, as one tree.
///
/// ```swift
/// if let value = ArchivedObject(decoding: note["tags"].dataValue) {
///     print(value)        // ["work", "urgent"]
///     print(value.json)   // ["work","urgent"]
/// }
/// ```
///
/// Foundation's value classes become the cases of the same name: NSString,
/// NSNumber, NSDate, NSData, NSUUID, NSURL, NSNull, NSDecimalNumber;
/// NSArray, NSSet, NSOrderedSet and NSDictionary (and their mutable
/// kinds) become `array`, `set`, `orderedSet` and `dictionary`. Any other
/// class is an ``object(className:fields:)``: its class name and its
/// fields, decoded the same way. A few classes examiners meet often are
/// read into fields that say what they mean:
///
/// | archived | className | fields |
/// |---|---|---|
/// | NSValue of a range, point, size, rect | `NSRange`, `NSPoint`, `NSSize`, `NSRect` | `location`, `length`; `x`, `y`; `width`, `height` |
/// | NSColor, UIColor | the same | `red`, `green`, `blue`, `alpha`; or `white`, `alpha`; or `cyan`, `magenta`, `yellow`, `black`, `alpha`; or `catalog`, `name` |
/// | CLLocation | `CLLocation` | `latitude`, `longitude`, `altitude`, `horizontalAccuracy`, `verticalAccuracy`, `speed`, `course`, `timestamp`, … |
/// | NSAttributedString | the same | `string`, `runs` (each `location`, `length` in UTF-16 units, `attributes`) |
/// | NSIndexSet | the same | `ranges` (NSRange objects) |
/// | NSTimeZone, NSLocale, NSCalendar, NSDateComponents | the same | their keys without `NS.` (`name`, `identifier`, `year`…); unset components left out |
///
/// A class that does not decode as its kind should is shown with its
/// fields as stored, never as a failure. An object that contains itself
/// is a ``reference(index:className:)`` where it is met again; a part
/// that cannot be read is an ``error(_:)`` in its place, and so is a
/// whole archive that is damaged or asks for more work than its size
/// warrants (see ``ArchiveWork``).
public indirect enum ArchivedObject: Sendable, Hashable, CustomStringConvertible {
    /// NSNull, or the archive's `$null`.
    case null
    /// A boolean NSNumber (or a plist's `<true/>`, `<false/>`).
    case bool(Bool)
    /// An integer NSNumber.
    case int(Int64)
    /// A real NSNumber.
    case double(Double)
    /// An NSDecimalNumber.
    case decimal(Decimal)
    /// An NSString or NSMutableString.
    case string(String)
    /// An NSData or NSMutableData.
    case data(Data)
    /// An NSDate.
    case date(Date)
    /// An NSUUID.
    case uuid(UUID)
    /// An NSURL, made absolute against its base.
    case url(URL)
    /// An NSArray or NSMutableArray.
    case array([ArchivedObject])
    /// An NSSet or NSMutableSet, in the archive's order.
    case set([ArchivedObject])
    /// An NSOrderedSet or NSMutableOrderedSet.
    case orderedSet([ArchivedObject])
    /// Keys and values in the archive's order (a plain property list's
    /// keys sorted).
    case dictionary([Entry])
    /// An instance of any other class: its name and its fields.
    case object(className: String, fields: [Field])
    /// An object met again inside itself: the archive's object number.
    case reference(index: Int, className: String)
    /// What could not be read here, and why.
    case error(String)

    /// One key and value of a dictionary.
    public struct Entry: Sendable, Hashable {
        /// The key, most often a string.
        public var key: ArchivedObject
        /// The value under it.
        public var value: ArchivedObject

        /// An entry of `key` and `value`.
        public init(key: ArchivedObject, value: ArchivedObject) {
            self.key = key
            self.value = value
        }
    }

    /// One named field of an object.
    public struct Field: Sendable, Hashable {
        /// The field's key in the archive, or its meaning (see the table
        /// above).
        public var name: String
        /// Its value.
        public var value: ArchivedObject

        /// A field named `name` holding `value`.
        public init(_ name: String, _ value: ArchivedObject) {
            self.name = name
            self.value = value
        }
    }

    /// The class name of an ``object(className:fields:)``.
    public var className: String? {
        if case .object(let name, _) = self { return name }
        return nil
    }

    /// The field named `name` of an object, or the value under the string
    /// key `name` of a dictionary.
    public subscript(field name: String) -> ArchivedObject? {
        switch self {
        case .object(_, let fields): return fields.first { $0.name == name }?.value
        case .dictionary(let entries): return entries.first { $0.key == .string(name) }?.value
        default: return nil
        }
    }

    /// The readable text form: `["a", "b"]`, `{name: "Ada", age: 36}`,
    /// `NSColor(r 1 g 0 b 0 a 1)`, `CLLocation(37.33, -122.03 ±5m
    /// @2024-01-31T10:00:00Z)`, `NSRange(location: 2, length: 5)`.
    public var description: String { text(limit: .max) }

    /// The text form, stopping once it is `limit` bytes long or more (so a
    /// huge value costs no more than its start): the shell cuts it to its
    /// column width.
    public func text(limit: Int) -> String {
        var writer = ArchivedText(limit: limit)
        writer.write(self)
        return writer.out
    }

    /// The value as JSON: a collection as an array, a dictionary or an
    /// object as a JSON object (an object's class under `"$class"`), data
    /// as base64, a date as ISO 8601 text, a reference as
    /// `{"$ref": n, "$class": …}`, an error as `{"$error": …}`.
    public var json: String {
        var out = ""
        ArchivedText.appendJSON(self, to: &out)
        return out
    }

    /// A short form of bytes for people: their size and first bytes in
    /// hexadecimal, `<1.2 KB 0a061f2b3c4d5e6f…>`, `<3 bytes 0a0b0c>`.
    public static func preview(of data: Data) -> String {
        let shown = 8
        var text = "<" + sizeText(data.count)
        if !data.isEmpty {
            text += " "
            for byte in data.prefix(shown) {
                text += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            }
            if data.count > shown { text += "…" }
        }
        return text + ">"
    }

    /// `1 byte`, `12 bytes`, `1.2 KB`, `3.4 MB`, `5.0 GB`.
    static func sizeText(_ count: Int) -> String {
        if count < 1024 { return count == 1 ? "1 byte" : "\(count) bytes" }
        var size = Double(count) / 1024
        for unit in ["KB", "MB", "GB"] {
            if size < 1024 || unit == "GB" { return String(format: "%.1f", size) + " " + unit }
            size /= 1024
        }
        return "\(count) bytes"
    }
}

/// Writes the text and JSON forms of an ``ArchivedObject``.
struct ArchivedText {
    let limit: Int
    var out = ""

    init(limit: Int) { self.limit = limit }

    private var full: Bool { out.utf8.count >= limit }

    mutating func write(_ value: ArchivedObject) {
        guard !full else { return }
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let n): out += String(n)
        case .double(let d): out += d.description
        case .decimal(let d): out += d.description
        case .string(let s): Self.appendQuoted(s, to: &out)
        case .data(let d): out += ArchivedObject.preview(of: d)
        case .date(let d): out += Self.dateText(d)
        case .uuid(let u): out += u.uuidString
        case .url(let u): out += u.absoluteString
        case .array(let items): list(items, open: "[")
        case .set(let items): list(items, open: "set[")
        case .orderedSet(let items): list(items, open: "orderedSet[")
        case .dictionary(let entries):
            out += "{"
            for (i, entry) in entries.enumerated() {
                guard !full else { break }
                if i > 0 { out += ", " }
                if case .string(let key) = entry.key, Self.isBareKey(key) { out += key } else { write(entry.key) }
                out += ": "
                write(entry.value)
            }
            out += "}"
        case .object(let name, let fields):
            out += name + "("
            if !special(name, fields) {
                for (i, field) in fields.enumerated() {
                    guard !full else { break }
                    if i > 0 { out += ", " }
                    out += field.name + ": "
                    write(field.value)
                }
            }
            out += ")"
        case .reference(let index, let name): out += "<cycle: object \(index) (\(name))>"
        case .error(let message): out += "<error: \(message)>"
        }
    }

    private mutating func list(_ items: [ArchivedObject], open: String) {
        out += open
        for (i, item) in items.enumerated() {
            guard !full else { break }
            if i > 0 { out += ", " }
            write(item)
        }
        out += "]"
    }

    /// The compact forms of colours, locations, attributed strings and
    /// index sets; false for any other object.
    private mutating func special(_ name: String, _ fields: [ArchivedObject.Field]) -> Bool {
        func number(_ key: String) -> Double? {
            switch fields.first(where: { $0.name == key })?.value {
            case .double(let d)?: return d
            case .int(let n)?: return Double(n)
            default: return nil
            }
        }
        let value = ArchivedObject.object(className: name, fields: fields)
        switch name {
        case "NSColor", "UIColor":
            let short = ["red": "r", "green": "g", "blue": "b", "alpha": "a", "white": "w",
                         "cyan": "c", "magenta": "m", "yellow": "y", "black": "k"]
            let components = fields.compactMap { field in
                short[field.name].flatMap { letter in number(field.name).map { letter + " " + Self.compact($0) } }
            }
            guard components.count == fields.count else {
                guard case .string(let color)? = value[field: "name"] else { return false }
                if case .string(let catalog)? = value[field: "catalog"] { out += catalog + " " }
                out += color
                return true
            }
            out += components.joined(separator: " ")
            return true
        case "CLLocation":
            guard let latitude = number("latitude"), let longitude = number("longitude") else { return false }
            out += Self.compact(latitude) + ", " + Self.compact(longitude)
            if let accuracy = number("horizontalAccuracy"), accuracy >= 0 { out += " ±" + Self.compact(accuracy) + "m" }
            if case .date(let date)? = value[field: "timestamp"] { out += " @" + Self.dateText(date) }
            return true
        case "NSAttributedString", "NSMutableAttributedString":
            guard case .string(let text)? = value[field: "string"], case .array(let runs)? = value[field: "runs"] else { return false }
            Self.appendQuoted(text, to: &out)
            out += runs.count == 1 ? ", 1 run" : ", \(runs.count) runs"
            return true
        case "NSIndexSet", "NSMutableIndexSet":
            guard case .array(let ranges)? = value[field: "ranges"] else { return false }
            for (i, range) in ranges.enumerated() {
                guard !full else { break }
                guard case .int(let location)? = range[field: "location"], case .int(let length)? = range[field: "length"] else { continue }
                if i > 0 { out += ", " }
                out += length == 1 ? "\(location)" : "\(location)…\(location &+ length &- 1)"
            }
            return true
        default:
            return false
        }
    }

    /// `1` for 1.0, `0.5`, `37.33`: Swift's shortest form without a
    /// trailing `.0`.
    static func compact(_ d: Double) -> String {
        if d.isFinite, d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) }
        return d.description
    }

    /// A dictionary key written without quotes: a word of letters, digits
    /// and `_.$-` not starting with a digit.
    static func isBareKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first), first != "-" else { return false }
        return key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_.$-".unicodeScalars.contains($0)
        }
    }

    /// ISO 8601 in UTC, `2024-01-31T10:00:00Z`; a date past the years
    /// 1 to 9999 (or not a number) as its seconds since 2001.
    static func dateText(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, seconds > -63_113_904_000, seconds < 252_423_993_600 else {
            return "date(\(seconds) s since 2001)"
        }
        return ModelDateText.format(date)
    }

    /// A string in double quotes, escaped as in JSON (see ``JSONText``).
    static func appendQuoted(_ string: String, to out: inout String) { JSONText.appendQuoted(string, to: &out) }

    // MARK: JSON

    static func appendJSON(_ value: ArchivedObject, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let n): out += String(n)
        case .double(let d): out += d.isFinite ? d.description : "null"
        case .decimal(let d): out += d.isNaN ? "null" : d.description
        case .string(let s): appendQuoted(s, to: &out)
        case .data(let d): out += "\"" + d.base64EncodedString() + "\""
        case .date(let d): appendQuoted(dateText(d), to: &out)
        case .uuid(let u): out += "\"" + u.uuidString + "\""
        case .url(let u): appendQuoted(u.absoluteString, to: &out)
        case .array(let items), .set(let items), .orderedSet(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                appendJSON(item, to: &out)
            }
            out += "]"
        case .dictionary(let entries):
            out += "{"
            for (i, entry) in entries.enumerated() {
                if i > 0 { out += "," }
                if case .string(let key) = entry.key {
                    appendQuoted(key, to: &out)
                } else {
                    appendQuoted(entry.key.description, to: &out)
                }
                out += ":"
                appendJSON(entry.value, to: &out)
            }
            out += "}"
        case .object(let name, let fields):
            out += "{\"$class\":"
            appendQuoted(name, to: &out)
            for field in fields {
                out += ","
                appendQuoted(field.name, to: &out)
                out += ":"
                appendJSON(field.value, to: &out)
            }
            out += "}"
        case .reference(let index, let name):
            out += "{\"$ref\":\(index),\"$class\":"
            appendQuoted(name, to: &out)
            out += "}"
        case .error(let message):
            out += "{\"$error\":"
            appendQuoted(message, to: &out)
            out += "}"
        }
    }
}
