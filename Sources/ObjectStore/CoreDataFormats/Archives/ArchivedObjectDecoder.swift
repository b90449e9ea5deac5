import Foundation

extension ArchivedObject {
    /// The value `data` holds when it is an `NSKeyedArchiver` archive or a
    /// property list, binary (`bplist00`) or XML; nil when it is neither
    /// (an image, text, a compressed blob).
    ///
    /// ```swift
    /// ArchivedObject(decoding: archivedTags)   // ["work", "urgent"]
    /// ArchivedObject(decoding: pngBytes)       // nil
    /// ```
    ///
    /// Bytes that start as a property list but cannot be read, and an
    /// archive whose objects point at each other so that reading it would
    /// visit far more objects than it stores, decode to an ``error(_:)``:
    /// the work is bounded as for a model (see ``ArchiveWork``), so a
    /// hostile blob costs time in proportion to its size.
    public init?(decoding data: Data) {
        guard Self.isPropertyList(data) else { return nil }
        do {
            try Self.checkXMLNesting(data)
            let plist = try KeyedArchive.plistValue(data)
            let work = ArchiveWork(objects: data.count, archiveBytes: data.count)
            if case .dictionary(let dictionary) = plist, dictionary["$archiver"] != nil {
                self = try ArchiveReader.decode(dictionary, bytes: data.count)
            } else {
                var reader = PlistReader(work: work)
                self = try reader.decode(plist, depth: 0)
            }
        } catch let error as KeyedArchiveError {
            self = .error(error.description)
        } catch {
            self = .error("not a property list")
        }
    }

    /// Whether `data` starts as a binary property list does, or as an
    /// XML one (`<?xml`, then a plist doctype or `<plist` near the start).
    static func isPropertyList(_ data: Data) -> Bool {
        if data.starts(with: Array("bplist".utf8)) { return true }
        let head = data.prefix(512).drop { [0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf].contains($0) }
        guard head.first == UInt8(ascii: "<") else { return false }
        let text = String(decoding: head, as: UTF8.self)
        return text.hasPrefix("<plist") || (text.hasPrefix("<?xml") && (text.contains("<plist") || text.contains("DTD PLIST")))
    }

    /// Throws when an XML property list nests arrays and dictionaries
    /// deeper than ``maximumDepth``: Foundation's reader, which reads
    /// XML, recurses once a level and has no limit of its own.
    static func checkXMLNesting(_ data: Data) throws {
        guard !data.starts(with: Array("bplist".utf8)) else { return }
        var depth = 0
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            func starts(_ text: StaticString, at index: Int) -> Bool {
                let count = text.utf8CodeUnitCount
                guard index + count <= bytes.count else { return false }
                return (0..<count).allSatisfy { bytes[index + $0] == text.utf8Start[$0] }
            }
            var index = 0
            while index < bytes.count {
                defer { index += 1 }
                guard bytes[index] == UInt8(ascii: "<") else { continue }
                if starts("<array>", at: index) || starts("<dict>", at: index) {
                    depth += 1
                    guard depth <= maximumDepth else {
                        throw KeyedArchiveError("the XML property list nests more than \(maximumDepth) deep")
                    }
                } else if starts("</array>", at: index) || starts("</dict>", at: index) {
                    depth -= 1
                }
            }
        }
    }

    /// How deep collections and objects may nest in a decoded value.
    public static let maximumDepth = 128
}

/// Turns a plain property list, as `KeyedArchive.plistValue` returns
/// it, into an ``ArchivedObject``, counting each value against `work`: a
/// binary plist can point at one array from many places.
private struct PlistReader {
    let work: ArchiveWork

    mutating func decode(_ raw: PlistValue, depth: Int) throws -> ArchivedObject {
        try work.visit("a property list value")
        guard depth < ArchivedObject.maximumDepth else {
            return .error("collections nest more than \(ArchivedObject.maximumDepth) deep")
        }
        switch raw {
        case .array(let array):
            return .array(try array.map { try decode($0, depth: depth + 1) })
        case .dictionary(let dictionary):
            return .dictionary(try dictionary.sorted { $0.key < $1.key }.map { key, value in
                try work.hand(key.utf8.count, "a property list key")
                return ArchivedObject.Entry(key: .string(key), value: try decode(value, depth: depth + 1))
            })
        case .uid(let uid):
            return .object(className: "CF$UID", fields: [.init("value", .int(Int64(uid)))])
        default:
            let scalar = try KeyedArchive.scalar(raw, at: "a property list value")
            try work.hand(scalar, "a property list value")
            return ArchivedObject(scalar)
        }
    }
}

extension ArchivedObject {
    /// A scalar of `KeyedArchive` (collections are decoded elsewhere).
    init(_ value: ArchivedValue) {
        switch value {
        case .null: self = .null
        case .string(let s): self = .string(s)
        case .int(let n): self = .int(n)
        case .double(let d): self = .double(d)
        case .bool(let b): self = .bool(b)
        case .data(let d): self = .data(d)
        case .date(let d): self = .date(d)
        case .uuid(let u): self = .uuid(u)
        case .url(let u): self = .url(u)
        case .decimal(let d): self = .decimal(d)
        case .array(let items): self = .array(items.map(ArchivedObject.init))
        case .set(let items): self = .set(items.map(ArchivedObject.init))
        case .dictionary(let pairs): self = .dictionary(pairs.map { .init(key: ArchivedObject($0.0), value: ArchivedObject($0.1)) })
        }
    }
}

/// Decodes a keyed archive into an ``ArchivedObject``, object by object,
/// with each kind of class read by what its `encodeWithCoder:` writes.
struct ArchiveReader {
    let archive: KeyedArchive
    /// The objects being decoded, from the root down: met again, one is a
    /// reference.
    private var path: Set<Int> = []

    private init(archive: KeyedArchive) { self.archive = archive }

    /// The root (`$top`'s `root`), or a dictionary of every `$top` key
    /// when there is no `root`.
    static func decode(_ dictionary: PlistDictionary, bytes: Int) throws -> ArchivedObject {
        guard case .string("NSKeyedArchiver")? = dictionary["$archiver"] else {
            throw KeyedArchiveError("'$archiver' is not 'NSKeyedArchiver'")
        }
        guard case .array(let objects)? = dictionary["$objects"], case .dictionary(let top)? = dictionary["$top"] else {
            throw KeyedArchiveError("the archive has no '$objects' array or no '$top' dictionary")
        }
        var reader = ArchiveReader(archive: KeyedArchive(objects: objects, top: top, archiveBytes: bytes))
        if let root = top["root"] { return try reader.decodeField(root, place: "'$top' key 'root'", depth: 0) }
        return .dictionary(try top.sorted { $0.key < $1.key }.map { key, value in
            ArchivedObject.Entry(key: .string(key), value: try reader.decodeField(value, place: "'$top' key '\(key)'", depth: 0))
        })
    }

    private var exhausted: Bool {
        archive.work.visits > archive.work.visitLimit || archive.work.bytes > archive.work.byteLimit
    }

    /// A field as stored: a UID followed, a list of UIDs or values, or a
    /// value in place.
    ///
    /// `place`, which names the field in an error, is made only for one:
    /// a value has many fields, and most read.
    private mutating func decodeField(_ raw: PlistValue, place: @autoclosure () -> String, depth: Int) throws -> ArchivedObject {
        switch raw {
        case .uid(let uid): return try decode(uid, depth: depth)
        case .array(let list): return .array(try list.map { try decodeField($0, place: place(), depth: depth + 1) })
        default: break
        }
        let scalar = try KeyedArchive.scalar(raw, at: place())
        try archive.work.hand(scalar, place())
        return ArchivedObject(scalar)
    }

    /// The object with UID `uid`; what cannot be read becomes an error in
    /// its place, unless the archive's work ran out, which ends it all.
    private mutating func decode(_ uid: Int, depth: Int) throws -> ArchivedObject {
        if uid == 0 { return .null }
        guard uid < archive.objects.count else {
            return .error("UID \(uid) is past the last object (\(archive.objects.count - 1))")
        }
        guard depth < ArchivedObject.maximumDepth else {
            return .error("object \(uid): objects nest more than \(ArchivedObject.maximumDepth) deep")
        }
        let raw: PlistValue
        do {
            raw = try archive.objects.value(at: uid)
        } catch let error as KeyedArchiveError {
            return .error(error.description)
        }
        guard case .dictionary = raw else {
            // Not an object with a class: a string, number or data, or
            // (in no archive Apple writes) a list, which may hold UIDs.
            try archive.work.visit("object \(uid)")
            return try decodeField(raw, place: "object \(uid)", depth: depth + 1)
        }
        do {
            let object = try archive.object(at: uid)
            if path.contains(uid) { return .reference(index: uid, className: object.className) }
            path.insert(uid)
            defer { path.remove(uid) }
            return try decodeObject(object, depth: depth + 1)
        } catch let error as KeyedArchiveError where !exhausted {
            return .error(error.description)
        }
    }

    private mutating func decodeObject(_ object: KeyedObject, depth: Int) throws -> ArchivedObject {
        let classes = Set(object.classes)
        if object.isCollection {
            if object.isDictionary {
                return .dictionary(try object.dictionaryPairs().map {
                    .init(key: try decode($0.key, depth: depth), value: try decode($0.value, depth: depth))
                })
            }
            let items = try object.collectionElements().map { try decode($0, depth: depth) }
            if classes.contains("NSOrderedSet") { return .orderedSet(items) }
            return object.isSet ? .set(items) : .array(items)
        }
        do {
            if let known = try known(object, classes: classes, depth: depth) { return known }
        } catch let error as KeyedArchiveError where !exhausted {
            // A known class that does not read as its kind: its fields as
            // stored, and why.
            var fields = try storedFields(object, depth: depth)
            fields.append(.init("$error", .error(error.description)))
            return .object(className: object.className, fields: fields)
        }
        return .object(className: object.className, fields: try storedFields(object, depth: depth))
    }

    /// Every field but `$class`, in key order, decoded.
    private mutating func storedFields(_ object: KeyedObject, depth: Int) throws -> [ArchivedObject.Field] {
        try object.fields.entries().sorted { $0.key < $1.key }.filter { $0.key != "$class" }.map { key, value in
            .init(key, try decodeField(value, place: "object \(object.index) (\(object.className)), key '\(key)'", depth: depth))
        }
    }

    /// The classes read by meaning; nil for the others.
    private mutating func known(_ object: KeyedObject, classes: Set<String>, depth: Int) throws -> ArchivedObject? {
        if let scalar = try object.scalarValue() {
            try archive.work.hand(scalar, "object \(object.index) (\(object.className))")
            return ArchivedObject(scalar)
        }
        if classes.contains("NSAttributedString") { return try attributedString(object, depth: depth) }
        if classes.contains("NSColor") || classes.contains("UIColor") { return try color(object, depth: depth) }
        if classes.contains("NSIndexSet") { return try indexSet(object) }
        if try object.className == "NSValue" || classes.contains("NSValue") && object.has("NS.special") { return try nsValue(object) }
        if classes.contains("CLLocation") { return try location(object, depth: depth) }
        for name in ["NSTimeZone", "NSLocale", "NSCalendar", "NSDateComponents"] where classes.contains(name) {
            return try foundationObject(object, name: name, depth: depth)
        }
        return nil
    }

    // MARK: Classes read by meaning

    private func range(_ location: Int, _ length: Int) -> ArchivedObject {
        .object(className: "NSRange", fields: [.init("location", .int(Int64(location))), .init("length", .int(Int64(length)))])
    }

    /// NSValue: `NS.special` 1 a point (`NS.pointval`, `{x, y}`), 2 a size
    /// (`NS.sizeval`), 3 a rect (`NS.rectval`, `{{x, y}, {w, h}}`), 4 a
    /// range (`NS.rangeval.location`, `NS.rangeval.length`).
    private func nsValue(_ object: KeyedObject) throws -> ArchivedObject? {
        func numbers(_ key: FieldKey, _ count: Int) throws -> [ArchivedObject.Field]? {
            guard let text = try object.string(key) else { return nil }
            let parts = text.split { "{}, ".contains($0) }.compactMap { Double($0) }
            guard parts.count == count else { throw object.error(key, "'\(text)' is not \(count) numbers in braces") }
            let names = count == 4 ? ["x", "y", "width", "height"] : key.name == "NS.sizeval" ? ["width", "height"] : ["x", "y"]
            return zip(names, parts).map { .init($0, .double($1)) }
        }
        switch try object.int("NS.special") {
        case 1?: return try numbers("NS.pointval", 2).map { .object(className: "NSPoint", fields: $0) }
        case 2?: return try numbers("NS.sizeval", 2).map { .object(className: "NSSize", fields: $0) }
        case 3?: return try numbers("NS.rectval", 4).map { .object(className: "NSRect", fields: $0) }
        case 4?:
            guard let location = try object.int("NS.rangeval.location"), let length = try object.int("NS.rangeval.length") else {
                throw object.error("NS.rangeval.location", "a range without location or length")
            }
            return range(location, length)
        default: return nil
        }
    }

    /// NSColor: `NSColorSpace` 1 or 2 with `NSRGB` ("r g b a" as ASCII
    /// bytes), 3 or 4 with `NSWhite` ("w a"), 5 with `NSCMYK`, 6 a catalog
    /// colour (`NSCatalogName`, `NSColorName`). UIColor: `UIRed`,
    /// `UIGreen`, `UIBlue`, `UIAlpha` or `UIWhite`, `UIAlpha`, else the
    /// same `NSRGB` and `NSWhite` as NSColor.
    private mutating func color(_ object: KeyedObject, depth: Int) throws -> ArchivedObject? {
        func components(_ names: [String], _ key: FieldKey) throws -> [ArchivedObject.Field]? {
            guard let bytes = try dataField(object, key) else { return nil }
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            let values = text.split(separator: " ").compactMap { Double($0) }
            // Alpha may be left out: opaque.
            guard values.count == names.count || values.count == names.count - 1 else {
                throw object.error(key, "'\(text)' is not \(names.count) numbers")
            }
            return zip(names, values + [1]).map { .init($0, .double($1)) }
        }
        let rgb = ["red", "green", "blue", "alpha"], white = ["white", "alpha"]
        let cmyk = ["cyan", "magenta", "yellow", "black", "alpha"]
        if let red = try object.double("UIRed"), let green = try object.double("UIGreen"), let blue = try object.double("UIBlue") {
            let alpha = try object.double("UIAlpha") ?? 1
            return .object(className: object.className, fields: zip(rgb, [red, green, blue, alpha]).map { .init($0, .double($1)) })
        }
        if let level = try object.double("UIWhite") {
            return .object(className: object.className, fields: zip(white, [level, try object.double("UIAlpha") ?? 1]).map { .init($0, .double($1)) })
        }
        if let name = try object.string("NSColorName") {
            var fields: [ArchivedObject.Field] = []
            if let catalog = try object.string("NSCatalogName") { fields.append(.init("catalog", .string(catalog))) }
            fields.append(.init("name", .string(name)))
            return .object(className: object.className, fields: fields)
        }
        if let fields = try components(rgb, "NSRGB") ?? components(white, "NSWhite") ?? components(cmyk, "NSCMYK") {
            return .object(className: object.className, fields: fields)
        }
        return nil
    }

    /// Data stored in place (`encodeBytes:length:forKey:`) or as an
    /// NSData pointed at.
    private func dataField(_ object: KeyedObject, _ key: FieldKey) throws -> Data? {
        if case .data? = try object.fields[key] { return try object.inlineData(key) }
        guard let value = try object.value(key) else { return nil }
        guard case .data(let data) = value else { throw object.error(key, "expected data, found \(value.kind)") }
        return data
    }

    /// Unsigned LEB128 numbers, as NSAttributeInfo and NSRangeData pack
    /// them.
    private func varints(_ data: Data, in object: KeyedObject, key: String) throws -> [Int] {
        var numbers: [Int] = [], current = 0, shift = 0
        for byte in data {
            guard shift < 63 else { throw object.error(key, "a number longer than 63 bits") }
            current |= Int(byte & 0x7f) << shift
            if byte & 0x80 == 0 {
                numbers.append(current)
                (current, shift) = (0, 0)
            } else {
                shift += 7
            }
        }
        guard shift == 0 else { throw object.error(key, "the last number is cut off") }
        return numbers
    }

    /// NSIndexSet: `NSRangeCount` ranges; one as `NSLocation` and
    /// `NSLength`, more packed in `NSRangeData` as location, length pairs.
    private func indexSet(_ object: KeyedObject) throws -> ArchivedObject? {
        guard let count = try object.int("NSRangeCount") else { return nil }
        var ranges: [ArchivedObject] = []
        if count == 1 {
            ranges = [range(try object.int("NSLocation") ?? 0, try object.int("NSLength") ?? 0)]
        } else if count > 1 {
            guard let data = try dataField(object, "NSRangeData") else {
                throw object.error("NSRangeData", "missing")
            }
            let numbers = try varints(data, in: object, key: "NSRangeData")
            guard numbers.count == 2 * count else { throw object.error("NSRangeData", "\(numbers.count / 2) ranges, not \(count)") }
            ranges = stride(from: 0, to: numbers.count, by: 2).map { range(numbers[$0], numbers[$0 + 1]) }
        }
        return .object(className: object.className, fields: [.init("ranges", .array(ranges))])
    }

    /// NSAttributedString: `NSString`, `NSAttributes` (one dictionary for
    /// the whole text, or an array of them) and `NSAttributeInfo` (data
    /// of run length, attribute index pairs).
    private mutating func attributedString(_ object: KeyedObject, depth: Int) throws -> ArchivedObject? {
        guard let text = try object.string("NSString") else { return nil }
        let length = text.utf16.count
        var runs: [ArchivedObject] = []
        func run(_ location: Int, _ length: Int, _ attributes: ArchivedObject) -> ArchivedObject {
            .dictionary([.init(key: .string("location"), value: .int(Int64(location))),
                         .init(key: .string("length"), value: .int(Int64(length))),
                         .init(key: .string("attributes"), value: attributes)])
        }
        let attributes = try object.reference("NSAttributes").map { try decode($0, depth: depth) } ?? .null
        if case .array(let list) = attributes {
            guard let info = try dataField(object, "NSAttributeInfo") else {
                throw object.error("NSAttributeInfo", "missing")
            }
            let numbers = try varints(info, in: object, key: "NSAttributeInfo")
            var location = 0
            for pair in stride(from: 0, to: numbers.count - 1, by: 2) {
                let index = numbers[pair + 1]
                guard index < list.count else { throw object.error("NSAttributeInfo", "attributes \(index) of \(list.count)") }
                runs.append(run(location, numbers[pair], list[index]))
                location = location &+ numbers[pair]
            }
        } else if attributes != .null {
            runs = [run(0, length, attributes)]
        }
        return .object(className: object.className, fields: [.init("string", .string(text)), .init("runs", .array(runs))])
    }

    /// CLLocation: `kCLLocationCodingKey…` doubles; the timestamp is
    /// seconds since 2001.
    private mutating func location(_ object: KeyedObject, depth: Int) throws -> ArchivedObject? {
        let prefix = "kCLLocationCodingKey"
        guard try object.double(FieldKey(prefix + "CoordinateLatitude")) != nil else { return nil }
        let order = ["latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "speed", "course", "timestamp"]
        var fields: [ArchivedObject.Field] = []
        for (key, raw) in try object.fields.entries().sorted(by: { $0.key < $1.key }) where key != "$class" {
            var name = key.hasPrefix(prefix) ? String(key.dropFirst(prefix.count)) : key
            if name.hasPrefix("Coordinate") { name.removeFirst("Coordinate".count) }
            name = name.prefix(1).lowercased() + name.dropFirst()
            var value = try decodeField(raw, place: "object \(object.index) (\(object.className)), key '\(key)'", depth: depth)
            if name == "timestamp", let seconds = try object.double(FieldKey(key)) {
                value = .date(Date(timeIntervalSinceReferenceDate: seconds))
            }
            fields.append(.init(name, value))
        }
        fields.sort { (order.firstIndex(of: $0.name) ?? order.count, $0.name) < (order.firstIndex(of: $1.name) ?? order.count, $1.name) }
        return .object(className: "CLLocation", fields: fields)
    }

    /// NSTimeZone, NSLocale, NSCalendar, NSDateComponents: their `NS.`
    /// keys without the prefix, leaving out a time zone's rules (`NS.data`)
    /// and date components that are not set (NSDateComponentUndefined).
    private mutating func foundationObject(_ object: KeyedObject, name: String, depth: Int) throws -> ArchivedObject {
        var fields: [ArchivedObject.Field] = []
        for (key, raw) in try object.fields.entries().sorted(by: { $0.key < $1.key }) where key != "$class" && !(name == "NSTimeZone" && key == "NS.data") {
            let value = try decodeField(raw, place: "object \(object.index) (\(object.className)), key '\(key)'", depth: depth)
            if value == .int(Int64(Int.max)) || value == .int(Int64(Int32.max)) { continue }
            fields.append(.init(key.hasPrefix("NS.") ? String(key.dropFirst(3)) : key, value))
        }
        return .object(className: name, fields: fields)
    }
}
