import CLibPQ
import Foundation
import ObjectStore
import Predicates

/// One connection to a PostgreSQL server, through libpq, used from one
/// thread at a time.
///
/// ```swift
/// let connection = try PostgresConnection("postgres://mrq@127.0.0.1:5432/people")
/// let rows = try connection.rows("SELECT name FROM person WHERE age > $1", [.int(30)])
/// ```
///
/// `conninfo` is a URL (`postgres://user@host:port/database?option=…`)
/// or libpq's `key=value` form; whatever it leaves out comes from the
/// `PG*` environment variables (`PGHOST`, `PGPORT`, `PGUSER`,
/// `PGPASSWORD`, …) and a password from `~/.pgpass`, as for `psql`.
/// Messages name the server, the database and the user, never a password.
///
/// Every statement with values is prepared once per connection (cached by
/// its SQL text) and run with each value bound as a parameter of the type
/// the server inferred for it (see `PostgresType`); results come back in
/// binary. Parameters are PostgreSQL's `$1`, `$2`, … or SQLite's `?`,
/// numbered in order (see `numberingParameters`). The store that owns the
/// connection serialises every use.
package final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer
    /// The server, database and user, for messages.
    package let target: String
    /// Where the connection went, as a URL without a password:
    /// `postgres://mrq@127.0.0.1:5432/people`, with what the URL it was
    /// given left out filled in (from the `PG*` variables and defaults).
    package let location: URL?
    private var statements: [String: Prepared] = [:]
    /// How many statements this connection has prepared, for tests of the cache.
    package private(set) var statementsPrepared = 0
    /// How deep the open transactions nest (see `SQLConnection`).
    package var transactionDepth = 0
    /// A transaction was opened but its BEGIN not sent yet: it goes with
    /// the first statement (see `sendingBegin`), or not at all when the
    /// transaction runs none.
    private var beginPending = false
    /// How many requests this connection has sent the server and waited
    /// for (statements, prepares, descriptions, COPYs, COMMITs), for tests
    /// and benchmarks that count round trips.
    package private(set) var roundTrips = 0

    private struct Prepared {
        let name: String
        let parameterTypes: [UInt32]
    }

    package init(_ conninfo: String) throws {
        guard let connection = PQconnectdb(conninfo) else {
            throw StoreError(.cannotOpen, "cannot connect to PostgreSQL: out of memory")
        }
        target = Self.describe(connection)
        location = Self.location(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.withoutPassword(Self.errorMessage(connection), of: conninfo)
            PQfinish(connection)
            throw StoreError(.cannotOpen, "cannot connect to PostgreSQL (\(target)): \(message)")
        }
        handle = connection
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        guard PQsetClientEncoding(handle, "UTF8") == 0 else {
            let message = Self.errorMessage(handle)
            PQfinish(handle)
            throw StoreError(.cannotOpen, "cannot speak UTF-8 with PostgreSQL (\(target)): \(message)")
        }
    }

    deinit { PQfinish(handle) }

    /// The name `StatementObservers` knows the connection by: its
    /// database's.
    private var observedName: String { String(cString: PQdb(handle)) }

    /// The server's version as a number: 150018 for 15.18.
    package var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// `user mrq on 127.0.0.1:5432, database people`.
    private static func describe(_ connection: OpaquePointer) -> String {
        func text(_ value: UnsafeMutablePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "" }
        let host = text(PQhost(connection)), port = text(PQport(connection))
        let place = host.hasPrefix("/") ? "the socket in \(host)" : "\(host):\(port)"
        return "user \(text(PQuser(connection))) on \(place), database \(text(PQdb(connection)))"
    }

    private static func location(_ connection: OpaquePointer) -> URL? {
        func text(_ value: UnsafeMutablePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "" }
        var parts = URLComponents()
        parts.scheme = "postgres"
        parts.user = text(PQuser(connection))
        // A socket directory is a host too; its slashes are escaped.
        parts.percentEncodedHost = text(PQhost(connection))
            .addingPercentEncoding(withAllowedCharacters: .urlHostAllowed.subtracting(CharacterSet(charactersIn: "/")))
        parts.port = Int(text(PQport(connection)))
        parts.path = "/" + text(PQdb(connection))
        return parts.url
    }

    private static func errorMessage(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\n", with: "; ")
    }

    /// `message` with the password `conninfo` holds (if any) blanked out,
    /// should libpq quote it back.
    private static func withoutPassword(_ message: String, of conninfo: String) -> String {
        guard let options = PQconninfoParse(conninfo, nil) else { return message }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val, value.pointee != 0 {
                return message.replacingOccurrences(of: String(cString: value), with: "********")
            }
            option += 1
        }
        return message
    }

    // MARK: - Statements

    /// Runs SQL with no parameters: one or more statements, by the simple
    /// protocol (for DDL and transaction control).
    package func execute(_ sql: String) throws {
        try reconnectIfLost()
        try sendPendingBegin()
        roundTrips += 1
        if StatementObservers.isActive { StatementObservers.notify(observedName, sql: sql) }
        PQclear(try check(PQexec(handle, sql), sql: sql))
    }

    /// Runs one statement with bound values; returns how many rows it
    /// inserted, updated or deleted.
    @discardableResult
    package func execute(_ sql: String, _ values: [Value]) throws -> Int {
        try query(sql, values).affectedRows
    }

    /// Runs one statement with bound values and returns its result.
    package func query(_ sql: String, _ values: [Value] = []) throws -> PostgresResult {
        try reconnectIfLost()
        let statement = try prepared(sql)
        let types = statement.parameterTypes
        guard values.count == types.count else {
            throw StoreError(.misuse, "the statement takes \(types.count) values, not \(values.count)", sql: sql)
        }
        // One buffer for every value; a zero-length value still needs an
        // address (libpq reads a null one as NULL), so it starts with a byte.
        var buffer: [UInt8] = [0]
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for (value, type) in zip(values, types) {
            let parameter = try PostgresType.parameter(value, type: type)
            offsets.append(parameter.bytes.map { _ in buffer.count })
            lengths.append(Int32(parameter.bytes?.count ?? 0))
            formats.append(parameter.isBinary ? 1 : 0)
            if let bytes = parameter.bytes { buffer += bytes }
        }
        roundTrips += 1
        if StatementObservers.isActive { StatementObservers.notify(observedName, sql: sql) }
        let result = try buffer.withUnsafeBytes { bytes -> OpaquePointer? in
            let base = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return try sendingBegin {
                PQsendQueryPrepared(handle, statement.name, Int32(types.count), pointers, lengths, formats, 1)
            } ?? PQexecPrepared(handle, statement.name, Int32(types.count), pointers, lengths, formats, 1)
        }
        return PostgresResult(try check(result, sql: sql), sql: sql)
    }

    /// Rows of a query as arrays of values.
    package func rows(_ sql: String, _ values: [Value] = []) throws -> [[Value]] {
        let result = try query(sql, values)
        return try (0..<result.rowCount).map { row in try (0..<result.columnCount).map { try result.value(row, $0) } }
    }

    /// The first column of the first row, or nil.
    package func scalar(_ sql: String, _ values: [Value] = []) throws -> Value? {
        let result = try query(sql, values)
        return result.rowCount > 0 && result.columnCount > 0 ? try result.value(0, 0) : nil
    }

    /// The statement for `sql`, prepared on first use: the server infers
    /// each parameter's type from where it stands, and values are sent as
    /// that type.
    private func prepared(_ sql: String) throws -> Prepared {
        if let statement = statements[sql] { return statement }
        statementsPrepared += 1
        roundTrips += 2
        let name = "mrq\(statementsPrepared)"
        PQclear(try check(PQprepare(handle, name, Self.numberingParameters(sql), 0, nil), sql: sql))
        let description = try check(PQdescribePrepared(handle, name), sql: sql)
        defer { PQclear(description) }
        let statement = Prepared(name: name, parameterTypes: (0..<PQnparams(description)).map { PQparamtype(description, $0) })
        statements[sql] = statement
        return statement
    }

    /// The type the server inferred for each parameter of `sql`, which is
    /// prepared (once) to learn them: for an INSERT, its columns' types.
    package func parameterTypes(of sql: String) throws -> [UInt32] {
        try reconnectIfLost()
        return try prepared(sql).parameterTypes
    }

    /// Runs `COPY … FROM STDIN (FORMAT binary)` with the rows `copy` holds;
    /// returns how many rows the server wrote. A row the server refuses
    /// fails the statement, and with it the transaction, as a failed
    /// INSERT would. (`PostgresCopyIn` sends rows while it encodes more.)
    @discardableResult
    package func copy(_ sql: String, _ copy: PostgresCopy) throws -> Int {
        var stream = PostgresCopyIn(self, sql, rows: copy)
        return try stream.finish()
    }

    /// Starts `sql`, a `COPY … FROM STDIN`: the server then reads rows
    /// (`sendCopyData`) until `endCopy`.
    func startCopy(_ sql: String) throws {
        try reconnectIfLost()
        try sendPendingBegin()
        roundTrips += 2  // this, and the answer to `endCopy`
        let started = PQexec(handle, sql)
        guard let started, PQresultStatus(started) == PGRES_COPY_IN else {
            PQclear(try check(started, sql: sql))
            throw StoreError(.misuse, "not a COPY … FROM STDIN statement", sql: sql)
        }
        PQclear(started)
    }

    /// Sends bytes of the started copy's rows, a megabyte at most a
    /// message; false when the connection failed (`endCopy` says how).
    func sendCopyData(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return true }
        var offset = 0
        while offset < bytes.count {
            let length = min(1 << 20, bytes.count - offset)
            guard PQputCopyData(handle, base + offset, Int32(length)) == 1 else { return false }
            offset += length
        }
        return true
    }

    /// Ends the started copy: its rows, or with a `failure` the statement
    /// (which the server then reports failed); returns how many rows the
    /// server wrote, or throws its error.
    func endCopy(failure: String?, sql: String) throws -> Int {
        // Ending the data (or the statement) is what makes the server
        // answer; its answer says what went wrong.
        _ = PQputCopyEnd(handle, failure)
        var affected = 0
        var error: Error?
        while let result = PQgetResult(handle) {
            do {
                let checked = try check(result, sql: sql)
                affected = Int(String(cString: PQcmdTuples(checked))) ?? 0
                PQclear(checked)
            } catch let failed {
                error = error ?? failed
            }
        }
        if let error { throw error }
        return affected
    }

    /// `sql` with SQLite's `?` parameters numbered as PostgreSQL's (`$1`,
    /// `$2`, …), so that one builder serves both engines; a `?` inside a
    /// quoted identifier or string literal is left alone. SQL that numbers
    /// its own parameters has no `?` to number.
    static func numberingParameters(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var result = ""
        var quote: Character?
        var count = 0
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "?" {
                count += 1
                result += "$\(count)"
                continue
            }
            result.append(character)
        }
        return result
    }

    /// Forgets the prepared statements, on the server too: after a schema
    /// change, a cached plan whose columns changed type would be refused.
    package func forgetStatements() throws {
        guard !statements.isEmpty else { return }
        try execute("DEALLOCATE ALL")
        statements = [:]
    }

    /// What the connection has to say since last asked: that it
    /// reconnected after losing the server (`reconnected to PostgreSQL
    /// (…)`).
    package private(set) var notices: [String] = []

    /// Takes the notices said so far.
    package func takeNotices() -> [String] {
        defer { notices = [] }
        return notices
    }

    /// Runs `body`, statements that only read, again once on a fresh
    /// connection when the connection was lost (a server restarted while
    /// it sat idle) outside a transaction; says so in `notices`. Writes
    /// are never run again: their caller reports them not applied.
    package func reading<T>(_ body: () throws -> T) throws -> T {
        let before = reconnections
        do {
            return try body()
        } catch let error as StoreError where lostConnection(error, since: before) {
            try reconnectAfterLoss(error)
            return try body()
        }
    }

    /// Whether `error`, outside a transaction, came of losing the
    /// connection (which may be back already: a rollback on the way out
    /// reconnects) since `reconnections` was `before`.
    package func lostConnection(_ error: StoreError, since before: Int) -> Bool {
        transactionDepth == 0 && (PQstatus(handle) == CONNECTION_BAD || reconnections > before)
            && (error.sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false)
    }

    /// Reconnects after `error` lost the connection, if it is not back
    /// already; throws `error`, noting that reconnecting failed too, when
    /// the server is not back.
    package func reconnectAfterLoss(_ error: StoreError) throws {
        do {
            try reconnectIfLost()
        } catch let failure as StoreError {
            throw StoreError(failure.kind, "\(error.message); \(failure.message)", code: error.code, sql: error.sql)
        }
    }

    /// How many times the connection was made again.
    package private(set) var reconnections = 0

    /// Reconnects a connection the server or the network dropped, when no
    /// transaction was open on it (one that was is lost, and its error
    /// already said so).
    private func reconnectIfLost() throws {
        guard PQstatus(handle) == CONNECTION_BAD, transactionDepth == 0 else { return }
        PQreset(handle)
        statements = [:]
        guard PQstatus(handle) == CONNECTION_OK else {
            throw StoreError(.cannotOpen, "lost the connection to PostgreSQL (\(target)) and cannot reconnect: \(Self.errorMessage(handle))")
        }
        PQsetClientEncoding(handle, "UTF8")
        reconnections += 1
        notices.append("reconnected to PostgreSQL (\(target))")
    }

    /// The result when it is not an error; otherwise a `StoreError` with
    /// the server's SQLSTATE and message (`08006` when the connection was
    /// lost on the way).
    private func check(_ result: OpaquePointer?, sql: String?) throws -> OpaquePointer {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return result }
        }
        defer { PQclear(result) }
        func field(_ code: Character) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let lost = PQstatus(handle) == CONNECTION_BAD
        let state = field("C") ?? (lost ? "08006" : "XX000")
        var message = field("M") ?? Self.errorMessage(handle)
        if lost { message = "lost the connection to PostgreSQL (\(target)): \(message)" }
        throw StoreError.postgres(sqlState: state, message: message, hint: field("H"), sql: sql)
    }

    // MARK: - Transactions

    /// COMMIT, which PostgreSQL answers with a rollback, not an error,
    /// when a statement in the transaction failed: that is an error here.
    private func commit() throws {
        // A transaction that ran no statement has nothing to commit.
        if beginPending {
            beginPending = false
            return
        }
        roundTrips += 1
        let result = try check(PQexec(handle, "COMMIT"), sql: "COMMIT")
        defer { PQclear(result) }
        if String(cString: PQcmdStatus(result)) == "ROLLBACK" {
            throw StoreError.postgres(sqlState: "25P02", message: "the transaction was rolled back: a statement in it failed",
                                      sql: "COMMIT")
        }
    }

    /// Sends the BEGIN of the open transaction if it is still pending, on
    /// its own: before a statement that cannot go in a pipeline with it.
    private func sendPendingBegin() throws {
        guard beginPending else { return }
        beginPending = false
        roundTrips += 1
        PQclear(try check(PQexec(handle, "BEGIN"), sql: "BEGIN"))
    }

    /// When the open transaction's BEGIN is pending, sends it and the
    /// statement `send` sends in one pipeline, one round trip, and
    /// returns the statement's result (an error when BEGIN failed); nil
    /// when no BEGIN is pending, for the caller to run the statement as
    /// usual.
    private func sendingBegin(_ send: () -> Int32) throws -> OpaquePointer?? {
        guard beginPending else { return nil }
        beginPending = false
        guard PQenterPipelineMode(handle) == 1 else {
            try sendPendingBegin()
            return nil
        }
        defer { PQexitPipelineMode(handle) }
        guard PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 1) == 1, send() == 1, PQpipelineSync(handle) == 1 else {
            drainPipeline()
            return .some(nil)
        }
        // Each query's results end with a NULL; then the sync's.
        var results: [OpaquePointer?] = [nil, nil]
        var query = 0
        while query < 2 {
            guard let result = PQgetResult(handle) else { query += 1; continue }
            if results[query] == nil { results[query] = result } else { PQclear(result) }
        }
        drainPipeline()
        do {
            PQclear(try check(results[0], sql: "BEGIN"))
        } catch {
            PQclear(results[1])
            throw error
        }
        return .some(results[1])
    }

    /// Reads what is left of a pipeline, up to its sync.
    private func drainPipeline() {
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
    }

}

extension PostgresConnection: SQLConnection {
    package var dialect: SQLDialect { PostgresDialect() }

    package var databaseName: String { target }

    package func tableExists(_ name: String) throws -> Bool {
        try PostgresSchema.tableExists(name, on: self)
    }

    /// Marks a BEGIN to send with the transaction's first statement (see
    /// `sendingBegin`), or not at all when it runs none.
    package func beginOutermostTransaction() throws {
        beginPending = true
    }

    package func commitOutermostTransaction() throws {
        try commit()
    }

    /// ROLLBACK, unless the transaction's BEGIN was never sent.
    package func rollbackOutermostTransaction() {
        if beginPending {
            beginPending = false
        } else {
            try? execute("ROLLBACK")
        }
    }

    /// After a deadlock (40P01) or a serialization failure (40001): the
    /// server picked this transaction as the one to give up, and running
    /// it again is always safe.
    package func mayRetryTransaction(after error: StoreError) -> Bool {
        error.sqlState == "40P01" || error.sqlState == "40001"
    }
}

/// The rows a statement returned, read in binary.
package final class PostgresResult {
    private let handle: OpaquePointer
    private let sql: String

    init(_ handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit { PQclear(handle) }

    package var rowCount: Int { Int(PQntuples(handle)) }
    package var columnCount: Int { Int(PQnfields(handle)) }

    /// How many rows an INSERT, UPDATE or DELETE changed (0 for others).
    package var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    package func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }

    /// The column's type OID (see `PostgresType`).
    package func columnType(_ column: Int) -> UInt32 { PQftype(handle, Int32(column)) }

    package func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) != 0 }

    /// A bigint, integer or smallint column.
    package func int64(_ row: Int, _ column: Int) -> Int64 {
        if case .int(let i)? = PostgresType.value(bytes(row, column), type: columnType(column)) { return i }
        return 0
    }

    /// A one-dimensional bigint[] column with no NULL element, as its
    /// elements (from PostgreSQL's binary array form: dimensions, flags,
    /// element type, each dimension's length and lower bound, then each
    /// element's length and value); nil for anything else.
    package func int64Array(_ row: Int, _ column: Int) -> [Int64]? {
        let b = bytes(row, column)
        func int32(_ at: Int) -> Int32 { Int32(bigEndian: b.loadUnaligned(fromByteOffset: at, as: Int32.self)) }
        guard columnType(column) == 1016, b.count >= 12 else { return nil }  // _int8
        if int32(0) == 0 { return [] }
        guard int32(0) == 1, b.count >= 20 else { return nil }
        let count = Int(int32(12))
        guard count >= 0, b.count == 20 + 12 * count else { return nil }
        var elements: [Int64] = []
        elements.reserveCapacity(count)
        for at in stride(from: 20, to: b.count, by: 12) {
            guard int32(at) == 8 else { return nil }
            elements.append(Int64(bigEndian: b.loadUnaligned(fromByteOffset: at + 4, as: Int64.self)))
        }
        return elements
    }

    /// The column's value; throws for a type mrq does not read.
    package func value(_ row: Int, _ column: Int) throws -> Value {
        if isNull(row, column) { return .null }
        let type = columnType(column)
        guard let value = PostgresType.value(bytes(row, column), type: type) else {
            throw StoreError(.misuse, "column \(columnName(column)) is of PostgreSQL type \(PostgresType.typeName(type)), "
                             + "which mrq does not read", sql: sql)
        }
        return value
    }

    private func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        let start = PQgetvalue(handle, Int32(row), Int32(column))
        return UnsafeRawBufferPointer(start: start, count: Int(PQgetlength(handle, Int32(row), Int32(column))))
    }
}
