import Foundation

/// Records inverse actions in groups, for undo and redo.
///
/// ```swift
/// context.undoManager = UndoManager()
/// person["age"] = .int(31)
/// context.undoManager?.undo()     // age is back
/// ```
///
/// Foundation's `UndoManager` does not exist on Linux; this one keeps its
/// shape. Actions registered while undoing go on the redo stack, so every
/// undo can be redone. Changes made outside an explicit group collect
/// into one group, closed by a call of `endUndoGrouping()` with no group
/// open (the shell makes one per statement) or by the next `undo()`.
public final class UndoManager {
    /// An inverse action: it undoes one change, and registers its own
    /// inverse for redo.
    public typealias Action = () -> Void

    private var undoStack: [[Action]] = []
    private var redoStack: [[Action]] = []
    private var openGroups: [[Action]] = []
    private var pending: [Action] = []
    private enum Mode { case normal, undoing, redoing }
    private var mode: Mode = .normal
    /// Drop the oldest groups beyond this many; 0 means no limit.
    public var levelsOfUndo = 0
    private var disabled = 0

    /// An undo manager with nothing recorded and no limit on undo levels.
    public init() {}

    /// Whether `undo()` has something to undo: a closed group, or changes
    /// made outside any group.
    public var canUndo: Bool { !undoStack.isEmpty || !pending.isEmpty }
    /// Whether `redo()` has something to redo. Any new change clears the
    /// redo stack.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// Whether an `undo()` is running; the changes it makes register for
    /// redo.
    public var isUndoing: Bool { mode == .undoing }
    /// Whether a `redo()` is running; the changes it makes register for
    /// undo.
    public var isRedoing: Bool { mode == .redoing }
    /// Whether `registerUndo(_:)` records actions: true unless
    /// `disableUndoRegistration()` was called more often than
    /// `enableUndoRegistration()`.
    public var isUndoRegistrationEnabled: Bool { disabled == 0 }
    /// How many groups `beginUndoGrouping()` opened and are not closed yet.
    public var groupingLevel: Int { openGroups.count }

    /// Stops recording actions until a matching
    /// `enableUndoRegistration()`; calls nest. Changes made meanwhile cannot
    /// be undone.
    public func disableUndoRegistration() { disabled += 1 }
    /// Undoes one `disableUndoRegistration()`: recording resumes when every
    /// disable has its enable.
    public func enableUndoRegistration() { disabled = Swift.max(0, disabled - 1) }

    /// Opens a group: the actions registered until the matching
    /// `endUndoGrouping()` are undone together by one `undo()`. Groups
    /// nest; an inner group becomes part of the outer one.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// person["firstName"] = .string("Ada")
    /// person["lastName"] = .string("Lovelace")
    /// undoManager.endUndoGrouping()
    /// undoManager.undo()      // both names are back
    /// ```
    public func beginUndoGrouping() {
        openGroups.append([])
    }

    /// Closes the innermost open group. With no group open, it closes the
    /// changes made since the last group into one group of their own (a
    /// statement of the shell, an event of an app).
    public func endUndoGrouping() {
        guard let group = openGroups.popLast() else {
            closePending()
            return
        }
        if openGroups.isEmpty {
            push(group)
        } else {
            openGroups[openGroups.count - 1] += group
        }
    }

    /// Closes the innermost group and undoes it at once, leaving nothing
    /// to redo: for a step that failed half-way and must leave no trace.
    ///
    /// ```swift
    /// undoManager.beginUndoGrouping()
    /// do { try applyEveryChange() ; undoManager.endUndoGrouping() }
    /// catch { undoManager.endUndoGroupingAndRevert() }
    /// ```
    public func endUndoGroupingAndRevert() {
        guard let group = openGroups.popLast() else { return }
        let saved = mode
        mode = .undoing
        openGroups.append([])
        for action in group.reversed() { action() }
        openGroups.removeLast()
        mode = saved
    }

    /// Records `action` as the inverse of a change just made.
    public func registerUndo(_ action: @escaping Action) {
        guard disabled == 0 else { return }
        switch mode {
        case .undoing, .redoing:
            openGroups[openGroups.count - 1].append(action)
        case .normal:
            if openGroups.isEmpty {
                pending.append(action)
            } else {
                openGroups[openGroups.count - 1].append(action)
            }
            redoStack.removeAll()
        }
    }

    private func closePending() {
        guard !pending.isEmpty else { return }
        push(pending)
        pending = []
    }

    private func push(_ group: [Action]) {
        guard !group.isEmpty else { return }
        switch mode {
        case .normal, .redoing: undoStack.append(group)
        case .undoing: redoStack.append(group)
        }
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo { undoStack.removeFirst() }
    }

    /// Undoes the last group. Returns false when there was nothing to undo.
    @discardableResult
    public func undo() -> Bool {
        closePending()
        guard let group = undoStack.popLast() else { return false }
        run(group, as: .undoing)
        return true
    }

    /// Redoes the last undone group.
    @discardableResult
    public func redo() -> Bool {
        guard let group = redoStack.popLast() else { return false }
        run(group, as: .redoing)
        return true
    }

    private func run(_ group: [Action], as newMode: Mode) {
        let saved = mode
        mode = newMode
        openGroups.append([])
        for action in group.reversed() { action() }
        let inverse = openGroups.removeLast()
        switch newMode {
        case .undoing: if !inverse.isEmpty { redoStack.append(inverse) }
        case .redoing: if !inverse.isEmpty { undoStack.append(inverse) }
        case .normal: break
        }
        mode = saved
    }

    /// Forgets everything recorded, for undo and redo; groups still open
    /// stay open, empty.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        pending.removeAll()
        openGroups = openGroups.map { _ in [] }
    }
}
