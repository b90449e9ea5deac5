import Foundation

/// The context's identity map: one object per ID, held without retaining
/// it.
///
/// A context keeps its changed objects alive (in its change set), but not
/// the clean ones: an object nobody uses any more leaves the map when it is
/// deallocated, so iterating a million fetched rows keeps memory bounded,
/// as Core Data's weakly held registered objects do.
struct ObjectRegistry {
    private var objects: [ObjectID: Unmanaged<ManagedObject>] = [:]

    subscript(id: ObjectID) -> ManagedObject? {
        get { objects[id]?.takeUnretainedValue() }
        set { objects[id] = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// The object registered for `id`, or the one `make` creates, which
    /// is registered: one lookup either way.
    @inline(__always)
    mutating func object(for id: ObjectID, orMake make: () -> ManagedObject) -> ManagedObject {
        func lookUp(_ slot: inout Unmanaged<ManagedObject>?) -> ManagedObject {
            if let existing = slot { return existing.takeUnretainedValue() }
            let object = make()
            slot = Unmanaged.passUnretained(object)
            return object
        }
        return lookUp(&objects[id])
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        objects.removeValue(forKey: id)?.takeUnretainedValue()
    }

    /// Called from the object's deinit: forgets it if it is still the one
    /// registered under `id`.
    mutating func remove(_ id: ObjectID, ifSameAs object: ObjectIdentifier) {
        if let current = objects[id], ObjectIdentifier(current.takeUnretainedValue()) == object {
            objects[id] = nil
        }
    }

    var values: [ManagedObject] { objects.values.map { $0.takeUnretainedValue() } }
    var keys: Dictionary<ObjectID, Unmanaged<ManagedObject>>.Keys { objects.keys }
    var count: Int { objects.count }
    mutating func reserveCapacity(_ n: Int) { objects.reserveCapacity(n) }
    mutating func removeAll() { objects.removeAll() }
}
