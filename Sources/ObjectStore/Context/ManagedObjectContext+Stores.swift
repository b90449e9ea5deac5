import Foundation

extension ManagedObjectContext {
    /// Puts a newly inserted object into `store` instead of the first store
    /// holding its entity (Core Data's `assign(_:to:)`).
    ///
    /// ```swift
    /// let order = Order(context: context)
    /// context.assign(order, to: archive)
    /// try context.save()
    /// ```
    ///
    /// The store must hold the object's entity (by its configuration).
    public func assign(_ object: ManagedObject, to store: any PersistentStore) {
        performAndWait {
            precondition(object.objectID.isTemporaryID, "only an inserted, unsaved object can be assigned to a store")
            guard let coordinator = persistentStoreCoordinator,
                  let backend = coordinator.backend(store.identifier) else {
                preconditionFailure("the store is not in this context's coordinator")
            }
            precondition(backend.holds(object.entity),
                         "store \(store.configurationName ?? store.identifier) does not hold entity \(object.entity.name)")
            coordinator.assign(object.objectID, to: store)
        }
    }

    /// Renames objects after their store moved (`migratePersistentStore`):
    /// registered objects, relationship contents and committed rows take
    /// the new IDs; children follow.
    func remapObjectIDs(_ map: [ObjectID: ObjectID]) {
        guard !map.isEmpty else { return }
        performAndWait {
            func mapped(_ id: ObjectID) -> ObjectID { map[id] ?? id }
            for object in registered.values {
                if let new = map[object.objectID] {
                    registered.removeValue(forKey: object.objectID)
                    object.objectID = new
                    registered[new] = object
                }
                for (i, slot) in object.relationshipSlots.enumerated() {
                    switch slot {
                    case .toOne(let id?): object.relationshipSlots[i] = .toOne(mapped(id))
                    case .toMany(let ids): object.relationshipSlots[i] = .toMany(ObjectIDSet(ids.map(mapped)))
                    default: break
                    }
                }
                if var committed = object.committed {
                    committed.id = mapped(committed.id)
                    committed.toOne = committed.toOne.map { $0.map(mapped) }
                    object.committed = committed
                }
            }
            for (key, lists) in committedToMany {
                committedToMany[key] = lists.mapValues { ObjectIDSet($0.map(mapped)) }
            }
        }
        for child in children { child.remapObjectIDs(map) }
    }
}
