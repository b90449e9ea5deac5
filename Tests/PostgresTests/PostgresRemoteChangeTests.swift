import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing
import PostgresTestServer

/// Saves of one coordinator reaching another's live contexts and fetched
/// results through PostgreSQL's NOTIFY, as they would in another process.
@Suite struct PostgresRemoteChangeTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer64, default: .int(0))
            }
        }
    }

    /// Two coordinators on one database; the second hears the first. They
    /// share one model, so that an ID of one names the same entity in the
    /// other.
    struct Pair {
        let url: URL
        let writer: PersistentStoreCoordinator
        let reader: PersistentStoreCoordinator
        let notes = Notes()

        init() throws {
            url = URL(string: try PostgresServer.shared().createSchema())!
            let model = try PostgresRemoteChangeTests.model()
            writer = PersistentStoreCoordinator(model: model)
            try writer.addPersistentStore(type: .postgres, at: url)
            reader = PersistentStoreCoordinator(model: model)
            var options = PersistentStoreOptions()
            options.postsRemoteChangeNotifications = true
            try reader.addPersistentStore(type: .postgres, at: url, options: options)
            let notes = self.notes
            reader.addRemoteChangeObserver { notes.append($0) }
        }

        /// A context on `writer` that has saved a Person per name and age.
        func writing(_ people: [(String, Int)]) throws -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: writer)
            for (name, age) in people {
                let person = context.insertObject(forEntityName: "Person")
                person["name"] = .string(name)
                person["age"] = .int(Int64(age))
            }
            try context.save()
            return context
        }
    }

    /// What the observers heard, from the listener's thread.
    final class Notes: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [RemoteChangeNotification] = []
        func append(_ note: RemoteChangeNotification) { lock.withLock { all.append(note) } }
        var received: [RemoteChangeNotification] { lock.withLock { all } }
        var inserted: Set<ObjectID> { Set(received.flatMap(\.insertedObjectIDs)) }
        var updated: Set<ObjectID> { Set(received.flatMap(\.updatedObjectIDs)) }
        var deleted: Set<ObjectID> { Set(received.flatMap(\.deletedObjectIDs)) }
    }

    /// Records the controller's changes.
    final class Recorder: FetchedResultsControllerDelegate {
        var changes: [(ResultsChangeType, String)] = []
        func controller(_ controller: FetchedResultsController, didChange object: ManagedObject,
                        at indexPath: ResultIndexPath?, for type: ResultsChangeType, newIndexPath: ResultIndexPath?) {
            if case .string(let name) = object["name"] { changes.append((type, name)) }
        }
    }


    @Test func aSaveInOneCoordinatorReachesTheLiveContextAndFetchedResultsOfAnother() throws {
        let pair = try Pair()
        let writing = try pair.writing([("Ann", 30), ("Bob", 40), ("Cy", 50)])
        #expect(waitUntil { pair.notes.inserted.count == 3 })

        let live = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: pair.reader)
        live.automaticallyMergesChangesFromParent = true
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age < 60"))
        request.sortDescriptors = try SortSpec.parse("name")
        let controller = FetchedResultsController(fetchRequest: request, context: live)
        let recorder = Recorder()
        try live.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
        }
        #expect(fetchedNames(controller, in: live) == ["Ann", "Bob", "Cy"])
        let bob = try live.performAndWait { try #require(controller.fetchedObjects?[1]) }

        // One save: an insert, an update, a delete, and an update that
        // takes an object out of the results.
        func named(_ name: String) throws -> ManagedObject {
            try #require(try writing.fetch(FetchRequest(entityName: "Person", predicate: try Predicate(format: "name == %@", .string(name)))).first)
        }
        let (ann, writersBob, cy) = (try named("Ann"), try named("Bob"), try named("Cy"))
        let dee = writing.insertObject(forEntityName: "Person")
        dee["name"] = .string("Dee")
        dee["age"] = .int(20)
        writersBob["age"] = .int(41)
        cy["age"] = .int(70)
        let annID = ann.objectID
        writing.delete(ann)
        let before = pair.notes.received.count
        try writing.save()

        #expect(waitUntil { fetchedNames(controller, in: live) == ["Bob", "Dee"] })
        let heard = pair.notes.received.dropFirst(before)
        #expect(Set(heard.flatMap(\.insertedObjectIDs)) == [dee.objectID])
        #expect(Set(heard.flatMap(\.updatedObjectIDs)) == [writersBob.objectID, cy.objectID])
        #expect(Set(heard.flatMap(\.deletedObjectIDs)) == [annID])
        #expect(!heard.contains { $0.invalidatesAllObjects })
        #expect(live.performAndWait { bob["age"] } == .int(41))
        #expect(live.performAndWait { live.registeredObjects.contains { $0.objectID == annID } } == false)
        let recorded = live.performAndWait { recorder.changes.map { "\($0.0) \($0.1)" }.sorted() }
        #expect(recorded == ["delete Ann", "delete Cy", "insert Dee", "update Bob"])
    }
}

extension PostgresRemoteChangeTests {
    @Test func aCoordinatorDoesNotHearItsOwnSaves() throws {
        let pair = try Pair()
        let own = ManagedObjectContext(concurrencyType: .confined, coordinator: pair.reader)
        own.insertObject(forEntityName: "Person")["name"] = .string("Own")
        try own.save()
        let other = ManagedObjectContext(concurrencyType: .confined, coordinator: pair.writer)
        let person = other.insertObject(forEntityName: "Person")
        try other.save()
        // Notifications come in commit order: the reader's own came first.
        #expect(waitUntil { pair.notes.inserted.contains(person.objectID) })
        #expect(pair.notes.inserted == [person.objectID])
    }

    /// An object with unsaved changes meets another process's save of it
    /// as its next save would: left for the save to refuse under
    /// `.error`, merged by property otherwise.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .rollback])
    func aChangedObjectMergesByItsPolicy(policy: MergePolicy) throws {
        let pair = try Pair()
        let writing = ManagedObjectContext(concurrencyType: .confined, coordinator: pair.writer)
        let person = writing.insertObject(forEntityName: "Person")
        person["name"] = .string("Bob")
        person["age"] = .int(40)
        try writing.save()
        #expect(waitUntil { pair.notes.inserted.count == 1 })

        let live = ManagedObjectContext(concurrencyType: .confined, coordinator: pair.reader)
        live.mergePolicy = policy
        let mine = live.object(with: person.objectID)
        mine["name"] = .string("Robert")
        mine["age"] = .int(41)
        person["age"] = .int(45)
        try writing.save()
        #expect(waitUntil { pair.notes.updated.contains(person.objectID) })
        for note in pair.notes.received { try live.mergeChanges(fromRemoteChange: note) }

        switch policy {
        case .error:
            #expect(mine["name"] == .string("Robert") && mine["age"] == .int(41))
            #expect(throws: MergeConflictError.self) { try live.save() }
        case .mergeByPropertyStoreTrump:
            #expect(mine["name"] == .string("Robert") && mine["age"] == .int(45))
            try live.save()
        case .mergeByPropertyObjectTrump:
            #expect(mine["name"] == .string("Robert") && mine["age"] == .int(41))
            try live.save()
        default:
            #expect(mine["name"] == .string("Bob") && mine["age"] == .int(45) && !mine.hasChanges)
        }
    }

    /// The lists of a save, cut into notifications PostgreSQL takes, read
    /// back whole; past `maximumObjects`, one "refetch" marker.
    @Test func announcementsFitThePayloadLimitAndReadBackWhole() throws {
        let model = try ManagedObjectModel {
            Entity("Person") { Attribute("name", .string) }
            Entity("Pet") { Attribute("name", .string) }
        }
        let entities = [model.entity(named: "Person")!, model.entity(named: "Pet")!]
        var random = SplitMix64(seed: 20)
        for round in 0..<40 {
            let count = round == 0 ? 0 : Int(random.next() % 4_000)
            var lists: [[ObjectID]] = [[], [], []]
            for _ in 0..<count {
                let digits = Int64(random.next() % 18) + 1
                let key = Int64(random.next() % UInt64(pow(10, Double(digits))))
                lists[Int(random.next() % 3)].append(ObjectID(entity: entities[Int(random.next() % 2)], primaryKey: key,
                                                              storeIdentifier: "S"))
            }
            let payloads = ChangeAnnouncement.payloads(sender: "me", inserted: lists[0], updated: lists[1], deleted: lists[2],
                                                       code: { $0.name == "Person" ? 1 : 12 })
            #expect(payloads.allSatisfy { $0.utf8.count < 8_000 })
            #expect(payloads.isEmpty == (count == 0))
            var read: [[String]] = [[], [], []]
            for payload in payloads {
                let decoded = try #require(ChangeAnnouncement.decode(payload))
                #expect(decoded.sender == "me" && !decoded.isTruncated)
                for (kind, code, key) in decoded.objects {
                    read[["i": 0, "u": 1, "d": 2][kind.rawValue]!].append("\(code == 1 ? "Person" : "Pet") \(key)")
                }
            }
            for i in 0..<3 {
                #expect(read[i].sorted() == lists[i].map { "\($0.entity.name) \($0.primaryKey)" }.sorted())
            }
        }
        let many = (1...Int64(ChangeAnnouncement.maximumObjects + 1)).map {
            ObjectID(entity: entities[0], primaryKey: $0, storeIdentifier: "S")
        }
        let marker = ChangeAnnouncement.payloads(sender: "me", inserted: many, updated: [], deleted: [], code: { _ in 1 })
        #expect(marker == ["mrq1:me *"])
        #expect(ChangeAnnouncement.decode(marker[0])?.isTruncated == true)
        #expect(ChangeAnnouncement.decode("someone else's") == nil)
        #expect(ChangeAnnouncement.decode("mrq1:x u1:2,z") == nil)
    }

    @Test func aSaveOfThousandsOfObjectsArrivesInSeveralNotifications() throws {
        let pair = try Pair()
        let writing = ManagedObjectContext(concurrencyType: .confined, coordinator: pair.writer)
        let people = (0..<2_500).map { _ in writing.insertObject(forEntityName: "Person") }
        try writing.save()
        #expect(waitUntil { pair.notes.inserted.count == 2_500 })
        #expect(pair.notes.inserted == Set(people.map(\.objectID)))
        #expect(!pair.notes.received.contains { $0.invalidatesAllObjects })
    }

    /// The listener's connection killed by the server: it reconnects, says
    /// that some changes may have been missed, and fetched results fetch
    /// again. Removing the store then ends the listener.
    @Test func aLostListenerReconnectsAndRemovingTheStoreStopsIt() throws {
        let pair = try Pair()
        let server = try PostgresServer.shared()
        let live = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: pair.reader)
        live.automaticallyMergesChangesFromParent = true
        let controller = FetchedResultsController(fetchRequest: FetchRequest(entityName: "Person"), context: live)
        try live.performAndWait { try controller.performFetch() }
        let store = try #require(pair.reader.persistentStores.first as? PostgresStore)
        let listening = "SELECT count(*) FROM pg_stat_activity WHERE query = 'LISTEN \"\(store.notificationChannel)\"'"
        #expect(try server.psql(listening, database: "schemas").trimmingCharacters(in: .whitespacesAndNewlines) == "1")

        _ = try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN \"\(store.notificationChannel)\"'",
                            database: "schemas")
        #expect(waitUntil { pair.notes.received.contains { $0.invalidatesAllObjects } })
        let writing = ManagedObjectContext(concurrencyType: .confined, coordinator: pair.writer)
        let eve = writing.insertObject(forEntityName: "Person")
        eve["name"] = .string("Eve")
        try writing.save()
        #expect(waitUntil { pair.notes.inserted.contains(eve.objectID) })
        #expect(waitUntil { live.performAndWait { controller.fetchedObjects?.map(\.objectID) } == [eve.objectID] })

        pair.reader.remove(store)
        #expect(waitUntil {
            (try? server.psql(listening, database: "schemas").trimmingCharacters(in: .whitespacesAndNewlines)) == "0"
        })
    }
}
