import Foundation
import Testing
@testable import Shell

/// The shell tells Apple's NSPredicate from mrq's additions: strict mode
/// refuses them, explain names them with Apple's spelling, says what Core
/// Data's SQLite store refuses, and never approves what running refuses.
@Suite struct AppleTeachingShellTests {
    private func shell() throws -> ShellHarness {
        let shell = try ShellHarness()
        #expect(shell.run("""
            insert Department { name: "Sales" }
            insert Person { FirstName: "Zoe", LastName: "Zhang", age: 30, personID: 1, hiredAt: @2021-03-01, department: first Department }
            insert Person { FirstName: "Ada", age: 17, personID: 2, hiredAt: @2019-01-01 }
            save
            """).ok)
        return shell
    }

    /// A learner's session with `.strict on`: each addition is refused
    /// with Apple's form, and Apple's form runs.
    @Test(arguments: [
        ("count Person where hiredAt > @2020-01-01",
         #"error: '@2020-01-01' is mrq's date literal; in Apple's NSPredicate write CAST(599529600, "NSDate") or pass a date with %@"#,
         #"count Person where hiredAt > CAST(599529600, "NSDate")"#),
        ("count Person where upper(FirstName) == 'ZOE'",
         "error: 'upper(FirstName)' calls a function by mrq's readable name; in Apple's NSPredicate write uppercase:(FirstName)",
         "count Person where uppercase:(FirstName) == 'ZOE'"),
        ("count Department where people.age > 20",
         "error: 'people.age' goes through a to-many relationship without ANY, which mrq adds for you; "
            + "in Apple's NSPredicate write ANY people.age > 20",
         "count Department where ANY people.age > 20"),
        ("count Person where ANY age > 20",
         "error: 'age' is not a collection: Apple's NSPredicate raises for ANY, ALL or NONE on a single value; "
            + "in Apple's NSPredicate write age > 20",
         "count Person where age > 20"),
        ("pow(2, 3)",
         "error: 'pow(2, 3)' calls a function by mrq's readable name; in Apple's NSPredicate write raise:toPower:(2, 3)",
         "raise:toPower:(2, 3)"),
    ])
    func strictModeRefusesEachAdditionWithApplesForm(statement: String, error: String, fix: String) throws {
        let shell = try shell()
        #expect(shell.run(".strict on").ok)
        let refused = shell.run(statement)
        #expect(!refused.ok)
        #expect(refused.errors.hasPrefix(error + "\n"), "\(refused.errors)")
        let fixed = shell.run(fix)
        #expect(fixed.ok, "\(fixed.errors)")
        #expect(shell.run(".strict off").ok)
        #expect(shell.run(statement).ok, "without strict mode the addition runs")
        let setting = shell.run(".strict")
        #expect((setting.text + setting.errors).contains("strict: off"))
    }

    /// explain lists the additions with Apple's spelling; Apple's own
    /// forms get no such section.
    @Test func explainNamesAdditions() throws {
        let shell = try shell()
        let explained = shell.run(#"explain count Department where people.LastName == "Zhang" AND ceil(2.5) == 3"#)
        #expect(explained.ok)
        #expect(explained.text.contains("""
            not in Apple's NSPredicate:
              'people.LastName' goes through a to-many relationship without ANY, which mrq adds for you; in Apple's NSPredicate write ANY people.LastName == "Zhang"
              'ceil(2.5)' calls a function by mrq's readable name; in Apple's NSPredicate write ceiling:(2.5)
            """), "\(explained.text)")
        let apples = shell.run(#"explain count Department where ANY people.LastName == "Zhang" AND ceiling:(2.5) == 3"#)
        #expect(!apples.text.contains("not in Apple's NSPredicate"), "\(apples.text)")
    }

    /// Apple's CAST of seconds to NSDate is shown as written in the
    /// tokens, canonical, predicate and Swift lines.
    @Test func explainShowsCastDatesAsWritten() throws {
        let shell = try shell()
        let explained = shell.run(#"explain Person where hiredAt > CAST(700000000, "NSDate")"#)
        #expect(explained.ok)
        #expect(explained.text.contains(#"'hiredAt' '>' 'CAST' '(' '700000000' ',' string "NSDate" ')'"#), "\(explained.text)")
        #expect(explained.text.contains("canonical:\n  hiredAt > CAST(700000000, \"NSDate\")"), "\(explained.text)")
        #expect(explained.text.contains("predicate: hiredAt > CAST(700000000, \"NSDate\")"))
        #expect(explained.text.contains(#"findAll(where: "hiredAt > CAST(700000000, \"NSDate\")""#))
        // Only the bound value is shown as a date, for reading.
        #expect(explained.text.components(separatedBy: "@2023").count == 2, "\(explained.text)")
    }

    /// explain reports what running reports, at the same place.
    @Test(arguments: ["Person where FirstName like %@", "Person where age BETWEEN 16", "count Person where age BETWEEN {1, 2, 3}",
                      #"Person where FirstName MATCHES "(""#, "count Person where salary / 0 > 1"])
    func explainRefusesWhatRunningRefuses(statement: String) throws {
        let shell = try shell()
        let ran = shell.run(statement)
        let explained = shell.run("explain " + statement)
        #expect(!ran.ok)
        #expect(!explained.ok)
        let ranLines = ran.errors.split(separator: "\n")
        let explainedLines = explained.errors.split(separator: "\n")
        #expect(ranLines.first == explainedLines.first, "\(ran.errors)\n\(explained.errors)")
        // The caret is under the same text, eight columns on.
        #expect(ranLines.count == 3 && explainedLines.count == 3)
        if ranLines.count == 3, explainedLines.count == 3 {
            #expect("        " + ranLines[2] == explainedLines[2], "\(ran.errors)\n\(explained.errors)")
        }
    }

    /// Where Core Data's own SQLite store would refuse the fetch, explain
    /// says so and what mrq does instead.
    @Test func explainSaysWhatCoreDataRefuses() throws {
        let shell = try shell()
        let explained = shell.run(#"explain Person where FirstName MATCHES "Z.*" AND FUNCTION(FirstName, 'uppercaseString') == "ZOE""#)
        #expect(explained.ok)
        #expect(explained.text.contains("""
            core data:
              Core Data's SQLite store cannot fetch with MATCHES (a regular expression works in memory only); mrq evaluates it itself, as the sql and in memory sections show
              Core Data's SQLite store cannot fetch with FUNCTION(…, 'uppercaseString'), a method call SQL cannot run; mrq evaluates it in memory on the rows SQL returns
            """), "\(explained.text)")
        #expect(!shell.run("explain Person where FirstName BEGINSWITH 'Z'").text.contains("core data:"))
    }
}
