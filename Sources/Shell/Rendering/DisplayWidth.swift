/// The number of terminal columns text occupies.
///
/// ```swift
/// displayWidth("日本")   // 4
/// displayWidth("e\u{301}") // 1
/// ```
///
/// Counted per grapheme cluster: East-Asian wide and fullwidth characters
/// and emoji take two columns, combining marks and other zero-width
/// scalars none, everything else one. Control characters count as zero;
/// the table renderer escapes them before measuring.
package func displayWidth(_ text: some StringProtocol) -> Int {
    // Printable ASCII, the common case, is a column per byte.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
    var width = 0
    for character in text {
        width += displayWidth(of: character)
    }
    return width
}

/// The columns one grapheme cluster occupies: 0, 1 or 2.
package func displayWidth(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    // An emoji presentation selector turns a text-style symbol (☺, ❤)
    // into a two-column emoji.
    if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
    var width = 0
    for scalar in scalars {
        width = max(width, scalarWidth(scalar))
        if width == 2 { break }
    }
    return width
}

private func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
    if value < 0x300 { return 1 }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format:
        return 0
    default:
        break
    }
    // Hangul medial vowels and final consonants join the leading
    // consonant's cell.
    if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) {
        return 0
    }
    if scalar.properties.isEmojiPresentation { return 2 }
    return isWide(value) ? 2 : 1
}

/// East Asian Wide (W) and Fullwidth (F) ranges, from Unicode's
/// EastAsianWidth.txt, merged into blocks the way wcwidth does.
private func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F,   // Hangul Jamo leading consonants
         0x231A...0x231B, 0x2329...0x232A,
         0x2E80...0x303E,   // CJK radicals, Kangxi, CJK symbols
         0x3041...0x33FF,   // Hiragana, Katakana, Bopomofo, CJK compat
         0x3400...0x4DBF,   // CJK extension A
         0x4E00...0x9FFF,   // CJK unified ideographs
         0xA000...0xA4CF,   // Yi
         0xA960...0xA97F,   // Hangul Jamo extended A
         0xAC00...0xD7A3,   // Hangul syllables
         0xF900...0xFAFF,   // CJK compatibility ideographs
         0xFE10...0xFE19,   // vertical forms
         0xFE30...0xFE6F,   // CJK compatibility forms, small forms
         0xFF00...0xFF60,   // fullwidth forms
         0xFFE0...0xFFE6,
         0x16FE0...0x18CFF, // Tangut, Khitan
         0x1B000...0x1B2FF, // Kana supplement and extensions, Nushu
         0x1F200...0x1F2FF, // enclosed ideographic supplement
         0x20000...0x2FFFD, // CJK extensions B to F
         0x30000...0x3FFFD: // CJK extension G and later
        return true
    default:
        return false
    }
}
