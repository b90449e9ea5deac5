import Foundation
import Predicates
import Testing
@testable import ObjectStore
@testable import Shell

/// Binary and transformable values in the shell: archives and property
/// lists decoded as text in tables, lines and CSV and as JSON in json
/// mode, other bytes as a preview, and every byte with `.binary raw`.
@Suite struct ArchivedValueShellTests {
    static func archive(_ root: ArchiveNode) -> Data { KeyedArchiveWriter.archive(root: root) }

    static let tags = archive(ArchiveNode.array([.string("work"), .string("urgent")]))

    static let red: Data = {
        let color = ArchiveNode(["NSColor", "NSObject"])
        color.set("NSColorSpace", .int(1))
        color.set("NSRGB", .inlineData(Data("1 0 0 1\0".utf8)))
        return archive(color)
    }()

    static let place: Data = {
        let location = ArchiveNode(["CLLocation", "NSObject"])
        location.set("kCLLocationCodingKeyCoordinateLatitude", .double(37.33))
        location.set("kCLLocationCodingKeyCoordinateLongitude", .double(-122.03))
        location.set("kCLLocationCodingKeyHorizontalAccuracy", .double(5))
        location.set("kCLLocationCodingKeyTimestamp", .double(728_000_000))
        return archive(location)
    }()

    static let settings = archive(ArchiveNode.dictionary([(.string("theme"), .string("dark")), (.string("size"), .int(3))]))

    static func render(_ mode: OutputMode, _ value: Data, binary: BinaryDisplay = .decoded) -> String {
        Renderer(options: RenderOptions(mode: mode, binary: binary))
            .render(ResultSet(columns: ["v"], rows: [[.value(.data(value))]]))
    }

    @Test func tablesLinesAndCSVShowTheDecodedText() {
        #expect(Self.render(.table, Self.tags).contains("│ [\"work\", \"urgent\"] │\n"))
        #expect(Self.render(.line, Self.red) == "v = NSColor(r 1 g 0 b 0 a 1)\n")
        #expect(Self.render(.line, Self.place) == "v = CLLocation(37.33, -122.03 ±5m @2024-01-26T22:13:20Z)\n")
        #expect(Self.render(.line, Self.settings) == #"v = {theme: "dark", size: 3}"# + "\n")
        #expect(Self.render(.csv, Self.tags) == "v\n\"[\"\"work\"\", \"\"urgent\"\"]\"\n")
    }

    @Test func jsonShowsTheDecodedStructure() throws {
        let text = Self.render(.json, Self.settings)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let value = try #require(parsed.first?["v"] as? [String: Any])
        #expect(value["theme"] as? String == "dark")
        #expect(value["size"] as? Int == 3)
        let color = try #require(try JSONSerialization.jsonObject(with: Data(Self.render(.json, Self.red).utf8)) as? [[String: Any]])
        #expect((color.first?["v"] as? [String: Any])?["$class"] as? String == "NSColor")
        // Raw: the bytes, in base64.
        let raw = try #require(try JSONSerialization.jsonObject(with: Data(Self.render(.json, Self.red, binary: .raw).utf8)) as? [[String: String]])
        #expect(raw.first?["v"].flatMap { Data(base64Encoded: $0) } == Self.red)
    }

    @Test func otherBytesShowTheirSizeAndFirstBytes() {
        let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + [UInt8](repeating: 7, count: 2000))
        #expect(Self.render(.line, png) == "v = <2.0 KB 89504e470d0a1a0a…>\n")
        #expect(Self.render(.line, Self.tags, binary: .preview) == "v = " + ArchivedObject.preview(of: Self.tags) + "\n")
        #expect(Self.render(.csv, png, binary: .raw) == "v\nx'" + png.map { String(format: "%02x", $0) }.joined() + "'\n")
        #expect(Self.render(.line, Data([1, 2]), binary: .raw) == "v = x'0102'\n")
    }

    @Test func decodedTextIsCutAndEscaped() {
        let long = Self.archive(ArchiveNode.array((0..<500).map { .string("item \($0)") }))
        var options = RenderOptions(mode: .line, maxValueWidth: 40)
        options.binary = .decoded
        let text = Renderer(options: options).render(ResultSet(columns: ["v"], rows: [[.value(.data(long))]]))
        // 40 columns of the decoded text, then the blob's size.
        #expect(text == #"v = ["item 0", "item 1", "item 2", "item 3",…("# + WorkProgress.grouped(long.count) + " bytes)\n")
        let escape = Self.archive(ArchiveNode.array([.string("\u{1B}[31mred")]))
        #expect(Self.render(.line, escape) == "v = [\"\\u001b[31mred\"]\n")
    }

    @Test func theSettingIsShownAndCompleted() throws {
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        #expect(SaveAsTests.run(session, ".binary").contains("binary: decoded"))
        #expect(session.completions(in: ".binary p", cursor: 9) == ["preview"])
        #expect(Set(session.completions(in: ".binary ", cursor: 8)) == ["decoded", "preview", "raw"])
        #expect(session.completions(in: ".bin", cursor: 4) == [".binary"])
    }

    /// A Core Data store with transformable and binary attributes, written
    /// by ObjectStore and read back through the shell with the model it
    /// keeps.
    @Test func aStoresTransformableValuesReadInTheShell() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-archived-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let entity = EntityDescription(name: "Note")
        entity.add(AttributeDescription(name: "title", type: .string))
        for name in ["tags", "settings", "color", "place"] { entity.add(AttributeDescription(name: name, type: .transformable)) }
        entity.add(AttributeDescription(name: "thumbnail", type: .binary))
        let model = try ManagedObjectModel(entities: [entity])
        let url = directory.appendingPathComponent("Notes.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            var options = PersistentStoreOptions()
            options.layout = .coreData
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let note = context.insertObject(forEntityName: "Note")
            note["title"] = .string("Trip")
            note["tags"] = .data(Self.tags)
            note["settings"] = .data(Self.settings)
            note["color"] = .data(Self.red)
            note["place"] = .data(Self.place)
            note["thumbnail"] = .data(Data(repeating: 0xab, count: 5000))
            try context.save()
        }
        let session = try ShellSession(modelPath: nil, storePath: url.path)
        let line = SaveAsTests.run(session, ".mode line\nNote")
        #expect(line.contains(#"tags = ["work", "urgent"]"#), "\(line)")
        #expect(line.contains(#"settings = {theme: "dark", size: 3}"#), "\(line)")
        #expect(line.contains("color = NSColor(r 1 g 0 b 0 a 1)"), "\(line)")
        #expect(line.contains("place = CLLocation(37.33, -122.03 ±5m @2024-01-26T22:13:20Z)"), "\(line)")
        #expect(line.contains("thumbnail = <4.9 KB abababababababab…>"), "\(line)")
        let table = SaveAsTests.run(session, ".mode table\nNote")
        #expect(table.contains(#"["work", "urgent"]"#) && !table.contains("x'"), "\(table)")
        let json = SaveAsTests.run(session, ".mode json\nNote")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], "\(json)")
        #expect(rows.first?["tags"] as? [String] == ["work", "urgent"])
        #expect((rows.first?["place"] as? [String: Any])?["latitude"] as? Double == 37.33)
        let raw = SaveAsTests.run(session, ".binary raw\n.mode line\nNote")
        #expect(raw.contains("tags = x'62706c6973743030"), "\(raw)")
        #expect(SaveAsTests.run(session, ".binary").contains("binary: raw"))
        #expect(SaveAsTests.run(session, ".binary sideways").contains("usage: .binary [decoded|preview|raw]"))
        // .dump keeps every byte, whatever the setting.
        let dump = SaveAsTests.run(session, ".binary preview\n.dump")
        #expect(dump.contains("tags: CAST(\"" + Self.tags.base64EncodedString() + "\", \"NSData\")"), "\(dump.prefix(2000))")
    }
}
