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
///
/// A table is laid out from its first rows (``RowWriter/pageSize`` of
/// them): the column widths, which headers are right-aligned, and whether
/// it fits the terminal at all. Later rows keep that layout; a later value
/// wider than its column pushes that row's border out rather than being
/// cut to the column. Only a value wider than
/// ``RenderOptions/maxValueWidth`` is cut, in every row (see
/// ``ShownCell``), so that no value makes a table of a million columns.
extension Renderer {
    struct TableLayout {
        /// Display width of each column.
        let widths: [Int]
        /// Columns whose header is right-aligned: every non-null value of
        /// the first page is a number.
        let numericColumns: [Bool]
        /// psql's expanded display, one record per row: the first page
        /// was too wide for the terminal.
        let vertical: Bool
        /// The column names, control characters escaped.
        let names: [String]
        /// The record rule's width, in vertical display.
        let ruleWidth: Int
    }

    /// The layout that fits `columns` and the first `page` of rows.
    func tableLayout(columns: [String], page: [[ShownCell]]) -> TableLayout {
        let names = columns.map(Self.escapeControls)
        var widths = names.map { options.headers ? displayWidth($0) : 0 }
        var valueWidth = 0
        for row in page {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.width)
                valueWidth = max(valueWidth, cell.width)
            }
        }
        let totalWidth = widths.reduce(0, +) + 3 * names.count + 1
        let vertical = !names.isEmpty && !page.isEmpty && options.terminalWidth.map { totalWidth > $0 } == true
        let numericColumns = names.indices.map { index in
            let cells = page.compactMap { index < $0.count ? $0[index] : nil }.filter { !$0.isNull }
            return !cells.isEmpty && cells.allSatisfy(\.isNumeric)
        }
        let nameWidth = names.map { displayWidth($0) }.max() ?? 0
        var ruleWidth = nameWidth + 3 + valueWidth
        if let limit = options.terminalWidth { ruleWidth = min(ruleWidth, limit) }
        return TableLayout(widths: widths, numericColumns: numericColumns, vertical: vertical, names: names,
                           ruleWidth: ruleWidth)
    }

    /// A row as a table shows it: a cell per column, each on one line
    /// and cut when it is too wide.
    func shownRow(_ row: [Cell], columns: Int) -> [ShownCell] {
        (0..<columns).map { shown(Self.cell(row, $0), escaping: .all) }
    }

    /// The top border and the header.
    func appendTableStart(_ layout: TableLayout, to text: inout TextBuffer) {
        guard !layout.names.isEmpty, !layout.vertical else { return }
        appendBorder(layout, "┌", "┬", "┐", to: &text)
        guard options.headers else { return }
        text += "│ "
        for (index, name) in layout.names.enumerated() {
            if index > 0 { text += " │ " }
            text += pad(styledHeader(name), width: displayWidth(name), to: layout.widths[index],
                        right: layout.numericColumns[index])
        }
        text += " │\n"
        appendBorder(layout, "├", "┼", "┤", to: &text)
    }

    /// Row `number` (from 1): a line of the table, or a record.
    func appendTableRow(_ row: [ShownCell], number: Int, layout: TableLayout, to text: inout TextBuffer) {
        guard !layout.names.isEmpty else { return }
        if layout.vertical {
            let title = "-[ RECORD \(number) ]"
            text += title + String(repeating: "-", count: max(0, layout.ruleWidth - title.count)) + "\n"
            let nameWidth = layout.names.map { displayWidth($0) }.max() ?? 0
            for (index, name) in layout.names.enumerated() {
                text += pad(styledHeader(name), width: displayWidth(name), to: nameWidth, right: false)
                text += " | " + (index < row.count ? styled(row[index]) : "") + "\n"
            }
            return
        }
        text += "│ "
        for index in layout.names.indices {
            if index > 0 { text += " │ " }
            guard index < row.count else { continue }
            text += pad(styled(row[index]), width: row[index].width, to: layout.widths[index], right: row[index].isNumeric)
        }
        text += " │\n"
    }

    /// The bottom border and the footer, `(3 rows)`.
    func appendTableEnd(_ layout: TableLayout, count: Int, footer: Footer?, to text: inout TextBuffer) {
        if !layout.names.isEmpty && !layout.vertical { appendBorder(layout, "└", "┴", "┘", to: &text) }
        if let footer { text += footer.text(count: count) + "\n" }
    }

    private func appendBorder(_ layout: TableLayout, _ left: String, _ middle: String, _ right: String,
                              to text: inout TextBuffer) {
        text += left
        for (index, width) in layout.widths.enumerated() {
            if index > 0 { text += middle }
            text += String(repeating: "─", count: width + 2)
        }
        text += right + "\n"
    }

    /// Pads already-styled text of display width `width` to `target`
    /// columns, on the left when `right` aligned.
    func pad(_ text: String, width: Int, to target: Int, right: Bool) -> String {
        guard target > width else { return text }
        let padding = String(repeating: " ", count: target - width)
        return right ? padding + text : text + padding
    }
}
