import Foundation
import ObjectStore
import Testing
@testable import Shell

/// `explain` takes every statement the grammar allows, says what it does
/// and shows the SQL that runs (the very text the fetch executes), and
/// changes nothing: not the store file, not the pending changes, not the
/// variables, not the model, not the undo stack.
@Suite struct ExplainTests {
    /// A People store in a file, saved, with pending changes on top and
    /// variables bound.
    private func shell() throws -> ShellHarness {
        let shell = try ShellHarness(store: "people.sqlite")
        #expect(shell.run("""
            insert Department { name: "Sales" }
            insert Person { personID: 1, FirstName: "Ada", age: 30, department: first Department }
            insert Person { personID: 2, FirstName: "Bob", age: 70 }
            save
            insert Person { personID: 3, FirstName: "Cy", age: 5 }
            let d = first Department
            let n = 3
            """).ok)
        return shell
    }

    /// What explain must leave alone.
    private struct State: Equatable {
        let store: Data
        let wal: Data?
        let pending: PendingChanges
        let variables: [String]
        let entities: [String]
        let canUndo: Bool

        init(_ shell: ShellHarness) throws {
            store = try Data(contentsOf: URL(fileURLWithPath: shell.path("people.sqlite")))
            wal = try? Data(contentsOf: URL(fileURLWithPath: shell.path("people.sqlite-wal")))
            pending = shell.session.pendingChanges
            variables = shell.session.variables.map { "\($0.key)=\(shell.session.describe($0.value))" }.sorted()
            entities = shell.session.model.entities.map(\.name).sorted()
            canUndo = shell.session.undoManager.canUndo
        }
    }

    /// One valid statement of every kind: each explains, and says what it
    /// does; those that read or write the store show their SQL.
    @Test(arguments: [
        ("Person where age > 18 sort FirstName limit 2", "SELECT t.\"_pk\""),
        ("first Person where department == $d", "in memory:\n  unsaved changes merged"),
        // Counted in SQL with the unsaved changes merged: a second COUNT
        // finds the changed saved objects among the matches.
        ("count Person where age > $n", "AND t.\"_pk\" IN (SELECT value FROM json_each(?2))"),
        ("select FirstName, department.name, age * 2 from Person", "SELECT"),
        ("select name, people.@count, people.@avg.age from Department", "SELECT"),
        ("sum age of Person group by department.name sort sum:NO limit 3", "SELECT"),
        ("count of Person", "SELECT"),
        (#"insert Person { personID: 9, FirstName: "Di", department: first Department where name == "Sales" }"#, "INSERT INTO"),
        ("update Person where age > 60 set age = age + 1", "UPDATE \"Person\" SET \"age\" = ?, \"_opt\" = ? WHERE \"_pk\" = ?"),
        ("delete Person where age > 60", "DELETE FROM \"Person\" WHERE \"_pk\" = ?"),
        ("update Person where age > 60 set age = age + 1 direct", "UPDATE \"Person\" AS t SET"),
        ("delete Person where age > 60 direct", "DELETE FROM \"Person\" WHERE \"_pk\" IN (?, …)"),
        ("truncate Person", "DELETE FROM \"Person\""),
        (#"import Person from "people.json""#, "INSERT INTO"),
        ("save", "INSERT INTO"),
        ("rollback", "discards"),
        ("undo", "undoes"),
        ("redo", "nothing"),
        ("let x = Person where age > 1", "SELECT"),
        ("explain count Person", "counts the matching Person objects"),
        ("1 + 2", "no SQL"),
        ("$d", "no SQL"),
        ("fetch", "templates"),
        ("fetch PeopleOlderThan with minAge = 60", "SELECT"),
    ])
    func everyStatementKindExplainsAndChangesNothing(statement: String, shows: String) throws {
        let shell = try shell()
        try Data(#"[{"id": 5, "first_name": "Eve"}]"#.utf8).write(to: URL(fileURLWithPath: shell.path("people.json")))
        let before = try State(shell)
        let result = shell.run("explain " + statement)
        #expect(result.ok, "explain \(statement): \(result.errors)")
        #expect(result.text.hasPrefix("does:\n"), "\(result.text)")
        #expect(result.text.contains(shows), "explain \(statement):\n\(result.text)")
        #expect(try State(shell) == before, "explain \(statement) changed something")
    }

    /// An entity declaration explains its migration, without making it
    /// (no unsaved changes allowed, as for the statement itself).
    @Test func anEntityDeclarationExplainsItsMigration() throws {
        let shell = try shell()
        #expect(shell.run("rollback").ok)
        let before = try State(shell)
        let result = shell.run("explain entity Project { title: String; lead: Person inverse projects }")
        #expect(result.ok, "\(result.errors)")
        #expect(result.text.contains("creates entity Project"), "\(result.text)")
        #expect(result.text.contains("migrates the store: "), "\(result.text)")
        #expect(try State(shell) == before)
    }

    /// The random statements of every kind the fuzz test uses, each behind
    /// `explain`: whatever they are, nothing changes.
    @Test(arguments: [UInt64(3), 5, 8])
    func randomStatementsBehindExplainChangeNothing(seed: UInt64) throws {
        let shell = try shell()
        var generator = StatementGenerator(seed: seed, model: shell.session.model, directory: shell.directory.path)
        try generator.writeFiles()
        var kinds: Set<String> = []
        var explained = 0
        for _ in 0..<250 {
            let statement = generator.statement()
            let before = try State(shell)
            let result = shell.run("explain " + statement)
            if result.ok { explained += 1 }
            kinds.insert(String(statement.prefix { $0 != " " }))
            #expect(try State(shell) == before, "explain \(statement) changed something")
        }
        #expect(explained > 60, "only \(explained) of 250 explained")
        for word in ["first", "count", "select", "insert", "update", "delete", "truncate", "import", "save", "rollback", "let", "explain"] {
            #expect(kinds.contains(word), "no '\(word)' statement was generated")
        }
    }

    /// A query printed from a SQL cursor is explained as that cursor (it
    /// showed the object fetch's SELECT, which never ran); one read as
    /// objects lists its keys, each batch and each prefetch.
    @Test func aQueryIsExplainedAsItIsPrinted() throws {
        let shell = try shell()
        #expect(shell.run("save").ok)
        let cursor = shell.run("explain Person where age > 18 sort LastName")
        #expect(cursor.text.contains("sql:\n" + #"  SELECT t."FirstName", "#), "\(cursor.text)")
        #expect(cursor.text.contains(#"LEFT JOIN "Department" a1"#), "\(cursor.text)")
        #expect(!cursor.text.contains(#"t."_opt""#), "\(cursor.text)")
        let objects = shell.run("explain Department")
        #expect(objects.text.contains("sql (1 of 3, the matching keys):"), "\(objects.text)")
        #expect(objects.text.contains("sql (2 of 3, each batch of objects, by key):"), "\(objects.text)")
        #expect(objects.text.contains("sql (3 of 3, the related objects of each batch, their keys as a JSON list):"), "\(objects.text)")
    }

    /// Explain shows the SQL that runs: a count whose predicate SQL cannot
    /// say reads the rows and counts in memory, and explain says so (it
    /// showed a COUNT(*) before).
    @Test func explainShowsTheStatementThatRuns() throws {
        let shell = try shell()
        #expect(shell.run("save").ok)
        let residual = shell.run("explain count Person where age / personID > 1")
        #expect(residual.text.contains(#"SELECT t."_pk", NULL, t."_opt""#), "\(residual.text)")
        #expect(!residual.text.contains("COUNT(*)"), "\(residual.text)")
        #expect(residual.text.contains("in memory:\n  age / personID > 1"), "\(residual.text)")
        let whole = shell.run("explain count Person where age / 2 > 1")
        #expect(whole.text.contains(#"SELECT COUNT(*) FROM "Person" t WHERE (CASE WHEN typeof(t."age") = 'integer'"#), "\(whole.text)")
        #expect(!whole.text.contains("in memory"), "\(whole.text)")
        #expect(shell.run("insert Person { personID: 4 }").ok)
        let pending = shell.run("explain count Person where age > 1")
        #expect(pending.text.contains("in memory:\n  unsaved changes merged"), "\(pending.text)")
    }

    /// A limited query whose predicate SQL says only in part reads the
    /// sorted rows in pages until enough match, and explain says so (it
    /// said only that the limit applied in memory, as if every row were
    /// read).
    @Test func aLimitedQueryWithAResidualSaysItReadsInPages() throws {
        let shell = try shell()
        #expect(shell.run("save").ok)
        let paged = shell.run("explain Person where age / personID > 1 sort age limit 2 offset 1")
        #expect(paged.text.contains("read in pages of the sorted rows (the first 16 rows, then each page twice the last) until 3 match"),
                "\(paged.text)")
        // Cy (5), Ada (30), Bob (70): the window is Ada and Bob.
        let window = shell.run("Person where age / personID > 1 sort age limit 2 offset 1")
        #expect(window.ok && window.text.contains("Ada") && window.text.contains("Bob") && !window.text.contains("Cy"), "\(window.text)")
        for unpaged in ["explain Person where age / personID > 1 sort age", "explain Person where age > 1 sort age limit 2"] {
            #expect(!shell.run(unpaged).text.contains("read in pages"), "\(unpaged)")
        }
    }
}
