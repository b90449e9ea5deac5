import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

/// An object's `awakeFromInsert` is the user's code, run while an import
/// makes the object: it may import again through the same importer, which
/// adds to the very key index the outer import is making the object for.
/// The index must come out whole: each key found again, no key made twice.
@Suite(.serialized) struct ImportReentrancyTests {
    final class Echoing: ManagedObject {
        override class var entityName: String { "Member" }
        /// The importer the test runs, imported into again on awaking.
        nonisolated(unsafe) static var importer: Importer?
        nonisolated(unsafe) static var nesting = false
        nonisolated(unsafe) static var rounds = 0

        override func awakeFromInsert() {
            super.awakeFromInsert()
            guard let importer = Self.importer, !Self.nesting else { return }
            Self.nesting = true
            defer { Self.nesting = false }
            Self.rounds += 1
            // 300 new keys: enough to make the index's storage grow.
            let start = 10_000 * Self.rounds
            let text = "[" + (start..<(start + 300)).map { "{\"id\": \($0)}" }.joined(separator: ",") + "]"
            _ = try? importer.importArray(try JSON(parsing: text), into: entity)
        }
    }

    @Test func anImportFromAwakeFromInsertKeepsTheOuterImportsIndexWhole() throws {
        let member = EntityDescription(name: "Member", userInfo: ["relatedByAttribute": "memberID"])
        member.add(AttributeDescription(name: "memberID", type: .integer64, userInfo: ["mappedKeyName": "id"]))
        let model = try ManagedObjectModel(entities: [member])
        try model.register(Echoing.self)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let importer = Importer(context: context)
        Echoing.importer = importer
        Echoing.rounds = 0
        defer { Echoing.importer = nil }

        // Each key twice: the second must find the first through the index.
        let ids = Array(1...20) + Array(1...20)
        let text = "[" + ids.map { "{\"id\": \($0)}" }.joined(separator: ",") + "]"
        let objects = try importer.importArray(try JSON(parsing: text), into: try #require(model.entity(named: "Member")))

        #expect(Echoing.rounds == 20)
        #expect(objects.count == 40)
        for i in 0..<20 {
            #expect(objects[i] === objects[i + 20])
            #expect(objects[i]["memberID"] == .int(Int64(i + 1)))
        }
        let keys = context.insertedObjects.map { $0["memberID"] }
        #expect(keys.count == 20 + 20 * 300)
        #expect(Set(keys).count == keys.count)
    }
}
