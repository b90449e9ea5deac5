import Foundation
import Synchronization

/// Opens the stores of one kind, for every coordinator of the program.
///
/// SQLite, XML and in-memory stores are ObjectStore's own and always
/// there. An engine that needs a system library of its own comes in a
/// library of its own, and a program that links it registers it once,
/// before opening a store of its kind:
///
/// ```swift
/// import ObjectStorePostgres
/// PersistentStoreCoordinator.register(PostgresEngine())
/// try coordinator.addPersistentStore(at: URL(string: "postgres:///people")!)
/// ```
///
/// The engines are mrq's: the store an engine opens is one of the
/// package's own.
public protocol StoreEngine: Sendable {
    /// The type of the stores it opens.
    var storeType: PersistentStoreType { get }
    /// The URL schemes naming its stores, in lowercase (`postgres`):
    /// `PersistentStoreType.forURL` gives `storeType` for them.
    var urlSchemes: Set<String> { get }
    /// Opens (creating or migrating as `options` allow) the store at `url`
    /// holding the entities of `configuration` (all for nil).
    func open(url: URL?, model: ManagedObjectModel, configuration: String?,
              options: PersistentStoreOptions) throws -> OpenedStore
    /// The model the store at `url` was made with; nil when it holds none.
    func storedModel(at url: URL) throws -> ManagedObjectModel?
    /// Opens the store at `url` with the model it was made with; nil when
    /// it holds none. By default `storedModel(at:)`, then `open`.
    func openWithStoredModel(url: URL, options: PersistentStoreOptions) throws -> (ManagedObjectModel, OpenedStore)?
    /// What opening the store at `url` with `model` would migrate and
    /// drop; nil when it matches the model or holds no store. Reads only.
    func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview?
    /// Why the file at `url` holds no store although it exists ("it is
    /// empty (0 bytes)"), for a refusal that says so; nil when it holds a
    /// store, is missing, or the engine cannot tell. Reads only.
    func emptiness(at url: URL) throws -> String?
}

extension StoreEngine {
    /// No engine can tell an empty file unless it says so.
    public func emptiness(at url: URL) throws -> String? { nil }

    /// The model `storedModel(at:)` reads, and the store opened with it.
    public func openWithStoredModel(url: URL, options: PersistentStoreOptions) throws -> (ManagedObjectModel, OpenedStore)? {
        try readStoredModelThenOpen(url: url, options: options)
    }

    /// `openWithStoredModel` in two steps: for an engine that opens the
    /// store with its model in one only in some cases.
    func readStoredModelThenOpen(url: URL, options: PersistentStoreOptions) throws -> (ManagedObjectModel, OpenedStore)? {
        guard let model = try storedModel(at: url) else { return nil }
        return (model, try open(url: url, model: model, configuration: nil, options: options))
    }
}

/// A store an engine opened, for the coordinator to hold (see
/// `StoreEngine.open`).
public struct OpenedStore {
    package let backend: any StoreBackend

    package init(_ backend: any StoreBackend) { self.backend = backend }
}

extension PersistentStoreCoordinator {
    /// Why the file at `url` holds no store although it exists, as its
    /// engine tells (a SQLite file: "it is empty (0 bytes)", "it is a
    /// SQLite database with no tables"); nil for a store, a missing file,
    /// or a file the engine cannot tell. Reads only.
    ///
    /// ```swift
    /// if let reason = try PersistentStoreCoordinator.emptiness(ofStoreAt: url) { print("not a store: \(reason)") }
    /// ```
    public static func emptiness(ofStoreAt url: URL) throws -> String? {
        try StoreEngines.engine(for: .forURL(url)).emptiness(at: url)
    }

    /// Makes every coordinator of the program able to open the stores of
    /// `engine`: by its type, and by a URL of one of its schemes. Call it
    /// once, when the program starts; registering an engine for a type
    /// again replaces the earlier one.
    ///
    /// ```swift
    /// PersistentStoreCoordinator.register(PostgresEngine())
    /// ```
    public static func register(_ engine: some StoreEngine) {
        StoreEngines.register(engine)
    }
}

/// ObjectStore's own engines and those the program registered, by type
/// name and by URL scheme: every store is opened through one of them.
enum StoreEngines {
    private struct Registry {
        var byType: [String: any StoreEngine] = Dictionary(
            builtInEngines.map { ($0.storeType.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        var byScheme: [String: PersistentStoreType] = [:]
    }

    private static let registry = Mutex(Registry())

    static func register(_ engine: some StoreEngine) {
        registry.withLock { registry in
            registry.byType[engine.storeType.rawValue] = engine
            for scheme in engine.urlSchemes { registry.byScheme[scheme.lowercased()] = engine.storeType }
        }
    }

    /// The engine registered for the type named `name`, if any.
    static func engine(named name: String) -> (any StoreEngine)? {
        registry.withLock { $0.byType[name] }
    }

    /// The type of the engine registered for URLs of `scheme`, if any.
    static func type(forScheme scheme: String) -> PersistentStoreType? {
        registry.withLock { $0.byScheme[scheme.lowercased()] }
    }

    /// The engine of `type`, or an error saying how to register one.
    static func engine(for type: PersistentStoreType) throws -> any StoreEngine {
        if let engine = engine(named: type.rawValue) { return engine }
        throw StoreError(.misuse, "no store engine is registered for '\(type.rawValue)' stores: "
                         + "register it first, with PersistentStoreCoordinator.register(_:)")
    }
}
