import Foundation
import Synchronization
import Predicates
import struct Predicates.Predicate

/// The kinds of persistent store a coordinator can hold.
///
/// ```swift
/// try coordinator.addPersistentStore(type: .xml, at: URL(fileURLWithPath: "people.xml"))
/// ```
///
/// SQLite, XML and in-memory stores are ObjectStore's own. An engine that
/// needs a system library of its own comes in a library of its own, which
/// adds its type here: `.postgres` is in `ObjectStorePostgres` (libpq), so
/// a SQLite-only program never links libpq. Naming such a type makes the
/// coordinator able to open it.
public struct PersistentStoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's name: `sqlite`, `xml`, `inMemory`, `postgres`.
    public let rawValue: String

    /// The type named `rawValue`: one of ObjectStore's own, or of an
    /// engine library this process has used (`postgres` once
    /// `PersistentStoreType.postgres` has been named); nil otherwise.
    public init?(rawValue: String) {
        guard Self.builtIn.contains(rawValue) || StoreEngines.engine(named: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// A type of an engine library, known by name before it registers.
    package init(engine name: String) { rawValue = name }

    /// One SQLite file (Core Data's `NSSQLiteStoreType`).
    public static let sqlite = PersistentStoreType(engine: "sqlite")
    /// The whole graph in one XML file, written atomically
    /// (`NSXMLStoreType`): in mrq's XML store format, or in Apple's when
    /// the file is (or the layout asked for is `.coreData`).
    public static let xml = PersistentStoreType(engine: "xml")
    /// Nothing on disk (`NSInMemoryStoreType`); a SQLite `:memory:` database.
    public static let inMemory = PersistentStoreType(engine: "inMemory")

    private static let builtIn: Set<String> = ["sqlite", "xml", "inMemory"]

    /// The store types that keep no file of their own but a database
    /// server's (PostgreSQL): a migration copies into an empty one, never
    /// replaces it.
    var isServer: Bool { !Self.builtIn.contains(rawValue) }

    /// The type's name.
    public var description: String { rawValue }

    /// The type a file's extension names: `.xml` is XML, anything else SQLite.
    public static func forFile(_ url: URL) -> PersistentStoreType {
        url.pathExtension.lowercased() == "xml" ? .xml : .sqlite
    }

    /// The type a URL names: a `postgres://` or `postgresql://` URL is
    /// PostgreSQL; a file is what its extension says (see `forFile`).
    ///
    /// ```swift
    /// PersistentStoreType.forURL(URL(string: "postgres://app@db.local/people")!)  // .postgres
    /// PersistentStoreType.forURL(URL(fileURLWithPath: "people.sqlite"))          // .sqlite
    /// ```
    public static func forURL(_ url: URL) -> PersistentStoreType {
        isPostgresURL(url.scheme) ? PersistentStoreType(engine: "postgres") : forFile(url)
    }

    /// Whether `scheme` (or the text before `://`) is one libpq reads as
    /// PostgreSQL's: `postgres` or `postgresql`, in any case.
    static func isPostgresURL(_ scheme: String?) -> Bool {
        guard let scheme = scheme?.lowercased() else { return false }
        return scheme == "postgres" || scheme == "postgresql"
    }
}

/// Opens the stores of an engine that lives in a library of its own.
package protocol StoreEngine: Sendable {
    /// Opens (creating or migrating as `options` allow) the store at `url`.
    func open(url: URL?, model: ManagedObjectModel, configuration: String?,
              options: PersistentStoreOptions) throws -> any StoreBackend
    /// The schema layout of a store this engine opened.
    func layout(of store: any PersistentStore) -> SchemaMapping.Layout?
    /// The model the store at `url` was made with; nil when it holds none.
    func storedModel(at url: URL) throws -> ManagedObjectModel?
    /// What opening the store at `url` with `model` would migrate and
    /// drop; nil when it matches the model or holds no store. Reads only.
    func migrationPreview(at url: URL, model: ManagedObjectModel) throws -> MigrationPreview?
}

/// The engines registered by their libraries, by type name.
package enum StoreEngines {
    private static let engines = Mutex<[String: any StoreEngine]>([:])

    /// Registers `engine` for `type`; returns `type`. An engine library
    /// calls this from the initializer of its `PersistentStoreType`
    /// constant, so naming the type registers it.
    package static func register(_ engine: any StoreEngine, for type: PersistentStoreType) -> PersistentStoreType {
        engines.withLock { $0[type.rawValue] = engine }
        return type
    }

    /// The engine registered under `name`, if any.
    package static func engine(named name: String) -> (any StoreEngine)? {
        engines.withLock { $0[name] }
    }

    /// The engine of `type`, or an error naming the library to link.
    package static func engine(for type: PersistentStoreType) throws -> any StoreEngine {
        if let engine = engine(named: type.rawValue) { return engine }
        let library = type.rawValue == "postgres" ? "ObjectStorePostgres" : "the library of the '\(type.rawValue)' store"
        throw StoreError(.misuse, "a \(type.rawValue) store needs \(library) linked into this program (a dependency of its target)")
    }
}

/// One store of a coordinator, as callers see it.
///
/// ```swift
/// let archive = try coordinator.addPersistentStore(type: .xml, configuration: "Archive", at: url)
/// context.assign(oldOrder, to: archive)
/// ```
public protocol PersistentStore: AnyObject, Sendable {
    /// Unique, persistent: the host of the store's object ID URIs.
    var identifier: String { get }
    /// The kind of store: SQLite, XML or in memory.
    var storeType: PersistentStoreType { get }
    /// The file, or nil in memory.
    var url: URL? { get }
    /// The model configuration whose entities the store holds; nil for all.
    var configurationName: String? { get }
}

/// What a coordinator needs of a store: reading snapshots and writing
/// one save's changes, all or nothing.
package protocol StoreBackend: PersistentStore {
    var model: ManagedObjectModel { get }

    /// Candidate rows for a fetch of `entity`. With `windowed`, the store
    /// applies the request's limit and offset when it can answer it whole.
    func fetchSnapshots(_ request: FetchRequest, entity: EntityDescription, predicate: Predicate?,
                        windowed: Bool) throws -> StoreFetch
    /// The current rows of the given objects (missing rows are left out).
    func snapshots(for ids: [ObjectID]) throws -> [Snapshot]
    /// Whether the store itself guarantees that every key of the to-one
    /// `relationship` of `entity` names a row (a foreign key constraint
    /// does): then a key is taken for its row unchecked. Else a key may
    /// name a row deleted behind mrq's back, which reads as nil.
    func enforcesKeys(of relationship: RelationshipDescription, in entity: EntityDescription) -> Bool
    /// The rows of `entity` (sub-entities included) whose `attribute` is one of `values`.
    func snapshots(of entity: EntityDescription, where attribute: String, in values: [Value]) throws -> [Snapshot]
    /// The destinations of a to-many relationship, in order when ordered.
    func destinations(of relationship: RelationshipDescription, from source: ObjectID) throws -> [ObjectID]
    /// Writes one save and returns the permanent IDs of the inserted objects;
    /// throws `StoreConflictError` (writing nothing) when a row's version moved.
    func save(_ changes: StoreChanges) throws -> PermanentIDs
    /// The first half of a save spanning several stores: everything is
    /// written but not yet visible; `commit` or `rollback` must follow.
    func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave
    /// Every object of the store, for copying it elsewhere.
    func allSnapshots() throws -> [Snapshot]
    /// Runs `body`, the reads of a whole-store copy: a database server's
    /// store (PostgreSQL) runs it in one snapshot of the database; the
    /// default just runs it.
    func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T
    /// Writes `changes`, the objects of another store, into this store
    /// while it holds no objects; refuses, writing nothing, when it does.
    /// A file store is made new for the copy, so it is a plain save.
    func saveIntoEmptyStore(_ changes: StoreChanges) throws -> PermanentIDs
    /// Starts hearing other processes' saves to the store, delivered to
    /// `deliver` on a thread of the listener's; nil for a store no other
    /// process shares (a file's).
    func listenForRemoteChanges(_ deliver: @escaping @Sendable (RemoteChangeNotification) -> Void) throws -> (any RemoteChangeListener)?
    /// What the store has to say since last asked, for people: a database
    /// server's store that reconnected says so.
    func takeNotices() -> [String]
}

extension StoreBackend {
    package func takeNotices() -> [String] { [] }
    /// No engine but PostgreSQL has foreign keys: SQLite files (mrq's and
    /// Core Data's layouts) have none, nor do XML files.
    package func enforcesKeys(of relationship: RelationshipDescription, in entity: EntityDescription) -> Bool { false }
    package func readingOneSnapshot<T>(_ body: () throws -> T) throws -> T { try body() }
    package func saveIntoEmptyStore(_ changes: StoreChanges) throws -> PermanentIDs { try save(changes) }
    package func listenForRemoteChanges(_ deliver: @escaping @Sendable (RemoteChangeNotification) -> Void) throws -> (any RemoteChangeListener)? {
        nil
    }
}

/// A save written but not yet committed (see `StoreBackend.prepareSave`).
package protocol PreparedSave {
    var permanentIDs: PermanentIDs { get }
    func commit() throws
    func rollback()
}

/// What a store answers for a fetch: rows, and what is left to do in memory.
package struct StoreFetch {
    package var snapshots: [Snapshot]
    /// The part of the predicate the store did not evaluate.
    package var residual: Predicate?
    /// Whether `snapshots` are in the request's order (and windowed when asked).
    package var isSorted: Bool

    package init(snapshots: [Snapshot], residual: Predicate?, isSorted: Bool) {
        self.snapshots = snapshots
        self.residual = residual
        self.isSorted = isSorted
    }
}

extension StoreBackend {
    /// Whether the store holds objects of `entity`, by its configuration.
    package func holds(_ entity: EntityDescription) -> Bool {
        guard let name = configurationName else { return true }
        guard model.configurations[name] != nil else { return true }
        return model.entities(forConfiguration: name).contains { $0 === entity }
    }
}

extension PersistentStore {
    /// Whose conventions the store's file follows: for a SQLite store its
    /// table layout (mrq's or Core Data's), for an XML store its format
    /// (`.mrq` for mrq's XML store format, `.coreData` for Apple's).
    public var layout: SchemaMapping.Layout? {
        if let xml = self as? XMLStore { return xml.format == .apple ? .coreData : .mrq }
        if let sqlite = self as? SQLiteStore { return sqlite.mapping.layout }
        return StoreEngines.engine(named: storeType.rawValue)?.layout(of: self)
    }
}
