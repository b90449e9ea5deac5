import Foundation
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
/// a SQLite-only program never links libpq. A coordinator opens such a
/// type once the program registered its engine (see `StoreEngine`).
public struct PersistentStoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's name: `sqlite`, `xml`, `inMemory`, `postgres`.
    public let rawValue: String

    /// The type named `rawValue`: one of ObjectStore's own, or of an
    /// engine the program registered (`postgres` once
    /// `PersistentStoreCoordinator.register(PostgresEngine())` ran); nil
    /// otherwise.
    public init?(rawValue: String) {
        guard StoreEngines.engine(named: rawValue) != nil else { return nil }
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

    /// The type a URL names: a file is what its extension says (see
    /// `forFile`); a URL of another scheme is the type of the engine
    /// registered for that scheme (`postgres://` once PostgreSQL's is).
    ///
    /// ```swift
    /// PersistentStoreType.forURL(URL(string: "postgres://app@db.local/people")!)  // .postgres
    /// PersistentStoreType.forURL(URL(fileURLWithPath: "people.sqlite"))          // .sqlite
    /// ```
    ///
    /// A scheme no engine claims names a type of that name, which the
    /// coordinator refuses to open, saying how to register its engine.
    public static func forURL(_ url: URL) -> PersistentStoreType {
        guard let scheme = url.scheme?.lowercased(), scheme != "file" else { return forFile(url) }
        return StoreEngines.type(forScheme: scheme) ?? PersistentStoreType(engine: scheme)
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
    /// Whose conventions the store follows: for a SQLite or PostgreSQL
    /// store its table layout (mrq's or Core Data's), for an XML store its
    /// format (`.mrq` for mrq's XML store format, `.coreData` for Apple's).
    var layout: SchemaMapping.Layout? { get }
}

/// What a coordinator needs of a store: reading snapshots and writing
/// one save's changes, all or nothing.
package protocol StoreBackend: PersistentStore {
    var model: ManagedObjectModel { get }

    /// The store as one that answers in SQL, or nil: asked at every fetch,
    /// so a witness, not a dynamic cast (a conformance lookup per fetch).
    var sqlStore: (any SQLStore)? { get }

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
    /// Whether a save spanning several stores prepares this store first:
    /// SQLite's, whose transaction can still fail at commit without the
    /// XML files having been touched.
    var savesFirst: Bool { get }
    /// Where the store is, as its engine found it: for a database server's
    /// store, the server and database it connected to (never a password);
    /// by default `url`.
    var location: URL? { get }
    /// Closes what the store keeps open beside its main connection (a
    /// SQLite store's read connections): its coordinator let it go.
    func closeReaders()
    /// The store opened again for writing, when it was opened for reading
    /// until its first write (`PersistentStoreOptions.readsUntilWritten`);
    /// nil when it already writes.
    func reopenedForWriting() throws -> (any StoreBackend)?
    /// The store migrated in place to `model`, in one transaction; this one
    /// is not to be used again. Only a SQLite store changes its model live.
    func replacingModel(with model: ManagedObjectModel, allowsDataLoss: Bool) throws -> any StoreBackend
    /// What `replacingModel` would migrate and drop; nil when nothing.
    func migrationPreview(to model: ManagedObjectModel) throws -> MigrationPreview?
    /// Copies the store to the file `url`, consistently (a migration's
    /// backup); only a SQLite store has one file to copy.
    func copy(to url: URL) throws
    /// The persistent history the store keeps, oldest first (see
    /// `PersistentStoreCoordinator.persistentHistory(after:)`).
    func persistentHistory(after date: Date?) throws -> [HistoryTransaction]
    /// The statements `persistentHistory(after:)` runs, read (reads only)
    /// and noted as they run, for `explain`.
    func persistentHistoryStatements(after date: Date?) throws -> [FetchExplanation.Step]
    /// The destination rows of a to-many relationship for many sources at
    /// once, each with its source's primary key; nil when the store answers
    /// one source at a time (`destinations(of:from:)`).
    func prefetchRows(of relationship: RelationshipDescription, sourceEntity: EntityDescription,
                      sources: [Int64]) throws -> [(owner: Int64, snapshot: Snapshot)]?
}

extension StoreBackend {
    package var sqlStore: (any SQLStore)? { nil }
    package func takeNotices() -> [String] { [] }
    package var location: URL? { url }
    package var savesFirst: Bool { false }
    package func closeReaders() {}
    package func reopenedForWriting() throws -> (any StoreBackend)? { nil }
    package func replacingModel(with model: ManagedObjectModel, allowsDataLoss: Bool) throws -> any StoreBackend {
        throw StoreError.needsOneSQLiteStore("changing the model", found: [self])
    }
    package func migrationPreview(to model: ManagedObjectModel) throws -> MigrationPreview? {
        throw StoreError.needsOneSQLiteStore("changing the model", found: [self])
    }
    package func copy(to url: URL) throws {
        throw StoreError.needsOneSQLiteStore("backing up", found: [self])
    }
    package func persistentHistory(after date: Date?) throws -> [HistoryTransaction] { [] }
    package func persistentHistoryStatements(after date: Date?) throws -> [FetchExplanation.Step] { [] }
    package func prefetchRows(of relationship: RelationshipDescription, sourceEntity: EntityDescription,
                              sources: [Int64]) throws -> [(owner: Int64, snapshot: Snapshot)]? { nil }
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

extension StoreError {
    /// `purpose` needs one SQLite store and the coordinator has `found`.
    static func needsOneSQLiteStore(_ purpose: String, for entity: EntityDescription? = nil,
                                    found: [any StoreBackend]) -> StoreError {
        let kinds = found.map(\.storeType.rawValue).joined(separator: ", ")
        return StoreError(.misuse, "\(purpose) needs one SQLite store\(entity.map { " for \($0.name)" } ?? ""); "
                          + (found.isEmpty ? "there is none" : "found: \(kinds)"))
    }
}
