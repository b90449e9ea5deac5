import Foundation
@testable import ObjectStore

/// A plain reference for `ContextModelTests`: what a store, a root context
/// with undo, two of its children and a root context of a second
/// coordinator on the same file should hold after each step, written as
/// directly as the semantics read, with no reuse of mrq's code.
///
/// Objects are items with a unique `uid` (never reused) and two
/// attributes. Each context holds object instances as mrq does: the ones
/// with pending changes, and (in the root) the ones its undo stack names;
/// any other instance is let go of after each step, so a context reads
/// clean objects afresh from its source. A held clean instance keeps the
/// state it last read, as Core Data's registered objects do.
final class ContextModel {
    enum Ctx: Int, CaseIterable, CustomStringConvertible {
        case root, childA, childB, other
        var description: String { ["root", "childA", "childB", "other"][rawValue] }
        var isChild: Bool { self == .childA || self == .childB }
    }

    enum Attr: Int, CaseIterable { case a, b }

    /// An item's attribute values: `a` an integer, `b` an optional string.
    struct Values: Hashable, CustomStringConvertible {
        var a: Int64
        var b: String?
        subscript(_ attr: Attr) -> Field {
            get { attr == .a ? .int(a) : .string(b) }
            set {
                switch newValue {
                case .int(let n): a = n
                case .string(let s): b = s
                }
            }
        }
        var description: String { "a=\(a) b=\(b.map { "\"\($0)\"" } ?? "nil")" }
    }

    enum Field: Hashable { case int(Int64), string(String?) }

    /// A stored row, or what a context read of one.
    struct Row: Hashable {
        var version: Int64
        var values: Values
    }

    enum State { case clean, inserted, updated, deleted }

    /// One object instance in one context.
    final class Instance {
        let uid: Int64
        var base: Row?
        var values: Values
        var state: State
        /// In the context's change set: held by it.
        var inChanged: Bool
        var isFault = false
        /// Its ID is temporary: the object is not in the store yet.
        var temporary = false
        /// Still the context's (not dropped by a merge, a save or undo).
        var attached = true
        var registered = true

        init(uid: Int64, base: Row?, values: Values, state: State, inChanged: Bool) {
            self.uid = uid
            self.base = base
            self.values = values
            self.state = state
            self.inChanged = inChanged
        }

        var hasChanges: Bool {
            switch state {
            case .inserted, .deleted: return true
            case .updated: return base.map { $0.values != values } ?? true
            case .clean: return false
            }
        }
    }

    enum UndoAction {
        case set(Instance, Attr, Field)
        case uninsert(Instance)
        case reinsert(Instance)
        case undelete(Instance, previous: State)
        case redelete(Instance)
        case reregister(Instance)

        var instance: Instance {
            switch self {
            case .set(let i, _, _), .uninsert(let i), .reinsert(let i), .undelete(let i, _), .redelete(let i), .reregister(let i):
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
        var mode = 0  // 0 normal, 1 undoing, 2 redoing

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

        var held: Set<ObjectIdentifier> {
            var result: Set<ObjectIdentifier> = []
            for action in (undoStack + redoStack).joined() + pending { result.insert(ObjectIdentifier(action.instance)) }
            return result
        }
    }

    struct Context {
        var registry: [Int64: Instance] = [:]
        var policy: MergePolicy
        var autoMerge = false
        var undo: Undo?
    }

    /// What a save to the store tells others: the saved rows and the
    /// deleted uids.
    struct Note {
        var saved: [(uid: Int64, row: Row)]
        var deleted: [Int64]
        var isStoreSave: Bool
    }

    var store: [Int64: Row] = [:]
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

    // MARK: - Views

    /// What `c` reads for `uid` (values and the version it would hold),
    /// when a fetch of `c` finds it.
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

    /// What a fetch of every object of `c` returns, by uid: the source's
    /// answer (the store's rows, or what the parent's fetch returns) with
    /// the objects `c` holds standing in for their rows, and, when `c` has
    /// changes, its inserted and updated objects too; deleted ones left
    /// out.
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
        if registry.values.contains(where: { $0.inChanged && $0.hasChanges }) {
            for instance in registry.values where instance.inChanged && (instance.state == .inserted || instance.state == .updated) {
                result[instance.uid] = instance.values
            }
        }
        return result
    }

    /// What the root tells a child pushing `uid` is its current state
    /// (`snapshotForChild`): its own object's, filled when a fault; nil
    /// when deleted or gone.
    func parentSnapshot(_ uid: Int64) -> Row? {
        guard let instance = self[.root].registry[uid] else { return store[uid] }
        if instance.state == .deleted { return nil }
        if instance.isFault {
            guard let row = store[uid] else { return nil }
            instance.base = row
            instance.values = row.values
            instance.isFault = false
        }
        return Row(version: instance.base?.version ?? 0, values: instance.values)
    }

    /// The pending changes of `c`: inserted, updated (with changes) and
    /// deleted uids.
    func pending(_ c: Ctx) -> (inserted: Set<Int64>, updated: Set<Int64>, deleted: Set<Int64>) {
        var result: (inserted: Set<Int64>, updated: Set<Int64>, deleted: Set<Int64>) = ([], [], [])
        for instance in self[c].registry.values where instance.inChanged && instance.hasChanges {
            switch instance.state {
            case .inserted: result.inserted.insert(instance.uid)
            case .updated: result.updated.insert(instance.uid)
            case .deleted: result.deleted.insert(instance.uid)
            case .clean: break
            }
        }
        return result
    }

    // MARK: - Steps (each returns false when it does not apply)

    /// The instance `c` uses for `uid`, filled, as a fetch finds it; nil
    /// when `c` sees none.
    private func touch(_ c: Ctx, _ uid: Int64) -> Instance? {
        guard view(c, uid) != nil else { return nil }
        return object(c, uid)
    }

    /// `object(with:)` then a read: the instance `c` holds for `uid`
    /// (filled from its source when a fault), or a new one from the source.
    private func object(_ c: Ctx, _ uid: Int64) -> Instance? {
        if let instance = self[c].registry[uid] {
            if instance.isFault, let row = sourceView(c, uid) {
                instance.base = row
                instance.values = row.values
                instance.isFault = false
            }
            return instance
        }
        guard let row = sourceView(c, uid) else { return nil }
        let instance = Instance(uid: uid, base: row, values: row.values, state: .clean, inChanged: false)
        instance.temporary = c.isChild && (self[.root].registry[uid]?.temporary ?? false)
        self[c].registry[uid] = instance
        return instance
    }

    /// A new object: made with the defaults, then given its values, each
    /// an undoable change of its own.
    func insert(_ c: Ctx, uid: Int64, _ values: Values) {
        let instance = Instance(uid: uid, base: nil, values: Values(a: 0, b: nil), state: .inserted, inChanged: true)
        instance.temporary = true
        self[c].registry[uid] = instance
        self[c].undo?.register(.uninsert(instance))
        set(c, instance, .a, values[.a])
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
        if previous == .inserted {
            self[c].registry[instance.uid] = nil
            instance.registered = false
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
        } else if let row = sourceView(c, uid) {
            mergeKeepingLocal(instance, row)
        }
        collect(c)
        return true
    }

    /// The instance takes `row`, keeping the attributes it changed.
    private func mergeKeepingLocal(_ instance: Instance, _ row: Row) {
        var values = row.values
        if let base = instance.base {
            for attr in Attr.allCases where instance.values[attr] != base.values[attr] { values[attr] = instance.values[attr] }
        }
        instance.values = values
        instance.base = row
    }

    private func forget(_ c: Ctx, _ instance: Instance) {
        if self[c].registry[instance.uid] === instance { self[c].registry[instance.uid] = nil }
        instance.registered = false
        instance.attached = false
        instance.inChanged = false
        instance.state = .clean
    }

    /// Fills the fault `c` holds for `uid`, if any, as any read of it does.
    func fill(_ c: Ctx, _ uid: Int64) {
        guard let instance = self[c].registry[uid], instance.isFault, let row = sourceView(c, uid) else { return }
        instance.base = row
        instance.values = row.values
        instance.isFault = false
    }

    /// Fills every fault a context holds whose row it sees: what reading
    /// every object, as the checks do, does.
    func fillFaults() {
        for c in Ctx.allCases {
            for uid in Array(self[c].registry.keys) { fill(c, uid) }
        }
    }

    /// Lets go of the instances nothing holds.
    func collect(_ c: Ctx) {
        let held = self[c].undo?.held ?? []
        for (uid, instance) in self[c].registry where !instance.inChanged && !held.contains(ObjectIdentifier(instance)) {
            self[c].registry[uid] = nil
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
        switch action {
        case .set(let instance, let attr, let value):
            guard instance.attached else { return }
            if instance.isFault {
                guard let row = sourceView(c, instance.uid) else { return }
                instance.base = row
                instance.values = row.values
                instance.isFault = false
            }
            set(c, instance, attr, value)
        case .uninsert(let instance):
            guard instance.state == .inserted else {
                // Saved since: the insert's undo deletes it.
                if instance.attached, instance.state != .deleted, self[c].registry[instance.uid] === instance {
                    delete(c, instance)
                }
                return
            }
            forget(c, instance)
            self[c].undo?.register(.reinsert(instance))
        case .reinsert(let instance):
            guard !instance.attached else { return }
            instance.attached = true
            instance.registered = true
            instance.state = .inserted
            instance.inChanged = true
            self[c].registry[instance.uid] = instance
            self[c].undo?.register(.uninsert(instance))
        case .undelete(let instance, let previous):
            guard instance.attached, instance.state == .deleted else { return }
            instance.state = previous
            self[c].undo?.register(.redelete(instance))
        case .redelete(let instance):
            guard instance.attached else { return }
            delete(c, instance)
        case .reregister(let instance):
            guard instance.attached else { return }
            self[c].registry[instance.uid] = instance
            instance.registered = true
            instance.inChanged = true
        }
    }

    // MARK: - Saves

    struct Refused: Error {}

    /// The changes `c` saves: (instance, kind) in the order mrq lists them
    /// (which the model does not depend on).
    private func saved(_ c: Ctx) -> [Instance] {
        self[c].registry.values.filter { $0.inChanged && $0.hasChanges }
    }

    /// Merges each conflicting instance of `c` with `current` by `c`'s
    /// policy; nil current: gone there, the delete wins.
    private func resolve(_ c: Ctx, _ conflicts: [(Instance, Row?)]) {
        let policy = self[c].policy
        for (instance, current) in conflicts {
            guard let current else {
                forget(c, instance)
                continue
            }
            let base = instance.base!
            if instance.state == .deleted {
                if policy == .rollback {
                    instance.state = .clean
                    instance.inChanged = false
                    instance.values = current.values
                }
                instance.base = current
                continue
            }
            for attr in Attr.allCases {
                let mine = instance.values[attr] != base.values[attr]
                let theirs = current.values[attr] != base.values[attr]
                let takesTheirs: Bool
                switch policy {
                case .mergeByPropertyObjectTrump: takesTheirs = !mine
                case .mergeByPropertyStoreTrump: takesTheirs = theirs || !mine
                case .rollback: takesTheirs = true
                case .overwrite, .error: takesTheirs = false
                }
                if takesTheirs { instance.values[attr] = current.values[attr] }
            }
            instance.base = current
            if !instance.hasChanges {
                instance.state = .clean
                instance.inChanged = false
            }
        }
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
        var note = Note(saved: [], deleted: [], isStoreSave: false)
        for instance in saved(c) {
            switch instance.state {
            case .inserted:
                let target = Instance(uid: instance.uid, base: nil, values: instance.values, state: .inserted, inChanged: true)
                target.temporary = true
                self[.root].registry[instance.uid] = target
            case .updated:
                let target = object(.root, instance.uid)!
                for attr in Attr.allCases where instance.values[attr] != instance.base!.values[attr] {
                    target.values[attr] = instance.values[attr]
                }
                if target.state == .clean { target.state = .updated }
                target.inChanged = true
            case .deleted:
                if let target = object(.root, instance.uid) {
                    if target.state == .inserted {
                        forget(.root, target)
                    } else {
                        target.state = .deleted
                        target.inChanged = true
                    }
                }
            case .clean:
                break
            }
        }
        // The child's objects are saved.
        for instance in saved(c) {
            if instance.state == .deleted {
                note.deleted.append(instance.uid)
                forget(c, instance)
            } else {
                let version = instance.base?.version ?? 0
                instance.state = .clean
                instance.base = Row(version: version, values: instance.values)
                note.saved.append((instance.uid, instance.base!))
            }
        }
        for instance in self[c].registry.values { instance.inChanged = false }
        collect(c)
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
        var note = Note(saved: [], deleted: [], isStoreSave: true)
        for instance in saved(c) {
            switch instance.state {
            case .inserted:
                let row = Row(version: 1, values: instance.values)
                store[instance.uid] = row
                instance.base = row
                instance.temporary = false
                note.saved.append((instance.uid, row))
                instance.state = .clean
            case .updated:
                let row = Row(version: instance.base!.version + 1, values: instance.values)
                store[instance.uid] = row
                instance.base = row
                note.saved.append((instance.uid, row))
                instance.state = .clean
            case .deleted:
                store[instance.uid] = nil
                note.deleted.append(instance.uid)
                forget(c, instance)
            case .clean:
                break
            }
        }
        for instance in self[c].registry.values { instance.inChanged = false }
        collect(c)
        return note
    }

    /// `mergeChanges(fromContextDidSave:)`: held instances take the saved
    /// state, keeping their own changes; deleted ones leave.
    func merge(_ note: Note, into c: Ctx) {
        for (uid, row) in note.saved {
            guard let instance = self[c].registry[uid] else { continue }
            if note.isStoreSave, row.version < (instance.base?.version ?? 0) { continue }
            if instance.isFault { continue }
            mergeKeepingLocal(instance, row)
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

    /// A copy to go back to when a save fails.
    private func checkpoint() -> (store: [Int64: Row], contexts: [Context], instances: [(Instance, Instance)]) {
        // Instances are classes: copy their fields.
        var copies: [(Instance, Instance)] = []
        var seen: Set<ObjectIdentifier> = []
        func copy(_ instance: Instance) {
            guard seen.insert(ObjectIdentifier(instance)).inserted else { return }
            let c = Instance(uid: instance.uid, base: instance.base, values: instance.values, state: instance.state,
                             inChanged: instance.inChanged)
            c.isFault = instance.isFault
            c.temporary = instance.temporary
            c.attached = instance.attached
            c.registered = instance.registered
            copies.append((instance, c))
        }
        for context in contexts {
            for instance in context.registry.values { copy(instance) }
            if let undo = context.undo {
                for action in (undo.undoStack + undo.redoStack).joined() + undo.pending { copy(action.instance) }
            }
        }
        return (store, contexts, copies)
    }

    private func restore(_ saved: (store: [Int64: Row], contexts: [Context], instances: [(Instance, Instance)])) {
        store = saved.store
        contexts = saved.contexts
        for (instance, copy) in saved.instances {
            instance.base = copy.base
            instance.values = copy.values
            instance.state = copy.state
            instance.inChanged = copy.inChanged
            instance.isFault = copy.isFault
            instance.temporary = copy.temporary
            instance.attached = copy.attached
            instance.registered = copy.registered
        }
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
            for (uid, _) in note.saved { self[child].registry[uid]?.temporary = false }
        }
        for child in [Ctx.childA, .childB] where self[child].autoMerge {
            merge(note, into: child)
        }
    }
}
