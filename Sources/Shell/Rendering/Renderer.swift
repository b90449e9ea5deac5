import Predicates

/// Turns results into the text the shell prints, in one of four modes.
///
/// ```swift
/// let renderer = Renderer(options: RenderOptions(mode: .table))
/// print(renderer.render(people), terminator: "")
/// ```
///
/// Rendering is pure: every method returns a string (ending in a newline
/// unless it is empty) and never touches the terminal, so the REPL,
/// scripts and tests share it. See ``ValueFormatter`` for how each kind
/// of value is spelled, and ``RowWriter`` for rows written as they come
/// (these methods collect what it writes).
public struct Renderer: Sendable {
    public var options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// A fetch result: a table with a `(3 rows)` footer, `name = value`
    /// lines, a JSON array of objects, or CSV.
    public func render(_ result: ResultSet) -> String {
        renderRows(result, footer: .rows)
    }

    /// A grouped aggregate, one row per group: like ``render(_:)`` with a
    /// `(2 groups)` footer.
    public func render(groups: ResultSet) -> String {
        renderRows(groups, footer: .groups)
    }

    /// A single value such as a count: the bare value, always so in JSON
    /// mode; with a label, a one-cell table, a `label = value` line, or a
    /// header and a value in CSV.
    public func render(scalar: Value, label: String?) -> String {
        guard let label, options.mode != .json else {
            switch options.mode {
            case .json: return Self.json(.value(scalar), binary: options.binary) + "\n"
            case .csv: return csvRow([.value(scalar)])
            case .table, .line: return styled(shown(.value(scalar), escaping: .keepingLines)) + "\n"
            }
        }
        return render(values: [(label: label, value: scalar)])
    }

    /// Several named values computed together, such as
    /// `min(age), max(age)`: one record, a JSON object in JSON mode.
    public func render(values: [(label: String, value: Value)]) -> String {
        let columns = values.map(\.label)
        let row: [Cell] = values.map { .value($0.value) }
        if options.mode == .json { return jsonObject(columns: columns, row: row, indent: "") + "\n" }
        return collect(columns: columns, rows: [row], footer: nil)
    }

    func renderRows(_ result: ResultSet, footer: Footer) -> String {
        collect(columns: result.columns, rows: result.rows, footer: footer)
    }

    /// What a ``RowWriter`` writes for these rows, as one string.
    private func collect(columns: [String], rows: [[Cell]], footer: Footer?) -> String {
        var output = ""
        let writer = RowWriter(columns: columns, options: options, footer: footer) { output += $0 }
        for row in rows { writer.add(row) }
        writer.finish()
        return output
    }

    /// The count line under a table: `(1 row)`, `(3 groups)`.
    enum Footer {
        case rows, groups

        func text(count: Int) -> String {
            let noun: String
            switch self {
            case .rows: noun = count == 1 ? "row" : "rows"
            case .groups: noun = count == 1 ? "group" : "groups"
            }
            return "(\(count) \(noun))"
        }
    }

    // MARK: Shared helpers

    /// How many keys of a to-many list tables and lines show: the rest
    /// are counted (`[Ada, Grace, … 38 more]`), so that a department of
    /// a thousand people stays one readable cell. CSV and JSON give every
    /// key.
    static let listLimit = 5

    /// The cell in `row` under column `index`; short rows read as NULL.
    static func cell(_ row: [Cell], _ index: Int) -> Cell {
        index < row.count ? row[index] : .value(.null)
    }

    /// A cell as table and line modes show it (see ``ShownCell``).
    func shown(_ cell: Cell, escaping: ShownCell.Escaping) -> ShownCell {
        ShownCell(cell, nullText: options.nullText, listLimit: Self.listLimit, limit: options.maxValueWidth,
                  escaping: escaping, binary: options.binary)
    }

    /// A shown cell's text with its colour, if colour is on.
    func styled(_ cell: ShownCell) -> String {
        guard options.color else { return cell.text }
        if cell.isNull { return ANSI.dim + cell.text + ANSI.reset }
        if cell.isNumeric { return ANSI.number + cell.text + ANSI.reset }
        return cell.text
    }

    func styledHeader(_ name: String) -> String {
        options.color ? ANSI.bold + name + ANSI.reset : name
    }

    /// Newlines, tabs and other control characters as `\n`, `\t`, `\u{1b}`,
    /// so a value keeps to its line in a table: `TerminalText`'s escapes,
    /// the same as in errors, `.schema` and `.dump`.
    static func escapeControls(_ text: String) -> String {
        TerminalText.escaped(text)
    }
}

/// The few ANSI SGR sequences the renderer uses.
enum ANSI {
    static let bold = "\u{1B}[1m"
    static let dim = "\u{1B}[2m"
    static let number = "\u{1B}[36m"
    static let reset = "\u{1B}[0m"
}
