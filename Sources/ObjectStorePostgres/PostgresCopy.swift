import Foundation
import ObjectStore
import Predicates

/// The rows of a `COPY … FROM STDIN (FORMAT binary)`, in PostgreSQL's
/// binary copy format: a header, then per row its number of fields and
/// each field's length (-1 for NULL) and binary value; the connection's
/// `copy` (or a `PostgresCopyIn`) sends them and adds the trailer.
///
/// ```swift
/// var copy = PostgresCopy()
/// copy.startRow(fields: 2)
/// _ = copy.append(.int(1), type: PostgresType.int8)
/// _ = copy.append(.string("Ada"), type: PostgresType.text)
/// try connection.copy("COPY person (id, name) FROM STDIN (FORMAT binary)", copy)
/// ```
package struct PostgresCopy {
    /// The bytes not sent yet: from the header on until `PostgresCopyIn`
    /// sends some.
    fileprivate(set) var bytes: [UInt8]

    package init() {
        // "PGCOPY\n\377\r\n\0", no flags, no header extension.
        bytes = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [UInt8](repeating: 0, count: 8)
    }

    /// Starts a row of `fields` values.
    package mutating func startRow(fields: Int) {
        PostgresType.appendBigEndian(UInt16(truncatingIfNeeded: fields), to: &bytes)
    }

    /// Appends a row of `fields` values, which `body` appends; when it
    /// returns false (a value with no binary form), takes back what it
    /// appended and returns false.
    package mutating func appendRow(fields: Int, _ body: (inout PostgresCopy) throws -> Bool) rethrows -> Bool {
        let start = bytes.count
        startRow(fields: fields)
        guard try body(&self) else {
            bytes.removeSubrange(start...)
            return false
        }
        return true
    }

    /// Appends one field: its value in the binary form of type `oid`;
    /// false, appending nothing, when the value has none (see
    /// `PostgresType.appendBinary`).
    package mutating func append(_ value: Value, type oid: UInt32) -> Bool {
        if case .null = value {
            PostgresType.appendBigEndian(UInt32.max, to: &bytes)  // length -1
            return true
        }
        let start = bytes.count
        PostgresType.appendBigEndian(UInt32(0), to: &bytes)  // the length, once known
        guard PostgresType.appendBinary(value, type: oid, to: &bytes) else {
            bytes.removeLast(4)
            return false
        }
        let length = UInt32(truncatingIfNeeded: bytes.count - start - 4)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for i in 0..<4 { buffer[start + i] = UInt8(truncatingIfNeeded: length >> (24 - 8 * i)) }
        }
        return true
    }

    /// Forgets the bytes, once sent; keeps their room for the next.
    fileprivate mutating func removeSentBytes() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// What ends the rows: a row of -1 fields.
    fileprivate static let trailer: [UInt8] = [0xFF, 0xFF]
}

/// A binary `COPY … FROM STDIN` sent while its rows are encoded: whenever
/// `rows` holds a chunk (`chunkBytes`), `sendIfFull` sends it, so the
/// server stores those rows while the next are encoded, rather than
/// waiting for all of them; the buffer stays one chunk long.
///
/// ```swift
/// var copy = PostgresCopyIn(connection, "COPY person (id, name) FROM STDIN (FORMAT binary)")
/// for (id, name) in people {
///     copy.rows.startRow(fields: 2)
///     _ = copy.rows.append(.int(id), type: PostgresType.int8)
///     _ = copy.rows.append(.string(name), type: PostgresType.text)
///     try copy.sendIfFull()
/// }
/// try copy.finish()
/// ```
///
/// The statement starts with the first chunk sent: until then the rows
/// may still be given up (`abandon`) with nothing sent. Once it started,
/// `finish` or `abandon` must end it before the connection runs anything
/// else; `abandon` fails the statement, and with it the transaction.
package struct PostgresCopyIn {
    /// The rows encoded and not sent yet.
    package var rows: PostgresCopy
    /// Whether the statement started (its first chunk was sent).
    package private(set) var isStarted = false
    private let connection: PostgresConnection
    private let sql: String

    /// How many bytes of rows go in one piece: small enough that the
    /// server starts early and the buffer stays in cache, large enough
    /// that each costs few calls.
    package static let chunkBytes = 256 << 10

    /// A copy by `sql` on `connection`, with room for a chunk and the row
    /// that overflows it.
    package init(_ connection: PostgresConnection, _ sql: String) {
        self.init(connection, sql, rows: PostgresCopy())
        rows.bytes.reserveCapacity(Self.chunkBytes + Self.chunkBytes / 4)
    }

    /// A copy of rows encoded already.
    init(_ connection: PostgresConnection, _ sql: String, rows: PostgresCopy) {
        self.connection = connection
        self.sql = sql
        self.rows = rows
    }

    /// Sends the rows encoded so far when they fill a chunk, starting the
    /// statement if it has not started.
    @inline(__always)
    package mutating func sendIfFull() throws {
        if rows.bytes.count >= Self.chunkBytes {
            try send(rows.bytes)
            rows.removeSentBytes()
        }
    }

    /// Sends `bytes`, starting the statement if it has not started.
    private mutating func send(_ bytes: [UInt8]) throws {
        if !isStarted {
            try connection.startCopy(sql)
            isStarted = true
        }
        guard bytes.withUnsafeBytes({ connection.sendCopyData($0) }) else {
            isStarted = false
            _ = try connection.endCopy(failure: "mrq could not send the rows", sql: sql)
            throw StoreError.postgres(sqlState: "08006", message: "could not send the rows of a COPY to PostgreSQL", sql: sql)
        }
    }

    /// Sends the rest of the rows and ends the statement; returns how many
    /// rows the server wrote. A row the server refused fails the statement,
    /// and with it the transaction, as a failed INSERT would.
    @discardableResult
    package mutating func finish() throws -> Int {
        try send(rows.bytes)
        try send(PostgresCopy.trailer)
        isStarted = false
        return try connection.endCopy(failure: nil, sql: sql)
    }

    /// Gives the copy up: fails the statement, if it started, so that the
    /// connection can run the transaction's ROLLBACK.
    package mutating func abandon(_ reason: String = "mrq gave the copy up") {
        guard isStarted else { return }
        isStarted = false
        _ = try? connection.endCopy(failure: reason, sql: sql)
    }
}
