import Foundation
@testable import ObjectStore
import Testing

/// The identity map's row table: paged slots for ordinary row numbers, a
/// hash table for temporary (negative) and very large ones, one count.
@Suite struct RowPagesTests {
    let entity: EntityDescription

    init() throws {
        entity = try #require(try TestModels.people().entity(named: "Person"))
    }

    @Test func findsStoresAndRemovesAcrossPagesAndTheHashedRange() {
        let objects = (0..<6).map { _ in ManagedObject(entity: entity, insertInto: nil) }
        let keys: [Int64] = [1, 1023, 1024, 5_000_000, -7, RowPages.pagedLimit + 3]
        var rows = RowPages()
        for (key, object) in zip(keys, objects) { rows[key] = Unmanaged.passUnretained(object) }
        #expect(rows.count == 6)
        for (key, object) in zip(keys, objects) {
            #expect(rows[key]?.takeUnretainedValue() === object)
        }
        #expect(rows[2] == nil && rows[1025] == nil && rows[-8] == nil && rows[Int64.max] == nil)
        var seen: [ObjectIdentifier] = []
        rows.forEach { seen.append(ObjectIdentifier($0.takeUnretainedValue())) }
        #expect(Set(seen) == Set(objects.map(ObjectIdentifier.init)) && seen.count == 6)

        // Replacing keeps the count; removing lowers it, once.
        rows[1] = Unmanaged.passUnretained(objects[1])
        #expect(rows.count == 6 && rows[1]?.takeUnretainedValue() === objects[1])
        #expect(rows.removeValue(at: 1023)?.takeUnretainedValue() === objects[1])
        #expect(rows.removeValue(at: 1023) == nil)
        rows[-7] = nil
        rows[RowPages.pagedLimit + 3] = nil
        #expect(rows.count == 3)
    }

    @Test func objectOrMakeMakesOnceAndAPageEmptiedIsReused() {
        var rows = RowPages()
        var made = 0
        let object = ManagedObject(entity: entity, insertInto: nil)
        for _ in 0..<3 {
            let found = rows.object(at: 2048) { made += 1; return object }
            #expect(found === object)
        }
        #expect(made == 1 && rows.count == 1)
        rows[2048] = nil
        #expect(rows.count == 0 && rows[2048] == nil)
        _ = rows.object(at: 2049) { object }
        #expect(rows[2049]?.takeUnretainedValue() === object && rows.count == 1)
        withExtendedLifetime(object) {}
    }
}
