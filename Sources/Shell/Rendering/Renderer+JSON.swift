import Predicates

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
    /// One object; `indent` is the indentation of its opening brace.
    func jsonObject(columns: [String], row: [Cell], indent: String) -> String {
        var text = TextBuffer()
        appendJSONObject(keys: Self.jsonKeys(columns, indent: indent), row: row, indent: indent, to: &text)
        return text.string
    }

    /// Each member's start, `    "name": `, made once per result.
    static func jsonKeys(_ columns: [String], indent: String) -> [String] {
        columns.map { indent + "  " + ValueFormatter.jsonString($0) + ": " }
    }

    /// Appends one object whose members start with `keys`.
    func appendJSONObject(keys: [String], row: [Cell], indent: String, to text: inout TextBuffer) {
        guard !keys.isEmpty else {
            text += "{}"
            return
        }
        text += "{\n"
        for (index, key) in keys.enumerated() {
            if index > 0 { text += ",\n" }
            text += key
            Self.appendJSON(Self.cell(row, index), binary: options.binary, to: &text)
        }
        text += "\n" + indent + "}"
    }

    static func json(_ cell: Cell, binary: BinaryDisplay = .raw) -> String {
        var text = TextBuffer()
        appendJSON(cell, binary: binary, to: &text)
        return text.string
    }

    /// Appends a cell as JSON; binary values as `binary` says (see
    /// ``BinaryDisplay``).
    static func appendJSON(_ cell: Cell, binary: BinaryDisplay = .raw, to text: inout TextBuffer) {
        func append(_ value: Value) {
            if case .data(let data) = value {
                ValueFormatter.appendBinaryJSON(data, binary, to: &text)
            } else {
                ValueFormatter.appendJSON(value, to: &text)
            }
        }
        switch cell {
        case .value(let value):
            append(value)
        case .list(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += ", " }
                append(value)
            }
            text += "]"
        }
    }
}
