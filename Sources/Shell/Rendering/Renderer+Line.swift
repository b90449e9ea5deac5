/// sqlite3's `.mode line`: one `name = value` line per column, names
/// right-aligned, a blank line between rows. A value keeps its newlines
/// and tabs; other control characters are escaped (`\u{1b}`), and a long
/// value is cut (see ``ShownCell``).
///
/// ```
/// FirstName = Ada
///  LastName = Lovelace
/// ```
extension Renderer {
    /// Each line's start, ` LastName = `, made once per result.
    func lineNames(_ columns: [String]) -> [String] {
        let nameWidth = columns.map { displayWidth($0) }.max() ?? 0
        return columns.map { pad(styledHeader($0), width: displayWidth($0), to: nameWidth, right: true) + " = " }
    }

    /// Appends one record, its lines starting with `names`.
    func appendLineRecord(names: [String], row: [Cell], to text: inout TextBuffer) {
        for (index, name) in names.enumerated() {
            text += name
            switch Self.cell(row, index) {
            // Most values need no cut, no escape and no colour.
            case .value(.string(let string)) where ShownCell.isShownWhole(string, limit: options.maxValueWidth):
                text += string
            case .value(let value) where !options.color && ShownCell.isPlain(value):
                ValueFormatter.append(value, nullText: options.nullText, to: &text)
            case let cell:
                text += styled(shown(cell, escaping: .keepingLines))
            }
            text += "\n"
        }
    }
}
