import Foundation
import Predicates

extension PersistentStoreCoordinator {
    /// Writes one save, split by store, and returns the permanent IDs of
    /// the inserted objects.
    ///
    /// A save touching one store is that store's transaction. A save
    /// touching several is written in two phases: every store first
    /// writes its part without making it visible (SQLite stores inside an
    /// open transaction, then XML stores into a synced temporary file);
    /// when all succeeded, the SQLite transactions commit, then the XML
    /// files are renamed over the old ones. A failure in the first phase
    /// (a conflict, a constraint, a full disk) writes nothing anywhere.
    /// Only a failure between two commits (a `COMMIT` or `rename` failing
    /// after another store committed) can leave the earlier stores saved:
    /// that is the limit of "all or none" without a shared journal.
    ///
    /// Throws `ValidationError` for a relationship between objects of
    /// different stores, which Core Data does not allow either.
    func save(_ changes: StoreChanges) throws -> PermanentIDs {
        if !changes.isEmpty { try openStoresForWriting() }
        let parts = try split(changes)
        let permanent = try write(parts)
        forgetAssignments(changes.inserted.lazy.map(\.id))
        return permanent
    }

    private func write(_ parts: [(any StoreBackend, StoreChanges)]) throws -> PermanentIDs {
        if parts.count <= 1 {
            guard let (store, part) = parts.first else { return PermanentIDs() }
            return try store.save(part)
        }
        return try saveLock.withLock {
            // SQLite first: its transactions are the part that can still fail
            // at commit without having touched the XML files.
            let ordered = parts.sorted { ($0.0.savesFirst ? 0 : 1) < ($1.0.savesFirst ? 0 : 1) }
            var prepared: [any PreparedSave] = []
            do {
                for (store, part) in ordered { prepared.append(try store.prepareSave(part)) }
            } catch {
                for save in prepared.reversed() { save.rollback() }
                throw error
            }
            var permanent = PermanentIDs()
            for (i, save) in prepared.enumerated() {
                do {
                    try save.commit()
                } catch {
                    for rest in prepared[(i + 1)...] { rest.rollback() }
                    throw error
                }
                permanent.append(save.permanentIDs)
            }
            return permanent
        }
    }

    /// The changes of each store, checking that no relationship crosses two.
    private func split(_ changes: StoreChanges) throws -> [(any StoreBackend, StoreChanges)] {
        let all = backends
        if all.count == 1, fitsWhole(changes, in: all[0]) { return changes.isEmpty ? [] : [(all[0], changes)] }
        var storeOfInserted: [ObjectID: any StoreBackend] = [:]
        for snapshot in changes.inserted { storeOfInserted[snapshot.id] = try backend(for: snapshot.id) }
        func store(of id: ObjectID) throws -> any StoreBackend {
            try storeOfInserted[id] ?? backend(for: id)
        }
        var parts: [String: (any StoreBackend, StoreChanges)] = [:]
        var order: [String] = []
        func add(_ store: any StoreBackend, _ edit: (inout StoreChanges) -> Void) {
            if parts[store.identifier] == nil {
                var part = StoreChanges()
                part.progress = changes.progress
                parts[store.identifier] = (store, part)
                order.append(store.identifier)
            }
            edit(&parts[store.identifier]!.1)
        }
        var failures: [ValidationError.Failure] = []
        func check(_ source: ObjectID, _ home: any StoreBackend, _ relationship: String, _ destination: ObjectID) throws {
            let other = try store(of: destination)
            if other !== home {
                failures.append(.init(objectID: source, key: relationship, message: Self.crossStoreMessage(
                    relationship: relationship, source: source, from: home, to: other)))
            }
        }
        func checkToOne(_ snapshot: Snapshot, _ home: any StoreBackend) throws {
            for (i, relationship) in snapshot.id.entity.relationships.enumerated() where relationship.isToOne {
                if i < snapshot.links.count, let destination = snapshot.toOneID(at: i) {
                    try check(snapshot.id, home, relationship.name, destination)
                }
            }
        }
        for snapshot in changes.inserted {
            let home = storeOfInserted[snapshot.id]!
            try checkToOne(snapshot, home)
            add(home) { $0.inserted.append(snapshot) }
        }
        for update in changes.updated {
            let home = try store(of: update.snapshot.id)
            try checkToOne(update.snapshot, home)
            add(home) { $0.updated.append(update) }
        }
        for deleted in changes.deleted {
            add(try store(of: deleted.id)) { $0.deleted.append(deleted) }
        }
        for contents in changes.toMany {
            let home = try store(of: contents.source)
            for destination in contents.destinations {
                try check(contents.source, home, contents.relationship.name, destination)
            }
            add(home) { $0.toMany.append(contents) }
        }
        if !failures.isEmpty { throw ValidationError(failures: failures) }
        return order.map { parts[$0]! }
    }

    /// Whether the whole save belongs to `store`, the coordinator's only
    /// one: every entity is held there, no new object is assigned
    /// elsewhere, and every saved object and to-one destination already
    /// lives there. The general split then has nothing to check or divide
    /// (and reports what does not fit).
    private func fitsWhole(_ changes: StoreChanges, in store: any StoreBackend) -> Bool {
        guard !hasAssignments else { return false }
        let number = StoreNumber(store.identifier)
        var entities: Set<ObjectIdentifier> = []
        func fits(_ id: ObjectID?) -> Bool {
            guard let id else { return true }
            return id.isTemporaryID || id.storeNumber == number
        }
        // By index: a loop variable would copy (and retain) every snapshot.
        let inserted = changes.inserted
        var last: ObjectIdentifier?
        for i in inserted.indices {
            let entity = ObjectIdentifier(inserted[i].id.entity)
            if entity != last {
                last = entity
                if entities.insert(entity).inserted, !store.holds(inserted[i].id.entity) { return false }
            }
            for j in inserted[i].links.indices where !fits(inserted[i].toOneID(at: j)) { return false }
        }
        for update in changes.updated {
            guard fits(update.snapshot.id) else { return false }
            for j in update.snapshot.links.indices where !fits(update.snapshot.toOneID(at: j)) { return false }
        }
        for deleted in changes.deleted where !fits(deleted.id) { return false }
        for contents in changes.toMany {
            guard fits(contents.source) else { return false }
            for destination in contents.destinations where !fits(destination) { return false }
        }
        return true
    }

    static func crossStoreMessage(relationship: String, source: ObjectID, from: any StoreBackend,
                                  to: any StoreBackend) -> String {
        "relationship '\(relationship)' of \(source.entity.name) crosses stores "
            + "(\(from.configurationName ?? from.identifier) → \(to.configurationName ?? to.identifier)): "
            + "relationships between stores are not allowed"
    }
}
