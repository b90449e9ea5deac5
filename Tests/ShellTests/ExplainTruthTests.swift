import Foundation
import ObjectStore
import PostgresTestServer
import Testing
@testable import Shell

/// `explain` tells the truth: for every statement kind of the statement
/// corpus that reads the store (queries, first, counts, selects,
/// aggregates, updates, deletes, direct batch requests, imports,
/// templates, bindings), the statements `explain` lists are the
/// statements the run executes, in order, as the connection's statement
/// trace sees them — on SQLite in mrq's layout and in Core Data's, and on
/// PostgreSQL.
@Suite struct ExplainTruthTests {
    /// The store every statement runs against: saved people in
    /// departments, with a JSON file to import.
    private static let setup = """
        insert Department { name: "Sales", code: "S" }
        insert Department { name: "Research", code: "R" }
        insert Person { personID: 1, FirstName: "Ada", LastName: "Lovelace", age: 36, salary: 90, department: first Department where name == "Research" }
        insert Person { personID: 2, FirstName: "Bob", LastName: "Byte", age: 70, salary: 40, department: first Department where name == "Sales" }
        insert Person { personID: 3, FirstName: "Cy", LastName: "Clock", age: 17 }
        insert Person { personID: 4, FirstName: "Di", LastName: "Disk", age: 52, salary: 60, department: first Department where name == "Sales" }
        save
        """

    /// Statements of every kind, beside the corpus's own, so that each
    /// kind is checked whatever the corpus holds.
    private static let kinds = [
        "Person where age > 18 sort LastName",
        "Person where age > 18 sort FirstName limit 2",
        "Department",
        "Department where name == \"Sales\"",
        "first Person where department.name == \"Sales\"",
        "count Person where age > 18",
        "count Person where age / personID > 1",
        "select FirstName, department.name, age * 2 from Person",
        "select name, people.@count from Department",
        "sum age of Person group by department.name",
        "count of Person",
        "update Person where age > 60 set age = age + 1",
        "delete Person where age > 60",
        "update Person where age > 60 set age = age + 1 direct",
        "delete Person where age > 60 direct",
        #"import Person from "people.json""#,
        "fetch PeopleOlderThan with minAge = 30",
        "let x = Person where age > 1",
    ]

    /// The corpus's statements that read or change the store, and the
    /// kinds above.
    private static var statements: [String] {
        var seen: Set<String> = []
        let checked = (kinds + StatementCorpus.all).filter { line in
            guard let parsed = try? StatementParser.parse(line), parsed.count == 1, isChecked(parsed[0].statement) else { return false }
            return seen.insert(line.trimmingCharacters(in: .whitespaces)).inserted
        }
        // Bindings last: the objects a variable holds stay loaded, and
        // a later fetch would not read them again.
        return checked.filter { !$0.hasPrefix("let ") } + checked.filter { $0.hasPrefix("let ") }
    }

    private static func isChecked(_ statement: Shell.Statement) -> Bool {
        switch statement {
        case .query, .first, .count, .select, .aggregate, .update, .delete, .directUpdate, .directDelete, .truncate,
             .importJSON, .template:
            return true
        case .letBinding(_, let value):
            return isChecked(value)
        default:
            return false
        }
    }

    /// The SQL of the `sql` sections of an explanation (nested ones too:
    /// the fetches giving an update's values), in order; not what a save
    /// would write. Without `batches`, not those run for each batch.
    static func listedStatements(_ explanation: String, batches: Bool = true) -> [String] {
        var result: [String] = []
        var current: [String]?
        var indent = 0
        func close() {
            if let current { result.append(normalised(current.joined(separator: " "))) }
            current = nil
        }
        for line in explanation.split(separator: "\n", omittingEmptySubsequences: false) {
            let depth = line.prefix { $0 == " " }.count
            let text = line.trimmingCharacters(in: .whitespaces)
            if current != nil, depth > indent {
                current?.append(text)
                continue
            }
            close()
            if text.hasPrefix("sql") && text.hasSuffix(":") && (batches || !text.contains("each batch")) {
                current = []
                indent = depth
            }
        }
        close()
        return result
    }

    /// SQL compared: spaces collapsed; transaction control and pragmas are
    /// not what explain shows.
    /// A list of parameters whose length the data decides (`IN (?,?,?)`)
    /// is compared as explain writes it, `IN (?, …)`.
    static func normalised(_ sql: String) -> String {
        let text = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return text.replacingOccurrences(of: #"IN \((\?\d*, ?)*(\?\d*|…)\)"#, with: "IN (?, …)", options: .regularExpression)
    }

    static func isShown(_ sql: String) -> Bool {
        let word = sql.prefix { $0.isLetter }.uppercased()
        return ["SELECT", "WITH", "INSERT", "UPDATE", "DELETE"].contains(word)
    }

    /// Explains then runs each statement, comparing what explain lists
    /// with what the trace saw; rolls back after each.
    /// The store's connections are watched from before they open (a
    /// connection opened before is not).
    private static func check(_ shell: ShellHarness, seen: Seen, engine: String, statements: [String] = statements,
                              kinds: [String] = ["Person", "Department", "first", "count", "select", "sum", "update", "delete",
                                                 "truncate", "history", "import", "fetch", "let"]) throws {
        var checked: [String: Int] = [:]
        for statement in statements {
            let explained = shell.run("explain " + statement)
            guard explained.ok else { continue }
            _ = seen.take()
            let ran = shell.run(statement)
            let executed = seen.take().map(normalised).filter(isShown)
            #expect(shell.run("rollback").ok)
            guard ran.ok else { continue }
            // Nothing matched: there is no batch, and what explain lists
            // for each batch does not run.
            let none = ran.text.range(of: #"(^|\n)(deleted|updated) 0 "#, options: .regularExpression) != nil
            let listed = listedStatements(explained.text, batches: !none)
            let kind = String(statement.prefix { $0 != " " })
            checked[kind, default: 0] += 1
            #expect(listed == executed, """
                \(engine): explain \(statement) lists
                \(listed.joined(separator: "\n"))
                but the run executed
                \(executed.joined(separator: "\n"))
                """)
        }
        for kind in kinds {
            #expect(checked[kind, default: 0] > 0, "\(engine): no '\(kind)' statement was checked")
        }
    }

    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var statements: [String] = []
        func add(_ sql: String) { lock.withLock { statements.append(sql) } }
        func take() -> [String] { lock.withLock { defer { statements = [] }; return statements } }
    }

    private static func filled(_ shell: ShellHarness) throws {
        #expect(shell.run(setup).ok)
        try shell.write("people.json", Data(#"[{"personID": 5, "FirstName": "Eve", "age": 40}]"#.utf8))
    }

    /// The store made in `layout` (`sqlite`, `coredata`), then opened
    /// watched.
    private static func checkSQLite(layout: String, engine: String) throws {
        let shell = try ShellHarness(store: "made.sqlite")
        try filled(shell)
        #expect(shell.run(".save-as people.sqlite \(layout)").ok)
        let seen = Seen()
        let key = shell.path("people.sqlite")
        StatementObservers.observe(key) { sql in seen.add(sql) }
        defer { StatementObservers.stop(key) }
        let opened = shell.run(".open people.sqlite")
        #expect(opened.ok, "\(opened.errors)")
        #expect(shell.count("Person") == 4)
        try check(shell, seen: seen, engine: engine)
    }

    @Test func sqliteInMrqLayout() throws {
        try Self.checkSQLite(layout: "sqlite", engine: "SQLite")
    }

    @Test func sqliteInCoreDataLayout() throws {
        try Self.checkSQLite(layout: "coredata", engine: "SQLite, Core Data layout")
    }

    @Test func postgres() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase()
        let seen = Seen()
        let key = URLComponents(string: url)?.path.split(separator: "/").last.map(String.init) ?? ""
        StatementObservers.observe(key) { sql in seen.add(sql) }
        defer { StatementObservers.stop(key) }
        let shell = try ShellHarness(store: url)
        try Self.filled(shell)
        try Self.check(shell, seen: seen, engine: "PostgreSQL")
    }
}
