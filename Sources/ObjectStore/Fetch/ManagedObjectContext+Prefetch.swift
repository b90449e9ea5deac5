import Foundation
import Predicates

extension ManagedObjectContext {
    /// Checks that every step of every prefetch key path is a relationship
    /// of `entity` (or of one of its sub-entities), then of the previous
    /// step's destination.
    func validatePrefetching(_ keyPaths: [String], from entity: EntityDescription) throws {
        for keyPath in keyPaths {
            var current = [entity]
            for key in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                let relationships = current.flatMap(\.selfAndDescendants).compactMap { $0.relationship(named: key) }
                guard let relationship = relationships.first, let destination = relationship.destination,
                      !relationship.isTransient else {
                    var message = "cannot prefetch '\(keyPath)': '\(key)' is not a relationship of \(current[0].name)"
                    let names = current.flatMap(\.selfAndDescendants).flatMap { $0.relationships.map(\.name) }
                    if let suggestion = Suggestions.closest(to: key, in: names) {
                        message += "; did you mean '\(suggestion)'?"
                    }
                    throw StoreError(.misuse, message)
                }
                current = [destination]
            }
        }
    }

    /// Loads the destinations of `keyPaths` for `objects`: one query per
    /// relationship step, so that reading them later fires no fault.
    ///
    /// To-one destinations are fulfilled; to-many relationships are filled
    /// with their destinations, which are fulfilled too. Shared prefixes
    /// (`department`, `department.people`) load once.
    ///
    /// Returns every object loaded. The context holds clean objects
    /// weakly, so the caller keeps these alive for as long as the results
    /// that need them.
    @discardableResult
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws -> [ManagedObject] {
        guard !keyPaths.isEmpty, !objects.isEmpty else { return [] }
        var loaded: [String: [ManagedObject]] = [:]
        for keyPath in keyPaths {
            var sources = objects
            var prefix = ""
            for key in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                prefix += (prefix.isEmpty ? "" : ".") + key
                if let done = loaded[prefix] {
                    sources = done
                    continue
                }
                sources = try prefetch(key, of: sources)
                loaded[prefix] = sources
            }
        }
        return loaded.values.flatMap { $0 }
    }

    /// One step: the destinations of relationship `key` of `sources`,
    /// loaded, without duplicates.
    private func prefetch(_ key: String, of sources: [ManagedObject]) throws -> [ManagedObject] {
        // Sources of different sub-entities may or may not have the key.
        var groups: [ObjectIdentifier: (relationship: RelationshipDescription, index: Int, sources: [ManagedObject])] = [:]
        var order: [ObjectIdentifier] = []
        for source in sources where !source.isDeleted {
            guard let index = source.entity.relationshipSlot(named: key) else { continue }
            let relationship = source.entity.relationships[index]
            let id = ObjectIdentifier(relationship)
            if groups[id] == nil {
                groups[id] = (relationship, index, [])
                order.append(id)
            }
            groups[id]!.sources.append(source)
        }
        var destinations: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        func collect(_ objects: [ManagedObject]) {
            for object in objects where seen.insert(ObjectIdentifier(object)).inserted { destinations.append(object) }
        }
        for id in order {
            let (relationship, index, members) = groups[id]!
            if relationship.isToOne {
                try fulfill(members)
                var targets: [ManagedObject] = []
                for source in members {
                    if case .toOne(let target?) = source.relationshipSlots[index] { targets.append(object(with: target)) }
                }
                try fulfill(targets)
                collect(targets)
            } else {
                collect(try prefetchToMany(relationship, index: index, of: members))
            }
        }
        return destinations
    }

    /// Fills a to-many relationship of every source still holding a fault
    /// for it, from one query, and fulfils the destinations.
    private func prefetchToMany(_ relationship: RelationshipDescription, index: Int,
                                of sources: [ManagedObject]) throws -> [ManagedObject] {
        let unloaded = sources.filter { source in
            if case .toManyFault = source.relationshipSlots[index] { return !source.objectID.isTemporaryID }
            return false
        }
        var byOwner: [ObjectID: [ObjectID]] = [:]
        // Held until the end: the context holds clean objects weakly.
        var loaded: [ManagedObject] = []
        if !unloaded.isEmpty {
            if let parent {
                // The parent holds the truth, unsaved changes included: ask
                // it for each source's members, then load them in one batch.
                let lists = try parent.performAndWait { () throws -> [[ObjectID]] in
                    unloaded.map { parent.toManyIDs(parent.object(with: $0.objectID), relationship: index).ids }
                }
                for (source, ids) in zip(unloaded, lists) { byOwner[source.objectID] = ids }
                loaded = lists.flatMap { $0 }.map { object(with: $0) }
                try fulfill(loaded)
            } else if let store = persistentStoreCoordinator!.soleStore(for: unloaded[0].entity),
                      let rows = try store.prefetchRows(of: relationship, sourceEntity: unloaded[0].entity,
                                                        sources: unloaded.map(\.objectID.primaryKey)) {
                loaded = register(rows.map(\.snapshot))
                var owners: [Int64: ObjectID] = [:]
                for source in unloaded { owners[source.objectID.primaryKey] = source.objectID }
                for (row, object) in zip(rows, loaded) {
                    if let owner = owners[row.owner] { byOwner[owner, default: []].append(object.objectID) }
                }
            } else {
                // Other stores: one question per source.
                for source in unloaded {
                    let ids = try persistentStoreCoordinator!.backend(for: source.objectID)
                        .destinations(of: relationship, from: source.objectID)
                    byOwner[source.objectID] = ids
                    loaded += ids.map { object(with: $0) }
                }
                try fulfill(loaded)
            }
            for source in unloaded {
                source.relationshipSlots[index] = .toMany(ObjectIDSet(byOwner[source.objectID] ?? []))
            }
        }
        var destinations: [ManagedObject] = []
        for source in sources {
            if case .toMany(let ids) = source.relationshipSlots[index] {
                destinations += ids.ids.map { object(with: $0) }
            }
        }
        try fulfill(destinations)
        withExtendedLifetime(loaded) {}
        return destinations
    }
}
