import Foundation

/// JSON text whose top-level array is read one element at a time, so
/// that a large document never lives in memory as one tree: only its
/// text and the elements not yet let go of.
///
/// ```swift
/// let reader = JSONArrayReader(bytes: Array(data))
/// while let element = try reader.next() { … }
/// ```
///
/// A document that is not an array reads as one element. Syntax errors
/// come from `next()` when it reaches them, with the line and column.
/// (A class: a progress report can ask for `remainingCount()` while an
/// import reads.)
public final class JSONArrayReader {
    private let bytes: [UInt8]
    private var position = 0
    private var state: State
    /// The parser's object shapes, kept from element to element.
    private var shapes: [JSONObjectShape] = []

    private enum State {
        /// Inside the top-level array; `first` before its first element.
        case array(first: Bool)
        /// A document that is not an array, not read yet.
        case single
        case done
    }

    /// A reader of the JSON text `bytes` (UTF-8; a byte order mark is
    /// skipped). Nothing is parsed until `next()`.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
        var position = JSONParser.start(of: bytes)
        while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        if position < bytes.count, bytes[position] == UInt8(ascii: "[") {
            self.position = position + 1
            state = .array(first: true)
        } else {
            self.position = JSONParser.start(of: bytes)
            state = .single
        }
    }

    /// Whether the document is an array (read element by element).
    public var isArray: Bool {
        if case .single = state { return false }
        return true
    }

    /// The next element, or nil after the last.
    public func next() throws -> JSON? {
        let (bytes, state, start) = (self.bytes, self.state, position)
        var shapes = self.shapes
        self.shapes = []
        var next = state
        var end = start
        defer { (self.shapes, position, self.state) = (shapes, end, next) }
        return try bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, position: start)
            swap(&parser.shapes, &shapes)
            defer { (end, shapes) = (parser.position, parser.shapes) }
            switch state {
            case .done:
                return nil
            case .single:
                next = .done
                return try parser.parseDocumentRest()
            case .array(let first):
                parser.depth = 1
                parser.skipWhitespace()
                guard parser.position < buffer.count else { throw parser.error("unexpected end of input in array") }
                if buffer[parser.position] == UInt8(ascii: "]") {
                    guard first else { throw parser.error("expected a value after ','") }
                    parser.position += 1
                    try parser.expectEnd()
                    next = .done
                    return nil
                }
                let element = try parser.parseValue()
                parser.skipWhitespace()
                guard parser.position < buffer.count else { throw parser.error("unexpected end of input in array") }
                switch buffer[parser.position] {
                case UInt8(ascii: ","):
                    parser.position += 1
                    next = .array(first: false)
                case UInt8(ascii: "]"):
                    parser.position += 1
                    try parser.expectEnd()
                    next = .done
                default:
                    throw parser.error("expected ',' or ']' in array")
                }
                return element
            }
        }
    }

    /// How many elements `next()` has yet to return, by a quick scan of
    /// the text that builds nothing (for a progress bar's total). Text
    /// that is not valid JSON counts as far as the scan can tell.
    public func remainingCount() -> Int {
        switch state {
        case .done: return 0
        case .single: return 1
        case .array:
            return bytes.withUnsafeBufferPointer { buffer in
                var position = self.position
                var depth = 0
                var count = 0
                var inValue = false
                while position < buffer.count {
                    let byte = buffer[position]
                    position += 1
                    switch byte {
                    case UInt8(ascii: "\""):
                        inValue = true
                        while position < buffer.count, buffer[position] != UInt8(ascii: "\"") {
                            position += buffer[position] == UInt8(ascii: "\\") ? 2 : 1
                        }
                        position += 1
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        inValue = true
                        depth += 1
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        if depth == 0 { return count + (inValue ? 1 : 0) }
                        depth -= 1
                    case UInt8(ascii: ","):
                        if depth == 0 { count += 1; inValue = false }
                    case 0x20, 0x0A, 0x0D, 0x09:
                        break
                    default:
                        inValue = true
                    }
                }
                return count + (inValue ? 1 : 0)
            }
        }
    }
}
