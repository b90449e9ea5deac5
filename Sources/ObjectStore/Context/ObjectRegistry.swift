import Foundation

/// The context's identity map: one object per ID, held without retaining
/// it.
///
/// A context keeps its changed objects alive (in its change set), but not
/// the clean ones: an object nobody uses any more leaves the map when it is
/// deallocated, so iterating a million fetched rows keeps memory bounded,
/// as Core Data's weakly held registered objects do.
///
/// IDs are grouped by what they share, the store and the inheritance
/// hierarchy (a handful of groups in a context), and each group maps row
/// numbers to objects: the key hashed per lookup is one integer, and
/// growing the map moves plain words.
struct ObjectRegistry {
    private struct Table {
        let root: ObjectIdentifier
        let store: StoreNumber
        var rows: [Int64: Unmanaged<ManagedObject>] = [:]
    }

    private var tables: [Table] = []
    /// The table used last: lookups come in runs of one hierarchy.
    private var recent = 0

    @inline(__always)
    private mutating func table(for id: ObjectID, creating: Bool) -> Int? {
        let root = ObjectIdentifier(id.entity.rootEntity)
        if recent < tables.count, tables[recent].root == root, tables[recent].store == id.storeNumber {
            return recent
        }
        if let i = tables.firstIndex(where: { $0.root == root && $0.store == id.storeNumber }) {
            recent = i
            return i
        }
        guard creating else { return nil }
        tables.append(Table(root: root, store: id.storeNumber))
        recent = tables.count - 1
        return recent
    }

    subscript(id: ObjectID) -> ManagedObject? {
        mutating get {
            guard let t = table(for: id, creating: false) else { return nil }
            return tables[t].rows[id.primaryKey]?.takeUnretainedValue()
        }
        set {
            if let newValue {
                let t = table(for: id, creating: true)!
                tables[t].rows[id.primaryKey] = Unmanaged.passUnretained(newValue)
            } else if let t = table(for: id, creating: false) {
                tables[t].rows[id.primaryKey] = nil
            }
        }
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
        let t = table(for: id, creating: true)!
        return lookUp(&tables[t].rows[id.primaryKey])
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        guard let t = table(for: id, creating: false) else { return nil }
        return tables[t].rows.removeValue(forKey: id.primaryKey)?.takeUnretainedValue()
    }

    /// Called from the object's deinit: forgets it if it is still the one
    /// registered under `id`.
    mutating func remove(_ id: ObjectID, ifSameAs object: ObjectIdentifier) {
        guard let t = table(for: id, creating: false) else { return }
        if let current = tables[t].rows[id.primaryKey], ObjectIdentifier(current.takeUnretainedValue()) == object {
            tables[t].rows[id.primaryKey] = nil
        }
    }

    var values: [ManagedObject] {
        tables.flatMap { $0.rows.values.map { $0.takeUnretainedValue() } }
    }

    var keys: [ObjectID] { values.map(\.objectID) }
    var count: Int { tables.reduce(0) { $0 + $1.rows.count } }

    /// Room for `n` more objects of `id`'s hierarchy and store.
    mutating func reserveCapacity(_ n: Int, like id: ObjectID) {
        let t = table(for: id, creating: true)!
        tables[t].rows.reserveCapacity(tables[t].rows.count + n)
    }

    mutating func removeAll() {
        tables.removeAll()
        recent = 0
    }
}
