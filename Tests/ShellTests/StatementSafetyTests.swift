import Foundation
import Testing
@testable import Shell

/// What a user types never reaches a trap: each of these ended mrq (or
/// corrupted a store) before, and is now a result or a clean error with
/// its place.
@Suite struct StatementSafetyTests {
    private func shell() throws -> ShellHarness {
        let shell = try ShellHarness()
        #expect(shell.run("""
            insert Department { name: "Eng" }
            insert Person { FirstName: "Ada", age: 17, personID: 1, department: first Department }
            insert Person { FirstName: "Bob", age: 40, personID: 2 }
            save
            """).ok)
        return shell
    }

    /// Was accepted: a Person stored as someone's department.
    @Test func aRelationshipTakesOnlyItsDestinationEntity() throws {
        let shell = try shell()
        let result = shell.run("insert Person { personID: 3, department: first Person }")
        #expect(!result.ok)
        #expect(result.errors == """
            error: 'department' takes Department objects, not Person
                insert Person { personID: 3, department: first Person }
                                                               ^~~~~~

            """)
        #expect(shell.run("let p = Person\nupdate Department set people = $p").ok)
        let wrong = shell.run("let d = Department\nupdate Department set people = $d")
        #expect(wrong.errors.contains("error: 'people' takes Person objects, not Department"))
        #expect(shell.count("Person") == 2)
    }

    /// Were traps: a precondition in setToOne, an index out of range in
    /// rendering a fault whose row is gone.
    @Test(arguments: [
        ("insert Department { name: \"X\" }\nlet d = first Department where name == \"X\"\nrollback", "insert Person { personID: 9, department: $d }"),
        ("insert Department { name: \"X\" }\nlet d = first Department where name == \"X\"\nundo", "insert Person { personID: 9, department: $d }"),
        ("insert Department { name: \"X\" }\nlet d = first Department where name == \"X\"\nundo", "$d"),
        ("let d = Person where personID == 2\ndelete Person where personID == 2 direct", "$d"),
        ("let d = Person where personID == 2\ndelete Person where personID == 2", "insert Department { name: \"Y\", people: $d }"),
    ])
    func variablesHoldingObjectsThatAreGoneAreErrors(setup: String, use: String) throws {
        let shell = try shell()
        #expect(shell.run(setup).ok)
        let pending = shell.session.pendingChanges
        let result = shell.run(use)
        #expect(!result.ok)
        #expect(result.errors.hasPrefix("error: $d holds a "), "\(result.errors)")
        #expect(result.errors.contains("that is no longer in the store or was deleted"))
        #expect(shell.session.pendingChanges == pending)
        #expect(shell.run("count Person").ok)
    }

    @Test func aDeletedObjectInAVariableCanStillBeShown() throws {
        let shell = try shell()
        #expect(shell.run("let p = Person where personID == 2\ndelete Person where personID == 2").ok)
        #expect(shell.run("$p").text.contains("Bob"))
    }

    /// Was a trap: a Dictionary literal with the key "count" twice.
    @Test func countOfGroupedByARelationshipWithHaving() throws {
        let shell = try shell()
        let result = shell.run("count of Person group by department having count > 0")
        #expect(result.ok)
        #expect(result.text.contains("│ Eng        │     1 │"), "\(result.text)")
    }

    /// A statement that fails half-way leaves nothing behind.
    @Test func aFailedUpdateChangesNothing() throws {
        let shell = try shell()
        let result = shell.run("update Person set age = age * 1000")
        #expect(!result.ok)
        #expect(result.errors.hasPrefix("error: cannot store 40000 in Integer 16 attribute 'age'"))
        #expect(shell.session.pendingChanges.isEmpty)
        #expect(shell.run("count Person where age == 17000").text.contains("│     0 │"))
        // And `redo` does not bring the half back.
        #expect(shell.run("redo").text == "nothing to redo\n")
    }

    @Test func aFailedImportChangesNothing() throws {
        let shell = try shell()
        try shell.write("half.json", Data(#"[{"id": 7, "first_name": "Cy"}, {"id": 8, "age": 99999}]"#.utf8))
        let result = shell.run("import Person from \"half.json\"")
        #expect(!result.ok)
        #expect(shell.session.pendingChanges.isEmpty)
        #expect(shell.count("Person") == 2)
    }

    /// Was a segfault: a script that reads itself recursed until the stack
    /// ran out.
    @Test func aScriptThatReadsItselfStops() throws {
        let shell = try shell()
        try shell.write("self.mrq", Data(".read self.mrq\n".utf8))
        let result = shell.run(".read self.mrq")
        #expect(!result.ok)
        #expect(result.errors.contains("cannot read 'self.mrq': 32 scripts are already being read inside each other (does one read itself?)"))
        #expect(shell.session.readDepth == 0)
    }

    /// Was an index out of range: a department inserted and deleted
    /// before any save stayed the department of its people (rule Deny).
    @Test(arguments: ["Person", "select personID, department.name from Person", "count Person where department.name == \"X\""])
    func anInsertDeletedBeforeSavingLeavesNoDanglingReference(query: String) throws {
        let shell = try ShellHarness()
        #expect(shell.run("insert Person { personID: 5 }\ninsert Department { name: \"X\", people: first Person }\ntruncate Department").ok)
        let result = shell.run(query)
        #expect(result.ok, "\(result.errors)")
        #expect(!result.text.contains("X"))
    }

    /// Odd values: each a result or an error that says why.
    @Test(arguments: [
        ("9223372036854775807 + 1", "9.223372036854776e+18\n"),
        ("(-9223372036854775807 - 1) / -1", "9.223372036854776e+18\n"),
        ("{1, 2, 3}[9223372036854775807]", "NULL\n"),
        ("CAST(1e300, \"NSDate\")", "invalid date\n"),
        ("Person limit 2147483647 offset 2147483647", "(0 rows)\n"),
        ("5 / 0", "error: division by zero"),
        ("Person limit 99999999999", "error: expected a whole number after 'limit'"),
        ("insert Person { age: 100000 }", "error: cannot store 100000 in Integer 16 attribute 'age'"),
        ("insert Nobody { }", "error: unknown entity 'Nobody'"),
        ("update Person set nokey = 1", "error: unknown key 'nokey' on Person"),
        ("Person where department.nokey == 1", "error: unknown key 'nokey' on Department"),
        ("insert Person { department: 5 }", "error: 'department' is a relationship"),
    ])
    func oddValuesAreResultsOrErrors(statement: String, expected: String) throws {
        let shell = try shell()
        let result = shell.run(statement)
        if expected.hasPrefix("error: ") {
            #expect(!result.ok)
            #expect(result.errors.hasPrefix(expected), "\(result.errors)")
        } else {
            #expect(result.ok, "\(result.errors)")
            #expect(result.text.hasSuffix(expected), "\(result.text)")
        }
        #expect(shell.count("Person") == 2)
    }

    /// Was a precondition failure ("the object belongs to another
    /// context"): undoing a delete after the save that wrote it brought
    /// back objects the store no longer had. Undo now stops at a save.
    @Test func undoStopsAtTheLastSave() throws {
        let shell = try shell()
        #expect(shell.run("truncate Person\nsave").ok)
        #expect(shell.run("undo").text == "nothing to undo\n")
        let result = shell.run("delete Department where name == \"Eng\"")
        #expect(result.ok, "\(result.errors)")
        #expect(shell.run("save").ok)
        #expect(shell.count("Department") == 0)
        // Changes since the save still undo.
        #expect(shell.run("insert Department { name: \"Ops\" }\nundo").text == "inserted 1 Department\nundone\n")
        #expect(shell.count("Department") == 0)
    }

    /// SQLite's SUM failed with 'integer overflow' where a sum in memory
    /// (with unsaved changes) gave a double: now both give the double.
    @Test func aSumPastInt64IsADoubleInSQLAsInMemory() throws {
        let shell = try ShellHarness()
        #expect(shell.run("insert Person { personID: 9223372036854775807 }\ninsert Person { personID: 9223372036854775806 }").ok)
        let inMemory = shell.run("sum personID of Person")
        #expect(shell.run("save").ok)
        let inSQL = shell.run("sum personID of Person")
        #expect(inSQL.ok, "\(inSQL.errors)")
        #expect(inSQL.text == inMemory.text)
        #expect(inSQL.text.contains("1.8446744073709552e+19"))
    }
}
