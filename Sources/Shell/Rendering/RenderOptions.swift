/// How the shell prints results: `.mode table`, `.mode json` and so on.
public enum OutputMode: String, Sendable, CaseIterable {
    /// A box-drawn table with a row count footer; rows too wide for the
    /// terminal are printed as vertical records instead.
    case table
    /// One `name = value` line per column, a blank line between rows.
    case line
    /// A pretty-printed JSON array of objects.
    case json
    /// RFC 4180 comma-separated values, `\n` line endings.
    case csv
}

/// How binary values (binary and transformable attributes) are shown:
/// `.binary decoded`, `.binary preview`, `.binary raw`, or `mrq --binary`.
///
/// | setting | table and line | csv | json |
/// |---|---|---|---|
/// | `decoded` | an archive or property list as readable text (`["a", "b"]`, `NSColor(r 1 g 0 b 0 a 1)`); other bytes as their size and first bytes, `<1.2 KB 0a061f2b…>` | the same | an archive or property list as JSON; other bytes in base64 |
/// | `preview` | every value as its size and first bytes | the same | base64 |
/// | `raw` | `x'0a06…'`, cut at ``RenderOptions/maxValueWidth`` | `x'…'` in full | base64 |
///
/// `.dump` always writes `x'…'` in full, whatever the setting, so that it
/// reads back.
public enum BinaryDisplay: String, Sendable, CaseIterable {
    case decoded, preview, raw
}

/// Settings for a ``Renderer``.
///
/// ```swift
/// let options = RenderOptions(mode: .table, color: false, terminalWidth: 80)
/// ```
public struct RenderOptions: Sendable, Hashable {
    public var mode: OutputMode
    /// Whether tables and CSV print a header row.
    public var headers: Bool
    /// Whether to emit ANSI colours (table and line modes only).
    public var color: Bool
    /// The terminal's width in columns; `nil` means unlimited (no vertical
    /// fallback), which is what you want when writing to a file or pipe.
    public var terminalWidth: Int?
    /// The terminal's height in lines at an interactive prompt, where a
    /// result taller than this goes through the pager; `nil` otherwise.
    public var terminalHeight: Int?
    /// What table and line modes print for `NULL`. CSV always prints an
    /// empty field, JSON prints `null`.
    public var nullText: String
    /// The most terminal columns a value takes in table and line modes
    /// (and in a table's records); a longer value shows its first
    /// columns, then `…` and its size: `Lorem ipsum…(104,857,600 bytes)`.
    /// JSON and CSV always give every byte.
    public var maxValueWidth: Int
    /// How binary values are shown (see ``BinaryDisplay``).
    public var binary: BinaryDisplay

    public init(
        mode: OutputMode = .table,
        headers: Bool = true,
        color: Bool = false,
        terminalWidth: Int? = nil,
        terminalHeight: Int? = nil,
        nullText: String = "NULL",
        maxValueWidth: Int = RenderOptions.defaultMaxValueWidth,
        binary: BinaryDisplay = .decoded
    ) {
        self.mode = mode
        self.headers = headers
        self.color = color
        self.terminalWidth = terminalWidth
        self.terminalHeight = terminalHeight
        self.nullText = nullText
        self.maxValueWidth = maxValueWidth
        self.binary = binary
    }

    /// A thousand columns: a dozen lines of a wide terminal, enough to
    /// tell one long text from another, the length sqlite3's own example
    /// of value limits uses (`.mode table -limits 10,1000`); and a table
    /// whose widest value is this wide is still one a terminal can draw.
    public static let defaultMaxValueWidth = 1000
}
