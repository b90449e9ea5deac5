import Foundation
@testable import ObjectStore
import Testing

/// The to-many contents set: sorted while IDs come in order (appends and
/// binary searches), hashed after; either way it must behave as an
/// insertion-ordered set.
@Suite struct ObjectIDSetTests {
    let person: EntityDescription
    let manager: EntityDescription
    let tag: EntityDescription

    init() throws {
        let model = try TestModels.people()
        person = try #require(model.entity(named: "Person"))
        manager = try #require(model.entity(named: "Manager"))
        tag = try #require(model.entity(named: "Tag"))
    }

    @Test func idsInOrderStaySortedAndAreFoundByNumber() {
        var set = ObjectIDSet()
        let temporaries = (0..<1000).map { _ in ObjectID.temporary(for: person) }
        for id in temporaries {
            let added = set.insert(id)
            #expect(added)
        }
        #expect(set.count == 1000)
        #expect(temporaries.allSatisfy { set.contains($0) })
        let middle = set.insert(temporaries[500]), end = set.insert(temporaries[999])
        #expect(!middle, "a duplicate in the middle")
        #expect(!end, "a duplicate at the end")
        #expect(!set.contains(ObjectID.temporary(for: person)))
        // A sub-entity's ID of the same hierarchy and number is the same ID.
        let sameRow = ObjectID(entity: manager, primaryKey: temporaries[3].primaryKey, store: .none)
        #expect(set.contains(sameRow))
        // Another hierarchy, or a permanent ID with the same number, is not.
        #expect(!set.contains(ObjectID(entity: tag, primaryKey: temporaries[3].primaryKey, store: .none)))
        #expect(!set.contains(ObjectID(entity: person, primaryKey: -temporaries[3].primaryKey, storeIdentifier: nil)))
        let removed = set.remove(temporaries[10]), again = set.remove(temporaries[10])
        #expect(removed)
        #expect(!again)
        #expect(!set.contains(temporaries[10]))
        #expect(set.ids == temporaries.filter { $0 != temporaries[10] })
    }

    @Test func randomOperationsMatchAnOrderedSetModel() {
        var generator = SplitMix64(seed: 42)
        let store = StoreNumber("set-test")
        // Permanent rows of two hierarchies and temporaries: a mix that
        // leaves the sorted order sooner or later.
        let pool = (1...60).map { ObjectID(entity: person, primaryKey: Int64($0), store: store) }
            + (1...20).map { ObjectID(entity: tag, primaryKey: Int64($0), store: store) }
            + (0..<20).map { _ in ObjectID.temporary(for: person) }
        for round in 0..<200 {
            var set = ObjectIDSet()
            var model: [ObjectID] = []
            // Early rounds add in order for a while, as fetches and imports do.
            let ordered = round % 2 == 0 ? Int.random(in: 0...40, using: &generator) : 0
            for id in pool.prefix(ordered) {
                let added = set.insert(id)
                #expect(added)
                model.append(id)
            }
            for _ in 0..<60 {
                let id = pool[Int.random(in: 0..<pool.count, using: &generator)]
                switch Int.random(in: 0..<5, using: &generator) {
                case 0, 1:
                    let added = set.insert(id)
                    #expect(added == !model.contains(id))
                    if added { model.append(id) }
                case 2:
                    let removed = set.remove(id)
                    #expect(removed == model.contains(id))
                    model.removeAll { $0 == id }
                case 3:
                    let position = Int.random(in: 0...model.count, using: &generator)
                    set.insert(id, at: position)
                    if !model.contains(id) { model.insert(id, at: position) }
                default:
                    #expect(set.contains(id) == model.contains(id))
                }
                #expect(set.ids == model)
            }
            #expect(pool.allSatisfy { set.contains($0) == model.contains($0) })
        }
    }

    @Test func replacingTemporariesByRowsKeepsOrderAndDropsDuplicates() {
        let store = StoreNumber("replace-test")
        let temporaries = (0..<5).map { _ in ObjectID.temporary(for: person) }
        var set = ObjectIDSet(temporaries)
        var rows: [ObjectID: ObjectID] = [:]
        for (n, id) in temporaries.enumerated() { rows[id] = ObjectID(entity: person, primaryKey: Int64(10 + n), store: store) }
        // Two temporaries become the same row: it stays once, where it first was.
        rows[temporaries[4]] = rows[temporaries[1]]
        set.replaceAll { rows[$0] ?? $0 }
        #expect(set.ids.map(\.primaryKey) == [10, 11, 12, 13])
        #expect(set.contains(ObjectID(entity: person, primaryKey: 12, store: store)))
        #expect(!set.contains(temporaries[0]))
    }
}
