import Foundation

/// A JSON object's members, in the order the document gives them.
///
/// ```swift
/// let object: JSONObject = ["name": "Ada", "age": 36]
/// object["name"]          // .string("Ada")
/// object.keys             // ["name", "age"]
/// ```
///
/// Member order does not count for equality, as in JSON itself, and a key
/// given twice keeps its last value. Rows of one document share their
/// members' order, so the importer finds a key where the previous row had
/// it (`value(forKey:near:)`) with one comparison of short strings instead
/// of hashing the key, which a dictionary does on every lookup.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One member: its key and its value.
    public typealias Member = (key: String, value: JSON)

    /// One member as the object keeps it: a struct rather than the
    /// `Member` tuple, so that an array of them is destroyed by compiled
    /// code, not the runtime's generic walk over a tuple's elements (a
    /// shell import frees every row it parsed: mrq-bench m. shell import).
    struct Entry: Sendable {
        let key: String
        var value: JSON
    }

    /// The members in document order: for an object of at most
    /// `searchLimit` members the only reference, so that copying a JSON
    /// value (which the importer does for every member it reads) retains
    /// one object, and parsing a row allocates one.
    private var entries: [Entry]
    /// Positions by key, for objects too large to search member by member.
    private var positions: [String: Int]?

    /// Objects with more members than this keep an index of their keys.
    private static let searchLimit = 16

    /// An empty object.
    public init() {
        entries = []
    }

    /// Members whose keys are known to differ, in order (the parser's).
    init(uniqueEntries entries: [Entry]) {
        self.entries = entries
        indexKeysIfLarge()
    }

    /// The members of `dictionary`, ordered by key.
    public init(_ dictionary: [String: JSON]) {
        self.init(uniqueEntries: dictionary.sorted { $0.key < $1.key }.map { Entry(key: $0.key, value: $0.value) })
    }

    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }

    private mutating func indexKeysIfLarge() {
        guard positions == nil, entries.count > Self.searchLimit else { return }
        var index: [String: Int] = [:]
        index.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() { index[entry.key] = position }
        positions = index
    }

    /// The keys, in document order.
    public var keys: [String] { entries.map(\.key) }
    /// The values, in the order of `keys`.
    public var values: [JSON] { entries.map(\.value) }
    /// How many members the object has.
    public var count: Int { entries.count }
    /// True when the object has no members.
    public var isEmpty: Bool { entries.isEmpty }

    /// The members as a dictionary.
    public var dictionary: [String: JSON] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The position of `key` among the members.
    public func index(forKey key: String) -> Int? {
        if let positions { return positions[key] }
        return entries.firstIndex { $0.key == key }
    }

    /// The value of `key`; setting a new key appends it, setting nil removes
    /// it.
    public subscript(key: String) -> JSON? {
        get { index(forKey: key).map { entries[$0].value } }
        set {
            if let position = index(forKey: key) {
                if let newValue {
                    entries[position].value = newValue
                } else {
                    entries.remove(at: position)
                    positions = nil
                    indexKeysIfLarge()
                }
            } else if let newValue {
                entries.append(Entry(key: key, value: newValue))
                if positions != nil {
                    positions?[key] = entries.count - 1
                } else {
                    indexKeysIfLarge()
                }
            }
        }
    }

    /// The value of `key`, looked for first at `hint`, which is then set
    /// to where the key was found.
    @inline(__always)
    public func value(forKey key: String, near hint: inout Int) -> JSON? {
        if hint < entries.count, entries[hint].key == key { return entries[hint].value }
        guard let position = index(forKey: key) else { return nil }
        hint = position
        return entries[position].value
    }

    /// Whether the members' keys are `keys`, in that order.
    func hasKeys(_ keys: [String]) -> Bool {
        guard entries.count == keys.count else { return false }
        for i in entries.indices where entries[i].key != keys[i] { return false }
        return true
    }

    /// The value of the member at `position`.
    @inline(__always)
    func value(at position: Int) -> JSON {
        entries[position].value
    }

    /// Walks the members in document order.
    public struct Iterator: IteratorProtocol {
        private var base: IndexingIterator<[Entry]>

        fileprivate init(_ entries: [Entry]) {
            base = entries.makeIterator()
        }

        /// The next member, or nil after the last.
        public mutating func next() -> Member? {
            base.next().map { ($0.key, $0.value) }
        }
    }

    /// An iterator over the members, in document order.
    public func makeIterator() -> Iterator {
        Iterator(entries)
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        if a.sharesMembers(with: b) { return true }
        for (key, value) in a where b[key] != value { return false }
        return true
    }

    /// Whether both objects hold the one array of members (a copy).
    private func sharesMembers(with other: JSONObject) -> Bool {
        entries.withUnsafeBufferPointer { mine in
            other.entries.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
        }
    }

    /// Order-independent, as equality is.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        var members = 0
        for (key, value) in self {
            var one = Hasher()
            one.combine(key)
            one.combine(value)
            members ^= one.finalize()
        }
        hasher.combine(members)
    }
}

/// Gathers a parsed object's members, keeping the last value of a key
/// given twice in its first place.
struct JSONObjectBuilder {
    private var members: [JSONObject.Entry] = []
    /// A bit per (length, first byte, last byte) class of the keys so far:
    /// a new key whose bit is clear cannot repeat one, and needs no search.
    private var seen: UInt64 = 0
    /// How many of the members (the first ones) `seen` has counted:
    /// `append` leaves its keys to be counted when `add` needs them.
    private var counted = 0

    /// Adds a member; false when `key` repeated an earlier key, whose
    /// value it replaced.
    @discardableResult
    mutating func add(_ key: String, _ value: JSON) -> Bool {
        while counted < members.count {
            seen |= Self.bit(members[counted].key)
            counted += 1
        }
        let bit = Self.bit(key)
        if seen & bit != 0, let position = members.firstIndex(where: { $0.key == key }) {
            members[position].value = value
            return false
        }
        seen |= bit
        members.append(JSONObject.Entry(key: key, value: value))
        counted += 1
        return true
    }

    /// Adds a member whose key the caller knows is new to the object.
    @inline(__always)
    mutating func append(_ key: String, _ value: JSON) {
        members.append(JSONObject.Entry(key: key, value: value))
    }

    var object: JSONObject { JSONObject(uniqueEntries: members) }

    var count: Int { members.count }

    /// Makes room for `count` members at once.
    mutating func reserve(_ count: Int) {
        members.reserveCapacity(count)
    }

    @inline(__always)
    private static func bit(_ key: String) -> UInt64 {
        1 << UInt64(keyClass(key) & 63)
    }

    @inline(__always)
    private static func keyClass(_ key: String) -> Int {
        let utf8 = key.utf8
        guard let first = utf8.first else { return 0 }
        let last = utf8[utf8.index(before: utf8.endIndex)]
        return utf8.count &* 7 &+ Int(first) &* 3 &+ Int(last)
    }
}

/// The keys of the last object the parser read at one depth, with the
/// bytes the document spelled them with: the next object there (a row of
/// an array of objects, which repeat the same keys) compares its keys'
/// bytes with these and shares their strings instead of making new ones.
/// Only plain keys (no escape) of an object whose keys all differ are
/// kept, so bytes that match one, closing quote included, are that key.
struct JSONObjectShape {
    /// The keys, in order, all different.
    private var keys: [String] = []
    /// The keys' bytes, one after another.
    private var text: [UInt8] = []
    /// Where each key's bytes end in `text`.
    private var ends: [Int] = []
    /// How many members the object had (counting any key not kept).
    var memberCount = 0

    /// The key at `index` and the position after its closing quote, when
    /// the text at `position` (after an opening quote) is that key and its
    /// closing quote.
    @inline(__always)
    func key(_ index: Int, in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (String, Int)? {
        guard index < keys.count else { return nil }
        let start = index == 0 ? 0 : ends[index - 1]
        let length = ends[index] - start
        guard length < bytes.count - position, bytes[position + length] == UInt8(ascii: "\"") else { return nil }
        // memcmp: the generic elementsEqual walked both sides through
        // iterators, ~200 instructions a key (mrq-bench m. shell import).
        let same = length == 0 || text.withUnsafeBufferPointer { text in
            guard let document = bytes.baseAddress, let spelled = text.baseAddress else { return false }
            return memcmp(document + position, spelled + start, length) == 0
        }
        return same ? (keys[index], position + length + 1) : nil
    }

    /// The first `count` keys.
    func prefix(_ count: Int) -> JSONObjectShape {
        var shape = JSONObjectShape()
        guard count > 0 else { return shape }
        shape.keys = Array(keys[..<count])
        shape.ends = Array(ends[..<count])
        shape.text = Array(text[..<ends[count - 1]])
        return shape
    }

    /// Adds a key after the others, with the bytes the document wrote it
    /// with (no escape in them).
    mutating func append(_ key: String, _ bytes: UnsafeBufferPointer<UInt8>) {
        keys.append(key)
        text.append(contentsOf: bytes)
        ends.append(text.count)
    }
}
