import Foundation
@testable import ObjectStore

/// A plain reference for `ContextModelTests`: what a store, a root context
/// with undo, two of its children and a root context of a second
/// coordinator on the same file should hold after each step, written as
/// directly as the semantics read, with no reuse of mrq's code.
///
/// Objects are items and teams, each with a unique `uid` (never reused).
/// Items have two attributes and a to-one `team`; teams a name and the
/// inverse to-many `items` (nullify both ways). Each context holds object
/// instances as mrq does: the ones with pending changes, and (in the root)
/// the ones its undo stack names; any other instance is let go of after
/// each step, so a context reads clean objects afresh from its source. A
/// held instance keeps the state it last read, as Core Data's registered
/// objects do, and so does a team's list of items once loaded.
final class ContextModel {
    enum Ctx: Int, CaseIterable, CustomStringConvertible {
        case root, childA, childB, other
        var description: String { ["root", "childA", "childB", "other"][rawValue] }
        var isChild: Bool { self == .childA || self == .childB }
    }

    enum Attr: Int, CaseIterable { case a, b, team }

    /// An object's stored properties: an item's `a`, `b` and `team` (a
    /// team's uid); a team's name in `b`.
    struct Values: Hashable, CustomStringConvertible {
        var a: Int64 = 0
        var b: String?
        var team: Int64?
        subscript(_ attr: Attr) -> Field {
            get {
                switch attr {
                case .a: return .int(a)
                case .b: return .string(b)
                case .team: return .team(team)
                }
            }
            set {
                switch newValue {
                case .int(let n): a = n
                case .string(let s): b = s
                case .team(let t): team = t
                }
            }
        }
        var description: String {
            "a=\(a) b=\(b.map { "\"\($0)\"" } ?? "nil")" + (team.map { " team=\($0)" } ?? "")
        }
    }

    enum Field: Hashable { case int(Int64), string(String?), team(Int64?) }

    /// A stored row, or what a context read of one.
    struct Row: Hashable {
        var version: Int64
        var values: Values
    }

    enum State { case clean, inserted, updated, deleted }

    /// One object instance in one context.
    final class Instance {
        let uid: Int64
        let isTeam: Bool
        var base: Row?
        var values: Values
        var state: State
        /// In the context's change set: held by it.
        var inChanged: Bool
        var isFault = false
        /// Read after its row was deleted: every value reads nil (`a` is
        /// -1 here, its uid too when a check reads it).
        var ghost = false
        /// Its ID is temporary: the object is not in the store yet.
        var temporary = false
        /// Still the context's (not dropped by a merge, a save or undo).
        var attached = true
        /// A team's items, once loaded (nil while a fault).
        var members: [Int64]?
        /// The team's items were changed here, and what they were before.
        var membersTouched = false
        var committedMembers: [Int64]?

        init(uid: Int64, isTeam: Bool, base: Row?, values: Values, state: State, inChanged: Bool) {
            self.uid = uid
            self.isTeam = isTeam
            self.base = base
            self.values = values
            self.state = state
            self.inChanged = inChanged
        }

        /// The stored properties changed since read (attributes, and the
        /// team when it differs from the one read).
        var changedFields: [Attr] {
            // No saved state to differ from: all of a new object, none of
            // a ghost.
            guard let base else { return state == .inserted ? Attr.allCases : [] }
            return Attr.allCases.filter { values[$0] != base.values[$0] }
        }

        /// The team's items differ from what it read before changing them
        /// (an undone change is none).
        var membersChanged: Bool {
            guard membersTouched else { return false }
            guard let committedMembers, let members else { return true }
            return Set(committedMembers) != Set(members)
        }

        var hasChanges: Bool {
            switch state {
            case .inserted, .deleted: return true
            case .updated: return !changedFields.isEmpty || membersChanged
            case .clean: return false
            }
        }

        func copy() -> Instance {
            let c = Instance(uid: uid, isTeam: isTeam, base: base, values: values, state: state, inChanged: inChanged)
            c.isFault = isFault
            c.ghost = ghost
            c.temporary = temporary
            c.attached = attached
            c.members = members
            c.membersTouched = membersTouched
            c.committedMembers = committedMembers
            return c
        }

        func take(_ other: Instance) {
            base = other.base
            values = other.values
            state = other.state
            inChanged = other.inChanged
            isFault = other.isFault
            ghost = other.ghost
            temporary = other.temporary
            attached = other.attached
            members = other.members
            membersTouched = other.membersTouched
            committedMembers = other.committedMembers
        }
    }

    enum UndoAction {
        case set(Instance, Attr, Field)
        case setTeam(Instance, Int64?)
        case addMember(Instance, Int64, at: Int?)
        case removeMember(Instance, Int64)
        case uninsert(Instance)
        case reinsert(Instance)
        case undelete(Instance, previous: State)
        case redelete(Instance)
        case reregister(Instance)

        var instance: Instance {
            switch self {
            case .set(let i, _, _), .setTeam(let i, _), .addMember(let i, _, _), .removeMember(let i, _), .uninsert(let i),
                 .reinsert(let i), .undelete(let i, _), .redelete(let i), .reregister(let i):
                return i
            }
        }
    }

    /// Mirrors `UndoManager`: a group per step, redo cleared by any new
    /// change.
    struct Undo {
        var undoStack: [[UndoAction]] = []
        var redoStack: [[UndoAction]] = []
        var pending: [UndoAction] = []
        var running: [UndoAction]?

        mutating func register(_ action: UndoAction) {
            if running != nil {
                running!.append(action)
            } else {
                pending.append(action)
                redoStack.removeAll()
            }
        }

        mutating func close() {
            if !pending.isEmpty { undoStack.append(pending) }
            pending = []
        }

        mutating func clear() {
            undoStack = []
            redoStack = []
            pending = []
        }

        var actions: [UndoAction] { Array((undoStack + redoStack).joined()) + pending }

        var held: Set<ObjectIdentifier> { Set(actions.map { ObjectIdentifier($0.instance) }) }
    }

    struct Context {
        var registry: [Int64: Instance] = [:]
        var policy: MergePolicy
        var autoMerge = false
        var undo: Undo?
    }

    /// What a save tells others: the saved rows and the deleted uids.
    struct Note {
        var saved: [(uid: Int64, row: Row, members: [Int64]?)]
        var deleted: [Int64]
        var isStoreSave: Bool
    }

    /// Stored rows by uid, and which uids are teams.
    var store: [Int64: Row] = [:]
    var teams: Set<Int64> = []
    /// Every uid a save ever wrote: the others are new objects, whose IDs
    /// are temporary.
    var everStored: Set<Int64> = []
    var contexts: [Context]
    /// The last store save of the root and of the other context.
    var lastNote: [Ctx: Note] = [:]

    init(policies: [MergePolicy], autoMerge: (Bool, Bool)) {
        contexts = policies.map { Context(policy: $0) }
        contexts[Ctx.root.rawValue].undo = Undo()
        contexts[Ctx.childA.rawValue].autoMerge = autoMerge.0
        contexts[Ctx.childB.rawValue].autoMerge = autoMerge.1
    }

    subscript(_ c: Ctx) -> Context {
        get { contexts[c.rawValue] }
        set { contexts[c.rawValue] = newValue }
    }

    func isTeam(_ uid: Int64) -> Bool { teams.contains(uid) }

    // MARK: - Views

    /// What `c` reads for `uid`, when a fetch of `c` finds it.
    func view(_ c: Ctx, _ uid: Int64) -> Row? {
        guard visible(c)[uid] != nil else { return nil }
        if let instance = self[c].registry[uid], !instance.isFault {
            return Row(version: instance.base?.version ?? 0, values: instance.values)
        }
        return sourceView(c, uid)
    }

    func sourceView(_ c: Ctx, _ uid: Int64) -> Row? {
        c.isChild ? view(.root, uid) : store[uid]
    }

    /// What a fetch of every object of `c` returns, by uid (items and
    /// teams alike): the source's answer with the objects `c` holds
    /// standing in for their rows, and, when `c` has changes of that
    /// entity, its inserted and updated objects too; deleted ones out.
    func visible(_ c: Ctx) -> [Int64: Values] {
        let source = c.isChild ? visible(.root) : store.mapValues(\.values)
        let registry = self[c].registry
        var result: [Int64: Values] = [:]
        for (uid, values) in source {
            if let instance = registry[uid], !instance.isFault {
                if instance.state != .deleted { result[uid] = instance.values }
            } else {
                result[uid] = values
            }
        }
        for kind in [false, true] where registry.values.contains(where: { $0.isTeam == kind && $0.inChanged && $0.hasChanges }) {
            for instance in registry.values
            where instance.isTeam == kind && instance.inChanged && (instance.state == .inserted || instance.state == .updated) {
                result[instance.ghost ? -1 : instance.uid] = instance.values
            }
        }
        return result
    }

    /// Whether `object(with:)` in `c` gives `uid` with its values (rather
    /// than an empty object, its row gone): what reading a to-one's
    /// destination shows.
    func resolves(_ c: Ctx, _ uid: Int64) -> Bool {
        if let instance = self[c].registry[uid] {
            if !instance.isFault { return true }
            return c.isChild ? parentSnapshot(uid, filling: false) != nil : store[uid] != nil
        }
        return c.isChild ? parentSnapshot(uid, filling: false) != nil : store[uid] != nil
    }

    /// The items of team `uid` as `c` reads them: its loaded list, or the
    /// source's.
    func members(_ c: Ctx, _ uid: Int64) -> [Int64] {
        if let instance = self[c].registry[uid], !instance.isFault, let members = instance.members { return members }
        return sourceMembers(c, uid)
    }

    private func sourceMembers(_ c: Ctx, _ uid: Int64) -> [Int64] {
        if c.isChild { return members(.root, uid) }
        if self[c].registry[uid]?.temporary == true { return [] }
        return storeMembers(uid)
    }

    private func storeMembers(_ uid: Int64) -> [Int64] {
        store.filter { $0.value.values.team == uid && !isTeam($0.key) }.keys.sorted()
    }

    /// What the root tells a child about `uid` (`snapshotForChild`): its
    /// own object's state, filled when a fault; nil when deleted or gone.
    func parentSnapshot(_ uid: Int64, filling: Bool = true) -> Row? {
        guard let instance = self[.root].registry[uid] else { return store[uid] }
        if instance.state == .deleted { return nil }
        if instance.isFault {
            guard let row = store[uid] else { return nil }
            if filling { fill(instance, row) }
            return row
        }
        return Row(version: instance.base?.version ?? 0, values: instance.values)
    }

    /// The pending changes of `c`: inserted, updated (with changes) and
    /// deleted uids.
    func pending(_ c: Ctx) -> (inserted: Set<Int64>, updated: Set<Int64>, deleted: Set<Int64>) {
        var result: (inserted: Set<Int64>, updated: Set<Int64>, deleted: Set<Int64>) = ([], [], [])
        for instance in self[c].registry.values where instance.inChanged && instance.hasChanges {
            let uid = instance.ghost ? -1 : instance.uid
            switch instance.state {
            case .inserted: result.inserted.insert(uid)
            case .updated: result.updated.insert(uid)
            case .deleted: result.deleted.insert(uid)
            case .clean: break
            }
        }
        return result
    }

    // MARK: - Objects

    private func fill(_ instance: Instance, _ row: Row) {
        instance.base = row
        instance.values = row.values
        instance.isFault = false
        instance.ghost = false
        instance.members = nil
    }

    /// The instance `c` uses for `uid`, as a fetch finds it; nil when `c`
    /// sees none.
    private func touch(_ c: Ctx, _ uid: Int64) -> Instance? {
        guard view(c, uid) != nil else { return nil }
        return object(c, uid)
    }

    /// `object(with:)` then a read: the instance `c` holds for `uid`
    /// (filled from its source when a fault), or a new one from the
    /// source; an empty one when the row is gone.
    private func object(_ c: Ctx, _ uid: Int64) -> Instance {
        if let instance = self[c].registry[uid] {
            if instance.isFault {
                if let row = c.isChild ? parentSnapshot(uid) : store[uid] {
                    fill(instance, row)
                } else {
                    instance.values = Values(a: -1)
                    instance.base = nil
                    instance.isFault = false
                    instance.ghost = true
                    instance.members = []
                }
            }
            return instance
        }
        let row = c.isChild ? parentSnapshot(uid) : store[uid]
        let instance = Instance(uid: uid, isTeam: isTeam(uid), base: row, values: row?.values ?? Values(a: -1), state: .clean,
                                inChanged: false)
        if row == nil {
            instance.members = []
            instance.ghost = true
        }
        instance.temporary = c.isChild && (self[.root].registry[uid]?.temporary ?? false)
        self[c].registry[uid] = instance
        return instance
    }

    /// A team's items, loaded when a fault (`toManyIDs`); a child loads
    /// through the root's object, which keeps the list when held.
    private func loadMembers(_ c: Ctx, _ team: Instance) -> [Int64] {
        if let members = team.members { return members }
        let members: [Int64]
        if c.isChild {
            members = loadMembers(.root, object(.root, team.uid))
        } else {
            members = team.temporary ? [] : storeMembers(team.uid)
        }
        team.members = members
        return members
    }

    private func touchMembers(_ c: Ctx, _ team: Instance) {
        if team.state == .clean { team.state = .updated }
        team.inChanged = true
        if team.state != .inserted, !team.membersTouched { team.committedMembers = team.members }
        team.membersTouched = true
    }

    private func primitiveAdd(_ c: Ctx, _ team: Instance, _ item: Int64, at position: Int? = nil) {
        var members = loadMembers(c, team)
        guard !members.contains(item) else { return }
        touchMembers(c, team)
        if let position { members.insert(item, at: min(position, members.count)) } else { members.append(item) }
        team.members = members
        self[c].undo?.register(.removeMember(team, item))
    }

    private func primitiveRemove(_ c: Ctx, _ team: Instance, _ item: Int64) {
        var members = loadMembers(c, team)
        guard let position = members.firstIndex(of: item) else { return }
        touchMembers(c, team)
        members.remove(at: position)
        team.members = members
        self[c].undo?.register(.addMember(team, item, at: position))
    }

    private func primitiveSetTeam(_ c: Ctx, _ item: Instance, _ team: Int64?) {
        let old = item.values.team
        guard old != team else { return }
        if item.state == .clean { item.state = .updated }
        item.inChanged = true
        item.values.team = team
        self[c].undo?.register(.setTeam(item, old))
    }

    /// `setObject(_:forKey: "team")`: the inverse follows.
    private func setTeam(_ c: Ctx, _ item: Instance, _ team: Int64?) {
        guard item.values.team != team else { return }
        if let old = item.values.team { primitiveRemove(c, object(c, old), item.uid) }
        if let team { primitiveAdd(c, object(c, team), item.uid) }
        primitiveSetTeam(c, item, team)
    }

    // MARK: - Steps (each returns false when it does not apply)

    /// A new object: made with the defaults, then given its values, each
    /// an undoable change of its own.
    func insert(_ c: Ctx, uid: Int64, team isTeam: Bool, _ values: Values) {
        if isTeam { teams.insert(uid) }
        let instance = Instance(uid: uid, isTeam: isTeam, base: nil, values: Values(), state: .inserted, inChanged: true)
        instance.temporary = true
        instance.members = isTeam ? [] : nil
        self[c].registry[uid] = instance
        self[c].undo?.register(.uninsert(instance))
        if !isTeam { set(c, instance, .a, values[.a]) }
        set(c, instance, .b, values[.b])
        collect(c)
    }

    func update(_ c: Ctx, uid: Int64, _ attr: Attr, _ value: Field) -> Bool {
        guard let instance = touch(c, uid) else { collect(c); return false }
        set(c, instance, attr, value)
        collect(c)
        return true
    }

    private func set(_ c: Ctx, _ instance: Instance, _ attr: Attr, _ value: Field) {
        let old = instance.values[attr]
        guard old != value else { return }
        instance.values[attr] = value
        if instance.state == .clean { instance.state = .updated }
        instance.inChanged = true
        self[c].undo?.register(.set(instance, attr, old))
    }

    /// Puts item `uid` in team `team` (or none); false when `c` sees no
    /// such item, or no such team.
    func setTeam(_ c: Ctx, uid: Int64, team: Int64?) -> Bool {
        guard let item = touch(c, uid), team.map({ touch(c, $0) != nil }) ?? true else { collect(c); return false }
        setTeam(c, item, team)
        collect(c)
        return true
    }

    func delete(_ c: Ctx, uid: Int64) -> Bool {
        guard let instance = touch(c, uid) else { collect(c); return false }
        delete(c, instance)
        collect(c)
        return true
    }

    private func delete(_ c: Ctx, _ instance: Instance) {
        guard instance.state != .deleted else { return }
        let previous = instance.state
        instance.state = .deleted
        instance.inChanged = true
        self[c].undo?.register(.undelete(instance, previous: previous))
        // Nullify: the other side lets go of the deleted object.
        if instance.isTeam {
            for item in loadMembers(c, instance) {
                let member = object(c, item)
                if member.values.team == instance.uid { primitiveSetTeam(c, member, nil) }
            }
        } else if let team = instance.values.team {
            primitiveRemove(c, object(c, team), instance.uid)
        }
        if previous == .inserted {
            if self[c].registry[instance.uid] === instance { self[c].registry[instance.uid] = nil }
            instance.inChanged = false
            self[c].undo?.register(.reregister(instance))
        }
    }

    func rollback(_ c: Ctx) {
        for instance in self[c].registry.values where instance.inChanged {
            if instance.state == .inserted {
                forget(c, instance)
            } else {
                instance.state = .clean
                if let base = instance.base { instance.values = base.values }
                if instance.membersTouched { instance.members = instance.committedMembers }
                instance.membersTouched = false
                instance.committedMembers = nil
            }
            instance.inChanged = false
        }
        self[c].undo?.clear()
        collect(c)
    }

    func refresh(_ c: Ctx, uid: Int64, mergeChanges: Bool) -> Bool {
        guard let instance = touch(c, uid) else { collect(c); return false }
        guard !instance.temporary else { collect(c); return true }
        if !mergeChanges || !instance.hasChanges {
            instance.inChanged = false
            instance.state = .clean
            instance.isFault = true
            instance.members = nil
            instance.membersTouched = false
            instance.committedMembers = nil
        } else if let row = c.isChild ? parentSnapshot(uid) : store[uid] {
            let local = instance.changedFields
            var values = row.values
            for attr in local { values[attr] = instance.values[attr] }
            instance.values = values
            instance.base = row
            if !instance.membersChanged {
                instance.members = nil
                instance.membersTouched = false
                instance.committedMembers = nil
            }
        }
        collect(c)
        return true
    }

    private func forget(_ c: Ctx, _ instance: Instance) {
        if self[c].registry[instance.uid] === instance { self[c].registry[instance.uid] = nil }
        instance.attached = false
        instance.inChanged = false
        instance.state = .clean
    }

    /// Fills every fault a context holds whose row it sees, and loads the
    /// items of every team it holds: what the checks' reads do.
    func afterCheck() {
        for c in Ctx.allCases {
            for uid in self[c].registry.keys.sorted() where visible(c)[uid] != nil {
                let instance = object(c, uid)
                if instance.isTeam { _ = loadMembers(c, instance) }
            }
            for (uid, instance) in self[c].registry where !instance.isTeam {
                if let team = instance.values.team, visible(c)[uid] != nil { _ = object(c, team) }
            }
            collect(c)
        }
    }

    /// Lets go of the instances nothing holds, in every context: a step
    /// in a child can make the root read objects too.
    func collect(_: Ctx? = nil) {
        for c in Ctx.allCases {
            let held = self[c].undo?.held ?? []
            for (uid, instance) in self[c].registry where !instance.inChanged && !held.contains(ObjectIdentifier(instance)) {
                self[c].registry[uid] = nil
            }
        }
    }

    func endStep(_ c: Ctx) {
        self[c].undo?.close()
    }

    // MARK: - Undo

    func undo(_ c: Ctx) -> Bool { run(c, undoing: true) }
    func redo(_ c: Ctx) -> Bool { run(c, undoing: false) }

    private func run(_ c: Ctx, undoing: Bool) -> Bool {
        guard var undo = self[c].undo else { return false }
        if undoing { undo.close() }
        guard let group = undoing ? undo.undoStack.popLast() : undo.redoStack.popLast() else { return false }
        undo.running = []
        self[c].undo = undo
        for action in group.reversed() { perform(c, action) }
        let inverse = self[c].undo!.running!
        self[c].undo!.running = nil
        if !inverse.isEmpty {
            if undoing { self[c].undo!.redoStack.append(inverse) } else { self[c].undo!.undoStack.append(inverse) }
        }
        collect(c)
        return true
    }

    private func perform(_ c: Ctx, _ action: UndoAction) {
        // Actions on an object its context dropped are skipped, but
        // `reinsert`, whose object undo itself took out.
        if case .reinsert = action {} else if !action.instance.attached { return }
        let instance = action.instance
        switch action {
        case .set(_, let attr, let value):
            if instance.isFault { _ = object(c, instance.uid) }
            set(c, instance, attr, value)
        case .setTeam(_, let team):
            if instance.isFault { _ = object(c, instance.uid) }
            // Undo relinks only objects that still exist.
            guard team.map({ stillExists(c, $0) }) ?? true else { return }
            primitiveSetTeam(c, instance, team)
        case .addMember(_, let item, let position):
            if instance.isFault { _ = object(c, instance.uid) }
            guard stillExists(c, item) else { return }
            primitiveAdd(c, instance, item, at: position)
        case .removeMember(_, let item):
            if instance.isFault { _ = object(c, instance.uid) }
            primitiveRemove(c, instance, item)
        case .uninsert:
            guard instance.state == .inserted else {
                // Saved since: the insert's undo deletes it.
                if instance.state != .deleted, self[c].registry[instance.uid] === instance { delete(c, instance) }
                return
            }
            forget(c, instance)
            self[c].undo?.register(.reinsert(instance))
        case .reinsert:
            guard !instance.attached else { return }
            instance.attached = true
            instance.state = .inserted
            instance.inChanged = true
            self[c].registry[instance.uid] = instance
            self[c].undo?.register(.uninsert(instance))
        case .undelete(_, let previous):
            guard instance.state == .deleted else { return }
            instance.state = previous
            self[c].undo?.register(.redelete(instance))
        case .redelete:
            delete(c, instance)
        case .reregister:
            self[c].registry[instance.uid] = instance
            instance.inChanged = true
        }
    }

    /// `stillExists`: `c` holds the object, or its source has its row.
    private func stillExists(_ c: Ctx, _ uid: Int64) -> Bool {
        if self[c].registry[uid] != nil { return true }
        return c.isChild ? parentSnapshot(uid, filling: false) != nil : store[uid] != nil
    }

    // MARK: - Saves

    struct Refused: Error {}

    private func saved(_ c: Ctx) -> [Instance] {
        self[c].registry.values.filter { $0.inChanged && $0.hasChanges }
    }

    /// Merges each conflicting instance of `c` with `current` by `c`'s
    /// policy; nil current: gone there, the delete wins.
    private func resolve(_ c: Ctx, _ conflicts: [(Instance, Row?)]) {
        let policy = self[c].policy
        for (instance, current) in conflicts {
            guard let current else {
                // Whatever names it here lets go of it.
                for other in self[c].registry.values where other !== instance && !other.isFault {
                    if other.values.team == instance.uid { other.values.team = nil }
                    if let members = other.members, members.contains(instance.uid) {
                        other.members = members.filter { $0 != instance.uid }
                    }
                }
                forget(c, instance)
                continue
            }
            let base = instance.base!
            if instance.state == .deleted {
                if policy == .rollback {
                    instance.state = .clean
                    instance.inChanged = false
                    instance.values = current.values
                    instance.members = nil
                    instance.membersTouched = false
                    instance.committedMembers = nil
                }
                instance.base = current
                continue
            }
            for attr in Attr.allCases {
                let mine = instance.values[attr] != base.values[attr]
                let theirs = current.values[attr] != base.values[attr]
                let takesTheirs: Bool
                switch policy {
                case .mergeByPropertyObjectTrump, .mergeOrRefuse: takesTheirs = !mine
                case .mergeByPropertyStoreTrump: takesTheirs = theirs || !mine
                case .rollback: takesTheirs = true
                case .overwrite, .error: takesTheirs = false
                }
                if takesTheirs { instance.values[attr] = current.values[attr] }
            }
            if policy == .rollback {
                // A child's push merges the list; a store save reads it again.
                if instance.membersTouched { instance.members = c.isChild ? instance.committedMembers : nil }
                instance.membersTouched = false
                instance.committedMembers = nil
            }
            instance.base = current
            if !instance.hasChanges {
                instance.state = .clean
                instance.inChanged = false
            }
        }
    }

    /// The items of a team after our changes (from `base` to `ours`)
    /// applied to `theirs`, as mrq merges a to-many.
    private static func mergeMembers(ours: [Int64], base: [Int64]?, theirs: [Int64]) -> [Int64] {
        guard let base else { return ours }
        var result: [Int64] = []
        for id in theirs where (ours.contains(id) || !base.contains(id)) && !result.contains(id) { result.append(id) }
        for id in ours where !base.contains(id) && !result.contains(id) { result.append(id) }
        return result
    }

    /// A child's save into the root; throws `Refused` (changing nothing)
    /// under `.error` when the root's state moved.
    private func push(_ c: Ctx) throws -> Note {
        var conflicts: [(Instance, Row?)] = []
        for instance in saved(c) where instance.state == .updated || instance.state == .deleted {
            let current = parentSnapshot(instance.uid)
            if let current, current.values == instance.base!.values { continue }
            conflicts.append((instance, current))
        }
        if !conflicts.isEmpty {
            if self[c].policy == .error { throw Refused() }
            resolve(c, conflicts)
        }
        for instance in saved(c) {
            switch instance.state {
            case .inserted:
                let target = self[.root].registry[instance.uid]
                    ?? Instance(uid: instance.uid, isTeam: instance.isTeam, base: nil, values: Values(), state: .inserted, inChanged: true)
                target.temporary = true
                target.state = .inserted
                target.inChanged = true
                target.values = instance.values
                if instance.isTeam {
                    target.membersTouched = true
                    target.members = instance.members ?? []
                }
                self[.root].registry[instance.uid] = target
            case .updated:
                let target = object(.root, instance.uid)
                if target.state == .clean { target.state = .updated }
                target.inChanged = true
                for attr in instance.changedFields { target.values[attr] = instance.values[attr] }
                if instance.membersChanged, let ours = instance.members {
                    let theirs = loadMembers(.root, target)
                    let merged = Self.mergeMembers(ours: ours, base: instance.committedMembers, theirs: theirs)
                    if target.state != .inserted, !target.membersTouched { target.committedMembers = target.members }
                    target.members = merged
                    target.membersTouched = true
                }
            case .deleted:
                let target = object(.root, instance.uid)
                if target.state == .inserted {
                    forget(.root, target)
                } else {
                    target.state = .deleted
                    target.inChanged = true
                }
            case .clean:
                break
            }
        }
        // The child's objects are saved.
        var note = Note(saved: [], deleted: [], isStoreSave: false)
        for instance in saved(c) {
            if instance.state == .deleted {
                note.deleted.append(instance.uid)
                forget(c, instance)
            } else {
                let version = instance.base?.version ?? 0
                instance.state = .clean
                instance.base = Row(version: version, values: instance.values)
                note.saved.append((instance.uid, instance.base!, instance.members))
            }
        }
        settle(c)
        return note
    }

    /// A root's save to the store; throws `Refused` under `.error` when a
    /// row moved.
    private func writeToStore(_ c: Ctx) throws -> Note {
        var conflicts: [(Instance, Row?)] = []
        for instance in saved(c) where instance.state == .updated || instance.state == .deleted {
            let current = store[instance.uid]
            if current?.version == instance.base!.version { continue }
            conflicts.append((instance, current))
        }
        if !conflicts.isEmpty {
            if self[c].policy == .error { throw Refused() }
            resolve(c, conflicts)
        }
        // A team named but neither stored nor inserted by this save (its
        // insert undone): a dangling reference, refused.
        let inserting = Set(saved(c).filter { $0.state == .inserted }.map(\.uid))
        for instance in saved(c) where !instance.isTeam && instance.state != .deleted && instance.changedFields.contains(.team) {
            if let team = instance.values.team, !everStored.contains(team), !inserting.contains(team) { throw Refused() }
        }
        var note = Note(saved: [], deleted: [], isStoreSave: true)
        for instance in saved(c) {
            switch instance.state {
            case .inserted, .updated:
                let version = instance.state == .inserted ? 1 : instance.base!.version + 1
                var row = Row(version: version, values: instance.values)
                if let stored = store[instance.uid] {
                    // Only what changed is written.
                    row.values = stored.values
                    for attr in instance.changedFields { row.values[attr] = instance.values[attr] }
                }
                store[instance.uid] = row
                everStored.insert(instance.uid)
                instance.base = row
                instance.temporary = false
                note.saved.append((instance.uid, row, instance.members))
                instance.state = .clean
            case .deleted:
                store[instance.uid] = nil
                note.deleted.append(instance.uid)
                forget(c, instance)
            case .clean:
                break
            }
        }
        settle(c)
        return note
    }

    /// After a save of `c`: nothing is pending there any more.
    private func settle(_ c: Ctx) {
        for instance in self[c].registry.values {
            if instance.inChanged && instance.state == .updated { instance.state = .clean }
            instance.inChanged = false
            instance.membersTouched = false
            instance.committedMembers = nil
        }
        collect(c)
    }

    /// `mergeChanges(fromContextDidSave:)`: held instances take the saved
    /// state, keeping their own changes; deleted ones leave.
    func merge(_ note: Note, into c: Ctx) {
        for (uid, row, members) in note.saved {
            guard let instance = self[c].registry[uid] else { continue }
            if note.isStoreSave, row.version < (instance.base?.version ?? 0) { continue }
            if instance.isFault { continue }
            let local = instance.changedFields
            var values = row.values
            for attr in local { values[attr] = instance.values[attr] }
            instance.values = values
            instance.base = row
            if instance.isTeam && !instance.membersChanged {
                // The saver's list when it had one; else a root reads it
                // again, a child keeps its own. Nothing is left touched.
                if let members { instance.members = members } else if !c.isChild { instance.members = nil }
                instance.membersTouched = false
                instance.committedMembers = nil
            }
            if instance.state == .updated && !instance.hasChanges {
                instance.state = .clean
                instance.inChanged = false
            }
        }
        for uid in note.deleted {
            if let instance = self[c].registry[uid] { forget(c, instance) }
        }
        collect(c)
    }

    /// A deep copy to go back to when a save fails.
    private func checkpoint() -> (store: [Int64: Row], contexts: [Context], instances: [(Instance, Instance)]) {
        var copies: [(Instance, Instance)] = []
        var seen: Set<ObjectIdentifier> = []
        for context in contexts {
            for instance in Array(context.registry.values) + (context.undo?.actions.map(\.instance) ?? [])
            where seen.insert(ObjectIdentifier(instance)).inserted {
                copies.append((instance, instance.copy()))
            }
        }
        return (store, contexts, copies)
    }

    private func restore(_ saved: (store: [Int64: Row], contexts: [Context], instances: [(Instance, Instance)])) {
        store = saved.store  // everStored only grows on success: nothing to undo
        contexts = saved.contexts
        for (instance, copy) in saved.instances { instance.take(copy) }
    }

    /// `save()` of `c`; false when refused (nothing changed).
    func save(_ c: Ctx) -> Bool {
        guard saved(c).count > 0 else { return true }
        let before = checkpoint()
        do {
            if c.isChild {
                let note = try push(c)
                childDidSave(note, from: c)
            } else {
                let note = try writeToStore(c)
                didSaveToStore(note, from: c)
            }
            return true
        } catch {
            restore(before)
            return false
        }
    }

    /// `saveUpToStore()` of a child: its push and the root's store save
    /// as one; false when refused (nothing changed anywhere).
    func saveUp(_ c: Ctx) -> Bool {
        guard c.isChild else { return save(c) }
        let before = checkpoint()
        do {
            var childNote: Note?
            if saved(c).count > 0 { childNote = try push(c) }
            var storeNote: Note?
            if saved(.root).count > 0 { storeNote = try writeToStore(.root) }
            if let childNote { childDidSave(childNote, from: c) }
            if let storeNote { didSaveToStore(storeNote, from: .root) }
            return true
        } catch {
            restore(before)
            return false
        }
    }

    private func childDidSave(_ note: Note, from c: Ctx) {
        for sibling in [Ctx.childA, .childB] where sibling != c && self[sibling].autoMerge {
            merge(note, into: sibling)
        }
    }

    private func didSaveToStore(_ note: Note, from c: Ctx) {
        lastNote[c] = note
        guard c == .root else { return }
        // The children take the permanent IDs of the new objects.
        for child in [Ctx.childA, .childB] {
            for saved in note.saved { self[child].registry[saved.uid]?.temporary = false }
        }
        for child in [Ctx.childA, .childB] where self[child].autoMerge {
            merge(note, into: child)
        }
    }
}
