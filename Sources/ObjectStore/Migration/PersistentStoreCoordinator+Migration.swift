import Foundation
import Predicates

extension PersistentStoreCoordinator {
    /// Copies `store` to `url` as a store of `type` ("save as"), replaces it
    /// by the copy in this coordinator, and returns the copy.
    ///
    /// ```swift
    /// let xml = try coordinator.migratePersistentStore(sqlite, to: URL(fileURLWithPath: "people.xml"), type: .xml)
    /// ```
    ///
    /// Every object, attribute value, version and relationship is copied;
    /// objects get new permanent IDs in the new store, and every context
    /// on this coordinator (children included) has its registered objects
    /// renamed to them, so it keeps working. Unsaved changes stay unsaved.
    /// The old store is left as it was on disk. A file already at `url` is
    /// replaced; a directory or a device there is an error. For `.inMemory`, `url` is ignored.
    /// A database server's store (`.postgres`) at `url` must hold no objects yet: a database is
    /// not replaced like a file, and one holding objects is refused with
    /// nothing written (its tables are made when it had none). A
    /// PostgreSQL store is copied as one snapshot of its database.
    @discardableResult
    public func migratePersistentStore(_ store: any PersistentStore, to url: URL?, type: PersistentStoreType,
                                       options: PersistentStoreOptions = PersistentStoreOptions()) throws -> any PersistentStore {
        guard let old = backend(store.identifier) else {
            throw StoreError(.notFound, "store \(store.identifier) is not in this coordinator")
        }
        if let url, type == .sqlite || type == .xml {
            if url.standardizedFileURL == old.url?.standardizedFileURL {
                throw StoreError(.misuse, "cannot migrate a store onto its own file '\(url.path)'")
            }
            // Only files are replaced: removing a directory would take its
            // contents along, and a device (/dev/null) is not ours.
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let path = url.path + suffix
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                let kind = info.st_mode & S_IFMT
                guard kind == S_IFREG || kind == S_IFLNK else {
                    throw StoreError(.misuse, "cannot replace '\(path)' with a store: it is not a file")
                }
                try FileManager.default.removeItem(atPath: path)
            }
        }
        var options = options
        options.readOnly = false
        let copy = try Self.makeStore(type: type, model: model, configuration: old.configurationName, url: url, options: options)
        let map = try Self.copy(old, into: copy)
        replace(old, with: copy)
        for context in rootContexts { context.remapObjectIDs(map) }
        return copy
    }

    /// Writes every object of `source` into the empty store `target` in
    /// one save; returns old ID → new ID. A database server's source
    /// (PostgreSQL) is read in one snapshot; a server's target is written
    /// only while it holds no objects (a database is not replaced like a
    /// file).
    static func copy(_ source: any StoreBackend, into target: any StoreBackend) throws -> [ObjectID: ObjectID] {
        let (changes, temporary) = try source.readingOneSnapshot { try copyChanges(source) }
        let permanent = try target.saveIntoEmptyStore(changes)
        var map: [ObjectID: ObjectID] = [:]
        for (old, temp) in temporary { map[old] = permanent[temp] }
        return map
    }

    /// Every object of `source` as the inserts of one save, under
    /// temporary IDs; and old ID → temporary ID.
    private static func copyChanges(_ source: any StoreBackend) throws -> (StoreChanges, [ObjectID: ObjectID]) {
        let rows = try source.allSnapshots()
        var temporary: [ObjectID: ObjectID] = [:]
        for row in rows { temporary[row.id] = ObjectID.temporary(for: row.id.entity) }
        func moved(_ id: ObjectID) -> ObjectID { temporary[id] ?? id }
        var changes = StoreChanges()
        for row in rows {
            var snapshot = row
            snapshot.id = moved(row.id)
            snapshot.toOne = row.toOne.map { $0.map(moved) }
            changes.inserted.append(snapshot)
            for relationship in row.id.entity.relationships
            where relationship.isToMany && !relationship.isTransient && (relationship.isManyToMany || relationship.isOrdered) {
                let destinations = try source.destinations(of: relationship, from: row.id)
                if !destinations.isEmpty {
                    changes.toMany.append(.init(source: snapshot.id, relationship: relationship,
                                                destinations: destinations.map(moved)))
                }
            }
        }
        return (changes, temporary)
    }
}
