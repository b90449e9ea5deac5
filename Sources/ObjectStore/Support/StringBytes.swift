/// Byte questions about a string's UTF-8, asked of its bytes in one piece:
/// `utf8.contains(_:)` walks the generic UTF-8 view one index at a time
/// (some 30 instructions a byte, measured on the names a model cache
/// holds), which a model's thousands of names pay at every store opened.
extension String {
    /// Whether the string's UTF-8 holds `byte`.
    ///
    /// ```swift
    /// "ZNAME".holdsByte(0)                     // false
    /// "a.b".holdsByte(UInt8(ascii: "."))       // true
    /// ```
    func holdsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }
}
