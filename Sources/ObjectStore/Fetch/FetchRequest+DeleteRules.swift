import Foundation

extension FetchRequest {
    /// This request, prefetching what deleting its objects reads: for each
    /// relationship whose delete rule runs on a saved object (nullify,
    /// cascade), its destinations and, when the inverse is a to-many, the
    /// inverse's members; and the same again below each cascade. The
    /// rules then find loaded everything they touch, so deleting the
    /// fetched objects reads the store only through the fetch's own
    /// statements, which `explain` lists, a batch at a time, whatever the
    /// data, instead of a fault per related object.
    ///
    /// ```swift
    /// let request = FetchRequest(entityName: "Person").prefetchingDeleteRules(of: person)
    /// for object in try context.fetch(request) { context.delete(object) }
    /// ```
    public func prefetchingDeleteRules(of entity: EntityDescription) -> FetchRequest {
        var request = self
        var paths = request.relationshipKeyPathsForPrefetching
        var visited: Set<ObjectIdentifier> = []
        func walk(_ entity: EntityDescription, prefix: String, from incoming: RelationshipDescription?) {
            for relationship in entity.relationships where !relationship.isTransient
                && (relationship.deleteRule == .nullify || relationship.deleteRule == .cascade) {
                // The way back to an object being deleted: loaded already.
                if let incoming, relationship.inverse === incoming { continue }
                guard visited.insert(ObjectIdentifier(relationship)).inserted else { continue }
                let path = prefix + relationship.name
                if !paths.contains(path) { paths.append(path) }
                if let inverse = relationship.inverse, inverse.isToMany, !paths.contains(path + "." + inverse.name) {
                    paths.append(path + "." + inverse.name)
                }
                if relationship.deleteRule == .cascade, let destination = relationship.destination {
                    walk(destination, prefix: path + ".", from: relationship)
                }
            }
        }
        walk(entity, prefix: "", from: nil)
        request.relationshipKeyPathsForPrefetching = paths
        return request
    }
}
