import Foundation
import Predicates

/// Connects contexts to the persistent stores of a model.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addSQLiteStore(at: URL(fileURLWithPath: "people.sqlite"))
/// let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
/// ```
///
/// A coordinator can hold several stores. The model's configurations say
/// which entities each store holds; an entity held by several stores is
/// inserted into the first one added unless `ManagedObjectContext.assign`
/// says otherwise, and fetched from all of them.
public final class PersistentStoreCoordinator: @unchecked Sendable {
    /// The model every store of the coordinator holds objects of.
    public let model: ManagedObjectModel
    private let lock = NSLock()
    private var _stores: [any StoreBackend] = [] {
        didSet { wholeModelStores = _stores.count == 1 && _stores[0].configurationName == nil ? _stores : nil }
    }
    /// `_stores` when it is one store of the whole model (the usual stack,
    /// which holds every entity), else nil: what every fetch asks first,
    /// answered without asking the store (mrq-bench e. parse).
    private var wholeModelStores: [any StoreBackend]?
    /// Store identifiers chosen for inserted objects, by temporary ID.
    private var assignments: [ObjectID: String] = [:]
    private var contexts: [ManagedObjectContext.Weak] = []
    /// Serialises saves spanning several stores, so their prepared halves
    /// never wait on each other.
    let saveLock = NSLock()
    /// Serialises opening stores for writing (`openStoresForWriting`).
    private let writerLock = NSLock()
    /// Remote-change observers, and the listeners of the stores that post
    /// remote changes.
    let remoteChanges = RemoteChangeHub()

    /// A coordinator for `model`, with no store yet: add one with
    /// `addSQLiteStore(at:)` or
    /// `addPersistentStore(type:configuration:at:options:)`.
    public init(model: ManagedObjectModel) {
        self.model = model
    }

    deinit { remoteChanges.stopAll() }

    /// Adds a SQLite store at `url`, or in memory when `url` is nil.
    ///
    /// A store made with another model opens only with
    /// `migratesAutomatically` (inferred migration), and only with
    /// `allowsMigrationDataLoss` too when the migration would drop data;
    /// otherwise it throws `StoreError.Kind.modelMismatch`, leaving the file
    /// untouched (see `MigrationPreview`). With `deleteOnModelMismatch`, a
    /// mismatched store is deleted and recreated instead. `busyTimeout` is
    /// how long, in seconds, a save or fetch waits for another connection's
    /// lock before failing with `StoreError.Kind.locked`.
    @discardableResult
    public func addSQLiteStore(at url: URL?, readOnly: Bool = false, migratesAutomatically: Bool = false,
                               allowsMigrationDataLoss: Bool = false, deleteOnModelMismatch: Bool = false,
                               busyTimeout: TimeInterval = 5) throws -> String {
        var options = PersistentStoreOptions()
        options.readOnly = readOnly
        options.migratesAutomatically = migratesAutomatically
        options.allowsMigrationDataLoss = allowsMigrationDataLoss
        options.deleteOnModelMismatch = deleteOnModelMismatch
        options.busyTimeout = busyTimeout
        return try addPersistentStore(type: url == nil ? .inMemory : .sqlite, at: url, options: options).identifier
    }

    /// Adds a store of `type` holding the entities of `configuration` (all
    /// of them for nil).
    ///
    /// ```swift
    /// let archive = try coordinator.addPersistentStore(type: .xml, configuration: "Archive",
    ///                                                  at: URL(fileURLWithPath: "archive.xml"))
    /// ```
    ///
    /// `.inMemory` ignores `url`; `.sqlite` and `.xml` need one, and
    /// `.postgres` (from `ObjectStorePostgres`, once its engine is
    /// registered: see `register(_:)`) a `postgres://` URL.
    @discardableResult
    public func addPersistentStore(type: PersistentStoreType, configuration: String? = nil, at url: URL?,
                                   options: PersistentStoreOptions = PersistentStoreOptions()) throws -> any PersistentStore {
        if let configuration, model.configurations[configuration] == nil {
            throw StoreError(.notFound, "the model has no configuration '\(configuration)'")
        }
        let store = try Self.makeStore(type: type, model: model, configuration: configuration, url: url, options: options)
        try add(store, options: options)
        return store
    }

    /// A coordinator whose model is the one the store at `url` keeps,
    /// with that store added: what reading `storedModel(at:)` and adding
    /// the store with it does, in one step. A SQLite store opened
    /// read-only is read once: the model and then the objects through the
    /// same connection.
    ///
    /// ```swift
    /// var options = PersistentStoreOptions()
    /// options.readOnly = true
    /// let coordinator = try PersistentStoreCoordinator.openingStore(at: URL(fileURLWithPath: "Notes.sqlite"), options: options)
    /// coordinator.model.entities.map(\.name)
    /// ```
    ///
    /// Throws `StoreError.Kind.notFound` when there is no store at `url`,
    /// or it keeps no model (a Core Data store written without a model
    /// cache: open it with its model).
    public static func openingStore(at url: URL, options: PersistentStoreOptions = PersistentStoreOptions()) throws
        -> PersistentStoreCoordinator {
        let type = PersistentStoreType.forURL(url)
        guard let (model, opened) = try StoreEngines.engine(for: type).openWithStoredModel(url: url, options: options) else {
            throw StoreError(.notFound, "'\(url.isFileURL ? url.path : url.absoluteString)' keeps no model to open it with")
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.add(opened.backend, options: options)
        return coordinator
    }

    /// Holds `store`, opened for this coordinator's model.
    private func add(_ store: any StoreBackend, options: PersistentStoreOptions) throws {
        try lock.withLock {
            if _stores.contains(where: { $0.identifier == store.identifier }) {
                throw StoreError(.misuse, "store \(store.identifier) is already added to this coordinator")
            }
            _stores.append(store)
        }
        if options.postsRemoteChangeNotifications {
            do {
                try listenForRemoteChanges(to: store)
            } catch {
                remove(store)
                throw error
            }
        }
    }

    /// Adds a store of the type `url` names (see
    /// `PersistentStoreType.forURL`): XML for a `.xml` file, SQLite for
    /// any other file, and the type of the registered engine claiming the
    /// URL's scheme otherwise (PostgreSQL's for `postgres://`). Changing
    /// the URL is all it takes to move a program from SQLite to PostgreSQL.
    ///
    /// ```swift
    /// try coordinator.addPersistentStore(at: URL(fileURLWithPath: "people.sqlite"))
    /// try coordinator.addPersistentStore(at: URL(string: "postgres://app@db.local:5432/people")!)
    /// ```
    @discardableResult
    public func addPersistentStore(configuration: String? = nil, at url: URL,
                                   options: PersistentStoreOptions = PersistentStoreOptions()) throws -> any PersistentStore {
        try addPersistentStore(type: .forURL(url), configuration: configuration, at: url, options: options)
    }

    static func makeStore(type: PersistentStoreType, model: ManagedObjectModel, configuration: String?, url: URL?,
                          options: PersistentStoreOptions) throws -> any StoreBackend {
        try StoreEngines.engine(for: type).open(url: url, model: model, configuration: configuration, options: options).backend
    }

    /// The stores, in the order they were added.
    public var persistentStores: [any PersistentStore] { lock.withLock { _stores } }

    /// The store with `identifier`, if this coordinator holds it.
    public func persistentStore(withIdentifier identifier: String) -> (any PersistentStore)? {
        backend(identifier)
    }

    /// Removes a store; objects of it registered in contexts become stale.
    /// A SQLite store closes its read connections; its file closes when
    /// the last reference to the store goes. A store posting remote
    /// changes stops listening first (its thread ends before this returns).
    public func remove(_ store: any PersistentStore) {
        let removed = lock.withLock { () -> (any StoreBackend)? in
            guard let index = _stores.firstIndex(where: { $0 === store }) else { return nil }
            return _stores.remove(at: index)
        }
        remoteChanges.stopListening(to: store)
        removed?.closeReaders()
    }

    /// Puts `new` where `old` was (or last).
    func replace(_ old: any StoreBackend, with new: any StoreBackend) {
        lock.withLock {
            if let index = _stores.firstIndex(where: { $0 === old }) { _stores[index] = new } else { _stores.append(new) }
        }
        remoteChanges.stopListening(to: old)
        old.closeReaders()
    }

    /// Whether at least one store is added.
    public var hasStore: Bool { lock.withLock { !_stores.isEmpty } }

    /// Opens for writing each SQLite store opened for reading until its
    /// first write (`PersistentStoreOptions.readsUntilWritten`), putting
    /// the writable store in its place: called before every write (a save,
    /// a batch request, a model change). The store keeps its identifier,
    /// so objects and IDs carry on; opening it read-write is when SQLite
    /// recovers its log or journal. Throws, leaving the reading store in
    /// place, when the file is no longer the store that was read.
    package func openStoresForWriting() throws {
        try writerLock.withLock {
            for store in backends {
                if let writer = try store.reopenedForWriting() { replace(store, with: writer) }
            }
        }
    }

    /// Removes every store, as `remove(_:)` does one by one; objects of them
    /// registered in contexts become stale.
    public func removeStores() {
        let removed = lock.withLock { () -> [any StoreBackend] in
            defer { _stores = [] }
            return _stores
        }
        remoteChanges.stopAll()
        for store in removed { store.closeReaders() }
    }

    // MARK: - Routing

    var backends: [any StoreBackend] { lock.withLock { _stores } }

    func backend(_ identifier: String) -> (any StoreBackend)? {
        lock.withLock { _stores.first { $0.identifier == identifier } }
    }

    /// The coordinator's one store, for what changes a whole store (its
    /// model, a backup); throws when it has none or several.
    func soleBackend(purpose: String) throws -> any StoreBackend {
        let stores = backends
        guard stores.count == 1 else { throw StoreError.needsOneSQLiteStore(purpose, found: stores) }
        return stores[0]
    }

    /// The only store serving `entity`, if one alone does.
    func soleStore(for entity: EntityDescription, includesSubentities: Bool = true) -> (any StoreBackend)? {
        let stores = self.stores(for: entity, includesSubentities: includesSubentities)
        return stores.count == 1 ? stores[0] : nil
    }

    /// Where the first store is, as its engine found it (see
    /// `StoreBackend.location`): a database server's store names the
    /// server and database it connected to.
    package var storeLocation: URL? { backends.first?.location }

    /// Copies the coordinator's one store to the file `url`, consistently
    /// (a migration's backup); throws unless it is a SQLite store.
    package func copyStore(to url: URL) throws {
        try soleBackend(purpose: "backing up").copy(to: url)
    }

    /// The stores holding objects of `entity` (or of its sub-entities).
    func stores(for entity: EntityDescription, includesSubentities: Bool = true) -> [any StoreBackend] {
        if let whole = lock.withLock({ wholeModelStores }) { return whole }
        let all = backends
        let kinds = includesSubentities ? entity.selfAndDescendants : [entity]
        return all.filter { store in kinds.contains { store.holds($0) } }
    }

    /// Where a new object of `entity` goes by default.
    func defaultStore(for entity: EntityDescription) -> (any StoreBackend)? {
        backends.first { $0.holds(entity) }
    }

    /// The store holding (or about to hold) the object `id`.
    func backend(for id: ObjectID) throws -> any StoreBackend {
        if let identifier = id.isTemporaryID ? lock.withLock({ assignments[id] }) : id.storeIdentifier {
            guard let store = backend(identifier) else {
                throw StoreError(.notFound, "the store of \(id) is not in the coordinator")
            }
            return store
        }
        guard let store = defaultStore(for: id.entity) else {
            throw StoreError(.notFound, "no store of the coordinator holds entity \(id.entity.name)")
        }
        return store
    }

    /// The current rows of `ids`, from whichever stores hold them.
    func snapshots(for ids: [ObjectID]) throws -> [Snapshot] {
        var result: [Snapshot] = []
        for (_, group) in Dictionary(grouping: ids, by: \.storeNumber) {
            result += try backend(for: group[0]).snapshots(for: group)
        }
        return result
    }

    func assign(_ id: ObjectID, to store: any PersistentStore) {
        lock.withLock { assignments[id] = store.identifier }
    }

    var hasAssignments: Bool { lock.withLock { !assignments.isEmpty } }

    func forgetAssignments(_ ids: some Sequence<ObjectID>) {
        lock.withLock {
            guard !assignments.isEmpty else { return }
            for id in ids { assignments[id] = nil }
        }
    }

    func register(_ context: ManagedObjectContext) {
        lock.withLock {
            contexts = contexts.filter { $0.context != nil }
            contexts.append(.init(context: context))
        }
    }

    /// The live root contexts on this coordinator.
    var rootContexts: [ManagedObjectContext] { lock.withLock { contexts.compactMap(\.context) } }

    // MARK: - Model

    /// A coordinator for `model` on this coordinator's store, migrated to
    /// it in one transaction: asking for this is asking for the migration,
    /// but one that would drop data is refused unless `allowsDataLoss`.
    /// The old coordinator and its contexts must not be used afterwards.
    public func replacingModel(with model: ManagedObjectModel, allowsDataLoss: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try openStoresForWriting()
        let migrated = try soleBackend(purpose: "changing the model").replacingModel(with: model, allowsDataLoss: allowsDataLoss)
        coordinator.lock.withLock { coordinator._stores = [migrated] }
        return coordinator
    }

    /// What opening the store at `url` with `model` would migrate and
    /// drop: a SQLite file, or the PostgreSQL database a `postgres://` URL
    /// names (the same preview for the same stored model). Nil when the
    /// store matches the model, does not exist or is not an mrq store, and
    /// for an XML file. Reads only (the store is left as it was); throws
    /// when the change cannot be migrated, or a database cannot be reached.
    ///
    /// ```swift
    /// let people = URL(string: "postgres:///people")!
    /// if let preview = try PersistentStoreCoordinator.migrationPreview(at: people, model: model) {
    ///     print(preview.changes)
    /// }
    /// ```
    public static func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview? {
        try StoreEngines.engine(for: .forURL(url)).migrationPreview(at: url, model: model)
    }

    /// What changing this coordinator's SQLite store to `model` (see
    /// `replacingModel`) would migrate and drop; nil when nothing needs
    /// migrating.
    /// What the stores have to say since last asked (see
    /// `StoreBackend.takeNotices`): `reconnected to PostgreSQL (…)`.
    package func takeStoreNotices() -> [String] {
        persistentStores.flatMap { ($0 as? any StoreBackend)?.takeNotices() ?? [] }
    }

    package func migrationPreview(to model: ManagedObjectModel) throws -> MigrationPreview? {
        try soleBackend(purpose: "changing the model").migrationPreview(to: model)
    }

    /// The model a store was made with; nil when there is no such file or
    /// it is not an mrq store, or the PostgreSQL database a `postgres://`
    /// URL names holds no store. Reads only; for PostgreSQL it connects
    /// (and throws when it cannot).
    ///
    /// ```swift
    /// let model = try PersistentStoreCoordinator.storedModel(at: URL(string: "postgres://app@db.local/people")!)
    /// ```
    public static func storedModel(at url: URL) throws -> ManagedObjectModel? {
        try StoreEngines.engine(for: .forURL(url)).storedModel(at: url)
    }
}

/// How a store is opened.
public struct PersistentStoreOptions: Sendable {
    /// Open the store for reading only (Core Data's
    /// `NSReadOnlyPersistentStoreOption`): nothing writes the file, a save
    /// throws `StoreError.Kind.readOnly`, and a store that does not exist
    /// yet, or is empty, is refused rather than created.
    ///
    /// A SQLite store is read so that SQLite cannot write it, nor make,
    /// remove or rewrite anything beside it: with SQLite's read-only mode
    /// when another connection has it open (its saves are seen), as
    /// `immutable` when nobody has and nothing needs recovering, and from
    /// a private copy SQLite recovers when its `-wal` holds commits or its
    /// journal is hot (the copy costs the file's size in time and
    /// temporary disk space). A store nobody had open is read as a file
    /// nothing writes: a process that starts writing it afterwards is not
    /// seen. A side file that is not a regular file (`-wal`, `-shm` or
    /// `-journal` as a pipe, a device or a link) is refused, naming it.
    public var readOnly = false
    /// Open a store made with another model by migrating it (inferred, in
    /// one transaction): Core Data's `NSMigratePersistentStoresAutomaticallyOption`
    /// with `NSInferMappingModelAutomaticallyOption`. Off, such a store
    /// fails to open with `StoreError.Kind.modelMismatch` and is left as it
    /// was. An earlier version of the store's own model is refused either way.
    public var migratesAutomatically = false
    /// Let that migration drop data (rows of removed entities, values of
    /// removed properties); off, it is refused, saying what it would drop.
    public var allowsMigrationDataLoss = false
    /// MagicalRecord's `shouldDeleteStoreOnModelMismatch`.
    public var deleteOnModelMismatch = false
    /// How long a SQLite store waits for another connection's lock, in
    /// seconds; for a PostgreSQL store, the connection's `lock_timeout`.
    public var busyTimeout: TimeInterval = 5
    /// How long opening a PostgreSQL store waits for another process that
    /// is creating or migrating it, in seconds: nil (the default) waits
    /// until that process is done, however long its migration takes, and
    /// then opens the store as that process left it. When the wait reaches
    /// it, the opening fails with `StoreError.Kind.locked`, saying that
    /// another process is creating or migrating the store.
    ///
    /// ```swift
    /// var options = PersistentStoreOptions()
    /// options.migrationLockTimeout = 60   // give up after a minute
    /// ```
    public var migrationLockTimeout: TimeInterval?
    /// The table layout of a new SQLite store: mrq's readable one, or Core
    /// Data's own (`ZPERSON`, `Z_PK`, …, with its metadata and model
    /// cache), so that an iOS or macOS app can open the file. For a new XML
    /// store, `.coreData` writes Apple's XML store format (what macOS Core
    /// Data's `NSXMLStoreType` writes) instead of mrq's. A store that
    /// exists keeps the layout or format it has.
    public var layout: SchemaMapping.Layout = .mrq
    /// Read-only, with SQLite's `immutable` flag: the file is taken to be
    /// unchangeable, so no lock is taken and no `-shm` or `-wal` is made
    /// beside it (a copy on read-only media, a file kept as evidence).
    /// Another process writing the file meanwhile is not seen, and may be
    /// read half-written: use it only on a file nothing writes. A store
    /// whose `-wal` holds commits, or whose journal holds a transaction
    /// that did not finish, is refused: immutable would not read them.
    public var immutable = false
    /// Hear other processes' saves to the store and post them as
    /// `RemoteChangeNotification`s (Core Data's
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`); contexts
    /// that set `automaticallyMergesChangesFromParent` merge them. A
    /// PostgreSQL store listens on a connection of its own for the
    /// notifications every save sends; the other store types have no such
    /// announcements and post nothing.
    public var postsRemoteChangeNotifications = false
    /// Open an existing SQLite store that opening read-write would change
    /// (a log or journal to recover, an index to rebuild, with nobody
    /// else having it open) for reading only, and for writing at its first
    /// write (see `PersistentStoreCoordinator.openStoresForWriting`): a
    /// session that only reads leaves the files as they were. The shell's
    /// sessions open stores so.
    package var readsUntilWritten = false
    /// The defaults: read-write, no migration, a five-second busy timeout,
    /// mrq's own layout.
    public init() {}
}
