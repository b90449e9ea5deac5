import Foundation
import Predicates

extension AttributeType {
    /// The range an integer attribute of this width can hold, or nil for
    /// other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }

    /// Whether `value` already has the representation this type stores:
    /// `.int` for integers, `.double` for Double and Float, and so on.
    /// `.null` conforms to every type.
    public func accepts(_ value: Value) -> Bool {
        switch (self, value) {
        case (_, .null), (.undefined, _): true
        case (.integer16, .int(let i)), (.integer32, .int(let i)), (.integer64, .int(let i)):
            integerRange!.contains(i)
        case (.double, .double), (.float, .double), (.decimal, .decimal), (.string, .string),
            (.boolean, .bool), (.date, .date), (.binary, .data), (.transformable, .data),
            (.uuid, .uuid), (.uri, .url), (.objectID, .url):
            true
        default: false
        }
    }

    /// Converts `value` to the representation this type stores, or throws.
    ///
    /// ```swift
    /// try AttributeType.double.coerce(.int(1))        // .double(1)
    /// try AttributeType.boolean.coerce(.int(0))       // .bool(false)
    /// try AttributeType.date.coerce(.string("2024-01-31"))
    /// ```
    ///
    /// Integers, doubles and decimals convert into each other when no
    /// precision is lost; integers must fit the width (`Integer 16` holds
    /// -32768...32767). Booleans take 0 and 1. Strings are parsed for every
    /// type but Binary and Transformable: numbers, `true`/`false`/`YES`/`NO`,
    /// UUIDs, URLs and ISO-8601 dates (`2024-01-31`, `2024-01-31T10:00:00Z`).
    /// A number for a Date is seconds since 1970. `.null` stays `.null`:
    /// whether nil is allowed is for `AttributeDescription.validate`.
    public func coerce(_ value: Value) throws -> Value {
        if case .null = value { return .null }
        switch self {
        case .integer16, .integer32, .integer64:
            let i: Int64
            switch value {
            case .int(let v): i = v
            case .bool(let b): i = b ? 1 : 0
            case .double(let d):
                guard d.rounded() == d, let v = Int64(exactly: d) else { throw ModelError.cannotConvert(value, to: self) }
                i = v
            case .decimal(let d):
                guard let v = Int64(exactly: NSDecimalNumber(decimal: d).doubleValue),
                    Decimal(v) == d
                else { throw ModelError.cannotConvert(value, to: self) }
                i = v
            case .string(let s):
                guard let v = Int64(s.trimmingCharacters(in: .whitespaces)) else {
                    throw ModelError.cannotConvert(value, to: self)
                }
                i = v
            default: throw ModelError.cannotConvert(value, to: self)
            }
            guard integerRange!.contains(i) else { throw ModelError.outOfRange(value, for: self) }
            return .int(i)
        case .double, .float:
            switch value {
            case .double: return value
            case .int(let i): return .double(Double(i))
            case .decimal(let d): return .double(NSDecimalNumber(decimal: d).doubleValue)
            case .bool(let b): return .double(b ? 1 : 0)
            case .string(let s):
                guard let d = Double(s.trimmingCharacters(in: .whitespaces)) else {
                    throw ModelError.cannotConvert(value, to: self)
                }
                return .double(d)
            default: throw ModelError.cannotConvert(value, to: self)
            }
        case .decimal:
            switch value {
            case .decimal: return value
            case .int(let i): return .decimal(Decimal(i))
            case .double(let d):
                guard d.isFinite, let decimal = Decimal(string: String(d)) else {
                    throw ModelError.cannotConvert(value, to: self)
                }
                return .decimal(decimal)
            case .string(let s):
                guard let d = Self.parseDecimal(s) else { throw ModelError.cannotConvert(value, to: self) }
                return .decimal(d)
            default: throw ModelError.cannotConvert(value, to: self)
            }
        case .string:
            switch value {
            case .string: return value
            case .uuid(let u): return .string(u.uuidString)
            case .url(let u): return .string(u.absoluteString)
            default: throw ModelError.cannotConvert(value, to: self)
            }
        case .boolean:
            switch value {
            case .bool: return value
            case .int(let i) where i == 0 || i == 1: return .bool(i == 1)
            case .string(let s):
                if let b = Self.parseBoolean(s) { return .bool(b) }
                throw ModelError.cannotConvert(value, to: self)
            default: throw ModelError.cannotConvert(value, to: self)
            }
        case .date:
            switch value {
            case .date: return value
            case .int(let i): return .date(Date(timeIntervalSince1970: TimeInterval(i)))
            case .double(let d): return .date(Date(timeIntervalSince1970: d))
            case .string(let s):
                guard let date = ModelDateText.parse(s) else { throw ModelError.cannotConvert(value, to: self) }
                return .date(date)
            default: throw ModelError.cannotConvert(value, to: self)
            }
        case .binary, .transformable:
            if case .data = value { return value }
            throw ModelError.cannotConvert(value, to: self)
        case .uuid:
            switch value {
            case .uuid: return value
            case .string(let s):
                guard let u = UUID(uuidString: s.trimmingCharacters(in: .whitespaces)) else {
                    throw ModelError.cannotConvert(value, to: self)
                }
                return .uuid(u)
            default: throw ModelError.cannotConvert(value, to: self)
            }
        case .uri, .objectID:
            switch value {
            case .url: return value
            case .string(let s):
                let text = s.trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty, let url = URL(string: text),
                    self == .uri || url.scheme != nil
                else { throw ModelError.cannotConvert(value, to: self) }
                return .url(url)
            default: throw ModelError.cannotConvert(value, to: self)
            }
        case .undefined:
            return value
        case .composite:
            // A composite's values live in its elements.
            throw ModelError.cannotConvert(value, to: self)
        }
    }

    /// `YES`, `NO`, `true`, `false`, `1`, `0`, any case.
    static func parseBoolean(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "yes", "true", "1": true
        case "no", "false", "0": false
        default: nil
        }
    }

    /// A decimal number written in full (`Decimal(string:)` alone accepts
    /// `12abc` as 12).
    static func parseDecimal(_ text: String) -> Decimal? {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard Double(text) != nil, text.allSatisfy({ "0123456789+-.eE".contains($0) }) else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
}
