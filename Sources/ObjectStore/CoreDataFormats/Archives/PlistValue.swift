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
///
/// Not `indirect`: a collection's payload is already one reference, so a
/// number or a UID is held in place rather than in a box of its own (a
/// model cache holds tens of thousands of them, each a malloc and a
/// release otherwise).
enum PlistValue: Equatable {
    case string(String)
    case int(Int64)
    case real(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    /// A UID of a keyed archive (`CF$UID`).
    case uid(Int)
    case array([PlistValue])
    case dictionary(PlistDictionary)

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
            self = .dictionary(PlistDictionary(try dictionary.map { ($0.key, try PlistValue(foundation: $0.value, depth: depth + 1)) }))
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
    var entries: PlistDictionary? {
        if case .dictionary(let d) = self { return d }
        return nil
    }
}

/// A property-list dictionary: its entries in the order the list holds
/// them, each with a 64-bit tag of its key, looked up by a scan of the
/// tags. A keyed archive's objects are dictionaries of a few fields each,
/// read a field or two at a time: one array scanned costs less than a
/// hash table per object, both to build and to free, and comparing tags
/// spares comparing strings that differ.
///
/// ```swift
/// let fields = PlistDictionary([("$class", .uid(3)), ("NSName", .uid(4))])
/// fields["NSName"]   // .uid(4)
/// ```
///
/// A key written twice (a damaged or hand-made list) reads as its last
/// value, as a dictionary built from the entries in order would hold it.
struct PlistDictionary: Equatable, Sequence {
    private struct Entry {
        let tag: UInt64
        let key: String
        var value: PlistValue
    }

    /// The entries as the list holds them, repeated keys and all.
    private var pairs: [Entry]

    init(_ entries: [(String, PlistValue)]) {
        pairs = entries.map { Entry(tag: Self.tag($0.0), key: $0.0, value: $0.1) }
    }

    /// No entries yet, room for `capacity`.
    init(capacity: Int) {
        pairs = []
        pairs.reserveCapacity(capacity)
    }

    /// Adds an entry after the others (a key already there is read as
    /// this value from now on).
    mutating func append(_ key: String, _ value: PlistValue) {
        pairs.append(Entry(tag: Self.tag(key), key: key, value: value))
    }

    /// `append(_:_:)` with the key's tag already known (`tag(_:)` of it):
    /// a reader meets the same key object in many dictionaries.
    mutating func append(_ key: String, tag: UInt64, _ value: PlistValue) {
        pairs.append(Entry(tag: tag, key: key, value: value))
    }

    /// FNV-1a of the key's UTF-8: equal keys have equal tags.
    static func tag(_ key: String) -> UInt64 {
        // Asked at every field a decoder reads: an index loop over the
        // bytes where they lie (a generic `for … in` left an iterator
        // call per byte; `withUTF8` a copy of the string to retain).
        func fnv(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            var i = 0
            while i < bytes.count {
                hash = (hash ^ UInt64(bytes[i])) &* 0x100_0000_01b3
                i += 1
            }
            return hash
        }
        if let hash = key.utf8.withContiguousStorageIfAvailable(fnv) { return hash }
        return Array(key.utf8).withUnsafeBufferPointer(fnv)
    }

    /// The value of `key`, its last one when the list repeats it; setting
    /// nil removes every entry of `key`.
    subscript(key: String) -> PlistValue? {
        get {
            let tag = Self.tag(key)
            return pairs.withUnsafeBufferPointer { entries in
                var i = entries.count
                while i > 0 {
                    i -= 1
                    if entries[i].tag == tag && entries[i].key == key { return entries[i].value }
                }
                return nil
            }
        }
        set {
            pairs.removeAll { $0.key == key }
            if let newValue { pairs.append(Entry(tag: Self.tag(key), key: key, value: newValue)) }
        }
    }

    var isEmpty: Bool { pairs.isEmpty }

    /// Each key once.
    var keys: [String] { entries.map(\.key) }

    /// Each key once with its value (its last one), in the list's order of
    /// those last entries.
    var entries: [(key: String, value: PlistValue)] {
        var seen = Set<String>(minimumCapacity: pairs.count)
        var reversed: [(key: String, value: PlistValue)] = []
        reversed.reserveCapacity(pairs.count)
        for entry in pairs.reversed() where seen.insert(entry.key).inserted { reversed.append((entry.key, entry.value)) }
        return reversed.reversed()
    }

    func makeIterator() -> IndexingIterator<[(key: String, value: PlistValue)]> { entries.makeIterator() }

    /// Equal when they map the same keys to equal values, whatever the
    /// order (an XML list read by Foundation comes in hash order).
    static func == (a: PlistDictionary, b: PlistDictionary) -> Bool {
        let x = a.entries
        guard x.count == b.entries.count else { return false }
        return x.allSatisfy { b[$0.key] == $0.value }
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
    /// A dictionary's entries as they are read, in the list's order (a
    /// key may repeat: the last wins).
    associatedtype Entries
    static func entries(capacity: Int) -> Entries
    /// Adds an entry whose key's tag (`PlistDictionary.tag`) is `tag`.
    static func add(_ key: String, tag: UInt64, _ value: Value, to entries: inout Entries)
    static func dictionary(_ entries: Entries) -> Value
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
    static func entries(capacity: Int) -> PlistDictionary { PlistDictionary(capacity: capacity) }
    static func add(_ key: String, tag: UInt64, _ value: PlistValue, to entries: inout PlistDictionary) {
        entries.append(key, tag: tag, value)
    }
    static func dictionary(_ entries: PlistDictionary) -> PlistValue { .dictionary(entries) }
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
    static func entries(capacity: Int) -> [String: Any] { Dictionary(minimumCapacity: capacity) }
    static func add(_ key: String, tag: UInt64, _ value: Any, to entries: inout [String: Any]) { entries[key] = value }
    static func dictionary(_ entries: [String: Any]) -> Any { entries }
    static func key(_ value: Any) -> String? { value as? String }
}
