/// Renders rows as they come: rows in, text out, so a result of any size
/// is printed while it is fetched, in memory that does not grow with it.
///
/// ```swift
/// let writer = RowWriter(columns: ["name", "age"], options: options) { text in
///     print(text, terminator: "")
/// }
/// writer.add([.value(.string("Ada")), .value(.int(36))])
/// writer.finish()
/// ```
///
/// Rows are rendered as they are added and handed to `write` in blocks of
/// about 8 KB (a call per row would cost more than the row), and at
/// ``flush()`` and ``finish()``; a long value in JSON or CSV is handed on
/// in blocks of about 64 KB while it is escaped or encoded, so that a
/// value of a gigabyte is never held a second time, and tables and line
/// mode cut it (see ``ShownCell``). A table first holds ``pageSize`` rows,
/// lays itself out from them (see ``Renderer/TableLayout``), then renders
/// each later row as it comes. Nothing is written before the first row
/// or ``finish()``, so a statement that fails before its first row
/// prints nothing.
public final class RowWriter {
    /// How many rows a table measures before it is laid out.
    public static let pageSize = 1000

    private let columns: [String]
    private let renderer: Renderer
    private let footer: Renderer.Footer?
    private let write: (String) -> Void
    /// The rows added so far.
    public private(set) var count = 0
    /// A table's first rows as they will be shown (cut, so a page of huge
    /// values is not held).
    private var page: [[ShownCell]] = []
    private var layout: Renderer.TableLayout?
    /// Per-column prefixes made once: JSON keys or `name = ` lines.
    private var prefixes: [String] = []
    /// Rendered text not handed to `write` yet.
    private var text = TextBuffer()
    private static let blockSize = 8 * 1024

    /// A writer of `columns`, handing its text to `write`; a table ends
    /// with a `(3 rows)` footer.
    public convenience init(columns: [String], options: RenderOptions, write: @escaping (String) -> Void) {
        self.init(columns: columns, options: options, footer: .rows, write: write)
    }

    init(columns: [String], options: RenderOptions, footer: Renderer.Footer?, write: @escaping (String) -> Void) {
        self.columns = columns
        renderer = Renderer(options: options)
        self.footer = footer
        self.write = write
        // A long value goes out as it is written, a block at a time.
        text.spill = write
        switch options.mode {
        case .json: prefixes = Renderer.jsonKeys(columns, indent: "  ")
        case .line: prefixes = renderer.lineNames(columns)
        case .table, .csv: break
        }
    }

    /// Renders a row (a table's first rows are held until its layout is
    /// known).
    public func add(_ row: [Cell]) {
        switch renderer.options.mode {
        case .csv:
            if count == 0 { appendCSVHeader() }
            renderer.appendCSVRow(row, columns: columns.count, to: &text)
        case .json:
            text += count == 0 ? "[\n  " : ",\n  "
            renderer.appendJSONObject(keys: prefixes, row: row, indent: "  ", to: &text)
        case .line:
            if count > 0 { text += "\n" }
            renderer.appendLineRecord(names: prefixes, row: row, to: &text)
        case .table:
            let shown = renderer.shownRow(row, columns: columns.count)
            if let layout {
                renderer.appendTableRow(shown, number: count + 1, layout: layout, to: &text)
            } else {
                page.append(shown)
                if page.count == Self.pageSize { layOut() }
            }
        }
        count += 1
        if text.count >= Self.blockSize { flush() }
    }

    /// Hands the rows rendered so far to `write`.
    public func flush() {
        guard !text.isEmpty else { return }
        write(text.string)
        text.removeAll()
    }

    /// Writes the end: a table's bottom border and footer, JSON's closing
    /// bracket, or a header with no rows under it.
    public func finish() {
        switch renderer.options.mode {
        case .csv:
            if count == 0 { appendCSVHeader() }
        case .json:
            text += count == 0 ? "[]\n" : "\n]\n"
        case .line:
            break
        case .table:
            if layout == nil { layOut() }
            if let layout { renderer.appendTableEnd(layout, count: count, footer: footer, to: &text) }
        }
        flush()
    }

    private func appendCSVHeader() {
        guard renderer.options.headers else { return }
        text += columns.map(Renderer.csvField).joined(separator: ",") + "\n"
    }

    /// Lays the table out from the rows held, and renders them.
    private func layOut() {
        let layout = renderer.tableLayout(columns: columns, page: page)
        self.layout = layout
        renderer.appendTableStart(layout, to: &text)
        for (index, row) in page.enumerated() {
            renderer.appendTableRow(row, number: index + 1, layout: layout, to: &text)
        }
        page = []
    }
}
