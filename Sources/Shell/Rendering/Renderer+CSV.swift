/// RFC 4180 CSV with `\n` line endings, as sqlite3 writes by default.
///
/// Binary values are written as ``BinaryDisplay`` says: decoded or as a
/// preview, and as `x'…'` in full, which reads back, with `.binary raw`.
///
/// A field is quoted when it holds a comma, a quote, a line break, or is
/// the empty string (so that `""` differs from NULL, which is an empty
/// unquoted field). Quotes inside are doubled.
extension Renderer {
    func csvRow(_ cells: [Cell]) -> String {
        var text = TextBuffer()
        appendCSVRow(cells, columns: cells.count, to: &text)
        return text.string
    }

    /// Appends one record of `columns` fields and its line break.
    func appendCSVRow(_ cells: [Cell], columns: Int, to text: inout TextBuffer) {
        for index in 0..<columns {
            if index > 0 { text.append(ascii: UInt8(ascii: ",")) }
            switch Self.cell(cells, index) {
            case .value(.null):
                continue
            case .value(.string(let string)):
                Self.appendCSVField(string, to: &text)
            case .value(.data(let data)) where options.binary != .raw:
                Self.appendCSVField(ValueFormatter.binaryText(data, options.binary), to: &text)
            case .value(.url), .list:
                Self.appendCSVField(ValueFormatter.text(Self.cell(cells, index), nullText: ""), to: &text)
            case .value(let value):
                // Numbers, dates, booleans, UUIDs and hex never need quotes.
                ValueFormatter.append(value, nullText: "", to: &text)
            }
        }
        text.append(ascii: UInt8(ascii: "\n"))
    }

    static func csvField(_ text: String) -> String {
        var field = TextBuffer()
        appendCSVField(text, to: &field)
        return field.string
    }

    /// Appends a field, quoted when it needs to be, a block at a time
    /// (see ``TextBuffer/spill``): a long field is written out as it is
    /// quoted, never copied whole.
    static func appendCSVField(_ field: String, to text: inout TextBuffer) {
        var field = field
        field.withUTF8 { utf8 in
            let needsQuotes = utf8.isEmpty || utf8.contains {
                $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r")
            }
            guard needsQuotes else { return text.append(chunked: utf8) }
            text.append(ascii: UInt8(ascii: "\""))
            var run = 0
            for index in utf8.indices where utf8[index] == UInt8(ascii: "\"") {
                // The quote ends this run, and starts the next: doubled.
                text.append(chunked: UnsafeBufferPointer(rebasing: utf8[run...index]))
                run = index
            }
            text.append(chunked: UnsafeBufferPointer(rebasing: utf8[run...]))
            text.append(ascii: UInt8(ascii: "\""))
        }
    }
}
