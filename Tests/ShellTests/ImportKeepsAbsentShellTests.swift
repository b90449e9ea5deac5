import Foundation
import Testing
@testable import Shell

/// Issue 16, item 3, as seen in the shell: importing a person again with
/// only some keys keeps the others, and a new person keeps the model's
/// defaults.
@Suite struct ImportKeepsAbsentShellTests {
    @Test func reimportingWithFewerKeysKeepsTheOthers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"[{"id": 7, "first_name": "Ada", "last_name": "Lovelace", "age": 36, "email": "ada@example.com"}]"#.utf8)
            .write(to: directory.appendingPathComponent("full.json"))
        try Data(#"[{"id": 7, "first_name": "Anne"}, {"id": 8, "first_name": "Alan"}]"#.utf8)
            .write(to: directory.appendingPathComponent("partial.json"))
        let model = TranscriptTests.samples.appendingPathComponent("People.xcdatamodeld").path
        let session = try ShellSession(modelPath: model, storePath: ":memory:")
        session.baseDirectory = URL(fileURLWithPath: directory.path, isDirectory: true)
        let capture = TranscriptTests.Capture()
        let ok = session.run("""
            import Person from "full.json"
            save
            import Person from "partial.json"
            save
            .mode csv
            select FirstName, LastName, age, email, active from Person sort personID
            """, fileName: nil, output: capture)
        #expect(ok, "\(capture.text)")
        #expect(capture.text.contains("Anne,Lovelace,36,ada@example.com,true"), "\(capture.text)")
        #expect(capture.text.contains("Alan,,0,,true"), "\(capture.text)")
    }
}
