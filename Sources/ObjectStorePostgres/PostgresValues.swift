import Foundation
import ObjectStore
import Predicates

/// How values cross the wire to and from PostgreSQL, by type OID.
///
/// Parameters (and the rows of a binary `COPY`) go in binary where that
/// is exact and cheap to write (integers that fit, boolean, double
/// precision, bytea, uuid, timestamptz, and text, whose binary form is its
/// UTF-8 with a length, so a NUL is refused by the server rather than
/// cutting the string short), and as text otherwise: the server's own
/// parser then converts to whatever type it inferred for the parameter
/// (numeric, an integer out of the column's range, a number for a
/// boolean, a batch's keys as one bigint[] written `{1,2,3}`, …). Results are read in binary.
package enum PostgresType {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let name: UInt32 = 19
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let oid: UInt32 = 26
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let unknown: UInt32 = 705
    static let bpchar: UInt32 = 1042
    static let varchar: UInt32 = 1043
    static let date: UInt32 = 1082
    static let timestamp: UInt32 = 1114
    static let timestamptz: UInt32 = 1184
    static let numeric: UInt32 = 1700
    static let uuid: UInt32 = 2950
    static let int8Array: UInt32 = 1016

    // MARK: - Parameters

    /// One parameter as it is sent: its bytes, and whether they are binary.
    struct Parameter {
        var bytes: [UInt8]?
        var isBinary: Bool
    }

    /// `value` as a parameter the server reads as type `oid`.
    static func parameter(_ value: Value, type oid: UInt32) throws -> Parameter {
        if case .null = value { return Parameter(bytes: nil, isBinary: false) }
        var bytes: [UInt8] = []
        if appendBinary(value, type: oid, to: &bytes) { return Parameter(bytes: bytes, isBinary: true) }
        return Parameter(bytes: Array(try text(value, type: oid).utf8) + [0], isBinary: false)
    }

    /// Appends the binary form of a value that is not null to `buffer`,
    /// when the value has one for type `oid` that is exact: integers that
    /// fit, booleans, doubles, strings, data, UUIDs and dates, each in its
    /// own type. Returns false, appending nothing, for any other pair (the
    /// server's parser then reads the value's text).
    static func appendBinary(_ value: Value, type oid: UInt32, to buffer: inout [UInt8]) -> Bool {
        func append<T: FixedWidthInteger>(_ bits: T) { appendBigEndian(bits, to: &buffer) }
        switch value {
        case .int(let i) where oid == int8: append(i)
        case .int(let i) where oid == int4: guard let narrow = Int32(exactly: i) else { return false }; append(narrow)
        case .int(let i) where oid == int2: guard let narrow = Int16(exactly: i) else { return false }; append(narrow)
        case .bool(let b) where oid == bool: buffer.append(b ? 1 : 0)
        case .double(let d) where oid == float8: append(d.bitPattern)
        case .data(let data) where oid == bytea: buffer.append(contentsOf: data)
        case .uuid(let uuid) where oid == self.uuid: withUnsafeBytes(of: uuid.uuid) { buffer.append(contentsOf: $0) }
        case .date(let date) where oid == timestamptz || oid == timestamp: append(PostgresTimestamp.microseconds(date))
        case .string(let s) where oid == text || oid == varchar || oid == unknown || oid == name || oid == bpchar:
            buffer.append(contentsOf: s.utf8)
        default: return false
        }
        return true
    }

    /// Appends `bits` most significant byte first, a byte at a time: no
    /// buffer of its own to copy from.
    @inline(__always)
    static func appendBigEndian<T: FixedWidthInteger>(_ bits: T, to buffer: inout [UInt8]) {
        var shift = T.bitWidth - 8
        while shift >= 0 {
            buffer.append(UInt8(truncatingIfNeeded: bits >> shift))
            shift -= 8
        }
    }

    /// The text the server's input function for `oid` reads as `value`.
    private static func text(_ value: Value, type oid: UInt32) throws -> String {
        switch value {
        case .bool(let b): return oid == bool || oid == text ? (b ? "t" : "f") : (b ? "1" : "0")
        case .int(let i): return oid == bool ? (i != 0 ? "t" : "f") : String(i)
        case .double(let d):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d > 0 ? "Infinity" : "-Infinity" }
            return "\(d)"
        case .decimal(let d): return "\(d)"
        case .string(let s):
            // Text parameters end at their first NUL: refuse rather than cut.
            if s.utf8.contains(0) {
                throw StoreError(.validation, "PostgreSQL text cannot hold the character U+0000, which the string has")
            }
            return s
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            return oid == float8 || oid == numeric ? "\(seconds)" : timestampText(date)
        case .uuid(let uuid): return uuid.uuidString
        case .url(let url): return url.absoluteString
        case .data:
            throw StoreError(.misuse, "binary data cannot stand where PostgreSQL expects type \(typeName(oid))")
        case .null: return ""
        }
    }

    /// `2001-02-03 04:05:06.789012+00`.
    private static func timestampText(_ date: Date) -> String {
        let us = PostgresTimestamp.microseconds(date)
        if us == .max { return "infinity" }
        if us == .min { return "-infinity" }
        let fraction = (us % 1_000_000 + 1_000_000) % 1_000_000
        var seconds = time_t((us - fraction) / 1_000_000 + 946_684_800)  // since 1970
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%06lld+00", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }

    /// The name of a type OID, for messages.
    static func typeName(_ oid: UInt32) -> String {
        let names: [UInt32: String] = [
            bool: "boolean", bytea: "bytea", name: "name", int8: "bigint", int2: "smallint", int4: "integer", text: "text",
            self.oid: "oid", float4: "real", float8: "double precision", unknown: "unknown", bpchar: "character",
            varchar: "character varying", date: "date", timestamp: "timestamp", timestamptz: "timestamptz",
            numeric: "numeric", uuid: "uuid", int8Array: "bigint[]",
        ]
        return names[oid] ?? "OID \(oid)"
    }

    // MARK: - Results

    /// A binary column value of type `oid` as a `Value`; nil for a type
    /// mrq does not read.
    static func value(_ bytes: UnsafeRawBufferPointer, type oid: UInt32) -> Value? {
        switch oid {
        case bool: return .bool(bytes.first != 0)
        case int8: return .int(Int64(bitPattern: load(bytes)))
        case int4: return .int(Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: load(bytes)))))
        case int2: return .int(Int64(Int16(bitPattern: UInt16(truncatingIfNeeded: load(bytes)))))
        case self.oid: return .int(Int64(UInt32(truncatingIfNeeded: load(bytes))))
        case float8: return .double(Double(bitPattern: load(bytes)))
        case float4: return .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: load(bytes)))))
        case text, varchar, bpchar, name, unknown: return .string(String(decoding: bytes, as: UTF8.self))
        case bytea: return .data(Data(bytes))
        case uuid:
            guard bytes.count == 16 else { return nil }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case timestamptz, timestamp: return .date(PostgresTimestamp.date(microseconds: Int64(bitPattern: load(bytes))))
        case date:
            let days = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: load(bytes))))
            return .date(PostgresTimestamp.date(microseconds: days * 86_400_000_000))
        case numeric: return numericValue(bytes)
        default: return nil
        }
    }

    /// A big-endian integer of the buffer's size (1, 2, 4 or 8 bytes).
    private static func load(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var result: UInt64 = 0
        for byte in bytes.prefix(8) { result = result << 8 | UInt64(byte) }
        return result
    }

    /// A numeric's binary form: digit count, weight, sign and display
    /// scale (16 bits each), then base-10000 digits, the first of which
    /// is worth 10000^weight.
    private static func numericValue(_ bytes: UnsafeRawBufferPointer) -> Value? {
        guard bytes.count >= 8 else { return nil }
        func word(_ i: Int) -> Int { Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        let count = word(0), weight = Int(Int16(truncatingIfNeeded: word(2))), sign = word(4)
        guard bytes.count >= 8 + 2 * count else { return nil }
        if sign == 0xC000 { return .decimal(.nan) }
        guard sign == 0 || sign == 0x4000 else { return nil }  // ±infinity: no Decimal holds it
        var text = sign == 0x4000 ? "-" : ""
        var digits = ""
        for i in 0..<count {
            let group = String(word(8 + 2 * i))
            digits += String(repeating: "0", count: 4 - group.count) + group
        }
        // Digits stand for 10000^weight … : the point goes after (weight + 1) groups.
        let point = 4 * (weight + 1)
        if point <= 0 {
            text += "0." + String(repeating: "0", count: -point) + digits
        } else if point >= digits.count {
            text += digits + String(repeating: "0", count: point - digits.count)
        } else {
            text += digits.prefix(point) + "." + digits.dropFirst(point)
        }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Value.decimal)
    }
}
