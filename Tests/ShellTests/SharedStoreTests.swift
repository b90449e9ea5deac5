import Foundation
import Testing
@testable import Shell

/// Issue 16, item 5: two shells on one store file (each its own
/// coordinator and connection, as two processes) merge like MagicalRecord's
/// contexts (mergeByPropertyObjectTrump): different attributes of the same
/// rows both land; a real conflict names a few objects and the count.
@Suite struct SharedStoreTests {
    static func run(_ session: ShellSession, _ text: String) -> (out: String, ok: Bool) {
        let capture = TranscriptTests.Capture()
        let ok = session.run(text, fileName: nil, output: capture)
        return (capture.text, ok)
    }

    static func store() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("people.sqlite").path
        var opening = StoreOpening.Options()
        opening.createsEmptyStore = true
        let setup = try ShellSession(modelPath: nil, storePath: path, opening: opening)
        let made = run(setup, """
            entity Person { personID: Int64 unique; name: String; age: Int16 = 0 }
            insert Person { personID: 1, name: "Ada", age: 36 }
            insert Person { personID: 2, name: "Bob", age: 17 }
            save
            """)
        #expect(made.ok, "\(made.out)")
        return (directory, path)
    }

    @Test func twoShellsChangingDifferentAttributesOfTheSameRowsBothSave() throws {
        let (directory, path) = try Self.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ShellSession(modelPath: nil, storePath: path)
        let second = try ShellSession(modelPath: nil, storePath: path)
        #expect(Self.run(first, "update Person set name = \"Zed\"").ok)
        #expect(Self.run(second, "update Person set age = age + 1").ok)
        #expect(Self.run(first, "save").ok)
        let saved = Self.run(second, "save")
        #expect(saved.ok, "\(saved.out)")
        let third = try ShellSession(modelPath: nil, storePath: path)
        let rows = Self.run(third, "select name, age from Person sort personID").out
        #expect(!rows.contains("Ada") && !rows.contains("Bob") && rows.contains("Zed"), "\(rows)")
        #expect(rows.contains("37") && rows.contains("18"), "\(rows)")
    }

    @Test func aRealConflictNamesAFewObjectsAndTheCount() throws {
        let (directory, path) = try Self.store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let session = try ShellSession(modelPath: nil, storePath: path)
        var inserts = ""
        for id in Array(3...52) + Array(100..<150) { inserts += "insert Person { personID: \(id), name: \"P\(id)\" }\n" }
        #expect(Self.run(session, inserts + "save").ok)
        // Fifty rows moved onto the keys of fifty others: stored rows
        // cannot merge without deleting one.
        #expect(Self.run(session, "update Person where personID >= 100 set personID = personID - 99").ok)
        let refused = Self.run(session, "save")
        #expect(!refused.ok)
        #expect(refused.out.contains("uniqueness constraint conflict: Person.personID = 1"), "\(refused.out)")
        #expect(refused.out.contains("and 47 more"), "\(refused.out)")
        #expect(refused.out.split(separator: "\n").count < 8, "\(refused.out)")
        // Nothing was written, and the session goes on.
        #expect(Self.run(session, "rollback").ok)
        #expect(Self.run(session, "count Person").out.contains("102"))
    }
}
