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
            text += styled(shown(Self.cell(row, index), escaping: .keepingLines))
            text += "\n"
        }
    }
}
