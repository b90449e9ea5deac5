import Foundation
@testable import ObjectStore
import Predicates
import Synchronization
import Testing

/// Reads from several contexts run in parallel (issue 19, item 3): in WAL
/// mode each read runs on a read connection of its own, beside the one
/// writer, and still never sees half of a save.
///
/// Soak, under the thread sanitizer:
/// `MRQ_SOAK=1 swift test --sanitize=thread --filter ParallelRead`
@Suite struct ParallelReadTests {
    /// Accounts, each with its entries: a save moves an amount between two
    /// accounts, adding an entry to each and counting it in `entryCount`.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Account") {
                Attribute("number", .integer64, default: .int(0))
                Attribute("balance", .integer64, default: .int(0))
                Attribute("entryCount", .integer64, default: .int(0))
                ToMany("entries", "Entry", inverse: "account", deleteRule: .cascade)
            }
            Entity("Entry") {
                Attribute("amount", .integer64, default: .int(0))
                ToOne("account", "Account", inverse: "entries")
            }
        }
    }

    static let accounts = 4
    static let opening: Int64 = 1_000

    /// A store file with the accounts opened, and its directory.
    static func bank(at path: String = TestModels.temporaryStorePath()) throws -> (PersistentStoreCoordinator, directory: String) {
        let coordinator = try TestModels.coordinator(try model(), path: path)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for number in 0..<accounts {
            let account = context.insertObject(forEntityName: "Account")
            account["number"] = .int(Int64(number))
            account["balance"] = .int(opening)
        }
        try context.save()
        return (coordinator, URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    static func int(_ value: Value) -> Int64 {
        if case .int(let n) = value { return n }
        Issue.record("expected an integer, got \(value)")
        return -1
    }

    /// Runs `body(i)` for each `i` in `0..<count` on a thread of its own
    /// (all at once, whatever the number of cores), and waits for them
    /// without blocking the caller's thread.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) async {
        let failures = Mutex<[any Error]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for i in 0..<count {
                group.enter()
                Thread {
                    do { try body(i) } catch { failures.withLock { $0.append(error) } }
                    group.leave()
                }.start()
            }
            group.notify(queue: .global()) { done.resume() }
        }
        for error in failures.withLock({ $0 }) { Issue.record(error) }
    }

    /// What a thread found wrong: `onThreads` records it in the test.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Throws a `Failure` saying `message` unless `condition` holds.
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(description: message()) }
    }

    /// Waits for `semaphore`, failing after a minute rather than hanging:
    /// a read that waited for another would never be let through.
    static func wait(_ semaphore: DispatchSemaphore, _ what: String) throws {
        guard semaphore.wait(timeout: .now() + 60) == .success else {
            throw StoreError(.misuse, "still waiting for \(what) after a minute: a read waited for another")
        }
    }

    static func sum(_ key: String, in context: ManagedObjectContext) throws -> Int64 {
        var request = FetchRequest(entityName: "Account")
        request.resultType = .dictionary
        request.propertiesToFetch = [PropertyToFetch(.sum, of: key)]
        return int(try context.fetchRows(request).rows.first?.first ?? .null)
    }

    // MARK: - Isolation

    /// Eight threads fetch the accounts with their entries prefetched, and
    /// sum them by dictionary fetch, while another saves transfers: every
    /// read sees each save whole or not at all (the balances add up, and
    /// each account's prefetched entries are the ones its count says),
    /// and the saving context's next read sees its save.
    @Test func readsSeeEachSaveWholeOrNotAtAll() async throws {
        let (coordinator, directory) = try Self.bank()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let saves = isSoak ? 2_000 : 150
        let readers = 8
        let readsEach = isSoak ? 1_000 : 60
        let total = Int64(Self.accounts) * Self.opening
        await Self.onThreads(readers + 1) { thread in
            if thread == readers {
                let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
                try writer.performAndWait {
                    let accounts = try writer.fetch(FetchRequest(entityName: "Account", sortDescriptors: try SortSpec.parse("number")))
                    for save in 0..<saves {
                        let from = accounts[save % Self.accounts], to = accounts[(save * 3 + 1) % Self.accounts]
                        let amount = Int64(save % 7 + 1)
                        for (account, change) in [(from, -amount), (to, amount)] {
                            account["balance"] = .int(Self.int(account["balance"]) + change)
                            account["entryCount"] = .int(Self.int(account["entryCount"]) + 1)
                            let entry = writer.insertObject(forEntityName: "Entry")
                            entry["amount"] = .int(change)
                            entry.setObject(account, forKey: "account")
                        }
                        try writer.save()
                        let counted = try Self.sum("entryCount", in: writer)
                        try Self.check(counted == Int64(2 * (save + 1)), "after save \(save + 1) the saving context read \(counted) entries")
                    }
                }
                return
            }
            for _ in 0..<readsEach {
                let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
                try context.performAndWait {
                    var request = FetchRequest(entityName: "Account")
                    request.relationshipKeyPathsForPrefetching = ["entries"]
                    let accounts = try context.fetch(request)
                    try Self.check(accounts.count == Self.accounts, "\(accounts.count) accounts")
                    let balances = accounts.reduce(0) { $0 + Self.int($1["balance"]) }
                    try Self.check(balances == total, "a fetch saw half a save: the balances add up to \(balances)")
                    for account in accounts {
                        let entries = account.objects(forKey: "entries"), counted = Self.int(account["entryCount"])
                        try Self.check(Int64(entries.count) == counted,
                                       "the prefetch saw another save than the fetch: \(entries.count) entries, \(counted) counted")
                        let balance = entries.reduce(Self.opening) { $0 + Self.int($1["amount"]) }
                        try Self.check(balance == Self.int(account["balance"]), "the entries add up to \(balance), not the balance")
                    }
                    let summed = try Self.sum("balance", in: context)
                    try Self.check(summed == total, "a dictionary fetch saw half a save: the balances add up to \(summed)")
                }
            }
        }
        let store = coordinator.store
        #expect(store.readConnectionCount >= 1, "the reads ran on the writer")
        let check = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try Self.sum("entryCount", in: check) == Int64(2 * saves))
    }

    /// A read transaction sees the store as it was at its first read, even
    /// after another thread commits a save; the next read sees the save.
    @Test func aReadTransactionKeepsItsMoment() throws {
        let (coordinator, directory) = try Self.bank()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = coordinator.store
        let table = store.mapping.table(for: store.model.entity(named: "Entry")!).name
        let count = "SELECT count(*) FROM \(table)"
        var seen: [Int] = []
        // The save runs on another thread while this one is in the read
        // transaction: it must not wait for it, nor be seen by it.
        let saved = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        try store.readTransaction {
            seen.append(try store.count(sql: count, bindings: []))
            Thread {
                do {
                    let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
                    context.insertObject(forEntityName: "Entry")
                    try context.save()
                } catch {
                    failure.withLock { $0 = error }
                }
                saved.signal()
            }.start()
            try Self.wait(saved, "a save during a read transaction")
            seen.append(try store.count(sql: count, bindings: []))
        }
        if let error = failure.withLock({ $0 }) { Issue.record(error) }
        seen.append(try store.count(sql: count, bindings: []))
        #expect(seen == [0, 0, 1])
    }

    // MARK: - Parallel

    /// One context reads rows through a cursor and stops inside its
    /// callback until another context, on another thread, has fetched,
    /// counted and saved: the cursor holds a read connection, not the
    /// store. The cursor's rows are those of the moment it began.
    @Test func aFetchCompletesWhileACursorIsOpen() async throws {
        let (coordinator, directory) = try Self.bank()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let inside = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let cursorRows = Mutex<[Int64]>([])
        let fetched = Mutex(0), counted = Mutex(0)
        await Self.onThreads(2) { thread in
            if thread == 0 {
                let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
                var request = FetchRequest(entityName: "Account", sortDescriptors: try SortSpec.parse("number"))
                request.resultType = .dictionary
                request.propertiesToFetch = [PropertyToFetch(keyPath: "number")]
                _ = try context.performAndWait {
                    try context.fetchRows(request) { row in
                        let first = cursorRows.withLock { $0.isEmpty }
                        cursorRows.withLock { $0.append(Self.int(row[0])) }
                        if first {
                            inside.signal()
                            try Self.wait(finished, "another context's fetch and save")
                        }
                    }
                }
            } else {
                try Self.wait(inside, "the cursor's first row")
                let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
                try context.performAndWait {
                    let found = try context.fetch(FetchRequest(entityName: "Account")).count
                    fetched.withLock { $0 = found }
                    let account = context.insertObject(forEntityName: "Account")
                    account["number"] = .int(99)
                    try context.save()
                    let after = try context.count(for: FetchRequest(entityName: "Account"))
                    counted.withLock { $0 = after }
                }
                finished.signal()
            }
        }
        #expect(fetched.withLock { $0 } == Self.accounts)
        #expect(counted.withLock { $0 } == Self.accounts + 1)
        #expect(cursorRows.withLock { $0 } == Array(0..<Int64(Self.accounts)))
        #expect(coordinator.store.readConnectionCount == 2)
    }

    /// A fetch from a cursor's callback, of the very same rows, on the same
    /// thread: it shares the cursor's connection (and, in memory, its
    /// lock), and runs the same SQL without cutting the cursor short.
    @Test(arguments: [false, true])
    func aFetchFromACursorCallbackRunsTheSameSQL(inMemory: Bool) throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let coordinator = try TestModels.coordinator(try Self.model(), path: inMemory ? nil : path)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for number in 0..<5 { context.insertObject(forEntityName: "Account")["number"] = .int(Int64(number)) }
        try context.save()
        var request = FetchRequest(entityName: "Account", sortDescriptors: try SortSpec.parse("number"))
        request.resultType = .dictionary
        request.propertiesToFetch = [PropertyToFetch(keyPath: "number")]
        let inner = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var outer: [Int64] = []
        var nested: [[Int64]] = []
        try context.fetchRows(request) { row in
            outer.append(Self.int(row[0]))
            nested.append(try inner.fetchRows(request).rows.map { Self.int($0[0]) })
        }
        #expect(outer == [0, 1, 2, 3, 4])
        #expect(nested == Array(repeating: [0, 1, 2, 3, 4], count: 5))
        #expect(coordinator.store.readConnectionCount == (inMemory ? 0 : 1))
    }

    /// Fetches, counts, ID fetches and dictionary fetches of a store file
    /// run on a read connection (one, reused, when they come one at a
    /// time), never on the writer; a save runs on the writer.
    @Test func readsGoToAReadConnection() throws {
        let (coordinator, directory) = try Self.bank()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = coordinator.store
        let writer = store.database.statementsStarted
        let all = store.statementsStarted
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        var request = FetchRequest(entityName: "Account")
        request.relationshipKeyPathsForPrefetching = ["entries"]
        #expect(try context.fetch(request).count == Self.accounts)
        #expect(try context.count(for: FetchRequest(entityName: "Account", predicate: try Predicate(format: "balance > 0"))) == Self.accounts)
        #expect(try context.fetchObjectIDs(FetchRequest(entityName: "Account", sortDescriptors: try SortSpec.parse("number"))).count == Self.accounts)
        #expect(try Self.sum("balance", in: context) == Int64(Self.accounts) * Self.opening)
        #expect(store.database.statementsStarted == writer, "a read ran on the writer")
        #expect(store.statementsStarted > all)
        #expect(store.readConnectionCount == 1)
        context.insertObject(forEntityName: "Entry")
        try context.save()
        #expect(store.database.statementsStarted > writer)
    }

    /// A read-only store lends its writer to one read at a time: a read
    /// on another thread meanwhile opens a connection of its own rather
    /// than wait; later reads take whichever is free.
    @Test func aReadOnlyStoreLendsItsWriterToOneReadAtATime() throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        do {
            let (coordinator, _) = try Self.bank(at: path)
            coordinator.removeStores()
        }
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        var options = PersistentStoreOptions()
        options.readOnly = true
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: options)
        let store = coordinator.store
        final class Other: @unchecked Sendable {
            var tables: Value?
            var onWriter = true
        }
        let other = Other()
        let tables = try store.read { outer in
            #expect(outer === store.database)
            let done = DispatchSemaphore(value: 0)
            Thread {
                other.tables = try? store.read { db in
                    other.onWriter = db === store.database
                    return try db.scalar("SELECT count(*) FROM sqlite_master")
                }
                done.signal()
            }.start()
            #expect(done.wait(timeout: .now() + 30) == .success, "the second read waited for the first")
            return try outer.scalar("SELECT count(*) FROM sqlite_master")
        }
        #expect(other.tables != nil && other.tables == tables)
        #expect(!other.onWriter)
        #expect(store.readConnectionCount == 1)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Account")) == Self.accounts)
        #expect(store.readConnectionCount == 1, "a read after the others opened another connection")
    }

    /// Stores opened read-only, immutable, or in memory all read, each
    /// on its one connection: a read-only store lends its writer, which
    /// never writes, to reads.
    @Test func readOnlyImmutableAndInMemoryStoresRead() throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        do {
            let (coordinator, _) = try Self.bank(at: path)
            coordinator.removeStores()
        }
        for immutable in [false, true] {
            let coordinator = PersistentStoreCoordinator(model: try Self.model())
            var options = PersistentStoreOptions()
            options.readOnly = true
            options.immutable = immutable
            try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: options)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            #expect(try context.count(for: FetchRequest(entityName: "Account")) == Self.accounts)
            #expect(coordinator.store.readConnectionCount == 0, "immutable: \(immutable)")
            #expect(coordinator.store.statementsStarted == coordinator.store.database.statementsStarted)
        }
        let memory = try TestModels.coordinator(try Self.model())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: memory)
        context.insertObject(forEntityName: "Account")
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Account")) == 1)
        #expect(memory.store.readConnectionCount == 0)
    }

    // MARK: - Closing

    /// Three cursors open at once hold three read connections; removing
    /// the store closes them (the lent ones as their reads end), and the
    /// last reference to the store closes the writer: no connection to
    /// the file is left open.
    @Test func removingTheStoreClosesItsReadConnections() async throws {
        let path = TestModels.temporaryStorePath()
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        let name = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent + "/store.sqlite"
        @Sendable func connections() -> Int { OpenConnections.filenames().filter { $0.hasSuffix(name) }.count }
        do {
            let (coordinator, _) = try Self.bank(at: path)
            let store = coordinator.store
            let cursors = 3
            let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let opened = Mutex(0), open = Mutex(0), lent = Mutex(0)
            await Self.onThreads(cursors + 1) { thread in
                guard thread < cursors else {
                    // Removes the store while every cursor is open.
                    defer { for _ in 0..<cursors { release.signal() } }
                    for _ in 0..<cursors { try Self.wait(inside, "every cursor to open") }
                    opened.withLock { $0 = store.readConnectionCount }
                    open.withLock { $0 = connections() }
                    coordinator.remove(store)
                    lent.withLock { $0 = store.readConnectionCount }
                    return
                }
                let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
                var request = FetchRequest(entityName: "Account")
                request.resultType = .dictionary
                request.propertiesToFetch = [PropertyToFetch(keyPath: "number")]
                var first = true
                _ = try context.performAndWait {
                    try context.fetchRows(request) { _ in
                        guard first else { return }
                        first = false
                        inside.signal()
                        try Self.wait(release, "the store's removal")
                    }
                }
            }
            #expect(opened.withLock { $0 } == cursors)
            #expect(open.withLock { $0 } == cursors + 1)
            #expect(lent.withLock { $0 } == cursors, "a lent connection was closed under its read")
            #expect(store.readConnectionCount == 0)
            #expect(connections() == 1, "the writer stays open while the store is held")
        }
        #expect(connections() == 0, "a connection to the store outlived it")
    }
}
