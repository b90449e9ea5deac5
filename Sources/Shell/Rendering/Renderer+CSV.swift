/// RFC 4180 CSV with `\n` line endings, as sqlite3 writes by default.
///
/// A field is quoted when it holds a comma, a quote, a line break, or is
/// the empty string (so that `""` differs from NULL, which is an empty
/// unquoted field). Quotes inside are doubled.
extension Renderer {
    func csv(_ result: ResultSet) -> String {
        var output = ""
        if options.headers {
            output += result.columns.map(Self.csvField).joined(separator: ",") + "\n"
        }
        for row in result.rows {
            output += csvRow((0..<result.columns.count).map { Self.cell(row, $0) })
        }
        return output
    }

    func csvRow(_ cells: [Cell]) -> String {
        cells.map { cell in
            ValueFormatter.isNull(cell) ? "" : Self.csvField(ValueFormatter.text(cell, nullText: ""))
        }.joined(separator: ",") + "\n"
    }

    static func csvField(_ text: String) -> String {
        let needsQuotes = text.isEmpty || text.unicodeScalars.contains {
            $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r"
        }
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
