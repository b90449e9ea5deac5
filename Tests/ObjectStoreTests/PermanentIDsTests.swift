import Foundation
@testable import ObjectStore
import Testing

/// The table of permanent IDs a save hands back: found by temporary ID
/// whether the temporary numbers are dense or spread out, nil for any
/// other ID, in save order when iterated.
@Suite struct PermanentIDsTests {
    let person: EntityDescription
    let department: EntityDescription

    init() throws {
        let model = try TestModels.people()
        person = try #require(model.entity(named: "Person"))
        department = try #require(model.entity(named: "Department"))
    }

    @Test func denseNumbersAreFoundWithTheirEntityAndStore() {
        let temporaries = (0..<500).map { ObjectID.temporary(for: $0 % 2 == 0 ? person : department) }
        let store = StoreNumber("dense-\(UUID().uuidString)")
        let ids = PermanentIDs(temporaries: temporaries, keys: (0..<500).map { Int64($0 + 1) }, store: store)
        #expect(ids.count == 500)
        for (i, temporary) in temporaries.enumerated() {
            let permanent = ids[temporary]
            #expect(permanent?.primaryKey == Int64(i + 1))
            #expect(permanent?.entity === temporary.entity)
            #expect(permanent?.storeNumber == store)
            #expect(permanent?.isTemporaryID == false)
        }
        // A temporary ID made after the save, one made before, a permanent one.
        #expect(ids[ObjectID.temporary(for: person)] == nil)
        #expect(ids[ObjectID(entity: person, primaryKey: 1, storeIdentifier: nil)] == nil)
    }

    @Test func spreadNumbersFallBackToHashing() {
        var temporaries: [ObjectID] = []
        for _ in 0..<20 {
            temporaries.append(ObjectID.temporary(for: person))
            for _ in 0..<200 { _ = ObjectID.temporary(for: person) }   // other contexts' numbers
        }
        let ids = PermanentIDs(temporaries: temporaries, keys: (0..<20).map { Int64(100 + $0) }, store: .none)
        #expect(temporaries.enumerated().allSatisfy { ids[$1]?.primaryKey == Int64(100 + $0) })
        #expect(ids[ObjectID.temporary(for: person)] == nil)
    }

    @Test func partsOfSeveralStoresIterateInSaveOrder() {
        let first = (0..<3).map { _ in ObjectID.temporary(for: person) }
        let second = (0..<2).map { _ in ObjectID.temporary(for: department) }
        var ids = PermanentIDs(temporaries: first, keys: [7, 8, 9], store: StoreNumber("A-\(UUID().uuidString)"))
        ids.append(PermanentIDs(temporaries: second, keys: [1, 2], store: StoreNumber("B-\(UUID().uuidString)")))
        #expect(ids.map(\.temporary) == first + second)
        #expect(ids.map(\.permanent.primaryKey) == [7, 8, 9, 1, 2])
        #expect(ids[second[1]]?.storeIdentifier?.hasPrefix("B-") == true)
        #expect(ids.dictionary.count == 5)
        #expect(ids.dictionary[first[2]] == ids[first[2]])
        #expect(PermanentIDs().isEmpty && !ids.isEmpty)
    }
}

extension PermanentIDsTests {
    /// A foreign key needs the row only: the save's own row for a
    /// temporary ID it inserted, the ID's own for a permanent one, none
    /// for a temporary ID the save did not insert.
    @Test func primaryKeysAreFoundWithoutMakingIDs() {
        let temporaries = (0..<10).map { _ in ObjectID.temporary(for: person) }
        let ids = PermanentIDs(temporaries: temporaries, keys: (0..<10).map { Int64(100 + $0) }, store: StoreNumber("keys"))
        #expect(temporaries.map(ids.primaryKey(of:)) == (0..<10).map { Int64(100 + $0) })
        #expect(ids.primaryKey(of: ObjectID(entity: person, primaryKey: 7, storeIdentifier: "keys")) == 7)
        #expect(ids.primaryKey(of: ObjectID.temporary(for: person)) == nil)
    }
}

extension PermanentIDsTests {
    /// A save's inserts are in insert order when each hierarchy's rows come
    /// after those of the hierarchies their to-ones name (a person names a
    /// department): the check looks at each run of one entity, so a run of
    /// people before a department is caught wherever it starts.
    @Test func insertOrderIsCheckedRunByRun() throws {
        let model = try TestModels.people()
        let mapping = try SchemaMapping(model: model)
        func changes(_ entities: [EntityDescription]) -> StoreChanges {
            var changes = StoreChanges()
            changes.inserted = entities.map { entity in
                Snapshot(id: .temporary(for: entity), version: 1, values: entity.defaultValues, links: entity.emptySlots)
            }
            return changes
        }
        func inOrder(_ entities: [EntityDescription]) -> Bool {
            let made = changes(entities)
            return SaveOrder(made, mapping: mapping).isInInsertOrder(made.inserted)
        }
        #expect(inOrder([department, department, person, person, person]))
        #expect(inOrder([person, person]))
        #expect(!inOrder([person, person, department]))
        #expect(!inOrder([department, person, person, department, person]))
        let reordered = changes([person, department, person, department])
        let order = SaveOrder(reordered, mapping: mapping)
        let positions = order.insertOrder(reordered.inserted)
        #expect(positions == [1, 3, 0, 2])
        #expect(order.isInInsertOrder(positions.map { reordered.inserted[$0] }))
    }
}

extension PermanentIDsTests {
    /// A save across more hierarchies than a pass per rank suits (a chain
    /// of twelve entities, each naming the one before): the inserts still
    /// come parents first, rows of one entity in their order.
    @Test func insertOrderAcrossManyRanksIsParentsFirstAndStable() throws {
        let entities = (0..<12).map { EntityDescription(name: "E\($0)") }
        for (i, entity) in entities.enumerated() {
            entity.add(AttributeDescription(name: "n", type: .integer64, defaultValue: .int(0)))
            if i > 0 { entity.add(RelationshipDescription(name: "parent", destination: "E\(i - 1)")) }
        }
        let model = try ManagedObjectModel(entities: entities)
        let mapping = try SchemaMapping(model: model)
        let named = { (i: Int) in try #require(model.entity(named: "E\(i)")) }
        // Children before parents, two rounds, interleaved.
        let made = try (0..<2).flatMap { _ in try (0..<12).reversed().map(named) }
        var changes = StoreChanges()
        changes.inserted = made.map { Snapshot(id: .temporary(for: $0), version: 1, values: $0.defaultValues, links: $0.emptySlots) }
        let order = SaveOrder(changes, mapping: mapping)
        let positions = order.insertOrder(changes.inserted)
        #expect(positions.count == 24 && Set(positions).count == 24)
        #expect(order.isInInsertOrder(positions.map { changes.inserted[$0] }))
        #expect(positions.map { changes.inserted[$0].id.entity.name } == (0..<12).flatMap { ["E\($0)", "E\($0)"] })
        // Stable: each entity's two rows in their first order.
        #expect(positions == (0..<12).flatMap { [11 - $0, 23 - $0] })
    }
}
