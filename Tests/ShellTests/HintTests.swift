import Foundation
import Testing
@testable import Shell

/// Habits from SQL and other languages (issue 32, item 11): each error
/// or warning points at the mistake and suggests the fix that keeps the
/// meaning.
@Suite struct HintTests {
    @Test(arguments: [
        (#"count Person where age IN (16, 17)"#, #"""
            error: a collection is written in braces, not parentheses: write {16, 17}
                count Person where age IN (16, 17)
                                          ^
            """#),
        (#"count Person where age BETWEEN 16 AND 18"#, #"""
            error: BETWEEN takes its two bounds in braces, not joined by AND: write age BETWEEN {16, 18}
                count Person where age BETWEEN 16 AND 18
                                               ^~~~~~~~~
            """#),
        (#"count Person where age NOT IN {16, 17}"#, #"""
            error: there is no 'NOT IN' operator: put NOT before the comparison, NOT (age IN {16, 17})
                count Person where age NOT IN {16, 17}
                                       ^~~
            """#),
        (#"count Department where people.count > 150"#, #"""
            error: unknown key 'count' on Person; a collection operator starts with @: write people.@count
                count Department where people.count > 150
                                              ^~~~~
            """#),
        (#"count Person where LastName == 'weber'cd"#, #"""
            error: comparison options go in brackets right after the operator: write LastName ==[cd] 'weber'
                count Person where LastName == 'weber'cd
                                                      ^~
            """#),
        (#"count Person where FirstName == Zoe"#, #"""
            error: unknown key 'Zoe' on Person; to compare with the text, quote the string: 'Zoe'
                count Person where FirstName == Zoe
                                                ^~~
            """#),
        (#"count Person where hiredAt > 2020-01-01"#, #"""
            warning: 2020-01-01 without quotes is arithmetic, 2020 - 1 - 1 = 2018, not a date: for the date write CAST(599529600, "NSDate") or pass a date with %@ (mrq also reads @2020-01-01)
                count Person where hiredAt > 2020-01-01
                                             ^~~~~~~~~~
            """#),
        (#"count Person where FirstName like '%@'"#, #"""
            warning: in quotes, '%@' is the text %@, not a format placeholder, and LIKE uses * and ?, not %: this matches only that text, as FirstName == "%@" does
                count Person where FirstName like '%@'
                                                  ^~~~
            """#),
        (#"count Person where LastName == 'O'Brien'"#, #"""
            error: this quote ends the string 'O' early: escape the quote inside, 'O\'Brien', or write the string in the other quotes, "O'Brien"
                count Person where LastName == 'O'Brien'
                                                 ^
            """#),
        (#"count Person where FirstName BEGINSWITH 'Z' OR 'K'"#, #"""
            error: 'K' alone is not a predicate: each side of OR is a whole comparison; write FirstName BEGINSWITH 'Z' OR FirstName BEGINSWITH 'K'
                count Person where FirstName BEGINSWITH 'Z' OR 'K'
                                                               ^~~
            """#),
    ])
    func eachHintPointsAtTheMistake(statement: String, expected: String) throws {
        let shell = try ShellHarness()
        let result = shell.run(statement)
        #expect(result.errors == expected + "\n", "\(result.errors)")
        // A warning runs the statement; an error does not.
        #expect(result.ok == expected.hasPrefix("warning:"))
    }

    /// The fixes the hints write run, and give Apple's answers.
    @Test func theSuggestedFixesRun() throws {
        let shell = try ShellHarness()
        #expect(shell.run("""
            insert Department { name: "Sales" }
            insert Person { FirstName: "Zoe", LastName: "O'Brien", age: 16, personID: 1, hiredAt: @2021-03-01, department: first Department }
            insert Person { FirstName: "Kai", LastName: "Weber", age: 17, personID: 2, hiredAt: @2019-01-01, department: first Department }
            insert Person { FirstName: "%@", age: 40, personID: 3, hiredAt: @2019-01-01 }
            save
            """).ok)
        for (fix, count) in [("count Person where age IN {16, 17}", 2), ("count Person where age BETWEEN {16, 18}", 2),
                             ("count Person where NOT (age IN {16, 17})", 1), ("count Department where people.@count > 1", 1),
                             ("count Person where LastName ==[cd] 'weber'", 1), ("count Person where FirstName == 'Zoe'", 1),
                             ("count Person where FirstName == \"%@\"", 1), ("count Person where FirstName like '%@'", 1),
                             (#"count Person where LastName == 'O\'Brien'"#, 1), (#"count Person where LastName == "O'Brien""#, 1),
                             ("count Person where FirstName BEGINSWITH 'Z' OR FirstName BEGINSWITH 'K'", 2)] {
            let result = shell.run(fix)
            #expect(result.ok, "\(fix): \(result.errors)")
            #expect(result.text.contains("│     \(count) │"), "\(fix): \(result.text)")
        }
    }
}
