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
/// undo can be redone. Changes made outside an explicit group form one
/// group per call of `endUndoGrouping()` when `groupsByEvent` is true (the
/// shell closes one group per statement).
public final class UndoManager {
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

    public init() {}

    public var canUndo: Bool { !undoStack.isEmpty || !pending.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
    public var isUndoing: Bool { mode == .undoing }
    public var isRedoing: Bool { mode == .redoing }
    public var isUndoRegistrationEnabled: Bool { disabled == 0 }
    public var groupingLevel: Int { openGroups.count }

    public func disableUndoRegistration() { disabled += 1 }
    public func enableUndoRegistration() { disabled = Swift.max(0, disabled - 1) }

    public func beginUndoGrouping() {
        openGroups.append([])
    }

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

    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        pending.removeAll()
        openGroups = openGroups.map { _ in [] }
    }
}
