import CLibPQ
import Foundation
import ObjectStore
import Predicates
#if canImport(Glibc)
import Glibc
#endif

// Changes committed by other processes, heard through PostgreSQL's
// LISTEN/NOTIFY. Each save sends, inside its own transaction (so only when
// it commits), one or more notifications on the store's channel naming the
// objects it inserted, updated and deleted; a listener on a connection of
// its own turns them into `RemoteChangeNotification`s of the coordinator.

extension PostgresStore {
    /// The channel the store's saves are announced on: one per store (its
    /// identifier), so that stores sharing a database do not hear each
    /// other.
    var notificationChannel: String { "mrq_\(identifier)" }

    /// Announces a save's changes on the store's channel, inside the
    /// save's transaction: PostgreSQL delivers them only if it commits.
    func announce(_ changes: StoreChanges, permanentIDs: PermanentIDs) throws {
        let deleted = changes.deleted.map(\.id)
        var updated = changes.updated.map(\.snapshot.id)
        // A many-to-many written through its join table changes no row of
        // its source, which is still an updated object.
        var seen = Set(updated)
        for contents in changes.toMany where !contents.source.isTemporaryID && seen.insert(contents.source).inserted {
            updated.append(contents.source)
        }
        let payloads = ChangeAnnouncement.payloads(
            sender: notificationSender, inserted: permanentIDs.map(\.permanent), updated: updated, deleted: deleted,
            code: mapping.entityCode)
        for payload in payloads {
            try connection.execute("SELECT pg_notify($1, $2)", [.string(notificationChannel), .string(payload)])
        }
    }

    /// The remote change `payloads` announce, leaving out this store's
    /// own saves (its contexts already know them); nil when nothing is
    /// left. nil `payloads` means some may have been missed.
    func remoteChange(from payloads: [String]?) -> RemoteChangeNotification? {
        guard let payloads else { return RemoteChangeNotification(storeIdentifier: identifier, invalidatesAllObjects: true) }
        var inserted: [ObjectID] = [], updated: [ObjectID] = [], deleted: [ObjectID] = []
        var invalidatesAll = false
        for payload in payloads {
            guard let decoded = ChangeAnnouncement.decode(payload) else {
                MRLog.error("ignoring a notification on \(notificationChannel) that is not mrq's: \(payload.prefix(80))")
                continue
            }
            guard decoded.sender != notificationSender else { continue }
            invalidatesAll = invalidatesAll || decoded.isTruncated
            for (kind, code, key) in decoded.objects {
                guard let name = mapping.entityNamesByCode[code], let entity = model.entity(named: name) else {
                    // Saved with another model: refresh everything.
                    invalidatesAll = true
                    continue
                }
                let id = ObjectID(entity: entity, primaryKey: key, store: storeNumber)
                switch kind {
                case .inserted: inserted.append(id)
                case .updated: updated.append(id)
                case .deleted: deleted.append(id)
                }
            }
        }
        guard invalidatesAll || !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty) else { return nil }
        return RemoteChangeNotification(storeIdentifier: identifier, inserted: inserted, updated: updated, deleted: deleted,
                                        invalidatesAllObjects: invalidatesAll)
    }

    /// Starts hearing other processes' saves on a connection of its own
    /// (the same server, database and user as the store's); `deliver`
    /// runs on the listener's thread.
    package func listenForRemoteChanges(_ deliver: @escaping @Sendable (RemoteChangeNotification) -> Void) throws -> (any RemoteChangeListener)? {
        try listen(deliver)
    }

    func listen(_ deliver: @escaping @Sendable (RemoteChangeNotification) -> Void) throws -> PostgresListener {
        try PostgresListener(connection.parameters, channel: notificationChannel) { [self] payloads in
            if let note = remoteChange(from: payloads) { deliver(note) }
        }
    }
}

/// The text of the notifications announcing one save:
/// `mrq1:SENDER i3:1,2,5 u3:7 d4:9`, a kind (inserted, updated, deleted)
/// and an entity code before each list of primary keys. A save of more
/// objects than `maximumObjects` sends `mrq1:SENDER *` instead: too many
/// to list, refetch.
enum ChangeAnnouncement {
    /// PostgreSQL refuses a payload of 8000 bytes or more.
    static let payloadLimit = 7_900
    /// Past this many objects (about ten notifications), one "refetch"
    /// costs the listeners less than the list.
    static let maximumObjects = 10_000
    static let prefix = "mrq1:"

    enum Kind: Character {
        case inserted = "i", updated = "u", deleted = "d"
    }

    struct Decoded {
        var sender: Substring
        var isTruncated = false
        var objects: [(kind: Kind, code: Int64, key: Int64)] = []
    }

    static func payloads(sender: String, inserted: [ObjectID], updated: [ObjectID], deleted: [ObjectID],
                         code: (EntityDescription) -> Int64) -> [String] {
        let header = prefix + sender
        let count = inserted.count + updated.count + deleted.count
        guard count > 0 else { return [] }
        guard count <= maximumObjects else { return [header + " *"] }
        var chunks: [String] = []
        var chunk = header
        var group = ""
        for (kind, ids) in [(Kind.inserted, inserted), (.updated, updated), (.deleted, deleted)] {
            let keyed = ids.map { (code: code($0.entity), key: $0.primaryKey) }.sorted { ($0.code, $0.key) < ($1.code, $1.key) }
            for (code, key) in keyed {
                let name = "\(kind.rawValue)\(code)"
                var piece = name == group ? ",\(key)" : " \(name):\(key)"
                if chunk.utf8.count + piece.utf8.count > payloadLimit {
                    chunks.append(chunk)
                    chunk = header
                    piece = " \(name):\(key)"
                }
                chunk += piece
                group = name
            }
        }
        chunks.append(chunk)
        return chunks
    }

    /// The parts of one payload; nil when it is not one `payloads` made.
    static func decode(_ payload: String) -> Decoded? {
        let tokens = payload.split(separator: " ")
        guard let first = tokens.first, first.hasPrefix(prefix) else { return nil }
        var decoded = Decoded(sender: first.dropFirst(prefix.count))
        for token in tokens.dropFirst() {
            if token == "*" {
                decoded.isTruncated = true
                continue
            }
            let parts = token.dropFirst().split(separator: ":")
            guard let letter = token.first, let kind = Kind(rawValue: letter), parts.count == 2,
                  let code = Int64(parts[0]) else { return nil }
            for key in parts[1].split(separator: ",") {
                guard let key = Int64(key) else { return nil }
                decoded.objects.append((kind, code, key))
            }
        }
        return decoded
    }
}

/// Hears the notifications of one channel on a connection of its own, on
/// a thread of its own that sleeps in `poll` until the server sends
/// something or `stop()` is called.
///
/// A lost connection is reconnected (every second until it is back, each
/// failure logged once); notifications sent meanwhile are lost, so the
/// first delivery after a reconnection is nil: "refetch".
final class PostgresListener: RemoteChangeListener, @unchecked Sendable {
    private let connection: PostgresConnection
    /// The channel: a name made from the store's identifier, which the
    /// database holds, so quoted like any other.
    private let channel: SQLIdentifier
    private let deliver: @Sendable ([String]?) -> Void
    /// Written once by `stop()`: wakes the thread's `poll`.
    private let wake: (read: Int32, write: Int32)
    private let stopped = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var isStopping = false
    private var thread: Thread?

    init(_ conninfo: String, channel: String, deliver: @escaping @Sendable ([String]?) -> Void) throws {
        self.channel = try SQLIdentifier(channel)
        connection = try PostgresConnection(conninfo)
        self.deliver = deliver
        try connection.execute("LISTEN \(self.channel)")
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw StoreError(.cannotOpen, "cannot listen for PostgreSQL notifications: pipe: \(String(cString: strerror(errno)))")
        }
        wake = (fds[0], fds[1])
        let thread = Thread { [self] in run() }
        thread.name = "mrq PostgreSQL listener"
        self.thread = thread
        thread.start()
    }

    /// Stops listening and waits for the thread to end (unless called on
    /// it, from a delivery: it then ends when the delivery returns).
    package func stop() {
        let first = lock.withLock {
            defer { isStopping = true }
            return !isStopping
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        if Thread.current !== lock.withLock({ thread }) { stopped.wait() }
    }

    private func run() {
        var lost = false
        var reported = false
        loop: while true {
            let socket = lost ? -1 : PQsocket(connection.handle)
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
            // While disconnected, wake every second to try again.
            let ready = poll(&fds, socket >= 0 ? 2 : 1, socket >= 0 ? -1 : 1_000)
            if ready < 0 { continue }  // EINTR
            if fds[0].revents != 0 { break loop }
            if socket >= 0 && fds[1].revents != 0 {
                if PQconsumeInput(connection.handle) == 0 || PQstatus(connection.handle) == CONNECTION_BAD {
                    lost = true
                } else {
                    var payloads: [String] = []
                    while let notice = PQnotifies(connection.handle) {
                        payloads.append(String(cString: notice.pointee.extra))
                        PQfreemem(notice)
                    }
                    if !payloads.isEmpty { deliver(payloads) }
                }
            }
            if lost {
                do {
                    // Reconnects a lost connection first.
                    try connection.execute("LISTEN \(channel)")
                    lost = false
                    reported = false
                    MRLog.log(.info, "listening for PostgreSQL notifications again (\(connection.target))")
                    deliver(nil)
                } catch {
                    if !reported { MRLog.error("lost the PostgreSQL listener's connection, retrying every second: \(error)") }
                    reported = true
                }
            }
        }
        close(wake.read)
        close(wake.write)
        lock.withLock { thread = nil }
        stopped.signal()
    }
}

extension PostgresConnection {
    /// The parameters the connection was made with, password included, as
    /// libpq's `key='value'` text: another connection to the same place.
    var parameters: String {
        guard let options = PQconninfo(handle) else { return "" }
        defer { PQconninfoFree(options) }
        var text: [String] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let escaped = String(cString: value).replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "'", with: "\\'")
                text.append("\(String(cString: keyword))='\(escaped)'")
            }
            option += 1
        }
        return text.joined(separator: " ")
    }
}
