import Foundation
import Testing
@testable import Shell

/// Comparisons that cannot match, and statements written as SQL, are
/// errors that say how mrq writes them; a LIKE pattern with % warns and
/// runs.
@Suite struct TeachingErrorTests {
    private func shell() throws -> ShellHarness {
        let shell = try ShellHarness()
        #expect(shell.run("""
            insert Department { name: "Sales" }
            insert Person { FirstName: "Zhang", age: 30, personID: 1, hiredAt: @2021-03-01, department: first Department }
            insert Person { FirstName: "Ada", age: 17, personID: 2, hiredAt: @2019-01-01 }
            save
            """).ok)
        return shell
    }

    @Test(arguments: [
        (#"Person where hiredAt > "2020-01-01""#, #"""
            error: 'hiredAt' holds dates and "2020-01-01" is a string, so this never matches; write hiredAt > CAST(599529600, "NSDate") (or mrq's hiredAt > @2020-01-01)
                Person where hiredAt > "2020-01-01"
                                       ^~~~~~~~~~~~
            """#, "Person where hiredAt > @2020-01-01"),
        (#"count Person where age > "18""#, #"""
            error: 'age' holds numbers and "18" is a string, so this never matches; write age > 18
                count Person where age > "18"
                                         ^~~~
            """#, "count Person where age > 18"),
        (#"select FirstName from Person where department == "Sales""#, #"""
            error: 'department' is a relationship to Department objects and "Sales" is a string, so this never matches; write department.name == "Sales"
                select FirstName from Person where department == "Sales"
                                                                 ^~~~~~~
            """#, #"select FirstName from Person where department.name == "Sales""#),
        ("SELECT * FROM Person WHERE age > 18", """
            error: mrq has no SELECT *: a query starts with the entity; write Person where age > 18
                SELECT * FROM Person WHERE age > 18
                       ^
            """, "Person where age > 18"),
        ("Person where age > 1 ORDER BY age DESC, FirstName", """
            error: mrq sorts with 'sort key' and 'sort key:NO'; write Person where age > 1 sort age:NO, FirstName
                Person where age > 1 ORDER BY age DESC, FirstName
                                     ^~~~~
            """, "Person where age > 1 sort age:NO, FirstName"),
        ("update Person set age = 1 where age > 20", """
            error: in mrq the where comes before set; write update Person where age > 20 set age = 1
                update Person set age = 1 where age > 20
                                          ^~~~~
            """, "update Person where age > 20 set age = 1"),
        ("DELETE FROM Person WHERE age < 18", """
            error: mrq deletes with 'delete Entity where …'; write delete Person where age < 18
                DELETE FROM Person WHERE age < 18
                       ^~~~
            """, "delete Person where age < 18"),
        ("select count(*) from Person where email IS NULL", """
            error: mrq counts with 'count Entity'; write count Person where email == nil
                select count(*) from Person where email IS NULL
                       ^~~~~
            """, "count Person where email == nil"),
        ("Person where email IS NOT NULL LIMIT 10 OFFSET 5", """
            error: SQL's IS NOT NULL is != nil; write Person where email != nil limit 10 offset 5
                Person where email IS NOT NULL LIMIT 10 OFFSET 5
                                   ^~
            """, "Person where email != nil LIMIT 10 OFFSET 5"),
        ("INSERT INTO Person (personID, FirstName) VALUES (3, 'Cy')", """
            error: mrq inserts with 'insert Entity { key: value, … }'; write insert Person { personID: 3, FirstName: 'Cy' }
                INSERT INTO Person (personID, FirstName) VALUES (3, 'Cy')
                       ^~~~
            """, "insert Person { personID: 3, FirstName: 'Cy' }"),
    ])
    func errorsTeachTheFixAndTheFixRuns(statement: String, expected: String, fix: String) throws {
        let shell = try shell()
        let result = shell.run(statement)
        #expect(!result.ok)
        #expect(result.errors == expected + "\n", "\(result.errors)")
        #expect(shell.session.pendingChanges.isEmpty)
        let fixed = shell.run(fix)
        #expect(fixed.ok, "\(fix): \(fixed.errors)")
    }

    /// SQL's `=`, `<>`, `AND`, `LIMIT … OFFSET …` and single quotes are mrq
    /// too.
    @Test func sqlSpellingsThatAreMrqRun() throws {
        let shell = try shell()
        let result = shell.run("count Person where age = 30 AND FirstName <> 'Ada' LIMIT 10 OFFSET 0")
        #expect(result.ok, "\(result.errors)")
        #expect(result.text.contains("│     1 │"), "\(result.text)")
    }

    /// A warning goes to standard error, and the statement runs.
    @Test func aLikePatternWithPercentWarnsAndRuns() throws {
        let shell = try shell()
        let result = shell.run(#"select FirstName from Person where FirstName LIKE "Zh%" OR FirstName LIKE "Zh*""#)
        #expect(result.ok)
        #expect(result.errors == #"""
            warning: LIKE uses * and ?, not % and _: write FirstName LIKE "Zh*" (here % and _ match only themselves)
                select FirstName from Person where FirstName LIKE "Zh%" OR FirstName LIKE "Zh*"
                                                                  ^~~~~

            """#, "\(result.errors)")
        #expect(result.text.contains("Zhang"))
    }

    /// UUID and URI attributes compare with their strings, in the shell
    /// too, and explain shows the SQL that runs.
    @Test func uuidsAndURIsCompareWithTheirStrings() throws {
        let shell = try ShellHarness(model: nil)
        #expect(shell.run("""
            entity Link { identifier: UUID; url: URI }
            insert Link { identifier: CAST("3F2504E0-4F89-11D3-9A0C-0305E82C3301", "NSUUID"), url: CAST("https://example.com/a", "NSURL") }
            insert Link { identifier: CAST("00000000-0000-0000-0000-000000000001", "NSUUID"), url: CAST("file:///tmp/x", "NSURL") }
            save
            """).ok)
        for statement in [#"count Link where identifier == "3f2504e0-4f89-11d3-9a0c-0305e82c3301""#,
                          #"count Link where url BEGINSWITH "https""#] {
            let result = shell.run(statement)
            #expect(result.text.contains("│     1 │"), "\(statement): \(result.text)\(result.errors)")
            let explained = shell.run("explain " + statement)
            #expect(explained.text.contains(#"SELECT COUNT(*) FROM "Link" t WHERE "#), "\(explained.text)")
            #expect(!explained.text.contains("in memory"), "\(explained.text)")
        }
        let wrong = shell.run(#"count Link where identifier == "3F2504E0""#)
        #expect(wrong.errors.hasPrefix(#"error: 'identifier' holds UUIDs and "3F2504E0" is a string, so this never matches; write a UUID such as"#))
    }
}
