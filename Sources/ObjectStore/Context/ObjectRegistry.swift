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
/// hierarchy (a handful of groups in a context), and temporary IDs apart.
/// Within a group, objects are found by number in pages of
/// `RowPages.pageSize` slots: row numbers are dense, and so are the
/// temporary numbers of one context's inserts, so a lookup is two array
/// indexings and a fetch streaming in 200,000 rows never rehashes.
struct ObjectRegistry {
    private struct Table {
        let root: ObjectIdentifier
        let store: StoreNumber
        let temporary: Bool
        var rows = RowPages()
    }

    /// The number an ID is filed under in its table: the row, or the
    /// temporary number (temporary primary keys are negated).
    @inline(__always)
    private static func key(_ id: ObjectID) -> Int64 { id.primaryKey < 0 ? -id.primaryKey : id.primaryKey }

    private var tables: [Table] = []
    /// The table used last: lookups come in runs of one hierarchy.
    private var recent = 0

    @inline(__always)
    private mutating func table(for id: ObjectID, creating: Bool) -> Int? {
        let root = ObjectIdentifier(id.entity.rootEntity)
        let temporary = id.isTemporaryID
        if recent < tables.count, tables[recent].root == root, tables[recent].store == id.storeNumber,
           tables[recent].temporary == temporary {
            return recent
        }
        if let i = tables.firstIndex(where: { $0.root == root && $0.store == id.storeNumber && $0.temporary == temporary }) {
            recent = i
            return i
        }
        guard creating else { return nil }
        tables.append(Table(root: root, store: id.storeNumber, temporary: temporary))
        recent = tables.count - 1
        return recent
    }

    subscript(id: ObjectID) -> ManagedObject? {
        mutating get {
            guard let t = table(for: id, creating: false) else { return nil }
            return tables[t].rows[Self.key(id)]?.takeUnretainedValue()
        }
        set {
            if let newValue {
                let t = table(for: id, creating: true)!
                tables[t].rows[Self.key(id)] = Unmanaged.passUnretained(newValue)
            } else if let t = table(for: id, creating: false) {
                tables[t].rows[Self.key(id)] = nil
            }
        }
    }

    /// The object registered for `id`, or the one `make` creates, which
    /// is registered: one lookup either way.
    @inline(__always)
    mutating func object(for id: ObjectID, orMake make: () -> ManagedObject) -> ManagedObject {
        let t = table(for: id, creating: true)!
        return tables[t].rows.object(at: Self.key(id), orMake: make)
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        guard let t = table(for: id, creating: false) else { return nil }
        return tables[t].rows.removeValue(at: Self.key(id))?.takeUnretainedValue()
    }

    /// Called from the object's deinit: forgets it if it is still the one
    /// registered under `id`.
    mutating func remove(_ id: ObjectID, ifSameAs object: ObjectIdentifier) {
        guard let t = table(for: id, creating: false) else { return }
        // In place: reading `tables[t]` first would copy the table.
        tables[t].rows.removeValue(at: Self.key(id), ifSameAs: object)
    }

    var values: [ManagedObject] {
        var result: [ManagedObject] = []
        result.reserveCapacity(count)
        for table in tables { table.rows.forEach { result.append($0.takeUnretainedValue()) } }
        return result
    }

    var keys: [ObjectID] { values.map(\.objectID) }
    var count: Int { tables.reduce(0) { $0 + $1.rows.count } }

    mutating func removeAll() {
        tables.removeAll()
        recent = 0
    }
}

/// Objects by number: pages of slots over a band of numbers, a hash
/// table for the numbers outside it.
///
/// The band starts at the page of the first number stored and grows to at
/// most `maxPages` pages (64 million numbers, a directory of 768 KB);
/// negative numbers and numbers beyond the band are hashed. A number is
/// paged exactly when its page lies in the band: the band only grows, and
/// never over a hashed number's page.
struct RowPages {
    typealias Slot = Unmanaged<ManagedObject>?

    static let pageShift = 10
    static let pageSize = 1 << pageShift
    static let maxPages = 1 << 16

    /// Empty where a page holds nothing.
    private var pages: [ContiguousArray<Slot>] = []
    /// Objects in each page: a page is freed when its last one leaves.
    private var pageCounts: [Int32] = []
    /// The page number of `pages[0]`.
    private var basePage = 0
    private var hashed: [Int64: Unmanaged<ManagedObject>] = [:]
    private(set) var count = 0

    /// The index in `pages` of `key`'s page, when it lies in the band.
    @inline(__always)
    private func pageIndex(_ key: Int64) -> Int? {
        guard key >= 0 else { return nil }
        let p = Int(key >> Int64(Self.pageShift)) &- basePage
        return p >= 0 && p < pages.count ? p : nil
    }

    subscript(key: Int64) -> Unmanaged<ManagedObject>? {
        get {
            guard let p = pageIndex(key) else { return hashed[key] }
            guard !pages[p].isEmpty else { return nil }
            return pages[p][Int(key) & (Self.pageSize - 1)]
        }
        set {
            if let newValue { set(newValue, at: key) } else { removeValue(at: key) }
        }
    }

    /// The object at `key`, or the one `make` creates, stored there.
    @inline(__always)
    mutating func object(at key: Int64, orMake make: () -> ManagedObject) -> ManagedObject {
        guard let (p, i) = place(for: key) else {
            if let existing = hashed[key] { return existing.takeUnretainedValue() }
            let object = make()
            hashed[key] = Unmanaged.passUnretained(object)
            count += 1
            return object
        }
        if let existing = pages[p][i] { return existing.takeUnretainedValue() }
        let object = make()
        pages[p][i] = Unmanaged.passUnretained(object)
        pageCounts[p] += 1
        count += 1
        return object
    }

    private mutating func set(_ value: Unmanaged<ManagedObject>, at key: Int64) {
        guard let (p, i) = place(for: key) else {
            if hashed.updateValue(value, forKey: key) == nil { count += 1 }
            return
        }
        if pages[p][i] == nil {
            pageCounts[p] += 1
            count += 1
        }
        pages[p][i] = value
    }

    /// Removes the object at `key` if it is `object`.
    mutating func removeValue(at key: Int64, ifSameAs object: ObjectIdentifier) {
        if let current = self[key], ObjectIdentifier(current.takeUnretainedValue()) == object {
            removeValue(at: key)
        }
    }

    @discardableResult
    mutating func removeValue(at key: Int64) -> Unmanaged<ManagedObject>? {
        guard let p = pageIndex(key) else {
            let removed = hashed.removeValue(forKey: key)
            if removed != nil { count -= 1 }
            return removed
        }
        guard !pages[p].isEmpty else { return nil }
        let i = Int(key) & (Self.pageSize - 1)
        guard let removed = pages[p][i] else { return nil }
        pages[p][i] = nil
        pageCounts[p] -= 1
        count -= 1
        if pageCounts[p] == 0 { pages[p] = [] }
        return removed
    }

    /// Where `key` is stored for writing: its page (made, and the band
    /// grown, when missing) and slot; nil when the key is hashed.
    @inline(__always)
    private mutating func place(for key: Int64) -> (page: Int, slot: Int)? {
        guard let p = pageIndex(key) ?? widen(to: key) else { return nil }
        if pages[p].isEmpty { pages[p] = ContiguousArray(repeating: nil, count: Self.pageSize) }
        return (p, Int(key) & (Self.pageSize - 1))
    }

    /// Grows the band to hold `key`'s page, and returns its index; nil when
    /// the band would grow too wide (the key is then hashed).
    private mutating func widen(to key: Int64) -> Int? {
        guard key >= 0 else { return nil }
        let page = Int(key >> Int64(Self.pageShift))
        if pages.isEmpty {
            basePage = page
            pages = [[]]
            pageCounts = [0]
            return 0
        }
        if page < basePage {
            let extra = basePage - page
            guard pages.count + extra <= Self.maxPages, !hashedKeys(inPages: page..<basePage) else { return nil }
            pages.insert(contentsOf: repeatElement([], count: extra), at: 0)
            pageCounts.insert(contentsOf: repeatElement(0, count: extra), at: 0)
            basePage = page
            return 0
        }
        let needed = page - basePage + 1
        guard needed <= Self.maxPages else { return nil }
        var grown = Swift.min(Self.maxPages, Swift.max(needed, pages.count * 2))
        if hashedKeys(inPages: (basePage + pages.count)..<(basePage + grown)) {
            // Grow no further than needed, if that is clear of them.
            grown = needed
            guard !hashedKeys(inPages: (basePage + pages.count)..<(basePage + grown)) else { return nil }
        }
        pages.append(contentsOf: repeatElement([], count: grown - pages.count))
        pageCounts.append(contentsOf: repeatElement(0, count: grown - pageCounts.count))
        return page - basePage
    }

    /// Whether a hashed key's page is in `range`: the band must not grow
    /// over it, or that key would be looked for in the wrong place.
    private func hashedKeys(inPages range: Range<Int>) -> Bool {
        guard !hashed.isEmpty else { return false }
        return hashed.keys.contains { $0 >= 0 && range.contains(Int($0 >> Int64(Self.pageShift))) }
    }

    func forEach(_ body: (Unmanaged<ManagedObject>) -> Void) {
        for page in pages where !page.isEmpty {
            for case let slot? in page { body(slot) }
        }
        for value in hashed.values { body(value) }
    }
}
