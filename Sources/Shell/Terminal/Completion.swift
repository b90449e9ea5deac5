/// Completion candidates for the word before the cursor, and the part of
/// the line they replace.
///
/// ```swift
/// let completion = session.completion(in: "count Pers", cursor: 10)
/// // completion.range == 6..<10, completion.candidates == ["Person"]
/// ```
///
/// Each candidate replaces `range` whole, so a candidate may change the
/// case of what was typed (`pe` becomes `Person`) or add a prefix the word
/// did not show (`$` for a variable).
public struct Completion: Sendable, Hashable {
    /// UTF-8 offsets into the line: from the start of the word being
    /// completed up to the cursor. Both ends fall between characters.
    public var range: Range<Int>
    /// Replacements for `range`, best first.
    public var candidates: [String]
    /// What follows the candidate when there is only one: a space after a
    /// word, nothing after a directory (more of the path follows), the
    /// closing quote after a file name in quotes.
    public var terminator: String

    public init(range: Range<Int>, candidates: [String], terminator: String = " ") {
        self.range = range
        self.candidates = candidates
        self.terminator = terminator
    }

    /// No candidates, at `cursor`.
    public static func none(at cursor: Int) -> Completion {
        Completion(range: cursor..<cursor, candidates: [], terminator: "")
    }

    /// The candidates for a line editor that replaces its own word, the
    /// text from `wordStart` (a UTF-8 offset into `line`) to the cursor,
    /// as libedit does: each candidate rewritten to replace that word
    /// instead of `range`, and what the word becomes at once (the
    /// candidates' common beginning, or the word itself when they have
    /// none longer than it).
    ///
    /// Where the editor's word starts before `range`, only candidates that
    /// keep the text in between are offered.
    public func replacements(forWordStartingAt wordStart: Int, in line: String) -> (common: String, candidates: [String]) {
        let bytes = Array(line.utf8)
        let cursor = min(range.upperBound, bytes.count)
        let wordStart = min(max(0, wordStart), cursor)
        let start = min(range.lowerBound, cursor)
        var rewritten: [[UInt8]] = []
        for candidate in candidates {
            let utf8 = Array(candidate.utf8)
            if wordStart <= start {
                rewritten.append(Array(bytes[wordStart..<start]) + utf8)
            } else if utf8.starts(with: bytes[start..<wordStart]) {
                rewritten.append(Array(utf8.dropFirst(wordStart - start)))
            }
        }
        let word = Array(bytes[wordStart..<cursor])
        guard let first = rewritten.first else { return (String(decoding: word, as: UTF8.self), []) }
        var common = first
        for other in rewritten.dropFirst() {
            var shared = 0
            while shared < common.count, shared < other.count, common[shared] == other[shared] { shared += 1 }
            common.removeLast(common.count - shared)
        }
        Self.dropPartialCharacter(&common)
        if common.count < word.count { common = word }
        return (String(decoding: common, as: UTF8.self), rewritten.map { String(decoding: $0, as: UTF8.self) })
    }

    /// Drops the bytes of a character cut off at the end of `bytes`
    /// (the common beginning of two strings can end inside one).
    static func dropPartialCharacter(_ bytes: inout [UInt8]) {
        var continuation = 0
        while continuation < bytes.count, bytes[bytes.count - 1 - continuation] & 0xC0 == 0x80 { continuation += 1 }
        let leadIndex = bytes.count - 1 - continuation
        guard leadIndex >= 0 else { bytes.removeAll(); return }
        let lead = bytes[leadIndex]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        if continuation + 1 < length { bytes.removeLast(continuation + 1) }
    }
}
