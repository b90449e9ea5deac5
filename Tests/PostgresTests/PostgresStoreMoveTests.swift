import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// `migratePersistentStore` between SQLite (both layouts) and PostgreSQL,
/// both ways, on random stores of a model with every attribute type and
/// every relationship kind (`ModelFixtures.everyKind()` without the
/// names that differ only in case, which SQLite cannot tell apart: to-one,
/// ordered one-to-many, many-to-many, ordered many-to-many, to-one and
/// self-referencing to-many without inverse, a sub-entity).
@Suite struct PostgresStoreMoveTests {
    /// SQLite (mrq's layout) → PostgreSQL → SQLite, PostgreSQL → SQLite in
    /// Core Data's layout → PostgreSQL again: every store read by a fresh
    /// coordinator holds the same objects, values and relationships as
    /// the random store it started from, and the stores copied from are
    /// left as they were.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func testEveryObjectMovesBetweenSQLiteAndPostgreSQLBothWays(seed: UInt64) throws {
        let model = try ModelFixtures.everyKind(caseTwins: false)
        let dir = try ModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try PostgresServer.shared()
        var random = SplitMix64(seed: seed)
        let source = dir.appendingPathComponent("source.sqlite")
        let coordinator = try Self.open(.sqlite, source, model)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        try Self.populate(context, random: &random)
        let before = try Self.dump(Self.open(.sqlite, source, model))
        #expect(before.count >= 8, "seed \(seed): a store worth copying")

        let first = URL(string: try server.createDatabase())!
        let copy = try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: first, type: .postgres)
        #expect(copy.storeType == .postgres)
        #expect(try Self.dump(coordinator) == before, "seed \(seed): the coordinator reads its copy")
        #expect(try Self.dump(Self.open(.postgres, first, model)) == before, "seed \(seed): SQLite → PostgreSQL")

        let back = dir.appendingPathComponent("back.sqlite")
        let mrq = try coordinator.migratePersistentStore(copy, to: back, type: .sqlite)
        #expect(mrq.layout == .mrq)
        #expect(try Self.dump(Self.open(.sqlite, back, model)) == before, "seed \(seed): PostgreSQL → SQLite")

        let reader = try Self.open(.postgres, first, model)
        var options = PersistentStoreOptions()
        options.layout = .coreData
        let coreDataFile = dir.appendingPathComponent("CoreData.sqlite")
        let coreData = try reader.migratePersistentStore(reader.persistentStores[0], to: coreDataFile, type: .sqlite, options: options)
        #expect(coreData.layout == .coreData)
        let inCoreData = try Self.dump(Self.open(.sqlite, coreDataFile, model))
        #expect(inCoreData == before, "seed \(seed): PostgreSQL → Core Data's layout: \(Set(inCoreData).symmetricDifference(before).sorted())")

        let second = URL(string: try server.createDatabase())!
        _ = try reader.migratePersistentStore(coreData, to: second, type: .postgres)
        #expect(try Self.dump(Self.open(.postgres, second, model)) == before, "seed \(seed): Core Data's layout → PostgreSQL")

        #expect(try Self.dump(Self.open(.sqlite, source, model)) == before, "seed \(seed): the source is unchanged")
        #expect(try Self.dump(Self.open(.postgres, first, model)) == before, "seed \(seed): a PostgreSQL source is unchanged")
    }

    /// Two coordinators (as two processes) copying into one empty database
    /// at once copy once: the other is refused naming the tables that hold
    /// objects, writes nothing and keeps its own store; and contexts on
    /// the copy go on saving into PostgreSQL.
    @Test func testCopiesIntoOneDatabaseAtOnceCopyOnce() throws {
        let model = try ModelFixtures.everyKind(caseTwins: false)
        let url = URL(string: try PostgresServer.shared().createDatabase())!
        let contexts = try (1...2).map { seed in
            var random = SplitMix64(seed: 100 + UInt64(seed))
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addSQLiteStore(at: nil)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            try Self.populate(context, random: &random)
            return context
        }
        let dumps = try contexts.map { try Self.dump($0.persistentStoreCoordinator!) }
        let outcomes = Outcomes(count: 2)
        let coordinators = Unchecked(contexts.map { $0.persistentStoreCoordinator! })
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            outcomes.set(i, Result {
                let coordinator = coordinators.value[i]
                return try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: url, type: .postgres).storeType
            })
        }
        let results = outcomes.all
        let winner = try #require(results.firstIndex { (try? $0.get()) == .postgres })
        let loser = 1 - winner
        let refused = #expect(throws: StoreError.self) { try results[loser].get() }
        #expect(refused?.description.contains("already holds objects (in \"Item\"") == true, "\(String(describing: refused))")
        #expect(contexts[loser].persistentStoreCoordinator!.persistentStores.map(\.storeType) == [.inMemory])
        #expect(try Self.dump(contexts[loser].persistentStoreCoordinator!) == dumps[loser])
        #expect(try Self.dump(Self.open(.postgres, url, model)) == dumps[winner])

        let label = contexts[winner].insertObject(forEntityName: "Label")
        label["name"] = .string("after the move")
        try contexts[winner].save()
        #expect(try Self.dump(Self.open(.postgres, url, model)).count == dumps[winner].count + 1)

        // A database holding a store of another model is no place to copy to.
        let other = try ManagedObjectModel { Entity("Note") { Attribute("text", .string) } }
        let elsewhere = try PostgresServer.shared().createDatabase()
        _ = try PersistentStoreCoordinator.onPostgres(other, url: elsewhere)
        let mismatch = #expect(throws: StoreError.self) {
            try contexts[loser].persistentStoreCoordinator!.migratePersistentStore(
                contexts[loser].persistentStoreCoordinator!.persistentStores[0], to: URL(string: elsewhere)!, type: .postgres)
        }
        #expect(mismatch?.kind == .modelMismatch)
        #expect(contexts[loser].persistentStoreCoordinator!.persistentStores.map(\.storeType) == [.inMemory])
    }

    // MARK: - Stores and their contents

    static func open(_ type: PersistentStoreType, _ url: URL, _ model: ManagedObjectModel) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: type, at: url)
        return coordinator
    }

    /// A random graph of `everything()`: items and special items with
    /// random values of every type (nil too), saved, some deleted so that
    /// keys have gaps; then owners with ordered items and a favourite,
    /// labels, ordered playlists and `related` links between items (an
    /// item to itself too), saved.
    static func populate(_ context: ManagedObjectContext, random: inout SplitMix64) throws {
        func chance(_ percent: Int, _ random: inout SplitMix64) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        func maybe(_ value: Value, _ random: inout SplitMix64) -> Value { chance(15, &random) ? .null : value }
        var items: [ManagedObject] = []
        for n in 0..<Int.random(in: 8...18, using: &random) {
            let item = context.insertObject(forEntityName: chance(30, &random) ? "SpecialItem" : "Item")
            item["uid"] = .uuid(PostgresConnectionTests.uuid(&random))
            item["small"] = maybe(.int(Int64(Int16.random(in: .min ... .max, using: &random))), &random)
            item["medium"] = maybe(.int(Int64(Int32.random(in: .min ... .max, using: &random))), &random)
            item["large"] = maybe(.int(Int64(bitPattern: random.next())), &random)
            // Core Data's layout keeps a decimal as a double: 12 digits survive.
            let cents = Decimal(Int64.random(in: -999_999_999_999 ... 999_999_999_999, using: &random))
            item["price"] = maybe(.decimal(cents / 100), &random)
            item["ratio"] = maybe(.double(PostgresConnectionTests.double(&random)), &random)
            item["weight"] = maybe(.double(Double(Float(PostgresConnectionTests.double(&random)))), &random)
            item["title"] = maybe(.string(PostgresConnectionTests.string(&random)), &random)
            item["flag"] = maybe(.bool(Bool.random(using: &random)), &random)
            // PostgreSQL keeps microseconds, Core Data's layout seconds since 2001 as a double.
            let microseconds = Int64.random(in: -2_000_000_000_000 ... 2_000_000_000_000, using: &random) * 1_000
            item["when"] = maybe(.date(PostgresTimestamp.date(microseconds: microseconds)), &random)
            item["blob"] = maybe(.data(PostgresConnectionTests.bytes(&random)), &random)
            item["thing"] = maybe(.data(PostgresConnectionTests.bytes(&random)), &random)
            item["link"] = maybe(.url(URL(string: "https://example.com/\(n)?q=\(random.next() % 1000)")!), &random)
            item["scratch"] = .string("transient: never stored")
            if item.entity.name == "SpecialItem" { item["grade"] = maybe(.int(Int64(random.next() % 10)), &random) }
            item["size.width"] = maybe(.double(PostgresConnectionTests.double(&random)), &random)
            item["size.unit"] = maybe(.string(PostgresConnectionTests.string(&random)), &random)
            items.append(item)
        }
        try context.save()
        var kept: [ManagedObject] = []
        for item in items {
            if chance(20, &random) { context.delete(item) } else { kept.append(item) }
        }
        try context.save()
        items = kept

        var owners: [ManagedObject] = []
        for n in 0..<Int.random(in: 1...3, using: &random) {
            let owner = context.insertObject(forEntityName: "Owner")
            owner["name"] = .string("owner \(n)")
            owners.append(owner)
        }
        for item in items.shuffled(using: &random) where chance(70, &random) {
            owners[Int.random(in: 0..<owners.count, using: &random)].add(item, toKey: "items")
        }
        for owner in owners where !items.isEmpty && chance(70, &random) {
            owner.setObject(items[Int.random(in: 0..<items.count, using: &random)], forKey: "favourite")
        }
        for n in 0..<Int.random(in: 1...4, using: &random) {
            let label = context.insertObject(forEntityName: "Label")
            label["name"] = .string("label \(n)")
            for item in items where chance(40, &random) { label.add(item, toKey: "items") }
        }
        for n in 0..<Int.random(in: 1...3, using: &random) {
            let playlist = context.insertObject(forEntityName: "Playlist")
            playlist["name"] = .string("playlist \(n)")
            for item in items.shuffled(using: &random) where chance(50, &random) { playlist.add(item, toKey: "tracks") }
        }
        // Core Data's layout keeps a to-many with no inverse as a key in
        // the destination's row (SampleModel2V1's ZPAGE.Z1PAGES): an item is
        // in at most one item's `related`, as in a store Core Data wrote.
        for item in items.shuffled(using: &random) where chance(70, &random) {
            items[Int.random(in: 0..<items.count, using: &random)].add(item, toKey: "related")
        }
        try context.save()
    }

    /// Every object a fresh context on `coordinator` reads, with its
    /// stored values and its relationships, by labels that do not depend
    /// on keys (an item's `uid`, anything else's `name`): members in
    /// order where ordered.
    static func dump(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        func label(_ object: ManagedObject) -> String {
            "\(object.entity.attribute(named: "uid") != nil ? object["uid"] : object["name"])"
        }
        var lines: [String] = []
        for entity in coordinator.model.entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                var parts = ["\(entity.name) \(label(object))"]
                for attribute in entity.attributes where !attribute.isTransient {
                    for stored in attribute.storedAttributes { parts.append("\(stored.name)=\(object[stored.name])") }
                }
                for relationship in entity.relationships {
                    if relationship.isToOne {
                        parts.append("\(relationship.name)->\(object.object(forKey: relationship.name).map(label) ?? "nil")")
                    } else {
                        let members = object.objects(forKey: relationship.name).map(label)
                        parts.append("\(relationship.name)->\(relationship.isOrdered ? members : members.sorted())")
                    }
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }
}

/// The results of concurrent work, one slot each.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<PersistentStoreType, any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ result: Result<PersistentStoreType, any Error>) {
        lock.withLock { results[i] = result }
    }

    var all: [Result<PersistentStoreType, any Error>] {
        lock.withLock { results.map { $0 ?? .failure(CancellationError()) } }
    }
}

/// A value handed to concurrent work that uses each part from one thread.
private struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
