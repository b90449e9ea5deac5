import Foundation
import Testing
@testable import Shell

/// Issue 32, items 1, 2 and 6 as a learner typed them in the shell, on the
/// People sample saved to SQLite (the corpus runs them on every engine).
@Suite struct AppleLanguageShellTests {
    static func people() throws -> ShellHarness {
        let shell = try ShellHarness(store: "people.sqlite")
        let json = ShellHarness.samples.appendingPathComponent("people.json").path
        #expect(shell.run(#"import Person from "\#(json)""#).ok)
        #expect(shell.run("save").ok)
        return shell
    }

    func count(_ shell: ShellHarness, _ statement: String) -> Int? {
        let result = shell.run(statement)
        #expect(result.ok, "\(statement): \(result.errors)")
        return result.text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.last
    }

    /// `let NAME_LIST = {"Zoey", "Kai"}` holds a collection: `IN` is
    /// membership (29 people named Kai), in explain, SQL and memory alike.
    @Test func collectionVariableIsMembership() throws {
        let shell = try Self.people()
        let bound = shell.run(#"let NAME_LIST = {"Zoey", "Kai"}"#)
        #expect(bound.ok && (bound.errors + bound.text).contains(#"NAME_LIST = {"Zoey", "Kai"}"#), "\(bound.errors)\(bound.text)")
        #expect(count(shell, "count Person where FirstName IN $NAME_LIST") == 29)
        #expect(count(shell, #"count Person where FirstName IN {"Zoey", "Kai"}"#) == 29)
        #expect(count(shell, "count Person where 'Zoe' IN $NAME_LIST") == 0)
        #expect(count(shell, "count Person where 'Kai' IN $NAME_LIST") == 1200)
        let explained = shell.run("explain count Person where FirstName IN $NAME_LIST")
        #expect(explained.ok)
        #expect(explained.text.contains(#"FirstName IN {"Zoey", "Kai"}"#), "\(explained.text)")
        #expect(explained.text.contains("IN (?1, ?2)") || explained.text.contains("IN (?, ?)"), "\(explained.text)")
        #expect(!explained.text.contains("instr("), "\(explained.text)")
        // In memory: the same over objects not yet saved.
        #expect(shell.run(#"insert Person { personID: 1, FirstName: "Zoey" }"#).ok)
        #expect(count(shell, "count Person where FirstName IN $NAME_LIST") == 30)
        #expect(shell.run("$NAME_LIST").text.contains("Zoey"))
    }

    /// `@avg` counts a nil salary as 0, as the KVC guide says: 4
    /// departments, not the 5 of an average that skips nils; the same in
    /// SQL and in memory.
    @Test func averageOfSomeNilsCountsThemAsZero() throws {
        let shell = try Self.people()
        #expect(count(shell, "count Department where people.@avg.salary > 78000") == 4)
        // A new department with one person of no salary and one of 100000:
        // @avg is 50000 in memory, as it will be in SQL once saved.
        #expect(shell.run(#"insert Department { name: "Lab" }"#).ok)
        #expect(shell.run(#"insert Person { personID: 1, salary: nil, department: first Department where name == "Lab" }"#).ok)
        #expect(shell.run(#"insert Person { personID: 2, salary: 100000, department: first Department where name == "Lab" }"#).ok)
        #expect(count(shell, #"count Department where name == "Lab" AND people.@avg.salary == 50000"#) == 1)
        #expect(shell.run("save").ok)
        #expect(count(shell, #"count Department where name == "Lab" AND people.@avg.salary == 50000"#) == 1)
    }

    /// UTI-CONFORMS-TO reads a column in SQL as the IN-list of the
    /// identifiers that conform.
    @Test func uniformTypeOperatorsRunInSQL() throws {
        let shell = try Self.people()
        #expect(shell.run(#"update Person where personID == 100001 set email = "public.jpeg""#).ok)
        #expect(shell.run(#"update Person where personID == 100002 set email = "public.plain-text""#).ok)
        #expect(shell.run("save").ok)
        #expect(count(shell, #"count Person where email UTI-CONFORMS-TO "public.image""#) == 1)
        #expect(count(shell, #"count Person where email UTI-CONFORMS-TO "public.data""#) == 2)
        #expect(count(shell, #"count Person where email UTI-EQUALS "public.plain-text""#) == 1)
        let explained = shell.run(#"explain count Person where email UTI-CONFORMS-TO "public.image""#)
        #expect(explained.text.contains(#"email UTI-CONFORMS-TO "public.image""#), "\(explained.text)")
        #expect(explained.text.contains("\"email\" IN ("), "\(explained.text)")
    }

    /// `$x := expr` runs (in memory, as SQL has no assignment).
    @Test func assignmentRuns() throws {
        let shell = try Self.people()
        #expect(count(shell, "count Person where age > ($x := 60) AND age < $x + 5") == count(shell, "count Person where age BETWEEN {61, 64}"))
    }
}
