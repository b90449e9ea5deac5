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
struct TextBuffer {
    private(set) var bytes: [UInt8] = []

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
