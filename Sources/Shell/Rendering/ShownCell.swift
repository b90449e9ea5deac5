import Foundation
import Predicates

/// A cell as the human formats show it (a table, its records, line mode):
/// its text form with control characters escaped (`\u{1b}`: nothing a
/// file holds can drive the terminal), and cut when it is longer than
/// ``RenderOptions/maxValueWidth`` columns: the first columns, then `…`
/// and the value's size.
///
/// ```
/// Lorem ipsum dolor sit amet, consectetur…(104,857,600 bytes)
/// x'89504e470d0a1a0a…(2,500,000,000 bytes)
/// ```
///
/// A cut falls between characters (grapheme clusters), never inside one
/// nor inside an escape such as `\u{1b}`, and a blob keeps whole bytes.
/// Cutting looks at no more of a value than the bound's worth, so a value
/// of any size costs the same to show; the size is the value's own (the
/// text's UTF-8 bytes, the blob's bytes).
struct ShownCell {
    /// The text, without colour.
    var text = ""
    /// Its width in terminal columns.
    var width = 0
    var isNull = false
    var isNumeric = false
    /// How many characters of the values were looked at: bounded by the
    /// limit, whatever the values' size (the tests check it).
    private(set) var examined = 0

    /// Which control characters are escaped.
    enum Escaping {
        /// All of them (`\n`, `\t`, `\u{1b}`), so that the text keeps to
        /// one line: tables and their records.
        case all
        /// All but newline and tab, which lay text out: line mode and a
        /// bare value.
        case keepingLines
    }

    /// `cell` as shown, each value (each key of a list) cut at `limit`
    /// columns.
    init(_ cell: Cell, nullText: String, listLimit: Int, limit: Int, escaping: Escaping, binary: BinaryDisplay = .decoded) {
        var builder = Builder(limit: max(limit, 1), escaping: escaping, binary: binary)
        switch cell {
        case .value(let value) where Self.isPlain(value):
            // ASCII, a column a byte.
            text = ValueFormatter.text(value, nullText: nullText)
            width = text.utf8.count
            isNumeric = ValueFormatter.isNumeric(value)
            return
        case .value(let value):
            isNull = value.isNull
            isNumeric = ValueFormatter.isNumeric(value)
            builder.append(value, nullText: nullText)
        case .list(let list):
            builder.appendASCII("[")
            for (index, value) in list.prefix(listLimit).enumerated() {
                if index > 0 { builder.appendASCII(", ") }
                builder.append(value, nullText: nullText)
            }
            if list.count > listLimit {
                let more = (listLimit > 0 ? ", … " : "… ") + WorkProgress.grouped(list.count - listLimit) + " more"
                builder.append(more, width: more.count)
            }
            builder.appendASCII("]")
        }
        (text, width, examined) = (builder.text, builder.width, builder.examined)
    }

    /// Whether `string` is shown as it is: no longer than `limit` bytes
    /// (so no wider than `limit` columns) and with no control character.
    static func isShownWhole(_ string: String, limit: Int) -> Bool {
        string.utf8.count <= limit && !Builder.hasControl(string.utf8)
    }

    /// Whether a value's text form is always short and free of control
    /// characters: numbers, booleans, dates, UUIDs.
    static func isPlain(_ value: Value) -> Bool {
        switch value {
        case .bool, .int, .double, .decimal, .date, .uuid: return true
        case .null, .string, .data, .url: return false
        }
    }

    /// How many bytes of a value are looked at, at most, per column of
    /// the bound: a column's character takes 1 to 4 bytes, a few more
    /// with combining marks or as an emoji sequence. Text denser than this
    /// is cut sooner, still between characters.
    static let bytesPerColumn = 16

    private struct Builder {
        let limit: Int
        let escaping: Escaping
        let binary: BinaryDisplay
        var text = ""
        var width = 0
        var examined = 0

        init(limit: Int, escaping: Escaping, binary: BinaryDisplay) {
            self.limit = limit
            self.escaping = escaping
            self.binary = binary
        }

        mutating func appendASCII(_ ascii: String) {
            append(ascii, width: ascii.utf8.count)
        }

        mutating func append(_ plain: String, width: Int) {
            text += plain
            self.width += width
        }

        mutating func append(_ value: Value, nullText: String) {
            switch value {
            case .string(let string):
                if !appendCharacters(of: string) { appendSize(string.utf8.count) }
            case .data(let data) where binary == .raw:
                appendBlob(data)
            case .data(let data):
                // Decoded text is built only as far as it could be shown.
                let cap = limit * ShownCell.bytesPerColumn + 64
                let form = ValueFormatter.binaryText(data, binary, limit: cap)
                if !appendCharacters(of: form) { appendSize(data.count) }
            default:
                let form = ValueFormatter.text(value, nullText: nullText)
                if !appendCharacters(of: form) { appendSize(form.utf8.count) }
            }
        }

        /// `…(1,234 bytes)`, after a cut.
        private mutating func appendSize(_ bytes: Int) {
            let size = "…(" + WorkProgress.grouped(bytes) + " bytes)"
            append(size, width: size.count)
        }

        /// `x'01ab'`, or as many whole bytes as fit and the size.
        private mutating func appendBlob(_ data: Data) {
            // x'…' takes 3 columns and 2 a byte.
            if 3 + 2 * data.count <= limit {
                appendASCII(hex(data) + "'")
                return
            }
            appendASCII(hex(data.prefix(max(0, (limit - 2) / 2))))
            appendSize(data.count)
        }

        private func hex(_ data: Data) -> String {
            var text = TextBuffer()
            text += "x'"
            ValueFormatter.appendHex(data, to: &text)
            return text.string
        }

        /// Appends the characters of `string` that fit in `limit` columns
        /// (each character counts at least one, so invisible ones are
        /// bounded too); false when not all of them did.
        private mutating func appendCharacters(of string: String) -> Bool {
            let utf8 = string.utf8
            // Text of no more bytes than the bound fits it (a character
            // of two columns takes three bytes or more): with no control
            // character in it, the common case, it is shown as it is.
            if ShownCell.isShownWhole(string, limit: limit) {
                text += string
                width += displayWidth(string)
                examined += utf8.count
                return true
            }
            // Only a head of a long value is looked at. Its last
            // character may be the start of a longer one, so it is not
            // shown.
            var head = Substring(string)
            let cap = limit * ShownCell.bytesPerColumn + 64
            let truncated = utf8.count > cap
            if truncated {
                // Back to the start of a scalar: a UTF-8 sequence's
                // later bytes are 10xxxxxx.
                var end = utf8.index(utf8.startIndex, offsetBy: cap)
                while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
                head = string[..<end]
            }
            var cost = 0
            var index = head.startIndex
            while index < head.endIndex {
                let next = head.index(after: index)
                if truncated && next == head.endIndex { return false }
                let character = head[index]
                examined += 1
                let piece = self.piece(character)
                guard cost + max(piece.width, 1) <= limit else { return false }
                cost += max(piece.width, 1)
                width += piece.width
                if let escaped = piece.escaped { text += escaped } else { text.append(character) }
                index = next
            }
            return !truncated
        }

        /// Whether UTF-8 text may hold a character `TerminalText` escapes:
        /// a C0 or C1 control character (C1 is C2 80 to C2 9F), or a bidi
        /// override or isolate (E2 80 AA to AE, E2 81 A6 to A9). A yes
        /// sends the text through the exact, slower path.
        static func hasControl(_ utf8: String.UTF8View) -> Bool {
            var previous: (UInt8, UInt8) = (0, 0)
            for byte in utf8 {
                if byte < 0x20 || byte == 0x7F || (previous.1 == 0xC2 && byte < 0xA0) { return true }
                if previous.0 == 0xE2 && (previous.1 == 0x80 || previous.1 == 0x81) && (0xA6...0xAE).contains(byte) {
                    return true
                }
                previous = (previous.1, byte)
            }
            return false
        }

        /// A character's width, and its escaped form when it is a control
        /// character to escape.
        private func piece(_ character: Character) -> (width: Int, escaped: String?) {
            let scalars = character.unicodeScalars
            guard scalars.contains(where: isControl) else { return (displayWidth(of: character), nil) }
            // A control character is a cluster of its own (or CR LF).
            var escaped = ""
            for scalar in scalars {
                if escaping == .keepingLines, scalar == "\n" || scalar == "\t" {
                    escaped.unicodeScalars.append(scalar)
                } else {
                    escaped += Self.escape(scalar)
                }
            }
            return (displayWidth(escaped), escaped)
        }

        static func escape(_ scalar: Unicode.Scalar) -> String {
            switch scalar {
            case "\n": return "\\n"
            case "\r": return "\\r"
            case "\t": return "\\t"
            case _ where isControl(scalar): return "\\u{" + String(scalar.value, radix: 16) + "}"
            default: return String(scalar)
            }
        }
    }
}

/// What a terminal would act on (C0, DEL, C1, bidi overrides): the one
/// classification of `TerminalText`, which escapes names the same way.
private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    TerminalText.isUnsafe(scalar)
}
