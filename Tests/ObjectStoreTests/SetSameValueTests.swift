import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// A set compares the new value with the slot's (numbers, booleans, dates
/// and nil where they lie, other kinds with `==`): the same value changes
/// nothing, any other value, of the same kind or not, is a change.
@Suite struct SetSameValueTests {
    static let keys = ["count", "level", "on", "at", "name", "amount"]
    static let saved: [Value] = [
        .int(7), .double(2.5), .bool(true), .date(Date(timeIntervalSinceReferenceDate: 1000)),
        .string("Ada"), .decimal(Decimal(string: "1.25")!),
    ]

    static func savedObject() throws -> (ManagedObjectContext, ManagedObject) {
        let model = try ManagedObjectModel {
            Entity("Reading") {
                Attribute("count", .integer64)
                Attribute("level", .double)
                Attribute("on", .boolean)
                Attribute("at", .date)
                Attribute("name", .string)
                Attribute("amount", .decimal)
            }
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .inMemory, at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let reading = context.insertObject(forEntityName: "Reading")
        for (key, value) in zip(keys, saved) { reading[key] = value }
        try context.save()
        return (context, reading)
    }

    @Test func settingEachSavedValueAgainChangesNothing() throws {
        let (context, reading) = try Self.savedObject()
        for (key, value) in zip(Self.keys, Self.saved) { reading[key] = value }
        #expect(!reading.hasChanges)
        #expect(!context.hasChanges)
    }

    @Test(arguments: [
        ("count", Value.int(8)), ("count", .null), ("level", .double(2.25)), ("level", .null),
        ("on", .bool(false)), ("on", .null), ("at", .date(Date(timeIntervalSinceReferenceDate: 1001))),
        ("name", .string("Ada ")), ("name", .null), ("amount", .decimal(Decimal(string: "1.5")!)),
    ])
    func settingAnotherValueIsAChange(key: String, value: Value) throws {
        let (context, reading) = try Self.savedObject()
        reading[key] = value
        #expect(reading.hasChanges)
        #expect(context.hasChanges)
        #expect(reading[key] == value)
    }

    @Test func settingAValueIntoANilSlotIsAChange() throws {
        let (context, reading) = try Self.savedObject()
        reading["count"] = .null
        try context.save()
        reading["count"] = .null
        #expect(!reading.hasChanges)
        reading["count"] = .int(0)
        #expect(reading.hasChanges)
    }
}
