import CSQLite
import Foundation
import Synchronization

/// What SQLite was asked to do while a statement was prepared, as its
/// authorizer sees it: for the tests that check a hostile store's names
/// never make it attach a database or call a function mrq did not write.
package struct AuthorizedAction: Sendable, Equatable {
    /// The file of the connection.
    package var path: String
    /// SQLite's action code (`SQLITE_ATTACH`, `SQLITE_FUNCTION`, …).
    package var code: Int32
    /// The action's first argument: a table, a file, a pragma's name.
    package var first: String?
    /// The action's second argument: a column, a function's name.
    package var second: String?
}

/// What a connection's authorizer knows: the connection's file, and the
/// one file mrq itself may attach meanwhile (`VACUUM INTO`'s copy).
final class ConnectionGuard: @unchecked Sendable {
    let path: String
    private let attachment = Mutex<String?>(nil)

    init(path: String) { self.path = path }

    /// Whether `ATTACH` of `file` is mrq's own, now.
    func allowsAttaching(_ file: String?) -> Bool {
        guard let file else { return false }
        return attachment.withLock { $0 == file }
    }

    func allowAttaching(_ file: String?) { attachment.withLock { $0 = file } }
}

extension Database {
    /// Called with every action SQLite authorizes on any connection while
    /// it is set; only the tests set it.
    package static let authorizationObserver = Mutex<(@Sendable (AuthorizedAction) -> Void)?>(nil)

    /// Closes what a store file, or a name read from it, could make SQLite
    /// do beyond the statements mrq writes: see `mrq_harden_connection`
    /// (defensive mode, an untrusted schema, no views, no extensions, no
    /// attached database), and an authorizer that refuses `ATTACH` and
    /// `DETACH` — but for the copy `copy(to:)` makes. Every connection is
    /// hardened as it opens; the guard lives as long as the connection.
    static func harden(_ handle: OpaquePointer, path: String) throws -> ConnectionGuard {
        let rc = mrq_harden_connection(handle)
        guard rc == SQLITE_OK else {
            throw StoreError(code: rc, message: "cannot configure the connection to '\(path)'", sql: nil)
        }
        let connectionGuard = ConnectionGuard(path: path)
        sqlite3_set_authorizer(handle, { context, code, first, second, _, _ in
            guard let context else { return SQLITE_DENY }
            let connectionGuard = Unmanaged<ConnectionGuard>.fromOpaque(context).takeUnretainedValue()
            let first = first.map { String(cString: $0) }
            if let observer = Database.authorizationObserver.withLock({ $0 }) {
                observer(AuthorizedAction(path: connectionGuard.path, code: code, first: first,
                                          second: second.map { String(cString: $0) }))
            }
            switch code {
            case SQLITE_ATTACH: return connectionGuard.allowsAttaching(first) ? SQLITE_OK : SQLITE_DENY
            case SQLITE_DETACH: return SQLITE_OK  // only what was attached, by VACUUM INTO itself
            default: return SQLITE_OK
            }
        }, Unmanaged.passUnretained(connectionGuard).toOpaque())
        return connectionGuard
    }

    /// Runs `body` (a `VACUUM INTO file`) with `file`, and only it,
    /// attachable.
    func attaching<T>(_ file: String, _ body: () throws -> T) throws -> T {
        sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 1)
        connectionGuard.allowAttaching(file)
        defer {
            connectionGuard.allowAttaching(nil)
            sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0)
        }
        return try body()
    }
}
