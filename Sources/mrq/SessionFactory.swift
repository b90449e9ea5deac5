import Shell

/// Builds the session the executable talks to.
///
/// ```swift
/// let session = try makeSession(options: options)
/// ```
///
/// Errors thrown here (a model or store that cannot be loaded) exit with
/// status 65.
func makeSession(options: CommandLineOptions) throws -> ShellSessionProtocol {
    try ShellSession(modelPath: options.modelPath, storePath: options.storePath,
                     parameters: options.parameters, renderOptions: options.renderOptions)
}
