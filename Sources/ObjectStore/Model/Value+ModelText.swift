import Foundation
import Predicates

extension Value {
    /// The value as a message shows it: `150`, `"Ann"`, `2024-01-31T00:00:00Z`.
    var modelText: String {
        switch self {
        case .null: "nil"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .decimal(let d): d.description
        case .string(let s): "\"\(s)\""
        case .date(let d): ModelDateText.format(d)
        case .data(let d): "<\(d.count) bytes>"
        case .uuid(let u): u.uuidString
        case .url(let u): u.absoluteString
        }
    }

    /// The name of the value's kind, for "must be X, not Y" messages.
    var kindName: String {
        switch self {
        case .null: "nil"
        case .bool: "Boolean"
        case .int: "integer"
        case .double: "Double"
        case .decimal: "Decimal"
        case .string: "String"
        case .date: "Date"
        case .data: "Binary"
        case .uuid: "UUID"
        case .url: "URI"
        }
    }
}

/// ISO-8601 dates as the shell and the archive read and write them.
enum ModelDateText {
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        formatter.formatOptions = whole ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Reads `2024-01-31`, `2024-01-31T10:00:00Z`, `2024-01-31T10:00:00.5+01:00`
    /// and `2024-01-31 10:00:00` (UTC).
    static func parse(_ text: String) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let formatter = ISO8601DateFormatter()
        let attempts: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime],
            [.withInternetDateTime, .withFractionalSeconds],
            [.withFullDate],
            [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime],
            [.withFullDate, .withTime, .withColonSeparatorInTime],
        ]
        for options in attempts {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
