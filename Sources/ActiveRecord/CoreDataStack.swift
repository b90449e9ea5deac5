import Foundation
import ObjectStore
import Predicates

/// A model, a coordinator with its store, a private-queue root saving
/// context and a main-queue default context on top of it: MagicalRecord's
/// stack in one value.
///
/// ```swift
/// try MagicalRecord.setupCoreDataStack(model: model, storeNamed: "People.sqlite")
/// let context = MagicalRecord.defaultContext
/// ```
public final class CoreDataStack: @unchecked Sendable {
    /// The model the stack was set up with.
    public let model: ManagedObjectModel
    /// The coordinator holding the store: Core Data's
    /// `NSPersistentStoreCoordinator`, for what the contexts don't do
    /// (migrating, `persistentHistory(after:)`, a second store).
    public let coordinator: PersistentStoreCoordinator
    /// Private queue, on the coordinator: the context that writes to disk.
    public let rootSavingContext: ManagedObjectContext
    /// Main queue, a child of the root saving context: for the UI or shell.
    public let defaultContext: ManagedObjectContext
    /// Where the store lives; nil in memory.
    public let storeURL: URL?
    /// Where save blocks' completion handlers run (``Options/completionQueue``).
    public let completionQueue: DispatchQueue

    /// Where the stack keeps its SQLite store.
    public enum StoreLocation: Sendable {
        /// In the XDG data directory, under the app's name.
        case named(String)
        /// At this file URL (its folder is created when missing), or in
        /// the PostgreSQL database a `postgres://` URL names, once the
        /// program registered `ObjectStorePostgres`'s engine
        /// (`PersistentStoreCoordinator.register(PostgresEngine())`).
        case url(URL)
        /// In memory, gone when the stack is: for tests and previews.
        case inMemory
    }

    /// How ``CoreDataStack/init(model:store:options:)`` sets the stack up:
    /// migration, the default context's queue, where save completions run.
    /// The defaults are MagicalRecord's, for an app; ``server`` is the setup
    /// for a server or a command-line tool.
    ///
    /// ```swift
    /// var options = CoreDataStack.Options.server
    /// options.autoMigrate = true
    /// try MagicalRecord.setupCoreDataStack(model: model, storeAt: url,
    ///                                      options: options)
    /// ```
    public struct Options: Sendable {
        /// Migrate the store when it was made with another model (inferred
        /// migration): what `MagicalRecord.setupAutoMigratingCoreDataStack`
        /// asks for. Off (the default, as `setupCoreDataStack`), such a
        /// store fails to open with `StoreError.Kind.modelMismatch` and is
        /// left as it was.
        public var autoMigrate = false
        /// Let that migration drop data (removed entities' rows, removed
        /// properties' values); off, it is refused, saying what it would drop.
        public var allowsMigrationDataLoss = false
        /// Delete and recreate the store when it was made with another model
        /// (MagicalRecord's `shouldDeleteStoreOnModelMismatch`).
        public var deleteStoreOnModelMismatch = false
        /// The default context's concurrency: `.mainQueue` in apps;
        /// `.confined` for a single-threaded tool like the shell.
        public var defaultContextType: ManagedObjectContext.ConcurrencyType = .mainQueue
        /// Where the completion handlers of save blocks
        /// (`MagicalRecord.save(_:completion:)`) run: the main queue, as in
        /// MagicalRecord, unless set. A server or tool whose main thread
        /// never runs the main queue sets its own (see ``server``).
        public var completionQueue: DispatchQueue = .main
        /// Hear other processes' saves to the store (Core Data's
        /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`, see
        /// `PersistentStoreOptions.postsRemoteChangeNotifications`): on a
        /// PostgreSQL store shared by several processes, the root saving
        /// context merges each one on its queue, and the default context
        /// (which merges its parent's changes) and the fetched-results
        /// controllers on it follow. Off by default; stores no other
        /// process shares (a SQLite file's) post nothing.
        ///
        /// ```swift
        /// var options = CoreDataStack.Options.server
        /// options.postsRemoteChangeNotifications = true
        /// try MagicalRecord.setupCoreDataStack(model: model, storeAt: URL(string: "postgres:///people")!,
        ///                                      options: options)
        /// ```
        ///
        /// A `.confined` default context has no queue to merge on: it
        /// merges only when you call `mergeChanges(fromRemoteChange:)` (see
        /// `PersistentStoreCoordinator.addRemoteChangeObserver(_:)`).
        public var postsRemoteChangeNotifications = false
        /// The app setup: no migration, a main-queue default context,
        /// completions on the main queue.
        public init() {}

        /// The setup for a server or a command-line tool: nothing runs on
        /// the main queue, which such a process may never service. The
        /// default context is private-queue (its `perform` and the finders
        /// work from any thread or task) and completions run on a queue of
        /// their own.
        ///
        /// ```swift
        /// try MagicalRecord.setupCoreDataStack(model: model, storeAt: url, options: .server)
        /// let adults = try Person.findAll(where: "age >= %d", 18)   // from any task
        /// ```
        public static var server: Options {
            var options = Options()
            options.defaultContextType = .privateQueue
            options.completionQueue = DispatchQueue(label: "mrq.save-completions")
            return options
        }
    }

    /// Opens (or creates) the store and builds the stack on it, without
    /// making it the default: pass it to `MagicalRecord.use(_:)` for that, or
    /// keep several. `MagicalRecord.setupCoreDataStack` calls this.
    ///
    /// ```swift
    /// let stack = try CoreDataStack(model: model, store: .url(url),
    ///                               options: .server)
    /// let context = stack.newPrivateContext()
    /// ```
    ///
    /// Throws when the store cannot be opened, or was made with another
    /// model and `options` allow no migration (`StoreError`, the store left
    /// as it was).
    public init(model: ManagedObjectModel, store: StoreLocation, options: Options = Options()) throws {
        self.model = model
        completionQueue = options.completionQueue
        coordinator = PersistentStoreCoordinator(model: model)
        switch store {
        case .inMemory:
            storeURL = nil
        case .url(let url):
            storeURL = url
        case .named(let name):
            storeURL = try Self.defaultDirectory().appendingPathComponent(name)
        }
        // A file is SQLite whatever its extension, as in MagicalRecord.
        let type: PersistentStoreType = storeURL.map { url in
            let named = PersistentStoreType.forURL(url)
            return named == .xml ? .sqlite : named
        } ?? .inMemory
        if let storeURL, type == .sqlite {
            try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var storeOptions = PersistentStoreOptions()
        storeOptions.migratesAutomatically = options.autoMigrate
        storeOptions.allowsMigrationDataLoss = options.allowsMigrationDataLoss
        storeOptions.deleteOnModelMismatch = options.deleteStoreOnModelMismatch
        storeOptions.postsRemoteChangeNotifications = options.postsRemoteChangeNotifications
        try coordinator.addPersistentStore(type: type, at: storeURL, options: storeOptions)
        let rootType: ManagedObjectContext.ConcurrencyType = options.defaultContextType == .confined ? .confined : .privateQueue
        rootSavingContext = ManagedObjectContext(concurrencyType: rootType, coordinator: coordinator)
        rootSavingContext.name = "root saving context"
        rootSavingContext.mergePolicy = .mergeByPropertyObjectTrump
        defaultContext = ManagedObjectContext(concurrencyType: options.defaultContextType, parent: rootSavingContext)
        defaultContext.name = "default context"
        defaultContext.mergePolicy = .mergeByPropertyObjectTrump
        defaultContext.automaticallyMergesChangesFromParent = true
    }

    /// The store MagicalRecord makes when given no name: `<app>.sqlite`,
    /// where `<app>` is the executable's name.
    public static var defaultStoreName: String { ProcessInfo.processInfo.processName + ".sqlite" }

    /// `$XDG_DATA_HOME/<app>` or `~/.local/share/<app>`, where `<app>` is the
    /// executable's name.
    public static func defaultDirectory() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            base = URL(fileURLWithPath: xdg)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        }
        let app = ProcessInfo.processInfo.processName
        return base.appendingPathComponent(app)
    }

    // MARK: - Contexts

    /// A private-queue child of the root saving context: its saves go
    /// through the root to the store.
    public func newPrivateContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, parent: rootSavingContext)
        context.mergePolicy = .mergeByPropertyObjectTrump
        return context
    }

    /// A main-queue child of the root saving context.
    public func newMainQueueContext() -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .mainQueue, parent: rootSavingContext)
    }

    /// A context of `type` with `parent`.
    public func newContext(_ type: ManagedObjectContext.ConcurrencyType, parent: ManagedObjectContext) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: type, parent: parent)
    }
}
