/// An object identity → element table, built once from a dictionary and
/// then only read: the schema mapping's lookups by entity and attribute
/// object, asked at every fetch plan and key path.
///
/// A `Dictionary` keyed by `ObjectIdentifier` hashes the address with
/// SipHash (about 150 instructions a lookup, mrq-bench e. parse); this
/// table multiplies the address by a constant, takes the top bits as the
/// bucket (addresses are aligned: their low bits say nothing), and probes
/// a power-of-two table of entry numbers kept at most half full.
struct IdentityTable<Element> {
    /// The keys and their elements, in the order they were placed.
    private let keys: [ObjectIdentifier]
    private let elements: [Element]
    /// Entry number + 1 per bucket; 0 for an empty bucket.
    private let buckets: [Int]
    /// 64 minus the table's size in bits: the product's top bits.
    private let shift: UInt64

    /// A table of `dictionary`'s entries.
    init(_ dictionary: [ObjectIdentifier: Element]) {
        self.init(dictionary) { $0 }
    }

    /// A table of `dictionary`'s keys, each with its value transformed.
    init<Source>(_ dictionary: [ObjectIdentifier: Source], _ transform: (Source) -> Element) {
        var bits: UInt64 = 2
        while (1 << bits) < dictionary.count * 2 { bits += 1 }
        let shift = 64 - bits
        var keys: [ObjectIdentifier] = []
        var elements: [Element] = []
        keys.reserveCapacity(dictionary.count)
        elements.reserveCapacity(dictionary.count)
        var buckets = [Int](repeating: 0, count: 1 << Int(bits))
        let mask = buckets.count - 1
        for (key, value) in dictionary {
            var i = Self.bucket(key, shift: shift)
            while buckets[i] != 0 { i = (i &+ 1) & mask }
            keys.append(key)
            elements.append(transform(value))
            buckets[i] = keys.count
        }
        self.keys = keys
        self.elements = elements
        self.buckets = buckets
        self.shift = shift
    }

    @inline(__always)
    private static func bucket(_ key: ObjectIdentifier, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// The element kept for `key`, or nil.
    @inline(__always)
    subscript(key: ObjectIdentifier) -> Element? {
        let mask = buckets.count &- 1
        var i = Self.bucket(key, shift: shift)
        while true {
            let entry = buckets[i]
            if entry == 0 { return nil }
            if keys[entry &- 1] == key { return elements[entry &- 1] }
            i = (i &+ 1) & mask
        }
    }
}
