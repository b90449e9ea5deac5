import Foundation
import Predicates

/// Lets the predicate checker name unknown keys and suggest the closest.
extension ManagedObjectModel: PredicateSchema {
    public func keys(ofEntity entity: String) -> [String]? {
        self.entity(named: entity)?.propertyNames
    }

    public func destination(ofEntity entity: String, key: String) -> String? {
        self.entity(named: entity)?.relationship(named: key)?.destinationName
    }

    public func isToMany(entity: String, key: String) -> Bool {
        self.entity(named: entity)?.relationship(named: key)?.isToMany ?? false
    }
}
