import Foundation

/// A reader of binary property lists (`bplist00`) that checks every offset,
/// count and reference before it follows it.
///
/// ```swift
/// let plist = try BinaryPropertyList.parse(data)   // [String: Any], [Any], ...
/// ```
///
/// Why not Foundation: swift-corelibs-foundation's
/// `PropertyListSerialization` crashes (SIGSEGV while bridging) on a
/// binary plist holding a set with a dictionary, an array or a UID in it:
/// 50 bytes do it, and one flipped bit in a model cache (an array marker
/// 0xA_ becoming a set marker 0xC_) makes such a plist. Keyed archives come
/// from files mrq is asked to open, so they are read here; XML plists, which
/// have no sets, still go to Foundation.
///
/// `value(_:)` returns a typed `PlistValue`, which the keyed archive reads;
/// `parse(_:)` returns values as Foundation's reader returns them:
/// `String`, `NSNumber` for integers and reals, `Bool`, `Data`, `Date`,
/// `[Any]`, `[String: Any]`, and `PlistUID` for UIDs. Sets, which keyed
/// archives and the plists mrq reads never hold, and dictionaries with
/// keys that are not strings are errors.
enum BinaryPropertyList {
    static let magic = Array("bplist00".utf8)
    /// How deep arrays and dictionaries may nest (Foundation's own limit is
    /// about 512).
    static let maximumDepth = 512

    /// The plist's top object as Foundation's reader returns it.
    static func parse(_ data: Data) throws -> Any {
        var parser = try Parser<FoundationPlist>(bytes: [UInt8](data))
        return try parser.object(parser.top, depth: 0)
    }

    /// The plist's top object, typed.
    static func value(_ data: Data) throws -> PlistValue {
        var parser = try Parser<TypedPlist>(bytes: [UInt8](data))
        return try parser.object(parser.top, depth: 0)
    }

    /// A keyed archive's top dictionary, typed, but for its `$objects`:
    /// those are read one at a time, when asked for (`ObjectReader`), so
    /// objects nobody asks for (the fetch request templates of a model
    /// not yet used) cost nothing. Nil when the top object is not a
    /// dictionary with an array under `$objects`.
    static func keyedArchive(_ bytes: [UInt8]) throws -> (top: PlistDictionary, objects: ObjectReader)? {
        var parser = try Parser<TypedPlist>(bytes: bytes)
        guard let (top, references) = try parser.topLeavingObjects() else { return nil }
        return (top, ObjectReader(parser: parser, references: references))
    }

    /// The `$objects` of a keyed archive, each read when first asked for
    /// and kept: a reader like the whole plist's, with its checks and
    /// bounds, stopped short of the objects. Used from one thread at a
    /// time, as the archive reading it is.
    final class ObjectReader {
        // Read once for every object and field a model's decoding asks
        // for, by the one thread reading the archive: its accesses skip
        // the runtime's exclusivity bookkeeping (mrq-bench w. corpus's
        // largest model).
        @exclusivity(unchecked) private var parser: Parser<TypedPlist>
        private let references: [Int]

        fileprivate init(parser: Parser<TypedPlist>, references: [Int]) {
            self.parser = parser
            self.references = references
        }

        /// How many objects `$objects` holds.
        var count: Int { references.count }

        /// Object `index` of `$objects` (which must be below `count`).
        func value(at index: Int) throws -> PlistValue {
            try parser.object(references[index], depth: 1)
        }

        /// Object `index` of `$objects` (below `count`) when it is a
        /// dictionary, as an index of its entries (`DictionarySpan`): its
        /// keys read and checked to be strings, its values left to be read
        /// when asked for. Nil for any other object. Made once per object.
        func dictionary(at index: Int) throws -> DictionarySpan? {
            try parser.dictionarySpan(references[index])
        }

        /// The value of `key` (whose tag is `PlistDictionary.tag(key)`)
        /// in `span`, its last when the dictionary repeats it; nil when
        /// absent.
        func value(of key: String, tag: UInt64, in span: DictionarySpan) throws -> PlistValue? {
            try parser.value(of: key, tag: tag, in: span)
        }

        /// Every entry of `span`, in the list's order, repeats and all.
        func entries(of span: DictionarySpan) throws -> PlistDictionary {
            try parser.entries(of: span)
        }
    }

    /// Where a reader keeps the index of one dictionary's entries (each
    /// key's tag, where the key's string and the value are; the values
    /// not read): numbers in one array for the whole archive, where a
    /// `PlistDictionary` holds a string and a value (each retained, and
    /// released) per entry.
    struct DictionarySpan {
        /// The dictionary's object number.
        let object: Int
        /// Its entries' range in the reader's `DictionaryEntry` array.
        let start: Int32
        let count: Int32
    }

    fileprivate struct DictionaryEntry {
        /// `PlistDictionary.tag` of the key.
        let tag: UInt64
        /// Where the key's string is among the values read.
        let keySlot: Int32
        /// The value's object number.
        let value: Int32
    }

    fileprivate struct Parser<Build: PlistBuilder> {
        let bytes: [UInt8]
        let offsetSize: Int
        let referenceSize: Int
        let count: Int
        let top: Int
        let tableStart: Int
        /// Objects already read, by index: a plist may point at one object
        /// from many places, and reading it again each time could take
        /// exponential time. `slots[i]` is where object `i` is in `values`
        /// (-1: not read yet; -2: being read, so met again it contains
        /// itself): four bytes an object, and no more objects than bytes.
        var slots: [Int32]
        var values: [Build.Value] = []
        /// Beside `values`: the tag (`PlistDictionary.tag`) of each value
        /// read as a dictionary key; 0 until then.
        var keyTags: [UInt64] = []
        /// The dictionaries indexed by `dictionarySpan`, by object: -1 not
        /// yet, -2 not a dictionary, else the place in `spans`. Empty
        /// until the first is asked for.
        var spanOf: [Int32] = []
        var spans: [DictionarySpan] = []
        /// Every indexed dictionary's entries, one after the other.
        var entries: [DictionaryEntry] = []

        init(bytes: [UInt8]) throws {
            guard bytes.count >= magic.count + 32, bytes.starts(with: magic) else {
                throw KeyedArchiveError("not a binary property list: too short or no 'bplist00' header")
            }
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
                throw KeyedArchiveError("binary property list: offset size \(offsetSize) or reference size \(referenceSize) is not 1 to 8")
            }
            func number(_ at: Int) -> UInt64 { bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            let (countValue, topValue, tableValue) = (number(trailer + 8), number(trailer + 16), number(trailer + 24))
            guard countValue >= 1, countValue <= UInt64(bytes.count), topValue < countValue,
                tableValue >= UInt64(magic.count), tableValue < UInt64(trailer),
                countValue * UInt64(offsetSize) <= UInt64(trailer) - tableValue
            else {
                throw KeyedArchiveError("binary property list: its trailer (\(countValue) objects, top \(topValue), table at \(tableValue)) does not fit its \(bytes.count) bytes")
            }
            guard countValue <= UInt64(Int32.max) else {
                throw KeyedArchiveError("binary property list: \(countValue) objects are more than mrq reads")
            }
            count = Int(countValue)
            top = Int(topValue)
            tableStart = Int(tableValue)
            slots = Array(repeating: -1, count: count)
        }

        private func unsigned(_ at: Int, _ size: Int) -> UInt64 {
            // References and offsets are one or two bytes in all but the
            // largest lists: read without the loop.
            switch size {
            case 1: return UInt64(bytes[at])
            case 2: return UInt64(bytes[at]) << 8 | UInt64(bytes[at + 1])
            default:
                var value: UInt64 = 0
                for i in at..<at + size { value = value << 8 | UInt64(bytes[i]) }
                return value
            }
        }

        /// The start of object `index`, checked to lie among the objects.
        private func offset(of index: Int) throws -> Int {
            let value = unsigned(tableStart + index * offsetSize, offsetSize)
            guard value >= UInt64(magic.count), value < UInt64(tableStart) else {
                throw KeyedArchiveError("binary property list: object \(index) starts at \(value), outside the object area")
            }
            return Int(value)
        }

        /// Throws unless `length` bytes from `start` lie among the objects.
        private func check(_ start: Int, _ length: Int, _ index: Int) throws {
            guard length >= 0, start <= tableStart, length <= tableStart - start else {
                throw KeyedArchiveError("binary property list: object \(index) runs past the object area")
            }
        }

        /// A length stored in a marker's low nibble, or after it as an
        /// integer object when the nibble is 0xF; returns it and where the
        /// content starts.
        private func length(_ marker: UInt8, at start: Int, _ index: Int) throws -> (Int, Int) {
            let nibble = Int(marker & 0x0f)
            guard nibble == 0x0f else { return (nibble, start + 1) }
            try check(start + 1, 1, index)
            let intMarker = bytes[start + 1]
            guard intMarker & 0xf0 == 0x10, intMarker & 0x0f <= 3 else {
                throw KeyedArchiveError("binary property list: object \(index) has a bad length")
            }
            let size = 1 << Int(intMarker & 0x0f)
            try check(start + 2, size, index)
            let value = unsigned(start + 2, size)
            guard value <= UInt64(tableStart) else {
                throw KeyedArchiveError("binary property list: object \(index) claims \(value) elements")
            }
            return (Int(value), start + 2 + size)
        }

        /// Throws unless `n` references from `start` lie among the objects.
        private func checkReferences(_ n: Int, at start: Int, _ index: Int) throws {
            let (total, overflow) = n.multipliedReportingOverflow(by: referenceSize)
            guard !overflow else { throw KeyedArchiveError("binary property list: object \(index) is too long") }
            try check(start, total, index)
        }

        /// Reference `i` of the list at `start` (checked by
        /// `checkReferences`), itself checked to name an object.
        private func reference(_ i: Int, at start: Int, _ index: Int) throws -> Int {
            let reference = unsigned(start + i * referenceSize, referenceSize)
            guard reference < UInt64(count) else {
                throw KeyedArchiveError("binary property list: object \(index) refers to object \(reference) of \(count)")
            }
            return Int(reference)
        }

        /// The top object when it is a dictionary holding an array under
        /// `$objects`: its other entries read, and the array's references.
        /// The top and the array stay marked as being read, so an object
        /// read later that contains either is refused as it would be in a
        /// whole read. Nil for any other top object.
        mutating func topLeavingObjects() throws -> (PlistDictionary, [Int])? where Build == TypedPlist {
            let start = try offset(of: top)
            guard bytes[start] >> 4 == 0xD else { return nil }
            slots[top] = -2
            let (n, content) = try length(bytes[start], at: start, top)
            try checkReferences(2 * n, at: content, top)
            var entries = PlistDictionary(capacity: n)
            var objects: [Int]?
            for i in 0..<n {
                guard case .string(let key) = try object(reference(i, at: content, top), depth: 1) else {
                    throw KeyedArchiveError("binary property list: dictionary \(top) has a key that is not a string")
                }
                let valueIndex = try reference(n + i, at: content, top)
                if key == "$objects" {
                    let arrayStart = try offset(of: valueIndex)
                    guard bytes[arrayStart] >> 4 == 0xA, slots[valueIndex] == -1 else { return nil }
                    slots[valueIndex] = -2
                    let (count, items) = try length(bytes[arrayStart], at: arrayStart, valueIndex)
                    try checkReferences(count, at: items, valueIndex)
                    objects = try (0..<count).map { try reference($0, at: items, valueIndex) }
                } else {
                    entries.append(key, try object(valueIndex, depth: 1))
                }
            }
            guard let objects else { return nil }
            return (entries, objects)
        }

        /// Object `index` as a `DictionarySpan` when it is a dictionary
        /// (nil otherwise): its keys are read, checked to be strings and
        /// tagged; its values are not read. Made once per object.
        mutating func dictionarySpan(_ index: Int) throws -> DictionarySpan? where Build == TypedPlist {
            if spanOf.isEmpty { spanOf = Array(repeating: -1, count: count) }
            switch spanOf[index] {
            case -1: break
            case -2: return nil
            case let known: return spans[Int(known)]
            }
            guard slots[index] != -2 else {
                throw KeyedArchiveError("binary property list: object \(index) contains itself")
            }
            let start = try offset(of: index)
            guard bytes[start] >> 4 == 0xD else {
                spanOf[index] = -2
                return nil
            }
            let (n, content) = try length(bytes[start], at: start, index)
            try checkReferences(2 * n, at: content, index)
            let first = entries.count
            do {
                for i in 0..<n {
                    let keyIndex = try reference(i, at: content, index)
                    let tag = try keyTag(keyIndex, of: index, depth: 2)
                    let value = try reference(n + i, at: content, index)
                    // Both below `count`, itself below Int32.max.
                    entries.append(DictionaryEntry(tag: tag, keySlot: slots[keyIndex], value: Int32(value)))
                }
                guard entries.count <= Int(Int32.max) else {
                    throw KeyedArchiveError("binary property list: more dictionary entries than mrq reads")
                }
            } catch {
                entries.removeSubrange(first...)
                throw error
            }
            let span = DictionarySpan(object: index, start: Int32(first), count: Int32(n))
            spanOf[index] = Int32(spans.count)
            spans.append(span)
            return span
        }

        /// The tag (`PlistDictionary.tag`) of object `keyIndex`, a key of
        /// dictionary `dictionary`: read and worked out once per key
        /// object (an archive writes each key once and points at it from
        /// every object that has the field).
        private mutating func keyTag(_ keyIndex: Int, of dictionary: Int, depth: Int) throws -> UInt64 {
            var slot = slots[keyIndex]
            if slot < 0 {
                _ = try object(keyIndex, depth: depth)
                slot = slots[keyIndex]
            }
            // 0: not yet, or a key whose tag is 0 (worked out again).
            if keyTags[Int(slot)] == 0 {
                guard let key = Build.key(values[Int(slot)]) else {
                    throw KeyedArchiveError("binary property list: dictionary \(dictionary) has a key that is not a string")
                }
                keyTags[Int(slot)] = PlistDictionary.tag(key)
            }
            return keyTags[Int(slot)]
        }

        /// The value of `key` in `span`, its last when repeated.
        mutating func value(of key: String, tag: UInt64, in span: DictionarySpan) throws -> PlistValue? where Build == TypedPlist {
            var i = Int(span.start) + Int(span.count)
            while i > Int(span.start) {
                i -= 1
                let entry = entries[i]
                guard entry.tag == tag, case .string(let name) = values[Int(entry.keySlot)], name == key else { continue }
                return try object(Int(entry.value), depth: 2)
            }
            return nil
        }

        /// Every entry of `span`, its values read.
        mutating func entries(of span: DictionarySpan) throws -> PlistDictionary where Build == TypedPlist {
            var result = PlistDictionary(capacity: Int(span.count))
            for i in Int(span.start)..<Int(span.start) + Int(span.count) {
                let entry = entries[i]
                // Checked to be a string when the span was made.
                guard case .string(let key) = values[Int(entry.keySlot)] else { continue }
                result.append(key, tag: entry.tag, try object(Int(entry.value), depth: 2))
            }
            return result
        }

        mutating func object(_ index: Int, depth: Int) throws -> Build.Value {
            let slot = slots[index]
            if slot >= 0 { return values[Int(slot)] }
            guard depth <= BinaryPropertyList.maximumDepth else {
                throw KeyedArchiveError("binary property list: containers nest more than \(BinaryPropertyList.maximumDepth) deep")
            }
            guard slot == -1 else {
                throw KeyedArchiveError("binary property list: object \(index) contains itself")
            }
            slots[index] = -2
            let start = try offset(of: index)
            let marker = bytes[start]
            let value: Build.Value
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: value = Build.bool(false)
                case 0x09: value = Build.bool(true)
                default: throw KeyedArchiveError("binary property list: object \(index) has marker \(marker), which mrq does not read")
                }
            case 0x1:
                let size = 1 << Int(marker & 0x0f)
                try check(start + 1, size, index)
                switch size {
                case 1, 2, 4: value = Build.int(Int64(unsigned(start + 1, size)))
                case 8: value = Build.int(Int64(bitPattern: unsigned(start + 1, 8)))
                case 16:
                    // 128-bit: only values that fit 64 bits unsigned.
                    guard unsigned(start + 1, 8) == 0 else {
                        throw KeyedArchiveError("binary property list: object \(index) is an integer past 64 bits")
                    }
                    value = Build.unsigned(unsigned(start + 9, 8))
                default:
                    throw KeyedArchiveError("binary property list: object \(index) is an integer of \(size) bytes")
                }
            case 0x2:
                let size = 1 << Int(marker & 0x0f)
                try check(start + 1, size, index)
                switch size {
                case 4: value = Build.real(Double(Float(bitPattern: UInt32(unsigned(start + 1, 4)))))
                case 8: value = Build.real(Double(bitPattern: unsigned(start + 1, 8)))
                default: throw KeyedArchiveError("binary property list: object \(index) is a real of \(size) bytes")
                }
            case 0x3:
                guard marker == 0x33 else { throw KeyedArchiveError("binary property list: object \(index) has marker \(marker)") }
                try check(start + 1, 8, index)
                value = Build.date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: unsigned(start + 1, 8))))
            case 0x4:
                let (n, content) = try length(marker, at: start, index)
                try check(content, n, index)
                value = Build.data(Data(bytes[content..<content + n]))
            case 0x5:
                let (n, content) = try length(marker, at: start, index)
                try check(content, n, index)
                let text = bytes[content..<content + n]
                guard text.allSatisfy({ $0 < 0x80 }) else {
                    throw KeyedArchiveError("binary property list: object \(index) is an ASCII string that is not ASCII")
                }
                value = Build.string(String(decoding: text, as: UTF8.self))
            case 0x6:
                let (n, content) = try length(marker, at: start, index)
                let (size, overflow) = n.multipliedReportingOverflow(by: 2)
                guard !overflow else { throw KeyedArchiveError("binary property list: object \(index) is too long") }
                try check(content, size, index)
                let units = (0..<n).map { UInt16(bytes[content + 2 * $0]) << 8 | UInt16(bytes[content + 2 * $0 + 1]) }
                value = Build.string(String(decoding: units, as: UTF16.self))
            case 0x8:
                let size = Int(marker & 0x0f) + 1
                guard size <= 8 else { throw KeyedArchiveError("binary property list: object \(index) is a UID of \(size) bytes") }
                try check(start + 1, size, index)
                let uid = unsigned(start + 1, size)
                guard uid <= UInt64(UInt32.max) else { throw KeyedArchiveError("binary property list: object \(index) is a UID past 32 bits") }
                value = Build.uid(Int(uid))
            case 0xA:
                let (n, content) = try length(marker, at: start, index)
                try checkReferences(n, at: content, index)
                var array: [Build.Value] = []
                array.reserveCapacity(n)
                for i in 0..<n {
                    array.append(try object(reference(i, at: content, index), depth: depth + 1))
                }
                value = Build.array(array)
            case 0xD:
                let (n, content) = try length(marker, at: start, index)
                try checkReferences(2 * n, at: content, index)
                var entries = Build.entries(capacity: n)
                for i in 0..<n {
                    let keyIndex = try reference(i, at: content, index)
                    let tag = try keyTag(keyIndex, of: index, depth: depth + 1)
                    guard let key = Build.key(values[Int(slots[keyIndex])]) else {
                        throw KeyedArchiveError("binary property list: dictionary \(index) has a key that is not a string")
                    }
                    Build.add(key, tag: tag, try object(reference(n + i, at: content, index), depth: depth + 1), to: &entries)
                }
                value = Build.dictionary(entries)
            case 0xC:
                throw KeyedArchiveError("binary property list: object \(index) is a set, which keyed archives do not hold")
            default:
                throw KeyedArchiveError("binary property list: object \(index) has marker \(marker), which mrq does not read")
            }
            slots[index] = Int32(values.count)
            values.append(value)
            keyTags.append(0)
            return value
        }
    }
}

/// A UID of a binary property list, as `BinaryPropertyList` returns it.
struct PlistUID: Equatable {
    let value: Int
}

/// Writes binary property lists (`bplist00`), always the same bytes for
/// the same value: dictionaries in key order, each string, number and UID
/// written once.
///
/// ```swift
/// let data = BinaryPropertyListWriter.write(.dictionary([("a", .int(1))]))
/// ```
///
/// Foundation's writer could do this too, but not with UIDs (it has no way
/// to make one: a keyed archive would have to go through XML, whose reader
/// turns `{CF$UID = n}` into UIDs) and not in a stable order.
enum BinaryPropertyListWriter {
    indirect enum Value: Hashable {
        case string(String)
        case int(Int64)
        case real(Double)
        case bool(Bool)
        case data(Data)
        case uid(Int)
        case array([Value])
        /// Written in key order.
        case dictionary([String: Value])
    }

    static func write(_ root: Value) -> Data {
        var writer = Writer()
        let top = writer.add(root)
        return writer.finish(top: top)
    }

    private struct Writer {
        /// Each object's encoding, with references as object numbers to be
        /// sized once the count is known.
        var objects: [(head: [UInt8], references: [Int])] = []
        var uniqued: [Value: Int] = [:]

        mutating func add(_ value: Value) -> Int {
            switch value {
            case .array, .dictionary: break
            default: if let known = uniqued[value] { return known }
            }
            let index = objects.count
            objects.append(([], []))
            switch value {
            case .string(let s):
                if s.utf8.allSatisfy({ $0 < 0x80 }) {
                    objects[index].head = Self.marker(0x50, count: s.utf8.count) + Array(s.utf8)
                } else {
                    let units = Array(s.utf16)
                    objects[index].head = Self.marker(0x60, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
                }
            case .int(let n): objects[index].head = Self.integer(n)
            case .real(let d): objects[index].head = [0x23] + Self.bigEndian(d.bitPattern, 8)
            case .bool(let b): objects[index].head = [b ? 0x09 : 0x08]
            case .data(let d): objects[index].head = Self.marker(0x40, count: d.count) + Array(d)
            case .uid(let n):
                let size = n < 0x100 ? 1 : n < 0x1_0000 ? 2 : 4
                objects[index].head = [0x80 | UInt8(size - 1)] + Self.bigEndian(UInt64(n), size)
            case .array(let items):
                objects[index].head = Self.marker(0xA0, count: items.count)
                objects[index].references = items.map { add($0) }
            case .dictionary(let entries):
                let sorted = entries.sorted { $0.key < $1.key }
                objects[index].head = Self.marker(0xD0, count: sorted.count)
                let keys = sorted.map { add(.string($0.key)) }
                objects[index].references = keys + sorted.map { add($0.value) }
            }
            switch value {
            case .array, .dictionary: break
            default: uniqued[value] = index
            }
            return index
        }

        func finish(top: Int) -> Data {
            let referenceSize = Self.size(for: UInt64(objects.count))
            var out = Array("bplist00".utf8)
            var offsets: [Int] = []
            for object in objects {
                offsets.append(out.count)
                out += object.head
                for reference in object.references { out += Self.bigEndian(UInt64(reference), referenceSize) }
            }
            let table = out.count
            let offsetSize = Self.size(for: UInt64(table))
            for offset in offsets { out += Self.bigEndian(UInt64(offset), offsetSize) }
            out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
            out += Self.bigEndian(UInt64(objects.count), 8) + Self.bigEndian(UInt64(top), 8) + Self.bigEndian(UInt64(table), 8)
            return Data(out)
        }

        static func size(for value: UInt64) -> Int {
            value < 0x100 ? 1 : value < 0x1_0000 ? 2 : value < 0x1_0000_0000 ? 4 : 8
        }

        static func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
        }

        /// A type nibble with a count: in the marker up to 14, else 0xF and
        /// an integer object after it.
        static func marker(_ type: UInt8, count: Int) -> [UInt8] {
            count < 15 ? [type | UInt8(count)] : [type | 0x0f] + integer(Int64(count))
        }

        /// Integers as Foundation writes them: 1, 2 or 4 bytes unsigned
        /// when they fit, else 8 bytes signed.
        static func integer(_ n: Int64) -> [UInt8] {
            switch n {
            case 0..<0x100: [0x10] + bigEndian(UInt64(n), 1)
            case 0x100..<0x1_0000: [0x11] + bigEndian(UInt64(n), 2)
            case 0x1_0000..<0x1_0000_0000: [0x12] + bigEndian(UInt64(n), 4)
            default: [0x13] + bigEndian(UInt64(bitPattern: n), 8)
            }
        }
    }
}
