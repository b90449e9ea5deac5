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
    // A directory, a device or a pipe named as the store or the model is
    // refused before anything opens it (SQLite would wait on a pipe).
    if options.storePath != ":memory:" {
        try ShellFiles.checkStorePath(options.storePath, shownAs: options.storePath)
    }
    if let modelPath = options.modelPath {
        try ShellFiles.checkModelPath(modelPath, shownAs: modelPath)
    }
    return try ShellSession(modelPath: options.modelPath, storePath: options.storePath,
                     parameters: options.parameters, renderOptions: options.renderOptions)
}
