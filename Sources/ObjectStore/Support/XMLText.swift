/// Text written into an XML 1.0 document: the one escaping of mrq's XML
/// writers (Xcode models, mrq's XML store, Apple's XML store) and of the
/// XML a reader keeps as it read it (an Apple XML store's metadata).
///
/// ```swift
/// try XMLText.escaped("a < b\n", in: .attribute)   // "a &lt; b&#10;"
/// ```
enum XMLText {
    /// Where the text goes, which decides what a parser would change.
    enum Place {
        /// Between tags: a parser reads a carriage return as a line feed,
        /// so it is written as a reference; tabs and line feeds stay.
        case content
        /// A double-quoted attribute value: a parser reads a tab, line feed
        /// or carriage return as a space, so all three are references.
        case attribute
    }

    /// A character XML 1.0 cannot hold at all, escaped or not: a control
    /// character other than tab, line feed and carriage return, or U+FFFE
    /// or U+FFFF.
    struct Unwritable: Error {
        /// The character.
        let scalar: Unicode.Scalar

        /// `U+0001`.
        var codePoint: String {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }

        /// The error a writer reports: `"the model's entity name holds
        /// U+0001, which an Xcode model cannot hold (XML 1.0 has no such
        /// character)"`.
        func refusal(_ holder: String, in format: String) -> StoreError {
            StoreError(.validation, "\(holder) holds \(codePoint), which \(format) cannot hold (XML 1.0 has no such character)")
        }
    }

    /// `text` as it is written `in` its place: `&`, `<`, `>` and `"` as
    /// entities, and what a parser would change as character references,
    /// so that reading it back gives `text`; throws for a character XML
    /// 1.0 cannot hold.
    static func escaped(_ text: String, in place: Place) throws(Unwritable) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            case "\n" where place == .attribute: out += "&#10;"
            case "\t" where place == .attribute: out += "&#9;"
            case "\t", "\n", "\u{20}"..."\u{D7FF}", "\u{E000}"..."\u{FFFD}", "\u{10000}"..."\u{10FFFF}":
                out.unicodeScalars.append(scalar)
            default:
                throw Unwritable(scalar: scalar)
            }
        }
        return out
    }
}
