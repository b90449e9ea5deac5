import ObjectStore
import ObjectStorePostgres
import Shell

/// Builds the session the executable talks to.
///
/// ```swift
/// let session = try makeSession(options: options)
/// ```
///
/// Errors thrown here (a model or store that cannot be loaded) exit with
/// status 65.
func makeSession(options: CommandLineOptions) throws -> ShellSession {
    // A directory, a device or a pipe named as the store or the model is
    // refused before anything opens it (SQLite would wait on a pipe).
    // A PostgreSQL URL is checked as a URL (no password in it), not as a file.
    if options.storePath != ":memory:", try PostgresStoreURL.parse(options.storePath) == nil {
        try ShellFiles.checkStorePath(options.storePath, shownAs: options.storePath)
    }
    if let modelPath = options.modelPath {
        try ShellFiles.checkModelPath(modelPath, shownAs: modelPath)
    }
    let session = try ShellSession(modelPath: options.modelPath, storePath: options.storePath,
                                   parameters: options.parameters, renderOptions: options.renderOptions, opening: options.opening)
    session.strict = options.strict
    return session
}

/// What `--verbose` and the banner say about the session just opened:
/// the model (its version and bundle when it came from one) and the store.
func openingDescription(_ session: ShellSession, options: CommandLineOptions) -> [String] {
    let model = session.model
    var modelLine = "model "
    if let path = options.modelPath {
        modelLine += path
    } else {
        modelLine += model.entities.isEmpty ? "empty (entity statements add to it)" : "kept in the store"
    }
    if let version = model.versionName { modelLine += ", version \(version)" }
    modelLine += " (\(model.entities.count) \(model.entities.count == 1 ? "entity" : "entities"))"
    // A PostgreSQL store says where it is as libpq found it (the PG*
    // variables fill in what the URL leaves out), never with a password.
    let coordinator = session.coordinator
    let store = options.storePath == ":memory:" ? "in memory"
        : coordinator.persistentStores.first?.storeType == .postgres
        ? coordinator.storeLocation.map(PostgresStoreURL.shown) ?? options.storePath : options.storePath
    return [modelLine, "store \(store)\(options.opening.readOnly ? ", read-only" : "")"]
}

/// What the prompt shows first, when mrq starts on a terminal with
/// nothing else to run: the version, the model and store, and where help is.
func banner(_ session: ShellSession, options: CommandLineOptions) -> String {
    (["mrq \(mrqVersion)"] + openingDescription(session, options: options) + ["Enter .help for help"])
        .joined(separator: "\n") + "\n"
}
