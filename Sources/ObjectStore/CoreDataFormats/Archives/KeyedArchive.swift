import Foundation

/// A reader of `NSKeyedArchiver` archives: a property list (binary or XML)
/// with `$archiver`, `$version`, `$top` and `$objects`, whose objects point
/// at each other through UIDs and name their class through `$class`.
///
/// ```swift
/// let archive = try KeyedArchive(data)
/// let model = try archive.object(at: archive.topReference("root"))
/// model.className                            // "NSManagedObjectModel"
/// let entities = try model.dictionary("NSEntities")
/// ```
///
/// Nothing is resolved up front: each object is looked at when asked for,
/// so the archive's own cycles (an entity and its properties point at each
/// other) cost nothing. Every question checks what it finds, and an error
/// names the object's index, its class and the key
/// (`object 25 (NSRelationshipDescription), key 'NSDestinationEntity':
/// UID 900 is past the last object (211)`).
///
/// A class, so that each `KeyedObject` (thousands made and copied while a
/// model is decoded) holds one reference to it rather than a copy of its
/// parts, each retained and released.
package final class KeyedArchive {
    /// `$objects`, as the property list holds them.
    let objects: ArchiveObjects
    /// `$top`: the names of the roots and their UIDs.
    let top: PlistDictionary
    /// What reading the archive has cost so far, and may cost: see
    /// ``ArchiveWork``.
    package let work: ArchiveWork
    /// The class records read so far, by UID: an archive names a few
    /// dozen classes for thousands of objects.
    private let classRecords: ClassRecords

    /// How deep `value(at:)` follows collections inside collections.
    static let maximumDepth = 256

    /// Reads `data`, a binary or XML property list.
    package convenience init(_ data: Data) throws {
        try self.init(bytes: [UInt8](data))
    }

    /// Reads `bytes`, a binary or XML property list.
    convenience init(bytes: [UInt8]) throws {
        if try Self.isBinary(bytes), let (top, objects) = try BinaryPropertyList.keyedArchive(bytes) {
            try self.init(archive: top, objects: ArchiveObjects(objects), archiveBytes: bytes.count)
            return
        }
        let data = Data(bytes)
        let plist = try Self.plistValue(data)
        guard case .dictionary(let dictionary) = plist else {
            throw KeyedArchiveError("the property list is not a dictionary but \(plist.kind)")
        }
        try Self.checkArchiver(dictionary)
        guard case .array(let objects)? = dictionary["$objects"] else {
            throw KeyedArchiveError("the archive has no '$objects' array")
        }
        try self.init(archive: dictionary, objects: ArchiveObjects(objects), archiveBytes: data.count)
    }

    /// Throws unless `dictionary` says NSKeyedArchiver wrote it.
    private static func checkArchiver(_ dictionary: PlistDictionary) throws {
        guard case .string(let archiver)? = dictionary["$archiver"] else {
            throw KeyedArchiveError("the property list has no '$archiver': not a keyed archive")
        }
        guard archiver == "NSKeyedArchiver" else {
            throw KeyedArchiveError("'$archiver' is '\(archiver)', not 'NSKeyedArchiver'")
        }
    }

    /// The archive whose top dictionary (but for `$objects`) is
    /// `dictionary`.
    private init(archive dictionary: PlistDictionary, objects: ArchiveObjects, archiveBytes: Int) throws {
        try Self.checkArchiver(dictionary)
        guard case .dictionary(let top)? = dictionary["$top"] else {
            throw KeyedArchiveError("the archive has no '$top' dictionary")
        }
        self.objects = objects
        self.top = top
        work = ArchiveWork(objects: objects.count, archiveBytes: archiveBytes)
        classRecords = ClassRecords(objects: objects.count)
    }

    /// An archive of `objects` and `top` read from `archiveBytes` bytes (0
    /// when unknown).
    init(objects: [PlistValue], top: PlistDictionary, archiveBytes: Int = 0) {
        self.objects = ArchiveObjects(objects)
        self.top = top
        work = ArchiveWork(objects: objects.count, archiveBytes: archiveBytes)
        classRecords = ClassRecords(objects: objects.count)
    }

    /// The fields of object `index` when it is a dictionary (an instance
    /// of a class, or a class record); nil for the others.
    private func fields(at index: Int) throws -> ObjectFields? {
        try objects.fields(at: index)
    }

    /// Every object, read: for tests that rearrange an archive.
    func allObjects() throws -> [PlistValue] {
        try (0..<objects.count).map { try objects.value(at: $0) }
    }

    /// Reads a property list: a binary one with `BinaryPropertyList`
    /// (Foundation's reader crashes on some damaged ones), an XML one with
    /// Foundation. Keyed archives are never in the old OpenStep text
    /// format, so nothing else is handed to Foundation.
    static func propertyList(_ data: Data) throws -> Any {
        if try isBinary(data) { return try BinaryPropertyList.parse(data) }
        return try xmlPropertyList(data)
    }

    /// `propertyList(_:)`, typed.
    static func plistValue(_ data: Data) throws -> PlistValue {
        if try isBinary(data) { return try BinaryPropertyList.value(data) }
        return try PlistValue(foundation: try xmlPropertyList(data))
    }

    /// Whether `data` is a binary plist mrq reads; throws for another
    /// version of the binary format.
    static func isBinary<Bytes: Collection<UInt8>>(_ data: Bytes) throws -> Bool {
        guard data.starts(with: Array("bplist".utf8)) else { return false }
        guard data.starts(with: BinaryPropertyList.magic) else {
            throw KeyedArchiveError("binary property list version '\(String(decoding: data.prefix(8), as: UTF8.self))' is not one mrq reads")
        }
        return true
    }

    private static func xmlPropertyList(_ data: Data) throws -> Any {
        let text = data.drop { [0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf].contains($0) }
        guard text.first == UInt8(ascii: "<") else {
            throw KeyedArchiveError("not a property list: neither binary ('bplist00') nor XML")
        }
        do {
            return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw KeyedArchiveError("not a property list (\(reason(error)))")
        }
    }

    /// The index of the object `$top` names `key` (`root` for an archive made
    /// with `archivedData(withRootObject:)`).
    package func topReference(_ key: String = "root") throws -> Int {
        guard let value = top[key] else { throw KeyedArchiveError("'$top' has no '\(key)'") }
        guard case .uid(let uid) = value else {
            throw KeyedArchiveError("'$top' key '\(key)' is \(value.kind), not a UID")
        }
        guard uid != 0 else { throw KeyedArchiveError("'$top' key '\(key)' is nil") }
        try check(uid, from: "'$top' key '\(key)'")
        return uid
    }

    /// The object at `index`, which must be an instance of a class (not a
    /// string, number or data).
    package func object(at index: Int) throws -> KeyedObject {
        try check(index, from: "a reference")
        guard let fields = try self.fields(at: index) else {
            try work.visit("object \(index)")
            throw KeyedArchiveError(
                "object \(index) is \(try objects.value(at: index).kind), not an object with a class")
        }
        guard let classValue = try fields[.className] else {
            try work.visit("object \(index)")
            throw KeyedArchiveError("object \(index) has no '$class'")
        }
        return try object(at: index, fields: fields, classValue: classValue)
    }

    /// The object at `index` (checked to name one) when it is an instance
    /// of a class; nil when it is a string, number or data stored directly
    /// or a dictionary with no `$class`: `isObject` and `object(at:)` in
    /// one reading of its fields.
    func instance(at index: Int) throws -> KeyedObject? {
        guard index > 0, index < objects.count, let fields = try self.fields(at: index),
              let classValue = try fields[.className] else { return nil }
        return try object(at: index, fields: fields, classValue: classValue)
    }

    private func object(at index: Int, fields: ObjectFields, classValue: PlistValue) throws -> KeyedObject {
        try work.visit("object \(index)")
        guard case .uid(let classIndex) = classValue, classIndex != 0 else {
            throw KeyedArchiveError("object \(index): '$class' is \(classValue.kind), not a UID")
        }
        try check(classIndex, from: "object \(index), key '$class'")
        if let known = classRecords[classIndex] {
            return KeyedObject(archive: self, index: index, type: known, fields: fields)
        }
        guard let record = try self.fields(at: classIndex), case .string(let name)? = try record["$classname"] else {
            throw KeyedArchiveError("object \(index): its class (object \(classIndex)) has no '$classname'")
        }
        var chain = [name]
        if case .array(let classes)? = try record["$classes"] {
            chain = classes.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        let type = ArchiveClass(name: name, chain: chain)
        classRecords[classIndex] = type
        return KeyedObject(archive: self, index: index, type: type, fields: fields)
    }

    /// Whether `index` points at an instance of a class (rather than a
    /// string, number or data stored directly).
    func isObject(_ index: Int) throws -> Bool {
        guard index > 0, index < objects.count else { return false }
        return try fields(at: index)?.contains(.className) ?? false
    }

    /// The value at `index`: strings, numbers, data and the Foundation
    /// classes that stand for values (NSString, NSNumber, NSData, NSDate,
    /// NSNull, NSUUID, NSURL, NSDecimalNumber) and collections of them
    /// (NSArray, NSSet, NSDictionary and their mutable kinds,
    /// NSKnownKeysDictionary1). Another class is an error; `0` is `.null`.
    package func value(at index: Int) throws -> ArchivedValue {
        var visiting: Set<Int> = []
        return try value(at: index, visiting: &visiting, from: "a reference")
    }

    // Places are built only for an error: most values are read without one.
    private func value(at index: Int, visiting: inout Set<Int>, from place: @autoclosure () -> String) throws -> ArchivedValue {
        if index == 0 { return .null }
        try check(index, from: place())
        if try fields(at: index) == nil {
            let raw = try objects.value(at: index)
            try work.visit("object \(index)")
            let scalar = try Self.scalar(raw, at: "object \(index)")
            try work.hand(scalar, "object \(index)")
            return scalar
        }
        let object = try self.object(at: index)
        if let scalar = try object.scalarValue() {
            try work.hand(scalar, "object \(index) (\(object.className))")
            return scalar
        }
        guard object.isCollection else {
            throw KeyedArchiveError("object \(index) is an instance of \(object.className), not a value", unknown: true)
        }
        guard visiting.count < Self.maximumDepth else {
            throw KeyedArchiveError("object \(index) (\(object.className)): collections nest more than \(Self.maximumDepth) deep")
        }
        guard visiting.insert(index).inserted else {
            throw KeyedArchiveError("object \(index) (\(object.className)) contains itself")
        }
        defer { visiting.remove(index) }
        func here() -> String { "object \(index) (\(object.className))" }
        if object.isDictionary {
            let pairs = try object.dictionaryPairs()
            return .dictionary(try pairs.map { pair in
                (try value(at: pair.key, visiting: &visiting, from: "\(here()), a key"),
                 try value(at: pair.value, visiting: &visiting, from: "\(here()), a value"))
            })
        }
        let elements = try object.collectionElements().map { try value(at: $0, visiting: &visiting, from: "\(here()), an element") }
        return object.isSet ? .set(elements) : .array(elements)
    }

    /// Throws unless `index` is a UID of an object in the archive.
    func check(_ index: Int, from place: @autoclosure () -> String) throws {
        guard index >= 0, index < objects.count else {
            throw KeyedArchiveError("\(place()): UID \(index) is past the last object (\(objects.count - 1))")
        }
    }

    // MARK: Plist values

    /// The number in a UID Foundation's reader returned, or nil when
    /// `value` is not one.
    ///
    /// `BinaryPropertyList` returns UIDs as `PlistUID`. Foundation, which
    /// reads XML archives (where a UID is a `{CF$UID = n}` dictionary), hands
    /// them out as instances of a private class:
    /// swift-corelibs-foundation's `_NSKeyedArchiverUID`, with the number
    /// in a stored property `value: UInt32`; Apple's CoreFoundation a
    /// `CFKeyedArchiverUID` whose description ends in `{value = 12}`. The
    /// test `testUIDsAsFoundationReadsThem` fails if either changes.
    static func uid(_ value: Any) -> Int? {
        if let uid = value as? PlistUID { return uid.value }
        // Numbers are most of what is not a UID (flags, counts, types):
        // told apart before the reflection below, which costs far more.
        if value is NSNumber || value is Bool { return nil }
        if value is String || value is [Any] || value is [String: Any] || value is Data { return nil }
        let typeName = String(describing: type(of: value))
        if typeName.contains("KeyedArchiverUID") {
            for child in Mirror(reflecting: value).children where child.label == "value" {
                if let number = child.value as? UInt32 { return Int(number) }
            }
        }
        let text = String(describing: value)
        if text.hasPrefix("<CFKeyedArchiverUID"), let open = text.range(of: "{value = "),
            let close = text[open.upperBound...].firstIndex(of: "}")
        {
            return Int(text[open.upperBound..<close])
        }
        return nil
    }

    /// A string, number, boolean, date or data stored directly in
    /// `$objects` or in an object's field.
    static func scalar(_ raw: PlistValue, at place: @autoclosure () -> String) throws -> ArchivedValue {
        switch raw {
        case .string(let string): return string == "$null" ? .null : .string(string)
        case .data(let data): return .data(data)
        case .date(let date): return .date(date)
        case .int(let n): return .int(n)
        case .real(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .uid, .array, .dictionary: throw KeyedArchiveError("\(place()) is \(raw.kind), not a value")
        }
    }

    /// A boolean, integer or real, however this platform's Foundation
    /// returned it.
    static func number(_ raw: Any) -> ArchivedValue? {
        // swift-corelibs-foundation returns booleans as Bool; Apple's as a
        // CFBoolean, which is also an NSNumber.
        if type(of: raw) == Bool.self, let flag = raw as? Bool { return .bool(flag) }
        guard let number = raw as? NSNumber else { return nil }
        #if canImport(Darwin)
        if CFGetTypeID(number) == CFBooleanGetTypeID() { return .bool(number.boolValue) }
        #endif
        // objCType is one character: compared in place, not made a String.
        let type = number.objCType
        switch type[0] == 0 || type[1] != 0 ? 0 : UInt8(bitPattern: type[0]) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"):
            return .double(number.doubleValue)
        case UInt8(ascii: "Q"):
            // An unsigned integer past Int64.max: keep it as a real rather
            // than wrap it.
            return Int64(exactly: number.uint64Value).map(ArchivedValue.int) ?? .double(number.doubleValue)
        default:
            return .int(number.int64Value)
        }
    }

    private static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}

/// The `$objects` of a keyed archive: read already (an XML archive, read
/// by Foundation whole), or read one at a time from a binary one.
struct ArchiveObjects {
    private let values: [PlistValue]
    private let reader: BinaryPropertyList.ObjectReader?
    /// How many there are.
    let count: Int

    init(_ values: [PlistValue]) {
        self.values = values
        reader = nil
        count = values.count
    }

    init(_ reader: BinaryPropertyList.ObjectReader) {
        values = []
        self.reader = reader
        count = reader.count
    }

    /// Object `index` (below `count`); throws when a binary archive's
    /// object cannot be read.
    func value(at index: Int) throws -> PlistValue {
        if let reader { return try reader.value(at: index) }
        return values[index]
    }

    /// The fields of object `index` (below `count`) when it is a
    /// dictionary; nil for the others. A binary archive's are read in
    /// place, a field when it is asked for.
    func fields(at index: Int) throws -> ObjectFields? {
        if let reader { return try reader.dictionary(at: index).map { ObjectFields(reader, $0) } }
        if case .dictionary(let fields) = values[index] { return ObjectFields(fields) }
        return nil
    }
}

/// The fields of one object of a keyed archive: in a binary archive, read
/// where the property list holds them, each value when it is asked for
/// (a model's decoder reads a dozen fields of each of thousands of
/// objects once: building a dictionary of each object, and freeing it,
/// cost more than the reading); in an XML archive, the dictionary
/// Foundation's reader made.
struct ObjectFields {
    // A struct of optionals rather than an enum: copied with each
    // `KeyedObject`, it is two references to retain, not a call to the
    // enum's copy function (mrq-bench w. corpus's largest model).
    private let reader: BinaryPropertyList.ObjectReader?
    private let span: BinaryPropertyList.DictionarySpan
    private let read: PlistDictionary?

    init(_ reader: BinaryPropertyList.ObjectReader, _ span: BinaryPropertyList.DictionarySpan) {
        self.reader = reader
        self.span = span
        read = nil
    }

    init(_ fields: PlistDictionary) {
        reader = nil
        span = BinaryPropertyList.DictionarySpan(object: 0, start: 0, count: 0)
        read = fields
    }

    /// The value of `key`, its last when the object repeats it; nil when
    /// absent. Throws when a binary archive's value cannot be read.
    subscript(key: FieldKey) -> PlistValue? {
        get throws {
            // The dictionary is checked, not the reader: binding the
            // reader copied (retained and released) it at every field.
            guard let read else { return try reader.unsafelyUnwrapped.value(of: key.name, tag: key.tag, in: span) }
            return read[key.name]
        }
    }

    /// Whether the object has a field `key`.
    func contains(_ key: FieldKey) throws -> Bool { try self[key] != nil }

    /// Each field once with its value (its last), in the order of those
    /// last entries.
    func entries() throws -> [(key: String, value: PlistValue)] {
        if let reader { return try reader.entries(of: span).entries }
        return read?.entries ?? []
    }
}

/// A field's name with its tag (`PlistDictionary.tag`) worked out once.
/// The fields a model's decoder reads at each of its thousands of objects
/// are named by constants of this type (`FieldKey.className`), not by
/// text hashed again at every look (mrq-bench w. corpus's largest model);
/// a string literal makes one where it is written.
package struct FieldKey: ExpressibleByStringLiteral, CustomStringConvertible, Sendable {
    /// The field's name, as the archive spells it.
    package let name: String
    let tag: UInt64

    package init(_ name: String) {
        self.name = name
        tag = PlistDictionary.tag(name)
    }

    package init(stringLiteral name: String) { self.init(name) }

    /// The name: what messages show.
    package var description: String { name }

    /// `$class`: every object's.
    static let className = FieldKey("$class")
    /// An array's or a set's elements, a dictionary's values.
    static let objects = FieldKey("NS.objects")
    /// A dictionary's keys.
    static let keys = FieldKey("NS.keys")
    /// An NSString's text.
    static let string = FieldKey("NS.string")
}

/// A class an archive names (a class record: `$classname`, `$classes`),
/// read once and shared by every object of the class, with what readers
/// ask of it at each object worked out once.
final class ArchiveClass {
    /// `$classname`: `NSEntityDescription`, `NSMutableDictionary`...
    let name: String
    /// `$classes`: the class and its superclasses.
    let chain: [String]
    /// An NSDictionary or Core Data's NSKnownKeysDictionary1.
    let isDictionary: Bool
    /// An NSSet or NSOrderedSet.
    let isSet: Bool
    /// A dictionary, a set or an NSArray.
    let isCollection: Bool

    init(name: String, chain: [String]) {
        self.name = name
        self.chain = chain
        isDictionary = name == "NSKnownKeysDictionary1" || chain.contains("NSDictionary")
        isSet = chain.contains("NSSet") || chain.contains("NSOrderedSet")
        isCollection = isDictionary || isSet || chain.contains("NSArray")
    }
}

/// The class records of one archive already read, by the record's UID.
private final class ClassRecords {
    // Read at every object, by the one thread reading the archive, as
    // `ArchiveWork`'s counts are (mrq-bench w. corpus's largest model).
    // By UID: an archive's objects are already in memory, and this is
    // one reference per object.
    @exclusivity(unchecked) private var records: [ArchiveClass?]

    init(objects count: Int) { records = Array(repeating: nil, count: count) }

    /// The record at UID `index` (below the archive's object count).
    subscript(index: Int) -> ArchiveClass? {
        get { records[index] }
        set { records[index] = newValue }
    }
}

/// A value an archive holds: what `KeyedArchive.value(at:)` returns.
package enum ArchivedValue: Equatable {
    /// `$null`, the archive's nil, or an NSNull.
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    case uuid(UUID)
    case url(URL)
    case decimal(Decimal)
    case array([ArchivedValue])
    case set([ArchivedValue])
    /// Keys and values in the archive's order.
    case dictionary([(ArchivedValue, ArchivedValue)])

    package static func == (a: ArchivedValue, b: ArchivedValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.string(x), .string(y)): x == y
        case let (.int(x), .int(y)): x == y
        case let (.double(x), .double(y)): x == y
        case let (.bool(x), .bool(y)): x == y
        case let (.data(x), .data(y)): x == y
        case let (.date(x), .date(y)): x == y
        case let (.uuid(x), .uuid(y)): x == y
        case let (.url(x), .url(y)): x == y
        case let (.decimal(x), .decimal(y)): x == y
        case let (.array(x), .array(y)), let (.set(x), .set(y)): x == y
        case let (.dictionary(x), .dictionary(y)):
            x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The string, when this is one.
    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

/// One object of a keyed archive: its class and its fields.
package struct KeyedObject {
    let archive: KeyedArchive
    /// The object's UID.
    package let index: Int
    /// Its class record.
    let type: ArchiveClass
    let fields: ObjectFields

    /// `$classname`: `NSEntityDescription`, `NSMutableDictionary`...
    package var className: String { type.name }
    /// `$classes`: the class and its superclasses.
    package var classes: [String] { type.chain }

    /// The field names, without `$class`.
    package var keys: Set<String> {
        get throws { Set(try fields.entries().lazy.map(\.key)).subtracting(["$class"]) }
    }

    /// Whether the object has a field named `key`.
    package func has(_ key: FieldKey) throws -> Bool { try fields.contains(key) }

    private var place: String { "object \(index) (\(className))" }

    func error(_ key: FieldKey, _ message: String) -> KeyedArchiveError {
        error(key.name, message)
    }

    func error(_ key: String, _ message: String) -> KeyedArchiveError {
        KeyedArchiveError("\(place), key '\(key)': \(message)")
    }

    /// An error for what the field holds that mrq does not know (see
    /// `KeyedArchiveError.isUnknown`).
    func unknown(_ key: String, _ message: String) -> KeyedArchiveError {
        KeyedArchiveError("\(place), key '\(key)': \(message)", unknown: true)
    }

    // MARK: Fields stored in the object

    /// An integer field; nil when absent.
    package func int(_ key: FieldKey) throws -> Int? {
        guard let raw = try fields[key] else { return nil }
        switch raw {
        case .int(let n):
            guard let value = Int(exactly: n) else { throw error(key, "\(n) is out of range") }
            return value
        case .bool(let flag):
            return flag ? 1 : 0
        default:
            throw error(key, "expected an integer, found \(raw.kind)")
        }
    }

    /// A boolean field (an integer 0 or 1 counts); nil when absent.
    package func bool(_ key: FieldKey) throws -> Bool? {
        guard let raw = try fields[key] else { return nil }
        switch raw {
        case .bool(let flag): return flag
        case .int(let n) where n == 0 || n == 1: return n == 1
        default: throw error(key, "expected a boolean, found \(raw.kind)")
        }
    }

    /// A real field (an integer counts); nil when absent.
    package func double(_ key: FieldKey) throws -> Double? {
        guard let raw = try fields[key] else { return nil }
        switch raw {
        case .real(let d): return d
        case .int(let n): return Double(n)
        default: throw error(key, "expected a number, found \(raw.kind)")
        }
    }

    /// A data field stored in the object (`NS.bytes`, `NS.uuidbytes`).
    package func inlineData(_ key: FieldKey) throws -> Data? {
        guard let raw = try fields[key] else { return nil }
        guard case .data(let data) = raw else { throw error(key, "expected data, found \(raw.kind)") }
        return data
    }

    // MARK: References

    /// The UID a field holds; nil when the field is absent or `$null`.
    package func reference(_ key: FieldKey) throws -> Int? {
        guard let raw = try fields[key] else { return nil }
        guard case .uid(let uid) = raw else {
            throw error(key, "expected a UID, found \(raw.kind)")
        }
        try archive.check(uid, from: "\(place), key '\(key)'")
        return uid == 0 ? nil : uid
    }

    /// The object a field points at; nil when absent or `$null`.
    package func object(_ key: FieldKey) throws -> KeyedObject? {
        guard let uid = try reference(key) else { return nil }
        guard let object = try archive.instance(at: uid) else {
            throw error(key, "UID \(uid) is \(try archive.objects.value(at: uid).kind), not an object with a class")
        }
        return object
    }

    /// The object a field points at, which must be there and be of class
    /// `className` (or a subclass of it).
    package func object(_ key: FieldKey, of className: String) throws -> KeyedObject {
        guard let object = try object(key) else { throw error(key, "missing") }
        guard object.classes.contains(className) else {
            throw error(key, "object \(object.index) is an instance of \(object.className), not \(className)")
        }
        return object
    }

    /// The value a field points at (or holds, for a number or string stored
    /// in place); nil when the field is absent.
    package func value(_ key: FieldKey) throws -> ArchivedValue? {
        guard let raw = try fields[key] else { return nil }
        if case .uid(let uid) = raw {
            try archive.check(uid, from: "\(place), key '\(key)'")
            do {
                return try archive.value(at: uid)
            } catch let inner as KeyedArchiveError {
                throw KeyedArchiveError(error(key, inner.description).description, unknown: inner.isUnknown)
            }
        }
        let scalar = try KeyedArchive.scalar(raw, at: "\(place), key '\(key)'")
        try archive.work.hand(scalar, "\(place), key '\(key)'")
        return scalar
    }

    /// A string field (an NSString or NSMutableString pointed at, or a
    /// string stored in place); nil when absent or `$null`.
    package func string(_ key: FieldKey) throws -> String? {
        switch try value(key) {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw error(key, "expected a string, found \(other.kind)")
        }
    }

    /// The elements of the NSArray or NSSet a field points at, as UIDs;
    /// empty when the field is absent or `$null`.
    package func elements(_ key: FieldKey) throws -> [Int] {
        guard let collection = try object(key) else { return [] }
        guard collection.isCollection, !collection.isDictionary else {
            throw error(key, "object \(collection.index) is an instance of \(collection.className), not an array or a set")
        }
        return try collection.collectionElements()
    }

    /// The entries of the NSDictionary (or NSKnownKeysDictionary1) a field
    /// points at, as UIDs of keys and values in the archive's order; empty
    /// when the field is absent or `$null`.
    package func dictionary(_ key: FieldKey) throws -> [(key: Int, value: Int)] {
        guard let dictionary = try object(key) else { return [] }
        guard dictionary.isDictionary else {
            throw error(key, "object \(dictionary.index) is an instance of \(dictionary.className), not a dictionary")
        }
        return try dictionary.dictionaryPairs()
    }

    /// A dictionary field whose keys and values are strings (a user info
    /// dictionary); empty when absent or `$null`.
    package func stringDictionary(_ key: FieldKey) throws -> [String: String] {
        guard let value = try value(key) else { return [:] }
        switch value {
        case .null: return [:]
        case .dictionary(let pairs):
            var result: [String: String] = [:]
            for (k, v) in pairs {
                guard let name = k.string else { throw error(key, "a key is \(k.kind), not a string") }
                switch v {
                case .string(let s): result[name] = s
                case .int(let n): result[name] = String(n)
                case .double(let d): result[name] = String(d)
                case .bool(let b): result[name] = b ? "YES" : "NO"
                default: throw error(key, "the value of '\(name)' is \(v.kind), not a string")
                }
            }
            return result
        default:
            throw error(key, "expected a dictionary, found \(value.kind)")
        }
    }

    // MARK: Collections and values

    var isDictionary: Bool { type.isDictionary }

    var isSet: Bool { type.isSet }

    var isCollection: Bool { type.isCollection }

    /// The UIDs in `NS.objects` of an array or set.
    func collectionElements() throws -> [Int] {
        try uidList(.objects)
    }

    /// The key and value UIDs of an NSDictionary (`NS.keys`, `NS.objects`)
    /// or of Core Data's NSKnownKeysDictionary1 (its `searchMapping` holds
    /// the keys, its `values` the values, in the same order).
    func dictionaryPairs() throws -> [(key: Int, value: Int)] {
        let keys: [Int], values: [Int]
        if className == "NSKnownKeysDictionary1" {
            let mapping = try object("searchMapping", of: "NSKnownKeysMappingStrategy1")
            keys = try mapping.uidCollection("keys")
            values = try uidCollection("values")
        } else {
            keys = try uidList(.keys)
            values = try uidList(.objects)
        }
        guard keys.count == values.count else {
            throw KeyedArchiveError("\(place): \(keys.count) keys but \(values.count) values")
        }
        return zip(keys, values).map { (key: $0, value: $1) }
    }

    /// A list of UIDs stored in place (`NS.objects`); empty when absent.
    func uidList(_ key: FieldKey) throws -> [Int] {
        guard let raw = try fields[key] else { return [] }
        guard case .array(let list) = raw else { throw error(key, "expected a list of UIDs, found \(raw.kind)") }
        return try list.enumerated().map { offset, item in
            guard case .uid(let uid) = item else {
                throw error(key, "item \(offset) is \(item.kind), not a UID")
            }
            try archive.check(uid, from: "\(place), key '\(key)' item \(offset)")
            return uid
        }
    }

    /// A list of UIDs either stored in place or in an NSArray pointed at
    /// (NSKnownKeysDictionary1 writes its `values` either way).
    private func uidCollection(_ key: FieldKey) throws -> [Int] {
        if case .array? = try fields[key] { return try uidList(key) }
        return try elements(key)
    }

    /// The value this object stands for, when its class is one of
    /// Foundation's value classes; nil for any other class.
    func scalarValue() throws -> ArchivedValue? {
        switch className {
        case "NSString", "NSMutableString":
            if let raw = try fields[.string] {
                guard case .string(let s) = raw else { throw error("NS.string", "expected a string") }
                return .string(s)
            }
            if let bytes = try inlineData("NS.bytes") {
                guard let s = String(data: bytes, encoding: .utf8) else { throw error("NS.bytes", "not UTF-8") }
                return .string(s)
            }
            throw error("NS.string", "missing")
        case "NSData", "NSMutableData":
            guard let bytes = try inlineData("NS.data") ?? inlineData("NS.bytes") else { throw error("NS.data", "missing") }
            return .data(bytes)
        case "NSNumber":
            // Keyed archives store numbers in place; an NSNumber object
            // is rare but readable.
            if let b = try? bool("NS.boolval") { return .bool(b) }
            if let d = try double("NS.dblval") { return .double(d) }
            if let i = try int("NS.intval") { return .int(Int64(i)) }
            throw error("NS.intval", "an NSNumber with no value")
        case "NSDate":
            guard let time = try double("NS.time") else { throw error("NS.time", "missing") }
            return .date(Date(timeIntervalSinceReferenceDate: time))
        case "NSNull":
            return .null
        case "NSUUID":
            guard let bytes = try inlineData("NS.uuidbytes") else { throw error("NS.uuidbytes", "missing") }
            guard bytes.count == 16 else { throw error("NS.uuidbytes", "\(bytes.count) bytes, not 16") }
            let b = [UInt8](bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case "NSURL":
            return .url(try urlValue(depth: 0))
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder":
            return .decimal(try decimalValue())
        default:
            return nil
        }
    }

    /// How deep an NSURL's base may be an NSURL with a base of its own.
    static let maximumURLDepth = 16

    /// An NSURL's `NS.relative` resolved against `NS.base`: nil, a string,
    /// or itself an NSURL (as Foundation archives a URL made relative to
    /// another), followed at most `maximumURLDepth` deep.
    private func urlValue(depth: Int) throws -> URL {
        guard let relative = try string("NS.relative") else { throw error("NS.relative", "missing") }
        let base: URL?
        if case .uid? = try fields["NS.base"], let uid = try reference("NS.base"),
           try archive.isObject(uid), case let object = try archive.object(at: uid), object.classes.contains("NSURL") {
            guard depth < Self.maximumURLDepth else {
                throw error("NS.base", "URLs based on URLs nest more than \(Self.maximumURLDepth) deep")
            }
            base = try object.urlValue(depth: depth + 1)
        } else {
            base = try string("NS.base").flatMap { URL(string: $0) }
        }
        guard let url = URL(string: relative, relativeTo: base) else { throw error("NS.relative", "'\(relative)' is not a URL") }
        return url.absoluteURL
    }

    /// An NSDecimalNumber's fields: `NS.exponent`, `NS.length`,
    /// `NS.negative`, `NS.compact`, `NS.mantissa` (16 bytes, eight 16-bit
    /// words) and `NS.mantissa.bo` (1 when the words are little-endian).
    private func decimalValue() throws -> Decimal {
        guard let exponent = try int("NS.exponent"), let length = try int("NS.length"),
            let mantissa = try inlineData("NS.mantissa")
        else { throw error("NS.mantissa", "an NSDecimalNumber without exponent, length or mantissa") }
        guard (0...8).contains(length) else { throw error("NS.length", "\(length) is not 0...8") }
        guard (-128...127).contains(exponent) else { throw error("NS.exponent", "\(exponent) is out of range") }
        guard mantissa.count == 16 else { throw error("NS.mantissa", "\(mantissa.count) bytes, not 16") }
        let littleEndian = (try int("NS.mantissa.bo") ?? 1) == 1
        let bytes = [UInt8](mantissa)
        var words = [UInt16](repeating: 0, count: 8)
        for i in 0..<8 {
            let low = UInt16(bytes[2 * i]), high = UInt16(bytes[2 * i + 1])
            words[i] = littleEndian ? low | high << 8 : high | low << 8
        }
        // The words are the magnitude, least significant first; build it
        // as a sum so as not to depend on Decimal's private layout.
        var magnitude = Decimal(0)
        var scale = Decimal(1)
        for word in words.prefix(length) {
            magnitude += Decimal(Int(word)) * scale
            scale *= 65536
        }
        let sign: FloatingPointSign = (try bool("NS.negative") ?? false) ? .minus : .plus
        return Decimal(sign: sign, exponent: exponent, significand: magnitude)
    }
}

extension ArchivedValue {
    /// What kind of value this is, for errors.
    var kind: String {
        switch self {
        case .null: "nil"
        case .string: "a string"
        case .int: "an integer"
        case .double: "a real"
        case .bool: "a boolean"
        case .data: "data"
        case .date: "a date"
        case .uuid: "a UUID"
        case .url: "a URL"
        case .decimal: "a decimal"
        case .array: "an array"
        case .set: "a set"
        case .dictionary: "a dictionary"
        }
    }
}

/// A keyed archive that cannot be read, and where: the message names the
/// object's index, its class and the key.
package struct KeyedArchiveError: Error, CustomStringConvertible, Equatable {
    package let description: String
    /// Whether the archive is sound but holds what mrq does not know (a
    /// class, an operator, a value where another belongs) rather than
    /// damage: a reader may leave such a part out and read the rest.
    package let isUnknown: Bool

    init(_ description: String, unknown: Bool = false) {
        self.description = description
        isUnknown = unknown
    }

    package static func == (a: Self, b: Self) -> Bool { a.description == b.description }
}
