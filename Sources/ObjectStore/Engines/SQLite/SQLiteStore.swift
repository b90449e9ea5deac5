import CSQLite
import Foundation
import Predicates

/// A persistent store in one SQLite file (or `:memory:`).
///
/// ```swift
/// let store = try SQLiteStore(path: "people.sqlite", model: model)
/// ```
///
/// Writes (saves, migrations, batch updates and deletes) run on the store's
/// one writer connection, `database`, serialised by the store's lock; a
/// save runs in one `BEGIN IMMEDIATE` transaction. The journal is WAL, so
/// reads run on read connections of their own (`ReaderPool`), in parallel
/// with each other and with a save, each seeing the last commit. A store
/// in memory, in another journal mode or held in exclusive locking mode
/// has only its one connection: there, reads take the lock too.
/// Connections are opened without SQLite's own mutex: each is used by one
/// thread at a time.
package final class SQLiteStore: @unchecked Sendable {
    package let path: String
    package let model: ManagedObjectModel
    package let mapping: SchemaMapping
    package let identifier: String
    /// `identifier` as the number every ObjectID of this store carries.
    package let storeNumber: StoreNumber
    /// The writer connection (the only one without `readers`).
    package let database: Database
    private let lock = NSRecursiveLock()
    /// The read connections; nil when the store has only `database`.
    let readers: ReaderPool?
    private let layouts: [ObjectIdentifier: RowLayout]
    /// Set by the coordinator when it adds the store.
    package var configurationName: String?
    package var storeType: PersistentStoreType
    /// Opened read-only: saves are refused before touching the file.
    let isReadOnly: Bool
    /// Opened for reading until the first write (`Options.readsUntilWritten`):
    /// the coordinator opens the store again for writing before it writes
    /// (see `PersistentStoreCoordinator.openStoresForWriting`).
    package let defersWriting: Bool
    /// The options the store was opened with.
    let options: Options

    package struct Options: Sendable {
        package var readOnly = false
        /// MagicalRecord's `shouldDeleteStoreOnModelMismatch`.
        package var deleteOnModelMismatch = false
        /// Migrate a store made with another model (see `MigrationPreview`).
        package var migratesAutomatically = false
        /// Migrate even when that drops data.
        package var allowsMigrationDataLoss = false
        /// How long to wait for another connection's lock, in seconds.
        package var busyTimeout: TimeInterval = 5
        /// Read-only with SQLite's `immutable` flag (see `PersistentStoreOptions.immutable`).
        package var immutable = false
        /// The layout of a new store; an existing one keeps its own.
        package var layout: SchemaMapping.Layout = .mrq
        /// Open an existing store that opening read-write would change
        /// (a log or journal to recover, an index to rebuild beside a
        /// store nobody has open) for reading only, until the first write
        /// (see `defersWriting`): the shell's session, which writes only
        /// when told to save. Ignored when migrating or deleting on a
        /// mismatch is asked for, which is asking to write.
        package var readsUntilWritten = false
        package init() {}
    }

    package convenience init(path: String, model: ManagedObjectModel, options: Options = Options()) throws {
        try self.init(path: path, options: options) { _ in model }
    }

    /// The store at `path`, opened read-only (`options.readOnly`), with
    /// the model it keeps, read through the connection the store then
    /// reads with: one connection, the schema parsed once. Nil when the
    /// file does not exist or keeps no model.
    ///
    /// ```swift
    /// var options = SQLiteStore.Options()
    /// options.readOnly = true
    /// let store = try SQLiteStore.openingStoredModel(path: "Photos.sqlite", options: options)
    /// ```
    package static func openingStoredModel(path: String, options: Options) throws -> SQLiteStore? {
        guard options.readOnly, path != ":memory:", FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try SQLiteStore(path: path, options: options) { database in
                guard let model = try keptModel(database) else { throw KeepsNoModel() }
                return model
            }
        } catch is KeepsNoModel {
            return nil
        }
    }

    private struct KeepsNoModel: Error {}

    /// Opens the store at `path` with the model `model(database)` gives
    /// once the file is open on `database`.
    private init(path: String, options: Options, model: (Database) throws -> ManagedObjectModel) throws {
        self.path = path
        self.storeType = path == ":memory:" ? .inMemory : .sqlite
        self.options = options
        var options = options
        defersWriting = try options.readsUntilWritten && !options.readOnly && !options.migratesAutomatically
            && !options.deleteOnModelMismatch && StoreFiles.wouldChangeOnOpening(path)
        if defersWriting { options.readOnly = true }
        self.isReadOnly = options.readOnly
        if path != ":memory:" {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if !options.readOnly && !FileManager.default.isWritableFile(atPath: directory) {
                throw StoreError(.readOnly, "cannot create or write the store: directory '\(directory)' is not writable")
            }
            // SQLite would open the file read-only without a word, leave a
            // -wal and -shm behind, and fail only at the first save.
            if !options.readOnly && FileManager.default.fileExists(atPath: path)
                && !FileManager.default.isWritableFile(atPath: path) {
                throw StoreError(.readOnly, "cannot write the store: '\(path)' is not writable; open it read-only")
            }
        }
        if options.readOnly { try Self.refuseUnreadableByImmutable(path, options) }
        var database = try Database(path: path, readOnly: options.readOnly, immutable: options.readOnly && options.immutable,
                                    busyTimeout: options.busyTimeout)
        let model = try model(database)
        self.model = model
        var prepared: (mapping: SchemaMapping, identifier: String)
        do {
            prepared = try Self.prepare(database, model: model, options: options)
        } catch let error as StoreError where error.kind == .modelMismatch && options.deleteOnModelMismatch {
            var fresh = Options()
            fresh.layout = try Self.isCoreDataStore(database) ? .coreData : options.layout
            database = try Self.deleteAndReopen(path: path, database: database, busyTimeout: options.busyTimeout)
            prepared = try Self.prepare(database, model: model, options: fresh)
        }
        let (mapping, identifier) = prepared
        self.mapping = mapping
        self.database = database
        self.identifier = identifier
        self.storeNumber = StoreNumber(identifier)
        layouts = RowLayout.all(model: model, mapping: mapping)
        // A store opened read-only lends its writer to reads: under the
        // lock, which nothing else of such a store takes but a batch
        // request (explained, or refused by SQLite).
        let lock = self.lock
        readers = Self.readers(for: database, lending: isReadOnly ? ReaderPool.WriterLending(
            tryLock: { lock.try() }, unlock: { lock.unlock() }) : nil)
    }

    /// A store over an open connection, brought up to `model` (migrated
    /// when it changed, never dropping data unless `options` allow it):
    /// how a model changes under a live store, in memory too.
    package init(database: Database, model: ManagedObjectModel, options: Options) throws {
        self.path = database.path
        self.storeType = database.path == ":memory:" ? .inMemory : .sqlite
        self.isReadOnly = false
        self.defersWriting = false
        self.options = options
        self.model = model
        self.database = database
        (self.mapping, self.identifier) = try Self.prepare(database, model: model, options: options)
        self.storeNumber = StoreNumber(identifier)
        layouts = RowLayout.all(model: model, mapping: mapping)
        readers = Self.readers(for: database)
    }

    deinit {
        // Before the writer: the last connection to close checkpoints the
        // log into the file, and that must be the writer.
        readers?.close()
    }

    /// The model a store file was made with, from its metadata; nil when
    /// the file does not exist or is not an mrq store. Read through a
    /// connection SQLite cannot write through (see `ReadingMode`).
    package static func storedModel(atPath path: String) throws -> ManagedObjectModel? {
        guard path != ":memory:", FileManager.default.fileExists(atPath: path) else { return nil }
        return try keptModel(Database(path: path, readOnly: true))
    }

    /// The model the store open on `db` keeps; nil when it keeps none.
    private static func keptModel(_ db: Database) throws -> ManagedObjectModel? {
        if try isCoreDataStore(db) { return try CoreDataMetadata.storedModel(db) }
        guard try db.tableExists(metadataTable),
              case .data(let archive)? = try db.scalar("SELECT value FROM \(metadataTable) WHERE key = 'model'") else {
            return nil
        }
        return try ManagedObjectModel(archive: archive)
    }

    /// Refuses what `immutable` would read wrong: a log with frames not
    /// yet in the file, or a hot journal whose rollback is not yet in it.
    /// Immutable reads the file alone; without it, a store nobody has
    /// open is read immutable when nothing needs recovering, from a
    /// private snapshot when something does (see `ReadingMode`), so
    /// reading never needs to write beside the store.
    private static func refuseUnreadableByImmutable(_ path: String, _ options: Options) throws {
        guard options.immutable, path != ":memory:" else { return }
        let files = try StoreFiles.inspect(path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        // An empty file holds no store to recover a log or journal into.
        guard !files.isEmpty else { return }
        if files.logHasData {
            throw StoreError(.readOnly, """
                '\(path)' has a write-ahead log ('\(name)-wal') with data \
                not yet in the file, which immutable mode would not read; open it read-only without immutable \
                (that writes nothing either)
                """)
        }
        if try StoreFiles.hasHotJournal(path, files) {
            throw StoreError(.readOnly, """
                '\(path)' has a rollback journal ('\(name)-journal') of a transaction that did not finish, \
                which immutable mode would read half-written; open it read-only without immutable \
                (that writes nothing either)
                """)
        }
    }

    private static func deleteAndReopen(path: String, database: Database, busyTimeout: TimeInterval) throws -> Database {
        _ = database  // closed when released
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        return try Database(path: path, busyTimeout: busyTimeout)
    }

    /// Runs `body` holding the writer: for writing through `database`.
    /// Reads `body` makes meanwhile on this thread run on the writer too,
    /// and see what it has written.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lockWriter()
        defer { unlockWriter() }
        return try body()
    }

    /// Held from `prepareSave` to its commit or rollback.
    package func lockForPreparedSave() { lockWriter() }
    package func unlockAfterPreparedSave() { unlockWriter() }

    private func lockWriter() {
        lock.lock()
        readers?.enterWriter()
    }

    private func unlockWriter() {
        readers?.leaveWriter()
        lock.unlock()
    }

    // MARK: - Schema

    package static let metadataTable = SchemaMapping.metadataTable

    /// The mapping of the store open on `db` and its identifier: a Core
    /// Data store keeps Core Data's layout, an mrq store mrq's, and an
    /// empty file is laid out as `options.layout` says.
    private static func prepare(_ db: Database, model: ManagedObjectModel,
                                options: Options) throws -> (SchemaMapping, String) {
        if let existing = try coreDataSchema(db) {
            let mapping = try SchemaMapping(model: model, layout: .coreData, existing: existing)
            try refuseViews(db, mapping: mapping)
            return (mapping, try prepareCoreData(db, mapping: mapping, model: model, existing: existing, options: options))
        }
        if options.layout == .coreData, try !db.tableExists(metadataTable) {
            try refuseForeignTables(db)
            let mapping = try SchemaMapping(model: model, layout: .coreData)
            return (mapping, try prepareCoreData(db, mapping: mapping, model: model, existing: nil, options: options))
        }
        let mapping = try SchemaMapping(model: model)
        try refuseViews(db, mapping: mapping)
        return (mapping, try prepareSchema(db, mapping: mapping, model: model, options: options))
    }

    /// The error for a file opened without the intent to write that holds
    /// no store yet: an empty file, or a SQLite database with no tables.
    static func notAStore(_ db: Database) -> StoreError {
        StoreError(.corrupt, "'\(db.path)' is not a store: \(emptyReason(db.path)), and it is opened read-only")
    }

    /// Why the file at `path` holds no store, when it is empty or a SQLite
    /// database with no tables: "it is empty (0 bytes)", "it is a SQLite
    /// database with no tables"; nil for anything else (a store, another
    /// database, no such file). Read as evidence (see `ReadingMode`).
    ///
    /// ```swift
    /// if let reason = try SQLiteStore.emptiness(atPath: path) { print("not a store: \(reason)") }
    /// ```
    package static func emptiness(atPath path: String) throws -> String? {
        var info = stat()
        guard path != ":memory:", stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        if info.st_size == 0 { return emptyReason(path) }
        let tables = try Database(path: path, readOnly: true).scalar("SELECT count(*) FROM sqlite_master")
        return tables == .int(0) ? emptyReason(path) : nil
    }

    private static func emptyReason(_ path: String) -> String {
        var info = stat()
        return stat(path, &info) == 0 && info.st_size == 0 ? "it is empty (0 bytes)" : "it is a SQLite database with no tables"
    }

    /// Refuses to lay a store out in a SQLite file that already holds
    /// other tables.
    private static func refuseForeignTables(_ db: Database) throws {
        let userTables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if !userTables.isEmpty {
            throw StoreError(.modelMismatch, "'\(db.path)' is a SQLite database but neither an mrq store nor a Core Data store")
        }
    }

    /// Creates the tables of a new store, or checks an existing store's
    /// fingerprint, migrating only as `options` allow. Returns the store's
    /// identifier.
    private static func prepareSchema(
        _ db: Database, mapping: SchemaMapping, model: ManagedObjectModel, options: Options
    ) throws -> String {
        let readOnly = options.readOnly
        let fingerprint = try SchemaBuilder.fingerprint(mapping: mapping, model: model)
        do {
            let exists = try db.tableExists(metadataTable)
            if exists {
                let stored = try db.scalar("SELECT value FROM \(metadataTable) WHERE key = 'fingerprint'")
                guard case .string(let storedFingerprint)? = stored else {
                    throw StoreError(.corrupt, "the store has no model fingerprint")
                }
                guard case .string(let id)? = try db.scalar("SELECT value FROM \(metadataTable) WHERE key = 'identifier'") else {
                    throw StoreError(.corrupt, "the store has no identifier")
                }
                if storedFingerprint != fingerprint {
                    try migrate(db, to: model, mapping: mapping, fingerprint: fingerprint, options: options)
                }
                return id
            }
            if readOnly {
                try refuseForeignTables(db)
                throw notAStore(db)
            }
            // Refused before anything is written (a foreign database and
            // its log stay as they are), and again under the lock below.
            // Tables found here may be another process's store, laid out
            // since the look above: then it is opened as it is.
            do {
                try refuseForeignTables(db)
            } catch {
                if try db.tableExists(metadataTable) { return try prepareSchema(db, mapping: mapping, model: model, options: options) }
                throw error
            }
            let id = UUID().uuidString
            try db.enterWALMode()
            let created = try db.transaction { () throws -> Bool in
                // Another process may have laid the store out since the
                // look above: then it is opened as it is, not laid out twice.
                if try db.tableExists(metadataTable) { return false }
                try refuseForeignTables(db)
                for statement in try SchemaBuilder.createStatements(mapping: mapping, model: model) {
                    try db.execute(statement)
                }
                try db.execute("CREATE TABLE \(metadataTable) (key TEXT PRIMARY KEY, value)")
                try db.execute("INSERT INTO \(metadataTable) (key, value) VALUES ('fingerprint', ?), ('identifier', ?), ('model', ?)",
                               [.string(fingerprint), .string(id), .data(model.archived())])
                return true
            }
            return created ? id : try prepareSchema(db, mapping: mapping, model: model, options: options)
        } catch let error as StoreError {
            throw error
        }
    }

    /// Migrates the store open on `db` to `model`, as `options` allow.
    /// Decided twice: first without a lock, so that a refusal writes
    /// nothing; then again under the write lock, because another process
    /// may meanwhile have migrated the store (nothing is left to do) or
    /// added objects to an entity the first plan took for empty.
    private static func migrate(_ db: Database, to model: ManagedObjectModel, mapping: SchemaMapping,
                                fingerprint: String, options: Options) throws {
        func modelToMigrateFrom() throws -> ManagedObjectModel? {
            guard case .string(let stored)? = try db.scalar("SELECT value FROM \(metadataTable) WHERE key = 'fingerprint'"),
                  stored != fingerprint else { return nil }
            let old = try storedModel(db)
            // A store made empty (no entities) holds nothing to lose.
            let preview = old.entities.isEmpty ? nil : try migrationPreview(db, old: old, new: model)
            if let preview {
                try preview.check(of: db.path, migratesAutomatically: options.migratesAutomatically,
                                  allowsDataLoss: options.allowsMigrationDataLoss)
            }
            return old
        }
        guard try modelToMigrateFrom() != nil else { return }
        if options.readOnly {
            throw StoreError(.readOnly, "the store needs a migration but is opened read-only")
        }
        try db.transaction {
            if let old = try modelToMigrateFrom() {
                try StoreMigrator.migrate(db, from: old, to: model, mapping: mapping)
            }
        }
    }

    /// What opening the store on `db` with `model` would migrate; nil when
    /// its fingerprint is the model's, when it holds no model with
    /// entities, and when it is no mrq store (a Core Data store is not
    /// migrated: opening it with another model is refused, naming what
    /// differs).
    static func pendingMigration(_ db: Database, to model: ManagedObjectModel) throws -> MigrationPreview? {
        guard try db.tableExists(metadataTable),
              case .string(let stored)? = try db.scalar("SELECT value FROM \(metadataTable) WHERE key = 'fingerprint'"),
              stored != (try SchemaBuilder.fingerprint(of: model)) else { return nil }
        let old = try storedModel(db)
        return old.entities.isEmpty ? nil : try migrationPreview(db, old: old, new: model)
    }

    /// The model the store open on `db` keeps in its metadata.
    static func storedModel(_ db: Database) throws -> ManagedObjectModel {
        guard case .data(let archive)? = try db.scalar("SELECT value FROM \(metadataTable) WHERE key = 'model'") else {
            throw StoreError(.modelMismatch, "the store was made with a different model, and keeps no model to migrate from")
        }
        do {
            return try ManagedObjectModel(archive: archive)
        } catch let error as ModelError {
            throw StoreError(.modelMismatch, "the store keeps a model mrq cannot read: \(error.message)")
        }
    }

    static func migrationPreview(_ db: Database, old: ManagedObjectModel, new: ManagedObjectModel) throws -> MigrationPreview {
        try MigrationPreview.inferred(MigrationConnection(db), old: old, new: new)
    }

    // MARK: - Reading

    package func layout(for entity: EntityDescription) -> RowLayout {
        layouts[ObjectIdentifier(entity)]!
    }

    /// The select list for a hierarchy's table under alias `t`.
    package func selectList(for entity: EntityDescription, alias: String = "t") -> String {
        mapping.selectList(for: entity, alias: alias)
    }

    /// Decodes a row selected with `selectList`.
    package func decodeSnapshot(_ statement: Statement, root: EntityDescription) throws -> Snapshot {
        try decode(statement, layout: try layout(ofRow: statement, root: root))
    }

    /// Decodes a row with `layout`, after checking its key.
    @inline(__always)
    private func decode(_ statement: Statement, layout: RowLayout) throws -> Snapshot {
        let pk = try RowLayout.key(statement, at: 0) { "a row of \(layout.tableName): \(layout.primaryKeyName)" }
        return try layout.decode(statement, pk: pk, store: self)
    }

    /// The layout of the row's entity: the root's, or the sub-entity its
    /// entity column names, which must be in the root's hierarchy.
    @inline(__always)
    private func layout(ofRow statement: Statement, root: EntityDescription) throws -> RowLayout {
        guard !statement.isNull(at: 1) else { return layout(for: root) }
        let rootLayout = layout(for: root)
        return layout(for: try RowLayout.entity(statement.value(at: 1), kindOf: root, mapping: mapping, model: model) {
            "\(rootLayout.place(statement.int64(at: 0))), \(self.mapping.table(for: root).entityColumn?.unquoted ?? "the entity column")"
        })
    }

    /// Runs a SELECT built on `selectList` and decodes each row.
    package func snapshots(sql: String, bindings: [Value], root: EntityDescription) throws -> [Snapshot] {
        var result: [Snapshot] = []
        try forEachSnapshot(sql: sql, bindings: bindings, root: root) { result.append($0) }
        return result
    }

    /// Runs a SELECT built on `selectList` and hands each decoded row to
    /// `body`, which owns it: nothing is copied on the way.
    package func forEachSnapshot(sql: String, bindings: [Value], root: EntityDescription,
                                 _ body: (consuming Snapshot) throws -> Void) throws {
        try read { database in
            let statement = try database.cachedStatement(sql)
            try statement.bind(bindings)
            defer { statement.reset() }
            let rootLayout = layout(for: root)
            // Tables without sub-entities select NULL for the entity column.
            let hasSubentities = !root.subentities.isEmpty
            while try statement.step() {
                let layout = hasSubentities ? try layout(ofRow: statement, root: root) : rootLayout
                try body(try decode(statement, layout: layout))
            }
        }
    }

    /// Object IDs of a query whose first two columns are `_pk` and `_ent`.
    package func objectIDs(sql: String, bindings: [Value], root: EntityDescription) throws -> [ObjectID] {
        try read { database in
            let statement = try database.cachedStatement(sql)
            try statement.bind(bindings)
            defer { statement.reset() }
            let table = mapping.table(for: root)
            var result: [ObjectID] = []
            while try statement.step() {
                let pk = try RowLayout.key(statement, at: 0) { "a row of \(table.name.unquoted): \(table.primaryKey.unquoted)" }
                var entity = root
                if !statement.isNull(at: 1) {
                    entity = try RowLayout.entity(statement.value(at: 1), kindOf: root, mapping: mapping, model: model) {
                        "row \(pk) of \(table.name.unquoted), \(table.entityColumn?.unquoted ?? "the entity column")"
                    }
                }
                result.append(ObjectID(entity: entity, primaryKey: pk, store: storeNumber))
            }
            return result
        }
    }

    /// The current rows of the given objects (missing rows are left out).
    package func snapshots(for ids: [ObjectID]) throws -> [Snapshot] {
        var result: [Snapshot] = []
        let byRoot = Dictionary(grouping: ids) { ObjectIdentifier($0.entity.rootEntity) }
        for group in byRoot.values {
            let root = group[0].entity.rootEntity
            for chunk in stride(from: 0, to: group.count, by: 500) {
                let slice = group[chunk..<Swift.min(chunk + 500, group.count)]
                let marks = Array(repeating: "?", count: slice.count).joined(separator: ",")
                let sql = FetchPlan.selectRows(byKeys: marks, root: root, mapping: mapping)
                result += try snapshots(sql: sql, bindings: slice.map { .int($0.primaryKey) }, root: root)
            }
        }
        return result
    }

    /// The destinations of a to-many relationship of one object, in order
    /// for ordered relationships.
    package func destinations(of relationship: RelationshipDescription, from source: ObjectID) throws -> [ObjectID] {
        guard let destination = relationship.destination,
              let sql = mapping.destinationsSQL(of: relationship, from: source.entity) else { return [] }
        // The destination itself, not its root: a row of a sibling
        // entity is not one of the relationship's objects.
        return try objectIDs(sql: sql, bindings: [.int(source.primaryKey)], root: destination)
    }

    package func count(sql: String, bindings: [Value]) throws -> Int {
        try read { database in
            guard case .int(let n)? = try database.scalar(sql, bindings) else { return 0 }
            return Int(n)
        }
    }

    // MARK: - Writing

    /// Writes one save in one transaction and returns the permanent IDs of
    /// the inserted objects. Checks every updated and deleted row's version
    /// first: if any changed, throws `StoreConflictError` and writes nothing.
    /// A uniqueness constraint the save would break throws
    /// `StoreConstraintConflictError` naming the objects, and writes
    /// nothing either.
    package func save(_ changes: StoreChanges) throws -> PermanentIDs {
        if isReadOnly { throw StoreError(.readOnly, "cannot save: '\(path)' is open read-only") }
        return try withLock {
            try database.transaction {
                try checkVersions(changes)
                do {
                    // A savepoint: a unique index refusing a row leaves the
                    // rows before it written, and the check below must see
                    // the store as it was.
                    return try database.transaction { try SaveWriter(store: self, changes: changes).write() }
                } catch let error as StoreError where error.isUniquenessViolation {
                    let conflicts = try uniquenessCheck.conflicts(in: changes)
                    if !conflicts.isEmpty { throw StoreConstraintConflictError(conflicts: conflicts) }
                    // None in the end: the order of the writes made one (two
                    // rows trading their values). Clear the values that
                    // move first, then write.
                    return try database.transaction {
                        try SaveWriter(store: self, changes: changes, clearsMovingUniqueValues: true).write()
                    }
                }
            }
        }
    }

    /// Finds who breaks which constraint, against this store's rows.
    var uniquenessCheck: UniquenessCheck {
        UniquenessCheck(rows: { [unowned self] entity, attribute, values in
            try self.snapshots(of: entity, where: attribute, in: values)
        }, allRows: { [unowned self] entity in
            try self.fetchSnapshots(FetchRequest(entityName: entity.name), entity: entity, predicate: nil, windowed: false).snapshots
        })
    }

    private func checkVersions(_ changes: StoreChanges) throws {
        var expected: [ObjectID: Int64] = [:]
        for update in changes.updated { expected[update.snapshot.id] = update.expectedVersion }
        for delete in changes.deleted { expected[delete.id] = delete.expectedVersion }
        guard !expected.isEmpty else { return }
        let current = try snapshots(for: Array(expected.keys))
        var byID: [ObjectID: Snapshot] = [:]
        for snapshot in current { byID[snapshot.id] = snapshot }
        var conflicts: [StoreConflict] = []
        for (id, version) in expected {
            let now = byID[id]
            if now?.version != version {
                conflicts.append(StoreConflict(id: id, expectedVersion: version, current: now))
            }
        }
        if !conflicts.isEmpty {
            throw StoreConflictError(conflicts: conflicts.sorted { $0.id.primaryKey < $1.id.primaryKey })
        }
    }
}

/// Rows changed in the store since the saving context read them.
package struct StoreConflictError: Error {
    package var conflicts: [StoreConflict]

    package init(conflicts: [StoreConflict]) { self.conflicts = conflicts }
}
