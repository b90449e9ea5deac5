import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import ObjectStore
import StoreTestSupport
import Testing

/// `XMLText` is the one escaping of every XML mrq writes (Xcode models,
/// its own XML store, Apple's XML store, an Apple store's metadata kept as
/// read). Whatever text XML 1.0 can hold must read back from a parser as
/// it was, in an attribute and between tags alike; what it cannot hold is
/// refused, never written into a file no parser then opens.
@Suite struct XMLTextTests {
    /// Reads `<e a="…">…</e>` with the parser mrq's readers use, giving the
    /// attribute's value and the element's text.
    private final class Reader: NSObject, XMLParserDelegate {
        var attribute: String?
        var text = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            attribute = attributes["a"]
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
    }

    private func readBack(_ text: String) throws -> (attribute: String?, content: String, parsed: Bool) {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<e a=\"\(try XMLText.escaped(text, in: .attribute))\">"
            + "\(try XMLText.escaped(text, in: .content))</e>"
        let parser = XMLParser(data: Data(xml.utf8))
        let reader = Reader()
        parser.delegate = reader
        let parsed = parser.parse()
        return (reader.attribute, reader.text, parsed)
    }

    @Test func whatAParserWouldChangeIsWrittenAsAReference() throws {
        #expect(try XMLText.escaped("a<b>&\"c\"", in: .attribute) == "a&lt;b&gt;&amp;&quot;c&quot;")
        #expect(try XMLText.escaped("1\t2\n3\r4", in: .attribute) == "1&#9;2&#10;3&#13;4")
        #expect(try XMLText.escaped("1\t2\n3\r4", in: .content) == "1\t2\n3&#13;4")
    }

    @Test func textXMLCanHoldReadsBackAsItWasInEitherPlace() throws {
        let awkward: [String] = ["", " ", "  leading and trailing  ", "\t", "\n", "\r", "\r\n", "a\r\nb", "<&>\"'",
                                 "]]>", "&amp;", "é\u{301}", "\u{FFFD}", "\u{D7FF}\u{E000}", "🧪", "\u{10FFFF}"]
        var random = SeededRandom(seed: SeededRandom.baseSeed)
        let alphabet: [Unicode.Scalar] = ["a", " ", "\t", "\n", "\r", "&", "<", ">", "\"", "'", ";", "#", "é",
                                          "\u{2028}", "\u{FFFD}", "\u{1F600}"]
        var samples = awkward
        for _ in 0..<300 {
            var s = String.UnicodeScalarView()
            for _ in 0..<random.int(0...12) { s.append(alphabet[random.int(0...(alphabet.count - 1))]) }
            samples.append(String(s))
        }
        for text in samples {
            let back = try readBack(text)
            #expect(back.parsed, "\(text.debugDescription) did not parse")
            #expect(back.attribute == text, "attribute: \(text.debugDescription) read back as \(String(describing: back.attribute?.debugDescription))")
            #expect(back.content == text, "content: \(text.debugDescription) read back as \(back.content.debugDescription)")
        }
    }

    @Test func aCharacterXMLCannotHoldIsRefusedWithItsCodePoint() {
        for (text, code) in [("a\u{1}b", "U+0001"), ("\u{0}", "U+0000"), ("\u{1F}", "U+001F"), ("x\u{FFFE}", "U+FFFE"),
                             ("\u{FFFF}", "U+FFFF")] {
            for place in [XMLText.Place.attribute, .content] {
                #expect(throws: XMLText.Unwritable.self) { try XMLText.escaped(text, in: place) }
                do {
                    _ = try XMLText.escaped(text, in: place)
                } catch {
                    #expect(error.codePoint == code)
                }
            }
        }
    }

    /// A model's names and user info are data (a store's model cache may
    /// hold anything): a value with line breaks and tabs survives an Xcode
    /// model, and one with a character XML cannot hold is refused rather
    /// than written into a file that no longer opens.
    @Test func anXcodeModelKeepsLineBreaksAndRefusesWhatXMLCannotHold() throws {
        let model = try ManagedObjectModel(xcdatamodelContents: Data(ModelFixtures.model(entities: """
            <entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>
            """).utf8))
        let note = try #require(model.entitiesByName["Note"])
        note.userInfo = ["hint": "line one\nline\ttwo\r\nend  "]
        let again = try ModelFixtures.parse(try model.xcdatamodelContents())
        #expect(again.entitiesByName["Note"]?.userInfo["hint"] == "line one\nline\ttwo\r\nend  ")

        note.userInfo = ["hint": "bell \u{7}"]
        do {
            _ = try model.xcdatamodelContents()
            Issue.record("a user info value holding U+0007 was written into an Xcode model")
        } catch let error as StoreError {
            #expect(error.message.contains("U+0007"), "\(error.message)")
            #expect(error.message.contains("<entry> value"), "\(error.message)")
        }
    }
}
