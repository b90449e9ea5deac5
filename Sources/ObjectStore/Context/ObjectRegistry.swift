import Foundation

/// The context's identity map: one object per ID.
///
/// A context keeps its changed objects alive (in its change set), but not
/// the clean ones: an object nobody uses any more leaves the map, so
/// iterating a million fetched rows keeps memory bounded, as Core Data's
/// weakly held registered objects do.
///
/// IDs are grouped by what they share, the store and the inheritance
/// hierarchy (a handful of groups in a context), and temporary IDs apart.
/// Within a group, objects are found by number in pages of
/// `RowPages.pageSize` slots: row numbers are dense, and so are the
/// temporary numbers of one context's inserts, so a lookup is two array
/// indexings and a fetch streaming in 200,000 rows never rehashes.
///
/// The map holds its objects strongly, and an object only the map holds
/// counts as gone. Nobody can come to hold a registered object except
/// through a reference they have or through the map, under its lock; so,
/// under the lock, an object whose one strong reference is the map's
/// (`isKnownUniquelyReferenced`) is unused and can never be used again:
/// a lookup that finds one drops it and answers nil, exactly as a weak
/// reference to a dead object would. Objects never unregister themselves:
/// one let go on any thread only loses a reference, and the map drops
/// the unused ones when it has grown to twice what its last sweep left
/// (`sweep`), and before it lists or counts them. (Weak references cost
/// a side table per object, allocated at its first registration and
/// freed after it: about a tenth of an insert or a fetched row, workloads
/// a, b, c, d and q.) Objects the map drops are released after its lock is
/// let go: a subclass's deinit may look something up in the context. (A
/// user's own weak reference to an object is loaded on the context's
/// queue, as every use of its objects is, so it cannot race the map's
/// check, which runs on that queue too.)
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

    /// Empties the map without letting go of its objects: they stay in
    /// memory, unreachable, until the process ends and the kernel takes
    /// its memory back at once. Only for a process about to exit.
    func leaveToProcessExit() {
        let left = locked { () -> [RowPages] in
            defer { (tables, tableKeys, recent) = ([], [], 0) }
            return tables
        }
        _ = Unmanaged.passRetained(LeftToProcessExit(left))
    }

    /// A map's tables, never released (see `leaveToProcessExit`).
    private final class LeftToProcessExit {
        let tables: [RowPages]
        init(_ tables: [RowPages]) { self.tables = tables }
    }

    deinit {
        for t in tables.indices { tables[t].releaseAll() }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    // The map's state below is only read and written under `mutex`, which
    // already makes every access exclusive: it skips the runtime's
    // exclusivity bookkeeping, eight checks for every object a fetch
    // registers (mrq-bench b. fetch, c. filter, a. insert, d. import).
    /// Objects found unused under the lock, released after it.
    @exclusivity(unchecked) private var unused: [ManagedObject] = []
    /// How many objects the map may hold before it sweeps the unused out.
    @exclusivity(unchecked) private var sweepAt = ObjectRegistry.smallestSweep
    private static let smallestSweep = 4096

    @inline(__always)
    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        let result = body()
        guard !unused.isEmpty else {
            pthread_mutex_unlock(mutex)
            return result
        }
        let released = unused
        unused = []
        pthread_mutex_unlock(mutex)
        withExtendedLifetime(released) {}
        return result
    }

    /// Drops every unused object (under the lock), and sets the count at
    /// which the next sweep comes: twice what is left, so that sweeping
    /// costs a constant amount per registration; four times when the sweep
    /// freed less than an eighth, as when a fetch still holds what it
    /// registers. (A sweep reads every object's header, in key order, not
    /// the order they were made: a fetch of 47,000 sorted rows, c. filter,
    /// swept 61,000 objects for nothing, 1.8% of its time; now 20,000.)
    private func sweep() {
        let before = filed
        for t in tables.indices { tables[t].removeUnused(into: &unused) }
        let left = filed
        sweepAt = Swift.max(Self.smallestSweep, (before - left) * 8 < before ? 4 * left : 2 * left)
    }

    /// Sweeps when the map has grown to `sweepAt` (under the lock).
    @inline(__always)
    private func sweepIfGrown() {
        if filed >= sweepAt { sweep() }
    }

    /// How many objects the tables hold, in use or not (under the lock; a
    /// handful of tables).
    private var filed: Int { tables.reduce(0) { $0 + $1.count } }

    /// The number an ID is filed under in its table: the row, or the
    /// temporary number (temporary primary keys are negated).
    @inline(__always)
    private static func key(_ id: ObjectID) -> Int64 { id.primaryKey < 0 ? -id.primaryKey : id.primaryKey }

    // Under `mutex` too (mrq-bench b. fetch, c. filter, as above).
    /// `tables[i]` holds the IDs `tableKeys[i]` describes. Tables are read and
    /// written in place (`tables[t].…`, mutating): reading
    /// `tables[t]` first would copy the table.
    @exclusivity(unchecked) private var tableKeys: [TableKey] = []
    @exclusivity(unchecked) private var tables: [RowPages] = []
    /// The table used last: lookups come in runs of one hierarchy.
    @exclusivity(unchecked) private var recent = 0

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
                return tables[t].object(at: Self.key(id), unused: &unused)
            }
        }
        set {
            locked {
                if let newValue {
                    let t = table(for: id, creating: true)!
                    tables[t].insert(newValue, at: Self.key(id), replaced: &unused)
                    sweepIfGrown()
                } else if let t = table(for: id, creating: false), let removed = tables[t].removeValue(at: Self.key(id)) {
                    unused.append(removed)
                }
            }
        }
    }

    /// The object registered for `id`, or the one `make` creates, which
    /// is registered. `make` runs outside the lock (it may be a subclass's
    /// initializer); in the one case where the slot filled meanwhile (only
    /// this queue registers), the object found there wins.
    ///
    /// `nextKey`, the row registered after this one if known (a fetch's
    /// rows are of one table), has its slot loaded meanwhile (see
    /// `RowPages.prefetch`).
    @inline(__always)
    func object(for id: ObjectID, nextKey: Int64? = nil, orMake make: () -> ManagedObject) -> ManagedObject {
        let key = Self.key(id)
        if let found: ManagedObject = locked({
            guard let t = table(for: id, creating: false) else { return nil }
            if let nextKey { tables[t].prefetch(nextKey) }
            return tables[t].object(at: key, unused: &unused)
        }) {
            return found
        }
        let made = make()
        return locked {
            let t = table(for: id, creating: true)!
            if let found = tables[t].object(at: key, unused: &unused) { return found }
            tables[t].insert(made, at: key, replaced: &unused)
            sweepIfGrown()
            return made
        }
    }

    /// Forgets the object registered for `id`, and returns it if it is in
    /// use (one only the map held counts as gone).
    @discardableResult
    func removeValue(forKey id: ObjectID) -> ManagedObject? {
        locked {
            guard let t = table(for: id, creating: false), var removed = tables[t].removeValue(at: Self.key(id)) else {
                return nil
            }
            if isKnownUniquelyReferenced(&removed) {
                unused.append(removed)
                return nil
            }
            return removed
        }
    }

    /// Forgets the object registered under `id` if it is `object`.
    func remove(_ id: ObjectID, ifSameAs object: ObjectIdentifier) {
        locked {
            guard let t = table(for: id, creating: false),
                  let removed = tables[t].removeValue(at: Self.key(id), ifSameAs: object) else { return }
            unused.append(removed)
        }
    }

    /// Every registered object in use.
    var values: [ManagedObject] {
        locked {
            sweep()
            var result: [ManagedObject] = []
            result.reserveCapacity(filed)
            for table in tables { table.forEach { result.append($0) } }
            return result
        }
    }

    var keys: [ObjectID] { values.map(\.objectID) }
    /// How many registered objects are in use.
    var count: Int {
        locked {
            sweep()
            return filed
        }
    }

    /// How many objects the map holds, unused ones included (no sweep).
    var held: Int { locked { filed } }

    func removeAll() {
        locked {
            for table in tables { table.forEach { unused.append($0) } }
            tableKeys.removeAll()
            tables.removeAll()
            recent = 0
            sweepAt = Self.smallestSweep
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
    typealias Slot = ManagedObject?

    static let pageShift = 10
    static let pageSize = 1 << pageShift
    static let maxPages = 1 << 16

    /// Empty where a page holds nothing.
    private var pages: [ContiguousArray<Slot>] = []
    /// Objects in each page: a page is freed when its last one leaves.
    private var pageCounts: [Int32] = []
    /// The page number of `pages[0]`.
    private var basePage = 0
    private var hashed: [Int64: ManagedObject] = [:]
    private(set) var count = 0

    /// The index in `pages` of `key`'s page, when it lies in the band.
    @inline(__always)
    private func pageIndex(_ key: Int64) -> Int? {
        guard key >= 0 else { return nil }
        let p = Int(key >> Int64(Self.pageShift)) &- basePage
        return p >= 0 && p < pages.count ? p : nil
    }

    /// Starts loading `key`'s slot and its page's header, without waiting
    /// for them. Rows come in the order of their sort, so their keys in no
    /// order: 47,000 sorted rows (c. filter) touch slots all over 200
    /// pages, and the one load of each, missing the cache, was 70% of
    /// registering a row. Loaded while the next row is decoded, they are
    /// there when the row is filed. Mutating, so as to copy no table; the
    /// page's address is read from the directory's bits, so the page is
    /// neither retained nor read (an empty page's address is the shared
    /// empty storage's, and a prefetch of it is harmless).
    @inline(__always)
    mutating func prefetch(_ key: Int64) {
        guard let p = pageIndex(key) else { return }
        pages.withUnsafeMutableBufferPointer { pages in
            Prefetch.element(Int(key) & (Self.pageSize - 1), stride: MemoryLayout<Slot>.stride,
                             ofArrayAt: UnsafeRawPointer(pages.baseAddress! + p))
        }
    }

    /// The object at `key`, whether in use or not.
    subscript(key: Int64) -> ManagedObject? {
        guard let p = pageIndex(key) else { return hashed[key] }
        guard !pages[p].isEmpty else { return nil }
        return pages[p][Int(key) & (Self.pageSize - 1)]
    }

    /// The object at `key` if it is in use. One that only this map holds
    /// is moved to `unused` and its slot emptied: it is gone. Read in
    /// place (mutating): a copy of a page would retain it, and a copy of
    /// the reference would make it look in use.
    @inline(__always)
    mutating func object(at key: Int64, unused: inout [ManagedObject]) -> ManagedObject? {
        guard let p = pageIndex(key) else {
            guard hashed[key] != nil else { return nil }
            if isKnownUniquelyReferenced(&hashed[key]!) {
                unused.append(hashed.removeValue(forKey: key)!)
                count -= 1
                return nil
            }
            return hashed[key]
        }
        guard !pages[p].isEmpty else { return nil }
        let i = Int(key) & (Self.pageSize - 1)
        let found: ManagedObject?? = pages[p].withUnsafeMutableBufferPointer { page in
            guard page[i] != nil else { return .some(nil) }
            if isKnownUniquelyReferenced(&page[i]!) { return nil }
            return .some(page[i])
        }
        if let found { return found }
        if let removed = removeValue(at: key) { unused.append(removed) }
        return nil
    }

    /// Files `object` at `key`; an object it replaces goes to `replaced`.
    mutating func insert(_ object: ManagedObject, at key: Int64, replaced: inout [ManagedObject]) {
        guard let (p, i) = place(for: key) else {
            if let old = hashed.updateValue(object, forKey: key) { replaced.append(old) } else { count += 1 }
            return
        }
        var old: Slot = object
        swap(&old, &pages[p][i])
        if let old { replaced.append(old) } else {
            pageCounts[p] += 1
            count += 1
        }
    }

    /// Removes and returns the object at `key` if it is `object`.
    mutating func removeValue(at key: Int64, ifSameAs object: ObjectIdentifier) -> ManagedObject? {
        guard let found = self[key], ObjectIdentifier(found) == object else { return nil }
        return removeValue(at: key)
    }

    /// Removes and returns the object at `key`.
    @discardableResult
    mutating func removeValue(at key: Int64) -> ManagedObject? {
        guard let p = pageIndex(key) else {
            let removed = hashed.removeValue(forKey: key)
            if removed != nil { count -= 1 }
            return removed
        }
        guard !pages[p].isEmpty else { return nil }
        let i = Int(key) & (Self.pageSize - 1)
        // Moved out, not copied.
        var removed: Slot = nil
        swap(&removed, &pages[p][i])
        guard let removed else { return nil }
        pageCounts[p] -= 1
        count -= 1
        if pageCounts[p] == 0 { pages[p] = [] }
        return removed
    }

    /// How many slots ahead a walk over the pages loads objects' headers.
    /// A walk goes in key order, not the order the objects were made in,
    /// and the check or release of each reads its header: without the
    /// loads ahead, a sweep of a fetch's sorted rows, or letting go of them
    /// all when the context goes, waited for each in turn (c. filter).
    private static let ahead = 8

    /// Moves every object only this map holds to `unused`.
    mutating func removeUnused(into unused: inout [ManagedObject]) {
        for p in pages.indices where !pages[p].isEmpty {
            var left = pageCounts[p]
            Self.forEachSlotLoadingAhead(of: &pages[p]) { slot in
                guard slot != nil, isKnownUniquelyReferenced(&slot!) else { return }
                unused.append(slot!)
                slot = nil
                left -= 1
            }
            count -= Int(pageCounts[p] - left)
            pageCounts[p] = left
            if left == 0 { pages[p] = [] }
        }
        for key in Array(hashed.keys) where isKnownUniquelyReferenced(&hashed[key]!) {
            unused.append(hashed.removeValue(forKey: key)!)
            count -= 1
        }
    }

    /// Runs `body` on each slot of `page` in order, the header of the
    /// object `ahead` slots on loading meanwhile.
    @inline(__always)
    private static func forEachSlotLoadingAhead(of page: inout ContiguousArray<Slot>, _ body: (inout Slot) -> Void) {
        page.withUnsafeMutableBufferPointer { page in
            for i in 0..<Swift.min(ahead, page.count) { Prefetch.object(at: page.baseAddress! + i) }
            for i in page.indices {
                if i + ahead < page.count { Prefetch.object(at: page.baseAddress! + i + ahead) }
                body(&page[i])
            }
        }
    }

    /// Lets go of every object, in key order, loading their headers ahead
    /// (see `ahead`): the map's end, when its context goes.
    mutating func releaseAll() {
        for p in pages.indices where !pages[p].isEmpty {
            Self.forEachSlotLoadingAhead(of: &pages[p]) { $0 = nil }
            pages[p] = []
            pageCounts[p] = 0
        }
        hashed = [:]
        count = 0
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

    func forEach(_ body: (ManagedObject) -> Void) {
        for page in pages where !page.isEmpty {
            for case let object? in page { body(object) }
        }
        for object in hashed.values { body(object) }
    }
}
