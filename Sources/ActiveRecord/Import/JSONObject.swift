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
    /// One reference, so that copying a JSON value (which the importer
    /// does for every member it reads) retains one object.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var keys: [String] = []
        @exclusivity(unchecked) var values: [JSON] = []
        /// Positions by key, for objects too large to search member by member.
        @exclusivity(unchecked) var positions: [String: Int]?

        init() {}

        init(copying other: Storage) {
            keys = other.keys
            values = other.values
            positions = other.positions
        }
    }

    private var storage = Storage()

    /// Objects with more members than this keep an index of their keys.
    private static let searchLimit = 16

    public init() {}

    /// The members of `dictionary`, ordered by key.
    public init(_ dictionary: [String: JSON]) {
        storage.keys.reserveCapacity(dictionary.count)
        storage.values.reserveCapacity(dictionary.count)
        for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            append(key, value)
        }
    }

    public init(dictionaryLiteral elements: (String, JSON)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// The keys, in document order.
    public var keys: [String] { storage.keys }
    /// The values, in the order of `keys`.
    public var values: [JSON] { storage.values }
    public var count: Int { storage.keys.count }
    public var isEmpty: Bool { storage.keys.isEmpty }

    /// The members as a dictionary.
    public var dictionary: [String: JSON] {
        Dictionary(zip(storage.keys, storage.values), uniquingKeysWith: { _, last in last })
    }

    /// The position of `key` among the members.
    public func index(forKey key: String) -> Int? {
        if let positions = storage.positions { return positions[key] }
        return storage.keys.firstIndex(of: key)
    }

    public subscript(key: String) -> JSON? {
        get { index(forKey: key).map { storage.values[$0] } }
        set {
            if let position = index(forKey: key) {
                makeUnique()
                if let newValue {
                    storage.values[position] = newValue
                } else {
                    storage.keys.remove(at: position)
                    storage.values.remove(at: position)
                    storage.positions = nil
                    indexKeysIfLarge()
                }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// The value of `key`, looked for first at `hint`, which is then set
    /// to where the key was found.
    @inline(__always)
    public func value(forKey key: String, near hint: inout Int) -> JSON? {
        let storage = self.storage
        if hint < storage.keys.count, storage.keys[hint] == key { return storage.values[hint] }
        guard let position = index(forKey: key) else { return nil }
        hint = position
        return storage.values[position]
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
    }

    /// Adds a member whose key is not present yet.
    private mutating func append(_ key: String, _ value: JSON) {
        makeUnique()
        storage.keys.append(key)
        storage.values.append(value)
        if storage.positions != nil {
            storage.positions![key] = storage.keys.count - 1
        } else {
            indexKeysIfLarge()
        }
    }

    private mutating func indexKeysIfLarge() {
        guard storage.positions == nil, storage.keys.count > Self.searchLimit else { return }
        var index: [String: Int] = [:]
        index.reserveCapacity(storage.keys.count)
        for (position, key) in storage.keys.enumerated() { index[key] = position }
        storage.positions = index
    }

    public func makeIterator() -> AnyIterator<(key: String, value: JSON)> {
        let keys = storage.keys, values = storage.values
        var position = 0
        return AnyIterator {
            guard position < keys.count else { return nil }
            defer { position += 1 }
            return (keys[position], values[position])
        }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        if a.storage === b.storage { return true }
        for (key, value) in a where b[key] != value { return false }
        return true
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
