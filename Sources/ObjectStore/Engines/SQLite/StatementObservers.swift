import Synchronization

/// Who watches the statements a store's connections run, for the tests
/// that check `explain` against what runs: each observer is told the SQL
/// text of every statement as it starts running (after a statement
/// cache, so a statement run twice is told twice), with its parameters
/// as written, not their values.
///
/// ```swift
/// StatementObservers.observe(path) { sql in seen.append(sql) }
/// defer { StatementObservers.stop(path) }
/// ```
///
/// A connection is watched only when an observer was registered before it
/// opened: otherwise it pays nothing.
package enum StatementObservers {
    private static let observers = Mutex<[String: @Sendable (String) -> Void]>([:])
    private static let count = Atomic<Int>(0)

    /// Whether any observer is registered.
    package static var isActive: Bool { count.load(ordering: .relaxed) > 0 }

    /// Tells `observer` each statement run on the store at `key` (a
    /// SQLite file's path, a PostgreSQL database's name).
    package static func observe(_ key: String, _ observer: @escaping @Sendable (String) -> Void) {
        observers.withLock { $0[key] = observer }
        count.add(1, ordering: .relaxed)
    }

    /// Stops telling the observer of `key`.
    package static func stop(_ key: String) {
        let removed = observers.withLock { $0.removeValue(forKey: key) != nil }
        if removed { count.subtract(1, ordering: .relaxed) }
    }

    /// Tells the observer of `key`, if there is one, that `sql` runs.
    package static func notify(_ key: String, sql: String) {
        guard isActive, let observer = observers.withLock({ $0[key] }) else { return }
        observer(sql)
    }
}
