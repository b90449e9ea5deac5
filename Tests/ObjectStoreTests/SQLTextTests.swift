import Foundation
import Testing
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import struct Predicates.Predicate

/// Generated SQL is written once and never read back (issue 34, "SQL is
/// text, parsed back"): a parameter's number, a condition that always
/// holds, a type's collation and a plan's parameters after other values
/// are known when the SQL is written, not found again in its text.
@Suite struct SQLTextTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What reading generated SQL back looked like, and where it was.
    static let parsingBack = [
        "parameterNumber(",          // SQLTranslator: `?3` → 3
        "shiftingParameters(",       // PostgresStore: `$1` → `$4`
        "condition == \"",           // FetchPlan: `WHERE 1`
        "replacingOccurrences(of: \" COLLATE",  // SQLDialect: a cast's type
        "parametersBefore",          // FetchPlan, SQLTranslator: numbered after an UPDATE's values
    ]

    /// No source file reads generated SQL back.
    @Test func noSourceParsesGeneratedSQLBack() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var findings: [String] = []
        var read = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            read += 1
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for pattern in Self.parsingBack where line.contains(pattern) {
                    findings.append("\(url.path.dropFirst(Self.root.path.count + 1)):\(i + 1): \(pattern)")
                }
            }
        }
        #expect(read > 100, "found the sources")
        #expect(findings.isEmpty, "generated SQL read back:\n\(findings.joined(separator: "\n"))")
    }

    /// Rewriting text by pattern or replacement: what the batch dry run
    /// did to its own SQL to write a list of keys as `IN (?, …)`.
    static let rewriting = ["options: .regularExpression", "NSRegularExpression(", "Regex(", "#/", ".replacing(",
                            "replacingOccurrences("]
    /// Where SQL is written, and the rewrites there that are of no SQL: a
    /// name's quotes doubled and a dotted attribute name made a column's
    /// (names, before they are quoted), a MATCHES pattern checked as the
    /// evaluator compiles it, a server message's password hidden, a
    /// NOTIFY payload escaped.
    static let sqlFolders = ["Sources/ObjectStore/SQL", "Sources/ObjectStore/Fetch", "Sources/ObjectStore/Engines",
                             "Sources/ObjectStorePostgres"]
    static let rewritesOfNoSQL: Set<String> = [
        "SQLIdentifier.swift replacingOccurrences(", "SchemaMapping.swift replacingOccurrences(",
        "PostgresDialect.swift NSRegularExpression(", "PostgresConnection.swift replacingOccurrences(",
        "PostgresNotifications.swift replacingOccurrences(",
    ]

    /// No SQL is rewritten by a regular expression or a replacement: a
    /// list of keys is a fragment the dialect writes, in full to run and
    /// as `IN (?, …)` to explain.
    @Test func noSourceRewritesSQL() throws {
        var findings: [String] = []
        var read = 0
        for folder in Self.sqlFolders {
            let files = try #require(FileManager.default.enumerator(at: Self.root.appendingPathComponent(folder),
                                                                    includingPropertiesForKeys: nil))
            for case let url as URL in files where url.pathExtension == "swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                read += 1
                for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    for pattern in Self.rewriting where line.contains(pattern)
                    && !Self.rewritesOfNoSQL.contains("\(url.lastPathComponent) \(pattern)") {
                        findings.append("\(url.path.dropFirst(Self.root.path.count + 1)):\(i + 1): \(pattern)")
                    }
                }
            }
        }
        #expect(read > 50, "found the sources")
        #expect(findings.isEmpty, "SQL rewritten by pattern:\n\(findings.joined(separator: "\n"))")
    }

    /// A list of keys is written by the dialect: in full to run, as its
    /// first parameter and `…` to explain, its values bound after those
    /// before it, however the SQL was composed.
    /// An operand held as a column's text or a parameter's number is
    /// appended as the SQL it stands for, and each dialect's writing hooks
    /// write what its returning hooks return.
    @Test func operandsAndWritingHooksWriteWhatTheirSQLWould() {
        let column = SQLTranslator.Operand(form: .text("t.\"name\""), category: .string)
        let parameter = SQLTranslator.Operand(form: .parameter(2, written: "?2"), category: .string, parameter: 2)
        for operand in [column, parameter] {
            var written: SQL = "x = "
            written.append(operand)
            #expect(written == "x = " + operand.sql)
        }
        #expect(parameter.sql.binding([.int(1), .string("a")]).rendered(by: SQLiteDialect()).text == "?2")
        let dialects: [any SQLDialect] = [SQLiteDialect(), PostgresDialect()]
        for dialect in dialects {
            for equal in [true, false] {
                var out = SQL()
                dialect.writeSame(column, parameter, equal, into: &out)
                #expect(out == dialect.same(column.sql, parameter.sql, equal))
            }
            var ordered = SQL()
            dialect.writeOrdered(parameter, column, into: &ordered)
            #expect(ordered == dialect.ordered(parameter.sql, column))
            for op in [Comparison.Operator.beginsWith, .endsWith, .contains] {
                for options in [Comparison.Options(), .caseInsensitive] {
                    var out = SQL()
                    dialect.writeStringOperator(op, column, parameter, options: options, into: &out)
                    #expect(out == dialect.stringOperator(op, column.sql, parameter.sql, options: options))
                }
            }
            // A condition under NOT, written in place after what the
            // buffer holds, with its slots where they were.
            var inner: SQL = "t.\"age\" > "
            inner.append(parameter)
            var twoValued: SQL = "NOT ("
            twoValued.appendParameter(.int(5))
            dialect.writeTwoValued(into: &twoValued) { $0 += inner }
            var expected: SQL = "NOT ("
            expected.appendParameter(.int(5))
            expected += dialect.twoValued(inner)
            #expect(twoValued == expected)
        }
    }

    /// The texts the mapping keeps are those the translator and a plan
    /// wrote for every comparison and plan: a column as the statement's
    /// row reads it, the table as its FROM item, a count's head; and a
    /// condition under NOT is written in place as it was returned.
    @Test func keptTextsAreWhatWasWrittenEachTime() throws {
        let (context, _) = try ChainFetchTests.people(count: 3)
        let person = try #require(context.model.entity(named: "Person"))
        let coordinator = try #require(context.persistentStoreCoordinator)
        let mapping = try coordinator.sqlBackend(for: person, purpose: "test").mapping
        let table = mapping.table(for: person)
        #expect(table.fromItem == "\"Person\" t")
        #expect(table.countHead == "SELECT COUNT(*) FROM \"Person\" t WHERE ")
        for name in ["age", "name"] {
            let column = try #require(mapping.column(for: name, of: person))
            #expect(column.inRow == SQLTranslator.columnSQL(alias: "t", column: column.name))
            #expect(column.inRow == "t.\"\(name)\"")
        }
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "NOT (age > 1 AND name != nil)"))
        request.resultType = .count
        #expect(try context.explain(request).sql
                == "SELECT COUNT(*) FROM \"Person\" t WHERE NOT ((IFNULL(t.\"age\" > ?1, 0) AND IFNULL(t.\"name\" IS NOT NULL, 0)))")
        #expect(try context.count(for: request) == 2)
    }

    /// The row's column a key of one attribute resolves to is the
    /// mapping's column as the row reads it, in both layouts, for
    /// attributes declared, inherited and declared twice under one name
    /// (`port`); nil for what is no attribute.
    @Test func rowColumnIsTheColumnAsTheRowReadsIt() throws {
        let model = try CoreDataLayoutTests.model()
        for layout in [SchemaMapping.Layout.mrq, .coreData] {
            let mapping = try SchemaMapping(model: model, layout: layout)
            var checked = 0
            for entity in model.entities {
                for attribute in entity.attributes {
                    let column = try #require(mapping.column(for: attribute.name, of: entity))
                    let row = try #require(mapping.rowColumn(for: attribute.name, of: entity))
                    #expect(row.sql == column.inRow && row.type == column.type, "\(entity.name).\(attribute.name)")
                    #expect(row.sql == "t." + column.name.quoted)
                    checked += 1
                }
                for name in ["notes", "account", "nothing"] {
                    #expect(mapping.rowColumn(for: name, of: entity) == nil)
                }
            }
            #expect(checked == 19)
        }
        let mapping = try SchemaMapping(model: model, layout: .coreData)
        let local = try #require(model.entity(named: "localAccount"))
        #expect(mapping.rowColumn(for: "port", of: local)?.sql == "t.\"ZPORT1\"")
        #expect(mapping.rowColumn(for: "name", of: local)?.sql == "t.\"ZNAME\"")
    }

    @Test func keyListsAreFragmentsTheDialectWrites() {
        let sqlite = SQLiteDialect()
        var sql: SQL = "UPDATE \(SQLIdentifier(constant: "Person")) SET x = "
        sql.appendParameter(.int(7))
        let keys = sqlite.keyLists([1, 2, 3], chunkSize: 2)
        #expect(keys.count == 2)
        let statement = sql + " WHERE _pk" + keys[0]
        #expect(statement.rendered(by: sqlite).text == "UPDATE \"Person\" SET x = ?1 WHERE _pk IN (?, ?)")
        #expect(statement.rendered(by: sqlite).bindings == [.int(7), .int(1), .int(2)])
        #expect(statement.rendered(by: sqlite, explained: true).text == "UPDATE \"Person\" SET x = ?1 WHERE _pk IN (?, …)")
        #expect(statement.explainedBindings == [.value(.int(7)), .keys(2)])
        let numbered = sql + " WHERE _pk IN (" + SQL.keys([.int(4), .int(5)], count: 2, numbered: true) + ")"
        #expect(numbered.rendered(by: sqlite).text == "UPDATE \"Person\" SET x = ?1 WHERE _pk IN (?2, ?3)")
        #expect(numbered.rendered(by: sqlite, explained: true).text == "UPDATE \"Person\" SET x = ?1 WHERE _pk IN (?2, …)")
        let postgres = PostgresDialect().keyLists([1, 2, 3], chunkSize: 2)
        #expect(postgres.map { $0.rendered(by: PostgresDialect()).text } == [" = ANY(CAST(? AS bigint[]))"])
        #expect(postgres.map { $0.rendered(by: PostgresDialect(), explained: true).text } == [" = ANY(CAST(? AS bigint[]))"])
    }

    /// A count of every row has no WHERE (SQLite then counts pages, not
    /// rows), also for TRUEPREDICATE; any condition keeps its WHERE.
    @Test func countOfEveryRowHasNoWhere() throws {
        let (context, _) = try ChainFetchTests.people(count: 3)
        func countSQL(_ format: String?) throws -> String {
            var request = FetchRequest(entityName: "Person", predicate: try format.map { try Predicate(format: $0) })
            request.resultType = .count
            return try context.explain(request).sql
        }
        #expect(try countSQL(nil) == "SELECT COUNT(*) FROM \"Person\" t")
        #expect(try countSQL("TRUEPREDICATE") == "SELECT COUNT(*) FROM \"Person\" t")
        #expect(try countSQL("age > 3") == "SELECT COUNT(*) FROM \"Person\" t WHERE t.\"age\" > ?1")
        #expect(try countSQL("TRUEPREDICATE AND age > 3") == "SELECT COUNT(*) FROM \"Person\" t WHERE 1 AND t.\"age\" > ?1")
        #expect(try countSQL("FALSEPREDICATE") == "SELECT COUNT(*) FROM \"Person\" t WHERE 0")
        #expect(try context.count(for: FetchRequest(entityName: "Person", predicate: try Predicate(format: "TRUEPREDICATE"))) == 3)
    }

    /// A plan's WHERE is written in one buffer, conjunct after conjunct:
    /// a conjunct SQL cannot run, refused after part of it was written
    /// (`(age > 3 OR ` and its parameter), leaves nothing of itself in
    /// the SQL or its values, and runs in memory.
    @Test func refusedConjunctLeavesNothingInTheCondition() throws {
        let (context, _) = try ChainFetchTests.people(count: 12)
        // `(age + 1) / (age + 1)`: a division by no constant runs in memory.
        let refused = "(age > 3 OR (age + 1) / (age + 1) > 1)"
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "name != nil AND \(refused) AND age < 9"))
        request.resultType = .count
        let plan = try context.explain(request)
        // With a residual, a count reads the rows SQL selects.
        #expect(plan.sql.hasSuffix(" FROM \"Person\" t WHERE t.\"name\" IS NOT NULL AND t.\"age\" < ?1 ORDER BY t.\"_pk\""))
        #expect(plan.bindings == [.int(9)])
        #expect(plan.residual == (try Predicate(format: refused)))
        #expect(try context.count(for: request) == 5)
        // Refused first, and refused alone.
        request.predicate = try Predicate(format: "\(refused) AND age < 9")
        #expect(try context.explain(request).sql.hasSuffix(" FROM \"Person\" t WHERE t.\"age\" < ?1 ORDER BY t.\"_pk\""))
        request.predicate = try Predicate(format: refused)
        #expect(try context.explain(request).sql.hasSuffix(" FROM \"Person\" t WHERE 1 ORDER BY t.\"_pk\""))
        #expect(try context.count(for: request) == 8)
    }

    /// The translator writes each parameter's text where it puts it (no
    /// pass over the slots when the statement is written); SQL with values
    /// of its own put before moves them, and the statement then writes them
    /// again with their new numbers: the same text, whichever way the SQL
    /// was composed, in both dialects.
    @Test func writtenParametersAreWrittenAgainWhenMoved() throws {
        let (context, _) = try ChainFetchTests.people(count: 3)
        let person = try #require(context.model.entity(named: "Person"))
        let store = try #require(context.persistentStoreCoordinator).sqlBackend(for: person, purpose: "test")
        var translator = SQLTranslator(store: store, entity: person)
        let fragment = try translator.condition(for: try Predicate(format: "age > 3 AND name BEGINSWITH 'p' AND age != 2"))
        let condition = translator.statement(fragment)
        #expect(condition.bindings == [.int(3), .string("p"), .int(2)])
        let alone = "(t.\"age\" > ?1 AND (length(?2) > 0 AND substr(t.\"name\", 1, length(?2)) = ?2) AND t.\"age\" IS NOT ?3)"
        #expect(condition.rendered(by: SQLiteDialect()).text == alone)
        #expect(condition.rendered(by: SQLiteDialect(), after: "SELECT 1 WHERE ").text == "SELECT 1 WHERE " + alone)
        // The same condition after 0 to 3 values of an UPDATE's own, and
        // as SQL with unwritten slots (`appendParameter`) says it is.
        for before in 0...3 {
            var update: SQL = "UPDATE x SET "
            var expected = ""
            for i in 0..<before {
                update += i == 0 ? "a = " : ", a = "
                update.appendParameter(.int(Int64(10 + i)))
                expected += (i == 0 ? "a = " : ", a = ") + "?\(i + 1)"
            }
            update += " WHERE "
            update += condition
            let (text, values) = update.rendered(by: SQLiteDialect())
            let moved = alone.replacingOccurrences(of: "?3", with: "?\(before + 3)")
                .replacingOccurrences(of: "?2", with: "?\(before + 2)").replacingOccurrences(of: "?1", with: "?\(before + 1)")
            #expect(text == "UPDATE x SET \(expected) WHERE " + moved)
            #expect(values == (0..<before).map { .int(Int64(10 + $0)) } + [.int(3), .string("p"), .int(2)])
        }
        // PostgreSQL writes a value's type with its number: a moved
        // parameter keeps its type under its new number.
        let postgres = PostgresDialect()
        var written = SQL()
        written += "t.name = "
        written.appendSlot(for: 0, written: postgres.parameter(1, of: .string("p")))
        written = written.binding([.string("p")])
        #expect(written.rendered(by: postgres).text == "t.name = CAST($1 AS text)")
        var after = SQL.parameter(.int(1))
        after += " AND "
        after += written
        #expect(after.rendered(by: postgres).text == "CAST($1 AS bigint) AND t.name = CAST($2 AS text)")
    }

    /// A conjunct refused after it joined a table (`team.b == 'x' OR …`
    /// joins Team before its division is refused) takes its join and the
    /// join's alias back with it: a later conjunct over the same key path
    /// joins the table again, as its own.
    @Test func refusedConjunctTakesItsJoinBack() throws {
        let coordinator = PersistentStoreCoordinator(model: ContextModelTests.model)
        try coordinator.addPersistentStore(type: .inMemory, at: nil, options: PersistentStoreOptions())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let named = context.insertObject(forEntityName: "Team")
        named["b"] = .string("x")
        let unnamed = context.insertObject(forEntityName: "Team")
        for (a, team) in [(1, named), (2, unnamed), (3, nil)] as [(Int64, ManagedObject?)] {
            let item = context.insertObject(forEntityName: "Item")
            item["a"] = .int(a)
            if let team { item.setObject(team, forKey: "team") }
        }
        try context.save()
        let refused = "(team.b == 'x' OR (a + 1) / (a + 1) > 1)"
        for format in ["\(refused) AND team.b != nil", "team.b != nil AND \(refused) AND team.b != 'y'"] {
            var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: format))
            request.resultType = .count
            let plan = try context.explain(request)
            #expect(plan.sql.components(separatedBy: "LEFT JOIN").count == 2, "one join: \(plan.sql)")
            #expect(plan.residual == (try Predicate(format: refused)))
            #expect(try context.count(for: request) == 1)
        }
    }

    /// `SQL.truncate(to:)` drops text, slots and values appended after
    /// the mark, and gives back what `truth` was.
    @Test func truncatingGoesBackToTheMark() {
        var sql = SQL.always(true, "1")
        let start = sql.mark
        sql += " AND t.x = "
        sql.appendParameter(.int(4))
        #expect(sql.truth == nil)
        sql.truncate(to: start)
        #expect(sql == SQL.always(true, "1"))
        #expect(sql.truth == true)
        var condition: SQL = "t.a > "
        condition.appendParameter(.int(1))
        let mark = condition.mark
        condition += " AND t.b < "
        condition.appendParameter(.string("é"))
        condition.truncate(to: mark)
        condition += " AND t.c = "
        condition.appendParameter(.int(2))
        var expected: SQL = "t.a > "
        expected.appendParameter(.int(1))
        expected += " AND t.c = "
        expected.appendParameter(.int(2))
        #expect(condition == expected)
        #expect(condition.rendered(by: SQLiteDialect()).text == "t.a > ?1 AND t.c = ?2")
    }
}
