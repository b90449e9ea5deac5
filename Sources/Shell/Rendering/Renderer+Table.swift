/// Box-drawn tables and their vertical fallback.
///
/// ```
/// ┌─────┬──────┐
/// │ age │ name │
/// ├─────┼──────┤
/// │  36 │ Ada  │
/// └─────┴──────┘
/// (1 row)
/// ```
extension Renderer {
    func table(_ result: ResultSet, footer: Footer?) -> String {
        let columnCount = result.columns.count
        let footerLine = footer.map { $0.text(count: result.rows.count) + "\n" } ?? ""
        guard columnCount > 0 else { return footerLine }

        let texts = result.rows.map { row in
            (0..<columnCount).map {
                Self.escapeControls(ValueFormatter.text(Self.cell(row, $0), nullText: options.nullText))
            }
        }
        var widths = result.columns.map { options.headers ? displayWidth(Self.escapeControls($0)) : 0 }
        for row in texts {
            for (index, text) in row.enumerated() {
                widths[index] = max(widths[index], displayWidth(text))
            }
        }
        let totalWidth = widths.reduce(0, +) + 3 * columnCount + 1
        if let limit = options.terminalWidth, totalWidth > limit, !result.rows.isEmpty {
            return vertical(result, footer: footerLine)
        }

        let numericColumns = (0..<columnCount).map { index in
            let cells = result.rows.map { Self.cell($0, index) }.filter { !ValueFormatter.isNull($0) }
            return !cells.isEmpty && cells.allSatisfy(ValueFormatter.isNumeric)
        }

        func border(_ left: String, _ middle: String, _ right: String) -> String {
            left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right + "\n"
        }

        var output = border("┌", "┬", "┐")
        if options.headers {
            let names = result.columns.enumerated().map { index, name in
                let escaped = Self.escapeControls(name)
                return pad(styledHeader(escaped), width: displayWidth(escaped), to: widths[index],
                           right: numericColumns[index])
            }
            output += "│ " + names.joined(separator: " │ ") + " │\n"
            output += border("├", "┼", "┤")
        }
        for (rowIndex, row) in result.rows.enumerated() {
            let cells = (0..<columnCount).map { index in
                let cell = Self.cell(row, index)
                let text = texts[rowIndex][index]
                return pad(styled(cell, escaping: true), width: displayWidth(text), to: widths[index],
                           right: ValueFormatter.isNumeric(cell))
            }
            output += "│ " + cells.joined(separator: " │ ") + " │\n"
        }
        output += border("└", "┴", "┘")
        return output + footerLine
    }

    /// psql's expanded display, for rows too wide for the terminal:
    ///
    /// ```
    /// -[ RECORD 1 ]-----------
    /// name  | Ada
    /// notes | a long text …
    /// ```
    func vertical(_ result: ResultSet, footer: String) -> String {
        let names = result.columns.map(Self.escapeControls)
        let nameWidth = names.map { displayWidth($0) }.max() ?? 0
        var valueWidth = 0
        for row in result.rows {
            for index in names.indices {
                let text = Self.escapeControls(ValueFormatter.text(Self.cell(row, index), nullText: options.nullText))
                valueWidth = max(valueWidth, displayWidth(text))
            }
        }
        var ruleWidth = nameWidth + 3 + valueWidth
        if let limit = options.terminalWidth { ruleWidth = min(ruleWidth, limit) }

        var output = ""
        for (rowIndex, row) in result.rows.enumerated() {
            let title = "-[ RECORD \(rowIndex + 1) ]"
            output += title + String(repeating: "-", count: max(0, ruleWidth - title.count)) + "\n"
            for (index, name) in names.enumerated() {
                let value = styled(Self.cell(row, index), escaping: true)
                output += pad(styledHeader(name), width: displayWidth(name), to: nameWidth, right: false)
                output += " | " + value + "\n"
            }
        }
        return output + footer
    }

    /// Pads already-styled text of display width `width` to `target`
    /// columns, on the left when `right` aligned.
    func pad(_ text: String, width: Int, to target: Int, right: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, target - width))
        return right ? padding + text : text + padding
    }
}
