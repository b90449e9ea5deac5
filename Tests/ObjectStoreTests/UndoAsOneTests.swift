import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// `undoingAsOneAction`: bulk work undone and redone in one step leaves
/// the context exactly as undoing it change by change would.
@Suite struct UndoAsOneTests {
    /// The context as a user sees it: every live object by its name, its
    /// values and relationships, whether it is inserted or updated; the
    /// deleted ones; whether anything is left to save.
    static func fingerprint(_ context: ManagedObjectContext) throws -> [String] {
        var lines: [String] = []
        for entity in ["Department", "Person", "Tag"] {
            for object in try context.fetch(FetchRequest(entityName: entity)) {
                var line = "\(object.entity.name) \(name(object))"
                for attribute in object.entity.attributes where !attribute.isTransient {
                    line += " \(attribute.name)=\(object[attribute.name])"
                }
                for relationship in object.entity.relationships {
                    if relationship.isToOne {
                        line += " \(relationship.name)->\(object.object(forKey: relationship.name).map(name) ?? "nil")"
                    } else {
                        let names = object.objects(forKey: relationship.name).map(name)
                        line += " \(relationship.name)->[\((relationship.isOrdered ? names : names.sorted()).joined(separator: ","))]"
                    }
                }
                line += object.isInserted ? " inserted" : object.isUpdated ? " updated" : ""
                lines.append(line)
            }
        }
        lines.sort()
        lines += context.deletedObjects.map { "deleted \(name($0))" }.sorted()
        lines.append("hasChanges=\(context.hasChanges)")
        return lines
    }

    static func name(_ object: ManagedObject) -> String {
        let key = ["Department": "name", "Tag": "label"][object.entity.name] ?? "firstName"
        guard case .string(let name) = object[key] else { return "?" }
        return name
    }

    /// Random changes of every kind, picked by name, so that two contexts
    /// over equal stores make the same ones.
    struct Changes {
        var random: SeededRandom
        var serial = 0

        mutating func live(_ context: ManagedObjectContext, _ entity: String) throws -> [ManagedObject] {
            try context.fetch(FetchRequest(entityName: entity)).sorted { UndoAsOneTests.name($0) < UndoAsOneTests.name($1) }
        }

        mutating func apply(_ count: Int, to context: ManagedObjectContext) throws {
            for _ in 0..<count {
                let people = try live(context, "Person")
                let departments = try live(context, "Department")
                let tags = try live(context, "Tag")
                serial += 1
                switch random.int(0...9) {
                case 0, 1:
                    let person = context.insertObject(forEntityName: random.chance(20) ? "Manager" : "Person")
                    person["firstName"] = .string("n\(serial)")
                    person["age"] = .int(Int64(random.int(0...90)))
                    if !departments.isEmpty, random.chance(70) { person.setObject(random.pick(departments), forKey: "department") }
                    if !tags.isEmpty, random.chance(40) { person.add(random.pick(tags), toKey: "tags") }
                case 2:
                    let department = context.insertObject(forEntityName: "Department")
                    department["name"] = .string("d\(serial)")
                case 3:
                    let tag = context.insertObject(forEntityName: "Tag")
                    tag["label"] = .string("t\(serial)")
                case 4 where !people.isEmpty:
                    let person = random.pick(people)
                    person["age"] = .int(Int64(random.int(0...90)))
                    if random.chance(50) { person["lastName"] = random.chance(20) ? .null : .string("l\(serial)") }
                case 5 where !people.isEmpty:
                    random.pick(people).setObject(random.chance(20) || departments.isEmpty ? nil : random.pick(departments), forKey: "department")
                case 6 where !people.isEmpty && !tags.isEmpty:
                    let person = random.pick(people), tag = random.pick(tags)
                    if random.chance(50) { person.add(tag, toKey: "tags") } else { person.remove(tag, fromKey: "tags") }
                case 7 where !people.isEmpty:
                    let managers = people.filter { $0.entity.name == "Manager" }
                    if let manager = managers.isEmpty ? nil : random.pick(managers) {
                        let report = random.pick(people)
                        let reports = manager.objects(forKey: "reports")
                        let last = reports.contains { $0 === report } ? reports.count - 1 : reports.count
                        manager.insert(report, at: random.int(0...last), inKey: "reports")
                    }
                case 8 where !departments.isEmpty:
                    random.pick(departments)["budget"] = .double(Double(random.int(0...1000)))
                case 9:
                    let all = people + departments + tags
                    if !all.isEmpty, random.chance(60) { context.delete(random.pick(all)) }
                default:
                    break
                }
            }
        }
    }

    /// Two contexts over equal stores make the same random changes, one
    /// recording each change and the other all of them as one action:
    /// undo, redo and undo again leave both the same, and as they were
    /// before; a save after the redo writes the same rows.
    @Test(arguments: 0..<40)
    func oneActionUndoesAsEveryChangeWould(seed: Int) throws {
        let each = try TestModels.seededPeople(), bulk = try TestModels.seededPeople()
        let undoEach = UndoManager(), undoBulk = UndoManager()
        each.undoManager = undoEach
        bulk.undoManager = undoBulk
        var random = SeededRandom(seed: UInt64(seed))
        let before = random.int(0...12), during = random.int(1...40)
        // Changes before the bulk ones, kept pending: the bulk work finds
        // inserted, updated and deleted objects to change again.
        var first = Changes(random: random)
        var second = first
        try first.apply(before, to: each)
        try second.apply(before, to: bulk)
        undoEach.endUndoGrouping()
        undoBulk.endUndoGrouping()
        let start = try Self.fingerprint(each)
        #expect(try Self.fingerprint(bulk) == start)

        undoEach.beginUndoGrouping()
        try first.apply(during, to: each)
        undoEach.endUndoGrouping()
        undoBulk.beginUndoGrouping()
        try bulk.undoingAsOneAction { try second.apply(during, to: bulk) }
        undoBulk.endUndoGrouping()
        let end = try Self.fingerprint(each)
        #expect(try Self.fingerprint(bulk) == end)

        #expect(undoEach.undo() && undoBulk.undo())
        #expect(try Self.fingerprint(each) == start)
        #expect(try Self.fingerprint(bulk) == start)
        #expect(undoEach.redo() && undoBulk.redo())
        #expect(try Self.fingerprint(bulk) == end)
        #expect(try Self.fingerprint(each) == end)
        #expect(undoEach.undo() && undoBulk.undo())
        #expect(try Self.fingerprint(bulk) == start)
        #expect(undoEach.redo() && undoBulk.redo())

        // A save succeeds or fails alike (a reports list may name an
        // inserted person deleted since: no inverse clears it).
        func outcome(_ context: ManagedObjectContext) -> String {
            do { try context.save(); return "saved" } catch { return "\(error)" }
        }
        #expect(outcome(each) == outcome(bulk))
        let savedEach = ManagedObjectContext(concurrencyType: .confined, coordinator: each.persistentStoreCoordinator!)
        let savedBulk = ManagedObjectContext(concurrencyType: .confined, coordinator: bulk.persistentStoreCoordinator!)
        #expect(try Self.fingerprint(savedBulk) == Self.fingerprint(savedEach))
    }

    /// An import that fails half-way inside a statement's group is reverted
    /// whole by the group, with nothing left to redo.
    @Test func aFailureHalfWayIsRevertedByTheGroup() throws {
        let context = try TestModels.seededPeople()
        let undo = UndoManager()
        context.undoManager = undo
        let start = try Self.fingerprint(context)
        struct Stop: Error {}
        let engineering = try #require(try context.fetch(FetchRequest(entityName: "Department", predicate: Predicate(format: "name == 'Engineering'"))).first)
        undo.beginUndoGrouping()
        #expect(throws: Stop.self) {
            try context.undoingAsOneAction {
                for n in 0..<500 {
                    let person = context.insertObject(forEntityName: "Person")
                    person["firstName"] = .string("n\(n)")
                    person.setObject(engineering, forKey: "department")
                }
                engineering["budget"] = .double(7)
                throw Stop()
            }
        }
        undo.endUndoGroupingAndRevert()
        #expect(try Self.fingerprint(context) == start)
        #expect(!undo.canRedo)
        #expect(!context.hasChanges)
    }

    /// The one action holds the new objects by ID only: a save lets go of
    /// them as it does without undo, instead of keeping every one
    /// registered until the undo stack is cleared.
    @Test func aSaveLetsGoOfTheNewObjects() throws {
        let context = try TestModels.seededPeople()
        context.undoManager = UndoManager()
        let registeredBefore = context.registered.count
        try context.undoingAsOneAction {
            for n in 0..<200 {
                let tag = context.insertObject(forEntityName: "Tag")
                tag["label"] = .string("t\(n)")
            }
        }
        #expect(context.registered.count == registeredBefore + 200)
        try context.save()
        #expect(context.registered.count == registeredBefore)
        let saved = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        #expect(try saved.count(for: FetchRequest(entityName: "Tag")) == 200)
    }

    /// Without an undo manager the body just runs, and records nothing.
    @Test func withoutAnUndoManagerTheBodyJustRuns() throws {
        let context = try TestModels.seededPeople()
        let result = context.undoingAsOneAction { () -> Int in
            context.insertObject(forEntityName: "Tag")["label"] = .string("x")
            return 1
        }
        #expect(result == 1)
        #expect(context.insertedObjects.count == 1)
    }

    /// A save's progress counts every object written, and throwing from it
    /// stops the save: nothing written, the changes still pending.
    @Test func saveProgressCountsAndStops() throws {
        let context = try TestModels.seededPeople()
        for n in 0..<600 {
            context.insertObject(forEntityName: "Tag")["label"] = .string("t\(n)")
        }
        struct Stop: Error {}
        var reports: [(Int, Int)] = []
        #expect(throws: Stop.self) {
            try context.save { written, total in
                reports.append((written, total))
                if written >= 512 { throw Stop() }
            }
        }
        #expect(reports.map(\.0) == [256, 512])
        #expect(reports.allSatisfy { $0.1 == 600 })
        #expect(context.insertedObjects.count == 600)
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
        #expect(try other.count(for: FetchRequest(entityName: "Tag")) == 0)
        reports = []
        try context.save { written, total in reports.append((written, total)) }
        #expect(reports.map(\.0) == [256, 512, 600])
        #expect(try other.count(for: FetchRequest(entityName: "Tag")) == 600)
    }
}
