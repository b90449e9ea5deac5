import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

/// Issue 16, item 3: an import sets what the data names and nothing else.
/// A key that is absent leaves an existing object's property alone, and a
/// new object keeps the model's default (MagicalRecord's
/// `testImportAttributeNotInJsonData`); `useDefaultValueWhenNotPresent`
/// still sets the default and an explicit null still sets nil. On the
/// fast path (a new object taking values silently), with an undo manager
/// (every value tracked) and with hooks alike.
@Suite(.serialized) struct ImportKeepsAbsentTests {
    /// How the import runs: the three paths through `importAttributes`.
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case silent, undo, hooked
        var testDescription: String { rawValue }
    }

    /// A `Member` with import hooks that do nothing: the hooked path.
    final class HookedMember: ManagedObject, ImportHooks {
        override class var entityName: String { "Member" }
    }

    static func model(hooked: Bool) throws -> ManagedObjectModel {
        let team = EntityDescription(name: "Team", userInfo: ["relatedByAttribute": "code"])
        team.add(AttributeDescription(name: "code", type: .string))
        team.add(AttributeDescription(name: "name", type: .string))
        team.add(AttributeDescription(name: "rank", type: .integer32, defaultValue: .int(5)))
        team.add(RelationshipDescription(name: "members", destination: "Member", inverse: "team", isToMany: true))

        let member = EntityDescription(name: "Member", userInfo: ["relatedByAttribute": "memberID"])
        member.add(AttributeDescription(name: "memberID", type: .integer64, isOptional: false, defaultValue: .int(0),
                                        userInfo: ["mappedKeyName": "id"]))
        member.add(AttributeDescription(name: "firstName", type: .string, userInfo: ["mappedKeyName": "first_name"]))
        member.add(AttributeDescription(name: "lastName", type: .string, userInfo: ["mappedKeyName": "last_name"]))
        member.add(AttributeDescription(name: "email", type: .string))
        // Required with a default: an import that leaves it out must save.
        member.add(AttributeDescription(name: "age", type: .integer16, isOptional: false, defaultValue: .int(0)))
        member.add(AttributeDescription(name: "active", type: .boolean, defaultValue: .bool(true)))
        member.add(AttributeDescription(name: "salary", type: .double, defaultValue: .double(0)))
        member.add(AttributeDescription(name: "level", type: .integer16, defaultValue: .int(3),
                                        userInfo: ["useDefaultValueWhenNotPresent": "YES"]))
        member.add(RelationshipDescription(name: "team", destination: "Team", inverse: "members"))
        let model = try ManagedObjectModel(entities: [team, member])
        if hooked { try model.register(HookedMember.self) }
        return model
    }

    /// A fresh model (the hooked class is registered per model) and a
    /// context over a store file shared by `reopen`.
    static func context(_ path: Path) throws -> ManagedObjectContext {
        let model = try model(hooked: path == .hooked)
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        if path == .undo { context.undoManager = UndoManager() }
        return context
    }

    @discardableResult
    static func importMembers(_ text: String, into context: ManagedObjectContext) throws -> [ManagedObject] {
        let entity = try #require(context.persistentStoreCoordinator?.model.entity(named: "Member"))
        return try Importer(context: context).importArray(try JSON(parsing: text), into: entity)
    }

    /// The saved values of member `id`, read by a context of its own.
    static func saved(_ id: Int64, _ context: ManagedObjectContext) throws -> [String: Value] {
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        let request = FetchRequest(entityName: "Member", predicate: try Predicate(format: "memberID == %d", .int(id)))
        let member = try #require(try fresh.fetch(request).first)
        return Dictionary(uniqueKeysWithValues: member.entity.attributes.map { ($0.name, member[$0.name]) })
    }

    @Test(arguments: Path.allCases)
    func reimportingWithFewerKeysKeepsTheOthers(path: Path) throws {
        let context = try Self.context(path)
        try Self.importMembers("""
            [{"id": 1, "first_name": "Ada", "last_name": "Lovelace", "age": 36, "email": "ada@example.com",
              "active": false, "salary": 10.5, "level": 9}]
            """, into: context)
        try context.save()
        let updated = try Self.importMembers(#"[{"id": 1, "first_name": "Anne"}]"#, into: context)
        // Only the named key (and the flagged default) changed.
        #expect(updated[0].changedValues.keys.sorted() == ["firstName", "level"])
        try context.save()
        let ada = try Self.saved(1, context)
        #expect(ada["firstName"] == .string("Anne"))
        #expect(ada["lastName"] == .string("Lovelace"))
        #expect(ada["age"] == .int(36))
        #expect(ada["email"] == .string("ada@example.com"))
        #expect(ada["active"] == .bool(false))
        #expect(ada["salary"] == .double(10.5))
        // `useDefaultValueWhenNotPresent` sets the default when absent.
        #expect(ada["level"] == .int(3))
    }

    @Test(arguments: Path.allCases)
    func aNewObjectWithoutAKeyKeepsTheModelDefaultAndSaves(path: Path) throws {
        let context = try Self.context(path)
        try Self.importMembers(#"[{"id": 2, "first_name": "Alan"}]"#, into: context)
        try context.save()
        let alan = try Self.saved(2, context)
        #expect(alan["age"] == .int(0))
        #expect(alan["active"] == .bool(true))
        #expect(alan["salary"] == .double(0))
        #expect(alan["level"] == .int(3))
        #expect(alan["email"] == .null)
    }

    @Test(arguments: Path.allCases)
    func anExplicitNullStillSetsNil(path: Path) throws {
        let context = try Self.context(path)
        try Self.importMembers(#"[{"id": 3, "email": "x@example.com", "salary": 2.5}]"#, into: context)
        try context.save()
        try Self.importMembers(#"[{"id": 3, "email": null, "salary": null}]"#, into: context)
        try context.save()
        let row = try Self.saved(3, context)
        #expect(row["email"] == .null)
        #expect(row["salary"] == .null)
    }

    @Test(arguments: Path.allCases)
    func nestedDataLeavesTheRelatedObjectsOtherKeysAlone(path: Path) throws {
        let context = try Self.context(path)
        try Self.importMembers(#"[{"id": 4, "team": {"code": "T1", "name": "Core", "rank": 1}}]"#, into: context)
        try context.save()
        // The team is named again by its code only: its name and rank stay.
        try Self.importMembers(#"[{"id": 5, "team": {"code": "T1"}}, {"id": 6, "team": "T1"}]"#, into: context)
        try context.save()
        let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        let teams = try fresh.fetch(FetchRequest(entityName: "Team"))
        #expect(teams.count == 1)
        #expect(teams.first?["name"] == .string("Core"))
        #expect(teams.first?["rank"] == .int(1))
        #expect(teams.first?.objects(forKey: "members").count == 3)
        // A new team named only by its code keeps the model's default rank.
        try Self.importMembers(#"[{"id": 7, "team": {"code": "T2"}}]"#, into: context)
        try context.save()
        let request = FetchRequest(entityName: "Team", predicate: try Predicate(format: "code == 'T2'"))
        #expect(try fresh.fetch(request).first?["rank"] == .int(5))
    }
}
