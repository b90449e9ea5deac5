import Foundation
import Predicates

/// How a fetch that shows each object as one row runs, decided once:
/// straight from a SQL cursor (a dictionary fetch, no object made) when
/// SQL gives exactly the rows the objects would, else as objects, a batch
/// at a time with their relationships prefetched. Running the rows and
/// explaining them both take this value, so `explain` shows what runs.
///
/// ```swift
/// let plan = try context.rowPlan(for: request) { entity, _ in ["name"] }
/// switch plan.method {
/// case .cursor:
///     var shown: [Value] = []
///     try context.fetchRows(plan.request) { row in plan.values(of: row, into: &shown) }
/// case .objects:
///     for object in try context.fetch(plan.request) { print(object) }
/// }
/// let explanation = try context.explain(plan.request)
/// ```
public struct RowPlan {
    /// How the rows are read.
    public enum Method: Sendable {
        /// From a SQL cursor: `request` is a dictionary fetch.
        case cursor
        /// As objects: `request` is an object fetch with its batch size and
        /// prefetching.
        case objects
    }

    /// Where a shown value comes from in a cursor's row.
    private enum Source {
        /// The value at this index.
        case value(Int)
        /// A to-one's key value: the first non-null of the candidate key
        /// attributes' values at these indices, else the related object's
        /// primary key at `key`; null when `key` is null.
        case related(candidates: [Int], key: Int)
    }

    /// How the rows are read.
    public let method: Method
    /// The request that runs: the fetch given, made a dictionary fetch for
    /// a cursor, or given a batch size and prefetching for objects.
    public let request: FetchRequest
    /// The attributes shown, in order: every stored one.
    public let attributes: [AttributeDescription]
    /// The relationships shown after them: every stored one.
    public let relationships: [RelationshipDescription]
    private let sources: [Source]

    /// The rows objects are read in when they are: the batch size.
    public static let batchSize = 500

    /// The attributes and relationships a row of `entity` shows: every
    /// stored (not transient) one.
    public static func shownProperties(of entity: EntityDescription)
        -> (attributes: [AttributeDescription], relationships: [RelationshipDescription]) {
        (entity.attributes.filter { !$0.isTransient }, entity.relationships.filter { !$0.isTransient })
    }

    /// The shown values of a cursor's row: each attribute's value, then
    /// each to-one's key value, written into `values` (emptied first).
    public func values(of row: [Value], into values: inout [Value]) {
        values.removeAll(keepingCapacity: true)
        for source in sources {
            switch source {
            case .value(let index):
                values.append(row[index])
            case .related(let candidates, let key):
                if row[key].isNull {
                    values.append(.null)
                } else {
                    values.append(candidates.lazy.map { row[$0] }.first { !$0.isNull } ?? row[key])
                }
            }
        }
    }

    init(request: FetchRequest, entity: EntityDescription, cursor: Bool,
         keys: (EntityDescription, RelationshipDescription) -> [String]) {
        (attributes, relationships) = Self.shownProperties(of: entity)
        var request = request
        guard cursor, let sources = Self.cursorSources(request: &request, entity: entity, attributes: attributes,
                                                       relationships: relationships, keys: keys) else {
            method = .objects
            request.fetchBatchSize = request.fetchLimit == 1 ? 0 : Self.batchSize
            request.relationshipKeyPathsForPrefetching = relationships.map(\.name)
            self.request = request
            self.sources = []
            return
        }
        method = .cursor
        self.request = request
        self.sources = sources
    }

    /// The dictionary fetch that gives exactly the rows the objects would
    /// (written into `request`), or nil when only objects can: to-many
    /// columns, values stored outside their column (Core Data's external
    /// binary data, composite attributes), a related key that depends on
    /// the related object's sub-entity, or a sort by a relationship.
    private static func cursorSources(request: inout FetchRequest, entity: EntityDescription,
                                      attributes: [AttributeDescription], relationships: [RelationshipDescription],
                                      keys: (EntityDescription, RelationshipDescription) -> [String]) -> [Source]? {
        guard relationships.allSatisfy(\.isToOne),
              !attributes.contains(where: { $0.allowsExternalBinaryDataStorage || $0.name.contains(".") || $0.type == .composite })
        else { return nil }
        for key in request.sortDescriptors {
            guard let last = key.keyPath.last, destination(of: key.keyPath.dropLast(), from: entity)?.attribute(named: last) != nil
            else { return nil }
        }
        var properties: [PropertyToFetch] = []
        var sources: [Source] = []
        for attribute in attributes {
            sources.append(.value(properties.count))
            properties.append(PropertyToFetch(keyPath: attribute.name))
        }
        for relationship in relationships {
            guard let destination = relationship.destination else { return nil }
            let candidates = keys(destination, relationship)
            guard destination.selfAndDescendants.allSatisfy({ keys($0, relationship) == candidates }) else { return nil }
            var indices: [Int] = []
            for name in candidates {
                indices.append(properties.count)
                properties.append(PropertyToFetch(keyPath: relationship.name + "." + name))
            }
            sources.append(.related(candidates: indices, key: properties.count))
            properties.append(PropertyToFetch(keyPath: relationship.name))
        }
        request.resultType = .dictionary
        request.propertiesToFetch = properties
        return sources
    }

    /// The entity at the end of a path of to-one relationships.
    private static func destination(of path: ArraySlice<String>, from entity: EntityDescription) -> EntityDescription? {
        var current = entity
        for key in path {
            guard let relationship = current.relationship(named: key), relationship.isToOne,
                  let next = relationship.destination else { return nil }
            current = next
        }
        return current
    }
}

extension ManagedObjectContext {
    /// Plans a fetch of objects shown one row each (see ``RowPlan``):
    /// from a SQL cursor when SQL gives exactly the rows the objects would
    /// (no unsaved changes, which a dictionary fetch does not see; one
    /// SQLite file or PostgreSQL store), else as objects. `keys` names the attributes, in the
    /// order tried, whose first non-null value shows a related object
    /// (reached through the relationship) in place of its primary key.
    public func rowPlan(for request: FetchRequest,
                        keys: (EntityDescription, RelationshipDescription) -> [String]) throws -> RowPlan {
        try performAndWait {
            let entity = try entity(for: request)
            let coordinator = persistentStoreCoordinator!
            let stores = coordinator.persistentStores
            let cursor = !hasChanges && stores.count == 1 && stores.first?.storeType != .inMemory
                && (try? coordinator.sqlBackend(for: entity, purpose: "rows")) != nil
            return RowPlan(request: request, entity: entity, cursor: cursor, keys: keys)
        }
    }
}
