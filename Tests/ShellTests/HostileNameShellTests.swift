import Foundation
import Testing
@testable import ObjectStore
import Predicates
@testable import Shell

/// The shell on names and values chosen by whoever made a store: `.save-as
/// … coredata` and `.dump` write nothing but what they mean, a dump reads
/// back as the same store and runs no dot command, and errors, `.schema`,
/// `.dump` and `.entities` show control characters escaped.
@Suite struct HostileNameShellTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-hostile-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func run(_ session: ShellSession, _ text: String) -> ShellHarness.Output {
        let output = ShellHarness.Output()
        session.run(text, fileName: nil, output: output)
        return output
    }

    static func files(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// A model with names no Core Data model can hold, let through the
    /// check as a hostile model cache would be if it failed.
    static func hostileModel() throws -> ManagedObjectModel {
        let note = EntityDescription(name: "No\"te\n.shell touch pwned\n\u{1B}[2J")
        note.add(AttributeDescription(name: "bo\"dy; ATTACH DATABASE 'pwned_db' AS p; --", type: .string))
        note.add(RelationshipDescription(name: "ta\"gs\" OR 1=1 OR \"", destination: "Tag", inverse: "no'tes", isToMany: true))
        let tag = EntityDescription(name: "Tag")
        tag.add(AttributeDescription(name: "label", type: .string))
        tag.add(RelationshipDescription(name: "no'tes", destination: note.name, inverse: "ta\"gs\" OR 1=1 OR \"", isToMany: true))
        return try ManagedObjectModel(entities: [note, tag], checkingNames: false)
    }

    static func expectPrintable(_ text: String, _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let raw = text.unicodeScalars.filter { TerminalText.isUnsafe($0) && $0 != "\n" }
        #expect(raw.isEmpty, "\(what) shows raw control characters: \(text.debugDescription)", sourceLocation: sourceLocation)
    }

    /// An entity named like a keyword (Core Data allows `Like`) is
    /// counted once escaped, and the refusal of the bare name says how.
    @Test func anEntityNamedLikeAKeywordIsCountedEscapedAndTheErrorSaysHow() throws {
        let like = EntityDescription(name: "Like")
        like.add(AttributeDescription(name: "label", type: .string))
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        try session.replaceModel(with: try ManagedObjectModel(entities: [like]))
        session.context.insertObject(forEntityName: "Like")["label"] = "x"
        try session.context.save()
        let bare = Self.run(session, "count Like")
        #expect(bare.errors.contains(
            "expected an entity name after 'count', found the keyword 'Like': write '#Like' for an entity of that name"), "\(bare.both)")
        let escaped = Self.run(session, "count #Like")
        #expect(escaped.errors.isEmpty && escaped.text.filter(\.isNumber) == "1", "\(escaped.both)")
        let symbol = Self.run(session, "count (")
        #expect(symbol.errors.contains("expected an entity name after 'count'") && !symbol.errors.contains("keyword"), "\(symbol.both)")
    }

    /// `.save-as … coredata` of a model whose names carry `ATTACH` writes
    /// the copy and nothing else; the copy, read back with no model, is
    /// refused naming the entity, and is left as it was.
    @Test func saveAsCoreDataWritesOnlyTheCopyAndTheCopyIsRefused() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        session.baseDirectory = folder
        try session.replaceModel(with: try Self.hostileModel())
        let note = session.model.entities[0]
        let context = session.context
        let object = context.insertObject(forEntityName: note.name)
        object["bo\"dy; ATTACH DATABASE 'pwned_db' AS p; --"] = "hello"
        try context.save()
        let saved = Self.run(session, ".save-as copy.sqlite coredata")
        #expect(saved.text.contains("saved as copy.sqlite"), "\(saved.both)")
        #expect(Self.files(folder).allSatisfy { $0.hasPrefix("copy.sqlite") }, "\(Self.files(folder))")
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/pwned_db"))

        let before = Self.files(folder)
        let error = try #require(throws: (any Error).self) {
            try ShellSession(modelPath: nil, storePath: folder.appendingPathComponent("copy.sqlite").path)
        }
        #expect("\(error)".contains("is not a valid Core Data name"), "\(error)")
        Self.expectPrintable("\(error)", "the error")
        #expect(Self.files(folder) == before)
    }

    /// `.dump` of a model whose names hold line breaks refuses to write a
    /// script (it could not read back as written); `.schema` shows the
    /// names escaped.
    @Test func dumpRefusesNamesThatWouldNotReadBackAndSchemaEscapesThem() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        session.baseDirectory = folder
        try session.replaceModel(with: try Self.hostileModel())
        session.context.insertObject(forEntityName: session.model.entities[0].name)
        try session.context.save()
        let dumped = Self.run(session, ".output dump.mrq\n.dump\n.output")
        #expect(dumped.errors.contains("cannot dump"), "\(dumped.both)")
        Self.expectPrintable(dumped.errors, "the .dump error")
        let written = (try? String(contentsOf: folder.appendingPathComponent("dump.mrq"), encoding: .utf8)) ?? ""
        #expect(!written.contains(".shell"), "\(written)")
        let schema = Self.run(session, ".schema")
        #expect(schema.text.contains("No\"te\\n.shell touch pwned\\n\\u{1b}[2J"), "\(schema.text)")
        Self.expectPrintable(schema.text, ".schema")
        #expect(!schema.text.split(separator: "\n").contains { $0.hasPrefix(".") })
        let entities = Self.run(session, ".entities")
        Self.expectPrintable(entities.text, ".entities")
        #expect(Self.files(folder).allSatisfy { $0 == "dump.mrq" }, "\(Self.files(folder))")
    }

    /// Values holding line breaks, dot commands, quotes and control
    /// characters: the dump reads back into the same store and runs none
    /// of the dot commands.
    @Test func aDumpOfHostileValuesReadsBackAsTheSameStoreAndRunsNothing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hostile = "line\n.output pwned.txt\n.shell touch pwned\n.read /etc/passwd\n\"; DROP TABLE ZNOTE; --\u{1B}[2J\u{07}\u{9B}31m\u{202E}x\r\ty"
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        session.baseDirectory = folder
        _ = Self.run(session, "entity Note { body: String; weight: Double = 0 }")
        let note = session.context.insertObject(forEntityName: "Note")
        note["body"] = .string(hostile)
        note["weight"] = 1.5
        try session.context.save()
        let dumped = Self.run(session, ".output dump.mrq\n.dump\n.output")
        #expect(dumped.errors.isEmpty, "\(dumped.both)")
        let script = try String(contentsOf: folder.appendingPathComponent("dump.mrq"), encoding: .utf8)
        for line in script.split(separator: "\n") {
            #expect(!line.hasPrefix("."), "the dump has a dot command: \(line)")
            Self.expectPrintable(String(line), "the dump")
        }

        let rebuilt = try ShellSession(modelPath: nil, storePath: ":memory:")
        rebuilt.baseDirectory = folder
        let read = Self.run(rebuilt, ".read dump.mrq")
        #expect(!read.both.contains("error"), "\(read.both)")
        let again = try rebuilt.context.fetch(FetchRequest(entityName: "Note"))
        #expect(again.map { $0["body"] } == [.string(hostile)])
        #expect(Self.files(folder) == ["dump.mrq"], "\(Self.files(folder))")
        // Shown in a table, the value is escaped too.
        Self.expectPrintable(Self.run(rebuilt, "Note").text, "a table")
    }

    @Test func checkScriptLinesRefusesWhatWouldNotReadBack() throws {
        try ShellSession.checkScriptLines(["# comment", "insert Note { body: \"a\\nb\" }", "entity A {\n    x: String\n}", "save"])
        for bad in ["insert X { }\n.shell touch pwned", ".shell touch pwned", "# note \u{1B}[2J", "entity A {\n.read x\n}"] {
            #expect(throws: LocatedError.self, "\(bad.debugDescription)") { try ShellSession.checkScriptLines([bad]) }
        }
    }

    /// Errors naming what the user typed or a file holds show its control
    /// characters escaped.
    @Test func errorsEscapeControlCharacters() throws {
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        _ = Self.run(session, "entity Note { body: String }")
        for text in ["count \"No\u{1B}[2Jte\"", "Note where bo\u{9B}dy == 1", ".dump No\u{202E}te", ".read 'x\u{1B}[31m.mrq'"] {
            let output = Self.run(session, text)
            #expect(!output.errors.isEmpty, "\(text.debugDescription) should fail")
            Self.expectPrintable(output.errors.replacingOccurrences(of: text, with: ""), "the error of \(text.debugDescription)")
        }
    }

    /// Status lines can name what a file or a value holds: escaped too.
    @Test func statusLinesEscapeControlCharacters() throws {
        let session = try ShellSession(modelPath: nil, storePath: ":memory:")
        let output = Self.run(session, "let v = \"x\\u001B[2J\\u009B\"")
        #expect(output.both.contains("\\u{1b}[2J\\u{9b}"), "\(output.both.debugDescription)")
        Self.expectPrintable(output.both, "the status line")
    }
}
