import Foundation
import Predicates

extension ManagedObjectContext {
    /// Runs `body`, its changes recorded for undo as one action instead of
    /// one per change: for bulk work (an import of 200,000 objects), where
    /// the usual record costs more than the work.
    ///
    /// ```swift
    /// context.undoManager = undoManager
    /// try context.undoingAsOneAction {
    ///     try Importer(context: context).importArray(json, into: person)
    /// }
    /// undoManager.undo()      // every imported object gone, in one step
    /// undoManager.redo()      // and back
    /// ```
    ///
    /// Objects made inside `body` are undone by taking them out of the
    /// context whole, so their changes are not recorded at all. Objects
    /// that were here before are recorded as they were the first time
    /// `body` changes them; undoing puts them back so, and redoing puts
    /// back what `body` left. When `body` throws, the changes it made so
    /// far are registered all the same (an enclosing undo group can revert
    /// them), and the error is rethrown. Without an undo manager, this
    /// just runs `body`.
    ///
    /// A save makes the action moot: the store has the objects then. Clear
    /// the undo manager after a save, as the shell does, or undo before it.
    public func undoingAsOneAction<T>(_ body: () throws -> T) rethrows -> T {
        guard let undoManager, undoManager.isUndoRegistrationEnabled, bulkUndo == nil else { return try body() }
        let recording = BulkUndoRecording(self)
        bulkUndo = recording
        hearing.bornBelow = ObjectID.nextTemporaryCeiling
        defer {
            bulkUndo = nil
            hearing.bornBelow = .min
            if !recording.isEmpty {
                undoManager.registerUndo { [weak self] in self?.undo(recording) }
            }
        }
        return try body()
    }

    /// Undoes a recording: takes out the objects it made, puts back the
    /// others as they were, and registers the redo.
    private func undo(_ recording: BulkUndoRecording) {
        let objects = recording.before.objects
        let after = SaveCheckpoint(self)
        for object in objects { after.record(object) }
        var made: [ManagedObject] = []
        made.reserveCapacity(recording.made.count)
        for id in recording.made {
            guard let object = registered[id], object.state == .inserted else { continue }
            noteObjectChange(object)
            registered[id] = nil
            changed.remove(object)
            committedToMany[ObjectIdentifier(object)] = nil
            object.state = .clean
            object.setContext(nil)
            made.append(object)
        }
        recording.before.restore()
        undoManager?.registerUndo { [weak self] in self?.redo(made: made, after: after, objects: objects) }
    }

    /// Redoes what `undo(_:)` undid, registering the undo again.
    private func redo(made: [ManagedObject], after: SaveCheckpoint, objects: [ManagedObject]) {
        let recording = BulkUndoRecording(self)
        for object in objects { recording.before.record(object) }
        for object in made {
            object.setContext(self)
            object.state = .inserted
            registered[object.objectID] = object
            markChanged(object)
            recording.made.append(object.objectID)
        }
        after.restore()
        undoManager?.registerUndo { [weak self] in self?.undo(recording) }
    }
}

/// What `undoingAsOneAction` records: the objects made meanwhile, by ID
/// (holding them would keep a save from letting go of them), and the
/// others as they were before their first change.
final class BulkUndoRecording {
    var made: [ObjectID] = []
    let before: SaveCheckpoint

    init(_ context: ManagedObjectContext) {
        before = SaveCheckpoint(context)
    }

    var isEmpty: Bool { made.isEmpty && before.isEmpty }

    /// Whether `object` was made since the recording began.
    @inline(__always)
    func isMade(_ object: ManagedObject) -> Bool {
        object.objectID.primaryKey < before.context.hearing.bornBelow
    }

    /// Records `object` before a change, unless it was made meanwhile.
    @inline(__always)
    func record(_ object: ManagedObject) {
        if !isMade(object) { before.record(object) }
    }

    /// Records `object` before a change of the attribute at `index`,
    /// which was `old` (the value is set already).
    func record(_ object: ManagedObject, attribute index: Int, was old: Value) {
        guard !isMade(object) else { return }
        before.record(object, attribute: index, was: old)
    }

    /// Records an insert: the object's ID when it was made meanwhile, or
    /// the object as it was.
    func recordInsert(_ object: ManagedObject) {
        if isMade(object) { made.append(object.objectID) } else { before.record(object) }
    }
}
