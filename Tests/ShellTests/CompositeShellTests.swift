import Foundation
import Testing
@testable import Shell

/// Composite attributes (Xcode 15) and Undefined transients in the shell:
/// an element is written and read as `composite.element`.
@Suite struct CompositeShellTests {
    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Quake" syncable="YES">
                <attribute name="code" optional="YES" attributeType="String"/>
                <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
            </entity>
            <composite name="Magnitude">
                <attribute name="richter" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="scale" optional="YES" attributeType="String"/>
            </composite>
        </model>
        """

    static func harness() throws -> ShellHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-quake-\(UUID().uuidString)/Quake.xcdatamodel")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(model.utf8).write(to: directory.appendingPathComponent("contents"))
        return try ShellHarness(model: directory.path)
    }

    @Test func elementsAreWrittenQueriedAndSorted() throws {
        let shell = try Self.harness()
        let setup = shell.run("""
            insert Quake { code: "a", magnitude.richter: 6.5 }
            insert Quake { code: "b", magnitude.richter: 4, magnitude.scale: "ML" }
            update Quake where code == "a" set magnitude.scale = "Mw"
            save
            .mode csv
            """)
        #expect(setup.ok, "\(setup.errors)")
        let result = shell.run("Quake where magnitude.richter > 3 sort magnitude.richter:NO")
        #expect(result.text == "code,magnitude.richter,magnitude.scale\na,6.5,Mw\nb,4.0,ML\n", "\(result.text)")
        #expect(shell.run("count Quake where magnitude.scale == 'Mw'").text.contains("1"))
        let explained = shell.run("explain Quake where magnitude.richter > 5")
        #expect(explained.text.contains(#"WHERE t."magnitude_richter" > ?1"#), "\(explained.text)")
        let wrong = shell.run("insert Quake { magnitude.ricter: 1 }")
        #expect(wrong.errors.hasPrefix("error: unknown key 'magnitude.ricter' on Quake; did you mean 'magnitude.richter'?"))
    }

    @Test func schemaShowsTheCompositeAndTheUndefinedTransient() throws {
        let shell = try Self.harness()
        let result = shell.run(".schema Quake")
        #expect(result.text.contains("# composite magnitude { richter: Double, scale: String }"), "\(result.text)")
        #expect(result.text.contains("scratch: Undefined transient"))
        // An Undefined attribute is declared transient, or refused.
        #expect(shell.run("entity Note { memo: Undefined transient }").ok)
        let stored = shell.run("entity Draft { memo: Undefined }")
        #expect(stored.errors.contains("attribute 'Draft.memo' has type Undefined, which only a transient attribute may have"),
                "\(stored.errors)")
    }
}
