import Foundation
@testable import Shell
import PostgresTestServer
import Testing

/// The shell on a PostgreSQL store, through the built `mrq` against the
/// test server: the same answers as on SQLite for every kind of
/// statement, `.save-as` into PostgreSQL and back with every object and
/// relationship, libpq's `PG*` variables, no password on the command
/// line, and one clear line for a server that says no.
@Suite(.serialized, .enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct PostgresShellTests {
    static let samples = MRQBinary.packageRoot.appendingPathComponent("Samples")
    static let people = samples.appendingPathComponent("People.xcdatamodeld").path

    /// A new empty folder, removed by the caller.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "mrq-pgshell-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `KEY=value …` setting libpq's variables to the test server.
    static func environment(_ server: PostgresServer, database: String? = nil) -> String {
        "PGHOST=127.0.0.1 PGPORT=\(server.port) PGUSER=\(server.user)" + (database.map { " PGDATABASE=\($0)" } ?? "")
    }

    /// The People tour (`Samples/people.mrq`) up to its `explain`, then
    /// saved changes of every kind and the dot commands that read.
    static let statements: String = {
        let tour = (try? String(contentsOf: samples.appendingPathComponent("people.mrq"), encoding: .utf8)) ?? ""
        let read = tour.components(separatedBy: "# The teaching view.")[0]
        return read + """
            insert Person { FirstName: "Ada", LastName: "Lovelace", age: 36, personID: 1, department: first Department where name == "Engineering" }
            save
            update Person where LastName ==[c] "weber" set age = age + 1, active = NO
            delete Person where age > 80
            save
            count Person
            avg age of Person where active == NO
            select FirstName, department.name from Person where personID == 1
            Department where ANY people.personID == 1
            .entities
            .schema
            """
    }()

    /// Runs `statements` with the People model on `store` (from the
    /// Samples folder, where the tour's names are); returns the result.
    static func runTour(store: String) throws -> (status: Int32, output: String) {
        let script = try MRQBinary.temporaryFile(statements)
        defer { try? FileManager.default.removeItem(atPath: script) }
        return try MRQBinary.bash("mrq --model People.xcdatamodeld --store '\(store)' -c \"$(cat '\(script)')\"",
                                  in: samples.path)
    }

    @Test func everyStatementAnswersAsOnSQLite() throws {
        let server = try PostgresServer.shared()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sqlite = try Self.runTour(store: folder + "/people.sqlite")
        #expect(sqlite.status == 0, "\(sqlite.output)")
        let postgres = try Self.runTour(store: try server.createDatabase())
        #expect(postgres.status == 0, "\(postgres.output)")
        #expect(postgres.output == sqlite.output, "\(TextDiff.lines(expected: sqlite.output, actual: postgres.output))")
        #expect(sqlite.output.contains("Lovelace"))
    }

    /// A model change on a PostgreSQL store is previewed, refused and
    /// reported in the shell's words, as on a file: `--migrate` on the
    /// command line, `.model --migrate` in a session, and "migrated …"
    /// saying what changed.
    @Test func migrationsAreRefusedAndReportedAsOnAFile() throws {
        let server = try PostgresServer.shared()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // People 2: the sample with one more attribute.
        let original = try String(contentsOfFile: Self.people + "/People.xcdatamodel/contents", encoding: .utf8)
        let changed = original.replacingOccurrences(
            of: "<attribute name=\"email\"",
            with: "<attribute name=\"nickname\" optional=\"YES\" attributeType=\"String\"/>\n        <attribute name=\"email\"")
        #expect(changed != original)
        for (name, text) in [("v1", original), ("v2", changed)] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(name).xcdatamodel", withIntermediateDirectories: true)
            try text.write(toFile: "\(folder)/\(name).xcdatamodel/contents", atomically: true, encoding: .utf8)
        }
        for store in [folder + "/people.sqlite", try server.createDatabase()] {
            let shown = store.hasPrefix("postgres") ? store : "people.sqlite"
            let made = try MRQBinary.run(["--model", "\(folder)/v1.xcdatamodel", "--store", store,
                                          "-c", "insert Person { FirstName: \"Ada\", personID: 1 }", "-c", "save"])
            #expect(made.status == 0, "\(made.stderr)")
            let refused = try MRQBinary.run(["--model", "\(folder)/v2.xcdatamodel", "--store", store, "-c", "count Person"])
            #expect(refused.status != 0)
            let safety = store.hasPrefix("postgres") ? "in one transaction, with no backup: take one first with pg_dump -Fc -f backup.dump '\(store)'"
                : "a backup is made first"
            #expect(refused.stderr.contains("'\(shown)' was made with another model (added attribute Person.nickname); use --migrate to migrate it (\(safety))"),
                    "\(refused.stderr)")
            let migrated = try MRQBinary.run(["--model", "\(folder)/v2.xcdatamodel", "--store", store, "--migrate",
                                              "-c", "count Person"])
            #expect(migrated.status == 0, "\(migrated.stderr)")
            #expect((migrated.stdout + migrated.stderr).contains("migrated \(shown): added attribute Person.nickname"),
                    "\(migrated.stdout)\(migrated.stderr)")
            // A database has no file to copy: mrq says so, and how to take a backup.
            #expect(migrated.stderr.contains("migrating \(store) in one transaction; no backup is made (take one first with pg_dump")
                    == store.hasPrefix("postgres"), "\(migrated.stderr)")
            let refusedInSession = try MRQBinary.run(["--store", store, "--model", "\(folder)/v2.xcdatamodel",
                                                      "-c", ".model \(folder)/v1.xcdatamodel"])
            #expect(refusedInSession.stderr.contains("(removed attribute Person.nickname); use .model --migrate to migrate it (\(safety))"),
                    "\(refusedInSession.stderr)")
            let session = try MRQBinary.run(["--store", store, "--model", "\(folder)/v2.xcdatamodel",
                                             "-c", ".model --migrate \(folder)/v1.xcdatamodel", "-c", "count Person"])
            let said = session.stdout + session.stderr
            #expect(session.status == 0 && said.contains("migrated \(shown): removed attribute Person.nickname"), "\(said)")
            #expect(session.stdout.contains("1"), "\(said)")
            // A migration that would drop values names the flag it needs
            // the first time it is refused, on a file and on PostgreSQL.
            let noted = try MRQBinary.run(["--model", "\(folder)/v2.xcdatamodel", "--store", store, "--migrate",
                                           "-c", "update Person set nickname = \"Countess\"", "-c", "save"])
            #expect(noted.status == 0, "\(noted.stderr)")
            let dropping = try MRQBinary.run(["--model", "\(folder)/v1.xcdatamodel", "--store", store, "-c", "count Person"])
            #expect(dropping.status != 0)
            #expect(dropping.stderr.contains("use --migrate-dropping-data"), "\(dropping.stderr)")
        }
    }

    /// A store of the People sample (both relationships' ends set) in
    /// `layout`, at `path`.
    static func sqliteStore(_ path: String, layout: String) throws {
        let json = samples.appendingPathComponent("people.json").path
        let made = try MRQBinary.run(["--model", people, "--store", path, "--layout", layout,
                                      "-c", "import Person from \"\(json)\"", "-c", "save"])
        #expect(made.status == 0, "\(made.stderr)")
    }

    /// What a fresh `mrq` on `store`, with the model the store keeps,
    /// shows of every object and relationship.
    static func contents(_ store: String) throws -> String {
        let result = try MRQBinary.run(["--store", store, "--format", "csv", "-c", """
            .entities
            select name, budget, code, people.@count from Department sort name
            select personID, FirstName, LastName, age, email, salary, active, hiredAt, department.name from Person sort personID
            """])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test(arguments: ["mrq", "coredata"])
    func saveAsCopiesIntoPostgresAndBack(layout: String) throws {
        let server = try PostgresServer.shared()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.sqliteStore(folder + "/people.sqlite", layout: layout)
        let original = try Self.contents(folder + "/people.sqlite")
        #expect(original.contains("Engineering") && original.split(separator: "\n").count > 1_200)

        let url = try server.createDatabase()
        let up = try MRQBinary.run(["--store", folder + "/people.sqlite", "--format", "csv", "-c", ".save-as \(url)", "-c", "count Person"])
        #expect(up.status == 0, "\(up.stderr)")
        #expect(up.stderr == "saved as \(url) (postgres)\n" && up.stdout == "count\n1200\n", "\(up.stdout)")
        // Opened without --model: the model the database keeps.
        #expect(try Self.contents(url) == original)

        // Into a database that holds objects: refused, nothing changed.
        let again = try MRQBinary.run(["--store", folder + "/people.sqlite", "-c", ".save-as \(url)"])
        #expect(again.status == 65)
        #expect(again.stderr.contains("already holds objects"), "\(again.stderr)")

        let down = try MRQBinary.run(["--store", url, "--format", "csv", "-c", ".save-as \(folder)/back.sqlite", "-c", "count Department"])
        #expect(down.status == 0, "\(down.stderr)")
        #expect(down.stderr == "saved as \(folder)/back.sqlite (sqlite)\n" && down.stdout == "count\n8\n", "\(down.stdout)")
        #expect(try Self.contents(folder + "/back.sqlite") == original)
    }

    @Test func libpqsVariablesFillInTheURL() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase()
        let database = String(url.split(separator: "/").last!)
        let load = Self.samples.appendingPathComponent("people-load.mrq").path
        let env = Self.environment(server)
        let made = try MRQBinary.bash("\(env) mrq --verbose --model People.xcdatamodeld --store postgres:///\(database) '\(load)'",
                                      in: Self.samples.path)
        #expect(made.status == 0, "\(made.output)")
        // The store line says where the connection went, filled in.
        #expect(made.output.contains("mrq: store postgres://mrq@127.0.0.1:\(server.port)/\(database)\n"), "\(made.output)")
        for store in ["postgres://", "postgresql://", "postgres:///\(database)"] {
            let counted = try MRQBinary.bash("\(Self.environment(server, database: database)) mrq --store \(store) --format csv -c 'count Person'")
            #expect(counted.output == "count\n1200\n", "\(store): \(counted.output)")
        }
    }

    @Test(arguments: ["postgres://mrq:s3cret@127.0.0.1:5432/people", "postgresql://mrq@127.0.0.1/people?password=s3cret"])
    func aPasswordOnTheCommandLineIsRefused(url: String) throws {
        let result = try MRQBinary.run(["--store", url, "-c", "count Person"])
        #expect(result.status == 64)
        #expect(!result.stderr.contains("s3cret"), "\(result.stderr)")
        #expect(result.stderr.contains("holds a password") && result.stderr.contains("~/.pgpass")
                && result.stderr.contains("PGPASSWORD"), "\(result.stderr)")
    }

    /// A password typed in a statement's URL (`-c`, a script, standard
    /// input) is never shown: not in the message, not in the line echoed
    /// under it, malformed URL or not.
    @Test func aPasswordInAStatementIsNeverEchoed() throws {
        for line in [".save-as postgres://app:hunter2@127.0.0.1:1/people", ".open postgresql://app@127.0.0.1/people?password=hunter2",
                     ".save-as postgres://app:hunter2@127.0.0.1:port/people", "count Person where \"postgres://a:hunter2@h\" == LastName AND"] {
            let typed = try MRQBinary.run(["--model", Self.people, "-c", line])
            #expect(typed.status != 0)
            #expect(!typed.stderr.isEmpty && !typed.stderr.contains("hunter2"), "\(typed.stderr)")
            let piped = try MRQBinary.run(["--model", Self.people], stdin: line + "\n")
            #expect(!piped.stderr.isEmpty && !piped.stderr.contains("hunter2") && !piped.stdout.contains("hunter2"), "\(piped.stderr)")
        }
        let echoed = try MRQBinary.run(["--model", Self.people, "-c", ".save-as postgres://app:hunter2@127.0.0.1:1/people"])
        #expect(echoed.stderr.contains(".save-as postgres://app:*******@127.0.0.1:1/people"), "\(echoed.stderr)")
    }

    /// After the server drops the session's connection (a restart), the
    /// next query runs again on a fresh one and says so.
    @Test func aQueryAfterARestartReconnectsAndSaysSo() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase()
        let session = try ShellSession(modelPath: Self.people, storePath: url)
        let output = CapturedOutput()
        #expect(session.run("insert Department { name: \"Sales\" }", fileName: nil, output: output))
        #expect(session.run("save", fileName: nil, output: output))
        let database = String(url.split(separator: "/").last ?? "")
        _ = try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
        let after = CapturedOutput()
        #expect(session.run("count Department", fileName: nil, output: after), "\(after.text)\(after.errors)")
        #expect(after.text.contains("reconnected to PostgreSQL ("), "\(after.text)\(after.errors)")
        #expect(after.text.contains("1"), "\(after.text)\(after.errors)")
    }

    @Test func aServerThatSaysNoIsOneLineNamingTheURL() throws {
        let server = try PostgresServer.shared()
        let port = try PostgresServer.freePort()
        let cases: [(url: String, reason: String)] = [
            ("postgres://mrq@127.0.0.1:\(port)/people", "Connection refused"),
            (server.url(database: "nosuchdatabase"), "database \"nosuchdatabase\" does not exist"),
            ("postgres://nosuchrole@127.0.0.1:\(server.port)/postgres", "role \"nosuchrole\" does not exist"),
        ]
        for (url, reason) in cases {
            let result = try MRQBinary.run(["--model", Self.people, "--store", url, "-c", "count Person"])
            #expect(result.status == 65, "\(url): \(result.stderr)")
            #expect(result.stderr.hasPrefix("mrq: \(url): "), "\(result.stderr)")
            #expect(result.stderr.contains(reason), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        }
        // An empty database, and no model to make a store there with.
        let empty = try server.createDatabase()
        let result = try MRQBinary.run(["--store", empty, "-c", "count Person"])
        #expect(result.status == 65)
        #expect(result.stderr == "mrq: the PostgreSQL database \(empty) holds no mrq store; give --model to create one there\n")
    }

    @Test func explainSaysWhatRunsOnPostgres() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase()
        let result = try MRQBinary.run(["--model", Self.people, "--store", url, "-c",
                                        "explain Person where age > 18 sort LastName:NO", "-c", "explain insert Person { age: 3 }",
                                        "-c", "explain Person where LastName ==[c] \"Weber\"",
                                        "-c", "explain select distinct department.name from Person sort department.name",
                                        "-c", "explain update Person where age > 90 set age = 1 direct",
                                        "-c", "explain delete Person where age > 90 direct", "-c", "count Person where age == 1"])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("canonical:\n  age > 18\n"), "\(out)")
        // PostgreSQL's own statements, $n parameters and their values.
        #expect(out.contains("sql:\n  SELECT ") && out.contains("CAST($1 AS bigint)") && out.contains("bindings:\n  $1 = 18\n"), "\(out)")
        #expect(out.contains("COLLATE \"C\" DESC NULLS LAST"), "\(out)")
        #expect(out.contains("lower(") && out.contains("$1 = \"weber\"")
                && out.contains("(PostgreSQL cannot say this with the same meaning; evaluated on the rows SQL returns)"), "\(out)")
        #expect(out.contains(" GROUP BY "), "\(out)")
        #expect(out.contains("sql:\n  UPDATE ") && out.contains("RETURNING") && out.contains("$1 = 1\n  $2 = 90"), "\(out)")
        // Explained by a dry run: nobody is over 90, so no DELETE follows
        // the match.
        #expect(!out.contains("DELETE FROM ") && out.contains("the statements are a dry run's"), "\(out)")
        #expect(!out.contains("store:"), "\(out)")
        #expect(out.contains("swift:\n"), "\(out)")
        #expect(out.hasSuffix("│     0 │\n└───────┘\n"), "explain ran an update: \(out)")
    }

    /// The README's Debian recipe, run as written on a fresh account's
    /// home (as root, as the postgres user, as the test server does), a
    /// free port its only change: it starts a server of its own, makes the
    /// database, and the README's `mrq` lines run against it.
    @Test func theReadmesDebianRecipeWorksFromNothing() throws {
        guard let recipe = ReadmeCommandTests.fencedBlocks.first(where: { $0.language == "sh" && $0.lines.contains { $0.contains("initdb") } })
        else { Issue.record("the README has no recipe that starts a server"); return }
        let home = NSTemporaryDirectory() + "mrq-recipe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createSymbolicLink(atPath: home + "/Samples",
                                                   withDestinationPath: MRQBinary.packageRoot.appendingPathComponent("Samples").path)
        let port = try PostgresServer.freePort()
        let lines = ReadmeCommandTests.blocks.flatMap { $0 }.filter { $0.hasPrefix("mrq ") && $0.contains("postgres") }
        #expect(lines.count >= 2)
        let script = (["set -e", "export PGPORT=\(port) HOME='\(home)'", "cd \"$HOME\""] + recipe.lines
                      + lines.map { $0.components(separatedBy: " # ")[0] }
                      + ["psql -d people -Atc 'SELECT count(*) FROM \"Person\"'", "pg_ctl stop -m fast >/dev/null"])
            .joined(separator: "\n")
        var command = "bash -c \(Self.shellQuoted(script))"
        if getuid() == 0 {
            guard getpwnam("postgres") != nil else { Issue.record("running as root, and there is no postgres user"); return }
            _ = try MRQBinary.bash("chown -R postgres '\(home)'")
            command = "runuser -u postgres -- env PATH=\"$PATH\" \(command)"
        }
        let result = try MRQBinary.bash(command)
        // Whatever happened, no server is left running.
        if result.status != 0 { _ = try? MRQBinary.bash("pg_ctl -D '\(home)/pgdata' stop -m immediate") }
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasSuffix("1200\n"), "\(result.output)")
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The README's `mrq` lines on PostgreSQL run against the test server
    /// as its setup makes the database: `createdb people`, the rest from
    /// the PG* variables.
    @Test func theReadmesPostgresLinesRun() throws {
        let server = try PostgresServer.shared()
        let lines = ReadmeCommandTests.blocks.flatMap { $0 }.filter { $0.hasPrefix("mrq ") && $0.contains("postgres") }
        #expect(lines.count >= 2)
        let setup = ReadmeCommandTests.fencedBlocks.filter { $0.language == "sh" }.flatMap(\.lines)
        #expect(setup.contains { $0.contains("createdb people") }, "\(setup)")
        _ = try server.psql("CREATE DATABASE people")
        let script = lines.map { "\(Self.environment(server)) \($0.components(separatedBy: " # ")[0]) || exit $?" }
        let result = try ReadmeCommandTests.bash(script.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.output)")
    }
}
