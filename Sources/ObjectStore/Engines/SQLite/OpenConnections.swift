import CSQLite
import Foundation

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
