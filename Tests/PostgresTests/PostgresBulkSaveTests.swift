import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// Issue 20, item 5: a large save on PostgreSQL writes each entity's new
/// rows by one binary `COPY` (one prepared INSERT per row where a value
/// has no binary form), inside the save's one transaction: every value
/// reads back as it was set, and a save refused in the middle writes
/// nothing and leaves the context with its changes.
@Suite struct PostgresBulkSaveTests {
    /// An entity with a column of every PostgreSQL type the mapping uses
    /// but numeric, one with a decimal (no binary form: INSERTs), and a
    /// to-one between them.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Sample") {
                Attribute("serial", .integer64)
                Attribute("small", .integer16)
                Attribute("medium", .integer32)
                Attribute("flag", .boolean)
                Attribute("ratio", .double)
                Attribute("label", .string)
                Attribute("at", .date)
                Attribute("tag", .uuid)
                Attribute("blob", .binary)
                Attribute("link", .uri)
                ToOne("account", "Account", inverse: "samples")
                Unique("serial")
            }
            Entity("Account") {
                Attribute("number", .integer64)
                Attribute("amount", .decimal)
                ToMany("samples", "Sample", inverse: "account")
            }
        }
    }

    static func values(_ n: Int, _ random: inout SeededRandom) -> [String: Value] {
        func maybe(_ value: Value) -> Value { random.below(7) == 0 ? .null : value }
        let texts = ["", "plain", "naïve café 東京 🚀", "tab\tnew\nline\\back\"quote'", String(repeating: "x", count: 3_000)]
        let ints: [Int64] = [0, 1, -1, .max, .min, 1 << 40]
        let dates = [Date(timeIntervalSinceReferenceDate: -1e9), Date(timeIntervalSinceReferenceDate: 0.5),
                     Date(timeIntervalSinceReferenceDate: 7e8 + Double(n))]
        return [
            "serial": .int(Int64(n)),
            "small": maybe(.int([Int64(Int16.min), 0, Int64(Int16.max)][random.below(3)])),
            "medium": maybe(.int([Int64(Int32.min), 7, Int64(Int32.max)][random.below(3)])),
            "flag": maybe(.bool(random.below(2) == 0)),
            "ratio": maybe(.double([0, -0.5, 1e300, .pi, -.infinity][random.below(5)])),
            "label": maybe(.string(texts[random.below(texts.count)])),
            "at": maybe(.date(dates[random.below(dates.count)])),
            "tag": maybe(.uuid(UUID(uuid: (UInt8(n & 255), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(n >> 8 & 255))))),
            "blob": maybe(.data(Data((0..<random.below(40)).map { UInt8(truncatingIfNeeded: $0 * n) }))),
            "link": maybe(.url(URL(string: "https://example.com/\(n)?q=1")!)),
        ]
    }

    /// Inserts `count` samples (and a few accounts they point at) into a
    /// context on a new database.
    static func insert(_ count: Int, seed: UInt64, into context: ManagedObjectContext) -> [[String: Value]] {
        var random = SeededRandom(seed: seed)
        let accounts = (0..<3).map { i -> ManagedObject in
            let account = context.insertObject(forEntityName: "Account")
            account["number"] = .int(Int64(i))
            account["amount"] = .decimal(Decimal(string: "12345678901234567890.0\(i)")!)
            return account
        }
        var expected: [[String: Value]] = []
        for n in 0..<count {
            let sample = context.insertObject(forEntityName: "Sample")
            var values = Self.values(n, &random)
            for (key, value) in values { sample[key] = value }
            let account = random.below(4)
            if account < 3 { sample.setObject(accounts[account], forKey: "account") }
            values["account"] = account < 3 ? .int(Int64(account)) : .null
            expected.append(values)
        }
        return expected
    }

    /// Every sample a fresh context reads, by serial, as name → value
    /// (the account as its number).
    static func stored(_ coordinator: PersistentStoreCoordinator) throws -> [[String: Value]] {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var request = FetchRequest(entityName: "Sample")
        request.sortDescriptors = [SortKey(keyPath: ["serial"], ascending: true)]
        return try context.fetch(request).map { sample in
            var values: [String: Value] = [:]
            for attribute in sample.entity.attributes { values[attribute.name] = sample[attribute.name] }
            values["account"] = sample.object(forKey: "account")?["number"] ?? .null
            return values
        }
    }

    static func coordinator() throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: .postgres, at: URL(string: try PostgresServer.shared().createDatabase())!)
        return coordinator
    }

    @Test(arguments: [1, 2] as [UInt64])
    func testALargeSaveReadsBackEveryValue(seed: UInt64) throws {
        let coordinator = try Self.coordinator()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let expected = Self.insert(2_000, seed: seed, into: context)
        // Progress hears every row once, whether it went by COPY (the
        // samples) or by INSERT (the accounts, after their copy was given up).
        var reports: [Int] = []
        try context.save { written, total in
            #expect(total == 2_003)
            reports.append(written)
        }
        #expect(reports == Array(stride(from: 256, through: 2_003, by: 256)) + [2_003])
        let stored = try Self.stored(coordinator)
        #expect(stored.count == expected.count)
        for (n, (got, want)) in zip(stored, expected).enumerated() where got != want {
            Issue.record("sample \(n), seed \(seed): stored \(got), set \(want)")
            break
        }
        // The accounts went by INSERT (a decimal has no binary form) with their exact amounts.
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var accounts = FetchRequest(entityName: "Account")
        accounts.sortDescriptors = [SortKey(keyPath: ["number"], ascending: true)]
        #expect(try fresh.fetch(accounts).map { $0["amount"] } == (0..<3).map { .decimal(Decimal(string: "12345678901234567890.0\($0)")!) })
        // Keys came from the sequence in one block: the next save takes the one after them.
        let late = context.insertObject(forEntityName: "Sample")
        late["serial"] = .int(-1)
        try context.save()
        #expect(late.objectID.primaryKey == 2_001)
    }

    /// The ways a save of 10,000 objects can fail in the middle: a
    /// duplicate of a stored row's unique value, and a value the server
    /// refuses (text with U+0000). Either way no row is written, the
    /// context keeps its changes, and once the one object is put right
    /// the same context saves them all.
    @Test(arguments: ["duplicate", "refused value"])
    func testAFailureInTheMiddleOfALargeSaveWritesNothing(failure: String) throws {
        let coordinator = try Self.coordinator()
        let first = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let stored = first.insertObject(forEntityName: "Sample")
        stored["serial"] = .int(-5)
        try first.save()

        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        context.mergePolicy = .error
        var objects: [ManagedObject] = []
        for n in 0..<10_000 {
            let sample = context.insertObject(forEntityName: "Sample")
            sample["serial"] = .int(Int64(n))
            sample["label"] = .string("sample \(n)")
            objects.append(sample)
        }
        let bad = objects[5_000]
        if failure == "duplicate" { bad["serial"] = .int(-5) } else { bad["label"] = .string("nul \u{0} inside") }
        #expect(throws: (any Error).self) { try context.save() }
        #expect(context.insertedObjects.count == 10_000 && objects.allSatisfy(\.isInserted), "the context keeps its changes")
        #expect(try Self.stored(coordinator).map { $0["serial"] } == [.int(-5)], "nothing was written")

        if failure == "duplicate" { bad["serial"] = .int(5_000) } else { bad["label"] = .string("fine") }
        try context.save()
        #expect(!context.hasChanges)
        let serials = try Self.stored(coordinator).map { $0["serial"] }
        #expect(serials == [.int(-5)] + (0..<10_000).map { .int(Int64($0)) })
    }

    /// The binary copy format for every type it writes, read back by the
    /// server; a value without a binary form for its column is refused
    /// before anything is sent.
    @Test func testCopyWritesEveryBinaryType() throws {
        let connection = try PostgresConnection(try PostgresServer.shared().createDatabase())
        try connection.execute("""
            CREATE TABLE c (b bigint, i integer, s smallint, f boolean, d double precision, t text, \
            at timestamptz, u uuid, x bytea)
            """)
        let types = try connection.parameterTypes(of: "INSERT INTO c VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let uuid = UUID()
        let rows: [[Value]] = [
            [.int(.min), .int(Int64(Int32.max)), .int(-7), .bool(true), .double(-1.25), .string("été\t\\"),
             .date(Date(timeIntervalSinceReferenceDate: 12.5)), .uuid(uuid), .data(Data([0, 1, 255]))],
            Array(repeating: .null, count: 9),
        ]
        var copy = PostgresCopy()
        for row in rows {
            copy.startRow(fields: row.count)
            for (value, type) in zip(row, types) {
                let appended = copy.append(value, type: type)
                #expect(appended)
            }
        }
        #expect(try connection.copy("COPY c FROM STDIN (FORMAT binary)", copy) == 2)
        #expect(try connection.rows("SELECT * FROM c ORDER BY b NULLS LAST") == rows)

        var refused = PostgresCopy()
        refused.startRow(fields: 1)
        let appended = [refused.append(.int(1 << 20), type: PostgresType.int2), refused.append(.decimal(1), type: PostgresType.numeric),
                        refused.append(.string("1"), type: PostgresType.int8)]
        #expect(appended == [false, false, false])
        // A refused row fails the statement with the server's message.
        var bad = PostgresCopy()
        bad.startRow(fields: 1)
        let nul = bad.append(.string("a\u{0}b"), type: PostgresType.text)
        #expect(nul)
        let error = #expect(throws: StoreError.self) { try connection.copy("COPY c (t) FROM STDIN (FORMAT binary)", bad) }
        #expect(error?.sqlState == "22021", "\(String(describing: error))")
        #expect(try connection.scalar("SELECT count(*) FROM c") == .int(2), "the connection still works")
    }

    // MARK: - A copy sent while it is encoded

    /// How many rows a copy into the watcher's database has written so
    /// far, as the server's progress view tells another connection; waits
    /// up to 10 seconds for at least one.
    static func rowsCopiedSoFar(_ watcher: PostgresConnection) throws -> Int64 {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let value = try watcher.scalar("""
                SELECT coalesce(max(tuples_processed), 0) FROM pg_stat_progress_copy WHERE datname = current_database()
                """)
            if case .int(let rows)? = value, rows > 0 || Date() > deadline { return rows }
            usleep(10_000)
        }
    }

    /// Issue 35: the rows of a large save reach the server in chunks while
    /// the rest are encoded, so the server stores the first while the
    /// client encodes the last, rather than one after the other: by the
    /// time the save has encoded 25,000 of its 30,000 rows, the server has
    /// written some, and the save then writes them all.
    @Test func testALargeSaveSendsRowsWhileItEncodesTheRest() throws {
        let url = try PostgresServer.shared().createDatabase()
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: .postgres, at: URL(string: url)!)
        let watcher = try PostgresConnection(url)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for n in 0..<30_000 {
            let sample = context.insertObject(forEntityName: "Sample")
            sample["serial"] = .int(Int64(n))
            sample["label"] = .string("sample number \(n), with a label long enough to fill a chunk sooner")
        }
        var copiedWhileEncoding: Int64?
        try context.save { written, _ in
            if written == 25_088, copiedWhileEncoding == nil {
                copiedWhileEncoding = try Self.rowsCopiedSoFar(watcher)
            }
        }
        let copied = try #require(copiedWhileEncoding)
        #expect(copied > 0 && copied < 25_088, "\(copied) rows written while the save encoded the 25,088th")
        #expect(try watcher.scalar("SELECT count(*) FROM \"Sample\"") == .int(30_000))
    }

    /// A value with no binary form (a decimal) in a row after the copy
    /// started: the rows before it go by the copy, it and the rest by
    /// INSERT; every value reads back, progress hears each row once, and
    /// the keys stay those the objects were given.
    @Test func testARowWithNoBinaryFormAfterTheCopyStartedGoesByInsert() throws {
        let coordinator = try Self.coordinator()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let amounts: [Int: Decimal] = [15_000: Decimal(string: "1.25")!, 15_001: Decimal(string: "-3")!,
                                       19_999: Decimal(string: "12345678901234567890.5")!]
        var accounts: [ManagedObject] = []
        for n in 0..<20_000 {
            let account = context.insertObject(forEntityName: "Account")
            account["number"] = .int(Int64(n))
            if let amount = amounts[n] { account["amount"] = .decimal(amount) }
            accounts.append(account)
        }
        var reports: [Int] = []
        try context.save { written, _ in reports.append(written) }
        #expect(reports == Array(stride(from: 256, through: 20_000, by: 256)) + [20_000])
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var request = FetchRequest(entityName: "Account")
        request.sortDescriptors = [SortKey(keyPath: ["number"], ascending: true)]
        let stored = try fresh.fetch(request)
        #expect(stored.map { $0["number"] } == (0..<20_000).map { .int(Int64($0)) })
        #expect(stored.map { $0["amount"] } == (0..<20_000).map { amounts[$0].map(Value.decimal) ?? .null })
        #expect(stored.map(\.objectID.primaryKey) == accounts.map(\.objectID.primaryKey))
    }

    /// Stopping a save (its progress throws, as Ctrl-C makes it) once the
    /// copy has sent rows: nothing is written, the store's connection goes
    /// on working, and the same context then saves everything.
    @Test func testStoppingASaveAfterTheCopySentRowsWritesNothing() throws {
        struct Stop: Error {}
        let coordinator = try Self.coordinator()
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for n in 0..<20_000 {
            let sample = context.insertObject(forEntityName: "Sample")
            sample["serial"] = .int(Int64(n))
            sample["label"] = .string("sample \(n) with a label to fill the chunks")
        }
        #expect(throws: Stop.self) {
            try context.save { written, _ in if written >= 15_000 { throw Stop() } }
        }
        #expect(context.insertedObjects.count == 20_000, "the context keeps its changes")
        #expect(try Self.stored(coordinator).isEmpty, "nothing was written")
        try context.save()
        #expect(try Self.stored(coordinator).map { $0["serial"] } == (0..<20_000).map { .int(Int64($0)) })
    }
}
