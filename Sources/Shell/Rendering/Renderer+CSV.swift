/// RFC 4180 CSV with `\n` line endings, as sqlite3 writes by default.
///
/// A field is quoted when it holds a comma, a quote, a line break, or is
/// the empty string (so that `""` differs from NULL, which is an empty
/// unquoted field). Quotes inside are doubled.
extension Renderer {
    func csvRow(_ cells: [Cell]) -> String {
        var text = ""
        appendCSVRow(cells, columns: cells.count, to: &text)
        return text
    }

    /// Appends one record of `columns` fields and its line break.
    func appendCSVRow(_ cells: [Cell], columns: Int, to text: inout String) {
        for index in 0..<columns {
            if index > 0 { text += "," }
            let cell = Self.cell(cells, index)
            if ValueFormatter.isNull(cell) { continue }
            Self.appendCSVField(ValueFormatter.text(cell, nullText: ""), to: &text)
        }
        text += "\n"
    }

    static func csvField(_ text: String) -> String {
        var field = ""
        appendCSVField(text, to: &field)
        return field
    }

    static func appendCSVField(_ field: String, to text: inout String) {
        let needsQuotes = field.isEmpty || field.utf8.contains {
            $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
        }
        guard needsQuotes else {
            text += field
            return
        }
        text += "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
