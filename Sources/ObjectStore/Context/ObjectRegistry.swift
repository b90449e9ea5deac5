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
/// hierarchy (a handful of groups in a context). Within a group, saved
/// objects are found by row number in pages of `RowPages.pageSize` slots:
/// row numbers are small and dense, so a lookup is two array indexings,
/// and a fetch streaming in 200,000 rows never rehashes. Temporary IDs
/// (negative numbers) and very large row numbers go to a hash table.
struct ObjectRegistry {
    private struct Table {
        let root: ObjectIdentifier
        let store: StoreNumber
        var rows = RowPages()
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
        let t = table(for: id, creating: true)!
        return tables[t].rows.object(at: id.primaryKey, orMake: make)
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        guard let t = table(for: id, creating: false) else { return nil }
        return tables[t].rows.removeValue(at: id.primaryKey)?.takeUnretainedValue()
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
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for table in tables { table.rows.forEach { result.append($0.takeUnretainedValue()) } }
        return result
    }

    var keys: [ObjectID] { values.map(\.objectID) }
    var count: Int { tables.reduce(0) { $0 + $1.rows.count } }

    /// Room for `n` more objects of `id`'s hierarchy and store.
    mutating func reserveCapacity(_ n: Int, like id: ObjectID) {
        let t = table(for: id, creating: true)!
        if id.isTemporaryID { tables[t].rows.reserveHashed(n) }
    }

    mutating func removeAll() {
        tables.removeAll()
        recent = 0
    }
}

/// Objects by row number: pages of slots for row numbers from 0 up to
/// `pagedLimit`, a hash table for the rest.
struct RowPages {
    typealias Slot = Unmanaged<ManagedObject>?

    static let pageShift = 10
    static let pageSize = 1 << pageShift
    /// Row numbers from here on are hashed: a directory entry per 1,024 rows
    /// up to 64 million rows is at most 512 KB.
    static let pagedLimit: Int64 = 1 << 26

    /// Empty where a page holds nothing.
    private var pages: [ContiguousArray<Slot>] = []
    /// Objects in each page: a page is freed when its last one leaves.
    private var pageCounts: [Int32] = []
    private var hashed: [Int64: Unmanaged<ManagedObject>] = [:]
    private(set) var count = 0

    @inline(__always)
    private static func isPaged(_ key: Int64) -> Bool { key >= 0 && key < pagedLimit }

    subscript(key: Int64) -> Unmanaged<ManagedObject>? {
        get {
            guard Self.isPaged(key) else { return hashed[key] }
            let p = Int(key) >> Self.pageShift
            guard p < pages.count, !pages[p].isEmpty else { return nil }
            return pages[p][Int(key) & (Self.pageSize - 1)]
        }
        set {
            if let newValue { set(newValue, at: key) } else { removeValue(at: key) }
        }
    }

    /// The object at `key`, or the one `make` creates, stored there.
    @inline(__always)
    mutating func object(at key: Int64, orMake make: () -> ManagedObject) -> ManagedObject {
        guard Self.isPaged(key) else {
            if let existing = hashed[key] { return existing.takeUnretainedValue() }
            let object = make()
            hashed[key] = Unmanaged.passUnretained(object)
            count += 1
            return object
        }
        let p = preparePage(for: key)
        let i = Int(key) & (Self.pageSize - 1)
        if let existing = pages[p][i] { return existing.takeUnretainedValue() }
        let object = make()
        pages[p][i] = Unmanaged.passUnretained(object)
        pageCounts[p] += 1
        count += 1
        return object
    }

    private mutating func set(_ value: Unmanaged<ManagedObject>, at key: Int64) {
        guard Self.isPaged(key) else {
            if hashed.updateValue(value, forKey: key) == nil { count += 1 }
            return
        }
        let p = preparePage(for: key)
        let i = Int(key) & (Self.pageSize - 1)
        if pages[p][i] == nil {
            pageCounts[p] += 1
            count += 1
        }
        pages[p][i] = value
    }

    @discardableResult
    mutating func removeValue(at key: Int64) -> Unmanaged<ManagedObject>? {
        guard Self.isPaged(key) else {
            let removed = hashed.removeValue(forKey: key)
            if removed != nil { count -= 1 }
            return removed
        }
        let p = Int(key) >> Self.pageShift
        guard p < pages.count, !pages[p].isEmpty else { return nil }
        let i = Int(key) & (Self.pageSize - 1)
        guard let removed = pages[p][i] else { return nil }
        pages[p][i] = nil
        pageCounts[p] -= 1
        count -= 1
        if pageCounts[p] == 0 { pages[p] = [] }
        return removed
    }

    /// The page for `key`, made (and the directory grown) when missing.
    @inline(__always)
    private mutating func preparePage(for key: Int64) -> Int {
        let p = Int(key) >> Self.pageShift
        if p >= pages.count {
            let grown = Swift.max(p + 1, pages.count * 2)
            pages.append(contentsOf: repeatElement([], count: grown - pages.count))
            pageCounts.append(contentsOf: repeatElement(0, count: grown - pageCounts.count))
        }
        if pages[p].isEmpty { pages[p] = ContiguousArray(repeating: nil, count: Self.pageSize) }
        return p
    }

    mutating func reserveHashed(_ n: Int) {
        hashed.reserveCapacity(hashed.count + n)
    }

    func forEach(_ body: (Unmanaged<ManagedObject>) -> Void) {
        for page in pages where !page.isEmpty {
            for case let slot? in page { body(slot) }
        }
        for value in hashed.values { body(value) }
    }
}
