import Foundation
import Testing
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import struct Predicates.Predicate

/// Dictionary fetches, `[c]` and `[d]`, and explain on PostgreSQL: the
/// answers SQLite gives, `[c]` decided in SQL on ASCII rows, and explain
/// showing PostgreSQL's own statements.
@Suite struct PostgresFetchTests {
    /// The same random data in SQLite and in PostgreSQL.
    static func stores(seed: UInt64 = 11) throws -> (sqlite: ManagedObjectContext, postgres: ManagedObjectContext, store: PostgresStore) {
        let model = try DifferentialModel.make()
        var random = SeededRandom(seed: seed)
        var copy = random
        let sqlite = try DifferentialModel.populate(model, random: &random)
        let postgres = try DifferentialModel.populate(model, random: &copy, type: .postgres,
                                                      at: URL(string: try PostgresServer.shared().createSchema())!)
        return (sqlite, postgres, try #require(postgres.persistentStoreCoordinator!.backends.first as? PostgresStore))
    }

    static func dictionary(_ properties: [PropertyToFetch], groupBy: [String]? = nil, distinct: Bool = false,
                           sort: String = "") throws -> FetchRequest {
        var request = FetchRequest(entityName: "Item")
        request.resultType = .dictionary
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy
        request.returnsDistinctResults = distinct
        request.sortDescriptors = sort.isEmpty ? [] : try SortSpec.parse(sort)
        return request
    }

    /// Distinct results, and sorts by a key a grouped to-one decides
    /// (owner.name when grouped by owner): the rows SQLite gives.
    @Test func distinctAndDecidedSortsAnswerAsOnSQLite() throws {
        let (sqlite, postgres, _) = try Self.stores()
        let count = PropertyToFetch(.count, of: "", as: "n")
        let requests = [
            try Self.dictionary([PropertyToFetch(keyPath: "owner.name"), PropertyToFetch(keyPath: "flag")], distinct: true,
                                sort: "owner.name:NO"),
            try Self.dictionary([PropertyToFetch(keyPath: "name")], distinct: true, sort: "name"),
            try Self.dictionary([PropertyToFetch(keyPath: "owner")], distinct: true, sort: "owner.name:NO"),
            try Self.dictionary([PropertyToFetch(keyPath: "owner"), count], groupBy: ["owner"], sort: "owner.name"),
            try Self.dictionary([PropertyToFetch(keyPath: "flag"), count], groupBy: ["flag", "owner"], distinct: true, sort: "n:NO"),
        ]
        for request in requests {
            let expected = try sqlite.fetchRows(request).rows
            #expect(expected.count > 1)
            #expect(try postgres.fetchRows(request).rows == expected, "\(request.propertiesToFetch!.map(\.name)) \(request.sortDescriptors)")
        }
        // DISTINCT collapses equal rows, nil with nil.
        let names = try postgres.fetchRows(requests[1]).rows
        #expect(Set(names).count == names.count && names.contains([.null]))
    }

    /// A sort key with many values in a group (or a distinct row) has no
    /// meaning: refused on both engines, with the same words.
    @Test func anUndecidedSortIsRefusedOnBothEngines() throws {
        let (sqlite, postgres, _) = try Self.stores()
        let count = PropertyToFetch(.count, of: "", as: "n")
        for request in [try Self.dictionary([PropertyToFetch(keyPath: "owner"), count], groupBy: ["owner"], sort: "name"),
                        try Self.dictionary([PropertyToFetch(keyPath: "owner.name")], distinct: true, sort: "i16"),
                        try Self.dictionary([PropertyToFetch(keyPath: "flag"), count], groupBy: ["flag", "owner"], distinct: true,
                                            sort: "owner.name")] {
            var messages: [String] = []
            for context in [sqlite, postgres] {
                do {
                    _ = try context.fetchRows(request)
                    Issue.record("\(request.sortDescriptors) was not refused")
                } catch let error as StoreError {
                    messages.append(error.message)
                }
            }
            #expect(messages.count == 2 && messages[0] == messages[1])
            #expect(messages.first?.hasPrefix("cannot sort by '") == true, "\(messages)")
        }
    }

    /// Swift's `[c]` folding of printable ASCII is ASCII lowering, which
    /// is what the server's `lower(… COLLATE "C")` does; `[d]` leaves it
    /// alone; the server's test for printable ASCII says no to the rest.
    @Test func asciiFoldsAsTheServerLowers() throws {
        let (_, _, store) = try Self.stores(seed: 2)
        let ascii = String((0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) })
        #expect(StringMatching.fold(ascii, [.caseInsensitive]) == ascii.lowercased())
        #expect(StringMatching.fold(ascii, [.caseInsensitive, .diacriticInsensitive]) == ascii.lowercased())
        #expect(StringMatching.fold(ascii, [.diacriticInsensitive]) == ascii)
        for scalar in ascii.unicodeScalars {
            #expect(StringMatching.fold(String(scalar), [.caseInsensitive]) == String(scalar).lowercased())
        }
        #expect(try store.sqlRows("SELECT lower(CAST($1 AS text) COLLATE \"C\")", [.string(ascii)]) == [[.string(ascii.lowercased())]])
        for (text, printable) in [(ascii, true), ("", true), ("é", false), ("a\tb", false), ("\u{212A}", false), ("ı", false)] {
            #expect(try store.sqlRows("SELECT CAST($1 AS text) ~ '^[ -~]*$'", [.string(text)]) == [[.bool(printable)]], "\(text)")
        }
    }

    /// `[c]` and `[d]` select in SQL: on ASCII rows only the matching rows
    /// come back; rows with other characters are decided in memory, with
    /// the evaluator's answer.
    @Test func caseInsensitiveFiltersSelectInSQL() throws {
        let model = try DifferentialModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: .postgres, at: URL(string: try PostgresServer.shared().createSchema())!)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let ascii = ["abc", "ABC", "Abd", "xabcx", "XYZ", "a_c", "b", "ab%c"]
        let labels = ["red", "Red", "blue"].map { title in
            let label = context.insertObject(forEntityName: "Label")
            label["title"] = .string(title)
            return label
        }
        for (i, name) in (ascii + [nil]).enumerated() {
            let item = context.insertObject(forEntityName: "Item")
            item["name"] = name.map(Value.string) ?? .null
            // Items 0 and 1 have a red label each (red, Red), item 2 a blue one.
            if i < 3 { item.add(labels[i], toKey: "labels") }
        }
        try context.save()
        let store = try #require(coordinator.backends.first as? PostgresStore)
        let cases: [(String, Int)] = [("name ==[c] 'aBc'", 2), ("name !=[c] 'abc'", 7), ("name BEGINSWITH[c] 'AB'", 4),
                                      ("name ENDSWITH[cd] 'C'", 4), ("name CONTAINS[c] 'BC'", 3), ("name LIKE[c] 'A?C'", 3),
                                      ("name IN[c] {'XYZ', 'B'}", 2), ("NOT (name ==[c] 'ABC')", 7), ("name >[c] 'abd'", 3),
                                      ("name ==[c] 'straße' OR name ==[d] 'b'", 1), ("ANY labels.title ==[c] 'RED'", 2),
                                      ("NONE labels.title BEGINSWITH[c] 'r'", 7), ("ALL labels.title ==[c] 'red'", 8)]
        for (format, expected) in cases {
            let predicate = try Predicate(format: format)
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let before = store.rowsReturned
            let found = try fresh.fetch(FetchRequest(entityName: "Item", predicate: predicate))
            #expect(found.count == expected, "\(format)")
            // (Memory's check of a quantifier on those rows reads their labels too.)
            if !format.contains("labels") {
                #expect(store.rowsReturned - before == expected, "\(format): \(store.rowsReturned - before) rows fetched for \(expected)")
            }
            #expect(try fresh.explain(FetchRequest(entityName: "Item", predicate: predicate)).sql.contains("lower(") || !format.contains("[c]"))
        }
        // Rows that are not ASCII reach memory, which decides them.
        for name in ["ABC\u{301}", "\u{212A}", "ǅ", "ABCß"] {
            context.insertObject(forEntityName: "Item")["name"] = .string(name)
        }
        try context.save()
        try Self.expectEvaluatorAnswers(["name ==[c] 'abc'", "name ==[cd] 'abc'", "name BEGINSWITH[c] 'abc'", "name ==[c] 'k'", "NOT name ==[c] 'k'",
                                        "name CONTAINS[c] 'ss'", "name LIKE[cd] 'abc*'"], on: coordinator)
    }

    /// Patterns ICU and PostgreSQL read alike, and some they do not.
    @Test func patternsThatReadAlike() {
        for pattern in ["a.*", "[a-z]+[0-9]{2,3}", "(ab|cd)x*?", "\\d+\\.\\d*", "[^aeiou ]+", "(?:a|b)c?", "a{3}", "[-a_.]+",
                        "x\\(y\\)", "\\w+ \\w+", "a??b+?"] {
            #expect(PostgresDialect.readsAlike(pattern), "\(pattern)")
        }
        for pattern in ["", "^a", "a$", "\\bword", "(?i)a", "a*+", "[[:alpha:]]", "[a&&b]", "\\1", "a|", "()", "(?=a)b",
                        "[\\d]", "a{300}", "(ab)*", "(?:a|b)+", "é.*", "a{2,1}", "[]", "[z-a]", "*a", "a{,2}", "\\Qa\\E", "a\tb", "[a-]b-c]"] {
            #expect(!PostgresDialect.readsAlike(pattern), "\(pattern)")
        }
    }

    /// Random patterns of the subset `readsAlike` takes, on random strings
    /// of printable ASCII: PostgreSQL's whole match answers as the
    /// evaluator's (ICU) does, pair by pair.
    @Test(arguments: [20, 21, 22, 23] as [UInt64])
    func patternsThatReadAlikeMatchAlike(seed: UInt64) throws {
        let (_, _, store) = try Self.stores(seed: 3)
        var random = SeededRandom(seed: seed)
        func pick(_ options: [String]) -> String { options[Int.random(in: 0..<options.count, using: &random)] }
        func atom(_ depth: Int) -> String {
            switch Int.random(in: 0..<(depth > 1 ? 4 : 6), using: &random) {
            case 0: return pick(["a", "b", "A", "0", "1", " ", "_", "-"])
            case 1: return pick([".", "\\d", "\\w", "\\s", "\\.", "\\(", "\\W", "\\D"])
            case 2: return pick(["[a-b]", "[^a]", "[ab0-1]", "[-a]", "[A-Z_]", "[^ .]"])
            case 3: return pick(["a", "b", "ab"])
            case 4: return "(" + expression(depth + 1) + ")"
            default: return "(?:" + expression(depth + 1) + ")"
            }
        }
        func expression(_ depth: Int) -> String {
            var branch = ""
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let next = atom(depth)
                branch += next
                if !next.hasSuffix(")") || next.hasSuffix("\\(") || next.hasSuffix("\\)") {
                    branch += pick(["", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{1,2}", "{0,}"])
                }
            }
            return Int.random(in: 0..<4, using: &random) == 0 ? branch + "|" + expression(depth + 1) : branch
        }
        let alphabet = Array("abAB01 _-.()")
        var subjects = [""]
        for _ in 0..<24 {
            subjects.append(String((0..<Int.random(in: 1...5, using: &random)).map { _ in alphabet.randomElement(using: &random)! }))
        }
        var compared = 0
        for _ in 0..<120 {
            let pattern = expression(0)
            #expect(PostgresDialect.readsAlike(pattern), "\(pattern)")
            let predicate = try Predicate(format: "s MATCHES %@", arguments: [.value(.string(pattern))])
            for subject in subjects {
                let evaluator = try Evaluator().evaluate(predicate, on: .dictionary(["s": .string(subject)]))
                let server = try store.sqlRows("SELECT (CAST($1 AS text) COLLATE \"C\") ~ CAST($2 AS text)",
                                               [.string(subject), .string("^(?:" + pattern + ")$")])
                #expect(server == [[.bool(evaluator)]], "'\(subject)' MATCHES '\(pattern)'")
                compared += 1
            }
        }
        #expect(compared == 120 * subjects.count)
    }

    /// MATCHES selects in SQL where the pattern reads alike: on ASCII rows
    /// only the matching rows come back; other rows, and other patterns,
    /// are decided in memory, with the evaluator's answer.
    @Test func matchesSelectsInSQLWhereThePatternReadsAlike() throws {
        let model = try DifferentialModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: .postgres, at: URL(string: try PostgresServer.shared().createSchema())!)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for name in ["abc", "ABC", "a1", "a22", "a333", "b.c", "x(y)", "hello world", "", "aaa"] {
            context.insertObject(forEntityName: "Item")["name"] = .string(name)
        }
        context.insertObject(forEntityName: "Item")
        try context.save()
        let store = try #require(coordinator.backends.first as? PostgresStore)
        for (format, expected) in [("name MATCHES 'a.*'", 5), ("name MATCHES '[a-z][0-9]{1,2}'", 2), ("name MATCHES 'b\\\\.c'", 1),
                                   ("name MATCHES '\\\\w+ \\\\w+'", 1), ("NOT name MATCHES 'a.*'", 6), ("name MATCHES 'x\\\\(y\\\\)'", 1),
                                   ("name MATCHES 'a{3}' OR name MATCHES '[A-Z]+'", 2)] {
            let predicate = try Predicate(format: format)
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let before = store.rowsReturned
            #expect(try fresh.fetch(FetchRequest(entityName: "Item", predicate: predicate)).count == expected, "\(format)")
            #expect(store.rowsReturned - before == expected, "\(format): \(store.rowsReturned - before) rows fetched for \(expected)")
        }
        // Rows that are not printable ASCII, and patterns that do not read
        // alike, reach memory, which decides them.
        for name in ["a\u{301}", "a\nb", "\u{212A}", "é1", "a\tb", "a٣"] {
            context.insertObject(forEntityName: "Item")["name"] = .string(name)
        }
        try context.save()
        try Self.expectEvaluatorAnswers(["name MATCHES 'a.*'", "name MATCHES 'a.b'", "name MATCHES '.\\\\d'", "name MATCHES '\\\\w+'", "NOT name MATCHES 'a.+'",
                                        "name MATCHES[c] 'a.*'", "name MATCHES '^a.*$'", "name MATCHES '(?i)abc'", "name MATCHES 'a\\\\sb'"], on: coordinator)
    }

    /// Each of `formats`, fetched and counted on `coordinator`'s store
    /// (PostgreSQL), finds the Items the evaluator finds among them all.
    static func expectEvaluatorAnswers(_ formats: [String], on coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let all = try context.fetch(FetchRequest(entityName: "Item")).map { $0 }
        for format in formats {
            let predicate = try Predicate(format: format)
            let expected = try all.filter { try $0.matches(predicate) }.map(\.objectID).sorted { $0.primaryKey < $1.primaryKey }
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            #expect(try fresh.fetch(FetchRequest(entityName: "Item", predicate: predicate)).map(\.objectID)
                        .sorted { $0.primaryKey < $1.primaryKey } == expected, "\(format)")
            #expect(try fresh.count(for: FetchRequest(entityName: "Item", predicate: predicate)) == expected.count, "\(format)")
        }
    }

    /// explain shows PostgreSQL's statements, `$n` parameters and their
    /// values, for fetches, counts, dictionaries and batch requests, and
    /// runs none of their writes.
    @Test func explainShowsPostgresStatements() throws {
        let (_, postgres, store) = try Self.stores(seed: 4)
        var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "i16 > 1 AND name ==[c] 'abc'"))
        request.sortDescriptors = [SortKey(keyPath: ["name"], ascending: false)]
        let fetch = try postgres.explain(request)
        #expect(fetch.engine == .postgres && fetch.parameter(1) == "$1")
        #expect(fetch.sql.hasPrefix("SELECT ") && fetch.sql.contains("CAST($1 AS bigint)") && fetch.sql.contains("lower("), "\(fetch.sql)")
        #expect(fetch.bindings == [.int(1), .string("abc")])
        #expect(fetch.residual != nil, "the rows that are not ASCII are decided in memory")
        var count = FetchRequest(entityName: "Item", predicate: try Predicate(format: "i16 > 1"))
        count.resultType = .count
        #expect(try postgres.explain(count).sql.hasPrefix("SELECT COUNT(*)"))
        let grouped = try Self.dictionary([PropertyToFetch(keyPath: "flag"), PropertyToFetch(.count, of: "", as: "n")], groupBy: ["flag"])
        #expect(try postgres.explain(grouped).sql.contains(" GROUP BY "))

        let before = store.rowsReturned
        let update = BatchUpdateRequest(entityName: "Item", predicate: try Predicate(format: "i16 > 1"),
                                        propertiesToUpdate: ["note": .value(.string("x"))])
        let (plan, inMemory) = try postgres.explain(update)
        #expect(inMemory.isEmpty && plan.steps.count == 1)
        #expect(plan.sql.hasPrefix("UPDATE ") && plan.sql.contains("RETURNING") && plan.sql.contains("$2"), "\(plan.sql)")
        #expect(plan.bindings == [.string("x"), .int(1)])
        let matchesInMemory = BatchUpdateRequest(entityName: "Item", predicate: try Predicate(format: "name MATCHES 'a.*'"),
                                                 propertiesToUpdate: ["note": .value(.string("x"))])
        let twoSteps = try postgres.explain(matchesInMemory).0
        // A dry run: the matching keys are read, the UPDATE of those keys
        // is listed, not run.
        #expect(twoSteps.steps.count == 2 && twoSteps.steps[1].sql.hasPrefix("UPDATE "))
        if case .keys(let n)? = twoSteps.steps.last?.bindings.last { #expect(n > 0) } else { Issue.record("no keys bound") }
        #expect(store.rowsReturned > before, "the dry run reads the matching keys")
        let delete = try postgres.explain(BatchDeleteRequest(entityName: "Item", predicate: try Predicate(format: "i16 < 0")))
        #expect(delete.steps.last?.sql.hasPrefix("DELETE FROM") == true, "\(delete.sql)")
        #expect(try postgres.count(for: FetchRequest(entityName: "Item", predicate: try Predicate(format: "note == 'x'"))) == 0)
    }

    /// A `[c]` predicate with a limit reads the sorted rows in pages (the
    /// first twice the window's end, at least 16 rows) until the residual
    /// has filled the window, not every row of the widening filter; the
    /// window is the one memory gives on every row.
    @Test func caseInsensitiveFilterWithALimitReadsPages() throws {
        let model = try DifferentialModel.make()
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: .postgres, at: URL(string: try PostgresServer.shared().createSchema())!)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        // 40 rows SQL lets through and memory rejects (not ASCII), then
        // 10 matches, then 200 more matches.
        let names = Array(repeating: "ABC\u{301}", count: 40) + Array(repeating: "aBc", count: 210)
        for (i, name) in names.enumerated() {
            let item = context.insertObject(forEntityName: "Item")
            item["i32"] = .int(Int64(i))
            item["name"] = .string(name)
        }
        try context.save()
        let store = try #require(coordinator.backends.first as? PostgresStore)
        for (limit, offset, most) in [(3, 1, 48), (2, 0, 48), (300, 0, 250), (5, 245, 250)] {
            var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "name ==[c] 'abc'"))
            request.sortDescriptors = [SortKey(keyPath: ["i32"], ascending: true)]
            let every = try ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator).fetch(request)
                .map { $0["i32"] }
            request.fetchLimit = limit
            request.fetchOffset = offset
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let before = store.rowsReturned
            let found = try fresh.fetch(request).map { $0["i32"] }
            #expect(found == Array(every.dropFirst(offset).prefix(limit)), "limit \(limit) offset \(offset)")
            #expect(store.rowsReturned - before <= most, "limit \(limit) offset \(offset): \(store.rowsReturned - before) rows read")
            // A dictionary fetch (the shell's query) reads the keys of
            // the window the same way, then the rows of those keys.
            request.resultType = .dictionary
            request.propertiesToFetch = [PropertyToFetch(keyPath: "i32")]
            let beforeRows = store.rowsReturned
            let rows = try fresh.fetchDictionaries(request).map { $0["i32"] ?? .null }
            #expect(rows == Array(every.dropFirst(offset).prefix(limit)), "dictionaries, limit \(limit) offset \(offset)")
            #expect(store.rowsReturned - beforeRows <= most + limit,
                    "dictionaries, limit \(limit) offset \(offset): \(store.rowsReturned - beforeRows) rows read")
        }
        // Matches at once: one page.
        var request = FetchRequest(entityName: "Item", predicate: try Predicate(format: "name BEGINSWITH[c] 'AB' AND i32 >= 40"))
        request.fetchLimit = 2
        let before = store.rowsReturned
        #expect(try ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator).fetch(request).count == 2)
        #expect(store.rowsReturned - before <= 16, "\(store.rowsReturned - before) rows read for limit 2")
    }
}
