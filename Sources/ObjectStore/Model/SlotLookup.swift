/// A property name → slot index table, built once per entity, for the
/// accessors every object calls with a name (`person["age"]`).
///
/// A general dictionary hashes the whole key with SipHash on every call;
/// this table looks at the key's length and first and last bytes (O(1)
/// for a native Swift string), probes a small power-of-two table, and confirms
/// with `==`, whose first check is one comparison of the two strings'
/// words when both are short (≤ 15 bytes), as property names mostly are.
///
/// Names alike at both ends (`a1`, `a2`, … `a999`) all land in a few
/// buckets under that hash, and probing would grow with their number; a
/// table whose probes run long is built again hashing every byte.
struct SlotLookup: Sendable {
    private var names: [String] = []
    /// Slot index + 1 per bucket; 0 for an empty bucket.
    private var buckets: [Int32] = [0]
    private var mask = 0
    /// Whether keys are hashed over every byte (see above).
    private var hashesWholeKey = false

    /// The longest run of probes a table built with the quick hash keeps.
    private static let longestProbe = 8

    init() {}

    init(_ names: [String]) {
        self.names = names
        var size = 4
        while size < names.count * 4 { size <<= 1 }
        mask = size - 1
        if !fill() {
            hashesWholeKey = true
            _ = fill()
        }
    }

    /// Places every name; false when a probe ran longer than
    /// `longestProbe` under the quick hash.
    private mutating func fill() -> Bool {
        buckets = Array(repeating: 0, count: mask + 1)
        for (i, name) in names.enumerated() {
            var b = bucket(name)
            var probes = 0
            while buckets[b] != 0 {
                b = (b &+ 1) & mask
                probes += 1
                if probes > Self.longestProbe && !hashesWholeKey { return false }
            }
            buckets[b] = Int32(i + 1)
        }
        return true
    }

    @inline(__always)
    private func bucket(_ key: String) -> Int {
        (hashesWholeKey ? Self.wholeKeyHash(key) : Self.quickHash(key)) & mask
    }

    @inline(__always)
    private static func quickHash(_ key: String) -> Int {
        // The bytes where the string keeps them (a short string's inline
        // words, a native string's buffer), read once: walking the UTF-8
        // view by index checks the representation at every step, and this
        // runs at every read of a property by name (workloads b, c, a).
        if let hash = key.utf8.withContiguousStorageIfAvailable({ bytes in
            guard let first = bytes.first, let last = bytes.last else { return 0 }
            return quickHash(count: bytes.count, first: first, last: last)
        }) {
            return hash
        }
        let utf8 = key.utf8
        let count = utf8.count
        guard count > 0, let first = utf8.first else { return 0 }
        return quickHash(count: count, first: first, last: utf8[utf8.index(utf8.startIndex, offsetBy: count - 1)])
    }

    @inline(__always)
    private static func quickHash(count: Int, first: UInt8, last: UInt8) -> Int {
        (count &* 0x2F) ^ (Int(first) &* 0x9) ^ (Int(last) &* 0x241)
    }

    /// FNV-1a over every byte.
    private static func wholeKeyHash(_ key: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash ^ (hash >> 29))
    }

    @inline(__always)
    func index(of key: String) -> Int? {
        var b = bucket(key)
        while true {
            let slot = Int(buckets[b])
            if slot == 0 { return nil }
            if names[slot - 1] == key { return slot - 1 }
            b = (b &+ 1) & mask
        }
    }
}
