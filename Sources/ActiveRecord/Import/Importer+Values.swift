import Foundation
import ObjectStore
import Predicates

extension Importer {
    // MARK: - Values

    /// Converts a JSON value to an attribute's type, as MagicalRecord does:
    /// numbers and strings into each other, `"true"` into a Boolean, dates
    /// by the attribute's `dateFormat`.
    ///
    /// An error's path is relative to the value: the caller puts its key
    /// in front (see `ImportError.under`).
    func convert(_ json: JSON, _ step: AttributeStep) throws(ImportError) -> Value {
        if json.isNull { return .null }
        // Only an error needs the attribute: not retained per value.
        func bad(_ what: String) -> ImportError {
            let attribute = step.attribute
            return ImportError(message: "cannot import \(json.kindName) \(json.shortText) into \(attribute.type.rawValue) attribute '\(attribute.name)'\(what)", path: "")
        }
        switch step.conversion {
        case .string:
            switch json {
            case .string(let s): return .string(s)
            case .int(let i): return .string(String(i))
            case .double(let d): return .string(d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d))
            case .bool(let b): return .string(b ? "true" : "false")
            default: throw bad("")
            }
        case .integer(let range):
            let n: Int64
            switch json {
            case .int(let i): n = i
            case .double(let d) where d.isFinite && abs(d) < 9.2e18: n = Int64(d.rounded(.towardZero))
            case .bool(let b): n = b ? 1 : 0
            case .string(let s):
                let trimmed = s.trimmingCharacters(in: .whitespaces)
                if let i = Int64(trimmed) { n = i } else if let d = Double(trimmed), d.isFinite, abs(d) < 9.2e18 { n = Int64(d.rounded(.towardZero)) } else { throw bad(": not a number") }
            default: throw bad("")
            }
            guard range.contains(n) else { throw bad(": out of range") }
            return .int(n)
        case .real:
            switch json {
            case .int(let i): return .double(Double(i))
            case .double(let d): return .double(d)
            case .bool(let b): return .double(b ? 1 : 0)
            case .string(let s): if let d = Double(s.trimmingCharacters(in: .whitespaces)) { return .double(d) }; throw bad(": not a number")
            default: throw bad("")
            }
        case .decimal:
            switch json {
            case .int(let i): return .decimal(Decimal(i))
            case .double(let d): return .decimal(Decimal(string: String(d)) ?? Decimal(d))
            case .string(let s): if let d = Decimal(string: s.trimmingCharacters(in: .whitespaces)) { return .decimal(d) }; throw bad(": not a number")
            default: throw bad("")
            }
        case .boolean:
            switch json {
            case .bool(let b): return .bool(b)
            case .int(let i): return .bool(i != 0)
            case .double(let d): return .bool(d != 0)
            case .string(let s):
                switch s.trimmingCharacters(in: .whitespaces).lowercased() {
                case "true", "yes", "y", "1": return .bool(true)
                case "false", "no", "n", "0", "": return .bool(false)
                default: throw bad(": expected true or false")
                }
            default: throw bad("")
            }
        case .date(let rule):
            return try convertDate(json, rule, bad: bad)
        case .uuid:
            guard case .string(let s) = json, let uuid = UUID(uuidString: s) else { throw bad(": not a UUID") }
            return .uuid(uuid)
        case .uri:
            guard case .string(let s) = json, let url = URL(string: s) else { throw bad(": not a URI") }
            return .url(url)
        case .binary:
            guard case .string(let s) = json, let data = Data(base64Encoded: s) else { throw bad(": expected base64 text") }
            return .data(data)
        case .serialized:
            return .data(Data(json.serialized.utf8))
        }
    }

    private func convertDate(_ json: JSON, _ rule: DateRule, bad: (String) -> ImportError) throws(ImportError) -> Value {
        let unixMilliseconds = rule.unixMilliseconds
        switch json {
        case .int(let i):
            return .date(Date(timeIntervalSince1970: unixMilliseconds ? Double(i) / 1000 : Double(i)))
        case .double(let d):
            return .date(Date(timeIntervalSince1970: unixMilliseconds ? d / 1000 : d))
        case .string(let s):
            if unixMilliseconds {
                guard let n = Double(s) else { throw bad(": expected milliseconds since 1970") }
                return .date(Date(timeIntervalSince1970: n / 1000))
            }
            if let date = rule.date(from: s) { return .date(date) }
            throw bad(": does not match date format '\(rule.format)'")
        default:
            throw bad("")
        }
    }

    func formatter(_ format: String) -> DateFormatter {
        dateFormatters.formatter(format)
    }
}

extension String {
    var isTrue: Bool {
        ["yes", "true", "1", "y"].contains(lowercased())
    }
}

extension JSON {
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    var shortText: String {
        let text = serialized
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }

    /// Compact JSON text.
    public var serialized: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? "\(d)" : "null"
        case .string(let s): return JSON.quote(s)
        case .array(let a): return "[" + a.map(\.serialized).joined(separator: ",") + "]"
        case .object(let o):
            return "{" + o.sorted { $0.key < $1.key }.map { JSON.quote($0.key) + ":" + $0.value.serialized }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String { JSONText.quoted(s) }
}

/// The date formatters of one import, one per format, built on first use:
/// POSIX locale, GMT (as MagicalRecord's importer reads dates).
struct DateFormatterCache {
    private var formatters: [String: DateFormatter] = [:]

    mutating func formatter(_ format: String) -> DateFormatter {
        if let formatter = formatters[format] { return formatter }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        formatters[format] = formatter
        return formatter
    }
}
