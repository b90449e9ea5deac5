import Synchronization

/// Stops the statements running on every open store connection; they fail
/// with a `StoreError` saying "interrupted". Safe to call from any thread.
public enum StatementInterrupt {
    private static let cancelled = Atomic<Bool>(false)

    /// Interrupts every statement running now on any open connection, and
    /// marks the interrupt so that long loops between statements stop too;
    /// call `reset()` before running new work.
    public static func interruptAll() {
        cancelled.store(true, ordering: .relaxed)
        OpenConnections.interruptAll()
    }

    /// Clears an interrupt before a new statement starts.
    public static func reset() {
        cancelled.store(false, ordering: .relaxed)
    }

    /// Throws when an interrupt came: long loops in memory (predicates SQL
    /// cannot run) call this between objects.
    public static func check() throws {
        if cancelled.load(ordering: .relaxed) {
            throw StoreError(.interrupted, "interrupted")
        }
    }
}
