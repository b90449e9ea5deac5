import Foundation
import Predicates
import Testing

@testable import ObjectStore

@Suite struct ModelArchiveTests {
    @Test func testXMLWriterRoundTrip() throws {
        let model = try ModelFixtures.load("Everything.xcdatamodel")
        model.localizationDictionary = [:]
        let xml = try model.xcdatamodelContents()
        let again = try ModelFixtures.parse(xml)
        #expect(again.isEquivalent(to: model), "\(xml)")
        // Writing again gives the same text.
        #expect(try again.xcdatamodelContents() == xml)
    }

    @Test(arguments: ["OldStyle.xcdatamodel", "NoOptional.xcdatamodel", "Versioned.xcdatamodeld", "Bare/contents"])
    func testXMLWriterRoundTripOfFixture(name: String) throws {
        let model = try ModelFixtures.load(name)
        let again = try ModelFixtures.parse(model.xcdatamodelContents())
        again.versionIdentifier = model.versionIdentifier
        #expect(again.isEquivalent(to: model))
    }

    @Test func testWriterEscapesAndUsesXcodeForms() throws {
        let model = try ManagedObjectModel {
            Entity("Q") {
                Attribute("when", .date, default: .date(Date(timeIntervalSinceReferenceDate: 12.5)))
                Attribute("text", .string, default: .string("a \"b\" <c> & d\ne"))
                Attribute("n", .integer16, optional: false, default: .int(3))
                ToOne("q", "Q")
            }
        }
        let xml = try model.xcdatamodelContents()
        #expect(xml.contains(#"<attribute name="when" optional="YES" attributeType="Date" defaultDateTimeInterval="12.5"/>"#))
        #expect(xml.contains(#"defaultValueString="a &quot;b&quot; &lt;c&gt; &amp; d&#10;e""#))
        #expect(xml.contains(#"<attribute name="n" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>"#))
        #expect(xml.contains(#"<relationship name="q" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Q"/>"#))
        let again = try ModelFixtures.parse(xml)
        #expect(again.isEquivalent(to: model))
    }

    @Test func testWriteXcodeModelBundleAndLoadIt() throws {
        let model = try ModelFixtures.load("Everything.xcdatamodel")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-model-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Gadgets.xcdatamodeld")
        try model.writeXcodeModel(to: bundle)
        let again = try ManagedObjectModel(contentsOf: bundle)
        #expect(again.localizationDictionary == model.localizationDictionary)
        #expect(again.isEquivalent(to: model))
    }

    @Test func testArchiveRoundTrip() throws {
        let model = try ModelFixtures.load("Everything.xcdatamodel")
        let data = model.archived()
        let again = try ManagedObjectModel(archive: data)
        #expect(again.isEquivalent(to: model))
        #expect(again.archived() == data)
        #expect(again.fingerprint == model.fingerprint)
        #expect(again.localizedName(ofEntity: "Gadget") == "Gizmo")
        #expect(again.entity(named: "Gadget")?.attribute(named: "price")?.defaultValue == .decimal(Decimal(string: "19.99")!))
    }

    @Test func testBadArchiveThrows() {
        #expect(throws: ModelError.self) { _ = try ManagedObjectModel(archive: Data("{}".utf8)) }
        #expect(throws: ModelError.self) { _ = try ManagedObjectModel(archive: Data("not json".utf8)) }
    }

    @Test func testFingerprintIsStableAcrossOrderAndWhitespace() throws {
        let a = try ModelFixtures.parse(ModelFixtures.model(entities: """
            <entity name="A"><attribute name="x" optional="YES" attributeType="String"/><attribute name="y" attributeType="Integer 32"/></entity>
            <entity name="B"><relationship name="a" optional="YES" maxCount="1" destinationEntity="A"/></entity>
            """))
        let b = try ModelFixtures.parse(ModelFixtures.model(entities: """
            <entity name="B">
                <relationship name="a" optional="YES" maxCount="1" destinationEntity="A" deletionRule="Cascade">
                    <userInfo><entry key="k" value="v"/></userInfo>
                </relationship>
            </entity>

            <entity name="A" representedClassName="A">
                <attribute name="y" attributeType="Integer 32" minValueString="3" defaultValueString="4"/>
                <attribute name="x" optional="YES" attributeType="String" regularExpressionString=".*"/>
                <fetchIndex name="byX"><fetchIndexElement property="x" type="Binary" order="ascending"/></fetchIndex>
            </entity>
            """))
        #expect(a.fingerprint == b.fingerprint)
        #expect(a.fingerprint.count == 16)
        let isHex = a.fingerprint.allSatisfy { $0.isHexDigit }
        #expect(isHex)
    }

    @Test(arguments: [
        #"<entity name="A"><attribute name="x" optional="YES" attributeType="Integer 64"/><attribute name="y" attributeType="Integer 32"/></entity>"#,
        #"<entity name="A"><attribute name="x" attributeType="String"/><attribute name="y" attributeType="Integer 32"/></entity>"#,
        #"<entity name="A"><attribute name="x" optional="YES" attributeType="String"/><attribute name="z" attributeType="Integer 32"/></entity>"#,
        #"<entity name="A"><attribute name="x" optional="YES" attributeType="String"/></entity>"#,
        #"<entity name="A" parentEntity="C"><attribute name="x" optional="YES" attributeType="String"/><attribute name="y" attributeType="Integer 32"/></entity><entity name="C"/>"#,
        #"<entity name="A"><attribute name="x" optional="YES" attributeType="String"/><attribute name="y" attributeType="Integer 32"/><relationship name="r" optional="YES" toMany="YES" destinationEntity="A"/></entity>"#,
    ])
    func testFingerprintChangesWithStorage(changed: String) throws {
        let base = try ModelFixtures.parse(ModelFixtures.model(entities: """
            <entity name="A"><attribute name="x" optional="YES" attributeType="String"/><attribute name="y" attributeType="Integer 32"/></entity>
            """))
        let other = try ModelFixtures.parse(ModelFixtures.model(entities: changed))
        #expect(base.fingerprint != other.fingerprint)
    }

    @Test func testFingerprintOfSameFileIsTheSameEachLoad() throws {
        let first = try ModelFixtures.load("Everything.xcdatamodel")
        let second = try ModelFixtures.load("Everything.xcdatamodel")
        #expect(first.fingerprint == second.fingerprint)
    }

    @Test func testStringsFileParsing() throws {
        let text = #"""
            /* comment */ "a" = "1"; // trailing
            b = "two words";
            "c\"q" = "line\nnext \U00e9";
            "solo";
            """#
        let entries = try StringsFile.parse(Data(text.utf8), file: "X.strings")
        #expect(entries == ["a": "1", "b": "two words", "c\"q": "line\nnext é", "solo": "solo"])
        #expect(try StringsFile.parse(Data(StringsFile.write(entries).utf8), file: "X.strings") == entries)
        #expect(throws: ModelError.self) { try StringsFile.parse(Data("\"a\" = \"b\"".utf8), file: "X.strings") }
    }
}
