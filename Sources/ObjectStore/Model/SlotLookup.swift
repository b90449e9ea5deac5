/// A property name → slot index table, built once per entity, for the
/// accessors every object calls with a name (`person["age"]`).
///
/// A general dictionary hashes the whole key with SipHash on every call;
/// this table looks at the key's length and first and last bytes (O(1)
/// for a native Swift string), probes a small power-of-two table, and confirms
/// with `==`, whose first check is one comparison of the two strings'
/// words when both are short (≤ 15 bytes), as property names mostly are.
struct SlotLookup: Sendable {
    private var names: [String] = []
    /// Slot index + 1 per bucket; 0 for an empty bucket.
    private var buckets: [Int32] = [0]
    private var mask = 0

    init() {}

    init(_ names: [String]) {
        self.names = names
        var size = 4
        while size < names.count * 4 { size <<= 1 }
        mask = size - 1
        buckets = Array(repeating: 0, count: size)
        for (i, name) in names.enumerated() {
            var b = Self.bucket(name) & mask
            while buckets[b] != 0 { b = (b &+ 1) & mask }
            buckets[b] = Int32(i + 1)
        }
    }

    @inline(__always)
    private static func bucket(_ key: String) -> Int {
        let utf8 = key.utf8
        let count = utf8.count
        guard count > 0 else { return 0 }
        let last = utf8[utf8.index(utf8.startIndex, offsetBy: count - 1)]
        return (count &* 0x2F) ^ (Int(utf8.first!) &* 0x9) ^ (Int(last) &* 0x241)
    }

    @inline(__always)
    func index(of key: String) -> Int? {
        var b = Self.bucket(key) & mask
        while true {
            let slot = Int(buckets[b])
            if slot == 0 { return nil }
            if names[slot - 1] == key { return slot - 1 }
            b = (b &+ 1) & mask
        }
    }
}
