import Foundation
import Testing
@testable import ObjectStore

/// Bytes that are not UTF-8 XML never reach libxml2 in a form that can
/// crash it: six bytes (a UTF-16 byte-order mark, a lone surrogate, `"`)
/// used to end the process inside libxml2. Models and XML stores in other
/// Unicode encodings load as the same model.
@Suite struct XMLInputTests {
    static var contents: Data {
        get throws { try Data(contentsOf: ModelFixtures.url("Everything.xcdatamodel").appendingPathComponent("contents")) }
    }

    static func utf16(_ text: String, bigEndian: Bool) -> Data {
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            let (high, low) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
            bytes += bigEndian ? [high, low] : [low, high]
        }
        return Data(bytes)
    }

    static func utf32(_ text: String) -> Data {
        var bytes: [UInt8] = [0x00, 0x00, 0xFE, 0xFF]
        for scalar in text.unicodeScalars {
            let v = scalar.value
            bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        return Data(bytes)
    }

    @Test func malformedBytesAreErrorsThatSayWhere() {
        let cases: [([UInt8], String)] = [
            ([0xFE, 0xFF, 0xD9, 0x5B, 0x22, 0x00], "not UTF-16 text (a lone surrogate) at byte 2"),
            ([0xFF, 0xFE, 0x3C, 0x00, 0x00, 0xDC], "not UTF-16 text (a lone surrogate) at byte 4"),
            ([0xFE, 0xFF, 0x00, 0x3C, 0x00], "UTF-16 text cut in the middle of a character at byte 4"),
            ([0x00, 0x3C, 0x00, 0x3F], "UTF-16 or UTF-32 text without a byte-order mark (save it as UTF-8) at byte 0"),
            ([0x3C, 0x61, 0x3E, 0xC3, 0x28], "not UTF-8 text at byte 3"),
            ([0xEF, 0xBB, 0xBF, 0x3C, 0xFF], "not UTF-8 text at byte 4"),
            ([0x3C, 0x61, 0x00, 0x3E], "a NUL character, which XML does not allow, at byte 2"),
            ([0x00, 0x00, 0xFE, 0xFF, 0x00, 0x11, 0x00, 0x00], "not UTF-32 text at byte 4"),
            // Found by libFuzzer: a processing instruction with no data
            // made FoundationXML read a null C string.
            (Array("<?xm?>\n<model/>".utf8), "a processing instruction (models and XML stores hold none) at byte 0"),
            // Found by fuzzing the XML store: `<?xml?>` is no declaration,
            // and libxml2's chunked parser handed it over as an instruction
            // with no data, a null C string to FoundationXML.
            (Array("<?xml?>\n<database/>".utf8), "a processing instruction (models and XML stores hold none) at byte 0"),
            (Array("<?xml version=\"1.0\"?><model><?x?></model>".utf8),
             "a processing instruction (models and XML stores hold none) at byte 28"),
            (Array("<!DOCTYPE m [<!ENTITY a \"aaaa\">]><model>&a;</model>".utf8),
             "a document type declaration (models and XML stores hold none) at byte 0"),
        ]
        for (bytes, message) in cases {
            #expect(throws: XMLInput.Malformed.self) { try XMLInput.normalized(Data(bytes)) }
            do {
                _ = try XMLInput.normalized(Data(bytes))
            } catch {
                #expect(error.description == message, "\(bytes)")
            }
            // Through the model loader: a ModelError naming the file, not a crash.
            #expect(throws: ModelError.self) { try ManagedObjectModel(xcdatamodelContents: Data(bytes), file: "bad/contents") }
        }
    }

    @Test func everyUnicodeEncodingLoadsTheSameModel() throws {
        let utf8 = try Self.contents
        let text = String(decoding: utf8, as: UTF8.self)
        let reference = try ManagedObjectModel(xcdatamodelContents: utf8)
        for variant in [Self.utf16(text, bigEndian: true), Self.utf16(text, bigEndian: false), Self.utf32(text),
                        Data([0xEF, 0xBB, 0xBF]) + utf8] {
            let model = try ManagedObjectModel(xcdatamodelContents: variant)
            #expect(model.isEquivalent(to: reference))
            #expect(model.entities.map(\.name) == reference.entities.map(\.name))
        }
    }

    @Test func theDeclarationSaysWhatTheBytesAre() throws {
        let declared = "<?xml version=\"1.0\" encoding=\"UTF-16\" standalone=\"yes\"?><a>é</a>"
        let normalized = try XMLInput.normalized(Self.utf16(declared, bigEndian: true))
        #expect(String(decoding: normalized, as: UTF8.self) == "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><a>é</a>")
        // Latin-1 that says so is read as Latin-1.
        let latin1 = Array("<?xml version='1.0' encoding='ISO-8859-1'?><a>".utf8) + [0xE9] + Array("</a>".utf8)
        #expect(String(decoding: try XMLInput.normalized(Data(latin1)), as: UTF8.self)
                == "<?xml version='1.0' encoding='UTF-8'?><a>é</a>")
        // Markup-like text inside comments and CDATA is text.
        let quoted = Data("<?xml version=\"1.0\"?><a><!-- <?x?> <!DOCTYPE --><![CDATA[<?y?>]]></a>".utf8)
        #expect(try XMLInput.normalized(quoted) == quoted)
        // Plain UTF-8 passes unchanged.
        let plain = Data("<a>Zoë</a>".utf8)
        #expect(try XMLInput.normalized(plain) == plain)
    }

    /// Apple's XML store files begin with Core Data's DOCTYPE: accepted
    /// (and blanked, line breaks kept) only where asked for, only before
    /// the root, only with no internal subset.
    @Test func coreDataDoctypeIsBlankedOnlyWhereAllowed() throws {
        let doctype = "<!DOCTYPE database SYSTEM\n  \"file://localhost/System/Library/DTDs/CoreData.dtd\">"
        let text = "<?xml version=\"1.0\"?>\n\(doctype)\n<database/>"
        let blanked = try XMLInput.normalized(Data(text.utf8), allowingCoreDataDoctype: true)
        #expect(String(decoding: blanked, as: UTF8.self)
                == "<?xml version=\"1.0\"?>\n" + String(repeating: " ", count: 25) + "\n" + String(repeating: " ", count: 54) + "\n<database/>")
        #expect(throws: XMLInput.Malformed.self) { try XMLInput.normalized(Data(text.utf8)) }
        let refused = [
            "<!DOCTYPE database SYSTEM \"CoreData.dtd\" [<!ENTITY a \"b\">]><database>&a;</database>",
            "<!DOCTYPE database SYSTEM \"file:///etc/passwd\"><database/>",
            "<!DOCTYPE plist SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\"><database/>",
            "<!DOCTYPE database PUBLIC \"x\" \"file:///System/Library/DTDs/CoreData.dtd\"><database/>",
            "<database/><!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">",
            "<!DOCTYPE database SYSTEM \"/CoreData.dtd\"><!DOCTYPE database SYSTEM \"/CoreData.dtd\"><database/>",
        ]
        for text in refused {
            #expect(throws: XMLInput.Malformed.self, "\(text)") {
                try XMLInput.normalized(Data(text.utf8), allowingCoreDataDoctype: true)
            }
        }
    }

    @Test func anXMLStoreOfBadBytesIsCorruptNotACrash() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xml-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.xml")
        let bytes = Data([0xFE, 0xFF, 0xD9, 0x5B, 0x22, 0x00])
        try bytes.write(to: url)
        let coordinator = PersistentStoreCoordinator(model: try ModelFixtures.load("Everything.xcdatamodel"))
        do {
            _ = try coordinator.addPersistentStore(type: .xml, at: url)
            Issue.record("opened")
        } catch let error as StoreError {
            #expect("\(error)".contains("not UTF-16 text (a lone surrogate) at byte 2"), "\(error)")
        }
        #expect(try Data(contentsOf: url) == bytes, "the file is left as it was")
    }
}
