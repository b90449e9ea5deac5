/// CSV text (RFC 4180) read one record at a time: fields separated by
/// commas, records by line breaks (CRLF or LF), a field in double quotes
/// may hold commas, line breaks and doubled quotes (`""`).
///
/// ```swift
/// let reader = CSVReader(bytes: Array("name,age\r\nAda,36\r\n".utf8))
/// while let record = try reader.next() { print(reader.line, record) }
/// // 1 ["name", "age"]
/// // 2 ["Ada", "36"]
/// ```
///
/// Blank lines are skipped; a quote inside an unquoted field is kept as
/// text. (A class: a progress report can ask for `remainingCount()` while
/// an import reads.)
public final class CSVReader {
    private let bytes: [UInt8]
    private var position: Int
    private var nextLine = 1
    /// The line the last record returned starts on (1-based).
    public private(set) var line = 0

    /// A reader of the CSV text `bytes` (UTF-8; a byte order mark is
    /// skipped).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
        position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// The next record's fields, or nil at the end of the text.
    public func next() throws -> [String]? {
        let bytes = self.bytes
        return try bytes.withUnsafeBufferPointer { buffer -> [String]? in
            // Blank lines are no records.
            while position < buffer.count, buffer[position] == 0x0A || buffer[position] == 0x0D {
                if buffer[position] == 0x0A { nextLine += 1 }
                position += 1
            }
            guard position < buffer.count else { return nil }
            line = nextLine
            var fields: [String] = []
            while true {
                let (field, ended) = try readField(buffer)
                fields.append(field)
                if ended { return fields }
            }
        }
    }

    /// One field, and whether it ended its record.
    private func readField(_ buffer: UnsafeBufferPointer<UInt8>) throws -> (String, ended: Bool) {
        guard position < buffer.count, buffer[position] == UInt8(ascii: "\"") else {
            let start = position
            while position < buffer.count, buffer[position] != UInt8(ascii: ","), buffer[position] != 0x0A, buffer[position] != 0x0D {
                position += 1
            }
            let field = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
            return (field, endOfField(buffer))
        }
        let opening = nextLine
        position += 1
        var text: [UInt8] = []
        var start = position
        while true {
            guard position < buffer.count else {
                throw CSVSyntaxError(line: opening, message: "the quoted field that starts here has no closing quote")
            }
            let byte = buffer[position]
            if byte == 0x0A { nextLine += 1 }
            guard byte == UInt8(ascii: "\"") else {
                position += 1
                continue
            }
            text.append(contentsOf: buffer[start..<position])
            position += 1
            if position < buffer.count, buffer[position] == UInt8(ascii: "\"") {
                // A doubled quote: one quote of the text.
                text.append(UInt8(ascii: "\""))
                position += 1
                start = position
                continue
            }
            break
        }
        guard position == buffer.count || [UInt8(ascii: ","), 0x0A, 0x0D].contains(buffer[position]) else {
            throw CSVSyntaxError(line: nextLine, message: "text after a closing quote; double a quote inside a quoted field (\"\")")
        }
        return (String(decoding: text, as: UTF8.self), endOfField(buffer))
    }

    /// Steps over the comma or line break after a field; true when the
    /// record ended.
    private func endOfField(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard position < buffer.count else { return true }
        switch buffer[position] {
        case UInt8(ascii: ","):
            position += 1
            return false
        case 0x0D:
            position += 1
            if position < buffer.count, buffer[position] == 0x0A { position += 1 }
            nextLine += 1
            return true
        default:
            position += 1
            nextLine += 1
            return true
        }
    }

    /// How many records `next()` has yet to return, by a quick scan that
    /// builds nothing (for a progress bar's total).
    public func remainingCount() -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var count = 0
            var quoted = false
            var blank = true
            for byte in buffer[position...] {
                switch byte {
                case UInt8(ascii: "\""):
                    quoted.toggle()
                    blank = false
                case 0x0A, 0x0D:
                    if !quoted {
                        if !blank { count += 1 }
                        blank = true
                    }
                default:
                    blank = false
                }
            }
            return count + (blank ? 0 : 1)
        }
    }
}

/// CSV that breaks RFC 4180: an unterminated quoted field, text after a
/// closing quote.
public struct CSVSyntaxError: Error, CustomStringConvertible {
    /// The line where the problem is (1-based).
    public let line: Int
    /// What is wrong, and how to fix it when there is a way.
    public let message: String
    /// `line 3: text after a closing quote; …`.
    public var description: String { "line \(line): \(message)" }
}
