import Shell

/// Everything the command line asks of a session, already validated.
///
/// ```swift
/// let session = try makeSession(options: options)
/// ```
struct CommandLineOptions {
    /// The managed object model file or bundle, if one was given.
    var modelPath: String?
    /// The store to open: a SQLite file path, a `postgres://` URL, or `:memory:`.
    var storePath: String
    /// `--param name=value` bindings, in command-line order; a later
    /// binding of the same name wins.
    var parameters: [(name: String, value: String)]
    /// `-c` statements, run before the files.
    var commands: [String]
    /// Script files, run in order.
    var files: [String]
    /// Output mode, colour and terminal width for the renderer.
    var renderOptions: RenderOptions
    /// `--migrate`, `--migrate-dropping-data` and `--read-only`.
    var opening: StoreOpening.Options
    /// `--verbose`: say on standard error which model and store opened.
    var verbose: Bool
    /// Whether long work draws a progress line on standard error: it is a
    /// terminal, and neither `--quiet` nor NO_COLOR asks for quiet.
    var showsProgress: Bool
    /// `--strict`: exactly Apple's NSPredicate language, as `.strict on`.
    var strict = false
}
