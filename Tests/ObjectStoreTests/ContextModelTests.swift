import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// Model-based random testing of contexts (issue 16, item 7): random
/// sequences of insert / update / relate / delete / save / save up to the
/// store / rollback / undo / redo / refresh / merge over a root context
/// (with undo), two of its children and a root context of a second
/// coordinator on the same file, with random merge policies, on items that
/// belong to teams. After every step the store's rows, and what every
/// context sees (attributes, each item's team, each team's items) and has
/// pending, are checked against `ContextModel`, a plain reference: nothing
/// lost, nothing resurrected, no duplicates.
///
/// 2,000 sequences in `make test`; 100,000 with `MRQ_SOAK=1`
/// (`MRQ_MODEL_SEQUENCES=n` for any other number). A failing sequence is
/// shrunk to a minimal one and printed as Swift code, for `replays`.
@Suite struct ContextModelTests {
    typealias Ctx = ContextModel.Ctx

    enum Op: Equatable, CustomStringConvertible {
        case insert(Ctx, uid: Int64, a: Int64, b: String?)
        case insertTeam(Ctx, uid: Int64, name: String?)
        /// Puts an item in a team, or in none.
        case setTeam(Ctx, uid: Int64, team: Int64?)
        case setA(Ctx, uid: Int64, Int64)
        case setB(Ctx, uid: Int64, String?)
        case delete(Ctx, uid: Int64)
        case save(Ctx)
        case saveUp(Ctx)
        case rollback(Ctx)
        case refresh(Ctx, uid: Int64, mergeChanges: Bool)
        /// Merges the other coordinator's last store save (the root's,
        /// into `.other`).
        case merge(into: Ctx)
        case undo
        case redo

        var description: String {
            func q(_ s: String?) -> String { s.map { "\"\($0)\"" } ?? "nil" }
            switch self {
            case .insert(let c, let uid, let a, let b): return ".insert(.\(c), uid: \(uid), a: \(a), b: \(q(b)))"
            case .insertTeam(let c, let uid, let name): return ".insertTeam(.\(c), uid: \(uid), name: \(q(name)))"
            case .setTeam(let c, let uid, let team): return ".setTeam(.\(c), uid: \(uid), team: \(team.map(String.init) ?? "nil"))"
            case .setA(let c, let uid, let a): return ".setA(.\(c), uid: \(uid), \(a))"
            case .setB(let c, let uid, let b): return ".setB(.\(c), uid: \(uid), \(q(b)))"
            case .delete(let c, let uid): return ".delete(.\(c), uid: \(uid))"
            case .save(let c): return ".save(.\(c))"
            case .saveUp(let c): return ".saveUp(.\(c))"
            case .rollback(let c): return ".rollback(.\(c))"
            case .refresh(let c, let uid, let merge): return ".refresh(.\(c), uid: \(uid), mergeChanges: \(merge))"
            case .merge(let c): return ".merge(into: .\(c))"
            case .undo: return ".undo"
            case .redo: return ".redo"
            }
        }
    }

    /// One run: the contexts' merge policies (root, childA, childB,
    /// other), whether the children merge their parent's saves, the steps.
    struct Sequence: CustomStringConvertible {
        var policies: [MergePolicy]
        var autoMerge: (Bool, Bool)
        var ops: [Op]
        /// The store's layout: odd seeds run on Core Data's.
        var layout: SchemaMapping.Layout = .mrq

        var description: String {
            let policies = self.policies.map { ".\($0)" }.joined(separator: ", ")
            return "Sequence(policies: [\(policies)], autoMerge: (\(autoMerge.0), \(autoMerge.1)), layout: .\(layout), ops: [\n"
                + ops.map { "    \($0)," }.joined(separator: "\n") + "\n])"
        }
    }

    static let model: ManagedObjectModel = {
        try! ManagedObjectModel {
            Entity("Item") {
                Attribute("uid", .integer64, default: .int(0))
                Attribute("a", .integer64, default: .int(0))
                Attribute("b", .string)
                ToOne("team", "Team", inverse: "items")
            }
            Entity("Team") {
                Attribute("uid", .integer64, default: .int(0))
                Attribute("b", .string)
                ToMany("items", "Item", inverse: "team")
            }
        }
    }()

    // MARK: - Running against the reference

    /// Real contexts and the reference, side by side.
    final class Harness {
        let reference: ContextModel
        let directory: URL
        let first: PersistentStoreCoordinator
        let second: PersistentStoreCoordinator
        let contexts: [ManagedObjectContext]
        let undo = UndoManager()
        var notes: [Ctx: ContextDidSaveNotification] = [:]
        private var tokens: [UUID] = []

        /// On a SQLite file, or with `postgres` on the PostgreSQL store at
        /// the URL it makes (a new one each time, in mrq's layout).
        init(_ sequence: Sequence, postgres: (() throws -> String)? = nil) throws {
            reference = ContextModel(policies: sequence.policies, autoMerge: sequence.autoMerge)
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-model-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var url = directory.appendingPathComponent("store.sqlite")
            var options = PersistentStoreOptions()
            options.layout = sequence.layout
            var type = PersistentStoreType.sqlite
            if let postgres {
                url = URL(string: try postgres())!
                (type, options.layout) = (.postgres, .mrq)
            }
            first = PersistentStoreCoordinator(model: ContextModelTests.model)
            try first.addPersistentStore(type: type, at: url, options: options)
            second = PersistentStoreCoordinator(model: ContextModelTests.model)
            try second.addPersistentStore(type: type, at: url, options: options)
            let root = ManagedObjectContext(concurrencyType: .confined, coordinator: first)
            let childA = ManagedObjectContext(concurrencyType: .confined, parent: root)
            let childB = ManagedObjectContext(concurrencyType: .confined, parent: root)
            let other = ManagedObjectContext(concurrencyType: .confined, coordinator: second)
            contexts = [root, childA, childB, other]
            for (context, policy) in zip(contexts, sequence.policies) { context.mergePolicy = policy }
            root.undoManager = undo
            childA.automaticallyMergesChangesFromParent = sequence.autoMerge.0
            childB.automaticallyMergesChangesFromParent = sequence.autoMerge.1
            for c in [Ctx.root, .other] {
                let box = NoteBox()
                tokens.append(self[c].addDidSaveObserver { note in if note.isStoreSave { box.note = note } })
                noteBoxes[c] = box
            }
        }

        final class NoteBox: @unchecked Sendable { var note: ContextDidSaveNotification? }
        private var noteBoxes: [Ctx: NoteBox] = [:]

        deinit { try? FileManager.default.removeItem(at: directory) }

        subscript(_ c: Ctx) -> ManagedObjectContext { contexts[c.rawValue] }

        private func find(_ c: Ctx, _ uid: Int64) throws -> [ManagedObject] {
            let entity = reference.isTeam(uid) ? "Team" : "Item"
            let request = FetchRequest(entityName: entity, predicate: try Predicate(format: "uid == %d", .int(uid)))
            return Array(try self[c].fetch(request))
        }

        /// Finds `uid` in `c` as the reference expects: one object when the
        /// reference sees it, none otherwise.
        private func object(_ c: Ctx, _ uid: Int64) throws -> ManagedObject? {
            let found = try find(c, uid)
            let expected = reference.view(c, uid) != nil
            guard found.count == (expected ? 1 : 0) else {
                throw Failure("\(c) finds \(found.count) objects with uid \(uid), expected \(expected ? 1 : 0)")
            }
            return found.first
        }

        struct Failure: Error, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }

        /// Runs one step on both sides.
        func run(_ op: Op) throws {
            switch op {
            case .insert(let c, let uid, let a, let b):
                let object = self[c].insertObject(forEntityName: "Item")
                // The identity the checks go by, not an undoable change.
                object.setPrimitiveValue(.int(uid), forKey: "uid")
                object["a"] = .int(a)
                object["b"] = b.map(Value.string) ?? .null
                reference.insert(c, uid: uid, team: false, .init(a: a, b: b))
            case .insertTeam(let c, let uid, let name):
                let object = self[c].insertObject(forEntityName: "Team")
                object.setPrimitiveValue(.int(uid), forKey: "uid")
                object["b"] = name.map(Value.string) ?? .null
                reference.insert(c, uid: uid, team: true, .init(b: name))
            case .setTeam(let c, let uid, let team):
                let applies = reference.view(c, uid) != nil && team.map { reference.view(c, $0) != nil } ?? true
                if applies {
                    guard let item = try self.object(c, uid) else { throw Failure("\(c) does not find item \(uid)") }
                    let destination = try team.map { team -> ManagedObject in
                        guard let object = try self.object(c, team) else { throw Failure("\(c) does not find team \(team)") }
                        return object
                    }
                    item.setObject(destination, forKey: "team")
                }
                if reference.setTeam(c, uid: uid, team: team) != applies {
                    throw Failure("\(op): the reference disagrees on whether it applies")
                }
            case .setA(let c, let uid, let a):
                let object = try self.object(c, uid)
                object?["a"] = .int(a)
                _ = reference.update(c, uid: uid, .a, .int(a))
            case .setB(let c, let uid, let b):
                let object = try self.object(c, uid)
                object?["b"] = b.map(Value.string) ?? .null
                _ = reference.update(c, uid: uid, .b, .string(b))
            case .delete(let c, let uid):
                if let object = try self.object(c, uid) { self[c].delete(object) }
                _ = reference.delete(c, uid: uid)
            case .save(let c), .saveUp(let c):
                let up: Bool
                if case .saveUp = op { up = true } else { up = false }
                let expected = up ? reference.saveUp(c) : reference.save(c)
                var saved = true
                do {
                    if up { try self[c].saveUpToStore() } else { try self[c].save() }
                } catch is MergeConflictError, is ValidationError {
                    saved = false
                }
                if saved != expected {
                    throw Failure("\(op) \(saved ? "saved" : "was refused"); the reference \(expected ? "saves" : "refuses")")
                }
            case .rollback(let c):
                self[c].rollback()
                reference.rollback(c)
            case .refresh(let c, let uid, let merge):
                if let object = try self.object(c, uid) { self[c].refresh(object, mergeChanges: merge) }
                _ = reference.refresh(c, uid: uid, mergeChanges: merge)
            case .merge(let c):
                let source: Ctx = c == .other ? .root : .other
                let note = noteBoxes[source]?.note
                if (note == nil) != (reference.lastNote[source] == nil) {
                    throw Failure("\(source) has \(note == nil ? "no" : "a") last save; the reference disagrees")
                }
                if let note, let modelNote = reference.lastNote[source] {
                    self[c].mergeChanges(fromContextDidSave: note)
                    reference.merge(modelNote, into: c)
                }
            case .undo, .redo:
                let done = op == .undo ? undo.undo() : undo.redo()
                let expected = op == .undo ? reference.undo(.root) : reference.redo(.root)
                if done != expected { throw Failure("\(op) \(done ? "ran" : "had nothing to run"); the reference disagrees") }
            }
            undo.endUndoGrouping()
            reference.endStep(.root)
        }

        /// What a check reads of one object: an item's `a`, `b` and team,
        /// a team's name (in `b`) and items. A destination whose row is
        /// gone reads as -1.
        struct Seen: Hashable, CustomStringConvertible {
            var a: Int64 = 0
            var b: String?
            var team: Int64?
            var members: [Int64]?
            var description: String {
                var text = "a=\(a) b=\(b.map { "\"\($0)\"" } ?? "nil")"
                if let team { text += " team=\(team)" }
                if let members { text += " items=\(members)" }
                return text
            }
        }

        static func uid(_ object: ManagedObject?) -> Int64 {
            guard let object, case .int(let n) = object["uid"] else { return -1 }
            return n
        }

        static func string(_ value: Value) -> String? {
            if case .string(let s) = value { return s }
            return nil
        }

        /// Compares the store and every context with the reference.
        func check() throws {
            // Names from the mapping: the store may be in either layout.
            let mapping: SchemaMapping
            let rows: (String) throws -> [[Value]]
            if let store = first.persistentStores.first as? PostgresStore {
                mapping = store.mapping
                rows = { sql in try store.withLock { try store.connection.rows(sql) } }
            } else {
                let store = first.store
                mapping = store.mapping
                rows = { sql in try store.withLock { try store.database.rows(sql) } }
            }
            let (item, team) = (ContextModelTests.model.entity(named: "Item")!, ContextModelTests.model.entity(named: "Team")!)
            func column(_ property: String, _ entity: EntityDescription) -> SQLIdentifier {
                mapping.column(for: property, of: entity)?.name ?? mapping.toOne(property, of: entity)!.foreignKey
            }
            let (items, teams) = (mapping.table(for: item), mapping.table(for: team))
            let (itemRows, teamRows) = (
                try rows("""
                    SELECT i.\(column("uid", item)), i.\(column("a", item)), i.\(column("b", item)), i.\(items.versionColumn), \
                    i.\(column("team", item)), t.\(column("uid", team)) FROM \(items.name) i \
                    LEFT JOIN \(teams.name) t ON t.\(teams.primaryKey) = i.\(column("team", item))
                    """),
                try rows("""
                    SELECT \(column("uid", team)), \(column("b", team)), \(teams.versionColumn) FROM \(teams.name)
                    """))
            var stored: [Int64: String] = [:]
            for row in itemRows {
                guard case .int(let uid) = row[0], case .int(let a) = row[1], case .int(let version) = row[3] else {
                    throw Failure("a stored item is malformed: \(row)")
                }
                var team: Int64?
                if !row[4].isNull { if case .int(let t) = row[5] { team = t } else { team = -1 } }
                if stored[uid] != nil { throw Failure("the store holds uid \(uid) twice") }
                stored[uid] = "v\(version) " + Seen(a: a, b: Self.string(row[2]), team: team).description
            }
            for row in teamRows {
                guard case .int(let uid) = row[0], case .int(let version) = row[2] else { throw Failure("a stored team is malformed: \(row)") }
                if stored[uid] != nil { throw Failure("the store holds uid \(uid) twice") }
                stored[uid] = "v\(version) " + Seen(b: Self.string(row[1])).description
            }
            var expectedStore: [Int64: String] = [:]
            for (uid, row) in reference.store {
                let team = row.values.team.map { reference.store[$0] != nil ? $0 : -1 }
                let seen = reference.isTeam(uid) ? Seen(b: row.values.b) : Seen(a: row.values.a, b: row.values.b, team: team)
                expectedStore[uid] = "v\(row.version) " + seen.description
            }
            if stored != expectedStore {
                throw Failure("the store differs:\n  store     \(Self.describe(stored))\n  reference \(Self.describe(expectedStore))")
            }
            for c in Ctx.allCases {
                let context = self[c]
                var seen: [Int64: Seen] = [:]
                let items = try context.fetch(FetchRequest(entityName: "Item"))
                let teams = try context.fetch(FetchRequest(entityName: "Team"))
                for object in items {
                    // A row deleted elsewhere reads as nil (see `ghost`).
                    let uid = Self.uid(object)
                    var a: Int64 = -1
                    if case .int(let n) = object["a"] { a = n }
                    if seen[uid] != nil { throw Failure("\(c) sees uid \(uid) twice") }
                    let team = object.object(forKey: "team").map { Self.uid($0) }
                    seen[uid] = Seen(a: a, b: Self.string(object["b"]), team: team)
                }
                for object in teams {
                    let uid = Self.uid(object)
                    if seen[uid] != nil { throw Failure("\(c) sees uid \(uid) twice") }
                    seen[uid] = Seen(b: Self.string(object["b"]), members: object.objects(forKey: "items").map(Self.uid).sorted())
                }
                var expected: [Int64: Seen] = [:]
                for (uid, values) in reference.visible(c) {
                    if reference.isTeam(uid) {
                        let members = reference.members(c, uid).map { reference.resolves(c, $0) ? $0 : -1 }.sorted()
                        expected[uid] = Seen(b: values.b, members: members)
                    } else {
                        // A to-one whose row is gone reads as nil (a
                        // to-many's member as an empty object, -1).
                        let team = values.team.flatMap { reference.resolves(c, $0) ? $0 : nil }
                        expected[uid] = Seen(a: values.a, b: values.b, team: team)
                    }
                }
                if seen != expected {
                    throw Failure("\(c) sees:\n  context   \(Self.describe(seen))\n  reference \(Self.describe(expected))")
                }
                func uids(_ objects: [ManagedObject]) -> Set<Int64> { Set(objects.map(Self.uid)) }
                let pending = reference.pending(c)
                let actual = (uids(context.insertedObjects), uids(context.updatedObjects), uids(context.deletedObjects))
                if actual.0 != pending.inserted || actual.1 != pending.updated || actual.2 != pending.deleted {
                    throw Failure("\(c) has pending inserted \(actual.0.sorted()), updated \(actual.1.sorted()), deleted \(actual.2.sorted()); "
                                  + "the reference \(pending.inserted.sorted()), \(pending.updated.sorted()), \(pending.deleted.sorted())")
                }
                if context.hasChanges != !(pending.inserted.isEmpty && pending.updated.isEmpty && pending.deleted.isEmpty) {
                    throw Failure("\(c).hasChanges is \(context.hasChanges); the reference disagrees")
                }
            }
            reference.afterCheck()
        }

        static func describe<V>(_ rows: [Int64: V]) -> String {
            rows.keys.sorted().map { "\($0): \(rows[$0]!)" }.joined(separator: ", ")
        }
    }

    /// Runs `sequence`; nil when every step agreed with the reference,
    /// else the failing step and what differed.
    static func failure(of sequence: Sequence, postgres: (() throws -> String)? = nil) -> (step: Int, message: String)? {
        do {
            let harness = try Harness(sequence, postgres: postgres)
            for (n, op) in sequence.ops.enumerated() {
                do {
                    try harness.run(op)
                    try harness.check()
                } catch {
                    return (n, "\(error)")
                }
            }
            return nil
        } catch {
            return (-1, "setting up: \(error)")
        }
    }

    /// The shortest sequence found that still fails: chunks of steps and
    /// then single steps are left out while it keeps failing.
    static func shrink(_ sequence: Sequence, postgres: (() throws -> String)? = nil) -> Sequence {
        var current = sequence
        if let (step, _) = failure(of: current, postgres: postgres), step >= 0 { current.ops = Array(current.ops[...step]) }
        var chunk = max(1, current.ops.count / 2)
        while true {
            var removed = false
            var start = 0
            while start < current.ops.count {
                var candidate = current
                candidate.ops.removeSubrange(start..<min(start + chunk, candidate.ops.count))
                if failure(of: candidate, postgres: postgres) != nil {
                    current = candidate
                    removed = true
                } else {
                    start += chunk
                }
            }
            if chunk == 1 && !removed { break }
            chunk = max(1, chunk / 2)
        }
        return current
    }

    // MARK: - Generating

    static func sequence(seed: UInt64, steps: Int = 24) -> Sequence {
        var random = SplitMix64(seed: seed)
        let policies: [MergePolicy] = [.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]
        var sequence = Sequence(policies: (0..<4).map { _ in policies.randomElement(using: &random)! },
                                autoMerge: (Bool.random(using: &random), Bool.random(using: &random)), ops: [],
                                layout: seed % 2 == 1 ? .coreData : .mrq)
        var nextUID: Int64 = 1
        var items: [Int64] = []
        var teams: [Int64] = []
        func pick(_ uids: [Int64]) -> Int64? {
            guard !uids.isEmpty else { return nil }
            // Mostly recent objects: more of them are still alive.
            let start = Bool.random(using: &random) ? max(0, uids.count - 3) : 0
            return uids[Int.random(in: start..<uids.count, using: &random)]
        }
        func b() -> String? { [nil, "x", "y"].randomElement(using: &random)! }
        while sequence.ops.count < steps {
            let c = Ctx.allCases.randomElement(using: &random)!
            var op: Op?
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<10:
                op = .insert(c, uid: nextUID, a: Int64.random(in: 0...3, using: &random), b: b())
                items.append(nextUID)
                nextUID += 1
            case 10..<14:
                op = .insertTeam(c, uid: nextUID, name: b())
                teams.append(nextUID)
                nextUID += 1
            case 14..<26: op = pick(items).map { .setA(c, uid: $0, Int64.random(in: 0...3, using: &random)) }
            case 26..<34: op = pick(items + teams).map { .setB(c, uid: $0, b()) }
            case 34..<44:
                op = pick(items).map { .setTeam(c, uid: $0, team: Int.random(in: 0..<4, using: &random) == 0 ? nil : pick(teams)) }
            case 44..<52: op = pick(items + teams).map { .delete(c, uid: $0) }
            case 52..<63: op = .save(c)
            case 63..<71: op = .saveUp(c)
            case 71..<74: op = .rollback(c)
            case 74..<80: op = pick(items + teams).map { .refresh(c, uid: $0, mergeChanges: Bool.random(using: &random)) }
            case 80..<87: op = .merge(into: c)
            case 87..<95: op = .undo
            default: op = .redo
            }
            if let op { sequence.ops.append(op) }
        }
        return sequence
    }

    static var sequenceCount: Int {
        let environment = ProcessInfo.processInfo.environment
        if let n = environment["MRQ_MODEL_SEQUENCES"].flatMap(Int.init) { return n }
        return environment["MRQ_SOAK"] == "1" ? 100_000 : 2_000
    }

    static let shards = 8

    /// The random sequences, in shards that run in parallel. Each shard's
    /// seeds are fixed (shard + n × shards), so a run is reproducible; set
    /// `MRQ_MODEL_SEED` to try other ones.
    @Test(arguments: 0..<shards)
    func randomSequencesAgreeWithTheReference(shard: Int) throws {
        let base = ProcessInfo.processInfo.environment["MRQ_MODEL_SEED"].flatMap(UInt64.init) ?? 0
        var n = shard
        var steps = 0
        while n < Self.sequenceCount {
            let seed = base &+ UInt64(n)
            let sequence = Self.sequence(seed: seed)
            if let (step, message) = Self.failure(of: sequence) {
                let shrunk = Self.shrink(sequence)
                let shrunkFailure = Self.failure(of: shrunk)
                Issue.record("""
                    sequence with seed \(seed) fails at step \(step) (\(sequence.ops[max(0, step)])): \(message)
                    shrunk to \(shrunk.ops.count) steps, failing with: \(shrunkFailure?.message ?? "?")
                    \(shrunk)
                    """)
                return
            }
            steps += sequence.ops.count
            n += Self.shards
        }
        #expect(steps > 0 || shard >= Self.sequenceCount)
    }

    /// Failures the random runs found, shrunk: each must now pass.
    static let regressions: [Sequence] = [
        // Undoing an insert after its save changed the saved row's values
        // back to the defaults and left the object: it now deletes it.
        Sequence(policies: [.rollback, .mergeByPropertyStoreTrump, .error, .rollback], autoMerge: (true, false), ops: [
            .insert(.root, uid: 2, a: 3, b: "x"),
            .save(.root),
            .undo,
        ]),
        // A save deleting the highest row and inserting another gave the
        // new row the deleted one's key: a child still holding the deleted
        // object then hid the new one.
        Sequence(policies: [.rollback, .overwrite, .rollback, .mergeByPropertyObjectTrump], autoMerge: (false, true), ops: [
            .insert(.root, uid: 1, a: 3, b: nil),
            .save(.root),
            .insert(.root, uid: 2, a: 1, b: nil),
            .delete(.childA, uid: 1),
            .save(.childA),
            .delete(.childB, uid: 2),
            .save(.root),
        ]),
        // The same through undo: the other coordinator's pending update of
        // the deleted row's key stood in for the new row.
        Sequence(policies: [.overwrite, .overwrite, .mergeByPropertyStoreTrump, .rollback], autoMerge: (true, false), ops: [
            .insert(.root, uid: 1, a: 0, b: "y"),
            .save(.root),
            .undo,
            .setB(.other, uid: 1, "x"),
            .insert(.root, uid: 3, a: 3, b: "x"),
            .save(.root),
        ]),
        Sequence(policies: [.overwrite, .error, .overwrite, .error], autoMerge: (false, false), ops: [
            .insert(.root, uid: 1, a: 3, b: "x"),
            .insert(.childB, uid: 2, a: 3, b: "x"),
            .delete(.childA, uid: 1),
            .save(.root),
            .undo,
            .saveUp(.childB),
        ]),
        // After the root saved a new team, a child's read of an item still
        // named the team by its temporary ID: pushing the item then saw a
        // change that was only the rename, and `.error` refused it.
        Sequence(policies: [.overwrite, .error, .mergeByPropertyObjectTrump, .mergeByPropertyObjectTrump], autoMerge: (false, false), ops: [
            .insertTeam(.childA, uid: 1, name: "y"),
            .insert(.childA, uid: 2, a: 1, b: "y"),
            .save(.childA),
            .setTeam(.root, uid: 2, team: 1),
            .setA(.childA, uid: 2, 2),
            .save(.root),
            .save(.childA),
        ]),
        // Undo of a relationship change named the new item by its
        // temporary ID: after the save it matched nothing, and the team
        // kept the item.
        Sequence(policies: [.overwrite, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite], autoMerge: (false, true), ops: [
            .insert(.root, uid: 1, a: 1, b: nil),
            .insertTeam(.other, uid: 2, name: "x"),
            .save(.other),
            .setTeam(.root, uid: 1, team: 2),
            .save(.root),
            .undo,
        ]),
        // A new item undo had taken out kept its team's temporary ID
        // through the team's save: brought back, it named no team.
        Sequence(policies: [.overwrite, .overwrite, .rollback, .mergeByPropertyObjectTrump], autoMerge: (false, true), ops: [
            .insertTeam(.root, uid: 1, name: nil),
            .insert(.root, uid: 2, a: 0, b: "y"),
            .setTeam(.childA, uid: 2, team: 1),
            .delete(.root, uid: 2),
            .undo,
            .save(.childA),
            .redo,
            .saveUp(.childB),
            .undo,
        ]),
        // A team whose item change was undone stayed "updated", with its
        // relationship marked touched, through the save: a later undo and
        // redo brought that stale state back as a change to save.
        Sequence(policies: [.mergeByPropertyObjectTrump, .error, .overwrite, .error], autoMerge: (true, true), ops: [
            .insert(.childA, uid: 1, a: 0, b: "y"),
            .insertTeam(.root, uid: 2, name: nil),
            .saveUp(.childB),
            .save(.childA),
            .setTeam(.root, uid: 1, team: 2),
            .undo,
            .saveUp(.root),
            .undo,
            .redo,
        ]),
        // refresh(mergeChanges: false) left an object whose delete was
        // undone in the change set, which kept serving its old values.
        Sequence(policies: [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .mergeByPropertyStoreTrump, .overwrite], autoMerge: (true, false), ops: [
            .insert(.childB, uid: 1, a: 3, b: "y"),
            .saveUp(.childB),
            .delete(.root, uid: 1),
            .undo,
            .setB(.other, uid: 1, nil),
            .refresh(.root, uid: 1, mergeChanges: false),
            .insertTeam(.root, uid: 3, name: "y"),
            .save(.other),
        ]),
        // An item pushed with a team whose insert the root then undid was
        // saved with a foreign key naming nothing: now refused.
        Sequence(policies: [.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback], autoMerge: (false, true), ops: [
            .insert(.childB, uid: 1, a: 0, b: "x"),
            .insertTeam(.root, uid: 2, name: "x"),
            .setB(.childA, uid: 2, nil),
            .setTeam(.childB, uid: 1, team: 2),
            .save(.childB),
            .undo,
            .save(.root),
        ]),
        // A team whose items were touched but left as they were kept the
        // mark through a merge that reread its items: whether it counted as
        // changed then depended on whether anyone read them again.
        Sequence(policies: [.mergeByPropertyStoreTrump, .error, .mergeByPropertyStoreTrump, .error], autoMerge: (false, true), ops: [
            .insertTeam(.childA, uid: 1, name: "x"),
            .insert(.root, uid: 2, a: 2, b: nil),
            .saveUp(.childA),
            .setB(.childB, uid: 1, nil),
            .setTeam(.other, uid: 2, team: 1),
            .saveUp(.childB),
            .setTeam(.other, uid: 2, team: nil),
            .merge(into: .other),
        ]),
    ]

    @Test(arguments: regressions.indices)
    func replays(_ index: Int) {
        let sequence = Self.regressions[index]
        if let (step, message) = Self.failure(of: sequence) {
            Issue.record("step \(step) (\(sequence.ops[max(0, step)])): \(message)")
        }
    }
}
