/// JSON output: an array of objects keyed by column name in column order,
/// pretty-printed with two spaces; a to-many list stays on one line.
///
/// ```
/// [
///   {
///     "name": "Ada",
///     "friends": ["Grace", "Linus"]
///   }
/// ]
/// ```
extension Renderer {
    func jsonArray(_ result: ResultSet) -> String {
        guard !result.rows.isEmpty else { return "[]\n" }
        let objects = result.rows.map { "  " + jsonObject(columns: result.columns, row: $0, indent: "  ") }
        return "[\n" + objects.joined(separator: ",\n") + "\n]\n"
    }

    /// One object; `indent` is the indentation of its opening brace.
    func jsonObject(columns: [String], row: [Cell], indent: String) -> String {
        guard !columns.isEmpty else { return "{}" }
        let members = columns.enumerated().map { index, name in
            indent + "  " + ValueFormatter.jsonString(name) + ": " + Self.json(Self.cell(row, index))
        }
        return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
    }

    static func json(_ cell: Cell) -> String {
        switch cell {
        case .value(let value):
            return ValueFormatter.json(value)
        case .list(let values):
            return "[" + values.map(ValueFormatter.json).joined(separator: ", ") + "]"
        }
    }
}
