import Foundation
import Predicates

/// The state of the objects a save is about to change in one context, so
/// that a save failing anywhere up the chain leaves the context exactly
/// as it was.
///
/// A save changes more than the saving context: a child's push changes
/// its parent's objects, a merge policy rewrites the saving context's
/// objects against what changed elsewhere, and a constraint conflict
/// merges a new object into an existing one. Each of those first records
/// the objects it touches here; `restore` puts back every field a save
/// can change (values, relationships, change state, committed state,
/// registration) in reverse order.
final class SaveCheckpoint {
    private struct Saved {
        let object: ManagedObject
        let objectID: ObjectID
        let state: ManagedObject.State
        var values: [Value]
        let slots: [RelationshipSlot]
        let committed: Snapshot?
        let version: Int64
        let isFault: Bool
        let changedRelationships: SlotSet
        let wasChanged: Bool
        let wasRegistered: Bool
        let hadContext: Bool
        let committedToMany: [Int: ObjectIDSet]?
    }

    unowned let context: ManagedObjectContext
    private var saved: [Saved] = []
    private var seen: Set<ObjectIdentifier> = []

    init(_ context: ManagedObjectContext) {
        self.context = context
    }

    var isEmpty: Bool { saved.isEmpty }

    /// The recorded objects, in the order recorded.
    var objects: [ManagedObject] { saved.map(\.object) }

    /// Records `object` as it is now, once: the first record is the one
    /// `restore` goes back to.
    func record(_ object: ManagedObject) {
        guard seen.insert(ObjectIdentifier(object)).inserted else { return }
        let registered = context.registered[object.objectID]
        saved.append(Saved(
            object: object, objectID: object.objectID, state: object.state, values: object.values,
            slots: object.relationshipSlots, committed: object.committed, version: object.version,
            isFault: object.isFault, changedRelationships: object.changedRelationshipSet,
            wasChanged: object.changeOrder != 0, wasRegistered: registered === object,
            hadContext: object.managedObjectContext === context,
            committedToMany: context.committedToMany[ObjectIdentifier(object)]))
    }

    /// Records `object` as it was before its attribute at `index`, which
    /// was `old`, changed, once.
    func record(_ object: ManagedObject, attribute index: Int, was old: Value) {
        let count = saved.count
        record(object)
        if saved.count > count { saved[count].values[index] = old }
    }

    /// Puts every recorded object back as it was, last recorded first.
    func restore() {
        for entry in saved.reversed() {
            let object = entry.object
            if object.objectID != entry.objectID {
                context.registered.remove(object.objectID, ifSameAs: ObjectIdentifier(object))
                object.objectID = entry.objectID
            }
            object.state = entry.state
            object.values = entry.values
            object.relationshipSlots = entry.slots
            object.committed = entry.committed
            object.version = entry.version
            object.isFault = entry.isFault
            object.changedRelationshipSet = entry.changedRelationships
            context.committedToMany[ObjectIdentifier(object)] = entry.committedToMany
            if entry.hadContext { object.setContext(context) } else if object.managedObjectContext === context { object.setContext(nil) }
            if entry.wasRegistered {
                context.registered[entry.objectID] = object
            } else {
                context.registered.remove(entry.objectID, ifSameAs: ObjectIdentifier(object))
            }
            if entry.wasChanged { context.changed.insert(object) } else { context.changed.remove(object) }
            context.noteObjectChange(object)
        }
        saved.removeAll()
        seen.removeAll()
    }
}
