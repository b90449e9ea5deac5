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
///
/// Safe against objects dying on any thread. The last reference to an
/// object may go on a thread other than its context's queue (objects
/// fetched in `performAndWait` and dropped outside it): its deinit then
/// removes it from here while the queue may be looking it up. So every
/// operation holds a lock, and the map holds weak references, whose load
/// is nil once an object's deinit has begun: to the queue, that object is
/// already gone. (Before, with unretained pointers, such a lookup revived
/// it, and the process aborted with "deallocated with non-zero retain
/// count", or the map was corrupted.) Nothing runs under the lock but the
/// map's own bookkeeping: no object is made there.
final class ObjectRegistry: @unchecked Sendable {
    /// What a table holds: the IDs of one hierarchy in one store,
    /// temporary or not. Kept apart from the tables, so that finding one
    /// copies no table.
    private struct TableKey: Equatable {
        let root: ObjectIdentifier
        let store: StoreNumber
        let temporary: Bool

        init(_ id: ObjectID) {
            root = ObjectIdentifier(id.entity.rootEntity)
            store = id.storeNumber
            temporary = id.isTemporaryID
        }
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// The number an ID is filed under in its table: the row, or the
    /// temporary number (temporary primary keys are negated).
    @inline(__always)
    private static func key(_ id: ObjectID) -> Int64 { id.primaryKey < 0 ? -id.primaryKey : id.primaryKey }

    /// `tables[i]` holds the IDs `tableKeys[i]` describes. Tables are read and
    /// written in place (`tables[t].…`, mutating): reading
    /// `tables[t]` first would copy the table.
    private var tableKeys: [TableKey] = []
    private var tables: [RowPages] = []
    /// The table used last: lookups come in runs of one hierarchy.
    private var recent = 0

    @inline(__always)
    private func table(for id: ObjectID, creating: Bool) -> Int? {
        let key = TableKey(id)
        if recent < tableKeys.count, tableKeys[recent] == key { return recent }
        if let i = tableKeys.firstIndex(of: key) {
            recent = i
            return i
        }
        guard creating else { return nil }
        tableKeys.append(key)
        tables.append(RowPages())
        recent = tables.count - 1
        return recent
    }

    subscript(id: ObjectID) -> ManagedObject? {
        get {
            locked {
                guard let t = table(for: id, creating: false) else { return nil }
                return tables[t].object(at: Self.key(id))
            }
        }
        set {
            locked {
                if let newValue {
                    let t = table(for: id, creating: true)!
                    tables[t].insert(newValue, at: Self.key(id))
                } else if let t = table(for: id, creating: false) {
                    tables[t].removeValue(at: Self.key(id))
                }
            }
        }
    }

    /// The object registered for `id`, or the one `make` creates, which
    /// is registered. `make` runs outside the lock (it may be a subclass's
    /// initializer); in the one case where the slot filled meanwhile (only
    /// this queue registers), the object found there wins.
    @inline(__always)
    func object(for id: ObjectID, orMake make: () -> ManagedObject) -> ManagedObject {
        let key = Self.key(id)
        if let found: ManagedObject = locked({
            guard let t = table(for: id, creating: false) else { return nil }
            return tables[t].object(at: key)
        }) {
            return found
        }
        let made = make()
        return locked {
            let t = table(for: id, creating: true)!
            if let found = tables[t].object(at: key) { return found }
            // Empty, or holding an object whose deinit has begun (which
            // then leaves the new one in place: it removes only itself).
            tables[t].insert(made, at: key)
            return made
        }
    }

    @discardableResult
    func removeValue(forKey id: ObjectID) -> ManagedObject? {
        locked {
            guard let t = table(for: id, creating: false), let slot = tables[t].removeValue(at: Self.key(id)) else {
                return nil
            }
            return slot.object
        }
    }

    /// Called from the object's deinit, on whatever thread let it go:
    /// forgets it if it is still the one registered under `id`.
    func remove(_ id: ObjectID, ifSameAs object: ObjectIdentifier) {
        locked {
            guard let t = table(for: id, creating: false) else { return }
            tables[t].removeValue(at: Self.key(id), ifSameAs: object)
        }
    }

    /// Every registered object still alive.
    var values: [ManagedObject] {
        locked {
            var result: [ManagedObject] = []
            result.reserveCapacity(tables.reduce(0) { $0 + $1.count })
            for table in tables {
                table.forEach { slot in
                    if let object = slot.object { result.append(object) }
                }
            }
            return result
        }
    }

    var keys: [ObjectID] { values.map(\.objectID) }
    var count: Int { locked { tables.reduce(0) { $0 + $1.count } } }

    func removeAll() {
        locked {
            tableKeys.removeAll()
            tables.removeAll()
            recent = 0
        }
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
    /// One registered object: a weak reference (nil once its deinit has
    /// begun, whatever thread that runs on) and its address, which
    /// identifies it to its own deinit.
    struct Entry {
        weak var object: ManagedObject?
        let address: UInt

        init(_ object: ManagedObject) {
            self.object = object
            address = UInt(bitPattern: ObjectIdentifier(object))
        }
    }

    typealias Slot = Entry?

    static let pageShift = 10
    static let pageSize = 1 << pageShift
    static let maxPages = 1 << 16

    /// Empty where a page holds nothing.
    private var pages: [ContiguousArray<Slot>] = []
    /// Objects in each page: a page is freed when its last one leaves.
    private var pageCounts: [Int32] = []
    /// The page number of `pages[0]`.
    private var basePage = 0
    private var hashed: [Int64: Entry] = [:]
    private(set) var count = 0

    /// The index in `pages` of `key`'s page, when it lies in the band.
    @inline(__always)
    private func pageIndex(_ key: Int64) -> Int? {
        guard key >= 0 else { return nil }
        let p = Int(key >> Int64(Self.pageShift)) &- basePage
        return p >= 0 && p < pages.count ? p : nil
    }

    subscript(key: Int64) -> Entry? {
        get {
            guard let p = pageIndex(key) else { return hashed[key] }
            guard !pages[p].isEmpty else { return nil }
            return pages[p][Int(key) & (Self.pageSize - 1)]
        }
        set {
            if let newValue, let object = newValue.object { insert(object, at: key) } else { removeValue(at: key) }
        }
    }

    /// The live object at `key`: its weak reference loaded where it lies.
    /// Mutating only to reach the slot in place: a copy of an entry copies
    /// its weak reference, and a copy of a page or of the pages retains
    /// them, on every lookup of every object a fetch registers.
    @inline(__always)
    mutating func object(at key: Int64) -> ManagedObject? {
        guard let p = pageIndex(key) else { return hashed[key]?.object }
        guard !pages[p].isEmpty else { return nil }
        let i = Int(key) & (Self.pageSize - 1)
        return pages[p].withUnsafeMutableBufferPointer { $0[i]?.object }
    }

    /// The address of the object at `key`, read in place (see above).
    @inline(__always)
    private mutating func address(at key: Int64) -> UInt? {
        guard let p = pageIndex(key) else { return hashed[key]?.address }
        guard !pages[p].isEmpty else { return nil }
        let i = Int(key) & (Self.pageSize - 1)
        return pages[p].withUnsafeMutableBufferPointer { $0[i]?.address }
    }

    /// Files `object` at `key`, in place of any object there.
    mutating func insert(_ object: ManagedObject, at key: Int64) {
        guard let (p, i) = place(for: key) else {
            if hashed.updateValue(Entry(object), forKey: key) == nil { count += 1 }
            return
        }
        if address(at: key) == nil {
            pageCounts[p] += 1
            count += 1
        }
        // Made in its slot: a copy of an entry copies its weak reference.
        pages[p][i] = Entry(object)
    }

    /// Removes the object at `key` if it is `object`.
    mutating func removeValue(at key: Int64, ifSameAs object: ObjectIdentifier) {
        // Compared by address: the object may be mid-deinit, and must not
        // be retained.
        if address(at: key) == UInt(bitPattern: object) {
            removeValue(at: key)
        }
    }

    @discardableResult
    mutating func removeValue(at key: Int64) -> Entry? {
        guard let p = pageIndex(key) else {
            let removed = hashed.removeValue(forKey: key)
            if removed != nil { count -= 1 }
            return removed
        }
        guard !pages[p].isEmpty else { return nil }
        let i = Int(key) & (Self.pageSize - 1)
        // Moved out, not copied (with its weak reference).
        var removed: Entry?
        swap(&removed, &pages[p][i])
        guard let removed else { return nil }
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

    func forEach(_ body: (Entry) -> Void) {
        for page in pages where !page.isEmpty {
            for case let slot? in page { body(slot) }
        }
        for value in hashed.values { body(value) }
    }
}
