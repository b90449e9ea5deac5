/// Text from a file, a name or a value, made safe to show on a terminal:
/// the one place mrq escapes characters a terminal would act on.
///
/// ```swift
/// TerminalText.escaped("Note\u{1B}[2J")   // Note\u{1b}[2J
/// TerminalText.escaped("a\nb")             // a\nb (two characters: \ and n)
/// ```
///
/// A store from someone else's device can name an entity, or hold a value,
/// with an escape sequence that clears the screen, rewrites the title or
/// hides the text after it; a newline in a name can forge a line of
/// output. Every error message, `.schema`, `.dump` comment and table cell
/// goes through here before it is shown.
public enum TerminalText {
    /// `text` with every character a terminal acts on written as an escape:
    /// the C0 controls, DEL, the C1 controls (U+0080–U+009F, which some
    /// terminals read as escape sequences) and Unicode's bidirectional
    /// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069,
    /// which reorder the text after them). A newline, carriage return and
    /// tab read `\n`, `\r` and `\t`; the rest `\u{1b}`. With
    /// `keepingLines`, newlines and tabs are left as they are: for a
    /// message of several lines made by mrq itself.
    public static func escaped(_ text: String, keepingLines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLines: keepingLines) }) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, keepingLines: keepingLines) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return result
    }

    /// Whether `scalar` is one ``escaped(_:keepingLines:)`` writes as an
    /// escape.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        needsEscape(scalar, keepingLines: false)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingLines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepingLines
        case 0x00..<0x20, 0x7F..<0xA0: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
