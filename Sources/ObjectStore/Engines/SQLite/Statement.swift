import CSQLite
import Foundation
import Predicates

let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
let SQLITE_STATIC: sqlite3_destructor_type? = nil

/// A prepared statement: bind by position, step, read columns by position.
package final class Statement {
    let handle: OpaquePointer
    unowned let database: Database
    package let sql: String
    package let columnCount: Int32

    init(database: Database, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw database.error(rc, sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
        self.columnCount = sqlite3_column_count(statement)
    }

    deinit { sqlite3_finalize(handle) }

    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets for a caller that binds every parameter again: the old
    /// bindings are left to be replaced rather than cleared one by one.
    package func resetForRebinding() {
        sqlite3_reset(handle)
    }

    /// Drops every binding, leaving none that points at memory the
    /// caller may free (see `bindInPlace`).
    package func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    package func bind(_ values: [Value]) throws {
        for (index, value) in values.enumerated() {
            try bind(value, at: Int32(index + 1))
        }
    }

    /// Binds one value that the caller keeps alive and unchanged until
    /// the statement has stepped and is reset or cleared: a string stored
    /// apart from the value (longer than a small string's 15 bytes) is
    /// bound where it lies, not copied by SQLite into a buffer of its own,
    /// allocated and freed again for every row.
    ///
    /// A small string lives inside the value itself, so only a copy of it
    /// can be handed out: its bytes are copied into `room` (at least
    /// `Statement.shortStringRoom` bytes, which the caller keeps unchanged
    /// as long as the value) and bound from there. SQLite's own copy of a
    /// bound string (`SQLITE_TRANSIENT`) costs an allocation and a free
    /// per value, about a third of a row's binding (mrq-bench a. insert,
    /// d. import).
    package func bindInPlace(_ value: UnsafePointer<Value>, at index: Int32,
                             room: UnsafeMutablePointer<UInt8>) throws {
        // Numbers, dates and booleans are bound from the slot:
        // reading the whole value out first made a copy of it and let it
        // go after, for every value (mrq-bench a. insert).
        let s: String
        switch value.pointee {
        case .int(let i): return try check(sqlite3_bind_int64(handle, index, i))
        case .double(let d): return try check(sqlite3_bind_double(handle, index, d))
        case .bool(let b): return try check(sqlite3_bind_int64(handle, index, b ? 1 : 0))
        case .date(let date): return try check(sqlite3_bind_double(handle, index, date.timeIntervalSinceReferenceDate))
        case .string(let string): s = string
        default: return try bind(value.pointee, at: index)
        }
        let rc = s.utf8.withContiguousStorageIfAvailable { bytes -> Int32? in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
            if bytes.count > Self.shortStringRoom {
                // The string's own storage: it outlives this call with the
                // value.
                return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), SQLITE_STATIC)
                }
            }
            // A small string's bytes are a copy on the stack here.
            room.update(from: base, count: bytes.count)
            return UnsafeRawPointer(room).withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), SQLITE_STATIC)
            }
        } ?? nil
        guard let rc else { return try bind(value.pointee, at: index) }
        try check(rc)
    }

    /// Throws the error of a binding that failed.
    @inline(__always)
    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// The room `bindInPlace` needs for a string it copies: a string of
    /// more bytes is bound where it lies.
    @inline(__always)
    package static var shortStringRoom: Int { 16 }

    /// Binds one value; `index` is 1-based, as SQLite counts.
    package func bind(_ value: Value, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .bool(let b): rc = sqlite3_bind_int64(handle, index, b ? 1 : 0)
        case .int(let i): rc = sqlite3_bind_int64(handle, index, i)
        case .double(let d): rc = sqlite3_bind_double(handle, index, d)
        case .decimal(let d): rc = sqlite3_bind_text(handle, index, "\(d)", -1, SQLITE_TRANSIENT)
        case .string(let s):
            // Straight from the string's UTF-8 with its length: passing the
            // String itself made a NUL-terminated copy first, and SQLite
            // then measured it again.
            rc = s.utf8.withContiguousStorageIfAvailable { bytes -> Int32 in
                // An empty buffer may have no address; NULL would bind NULL.
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT)
                }
                return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), SQLITE_TRANSIENT)
                }
            } ?? sqlite3_bind_text(handle, index, s, -1, SQLITE_TRANSIENT)
        case .date(let date): rc = sqlite3_bind_double(handle, index, date.timeIntervalSinceReferenceDate)
        case .data(let data):
            rc = data.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), SQLITE_TRANSIENT)
            }
        case .uuid(let uuid): rc = sqlite3_bind_text(handle, index, uuid.uuidString, -1, SQLITE_TRANSIENT)
        case .url(let url): rc = sqlite3_bind_text(handle, index, url.absoluteString, -1, SQLITE_TRANSIENT)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Advances to the next row; false when done.
    @inline(__always)
    package func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let error = database.error(rc, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    package func columnName(at index: Int32) -> String {
        String(cString: sqlite3_column_name(handle, index))
    }

    @inline(__always)
    package func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    @inline(__always)
    package func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    @inline(__always)
    package func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    package func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func data(at index: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard let bytes = sqlite3_column_blob(handle, index), count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// The column as SQLite stores it: integer, real, text, blob or null.
    package func value(at index: Int32) -> Value {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .int(int64(at: index))
        case SQLITE_FLOAT: return .double(double(at: index))
        case SQLITE_TEXT: return .string(string(at: index))
        case SQLITE_BLOB: return .data(data(at: index))
        default: return .null
        }
    }
}
