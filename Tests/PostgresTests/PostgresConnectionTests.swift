import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// libpq through `PostgresConnection`, against the test server.
@Suite struct PostgresConnectionTests {
    @Test func testConnectsByURLByKeywordsAndFromTheEnvironment() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase()
        let name = String(url.split(separator: "/").last!)
        #expect(try PostgresConnection(url).scalar("SELECT current_database()") == .string(name))
        let keywords = try PostgresConnection("host=127.0.0.1 port=\(server.port) user=mrq dbname=\(name)")
        #expect(try keywords.scalar("SELECT current_database()") == .string(name))
        #expect(keywords.target == "user mrq on 127.0.0.1:\(server.port), database \(name)")
        // What the URL leaves out, libpq takes from PG* (as psql does).
        setenv("PGPORT", "\(server.port)", 1)
        setenv("PGUSER", "mrq", 1)
        setenv("PGDATABASE", name, 1)
        defer {
            unsetenv("PGPORT")
            unsetenv("PGUSER")
            unsetenv("PGDATABASE")
        }
        #expect(try PostgresConnection("postgres://127.0.0.1").scalar("SELECT current_database()") == .string(name))
    }

    /// Random values of every type the store uses, NULLs among them, go
    /// in as parameters and come back equal.
    @Test func testEveryTypeRoundTripsExactly() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("""
            CREATE TABLE v (k bigint PRIMARY KEY, b bigint, i integer, s smallint, d double precision, t text,
                            f boolean, ts timestamptz, y bytea, u uuid, n numeric)
            """)
        var random = SplitMix64(seed: 20)
        var expected: [[Value]] = []
        for k in 0..<300 {
            var row: [Value] = [.int(Int64(k))]
            let makers: [(inout SplitMix64) -> Value] = [
                { .int(Int64(bitPattern: $0.next())) },
                { .int(Int64(Int32.random(in: .min ... .max, using: &$0))) },
                { .int(Int64(Int16.random(in: .min ... .max, using: &$0))) },
                { .double(Self.double(&$0)) },
                { .string(Self.string(&$0)) },
                { .bool(Bool.random(using: &$0)) },
                // Within 63 years of 2001 a Date holds every microsecond.
                { .date(PostgresTimestamp.date(microseconds: Int64.random(in: -2_000_000_000_000_000 ... 2_000_000_000_000_000, using: &$0))) },
                { .data(Self.bytes(&$0)) },
                { .uuid(Self.uuid(&$0)) },
                { .decimal(Self.decimal(&$0)) },
            ]
            for make in makers { row.append(Int.random(in: 0..<8, using: &random) == 0 ? .null : make(&random)) }
            try connection.execute("INSERT INTO v VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)", row)
            expected.append(row)
        }
        let found = try connection.rows("SELECT k, b, i, s, d, t, f, ts, y, u, n FROM v ORDER BY k")
        #expect(found.count == expected.count)
        for (got, want) in zip(found, expected) where got != want {
            Issue.record("row \(want[0]): stored \(want), read \(got)")
        }
    }

    @Test func testDoublesAtTheEdgesAndNaN() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("CREATE TABLE d (k int, d double precision, n numeric)")
        let edges: [Double] = [0, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1, -1e-300]
        for (k, d) in edges.enumerated() { try connection.execute("INSERT INTO d VALUES ($1, $2, NULL)", [.int(Int64(k)), .double(d)]) }
        let read = try connection.rows("SELECT d FROM d ORDER BY k").map { $0[0] }
        #expect(read.map { if case .double(let d) = $0 { return d.bitPattern } else { return 0 } } == edges.map(\.bitPattern))
        try connection.execute("INSERT INTO d VALUES (99, $1, $2)", [.double(.nan), .decimal(.nan)])
        let nan = try connection.rows("SELECT d, n FROM d WHERE k = 99")[0]
        guard case .double(let d) = nan[0], case .decimal(let n) = nan[1] else {
            Issue.record("read \(nan)")
            return
        }
        #expect(d.isNaN && n.isNaN)
    }

    /// PostgreSQL keeps microseconds: a date is rounded to the nearest.
    @Test func testDatesKeepMicroseconds() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789)
        guard case .date(let read)? = try connection.scalar("SELECT $1::timestamptz", [.date(date)]) else {
            Issue.record("no date")
            return
        }
        #expect(abs(read.timeIntervalSince(date)) < 0.000_000_5)
        #expect(PostgresTimestamp.microseconds(read) == PostgresTimestamp.microseconds(date))
        #expect(try connection.scalar("SELECT $1::timestamptz = '2004-11-29 21:33:09.123457+00'", [.date(date)]) == .bool(true))
        #expect(try connection.scalar("SELECT $1::timestamptz", [.date(.distantFuture)])
                    == .date(PostgresTimestamp.date(microseconds: PostgresTimestamp.microseconds(.distantFuture))))
        // Far from 2001 a Date is coarser than a microsecond: what is read
        // back is stored again as the same timestamp.
        var random = SplitMix64(seed: 21)
        for _ in 0..<1_000 {
            let date = Date(timeIntervalSinceReferenceDate: Double.random(in: -1e11 ... 1e11, using: &random))
            let stored = PostgresTimestamp.microseconds(date)
            #expect(PostgresTimestamp.microseconds(PostgresTimestamp.date(microseconds: stored)) == stored)
        }
    }

    /// PostgreSQL's text holds no NUL: such a string is refused, never cut
    /// short.
    @Test func testTextWithANulIsRefusedNotCut() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("CREATE TABLE s (t text)")
        #expect(throws: StoreError.self) { try connection.execute("INSERT INTO s VALUES ($1)", [.string("a\u{0}b")]) }
        #expect(throws: StoreError.self) { try connection.execute("INSERT INTO s VALUES ($1::text)", [.string("a\u{0}b")]) }
        #expect(try connection.scalar("SELECT count(*) FROM s") == .int(0))
    }

    @Test func testStatementsArePreparedOncePerSQLText() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        let start = connection.statementsPrepared
        for i in 0..<5 { #expect(try connection.scalar("SELECT $1::bigint + 1", [.int(Int64(i))]) == .int(Int64(i + 1))) }
        #expect(connection.statementsPrepared == start + 1)
        _ = try connection.scalar("SELECT $1::bigint + 2", [.int(0)])
        #expect(connection.statementsPrepared == start + 2)
        try connection.forgetStatements()
        _ = try connection.scalar("SELECT $1::bigint + 1", [.int(0)])
        #expect(connection.statementsPrepared == start + 3)
    }

    /// Each value is sent as the type the server inferred for its place.
    @Test func testValuesAreSentAsTheTypeTheirPlaceNeeds() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("CREATE TABLE m (s smallint, f boolean, n numeric, d double precision, u uuid, t text)")
        let uuid = UUID()
        try connection.execute("INSERT INTO m VALUES ($1, $2, $3, $4, $5, $6)",
                               [.int(7), .int(1), .double(0.5), .int(3), .string(uuid.uuidString), .url(URL(string: "https://x.org/a?b")!)])
        #expect(try connection.rows("SELECT s, f, n, d, u, t FROM m")[0]
                    == [.int(7), .bool(true), .decimal(Decimal(string: "0.5")!), .double(3), .uuid(uuid), .string("https://x.org/a?b")])
        let error = #expect(throws: StoreError.self) { try connection.execute("INSERT INTO m (s) VALUES ($1)", [.int(40_000)]) }
        #expect(error?.sqlState == "22003")
    }

    @Test func testErrorsCarrySQLStateTheServersMessageAndTheSQL() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("CREATE TABLE u (x text UNIQUE)")
        try connection.execute("INSERT INTO u VALUES ($1)", [.string("secret-value")])
        let duplicate = #expect(throws: StoreError.self) { try connection.execute("INSERT INTO u VALUES ($1)", [.string("secret-value")]) }
        #expect(duplicate?.kind == .constraint)
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.sql == "INSERT INTO u VALUES ($1)")
        #expect(duplicate?.description == """
            PostgreSQL error 23505: duplicate key value violates unique constraint "u_x_key" - while executing `INSERT INTO u VALUES ($1)`
            """)
        let syntax = #expect(throws: StoreError.self) { try connection.execute("SELEC 1") }
        #expect(syntax?.sqlState == "42601")
        let missing = #expect(throws: StoreError.self) { try connection.scalar("SELECT x FROM nowhere WHERE x = $1", [.int(1)]) }
        #expect(missing?.sqlState == "42P01")
        #expect(missing?.description.contains("relation \"nowhere\" does not exist") == true)
        #expect(StoreError(.other, "PostgreSQL error 2350").sqlState == nil)
    }

    @Test func testAFailedConnectionNamesTheServerNeverThePassword() throws {
        let server = try PostgresServer.shared()
        let port = try PostgresServer.freePort()
        for conninfo in ["postgres://mrq:hunter2@127.0.0.1:\(port)/people",
                         "host=127.0.0.1 port=\(port) user=mrq password=hunter2 dbname=people"] {
            let error = #expect(throws: StoreError.self) { try PostgresConnection(conninfo) }
            #expect(error?.kind == .cannotOpen)
            #expect(error?.description.hasPrefix("cannot connect to PostgreSQL (user mrq on 127.0.0.1:\(port), database people): ") == true)
            #expect(error?.description.contains("hunter2") == false)
        }
        let noDatabase = #expect(throws: StoreError.self) { try PostgresConnection(server.url(database: "nosuchdb")) }
        #expect(noDatabase?.kind == .cannotOpen)
        #expect(noDatabase?.description.contains("\"nosuchdb\" does not exist") == true)
    }

    @Test func testTransactionsAreAllOrNothingAndNestAsSavepoints() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("CREATE TABLE r (x int UNIQUE)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO r VALUES ($1)", [.int(1)])
                throw Stop()
            }
        }
        #expect(try connection.scalar("SELECT count(*) FROM r") == .int(0))
        try connection.transaction {
            try connection.execute("INSERT INTO r VALUES ($1)", [.int(1)])
            // A failed statement in a savepoint leaves the transaction usable.
            #expect(throws: StoreError.self) { try connection.transaction { try connection.execute("INSERT INTO r VALUES ($1)", [.int(1)]) } }
            #expect(throws: Stop.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO r VALUES ($1)", [.int(2)])
                    throw Stop()
                }
            }
            try connection.execute("INSERT INTO r VALUES ($1)", [.int(3)])
        }
        #expect(try connection.rows("SELECT x FROM r ORDER BY x") == [[.int(1)], [.int(3)]])
        #expect(!connection.isInTransaction)
    }

    /// PostgreSQL answers COMMIT with a rollback when a statement failed;
    /// that is an error, not a silent loss.
    @Test func testCommittingAFailedTransactionThrows() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        try connection.execute("CREATE TABLE c (x int)")
        try connection.beginTransaction()
        try connection.execute("INSERT INTO c VALUES ($1)", [.int(1)])
        _ = try? connection.execute("INSERT INTO c VALUES ($1)", [.string("not a number")])
        let error = #expect(throws: StoreError.self) { try connection.commitTransaction() }
        #expect(error?.sqlState == "25P02")
        #expect(!connection.isInTransaction)
        #expect(try connection.scalar("SELECT count(*) FROM c") == .int(0))
    }

    @Test func testReconnectsAfterTheServerDropsTheConnection() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        guard case .int(let pid)? = try connection.scalar("SELECT pg_backend_pid()") else {
            Issue.record("no backend")
            return
        }
        let admin = try PostgresConnection(try PostgresServer.shared().url(database: "postgres"))
        #expect(try admin.scalar("SELECT pg_terminate_backend($1::int, 5000)", [.int(pid)]) == .bool(true))
        #expect(throws: StoreError.self) { try connection.scalar("SELECT $1::int + 1", [.int(1)]) }
        #expect(try connection.scalar("SELECT $1::int + 1", [.int(1)]) == .int(2))
        #expect(try connection.scalar("SELECT pg_backend_pid()") != .int(pid))
    }

    // MARK: - Random values

    static func double(_ random: inout SplitMix64) -> Double {
        let edges: [Double] = [0, -0.0, 1, -1, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1]
        if Bool.random(using: &random) { return edges.randomElement(using: &random)! }
        var d = Double(bitPattern: random.next())
        while d.isNaN { d = Double(bitPattern: random.next()) }
        return d
    }

    static func string(_ random: inout SplitMix64) -> String {
        let pieces = ["", "a", "Zoë", "'", "\"", "\\", "%", "_", "日本", "👩‍👩‍👧", "e\u{301}", " ", "\n", "\u{7F}", "\u{FFFF}"]
        return (0..<Int.random(in: 0..<6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func bytes(_ random: inout SplitMix64) -> Data {
        Data((0..<Int.random(in: 0..<40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    static func uuid(_ random: inout SplitMix64) -> UUID {
        let bits = (random.next(), random.next())
        return withUnsafeBytes(of: bits) { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    static func decimal(_ random: inout SplitMix64) -> Decimal {
        let digits = (0..<Int.random(in: 1...38, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
        let exponent = Int.random(in: -40...40, using: &random)
        let sign = Bool.random(using: &random) ? "-" : ""
        return Decimal(string: "\(sign)\(digits)e\(exponent)", locale: Locale(identifier: "en_US_POSIX"))!
    }
}
