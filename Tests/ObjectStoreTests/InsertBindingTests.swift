import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// A save's INSERT binds every string without SQLite copying it: a long
/// string where it lies, a short one (≤ 16 bytes) from a room per column
/// that the next row writes over (`Statement.bindInPlace`). Each row must
/// store its own strings, in the right columns, whatever their lengths.
@Suite struct InsertBindingTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Note") {
                Attribute("position", .integer64, default: .int(0))
                Attribute("a", .string)
                Attribute("b", .string)
                Attribute("c", .string)
                Attribute("flag", .boolean, default: .bool(true))
            }
        }
    }

    /// Lengths around the room's size and the small-string limit, empty
    /// and non-ASCII strings, and nil among them.
    static let texts: [String?] = [
        "", "x", "short", "fifteen bytes!!", "sixteen bytes!!!", "seventeen bytes!!",
        "é", "ééééééé", "éééééééé", "a string well past the small-string limit", nil,
    ]

    @Test func everyRowStoresItsOwnStringsWhateverTheirLength() throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path))
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let texts = Self.texts
        // Each row's columns take different texts, and consecutive rows
        // differ in every column: a binding left over from the row before,
        // or a room shared by two columns, would show.
        func expected(_ row: Int) -> [String?] {
            [texts[row % texts.count], texts[(row + 3) % texts.count], texts[(row + 7) % texts.count]]
        }
        let rows = texts.count * 3
        for row in 0..<rows {
            let note = context.insertObject(forEntityName: "Note")
            note["position"] = .int(Int64(row))
            for (key, text) in zip(["a", "b", "c"], expected(row)) {
                note[key] = text.map(Value.string) ?? .null
            }
        }
        try context.save()

        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: PersistentStoreCoordinator(model: try Self.model()))
        try reader.persistentStoreCoordinator!.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path))
        var request = FetchRequest(entityName: "Note")
        request.sortDescriptors = [SortKey(keyPath: ["position"], ascending: true)]
        let notes = try reader.fetch(request)
        #expect(notes.count == rows)
        for (row, note) in notes.enumerated() {
            #expect(note["position"] == .int(Int64(row)))
            for (key, text) in zip(["a", "b", "c"], expected(row)) {
                #expect(note[key] == (text.map(Value.string) ?? .null), "row \(row), \(key)")
            }
            #expect(note["flag"] == .bool(true))
        }
    }

    /// Numbers, booleans and dates are bound straight from the row's
    /// slots, the other kinds through `bind(_:at:)`: each row stores its
    /// own values of every kind, nil among them.
    @Test func everyRowStoresItsOwnValuesOfEveryKind() throws {
        let model = try ManagedObjectModel {
            Entity("Reading") {
                Attribute("position", .integer64, default: .int(0))
                Attribute("count", .integer32)
                Attribute("level", .double)
                Attribute("on", .boolean)
                Attribute("at", .date)
                Attribute("amount", .decimal)
                Attribute("tag", .uuid)
                Attribute("blob", .binary)
            }
        }
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path))
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let keys = ["count", "level", "on", "at", "amount", "tag", "blob"]
        // Every third row leaves one column nil, a different one each time.
        func expected(_ row: Int) -> [Value] {
            var values: [Value] = [
                .int(Int64(row * 7 - 20)), .double(Double(row) * 1.5 - 3), .bool(row % 2 == 0),
                .date(Date(timeIntervalSinceReferenceDate: Double(row) * 86_400.5)),
                .decimal(Decimal(row) + Decimal(string: "0.25")!),
                .uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", row))!),
                .data(Data([UInt8(row), UInt8(row &* 3 & 0xff)])),
            ]
            if row % 3 == 0 { values[(row / 3) % values.count] = .null }
            return values
        }
        let rows = 30
        for row in 0..<rows {
            let reading = context.insertObject(forEntityName: "Reading")
            reading["position"] = .int(Int64(row))
            for (key, value) in zip(keys, expected(row)) { reading[key] = value }
        }
        try context.save()

        let reader = ManagedObjectContext(concurrencyType: .confined, coordinator: PersistentStoreCoordinator(model: model))
        try reader.persistentStoreCoordinator!.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path))
        var request = FetchRequest(entityName: "Reading")
        request.sortDescriptors = [SortKey(keyPath: ["position"], ascending: true)]
        let readings = try reader.fetch(request)
        #expect(readings.count == rows)
        for (row, reading) in readings.enumerated() {
            #expect(reading["position"] == .int(Int64(row)))
            for (key, value) in zip(keys, expected(row)) {
                #expect(reading[key] == value, "row \(row), \(key)")
            }
        }
    }
}
