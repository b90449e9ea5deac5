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

    public init(
        mode: OutputMode = .table,
        headers: Bool = true,
        color: Bool = false,
        terminalWidth: Int? = nil,
        terminalHeight: Int? = nil,
        nullText: String = "NULL"
    ) {
        self.mode = mode
        self.headers = headers
        self.color = color
        self.terminalWidth = terminalWidth
        self.terminalHeight = terminalHeight
        self.nullText = nullText
    }
}
