import Shell

/// Builds the session the executable talks to; the one place that picks
/// an implementation of ``ShellSessionProtocol``.
///
/// ```swift
/// let session = try makeSession(options: options)
/// ```
///
/// Until the statement interpreter lands, this returns a
/// ``PlaceholderSession`` that echoes statements back. Errors thrown here
/// (a model or store that cannot be loaded) exit with status 65.
func makeSession(options: CommandLineOptions) throws -> ShellSessionProtocol {
    let session = PlaceholderSession()
    session.renderOptions = options.renderOptions
    return session
}
