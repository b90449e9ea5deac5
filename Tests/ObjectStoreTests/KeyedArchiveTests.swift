import Foundation
import Testing

@testable import ObjectStore

/// Archives written by hand: an XML property list whose UIDs are
/// `{CF$UID = n}` dictionaries, which Foundation reads as UIDs.
enum HandArchive {
    static func uid(_ n: Int) -> [String: Any] { ["CF$UID": n] }

    static func classRecord(_ classes: String...) -> [String: Any] {
        ["$classname": classes[0], "$classes": classes]
    }

    static func data(_ objects: [Any], root: Int = 1, archiver: String = "NSKeyedArchiver") throws -> Data {
        let plist: [String: Any] = [
            "$archiver": archiver, "$version": 100_000, "$top": ["root": uid(root)], "$objects": objects,
        ]
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    }
}

@Suite struct KeyedArchiveTests {
    typealias H = HandArchive

    @Test func testReadsValuesAndCollections() throws {
        let data = try H.data([
            "$null",
            ["$class": H.uid(2), "NS.keys": [H.uid(3), H.uid(4)], "NS.objects": [H.uid(5), H.uid(6)]],
            H.classRecord("NSMutableDictionary", "NSDictionary", "NSObject"),
            "name", "list",
            ["$class": H.uid(7), "NS.string": "Zoë"],
            ["$class": H.uid(8), "NS.objects": [H.uid(9), H.uid(0), H.uid(10)]],
            H.classRecord("NSMutableString", "NSString", "NSObject"),
            H.classRecord("NSArray", "NSObject"),
            42,
            ["$class": H.uid(11), "NS.time": 86400.5],
            H.classRecord("NSDate", "NSObject"),
        ])
        let archive = try KeyedArchive(data)
        let value = try archive.value(at: archive.topReference())
        #expect(value == .dictionary([
            (.string("name"), .string("Zoë")),
            (.string("list"), .array([.int(42), .null, .date(Date(timeIntervalSinceReferenceDate: 86400.5))])),
        ]))
    }

    /// swift-corelibs-foundation returns UIDs as `_NSKeyedArchiverUID`
    /// with the number in a stored `value: UInt32`; if that changes, this
    /// fails rather than every archive.
    /// A binary archive's objects are read in place, a field when asked
    /// for: every object of a real model's archive (Everything.xcdatamodel,
    /// archived as Core Data does) reads the same fields, with the same
    /// values, as the whole property list read at once, and a key it
    /// lacks reads as absent.
    @Test func testFieldsReadInPlaceAreTheWholeListsFields() throws {
        let data = try ModelFixtures.load("Everything.xcdatamodel").coreDataArchive()
        guard case .dictionary(let top) = try BinaryPropertyList.value(data), case .array(let whole)? = top["$objects"] else {
            Issue.record("the archive has no $objects")
            return
        }
        let archive = try KeyedArchive(data)
        #expect(archive.objects.count == whole.count)
        var objects = 0
        for (index, value) in whole.enumerated() {
            guard case .dictionary(let expected) = value else {
                #expect(try archive.objects.fields(at: index) == nil, "object \(index) is no dictionary")
                continue
            }
            objects += 1
            let fields = try #require(try archive.objects.fields(at: index))
            let read = try fields.entries()
            #expect(read.map(\.key) == expected.entries.map(\.key), "object \(index): keys")
            for (key, value) in expected.entries {
                #expect(try fields[FieldKey(key)] == value, "object \(index), key \(key)")
            }
            #expect(try fields["no such key"] == nil && !fields.contains("$classnam"))
        }
        #expect(objects > 50, "the archive's objects (\(objects)) are mostly instances")
    }

    @Test func testUIDsAsFoundationReadsThem() throws {
        let data = try H.data(["$null", "x"])
        let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        let root = (plist?["$top"] as? [String: Any])?["root"]
        #expect(root.flatMap(KeyedArchive.uid) == 1)
        #expect(KeyedArchive.uid("1") == nil)
        #expect(KeyedArchive.uid(NSNumber(value: 1)) == nil)
        #expect(KeyedArchive.uid(["CF$UID": 1]) == nil)
    }

    /// Numbers, flags and dates in fields are told apart from UIDs before
    /// any reflection: none is a UID, whatever its value, and a UID of the
    /// binary reader still is one.
    @Test func testNumbersAreNoUIDs() {
        let values: [Any] = [NSNumber(value: 7), 7, Int64(7), true, false, 7.5, Date(timeIntervalSinceReferenceDate: 7)]
        for value in values { #expect(KeyedArchive.uid(value) == nil, "\(value)") }
        #expect(KeyedArchive.uid(PlistUID(value: 7)) == 7)
    }

    /// The writer's binary plist holds real UIDs (plist type 0x8), which
    /// Foundation reads as UIDs and its unarchiver follows.
    @Test func testWriterWritesRealUIDs() throws {
        let strings = KeyedArchiveWriter.archive(root: ArchiveNode.array([.string("a"), .string("b")]))
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: strings)
        unarchiver.requiresSecureCoding = false
        #expect(unarchiver.decodeObject(forKey: "root") as? [String] == ["a", "b"])
        let array = ArchiveNode.array([.string("a"), .int(3), .null])
        let data = KeyedArchiveWriter.archive(root: array)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        let root = (plist?["$top"] as? [String: Any])?["root"]
        #expect(root.map { $0 is [String: Any] } == false)
        #expect(root.flatMap(KeyedArchive.uid) == 1)
        let archive = try KeyedArchive(data)
        #expect(try archive.value(at: 1) == .array([.string("a"), .int(3), .null]))
    }

    @Test func testWriterOrdersObjectsAsNSKeyedArchiver() throws {
        // The object first, then what its fields introduce, then its class.
        let inner = ArchiveNode.array([.string("x")])
        let outer = ArchiveNode.dictionary([(.string("k"), .node(inner))], classes: ["NSMutableDictionary", "NSDictionary", "NSObject"])
        let archive = try KeyedArchive(KeyedArchiveWriter.archive(root: outer))
        let objects = try archive.allObjects()
        #expect(objects.count == 7)
        #expect(objects[2].string == "k")
        #expect(try archive.object(at: 3).className == "NSArray")
        #expect(objects[4].string == "x")
        #expect(try archive.object(at: 1).className == "NSMutableDictionary")
        #expect(objects[6].entries?["$classname"]?.string == "NSMutableDictionary")
    }

    @Test func testWriterWritesEachStringOnceAndConditionalsAsUIDs() throws {
        let a = ArchiveNode(["Thing", "NSObject"])
        let b = ArchiveNode(["Thing", "NSObject"])
        a.set("name", .object(.string("same")))
        a.set("other", .conditional(b))
        b.set("name", .object(.string("same")))
        b.set("other", .conditional(a))
        let root = ArchiveNode.array([.node(a), .node(b)])
        let archive = try KeyedArchive(KeyedArchiveWriter.archive(root: root))
        let first = try archive.object(at: archive.topReference()).collectionElements()
        let objectA = try archive.object(at: first[0]), objectB = try archive.object(at: first[1])
        #expect(try objectA.reference("other") == objectB.index)
        #expect(try objectB.reference("other") == objectA.index)
        #expect(try objectA.reference("name") == objectB.reference("name"))
        #expect(try archive.allObjects().filter { $0.string == "same" }.count == 1)
    }

    @Test func testCycleIsAnErrorNamingTheObject() throws {
        let data = try H.data([
            "$null",
            ["$class": H.uid(2), "NS.objects": [H.uid(3)]],
            H.classRecord("NSArray", "NSObject"),
            ["$class": H.uid(2), "NS.objects": [H.uid(1)]],
        ])
        let archive = try KeyedArchive(data)
        let error = #expect(throws: KeyedArchiveError.self) { try archive.value(at: 1) }
        #expect(error?.description == "object 1 (NSArray) contains itself")
    }

    @Test func testDeepNestingIsAnError() throws {
        // 2,000 arrays each holding the next: refused at 256, not a stack
        // overflow.
        var objects: [Any] = ["$null", H.classRecord("NSArray", "NSObject")]
        for i in 0..<2000 {
            let next = i == 1999 ? [] : [H.uid(objects.count + 1)]
            objects.append(["$class": H.uid(1), "NS.objects": next])
        }
        let archive = try KeyedArchive(try H.data(objects, root: 2))
        let error = #expect(throws: KeyedArchiveError.self) { try archive.value(at: 2) }
        #expect(error?.description.contains("nest more than 256 deep") == true)
    }

    @Test func testDanglingUIDNamesObjectAndKey() throws {
        let data = try H.data([
            "$null",
            ["$class": H.uid(2), "NSEntities": H.uid(99)],
            H.classRecord("NSManagedObjectModel", "NSObject"),
        ])
        let archive = try KeyedArchive(data)
        let model = try archive.object(at: 1)
        let error = #expect(throws: KeyedArchiveError.self) { try model.object("NSEntities") }
        #expect(error?.description == "object 1 (NSManagedObjectModel), key 'NSEntities': UID 99 is past the last object (2)")
    }

    @Test func testWrongTypesNameObjectAndKey() throws {
        let data = try H.data([
            "$null",
            ["$class": H.uid(2), "count": "three", "ref": 5, "list": H.uid(3)],
            H.classRecord("Thing", "NSObject"),
            "not a list",
        ])
        let thing = try KeyedArchive(data).object(at: 1)
        #expect(throws: KeyedArchiveError("object 1 (Thing), key 'count': expected an integer, found a string")) {
            try thing.int("count")
        }
        #expect(throws: KeyedArchiveError("object 1 (Thing), key 'ref': expected a UID, found a number")) {
            try thing.reference("ref")
        }
        #expect(throws: KeyedArchiveError("object 1 (Thing), key 'list': UID 3 is a string, not an object with a class")) {
            try thing.elements("list")
        }
    }

    @Test(arguments: [
        (Data("hello".utf8), "not a property list: neither binary ('bplist00') nor XML"),
        (Data("<plist><dict><key>a</key></plist>".utf8), "not a property list"),
        (try! PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0), "the property list is not a dictionary but an array"),
        (try! PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0), "the property list has no '$archiver': not a keyed archive"),
        (try! HandArchive.data(["$null"], archiver: "NSArchiver"), "'$archiver' is 'NSArchiver', not 'NSKeyedArchiver'"),
    ])
    func testNotAKeyedArchive(data: Data, message: String) {
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedArchive(data) }
        #expect(error?.description.hasPrefix(message) == true, "\(error?.description ?? "")")
    }

    /// A property-list dictionary reads a repeated key as its last value,
    /// as Foundation's reader does, and compares as a map.
    @Test func plistDictionariesReadTheLastOfARepeatedKey() {
        var fields = PlistDictionary([("a", .int(1)), ("b", .int(2)), ("a", .int(3))])
        #expect(fields["a"] == .int(3))
        #expect(fields["b"] == .int(2))
        #expect(fields["c"] == nil)
        #expect(fields.keys == ["b", "a"])
        #expect(fields == PlistDictionary([("a", .int(3)), ("b", .int(2))]))
        #expect(fields != PlistDictionary([("a", .int(1)), ("b", .int(2))]))
        fields["a"] = nil
        #expect(fields["a"] == nil && fields.keys == ["b"])
        fields["a"] = .string("x")
        #expect(fields["a"] == .string("x"))
    }

    /// A binary archive's objects are read when asked for: damage in one
    /// nobody asks for leaves the rest readable, and asking for it names
    /// the damage. The whole list read at once refuses the same bytes.
    @Test func aBinaryArchiveReadsTheObjectsAskedFor() throws {
        let plist = BinaryPropertyListWriter.write(.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .int(100_000),
            "$top": .dictionary(["root": .uid(1)]),
            "$objects": .array([
                .string("$null"), .dictionary(["$class": .uid(2), "name": .string("kept")]),
                .dictionary(["$classname": .string("Thing"), "$classes": .array([.string("Thing"), .string("NSObject")])]),
                .string("not asked"),
            ]),
        ]))
        var bytes = [UInt8](plist)
        let text = Array("not asked".utf8)
        let at = try #require((0...(bytes.count - text.count)).first { Array(bytes[$0..<$0 + text.count]) == text })
        bytes[at - 1] = 0x70   // its marker: no type mrq reads
        let archive = try KeyedArchive(Data(bytes))
        let root = try archive.object(at: archive.topReference())
        #expect(root.className == "Thing")
        #expect(try root.string("name") == "kept")
        #expect(throws: KeyedArchiveError.self) { try archive.objects.value(at: 3) }
        #expect(throws: KeyedArchiveError.self) { try KeyedArchive.plistValue(Data(bytes)) }
    }

    @Test func testDecimalNumberRoundTrip() throws {
        for text in ["19.99", "-0.5", "0", "123456789012345678901234567890", "1e-20"] {
            let decimal = try #require(Decimal(string: text))
            let node = ArchiveNode.array([ArchivedValues.item(.decimal(decimal))])
            let archive = try KeyedArchive(KeyedArchiveWriter.archive(root: node))
            #expect(try archive.value(at: 1) == .array([.decimal(decimal)]), "\(text)")
        }
    }
}

/// Binary property lists as mrq reads them (not with Foundation, which
/// crashes on some damaged ones).
@Suite struct BinaryPropertyListTests {
    /// A binary plist of `objects` (each already encoded), one-byte
    /// references and two-byte offsets.
    static func plist(_ objects: [[UInt8]], top: Int = 0) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        for offset in offsets { out += [UInt8(offset >> 8), UInt8(offset & 0xff)] }
        func be64(_ n: Int) -> [UInt8] { (0..<8).map { UInt8((n >> (56 - 8 * $0)) & 0xff) } }
        out += [0, 0, 0, 0, 0, 0, 2, 1] + be64(objects.count) + be64(top) + be64(table)
        return Data(out)
    }

    /// 50 bytes that make swift-corelibs-foundation's
    /// PropertyListSerialization segfault: a set holding a dictionary.
    @Test func testSetHoldingADictionaryIsAnErrorNotACrash() throws {
        let data = Self.plist([[0xC1, 1], [0xD0]])
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedArchive.propertyList(data) }
        #expect(error?.description == "binary property list: object 0 is a set, which keyed archives do not hold")
    }

    @Test func testAgreesWithFoundation() throws {
        let value: [String: Any] = [
            "small": 7, "medium": 70_000, "large": 9_000_000_000, "negative": -3, "real": 1.5, "yes": true,
            "no": false, "when": Date(timeIntervalSinceReferenceDate: 12.25), "bytes": Data([0, 1, 2, 255]),
            "ascii": "plain", "unicode": "Zoë ✓ 𝄞", "long": String(repeating: "x", count: 300),
            "list": [1, "two", [3.0], ["k": "v"]] as [Any], "empty": [Any](),
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        let mine = try #require(try BinaryPropertyList.parse(data) as? [String: Any])
        let theirs = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(NSDictionary(dictionary: mine).isEqual(to: theirs))
        #expect(mine["large"] as? NSNumber == NSNumber(value: 9_000_000_000))
        #expect(mine["unicode"] as? String == "Zoë ✓ 𝄞")
    }

    @Test func testSharedObjectsAreReadOnce() throws {
        // 60 arrays, each holding the next twice: 2^60 paths, 60 objects.
        var objects: [[UInt8]] = (0..<59).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x51, 0x78])
        let value = try BinaryPropertyList.parse(Self.plist(objects))
        #expect(value is [Any])
    }

    @Test(arguments: [
        ([[UInt8]]([[0xA1, 0]]), "binary property list: object 0 contains itself"),
        ([[0xA1, 9]], "binary property list: object 0 refers to object 9 of 1"),
        ([[0x5F, 0x10, 200]], "binary property list: object 0 claims 200 elements"),
        ([[0x5F, 0x10, 3]], "binary property list: object 0 runs past the object area"),
        ([[0x07]], "binary property list: object 0 has marker 7, which mrq does not read"),
        ([[0xD1, 1, 1], [0x10, 1]], "binary property list: dictionary 0 has a key that is not a string"),
        ([[0x51, 0xff]], "binary property list: object 0 is an ASCII string that is not ASCII"),
    ])
    func testMalformed(objects: [[UInt8]], message: String) {
        let error = #expect(throws: KeyedArchiveError.self) { try BinaryPropertyList.parse(Self.plist(objects)) }
        #expect(error?.description == message)
    }

    @Test func testBadTrailers() {
        var data = Self.plist([[0x51, 0x78]])
        data[data.count - 1] = 0xff  // the offset table past the end
        #expect(throws: KeyedArchiveError.self) { try BinaryPropertyList.parse(data) }
        #expect(throws: KeyedArchiveError.self) { try BinaryPropertyList.parse(Data("bplist00".utf8)) }
        #expect(throws: KeyedArchiveError("binary property list version 'bplist15' is not one mrq reads")) {
            try KeyedArchive.propertyList(Data("bplist15xxxxxxxx".utf8))
        }
    }
}
