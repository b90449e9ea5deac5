import Foundation
import Testing
@testable import Shell

@Suite struct CompletionTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    private func session() throws -> ShellSession {
        let session = try ShellSession(modelPath: Self.samples.appendingPathComponent("People.xcdatamodeld").path, storePath: ":memory:")
        session.baseDirectory = Self.samples
        return session
    }

    private func complete(_ session: ShellSession, _ line: String) -> [String] {
        session.completions(in: line, cursor: line.utf8.count)
    }

    @Test func entityNamesAndStatementWordsStartAStatement() throws {
        let s = try session()
        #expect(complete(s, "Pe") == ["Person"])
        #expect(complete(s, "co") == ["count"])
        #expect(complete(s, "") .contains("Department"))
    }

    @Test func entityNamesAfterWordsThatTakeOne() throws {
        let s = try session()
        #expect(complete(s, "count Pers") == ["Person"])
        #expect(complete(s, "sum salary of Dep") == ["Department"])
        #expect(complete(s, "insert D") == ["Department"])
    }

    @Test func attributesAndKeyPathsAfterWhereAndSort() throws {
        let s = try session()
        #expect(complete(s, "Person where ag") == ["age"])
        #expect(complete(s, "count Person where ag") == ["age"])
        #expect(complete(s, "Person where department.na") == ["department.name"])
        #expect(complete(s, "Person sort Last") == ["LastName"])
        #expect(complete(s, "Department where people.@c") == ["people.@count"])
        #expect(complete(s, "Person where age > 3 AN") == ["AND", "ANY"])
    }

    @Test func dotCommandsAndFileNames() throws {
        let s = try session()
        #expect(Set(complete(s, ".mo")) == [".mode", ".model"])
        #expect(complete(s, ".read peo") == ["people-load.mrq", "people.mrq", "people.out", "people-load.out", "people.json"].sorted())
        #expect(complete(s, "import Person from \"mai") == ["mail.json", "mail.mrq", "mail.out"])
    }
}
