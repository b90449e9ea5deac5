import Foundation
import ObjectStore
import Testing
@testable import Shell

/// `import Entity from "file.json"` in the shell: one undo step, stopped
/// by Ctrl-C with nothing left behind, syntax errors with their place.
@Suite struct ImportCommandTests {
    /// `count` people of the People sample, in `departments` departments.
    static func people(_ count: Int, departments: Int = 4, firstID: Int = 1) -> String {
        let rows = (0..<count).map { n in
            #"{"id": \#(firstID + n), "first_name": "F\#(n)", "last_name": "L\#(n % 97)", "age": \#(n % 60 + 18), "#
                + #""hired_at": "2020-01-\#(String(format: "%02d", n % 28 + 1))", "department": {"name": "D\#(n % departments)"}}"#
        }
        return "[\n" + rows.joined(separator: ",\n") + "\n]\n"
    }

    @Test func anImportIsOneUndoStep() throws {
        let shell = try ShellHarness()
        try shell.write("people.json", Data(Self.people(3000).utf8))
        #expect(shell.run(#"insert Person { personID: 1, FirstName: "Kept" }"#).ok)
        let imported = shell.run(#"import Person from "people.json""#)
        #expect(imported.ok, "\(imported.errors)")
        #expect(imported.text.contains("imported 3000 Person objects"))
        // The import met the person inserted before it, by its key.
        #expect(shell.count("Person") == 3000)
        #expect(shell.count("Department") == 4)
        #expect(shell.run("undo").text.contains("undone"))
        #expect(shell.count("Person") == 1)
        #expect(shell.count("Department") == 0)
        #expect(shell.run(#"count Person where FirstName == "Kept""#).text.contains("1"))
        #expect(shell.run("redo").text.contains("redone"))
        #expect(shell.count("Person") == 3000)
        #expect(shell.run(#"count Person where FirstName == "Kept""#).text.contains("0"))
        #expect(shell.run("save").ok)
        #expect(shell.count("Person") == 3000)
        #expect(shell.run("undo").text.contains("nothing to undo"))
    }

    /// Imported again over saved objects, the second import updates them
    /// and adds to saved departments; undoing it puts all of them back.
    @Test func undoingAnImportOverSavedObjectsRestoresThem() throws {
        let shell = try ShellHarness(store: "people.sqlite")
        try shell.write("first.json", Data(Self.people(500).utf8))
        try shell.write("second.json", Data(Self.people(500, firstID: 251).utf8.map { $0 == UInt8(ascii: "F") ? UInt8(ascii: "G") : $0 }))
        #expect(shell.run(#"import Person from "first.json""#).ok)
        #expect(shell.run("save").ok)
        let before = shell.run("Department sort name").text + shell.run(#"count Person where FirstName BEGINSWITH "G""#).text
        #expect(shell.run(#"import Person from "second.json""#).ok)
        #expect(shell.count("Person") == 750)
        #expect(shell.run(#"count Person where FirstName BEGINSWITH "G""#).text.contains("500"))
        #expect(shell.run("undo").ok)
        #expect(shell.count("Person") == 500)
        #expect(shell.run("Department sort name").text + shell.run(#"count Person where FirstName BEGINSWITH "G""#).text == before)
        #expect(!shell.session.context.hasChanges)
    }

    /// Ctrl-C stops an import half-way: nothing of it is left, nothing to
    /// undo or redo, and the next statement runs — also when the file is
    /// large enough (1.4 MB for 12,000 people) that its next rows were
    /// being parsed ahead on another core.
    @Test(arguments: [(people: 5000, stopAfter: 2), (people: 12000, stopAfter: 3)])
    func ctrlCStopsAnImportAndLeavesNothing(people: Int, stopAfter: Int) throws {
        let shell = try ShellHarness()
        try shell.write("people.json", Data(Self.people(people).utf8))
        var checks = 0
        shell.session.checkInterrupt = {
            checks += 1
            if checks > stopAfter { throw StoreError(.interrupted, "interrupted") }
        }
        let stopped = shell.run(#"import Person from "people.json""#)
        #expect(!stopped.ok)
        #expect(stopped.errors.contains("interrupted"))
        shell.session.checkInterrupt = {}
        #expect(checks == stopAfter + 1)
        #expect(shell.count("Person") == 0)
        #expect(shell.count("Department") == 0)
        #expect(!shell.session.context.hasChanges)
        #expect(shell.run("undo").text.contains("nothing to undo"))
        #expect(shell.run("redo").text.contains("nothing to redo"))
        #expect(shell.run(#"import Person from "people.json""#).text.contains("imported \(people) Person objects"))
        #expect(shell.count("Person") == people)
    }

    /// Ctrl-C during a save: the store is as before, the changes still
    /// pending, and saving again works.
    @Test func ctrlCStopsASaveAndKeepsTheChanges() throws {
        let shell = try ShellHarness(store: "people.sqlite")
        try shell.write("people.json", Data(Self.people(2000).utf8))
        #expect(shell.run(#"import Person from "people.json""#).ok)
        shell.session.checkInterrupt = { throw StoreError(.interrupted, "interrupted") }
        let stopped = shell.run("save")
        #expect(!stopped.ok)
        #expect(stopped.errors.contains("interrupted"))
        shell.session.checkInterrupt = {}
        let other = try ShellSession(modelPath: ShellHarness.peopleModel, storePath: shell.path("people.sqlite"))
        #expect(try other.context.count(for: FetchRequest(entityName: "Person")) == 0)
        #expect(shell.session.pendingChanges.total == 2004)
        #expect(shell.run("save").text.contains("saved 2004 changes"))
        #expect(try other.context.count(for: FetchRequest(entityName: "Person")) == 2000)
    }

    /// A syntax error late in the file says where, nothing of the import
    /// is kept, and the next import runs — also in a file large enough
    /// (over 1 MB) to be parsed ahead on another thread while the rows
    /// before it import.
    @Test(arguments: [3000, 12000])
    func aSyntaxErrorLateInTheFileImportsNothing(people: Int) throws {
        let shell = try ShellHarness()
        let good = Self.people(people)
        // The large one is past the read-ahead's 1 MB.
        #expect(people < 10000 || good.utf8.count > 1 << 20)
        var text = good
        text.insert(contentsOf: "}", at: text.index(text.endIndex, offsetBy: -4))
        try shell.write("broken.json", Data(text.utf8))
        try shell.write("people.json", Data(good.utf8))
        let result = shell.run(#"import Person from "broken.json""#)
        #expect(!result.ok)
        #expect(result.errors.contains("broken.json:\(people + 1):"), "\(result.errors)")
        #expect(result.errors.contains("expected ',' or ']' in array"))
        #expect(shell.count("Person") == 0)
        #expect(shell.count("Department") == 0)
        #expect(!shell.session.context.hasChanges)
        #expect(shell.run(#"import Person from "people.json""#).text.contains("imported \(people) Person objects"))
        #expect(shell.count("Person") == people)
    }

    /// A document with one object imports it; an empty array nothing.
    @Test func oneObjectOrNone() throws {
        let shell = try ShellHarness()
        try shell.write("one.json", Data(#" {"id": 7, "first_name": "Solo"} "#.utf8))
        try shell.write("none.json", Data("[ ]".utf8))
        #expect(shell.run(#"import Person from "one.json""#).text.contains("imported 1 Person"))
        #expect(shell.run(#"import Person from "none.json""#).text.contains("imported 0 Person objects"))
        #expect(shell.count("Person") == 1)
    }
}
