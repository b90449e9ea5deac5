import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Archives of the classes examiners meet, made as Apple's archiver lays
/// them out (the keys each class's `encodeWithCoder:` writes).
enum ValueArchives {
    static func node(_ classes: [String], _ fields: [(String, ArchiveField)]) -> ArchiveNode {
        let node = ArchiveNode(classes)
        for (key, field) in fields { node.set(key, field) }
        return node
    }

    static func archive(_ item: ArchiveItem) -> Data {
        if case .node(let node) = item { return KeyedArchiveWriter.archive(root: node) }
        // A string or number at the root sits in an NSArray's place: the
        // writer takes an object, so wrap and take the element.
        return KeyedArchiveWriter.archive(root: ArchiveNode.array([item]))
    }

    static func nsValue(_ special: Int, _ fields: [(String, ArchiveField)]) -> ArchiveItem {
        .node(node(["NSValue", "NSObject"], [("NS.special", .int(special))] + fields))
    }

    static func rgb(_ text: String, space: Int = 1) -> ArchiveItem {
        .node(node(["NSColor", "NSObject"], [("NSColorSpace", .int(space)), ("NSRGB", .inlineData(Data(text.utf8) + [0]))]))
    }

    static func location(latitude: Double, longitude: Double, accuracy: Double, time: Double) -> ArchiveItem {
        .node(node(["CLLocation", "NSObject"], [
            ("kCLLocationCodingKeyCoordinateLatitude", .double(latitude)),
            ("kCLLocationCodingKeyCoordinateLongitude", .double(longitude)),
            ("kCLLocationCodingKeyAltitude", .double(12)),
            ("kCLLocationCodingKeyHorizontalAccuracy", .double(accuracy)),
            ("kCLLocationCodingKeyVerticalAccuracy", .double(-1)),
            ("kCLLocationCodingKeySpeed", .double(1.5)),
            ("kCLLocationCodingKeyCourse", .double(90)),
            ("kCLLocationCodingKeyTimestamp", .double(time)),
        ]))
    }

    /// LEB128, as NSAttributeInfo and NSRangeData pack numbers.
    static func varints(_ numbers: [Int]) -> Data {
        var out = Data()
        for var n in numbers {
            repeat {
                out.append(UInt8(n & 0x7f) | (n >= 0x80 ? 0x80 : 0))
                n >>= 7
            } while n > 0
        }
        return out
    }

    static func attributes(_ pairs: [(String, ArchiveItem)]) -> ArchiveItem {
        .node(ArchiveNode.dictionary(pairs.map { (.string($0.0), $0.1) }))
    }
}

@Suite struct ArchivedObjectTests {
    typealias A = ValueArchives

    func decode(_ item: ArchiveItem) -> ArchivedObject? {
        ArchivedObject(decoding: A.archive(item))
    }

    @Test func testFoundationValuesAndCollections() throws {
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let dictionary = ArchiveNode.dictionary([
            (.string("name"), .string("Ada")), (.string("age"), .int(36)), (.string("score"), .double(2.5)),
            (.string("admin"), .bool(true)), (.string("none"), .node(A.node(["NSNull", "NSObject"], []))),
            (.string("born"), ArchivedValues.item(.date(date))), (.string("id"), ArchivedValues.item(.uuid(uuid))),
            (.string("home"), ArchivedValues.item(.url(URL(string: "https://example.com/a")!))),
            (.string("bytes"), .data(Data([1, 2, 3]))),
            (.string("mutable"), .node(A.node(["NSMutableString", "NSString", "NSObject"], [("NS.string", .inlineString("m"))]))),
            (.string("blob"), .node(A.node(["NSMutableData", "NSData", "NSObject"], [("NS.data", .inlineData(Data([9])))]))),
            (.string("price"), ArchivedValues.item(.decimal(Decimal(string: "12.50")!))),
        ], classes: ["NSMutableDictionary", "NSDictionary", "NSObject"])
        let root = ArchiveNode.array([
            .node(dictionary),
            .node(ArchiveNode.array([.string("a"), .string("b")], classes: ["NSSet", "NSObject"])),
            .node(ArchiveNode.array([.string("x")], classes: ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"])),
            .node(ArchiveNode.array([], classes: ["NSMutableArray", "NSArray", "NSObject"])),
        ])
        let decoded = try #require(decode(.node(root)))
        #expect(decoded == .array([
            .dictionary([
                .init(key: .string("name"), value: .string("Ada")), .init(key: .string("age"), value: .int(36)),
                .init(key: .string("score"), value: .double(2.5)), .init(key: .string("admin"), value: .bool(true)),
                .init(key: .string("none"), value: .null), .init(key: .string("born"), value: .date(date)),
                .init(key: .string("id"), value: .uuid(uuid)),
                .init(key: .string("home"), value: .url(URL(string: "https://example.com/a")!)),
                .init(key: .string("bytes"), value: .data(Data([1, 2, 3]))),
                .init(key: .string("mutable"), value: .string("m")), .init(key: .string("blob"), value: .data(Data([9]))),
                .init(key: .string("price"), value: .decimal(Decimal(string: "12.50")!)),
            ]),
            .set([.string("a"), .string("b")]),
            .orderedSet([.string("x")]),
            .array([]),
        ]))
        #expect(decoded.description.hasPrefix(#"[{name: "Ada", age: 36, score: 2.5, admin: true, none: null, born: 2023-03-08T20:26:40Z, "#))
        #expect(decoded.description.hasSuffix(#"bytes: <3 bytes 010203>, mutable: "m", blob: <1 byte 09>, price: 12.5}, set["a", "b"], orderedSet["x"], []]"#))
        #expect(decoded.json.hasPrefix(#"[{"name":"Ada","age":36,"score":2.5,"admin":true,"none":null,"born":"2023-03-08T20:26:40Z","id":""#))
    }

    @Test func testAURLWithABase() throws {
        let base = A.node(["NSURL", "NSObject"], [("NS.base", .object(.null)), ("NS.relative", .object(.string("https://example.com/docs/")))])
        let url = A.node(["NSURL", "NSObject"], [("NS.base", .object(.node(base))), ("NS.relative", .object(.string("a/b.txt")))])
        #expect(decode(.node(url)) == .url(URL(string: "https://example.com/docs/a/b.txt")!))
        #expect(decode(.node(url))?.description == "https://example.com/docs/a/b.txt")
    }

    /// A chain of `depth` NSURLs, each the base of the next, the first
    /// based on nothing.
    static func urlChain(_ depth: Int) -> ArchiveNode {
        var url = A.node(["NSURL", "NSObject"], [("NS.base", .object(.null)), ("NS.relative", .object(.string("https://example.com/")))])
        for level in 1..<depth {
            url = A.node(["NSURL", "NSObject"], [("NS.base", .object(.node(url))), ("NS.relative", .object(.string("d\(level)/")))])
        }
        return url
    }

    @Test func testAURLWhoseBaseHasABaseReadsAsOneURL() throws {
        let url = Self.urlChain(3)
        let expected = URL(string: "https://example.com/d1/d2/")!
        let archive = try KeyedArchive(A.archive(.node(url)))
        #expect(try archive.value(at: archive.topReference()) == .url(expected))
        #expect(decode(.node(url)) == .url(expected))
    }

    @Test func testURLBasesNestingPastTheLimitAreRefusedNamingTheKey() throws {
        let archive = try KeyedArchive(A.archive(.node(Self.urlChain(KeyedObject.maximumURLDepth + 2))))
        let error = #expect(throws: KeyedArchiveError.self) { try archive.value(at: archive.topReference()) }
        #expect(error?.description.contains("key 'NS.base': URLs based on URLs nest more than 16 deep") == true)
        let deepest = try KeyedArchive(A.archive(.node(Self.urlChain(KeyedObject.maximumURLDepth + 1))))
        #expect(try deepest.value(at: deepest.topReference()).kind == "a URL")
    }

    @Test func testValuesOfRangesPointsSizesAndRects() throws {
        let root = ArchiveNode.array([
            A.nsValue(4, [("NS.rangeval.location", .int(2)), ("NS.rangeval.length", .int(5))]),
            A.nsValue(1, [("NS.pointval", .object(.string("{1.5, -2}")))]),
            A.nsValue(2, [("NS.sizeval", .object(.string("{320, 480}")))]),
            A.nsValue(3, [("NS.rectval", .object(.string("{{0, 10}, {320, 480}}")))]),
        ])
        let decoded = try #require(decode(.node(root)))
        #expect(decoded.description == "[NSRange(location: 2, length: 5), NSPoint(x: 1.5, y: -2.0), "
            + "NSSize(width: 320.0, height: 480.0), NSRect(x: 0.0, y: 10.0, width: 320.0, height: 480.0)]")
        #expect(decoded.json.hasPrefix(#"[{"$class":"NSRange","location":2,"length":5},{"$class":"NSPoint","x":1.5,"y":-2.0}"#))
    }

    @Test func testColours() throws {
        let root = ArchiveNode.array([
            A.rgb("1 0 0 1"),
            A.rgb("0.5 0.25 0", space: 2),
            .node(A.node(["NSColor", "NSObject"], [("NSColorSpace", .int(3)), ("NSWhite", .inlineData(Data("0.5 0.8\0".utf8)))])),
            .node(A.node(["NSColor", "NSObject"], [("NSColorSpace", .int(5)), ("NSCMYK", .inlineData(Data("0 1 0 0 1\0".utf8)))])),
            .node(A.node(["NSColor", "NSObject"], [("NSColorSpace", .int(6)), ("NSCatalogName", .object(.string("System"))),
                                                    ("NSColorName", .object(.string("labelColor")))])),
            .node(A.node(["UIColor", "NSObject"], [("UIColorComponentCount", .int(4)), ("UIRed", .double(0)),
                                                    ("UIGreen", .double(0.5)), ("UIBlue", .double(1)), ("UIAlpha", .double(0.75))])),
            .node(A.node(["UIColor", "NSObject"], [("UIWhite", .double(1)), ("UIAlpha", .double(1))])),
        ])
        let decoded = try #require(decode(.node(root)))
        #expect(decoded.description == "[NSColor(r 1 g 0 b 0 a 1), NSColor(r 0.5 g 0.25 b 0 a 1), NSColor(w 0.5 a 0.8), "
            + "NSColor(c 0 m 1 y 0 k 0 a 1), NSColor(System labelColor), UIColor(r 0 g 0.5 b 1 a 0.75), UIColor(w 1 a 1)]")
        guard case .array(let colours) = decoded else { Issue.record("not an array"); return }
        #expect(colours[0][field: "red"] == .double(1))
        #expect(colours[0].json == #"{"$class":"NSColor","red":1.0,"green":0.0,"blue":0.0,"alpha":1.0}"#)
    }

    @Test func testLocation() throws {
        let decoded = try #require(decode(A.location(latitude: 37.33, longitude: -122.03, accuracy: 5, time: 728_000_000)))
        #expect(decoded.description == "CLLocation(37.33, -122.03 ±5m @2024-01-26T22:13:20Z)")
        #expect(decoded[field: "altitude"] == .double(12))
        #expect(decoded[field: "timestamp"] == .date(Date(timeIntervalSinceReferenceDate: 728_000_000)))
        #expect(decoded.json.hasPrefix(#"{"$class":"CLLocation","latitude":37.33,"longitude":-122.03,"altitude":12.0,"horizontalAccuracy":5.0,"#))
    }

    @Test func testAttributedStrings() throws {
        let bold = A.attributes([("NSFont", .string("Helvetica-Bold"))])
        let plain = A.attributes([("NSColor", A.rgb("0 0 1 1"))])
        let runs = A.node(["NSMutableAttributedString", "NSAttributedString", "NSObject"], [
            ("NSString", .object(.node(A.node(["NSMutableString", "NSString", "NSObject"], [("NS.string", .inlineString("Hello world"))])))),
            ("NSAttributes", .object(.node(ArchiveNode.array([bold, plain])))),
            ("NSAttributeInfo", .object(.data(A.varints([5, 0, 6, 1])))),
        ])
        let single = A.node(["NSAttributedString", "NSObject"], [
            ("NSString", .object(.string("Hi"))), ("NSAttributes", .object(bold)),
        ])
        let decoded = try #require(decode(.node(ArchiveNode.array([.node(runs), .node(single)]))))
        #expect(decoded.description == #"[NSMutableAttributedString("Hello world", 2 runs), NSAttributedString("Hi", 1 run)]"#)
        guard case .array(let items) = decoded, case .array(let found)? = items[0][field: "runs"] else {
            Issue.record("no runs")
            return
        }
        #expect(found.count == 2)
        #expect(found[1].json == #"{"location":5,"length":6,"attributes":{"NSColor":{"$class":"NSColor","red":0.0,"green":0.0,"blue":1.0,"alpha":1.0}}}"#)
        #expect(items[1].json == #"{"$class":"NSAttributedString","string":"Hi","runs":[{"location":0,"length":2,"attributes":{"NSFont":"Helvetica-Bold"}}]}"#)
    }

    @Test func testTimeZonesLocalesDateComponentsAndIndexSets() throws {
        let root = ArchiveNode.array([
            .node(A.node(["__NSTimeZone", "NSTimeZone", "NSObject"], [("NS.name", .object(.string("Europe/Paris"))),
                                                                     ("NS.data", .object(.data(Data(repeating: 7, count: 300))))])),
            .node(A.node(["NSLocale", "NSObject"], [("NS.identifier", .object(.string("fr_FR")))])),
            .node(A.node(["NSDateComponents", "NSObject"], [("NS.year", .int(2024)), ("NS.month", .int(2)), ("NS.day", .int(Int.max))])),
            .node(A.node(["NSIndexSet", "NSObject"], [("NSRangeCount", .int(1)), ("NSLocation", .int(3)), ("NSLength", .int(4))])),
            .node(A.node(["NSMutableIndexSet", "NSIndexSet", "NSObject"], [("NSRangeCount", .int(2)),
                                                                           ("NSRangeData", .inlineData(A.varints([1, 1, 200, 3])))])),
        ])
        let decoded = try #require(decode(.node(root)))
        #expect(decoded.description == #"[NSTimeZone(name: "Europe/Paris"), NSLocale(identifier: "fr_FR"), "#
            + "NSDateComponents(month: 2, year: 2024), NSIndexSet(3…6), NSMutableIndexSet(1, 200…202)]")
    }

    @Test func testAnUnknownClassIsItsNameAndFields() throws {
        let custom = A.node(["MyApp.Settings", "NSObject"], [
            ("theme", .object(.string("dark"))), ("size", .int(3)),
            ("tags", .object(.node(ArchiveNode.array([.string("a")])))),
            ("raw", .inlineData(Data([0xff]))),
        ])
        let decoded = try #require(decode(.node(custom)))
        #expect(decoded == .object(className: "MyApp.Settings", fields: [
            .init("raw", .data(Data([0xff]))), .init("size", .int(3)), .init("tags", .array([.string("a")])),
            .init("theme", .string("dark")),
        ]))
        #expect(decoded.description == #"MyApp.Settings(raw: <1 byte ff>, size: 3, tags: ["a"], theme: "dark")"#)
        // A known class that does not read as its kind keeps its fields.
        let broken = try #require(decode(.node(A.node(["NSDate", "NSObject"], [("NS.time", .object(.string("soon")))]))))
        #expect(broken.className == "NSDate")
        #expect(broken[field: "NS.time"] == .string("soon"))
        guard case .error? = broken[field: "$error"] else { Issue.record("no error: \(broken)"); return }
    }

    @Test func testPlainPropertyListsBinaryAndXML() throws {
        let plist: [String: Any] = ["b": [1, "two", 3.5, true], "a": ["nested": Data([1])], "when": Date(timeIntervalSinceReferenceDate: 0)]
        let expected = ArchivedObject.dictionary([
            .init(key: .string("a"), value: .dictionary([.init(key: .string("nested"), value: .data(Data([1])))])),
            .init(key: .string("b"), value: .array([.int(1), .string("two"), .double(3.5), .bool(true)])),
            .init(key: .string("when"), value: .date(Date(timeIntervalSinceReferenceDate: 0))),
        ])
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
            #expect(ArchivedObject(decoding: data) == expected, "\(format)")
        }
        #expect(expected.description == #"{a: {nested: <1 byte 01>}, b: [1, "two", 3.5, true], when: 2001-01-01T00:00:00Z}"#)
    }

    @Test func testAnXMLArchive() throws {
        typealias H = HandArchive
        let data = try H.data([
            "$null",
            ["$class": H.uid(2), "NS.objects": [H.uid(3), H.uid(4)]],
            H.classRecord("NSArray", "NSObject"),
            "first",
            ["$class": H.uid(5), "NS.time": 0.0],
            H.classRecord("NSDate", "NSObject"),
        ])
        #expect(ArchivedObject(decoding: data) == .array([.string("first"), .date(Date(timeIntervalSinceReferenceDate: 0))]))
    }

    @Test(arguments: [Data(), Data("hello".utf8), Data([0x89, 0x50, 0x4e, 0x47]), Data("<?xml version=\"1.0\"?><svg/>".utf8)])
    func testBytesThatAreNoPropertyListAreNotDecoded(_ data: Data) {
        #expect(ArchivedObject(decoding: data) == nil)
    }

    @Test func testAnObjectInsideItselfIsAReference() throws {
        let array = ArchiveNode(["NSMutableArray", "NSArray", "NSObject"])
        array.set("NS.objects", .items([.string("a"), .node(array)]))
        let decoded = try #require(decode(.node(array)))
        #expect(decoded == .array([.string("a"), .reference(index: 1, className: "NSMutableArray")]))
        #expect(decoded.description == #"["a", <cycle: object 1 (NSMutableArray)>]"#)
    }

    @Test func testAnArchiveThatExpandsPastItsWorkIsAnErrorQuickly() throws {
        let start = Date()
        let decoded = try #require(decode(.node(ArchiveWorkTests.doublingArray(40))))
        guard case .error(let message) = decoded else { Issue.record("decoded: \(decoded.text(limit: 100))"); return }
        #expect(message.contains("visits more than"))
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func testDeepNestingStopsAtTheDepthLimit() throws {
        var item = ArchiveItem.string("leaf")
        for _ in 0..<300 { item = .node(ArchiveNode.array([item])) }
        let decoded = try #require(decode(item))
        var depth = 0, current = decoded
        while case .array(let items) = current, let first = items.first {
            depth += 1
            current = first
        }
        guard case .error(let message) = current else { Issue.record("no error at depth \(depth)"); return }
        #expect(message.contains("nest more than"))
        #expect(depth <= ArchivedObject.maximumDepth)
    }

    @Test func testADeepXMLPropertyListIsAnErrorBeforeFoundationReadsIt() throws {
        let deep = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100_000)
            + String(repeating: "</array>", count: 100_000) + "</plist>"
        guard case .error(let message)? = ArchivedObject(decoding: Data(deep.utf8)) else { Issue.record("no error"); return }
        #expect(message == "the XML property list nests more than 128 deep")
        let shallow = "<?xml version=\"1.0\"?><plist version=\"1.0\"><array><dict><key>a</key><array/></dict></array></plist>"
        #expect(ArchivedObject(decoding: Data(shallow.utf8)) == .array([.dictionary([.init(key: .string("a"), value: .array([]))])]))
    }

    /// `$objects` entries that are lists of UIDs, pointing at themselves:
    /// no archive Apple writes holds one, and reading stops at the depth
    /// limit rather than recursing until the stack runs out.
    @Test func testAListInObjectsThatHoldsItself() throws {
        typealias H = HandArchive
        let data = try H.data(["$null", [H.uid(1), "x"]])
        let decoded = try #require(ArchivedObject(decoding: data))
        #expect(decoded.description.contains("nest more than 128 deep"))
        #expect(decoded.description.hasPrefix("[["))
    }

    @Test func testDamagedArchivesGiveErrorValues() throws {
        // A UID past the end, a dictionary with more keys than values, a
        // binary plist whose trailer claims a huge count.
        let past = ArchiveNode(["NSArray", "NSObject"])
        past.set("NS.objects", .items([.string("x")]))
        var bytes = [UInt8](A.archive(.node(past)))
        let archive = ArchivedObject(decoding: Data(bytes))
        #expect(archive == .array([.string("x")]))
        bytes[bytes.count - 17] = 0xff  // the object count's low byte
        guard case .error? = ArchivedObject(decoding: Data(bytes)) else { Issue.record("no error"); return }
        let unequal = ArchiveNode(["NSDictionary", "NSObject"])
        unequal.set("NS.keys", .items([.string("a"), .string("b")]))
        unequal.set("NS.objects", .items([.string("x")]))
        guard case .error(let message)? = decode(.node(unequal)) else { Issue.record("no error"); return }
        #expect(message.contains("2 keys but 1 values"))
        guard case .error? = ArchivedObject(decoding: Data("bplist00 and then nothing that fits".utf8)) else {
            Issue.record("no error")
            return
        }
    }

    @Test func testRandomTreesReadBackAsWritten() throws {
        var generator = SplitMix64(seed: 31)
        for round in 0..<200 {
            let (item, expected) = Self.randomTree(depth: 0, using: &generator)
            let binary = A.archive(.node(ArchiveNode.array([item])))
            #expect(ArchivedObject(decoding: binary) == .array([expected]), "round \(round)")
            // The same archive as XML, its UIDs as {CF$UID = n}.
            let xml = try PropertyListSerialization.data(
                fromPropertyList: Self.xmlForm(try BinaryPropertyList.parse(binary)), format: .xml, options: 0)
            #expect(ArchivedObject(decoding: xml) == .array([expected]), "round \(round), XML")
        }
    }

    /// A plist as `BinaryPropertyList` read it, with its UIDs as the
    /// dictionaries Foundation's XML writer and reader take for UIDs.
    static func xmlForm(_ value: Any) -> Any {
        switch value {
        case let uid as PlistUID: return ["CF$UID": uid.value]
        case let array as [Any]: return array.map(xmlForm)
        case let dictionary as [String: Any]: return dictionary.mapValues(xmlForm)
        default: return value
        }
    }

    /// A random value tree as archive items, and what it decodes to.
    static func randomTree(depth: Int, using generator: inout SplitMix64) -> (ArchiveItem, ArchivedObject) {
        let choice = Int.random(in: 0..<(depth > 3 ? 6 : 9), using: &generator)
        switch choice {
        case 0:
            let s = String((0..<Int.random(in: 0..<6, using: &generator)).map { _ in "aé\"\n✓x".randomElement(using: &generator)! })
            return (.string(s), .string(s))
        case 1:
            let n = Int64.random(in: -1_000_000...1_000_000, using: &generator)
            return (.int(n), .int(n))
        case 2:
            let d = Double.random(in: -1e6...1e6, using: &generator)
            return (.double(d), .double(d))
        case 3:
            let b = Bool.random(using: &generator)
            return (.bool(b), .bool(b))
        case 4:
            let d = Data((0..<Int.random(in: 0..<5, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            return (.data(d), .data(d))
        case 5:
            let date = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &generator)))
            return (ArchivedValues.item(.date(date)), .date(date))
        case 6, 7:
            let children = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomTree(depth: depth + 1, using: &generator) }
            if choice == 6 { return (.node(ArchiveNode.array(children.map(\.0))), .array(children.map(\.1))) }
            return (.node(ArchiveNode.array(children.map(\.0), classes: ["NSOrderedSet", "NSObject"])), .orderedSet(children.map(\.1)))
        default:
            let values = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomTree(depth: depth + 1, using: &generator) }
            let pairs = values.enumerated().map { (ArchiveItem.string("k\($0.offset)"), $0.element.0) }
            return (.node(ArchiveNode.dictionary(pairs)),
                    .dictionary(values.enumerated().map { .init(key: .string("k\($0.offset)"), value: $0.element.1) }))
        }
    }

    @Test func testAnAttributeDecodesThroughItsObject() throws {
        let context = try TestModels.seededPeople()
        let person = try #require(try context.fetch(FetchRequest(entityName: "Person")).first)
        #expect(person.archivedValue(forKey: "photo") == nil)
        person["photo"] = .data(A.archive(A.rgb("1 0 0 1")))
        #expect(person.archivedValue(forKey: "photo")?.description == "NSColor(r 1 g 0 b 0 a 1)")
        person["photo"] = .data(Data([0x89, 0x50]))
        #expect(person.archivedValue(forKey: "photo") == nil)
    }

    @Test func testPreviewsOfBytes() {
        #expect(ArchivedObject.preview(of: Data()) == "<0 bytes>")
        #expect(ArchivedObject.preview(of: Data([0x0a, 0x06, 0x1f])) == "<3 bytes 0a061f>")
        #expect(ArchivedObject.preview(of: Data(repeating: 0xab, count: 1300)) == "<1.3 KB abababababababab…>")
        #expect(ArchivedObject.preview(of: Data(repeating: 0, count: 5 << 20)) == "<5.0 MB 0000000000000000…>")
    }
}

/// The fuzz target's seeds (Fuzz/archived, written by Python's plistlib,
/// another writer than mrq's) decode to what they hold.
@Suite struct ArchivedSeedTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/archived")

    static let expected: [String: String] = [
        "array": #"["work", "urgent"]"#,
        "attributed": #"NSMutableAttributedString("Hello world", 2 runs)"#,
        "bad-uid": "<error: object 1 (NSArray), key 'NS.objects' item 0: UID 90 is past the last object (2)>",
        "color": "NSColor(r 1 g 0 b 0 a 1)",
        "cycle": #"[<cycle: object 1 (NSMutableArray)>, "x"]"#,
        "dictionary": #"{theme: "dark", size: 3}"#,
        "indexset": "NSMutableIndexSet(1, 200…202)",
        "location": "CLLocation(37.33, -122.03 ±5m @2024-01-26T22:13:20Z)",
        "plain-binary": #"{a: {nested: <1 byte 01>}, b: [1, "two", 3.5, true]}"#,
        "plain-xml": #"{a: {nested: <1 byte 01>}, b: [1, "two", 3.5, true]}"#,
        "uicolor": "UIColor(r 0 g 0.5 b 1 a 1)",
        "unknown": #"MyApp.Settings(parent: <cycle: object 1 (MyApp.Settings)>, raw: <1 byte ff>, size: 3, theme: "dark")"#,
        "values": "[NSRange(location: 2, length: 5), NSRect(x: 0.0, y: 0.0, width: 10.0, height: 20.0), NSPoint(x: 1.0, y: 2.0)]",
        "wrong-types": #"NSDate(NS.time: "soon", $error: <error: object 1 (NSDate), key 'NS.time': expected a number, found a string>)"#,
        "xml-archive": #"["first", 2001-01-01T00:00:00Z]"#,
    ]

    @Test func testEachSeedReads() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(Set(names).isSuperset(of: Self.expected.keys))
        for name in names {
            let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
            let decoded = try #require(ArchivedObject(decoding: data), "\(name)")
            if let text = Self.expected[name] {
                #expect(decoded.description == text, "\(name)")
            } else {
                // The hostile ones: deep nesting and a doubling DAG.
                #expect(decoded.description.contains("<error: "), "\(name)")
            }
            #expect((try? JSONSerialization.jsonObject(with: Data(decoded.json.utf8), options: [.fragmentsAllowed])) != nil, "\(name)")
        }
    }

    /// Bytes of real archives flipped at random: every one decodes to a
    /// value or an error, never a crash, and quickly.
    @Test func testFlippedBytesNeverFail() throws {
        var generator = SplitMix64(seed: 7)
        let start = Date()
        for name in Self.expected.keys.sorted() {
            let original = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(name)))
            for _ in 0..<40 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                if let value = ArchivedObject(decoding: Data(bytes)) {
                    _ = value.text(limit: 1000)
                    #expect((try? JSONSerialization.jsonObject(with: Data(value.json.utf8), options: [.fragmentsAllowed])) != nil)
                }
            }
        }
        #expect(Date().timeIntervalSince(start) < 60)
    }
}
