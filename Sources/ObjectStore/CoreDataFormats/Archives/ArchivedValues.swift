import Foundation
import Predicates

/// mrq's values as a keyed archive holds them: strings, integers, reals,
/// booleans and data in place; dates, UUIDs, URLs and decimals as the
/// Foundation objects Apple's archiver writes for them (NSDate with
/// `NS.time`, NSUUID with `NS.uuidbytes`, NSURL with `NS.base` and
/// `NS.relative`, NSDecimalNumber with `NS.exponent`, `NS.length`,
/// `NS.negative`, `NS.compact`, `NS.mantissa.bo` and `NS.mantissa`).
enum ArchivedValues {
    /// The archive item for `value`.
    static func item(_ value: Value) -> ArchiveItem {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .data(let d): return .data(d)
        case .date(let date):
            let node = ArchiveNode(["NSDate", "NSObject"])
            node.set("NS.time", .double(date.timeIntervalSinceReferenceDate))
            return .node(node)
        case .uuid(let uuid):
            let node = ArchiveNode(["NSUUID", "NSObject"])
            node.set("NS.uuidbytes", .inlineData(withUnsafeBytes(of: uuid.uuid) { Data($0) }))
            return .node(node)
        case .url(let url):
            let node = ArchiveNode(["NSURL", "NSObject"])
            node.set("NS.base", .object(.null))
            node.set("NS.relative", .object(.string(url.absoluteString)))
            return .node(node)
        case .decimal(let decimal):
            return .node(decimalNode(decimal))
        }
    }

    private static func decimalNode(_ decimal: Decimal) -> ArchiveNode {
        let node = ArchiveNode(["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"])
        // The mantissa as eight little-endian 16-bit words, built from the
        // significand's digits: Decimal's own fields are not public on
        // every platform.
        var words = [UInt16](repeating: 0, count: 8)
        let digits = decimal.isZero ? "0" : (decimal.significand.magnitude as Decimal).description
        for digit in digits.compactMap(\.wholeNumberValue) {
            var carry = UInt32(digit)
            for i in 0..<8 {
                let product = UInt32(words[i]) * 10 + carry
                words[i] = UInt16(product & 0xffff)
                carry = product >> 16
            }
        }
        let length = (words.lastIndex { $0 != 0 }).map { $0 + 1 } ?? 0
        var bytes = Data()
        for word in words { bytes.append(contentsOf: [UInt8(word & 0xff), UInt8(word >> 8)]) }
        node.set("NS.exponent", .int(decimal.isZero ? 0 : decimal.exponent))
        node.set("NS.length", .int(length))
        node.set("NS.negative", .bool(decimal.sign == .minus && !decimal.isZero))
        node.set("NS.compact", .bool(true))
        node.set("NS.mantissa.bo", .int(1))
        node.set("NS.mantissa", .inlineData(bytes))
        return node
    }

    /// The mrq value for an archived value; a collection is an error.
    static func value(_ archived: ArchivedValue, in object: KeyedObject, key: String) throws -> Value {
        switch archived {
        case .null: return .null
        case .string(let s): return .string(s)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .data(let d): return .data(d)
        case .date(let d): return .date(d)
        case .uuid(let u): return .uuid(u)
        case .url(let u): return .url(u)
        case .decimal(let d): return .decimal(d)
        case .array, .set, .dictionary:
            throw object.unknown(key, "\(archived.kind) where a single value belongs")
        }
    }

    /// `value` as an attribute of `type` holds it: Core Data writes a
    /// Boolean's default as 0 or 1, a Double's as an integer when it is
    /// whole, a Decimal's as an NSDecimalNumber or a plain number. A value
    /// that does not fit the type is an error.
    static func value(_ value: Value, as type: AttributeType, in object: KeyedObject, key: String) throws -> Value {
        func mismatch() -> KeyedArchiveError {
            object.unknown(key, "\(value) does not fit an attribute of type \(type.rawValue)")
        }
        if value.isNull { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            switch value {
            case .int: return value
            case .bool(let b): return .int(b ? 1 : 0)
            case .double(let d):
                guard let i = Int64(exactly: d) else { throw mismatch() }
                return .int(i)
            default: throw mismatch()
            }
        case .double, .float:
            switch value {
            case .double: return value
            case .int(let i): return .double(Double(i))
            default: throw mismatch()
            }
        case .decimal:
            switch value {
            case .decimal: return value
            case .int(let i): return .decimal(Decimal(i))
            case .double(let d): return .decimal(Decimal(d))
            case .string(let s):
                guard let d = AttributeType.parseDecimal(s) else { throw mismatch() }
                return .decimal(d)
            default: throw mismatch()
            }
        case .boolean:
            switch value {
            case .bool: return value
            case .int(let i) where i == 0 || i == 1: return .bool(i == 1)
            default: throw mismatch()
            }
        case .string:
            guard case .string = value else { throw mismatch() }
            return value
        case .date:
            switch value {
            case .date: return value
            case .double(let d): return .date(Date(timeIntervalSinceReferenceDate: d))
            default: throw mismatch()
            }
        case .binary, .transformable:
            guard case .data = value else { throw mismatch() }
            return value
        case .uuid:
            switch value {
            case .uuid: return value
            case .string(let s):
                guard let u = UUID(uuidString: s) else { throw mismatch() }
                return .uuid(u)
            default: throw mismatch()
            }
        case .uri, .objectID:
            switch value {
            case .url: return value
            case .string(let s):
                guard let u = URL(string: s) else { throw mismatch() }
                return .url(u)
            default: throw mismatch()
            }
        case .undefined, .composite:
            // Undefined holds anything; a composite's value is its elements'.
            return value
        }
    }
}
