/// The permanent IDs a save gave its inserted objects, by temporary ID.
///
/// A save of 200,000 new objects looks each of them up here several times
/// (its row's foreign keys, the identity map, every relationship naming
/// it): a hashed dictionary of IDs made that a fifth of the save. Temporary
/// IDs are numbered by one process-wide counter, so the objects of one save
/// hold a narrow band of numbers: a table indexed by number finds them
/// without hashing, in the order they were made.
///
/// ```swift
/// let temporary = person.objectID
/// context.addDidSaveObserver { note in
///     note.permanentIDs[temporary]    // the ID of the row the save gave it
/// }
/// try context.save()
/// ```
public struct PermanentIDs: Sendable, Sequence {
    /// One store's part: its objects in save order and their rows. (A
    /// class: a lookup per saved object and per foreign key then holds one
    /// reference, not a retained copy of each table.)
    fileprivate final class Part: Sendable {
        let temporaries: [ObjectID]
        let keys: [Int64]
        let store: StoreNumber
        /// Temporary number (`-primaryKey`) of `table[0]`.
        let base: Int64
        /// Position + 1 in `temporaries` by temporary number − `base`; 0
        /// where the number is not one of this save's.
        let table: [Int32]
        /// Position by temporary number, when the numbers are too spread
        /// out for a table.
        let spread: [Int64: Int32]

        init(temporaries: [ObjectID], keys: [Int64], store: StoreNumber) {
            precondition(temporaries.count == keys.count, "one key per temporary ID")
            self.temporaries = temporaries
            self.keys = keys
            self.store = store
            var low = Int64.max, high = Int64.min
            for id in temporaries {
                low = Swift.min(low, -id.primaryKey)
                high = Swift.max(high, -id.primaryKey)
            }
            base = low
            var table: [Int32] = []
            var spread: [Int64: Int32] = [:]
            // Numbers of other contexts and threads interleave, a few at a
            // time; a band four times wider than the save is still dense.
            if !temporaries.isEmpty, high - low < Int64(temporaries.count) * 4 + 64 {
                table = Array(repeating: 0, count: Int(high - low + 1))
                for (i, id) in temporaries.enumerated() { table[Int(-id.primaryKey - low)] = Int32(i + 1) }
            } else {
                spread.reserveCapacity(temporaries.count)
                for (i, id) in temporaries.enumerated() { spread[-id.primaryKey] = Int32(i + 1) }
            }
            self.table = table
            self.spread = spread
        }

        @inline(__always)
        func position(of id: ObjectID) -> Int? {
            let number = -id.primaryKey
            let found: Int32
            if !table.isEmpty {
                let offset = number &- base
                guard offset >= 0, offset < Int64(table.count) else { return nil }
                found = table[Int(offset)]
            } else {
                found = spread[number] ?? 0
            }
            guard found > 0, temporaries[Int(found) - 1] == id else { return nil }
            return Int(found) - 1
        }

        func permanent(at position: Int) -> ObjectID {
            ObjectID(entity: temporaries[position].entity, primaryKey: keys[position], store: store)
        }
    }

    private var parts: [Part] = []

    /// No IDs: a save that inserted nothing.
    public init() {}

    /// The rows `keys` of `store` for the objects `temporaries`, in order.
    package init(temporaries: [ObjectID], keys: [Int64], store: StoreNumber) {
        if !temporaries.isEmpty { parts = [Part(temporaries: temporaries, keys: keys, store: store)] }
    }

    /// The permanent ID of `temporary`; nil when this save did not insert it.
    public subscript(_ temporary: ObjectID) -> ObjectID? {
        guard temporary.isTemporaryID, let (part, position) = locate(temporary) else { return nil }
        return part.permanent(at: position)
    }

    /// The part that inserted `temporary`, and its position there.
    private func locate(_ temporary: ObjectID) -> (Part, Int)? {
        for part in parts {
            if let position = part.position(of: temporary) { return (part, position) }
        }
        return nil
    }

    /// The row `id` names: its own when permanent, the one this save gave
    /// it when temporary (nil when the save did not insert it). A foreign
    /// key needs no more than this: no ID is made.
    func primaryKey(of id: ObjectID) -> Int64? {
        guard id.isTemporaryID else { return id.primaryKey }
        return locate(id).map { part, position in part.keys[position] }
    }

    /// Whether the save inserted nothing.
    public var isEmpty: Bool { parts.isEmpty }
    /// The number of objects the save inserted, over all its stores.
    public var count: Int { parts.reduce(0) { $0 + $1.keys.count } }

    /// Adds another store's part of the same save.
    mutating func append(_ other: PermanentIDs) {
        parts += other.parts
    }

    /// Every pair, temporary first, in save order.
    public func makeIterator() -> Iterator { Iterator(parts: parts) }

    /// The pairs of a save in order, part by part (a plain iterator: a save
    /// of 100,000 objects walks them several times; workloads a and q).
    public struct Iterator: IteratorProtocol {
        private let parts: [Part]
        private var part = 0
        private var position = 0

        fileprivate init(parts: [Part]) { self.parts = parts }

        /// The next pair, or nil after the last.
        public mutating func next() -> (temporary: ObjectID, permanent: ObjectID)? {
            while part < parts.count {
                if position < parts[part].keys.count {
                    defer { position += 1 }
                    return (parts[part].temporaries[position], parts[part].permanent(at: position))
                }
                part += 1
                position = 0
            }
            return nil
        }
    }

    /// The same pairs as a dictionary.
    public var dictionary: [ObjectID: ObjectID] {
        var result: [ObjectID: ObjectID] = [:]
        result.reserveCapacity(count)
        for (temporary, permanent) in self { result[temporary] = permanent }
        return result
    }
}
