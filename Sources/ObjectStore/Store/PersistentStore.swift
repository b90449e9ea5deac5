import Foundation
import Predicates
import struct Predicates.Predicate

/// The kinds of persistent store a coordinator can hold.
///
/// ```swift
/// try coordinator.addPersistentStore(type: .xml, at: URL(fileURLWithPath: "people.xml"))
/// ```
public enum PersistentStoreType: String, Sendable, CaseIterable {
    /// One SQLite file (Core Data's `NSSQLiteStoreType`).
    case sqlite
    /// The whole graph in one XML file, written atomically
    /// (`NSXMLStoreType`): in mrq's XML store format, or in Apple's when
    /// the file is (or the layout asked for is `.coreData`).
    case xml
    /// Nothing on disk (`NSInMemoryStoreType`); a SQLite `:memory:` database.
    case inMemory
    /// A PostgreSQL database, named by a URL
    /// (`postgres://user@host:5432/database`) or what libpq's `PG*`
    /// environment variables leave out of it, with the password from
    /// `~/.pgpass`: for several processes or machines sharing one store.
    case postgres

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
        isPostgresURL(url.scheme) ? .postgres : forFile(url)
    }

    /// Whether `scheme` (or the text before `://`) is one libpq reads as
    /// PostgreSQL's: `postgres` or `postgresql`, in any case.
    static func isPostgresURL(_ scheme: String?) -> Bool {
        guard let scheme = scheme?.lowercased() else { return false }
        return scheme == "postgres" || scheme == "postgresql"
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
        if let postgres = self as? PostgresStore { return postgres.mapping.layout }
        return (self as? SQLiteStore)?.mapping.layout
    }
}
