/// Text built as UTF-8 bytes, for rendering many rows: appending to a
/// byte array costs a fraction of appending to a `String`, which counts
/// when a result has millions of values.
///
/// ```swift
/// var text = TextBuffer()
/// text += "age = "
/// text.appendDecimal(36)
/// print(text.string)   // age = 36
/// ```
///
/// A buffer with a ``spill`` hands its text on in blocks while a long
/// value is appended (see ``append(chunked:)``), so that a value of a
/// gigabyte is written out as it is escaped or encoded instead of being
/// held here whole.
struct TextBuffer {
    private(set) var bytes: [UInt8] = []
    /// Where the text goes, in blocks of about ``spillSize`` bytes, while
    /// a long value is appended; nil keeps all of it here.
    var spill: ((String) -> Void)?
    /// The block ``spillIfFull()`` hands on.
    static let spillSize = 64 * 1024

    var count: Int { bytes.count }
    var isEmpty: Bool { bytes.isEmpty }

    /// The text so far.
    var string: String { String(decoding: bytes, as: UTF8.self) }

    static func += (text: inout TextBuffer, string: String) {
        var string = string
        string.withUTF8 { text.bytes.append(contentsOf: $0) }
    }

    static func += (text: inout TextBuffer, string: StaticString) {
        string.withUTF8Buffer { text.bytes.append(contentsOf: $0) }
    }

    mutating func append(ascii byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends UTF-8 text a block at a time, handing each block to
    /// ``spill``: what long values are appended with.
    mutating func append(chunked text: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while start < text.count {
            let end = min(text.count, start + Self.spillSize)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<end]))
            spillIfFull()
            start = end
        }
    }

    /// Hands the text so far to ``spill``, if there is one and a block
    /// of text is here: up to its last whole character, the rest of a
    /// character cut by the block's end (three bytes at most) staying for
    /// the next block.
    mutating func spillIfFull() {
        guard bytes.count >= Self.spillSize, let spill else { return }
        // The last character's first byte: not 10xxxxxx.
        var start = bytes.count - 1
        while start > bytes.count - 4, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        let lead = bytes[start]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        let end = start + length > bytes.count ? start : bytes.count
        spill(String(decoding: bytes[..<end], as: UTF8.self))
        bytes.removeSubrange(..<end)
    }

    /// An integer in decimal, without making a string of it.
    mutating func appendDecimal(_ number: Int64) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// `number` in decimal, zero-padded to `width` digits.
    mutating func appendDecimal(_ number: Int64, width: Int) {
        var digits = 1
        var rest = number / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        for _ in digits..<max(digits, width) { bytes.append(UInt8(ascii: "0")) }
        appendDecimal(number)
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }
}
