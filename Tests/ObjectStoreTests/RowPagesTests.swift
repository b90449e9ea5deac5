import Foundation
@testable import ObjectStore
import Testing

/// The identity map's row table: paged slots over a band of numbers, a
/// hash table for negative ones and ones far from the band, one count.
@Suite struct RowPagesTests {
    let entity: EntityDescription

    init() throws {
        entity = try #require(try TestModels.people().entity(named: "Person"))
    }

    @Test func findsStoresAndRemovesAcrossPagesAndTheHashedRange() {
        let objects = (0..<6).map { _ in ManagedObject(entity: entity, insertInto: nil) }
        let keys: [Int64] = [1, 1023, 1024, 5_000_000, -7, (1 << 40) + 3]
        var rows = RowPages()
        for (key, object) in zip(keys, objects) { rows[key] = RowPages.Entry(object) }
        #expect(rows.count == 6)
        for (key, object) in zip(keys, objects) {
            #expect(rows[key]?.object === object)
        }
        #expect(rows[2] == nil && rows[1025] == nil && rows[-8] == nil && rows[Int64.max] == nil)
        var seen: [ObjectIdentifier] = []
        rows.forEach { seen.append(ObjectIdentifier($0.object!)) }
        #expect(Set(seen) == Set(objects.map(ObjectIdentifier.init)) && seen.count == 6)

        // Replacing keeps the count; removing lowers it, once.
        rows[1] = RowPages.Entry(objects[1])
        #expect(rows.count == 6 && rows[1]?.object === objects[1])
        #expect(rows.removeValue(at: 1023)?.object === objects[1])
        #expect(rows.removeValue(at: 1023) == nil)
        rows[-7] = nil
        rows[(1 << 40) + 3] = nil
        #expect(rows.count == 3)
    }

    /// The band grows down and up, but never over a number already hashed:
    /// every number stays findable wherever it was filed.
    @Test func theBandNeverCoversAHashedNumber() {
        let objects = (0..<5).map { _ in ManagedObject(entity: entity, insertInto: nil) }
        let pageSize = Int64(RowPages.pageSize), maxPages = Int64(RowPages.maxPages)
        var rows = RowPages()
        let keys: [Int64] = [
            50_000_000,                                  // starts the band
            50_000_000 + maxPages * pageSize,            // too far up: hashed
            50_000_000 - 10 * pageSize,                  // grows the band down
            50_000_000 + (maxPages - 20) * pageSize,     // grows it up, short of the hashed one
            50_000_000 + maxPages * pageSize - 1,        // the hashed one's neighbour
        ]
        for (key, object) in zip(keys, objects) { rows[key] = RowPages.Entry(object) }
        for (key, object) in zip(keys, objects) {
            #expect(rows[key]?.object === object, "key \(key)")
        }
        #expect(rows.count == 5)
        for key in keys { rows[key] = nil }
        #expect(rows.count == 0 && keys.allSatisfy { rows[$0] == nil })
    }

    @Test func aPageEmptiedIsReused() {
        var rows = RowPages()
        let object = ManagedObject(entity: entity, insertInto: nil)
        rows[2048] = RowPages.Entry(object)
        #expect(rows.count == 1)
        rows[2048] = nil
        #expect(rows.count == 0 && rows[2048] == nil)
        rows[2049] = RowPages.Entry(object)
        #expect(rows[2049]?.object === object && rows.count == 1)
        withExtendedLifetime(object) {}
    }
    /// The in-place readers and writers the registry uses agree with the
    /// subscript: a dead entry reads as no object but stays filed until
    /// removed, and only the object filed is removed by its identity.
    @Test func inPlaceLookupsInsertsAndRemovalsKeepTheCount() {
        let kept = ManagedObject(entity: entity, insertInto: nil)
        var rows = RowPages()
        for key: Int64 in [5, -3] {
            rows.insert(kept, at: key)
            rows.insert(kept, at: key)
            #expect(rows.object(at: key) === kept)
        }
        #expect(rows.count == 2)
        do {
            let passing = ManagedObject(entity: entity, insertInto: nil)
            rows.insert(passing, at: 6)
            #expect(rows.object(at: 6) === passing && rows.count == 3)
        }
        #expect(rows.object(at: 6) == nil && rows.count == 3)
        rows.removeValue(at: 5, ifSameAs: ObjectIdentifier(ManagedObject(entity: entity, insertInto: nil)))
        #expect(rows.object(at: 5) === kept && rows.count == 3)
        rows.removeValue(at: 5, ifSameAs: ObjectIdentifier(kept))
        rows.removeValue(at: -3, ifSameAs: ObjectIdentifier(kept))
        #expect(rows.object(at: 5) == nil && rows.object(at: -3) == nil && rows.count == 1)
        withExtendedLifetime(kept) {}
    }
}
