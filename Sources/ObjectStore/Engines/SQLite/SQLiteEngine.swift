import Foundation

/// Opens SQLite stores: a file (`.sqlite`), or a database in memory
/// (`.inMemory`, which ignores the URL).
struct SQLiteEngine: StoreEngine {
    let storeType: PersistentStoreType
    /// None: a file is SQLite by its extension (`PersistentStoreType.forFile`).
    var urlSchemes: Set<String> { [] }

    func open(url: URL?, model: ManagedObjectModel, configuration: String?,
              options: PersistentStoreOptions) throws -> OpenedStore {
        let store = try SQLiteStore(path: try path(url), model: model, options: Self.options(options))
        store.configurationName = configuration
        return OpenedStore(store)
    }

    /// Read-only, the model and the objects are read through one
    /// connection (see `SQLiteStore.openingStoredModel`).
    func openWithStoredModel(url: URL, options: PersistentStoreOptions) throws -> (ManagedObjectModel, OpenedStore)? {
        let sqliteOptions = Self.options(options)
        guard storeType != .inMemory, sqliteOptions.readOnly else { return try readStoredModelThenOpen(url: url, options: options) }
        return try SQLiteStore.openingStoredModel(path: url.path, options: sqliteOptions).map { ($0.model, OpenedStore($0)) }
    }

    private func path(_ url: URL?) throws -> String {
        guard storeType != .inMemory else { return ":memory:" }
        guard let url else { throw StoreError(.misuse, "a SQLite store needs a URL; use .inMemory for none") }
        return url.path
    }

    private static func options(_ options: PersistentStoreOptions) -> SQLiteStore.Options {
        var sqliteOptions = SQLiteStore.Options()
        sqliteOptions.readOnly = options.readOnly || options.immutable
        sqliteOptions.immutable = options.immutable
        sqliteOptions.deleteOnModelMismatch = options.deleteOnModelMismatch
        sqliteOptions.migratesAutomatically = options.migratesAutomatically
        sqliteOptions.allowsMigrationDataLoss = options.allowsMigrationDataLoss
        sqliteOptions.busyTimeout = options.busyTimeout
        sqliteOptions.layout = options.layout
        sqliteOptions.readsUntilWritten = options.readsUntilWritten
        return sqliteOptions
    }

    func storedModel(at url: URL) throws -> ManagedObjectModel? {
        storeType == .inMemory ? nil : try SQLiteStore.storedModel(atPath: url.path)
    }

    func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview? {
        guard storeType != .inMemory, FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try SQLiteStore.pendingMigration(Database(path: url.path, readOnly: true), to: model)
    }

    func emptiness(at url: URL) throws -> String? {
        storeType == .inMemory ? nil : try SQLiteStore.emptiness(atPath: url.path)
    }
}

extension SQLiteStore {
    package var savesFirst: Bool { true }

    /// The store opened again for writing, when it was opened for reading
    /// until its first write (`defersWriting`); nil otherwise. Throws when
    /// the file is no longer the store that was read.
    package func reopenedForWriting() throws -> (any StoreBackend)? {
        guard defersWriting else { return nil }
        var options = self.options
        options.readsUntilWritten = false
        let writer = try SQLiteStore(path: path, model: model, options: options)
        guard writer.identifier == identifier else {
            throw StoreError(.conflict, """
                cannot write '\(path)': it is no longer the store that was read (its identifier changed \
                from \(identifier) to \(writer.identifier))
                """)
        }
        writer.configurationName = configurationName
        return writer
    }

    /// The store over the same connection, migrated to `model` in one
    /// transaction; this one is not to be used again.
    package func replacingModel(with model: ManagedObjectModel, allowsDataLoss: Bool) throws -> any StoreBackend {
        var options = Options()
        options.migratesAutomatically = true
        options.allowsMigrationDataLoss = allowsDataLoss
        // Its read connections know the old schema.
        closeReaders()
        return try SQLiteStore(database: database, model: model, options: options)
    }

    package func migrationPreview(to model: ManagedObjectModel) throws -> MigrationPreview? {
        try Self.pendingMigration(database, to: model)
    }

    /// Copies the store, consistently, through its own connection.
    package func copy(to url: URL) throws {
        try database.copy(to: url.path)
    }

    package func persistentHistory(after date: Date?) throws -> [HistoryTransaction] {
        // The changes, then the transactions, of one moment.
        try readTransaction { try read { try history(HistoryReader(db: $0), after: date) } }
    }

    package func persistentHistoryStatements(after date: Date?) throws -> [FetchExplanation.Step] {
        var steps: [FetchExplanation.Step] = []
        try readTransaction {
            try read { db in
                _ = try history(HistoryReader(db: db) { sql, values in
                    steps.append(.init(sql: sql, bindings: values.map { .value($0) }, purpose: "history"))
                }, after: date)
            }
        }
        return steps
    }
}
