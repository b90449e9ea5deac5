import Foundation
import ObjectStore
import Testing
@testable import Shell

/// `.import FILE.csv Entity`: the header maps to attributes, fields to
/// their types, errors name the line and column, and the whole import is
/// one undo step.
@Suite struct CSVImportCommandTests {
    @Test func fieldsBecomeValuesOfTheirTypes() throws {
        let shell = try ShellHarness(model: nil)
        #expect(shell.run("""
            entity Thing { name: String; n: Int16; big: Int64; x: Double; d: Decimal; ok: Bool; at: Date; id: UUID; link: URI; blob: Data }
            """).ok)
        let lines = [
            "NAME,n,big,x,d,ok,at,id,link,blob",
            #""Ada, ""the first""",1,9000000000,2.5,12.25,yes,2024-01-31,E621E1F8-C36C-495A-93FC-0C247A3E6E5F,https://example.com/a,x'01ab'"#,
            ",-3,,1e3,,0,2024-01-31 10:00:00.250,,,AAE=",
            "\"two\nlines\",,,inf,,FALSE,2024-01-31T10:00:00+02:00,,,",
        ]
        try shell.write("things.csv", Data((lines.joined(separator: "\r\n") + "\r\n\n").utf8))
        let result = shell.run(".import things.csv Thing")
        #expect(result.ok, "\(result.errors)")
        #expect(result.text.contains("imported 3 Thing objects"))
        let things = try shell.session.context.fetch(FetchRequest(entityName: "Thing"))
        let byN = Dictionary(uniqueKeysWithValues: things.map { ($0["x"], $0) })
        let ada = try #require(byN[.double(2.5)])
        #expect(ada["name"] == .string(#"Ada, "the first""#))
        #expect(ada["n"] == .int(1) && ada["big"] == .int(9_000_000_000))
        #expect(ada["d"] == .decimal(Decimal(string: "12.25")!))
        #expect(ada["ok"] == .bool(true))
        #expect(ada["at"] == .date(Date(timeIntervalSince1970: 1_706_659_200)))
        #expect(ada["id"] == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(ada["link"] == .url(URL(string: "https://example.com/a")!))
        #expect(ada["blob"] == .data(Data([0x01, 0xAB])))
        let second = try #require(byN[.double(1000)])
        #expect(second["name"] == .null && second["big"] == .null && second["n"] == .int(-3))
        #expect(second["at"] == .date(Date(timeIntervalSince1970: 1_706_695_200.25)))
        #expect(second["blob"] == .data(Data([0, 1])))
        let third = try #require(byN[.double(.infinity)])
        #expect(third["name"] == .string("two\nlines"))
        #expect(third["ok"] == .bool(false))
        #expect(third["at"] == .date(Date(timeIntervalSince1970: 1_706_688_000)))
    }

    @Test(arguments: [
        ("FirstName,age\nAda,old\n", "bad.csv:2: column age: expected an integer, found 'old'"),
        ("FirstName,age\nAda,99999\n", "bad.csv:2: column age: 99999 is out of range for Integer 16"),
        ("FirstName,active\nAda,maybe\n", "bad.csv:2: column active: expected true, false, yes, no, 1 or 0, found 'maybe'"),
        ("FirstName,hiredAt\nAda,31/01/2024\n", "bad.csv:2: column hiredAt: expected a date ('yyyy-MM-dd' or ISO 8601"),
        ("FirstNme,age\n", "bad.csv:1: column FirstNme: Person has no attribute or to-one relationship 'FirstNme'; did you mean 'FirstName'?"),
        ("FirstName,bogus,age\n", "column bogus: Person has no attribute or to-one relationship 'bogus'"),
        ("FirstName,age\nAda\n", "bad.csv:2: 1 field, but the header names 2 columns"),
        ("FirstName,age\n\"Ada,1\n", "bad.csv:2: the quoted field that starts here has no closing quote"),
        ("FirstName,age\n\"Ada\"x,1\n", "bad.csv:2: text after a closing quote"),
        ("FirstName,department\nAda,Nowhere\n", "bad.csv:2: column department: no Department has name 'Nowhere'"),
        ("FirstName,firstname\n", "column firstname: FirstName has a column already"),
    ])
    func errorsSayWhereAndWhy(csv: String, message: String) throws {
        let shell = try ShellHarness()
        try shell.write("bad.csv", Data(csv.utf8))
        let result = shell.run(".import bad.csv Person")
        #expect(!result.ok)
        #expect(result.errors.contains(message), "\(result.errors)")
        #expect(shell.count("Person") == 0)
    }

    /// What `.mode csv` prints reads back: a to-one column names its
    /// destination by its key, as it is shown.
    @Test func csvOutputReadsBack() throws {
        let shell = try ShellHarness()
        #expect(shell.run(#"import Person from "\#(ShellHarness.samples.path)/people.json""#).ok)
        #expect(shell.run("save").ok)
        #expect(shell.run(".mode csv").ok)
        let before = shell.run("Person sort personID").text
        #expect(shell.run(".output people.csv\nPerson sort personID\n.output").ok)
        #expect(shell.run("delete Person").ok)
        #expect(shell.run("save").ok)
        let imported = shell.run(".import people.csv Person")
        #expect(imported.ok, "\(imported.errors)")
        #expect(shell.run("Person sort personID").text == before)
    }

    @Test func anImportIsOneUndoStepAndAFailureLeavesNothing() throws {
        let shell = try ShellHarness()
        let rows = (1...2500).map { "P\($0),\($0 % 90),\($0)" }
        try shell.write("people.csv", Data(("FirstName,age,personID\n" + rows.joined(separator: "\n") + "\n").utf8))
        try shell.write("late.csv", Data(("FirstName,age,personID\n" + rows.joined(separator: "\n") + "\nLast,x,1\n").utf8))
        let late = shell.run(".import late.csv Person")
        #expect(!late.ok)
        #expect(late.errors.contains("late.csv:2502: column age"))
        #expect(shell.count("Person") == 0)
        #expect(shell.run("undo").text.contains("nothing to undo"))
        #expect(shell.run(".import people.csv Person").text.contains("imported 2500 Person objects"))
        #expect(shell.run("undo").text.contains("undone"))
        #expect(shell.count("Person") == 0)
        #expect(shell.run("redo").text.contains("redone"))
        #expect(shell.count("Person") == 2500)
    }

    @Test func ctrlCStopsACSVImport() throws {
        let shell = try ShellHarness()
        let rows = (1...5000).map { "P\($0),\($0)" }
        try shell.write("people.csv", Data(("FirstName,personID\n" + rows.joined(separator: "\n")).utf8))
        var checks = 0
        shell.session.checkInterrupt = {
            checks += 1
            if checks > 1 { throw StoreError(.interrupted, "interrupted") }
        }
        let stopped = shell.run(".import people.csv Person")
        shell.session.checkInterrupt = {}
        #expect(!stopped.ok)
        #expect(stopped.errors.contains("interrupted"))
        #expect(shell.count("Person") == 0)
        #expect(shell.run("count Department").ok)
    }

    @Test func usageAndFiles() throws {
        let shell = try ShellHarness()
        #expect(shell.run(".import only.csv").errors.contains("usage: .import FILE Entity"))
        #expect(shell.run(".import missing.csv Person").errors.contains("cannot read 'missing.csv'"))
        try shell.write("p.csv", Data("FirstName\nAda\n".utf8))
        #expect(shell.run(".import p.csv Persn").errors.contains("Person"))
        try shell.write("one.json", Data(#"[{"id": 7, "first_name": "Solo"}]"#.utf8))
        #expect(shell.run(".import one.json Person").text.contains("imported 1 Person"))
    }
}
