import Foundation
import Testing
@testable import Shell

/// `.save-as` moves the session's store to another file and type;
/// `--store file.xml` opens an XML store.
@Suite struct SaveAsTests {
    static func run(_ session: ShellSession, _ text: String) -> String {
        let capture = TranscriptTests.Capture()
        session.run(text, fileName: nil, output: capture)
        return capture.text
    }

    /// A session in memory on a folder of its own, holding a department
    /// and Ada (and what `extra` inserts), saved.
    static func peopleSession(extra: String = "") throws -> (URL, ShellSession) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-save-as-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        session.baseDirectory = URL(fileURLWithPath: directory.path, isDirectory: true)
        _ = run(session, """
            entity Department { name: String required }
            entity Person { name: String; age: Int16 = 0; department: Department inverse people }
            insert Department { name: "Eng" }
            insert Person { name: "Ada", age: 36, department: first Department where name == "Eng" }
            \(extra)
            save
            """)
        return (directory, session)
    }

    @Test func saveAsXMLThenSQLiteKeepsTheSessionWorking() throws {
        let (directory, session) = try Self.peopleSession(extra: "insert Person { name: \"Bob\", age: 17 }")
        defer { try? FileManager.default.removeItem(at: directory) }
        let query = "Person where age > 10 sort name"
        let before = Self.run(session, query)
        #expect(before.contains("Ada") && before.contains("Eng"))

        #expect(Self.run(session, ".save-as people.xml").contains("saved as people.xml (xml)"))
        #expect(session.storePath == directory.appendingPathComponent("people.xml").path)
        #expect(Self.run(session, query) == before)
        _ = Self.run(session, "insert Person { name: \"Cy\", age: 50 }\nsave")

        // Opened by its extension, as `mrq --store people.xml` does.
        let reopened = try ShellSession(modelPath: nil, storePath: directory.appendingPathComponent("people.xml").path)
        let three = Self.run(reopened, query)
        #expect(three.contains("Cy") && three.contains("(3 rows)"))

        #expect(Self.run(session, ".save-as back.db sqlite").contains("saved as back.db (sqlite)"))
        #expect(Self.run(session, query) == three)
        #expect(Self.run(session, ".save-as x.xml nonsense").contains("usage: .save-as PATH|URL [sqlite|coredata|xml]"))
        #expect(Self.run(session, ".help dot").contains(".save-as PATH|URL [sqlite|coredata|xml]"))
    }

    @Test func saveAsXMLWithCoreDataWritesApplesXMLStoreFormat() throws {
        let (directory, session) = try Self.peopleSession()
        defer { try? FileManager.default.removeItem(at: directory) }
        let query = "Person where department.name == \"Eng\""
        let before = Self.run(session, query)
        #expect(Self.run(session, ".save-as apple.xml coredata").contains("saved as apple.xml (xml, Apple's XML store format)"))
        let text = try String(contentsOf: directory.appendingPathComponent("apple.xml"), encoding: .utf8)
        #expect(text.contains("<database>") && text.contains("<object type=\"PERSON\" id=\"z"))
        #expect(Self.run(session, query) == before)
        _ = Self.run(session, "insert Person { name: \"Bob\", department: first Department }\nsave")
        #expect(try String(contentsOf: directory.appendingPathComponent("apple.xml"), encoding: .utf8).contains(">Bob<"))
        // With no kind, a copy keeps the layout: Apple's format again.
        #expect(Self.run(session, ".save-as again.xml").contains("saved as again.xml (xml, Apple's XML store format)"))
        // mrq's own XML store format when asked for.
        #expect(Self.run(session, ".save-as mine.xml xml").contains("saved as mine.xml (xml)"))
        #expect(try String(contentsOf: directory.appendingPathComponent("mine.xml"), encoding: .utf8).contains("<mrq-store "))
        // Apple's format keeps no model: opening it without one says so.
        #expect(throws: (any Error).self) {
            _ = try ShellSession(modelPath: nil, storePath: directory.appendingPathComponent("apple.xml").path)
        }
        #expect(Self.run(session, ".help dot").contains("for PATH.xml, Apple's XML"))
    }
}
