import Foundation
import Testing
@testable import Shell

/// Issue 16, item 1, in the shell: `.model` migrates only when asked
/// (`--migrate`), after a backup; an `entity` statement never drops data.
@Suite struct ModelChangeTests {
    static func run(_ session: ShellSession, _ text: String) -> (out: String, ok: Bool) {
        let capture = TranscriptTests.Capture()
        let ok = session.run(text, fileName: nil, output: capture)
        return (capture.text, ok)
    }

    @Test func dotModelMigratesOnlyWhenAskedAndBacksUpFirst() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The People sample with one more attribute: People 2.
        let bundle = directory.appendingPathComponent("People.xcdatamodeld")
        let original = TranscriptTests.samples.appendingPathComponent("People.xcdatamodeld/People.xcdatamodel/contents")
        var contents = try String(contentsOf: original, encoding: .utf8)
        contents = contents.replacingOccurrences(of: "<attribute name=\"email\"",
                                                 with: "<attribute name=\"nickname\" optional=\"YES\" attributeType=\"String\"/>\n        <attribute name=\"email\"")
        for (name, text) in [("People", try String(contentsOf: original, encoding: .utf8)), ("People 2", contents)] {
            let version = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: version.appendingPathComponent("contents"))
        }
        let store = directory.appendingPathComponent("people.sqlite").path
        let session = try ShellSession(modelPath: bundle.appendingPathComponent("People.xcdatamodel").path, storePath: store)
        session.baseDirectory = URL(fileURLWithPath: directory.path, isDirectory: true)
        #expect(Self.run(session, "insert Person { FirstName: \"Ada\", personID: 1 }\nsave").ok)

        let refused = Self.run(session, ".model People.xcdatamodeld")
        #expect(!refused.ok)
        #expect(refused.out.contains("was made with another model (added attribute Person.nickname); use .model --migrate"), "\(refused.out)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("people.before-migration.sqlite").path))

        let migrated = Self.run(session, ".model --migrate People.xcdatamodeld")
        #expect(migrated.ok, "\(migrated.out)")
        #expect(migrated.out.contains("backed up people.sqlite to people.before-migration.sqlite"), "\(migrated.out)")
        #expect(migrated.out.contains("migrated people.sqlite: added attribute Person.nickname"), "\(migrated.out)")
        #expect(migrated.out.contains("model People.xcdatamodeld: version People 2, 2 entities"), "\(migrated.out)")
        #expect(Self.run(session, "count Person").out.contains("1"))
        let backup = try ShellSession(modelPath: nil, storePath: directory.appendingPathComponent("people.before-migration.sqlite").path)
        #expect(Self.run(backup, "select FirstName from Person").out.contains("Ada"))
    }

    @Test func anEntityStatementNeverDropsData() throws {
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        #expect(Self.run(session, """
            entity Person { name: String; fax: String }
            insert Person { name: "Ada", fax: "123" }
            save
            """).ok)
        let refused = Self.run(session, "entity Person { name: String }")
        #expect(!refused.ok)
        #expect(refused.out.contains("this change would drop data (Person.fax: 1 value)"), "\(refused.out)")
        #expect(Self.run(session, "select fax from Person").out.contains("123"))
    }
}
