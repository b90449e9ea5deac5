import CSQLite
import Foundation
import Synchronization

/// Every open SQLite connection, so that a running statement can be
/// stopped from another thread (the shell's Ctrl-C).
///
/// ```swift
/// StatementInterrupt.interruptAll()   // the running query fails with "interrupted"
/// ```
enum OpenConnections {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var handles: Set<OpaquePointer> = []

    static func add(_ handle: OpaquePointer) {
        lock.withLock { _ = handles.insert(handle) }
    }

    /// Called before the connection closes, so an interrupt never reaches
    /// a closed handle.
    static func remove(_ handle: OpaquePointer) {
        lock.withLock { _ = handles.remove(handle) }
    }

    /// The file each open connection reads (empty for one in memory), so
    /// tests can check a store closes all of its connections.
    static func filenames() -> [String] {
        lock.withLock {
            handles.map { sqlite3_db_filename($0, "main").map { String(cString: $0) } ?? "" }
        }
    }

    static func interruptAll() {
        lock.withLock {
            for handle in handles { sqlite3_interrupt(handle) }
        }
    }
}

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
