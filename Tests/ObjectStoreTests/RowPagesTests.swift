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
        var replaced: [ManagedObject] = []
        for (key, object) in zip(keys, objects) { rows.insert(object, at: key, replaced: &replaced) }
        #expect(rows.count == 6 && replaced.isEmpty)
        for (key, object) in zip(keys, objects) {
            #expect(rows[key] === object)
        }
        #expect(rows[2] == nil && rows[1025] == nil && rows[-8] == nil && rows[Int64.max] == nil)
        var seen: [ObjectIdentifier] = []
        rows.forEach { seen.append(ObjectIdentifier($0)) }
        #expect(Set(seen) == Set(objects.map(ObjectIdentifier.init)) && seen.count == 6)

        // Replacing keeps the count and hands back the old one; removing
        // lowers it, once.
        rows.insert(objects[1], at: 1, replaced: &replaced)
        #expect(rows.count == 6 && rows[1] === objects[1] && replaced.count == 1 && replaced[0] === objects[0])
        #expect(rows.removeValue(at: 1023) === objects[1])
        #expect(rows.removeValue(at: 1023) == nil)
        rows.removeValue(at: -7)
        rows.removeValue(at: (1 << 40) + 3)
        #expect(rows.count == 3)
    }

    /// The band grows down and up, but never over a number already hashed:
    /// every number stays findable wherever it was filed.
    @Test func theBandNeverCoversAHashedNumber() {
        let objects = (0..<5).map { _ in ManagedObject(entity: entity, insertInto: nil) }
        let pageSize = Int64(RowPages.pageSize), maxPages = Int64(RowPages.maxPages)
        var rows = RowPages()
        var replaced: [ManagedObject] = []
        let keys: [Int64] = [
            50_000_000,                                  // starts the band
            50_000_000 + maxPages * pageSize,            // too far up: hashed
            50_000_000 - 10 * pageSize,                  // grows the band down
            50_000_000 + (maxPages - 20) * pageSize,     // grows it up, short of the hashed one
            50_000_000 + maxPages * pageSize - 1,        // the hashed one's neighbour
        ]
        for (key, object) in zip(keys, objects) { rows.insert(object, at: key, replaced: &replaced) }
        for (key, object) in zip(keys, objects) {
            #expect(rows[key] === object, "key \(key)")
        }
        #expect(rows.count == 5)
        for key in keys { rows.removeValue(at: key) }
        #expect(rows.count == 0 && keys.allSatisfy { rows[$0] == nil })
    }

    @Test func aPageEmptiedIsReused() {
        var rows = RowPages()
        var replaced: [ManagedObject] = []
        let object = ManagedObject(entity: entity, insertInto: nil)
        rows.insert(object, at: 2048, replaced: &replaced)
        #expect(rows.count == 1)
        rows.removeValue(at: 2048)
        #expect(rows.count == 0 && rows[2048] == nil)
        rows.insert(object, at: 2049, replaced: &replaced)
        #expect(rows[2049] === object && rows.count == 1)
        withExtendedLifetime(object) {}
    }
    /// The in-place readers and writers the registry uses agree with the
    /// subscript: an object only the table holds reads as no object and is
    /// handed out to be released (paged and hashed alike); one held
    /// elsewhere is found; only the object filed is removed by identity.
    @Test func inPlaceLookupsInsertsAndRemovalsKeepTheCount() {
        let kept = ManagedObject(entity: entity, insertInto: nil)
        var rows = RowPages()
        var unused: [ManagedObject] = []
        for key: Int64 in [5, -3] {
            rows.insert(kept, at: key, replaced: &unused)
            rows.insert(kept, at: key, replaced: &unused)
            #expect(rows.object(at: key, unused: &unused) === kept)
        }
        #expect(rows.count == 2 && unused.count == 2)
        unused.removeAll()
        for key: Int64 in [6, -4] {
            rows.insert(ManagedObject(entity: entity, insertInto: nil), at: key, replaced: &unused)
        }
        #expect(rows.count == 4)
        #expect(rows.object(at: 6, unused: &unused) == nil && rows.object(at: -4, unused: &unused) == nil)
        #expect(rows.count == 2 && unused.count == 2 && rows[6] == nil && rows[-4] == nil)
        unused.removeAll()
        #expect(rows.removeValue(at: 5, ifSameAs: ObjectIdentifier(ManagedObject(entity: entity, insertInto: nil))) == nil)
        #expect(rows.object(at: 5, unused: &unused) === kept && rows.count == 2)
        #expect(rows.removeValue(at: 5, ifSameAs: ObjectIdentifier(kept)) === kept)
        #expect(rows.removeValue(at: -3, ifSameAs: ObjectIdentifier(kept)) === kept)
        #expect(rows.object(at: 5, unused: &unused) == nil && rows.object(at: -3, unused: &unused) == nil && rows.count == 0)
        withExtendedLifetime(kept) {}
    }

    /// A sweep takes out exactly the objects only the table holds, from
    /// pages and from the hashed numbers, and empties pages it clears.
    @Test func removingUnusedTakesExactlyTheObjectsHeldNowhereElse() {
        var rows = RowPages()
        var unused: [ManagedObject] = []
        var held: [ManagedObject] = []
        for key in Int64(0)..<3000 {
            let object = ManagedObject(entity: entity, insertInto: nil)
            if key % 3 == 0 { held.append(object) }
            rows.insert(object, at: key, replaced: &unused)
        }
        for key in Int64(-20)..<0 { rows.insert(ManagedObject(entity: entity, insertInto: nil), at: key, replaced: &unused) }
        #expect(rows.count == 3020 && unused.isEmpty)
        rows.removeUnused(into: &unused)
        #expect(rows.count == 1000 && unused.count == 2020)
        for key in Int64(0)..<3000 { #expect((rows[key] != nil) == (key % 3 == 0)) }
        unused.removeAll()
        held.removeAll()
        rows.removeUnused(into: &unused)
        #expect(rows.count == 0 && unused.count == 1000)
    }

    /// The map's end lets go of every object it holds, paged or hashed,
    /// and of nothing else.
    @Test func releasingAllLetsGoOfEveryObject() {
        var rows = RowPages()
        var unused: [ManagedObject] = []
        weak var paged: ManagedObject?
        weak var hashed: ManagedObject?
        let kept = ManagedObject(entity: entity, insertInto: nil)
        do {
            let first = ManagedObject(entity: entity, insertInto: nil)
            let second = ManagedObject(entity: entity, insertInto: nil)
            paged = first
            hashed = second
            rows.insert(first, at: 2_000, replaced: &unused)
            rows.insert(second, at: -4, replaced: &unused)
            rows.insert(kept, at: 2_001, replaced: &unused)
        }
        #expect(paged != nil && hashed != nil && rows.count == 3)
        rows.releaseAll()
        #expect(paged == nil && hashed == nil)
        #expect(rows.count == 0 && rows[2_001] == nil && rows[-4] == nil)
        // Still usable after.
        rows.insert(kept, at: 2_001, replaced: &unused)
        #expect(rows[2_001] === kept && rows.count == 1 && unused.isEmpty)
    }
}
