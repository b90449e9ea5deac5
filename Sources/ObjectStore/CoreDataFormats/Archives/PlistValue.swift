import Foundation

/// A property-list value as mrq's readers hand it on: typed, so that the
/// keyed archive and the model decoder ask what a field holds with a
/// `switch` rather than with casts from `Any` and NSNumber boxes.
///
/// ```swift
/// let plist = try KeyedArchive.plistValue(data)
/// if case .dictionary(let top) = plist, case .string(let name)? = top["$archiver"] { … }
/// ```
///
/// Integers are `int` when they fit 64 bits signed; a 128-bit or unsigned
/// integer past `Int64.max` is `real`, as `KeyedArchive.number` reads
/// Foundation's unsigned NSNumbers. A 32-bit real is widened to `real`.
/// Sets and dictionaries whose keys are not strings are never values:
/// the readers refuse them.
indirect enum PlistValue: Equatable {
    case string(String)
    case int(Int64)
    case real(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    /// A UID of a keyed archive (`CF$UID`).
    case uid(Int)
    case array([PlistValue])
    case dictionary([String: PlistValue])

    /// How deep `init(foundation:)` follows collections (the depth of
    /// `BinaryPropertyList.maximumDepth`).
    static let maximumDepth = BinaryPropertyList.maximumDepth

    /// The value Foundation's property list reader returned (for XML
    /// plists), with its UIDs, numbers and booleans told apart as
    /// `KeyedArchive.uid` and `KeyedArchive.number` tell them.
    init(foundation raw: Any, depth: Int = 0) throws {
        guard depth <= Self.maximumDepth else {
            throw KeyedArchiveError("the property list nests more than \(Self.maximumDepth) deep")
        }
        switch raw {
        case let string as String: self = .string(string)
        case let data as Data: self = .data(data)
        case let date as Date: self = .date(date)
        case let array as [Any]: self = .array(try array.map { try PlistValue(foundation: $0, depth: depth + 1) })
        case let dictionary as [String: Any]:
            self = .dictionary(try dictionary.mapValues { try PlistValue(foundation: $0, depth: depth + 1) })
        default:
            switch KeyedArchive.number(raw) {
            case .int(let n)?: self = .int(n)
            case .double(let d)?: self = .real(d)
            case .bool(let b)?: self = .bool(b)
            default:
                guard let uid = KeyedArchive.uid(raw) else {
                    throw KeyedArchiveError("the property list holds a \(type(of: raw)), which is no property list value")
                }
                self = .uid(uid)
            }
        }
    }

    /// A short description of what the value is, for errors.
    var kind: String {
        switch self {
        case .string: "a string"
        case .data: "data"
        case .date: "a date"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .uid: "a UID"
        case .int, .real, .bool: "a number"
        }
    }

    /// The UID, when this is one.
    var uid: Int? {
        if case .uid(let n) = self { return n }
        return nil
    }

    /// The string, when this is one.
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The entries, when this is a dictionary.
    var entries: [String: PlistValue]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }
}

/// Builds the values `BinaryPropertyList`'s parser reads: typed
/// (`PlistValue`) for the keyed archive, or as Foundation's reader
/// returns them (`Any`) for callers that want its dictionaries.
protocol PlistBuilder {
    associatedtype Value
    static func bool(_ value: Bool) -> Value
    static func int(_ value: Int64) -> Value
    /// A 128-bit integer whose high half is 0.
    static func unsigned(_ value: UInt64) -> Value
    static func real(_ value: Double) -> Value
    static func date(_ value: Date) -> Value
    static func data(_ value: Data) -> Value
    static func string(_ value: String) -> Value
    static func uid(_ value: Int) -> Value
    static func array(_ items: [Value]) -> Value
    static func dictionary(_ entries: [String: Value]) -> Value
    /// The string a dictionary key holds; nil when it is no string.
    static func key(_ value: Value) -> String?
}

/// Typed values.
enum TypedPlist: PlistBuilder {
    typealias Value = PlistValue
    static func bool(_ value: Bool) -> PlistValue { .bool(value) }
    static func int(_ value: Int64) -> PlistValue { .int(value) }
    static func unsigned(_ value: UInt64) -> PlistValue { Int64(exactly: value).map(PlistValue.int) ?? .real(Double(value)) }
    static func real(_ value: Double) -> PlistValue { .real(value) }
    static func date(_ value: Date) -> PlistValue { .date(value) }
    static func data(_ value: Data) -> PlistValue { .data(value) }
    static func string(_ value: String) -> PlistValue { .string(value) }
    static func uid(_ value: Int) -> PlistValue { .uid(value) }
    static func array(_ items: [PlistValue]) -> PlistValue { .array(items) }
    static func dictionary(_ entries: [String: PlistValue]) -> PlistValue { .dictionary(entries) }
    static func key(_ value: PlistValue) -> String? { value.string }
}

/// Values as Foundation's reader returns them: `String`, `NSNumber`,
/// `Bool`, `Data`, `Date`, `[Any]`, `[String: Any]`, and `PlistUID`.
enum FoundationPlist: PlistBuilder {
    typealias Value = Any
    static func bool(_ value: Bool) -> Any { value }
    static func int(_ value: Int64) -> Any { NSNumber(value: value) }
    static func unsigned(_ value: UInt64) -> Any { NSNumber(value: value) }
    static func real(_ value: Double) -> Any { NSNumber(value: value) }
    static func date(_ value: Date) -> Any { value }
    static func data(_ value: Data) -> Any { value }
    static func string(_ value: String) -> Any { value }
    static func uid(_ value: Int) -> Any { PlistUID(value: value) }
    static func array(_ items: [Any]) -> Any { items }
    static func dictionary(_ entries: [String: Any]) -> Any { entries }
    static func key(_ value: Any) -> String? { value as? String }
}
