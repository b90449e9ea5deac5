/// sqlite3's `.mode line`: one `name = value` line per column, names
/// right-aligned, a blank line between rows.
///
/// ```
/// FirstName = Ada
///  LastName = Lovelace
/// ```
extension Renderer {
    func lines(_ result: ResultSet) -> String {
        let nameWidth = result.columns.map { displayWidth($0) }.max() ?? 0
        var output = ""
        for (rowIndex, row) in result.rows.enumerated() {
            if rowIndex > 0 { output += "\n" }
            for (index, name) in result.columns.enumerated() {
                output += pad(styledHeader(name), width: displayWidth(name), to: nameWidth, right: true)
                output += " = " + styled(Self.cell(row, index), escaping: false) + "\n"
            }
        }
        return output
    }
}
