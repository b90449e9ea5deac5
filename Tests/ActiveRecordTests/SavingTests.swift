import Foundation
import Synchronization
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

/// MagicalRecord's save blocks over a real stack: a private root saving
/// context on a SQLite file, a main-queue default context as its child.
///
/// Serialized: `MagicalRecord` holds one global stack.
@Suite(.serialized) struct SavingTests {
    struct Refused: Error, Equatable {}

    /// Objects to carry out of a save block; read on their context's queue.
    final class Box: @unchecked Sendable {
        var object: ManagedObject?
        var temporaryID: ObjectID?
    }

    static func setUp() throws -> (CoreDataStack, URL) {
        let model = try ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string).required()
                Attribute("age", .integer16, default: .int(0))
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-saving-\(UUID().uuidString)")
        let stack = try MagicalRecord.setupCoreDataStack(model: model, storeAt: directory.appendingPathComponent("store.sqlite"))
        return (stack, directory)
    }

    static func tearDown(_ directory: URL) {
        MagicalRecord.cleanUp()
        try? FileManager.default.removeItem(at: directory)
    }

    static func insertPerson(_ name: String, in context: ManagedObjectContext) -> ManagedObject {
        let person = context.insertObject(forEntityName: "Person")
        person["name"] = .string(name)
        return person
    }

    /// Names in the default context, with whether it has pending changes.
    static func defaultContextNames() async throws -> ([String], Bool) {
        let context = try MagicalRecord.defaultContext
        return try await context.perform {
            let people = try context.fetch(FetchRequest(entityName: "Person"))
            let names = people.map { person -> String in
                if case .string(let name) = person["name"] { return name } else { return "?" }
            }
            return (names.sorted(), context.hasChanges)
        }
    }

    /// Marks the main queue. Under `swift test` on Linux the main queue is
    /// not always drained by the main thread, so `Thread.isMainThread`
    /// cannot tell.
    static let mainQueueKey: DispatchSpecificKey<Int> = {
        let key = DispatchSpecificKey<Int>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    /// `MagicalRecord.save(_:completion:)`, awaited: the completion's
    /// arguments and whether it ran on the main queue.
    static func saveWithCompletion(_ block: @escaping @Sendable (ManagedObjectContext) throws -> Void)
        async -> (saved: Bool, error: (any Error)?, onMain: Bool) {
        let key = mainQueueKey
        return await withCheckedContinuation { done in
            MagicalRecord.save(block) { saved, error in
                done.resume(returning: (saved, error, DispatchQueue.getSpecific(key: key) == 1))
            }
        }
    }

    // MARK: - Setup

    @Test func aStackWithoutAStoreNameUsesTheAppsNameInTheDataDirectory() throws {
        let model = try ManagedObjectModel {
            Entity("Person") { Attribute("name", .string) }
        }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-xdg-\(UUID().uuidString)")
        let previous = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        setenv("XDG_DATA_HOME", home.path, 1)
        defer {
            if let previous { setenv("XDG_DATA_HOME", previous, 1) } else { unsetenv("XDG_DATA_HOME") }
            MagicalRecord.cleanUp()
            try? FileManager.default.removeItem(at: home)
        }
        let app = ProcessInfo.processInfo.processName
        let stack = try MagicalRecord.setupCoreDataStack(model: model)
        #expect(stack.storeURL == home.appendingPathComponent(app).appendingPathComponent(app + ".sqlite"))
        #expect(try MagicalRecord.saveAndWait { context in
            context.insertObject(forEntityName: "Person")["name"] = .string("Ada")
        })
        #expect(FileManager.default.fileExists(atPath: stack.storeURL!.path))
    }

    // MARK: - save(_:completion:)

    @Test func saveBlockCompletesOnMainQueueWithTrue() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        let result = await Self.saveWithCompletion { context in _ = Self.insertPerson("Ada", in: context) }
        #expect(result.saved == true)
        #expect(result.error == nil)
        #expect(result.onMain, "completion runs on the main queue")
        let (names, pending) = try await Self.defaultContextNames()
        #expect(names == ["Ada"])
        #expect(!pending)
    }

    @Test func saveBlockWithNothingToSaveCompletesWithFalse() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        let result = await Self.saveWithCompletion { _ in }
        #expect(result.saved == false)
        #expect(result.error == nil)
        #expect(result.onMain)
    }

    @Test func saveBlockThatThrowsCompletesWithTheError() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        let result = await Self.saveWithCompletion { context in
            _ = Self.insertPerson("Ada", in: context)
            throw Refused()
        }
        #expect(result.saved == false)
        #expect(result.error as? Refused == Refused())
        #expect(result.onMain)
        #expect(try await Self.defaultContextNames().0.isEmpty, "nothing was saved")
    }

    @Test func saveBlockThatFailsValidationCompletesWithTheError() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        let result = await Self.saveWithCompletion { context in
            context.insertObject(forEntityName: "Person")  // no name: required
        }
        #expect(result.saved == false)
        #expect(result.error is ValidationError, "\(String(describing: result.error))")
        #expect(result.onMain)
        #expect(try await Self.defaultContextNames().0.isEmpty, "nothing was saved")
    }

    // MARK: - saveAndWait

    @Test func saveAndWaitInsertIsVisibleInDefaultContextWithNoPendingChanges() async throws {
        let (stack, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        let saved = try MagicalRecord.saveAndWait { context in _ = Self.insertPerson("Grace", in: context) }
        #expect(saved)
        let (names, pending) = try await Self.defaultContextNames()
        #expect(names == ["Grace"])
        #expect(!pending, "the default context has no pending changes")
        #expect(try await stack.rootSavingContext.perform { stack.rootSavingContext.hasChanges } == false,
                "the root saving context wrote everything")
        #expect(try MagicalRecord.saveAndWait { _ in } == false, "nothing to save")
        #expect(throws: Refused.self) { try MagicalRecord.saveAndWait { _ in throw Refused() } }
    }

    // MARK: - async save

    @Test func asyncSaveReturnsWhetherItSaved() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        #expect(try await MagicalRecord.save { context in _ = Self.insertPerson("Linus", in: context) })
        #expect(try await MagicalRecord.save { _ in } == false)
        await #expect(throws: Refused.self) { try await MagicalRecord.save { _ in throw Refused() } }
        #expect(try await Self.defaultContextNames() == (["Linus"], false))
    }

    // MARK: - Permanent IDs

    @Test func temporaryIDsBecomePermanentAfterSavingToTheStore() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        let box = Box()
        try MagicalRecord.saveAndWait { context in
            box.object = Self.insertPerson("Ada", in: context)
            box.temporaryID = box.object?.objectID
        }
        let temporary = try #require(box.temporaryID)
        #expect(temporary.isTemporaryID)
        // The root's save updated the waiting block context at once.
        let permanent = try #require(box.object).objectID
        #expect(!permanent.isTemporaryID)

        // The default context sees the object under its permanent ID.
        let defaultContext = try MagicalRecord.defaultContext
        let seen = try await defaultContext.perform { () throws -> ObjectID in
            try #require(try defaultContext.fetch(FetchRequest(entityName: "Person")).first).objectID
        }
        #expect(seen == permanent)
    }

    @Test func defaultContextObjectsGetPermanentIDsWhenSavedToTheStore() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        let defaultContext = try MagicalRecord.defaultContext
        let ids = try await MainActor.run { () throws -> (ObjectID, ObjectID) in
            let person = Self.insertPerson("Ada", in: defaultContext)
            let before = person.objectID
            #expect(try defaultContext.saveToPersistentStoreAndWait())
            return (before, person.objectID)
        }
        #expect(ids.0.isTemporaryID)
        #expect(!ids.1.isTemporaryID, "after saving to the store the default context's object has a permanent ID")
        let stored = try await defaultContext.perform { () throws -> (ObjectID, Bool) in
            let person = try #require(try defaultContext.fetch(FetchRequest(entityName: "Person")).first)
            return (person.objectID, defaultContext.hasChanges)
        }
        #expect(stored.0 == ids.1)
        #expect(!stored.0.isTemporaryID)
        #expect(!stored.1)
    }

    // MARK: - Sibling save blocks (issue 16, items 4 and 5)

    /// Two save blocks at once, each changing its own attribute of one
    /// row, round after round: both land every time.
    @Test func concurrentSaveBlocksChangingDifferentAttributesLoseNothing() async throws {
        let (_, directory) = try Self.setUp()
        defer { Self.tearDown(directory) }
        try MagicalRecord.saveAndWait { context in
            let person = Self.insertPerson("R0", in: context)
            person["age"] = .int(0)
        }
        let rounds = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1" ? 2_000 : 200
        var lost = 0
        for round in 1...rounds {
            let name = "R\(round)", age = Int64(round % 100)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    DispatchQueue.concurrentPerform(iterations: 2) { worker in
                        _ = try? MagicalRecord.saveAndWait { context in
                            guard let person = try context.fetch(FetchRequest(entityName: "Person")).first else { return }
                            if worker == 0 { person["name"] = .string(name) } else { person["age"] = .int(age) }
                        }
                    }
                    done.resume()
                }
            }
            let stored = try MagicalRecord.rootSavingContext.performAndWait { () throws -> (Value, Value) in
                let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: try MagicalRecord.stack.coordinator)
                let person = try #require(try fresh.fetch(FetchRequest(entityName: "Person")).first)
                return (person["name"], person["age"])
            }
            if stored.0 != .string(name) || stored.1 != .int(age) { lost += 1 }
        }
        #expect(lost == 0, "\(lost) of \(rounds) rounds lost an update")
    }

    /// A save block inserting an object whose unique key is taken updates
    /// the stored object instead (MagicalRecord's stack merges by
    /// property, object trump), and the stack keeps working.
    @Test func aSaveBlockInsertingATakenKeyUpdatesTheStoredObject() async throws {
        let model = try ManagedObjectModel {
            Entity("Person") {
                Attribute("personID", .integer64, default: .int(0))
                Attribute("name", .string)
                Attribute("email", .string)
                Unique("personID")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-saving-\(UUID().uuidString)")
        try MagicalRecord.setupCoreDataStack(model: model, storeAt: directory.appendingPathComponent("store.sqlite"))
        defer { Self.tearDown(directory) }
        try MagicalRecord.saveAndWait { context in
            let person = context.insertObject(forEntityName: "Person")
            person["personID"] = .int(7)
            person["name"] = .string("Ada")
            person["email"] = .string("ada@example.com")
        }
        try MagicalRecord.saveAndWait { context in
            let person = context.insertObject(forEntityName: "Person")
            person["personID"] = .int(7)
            person["name"] = .string("Ada King")
        }
        try MagicalRecord.saveAndWait { context in
            context.insertObject(forEntityName: "Person")["personID"] = .int(8)
        }
        let rows = try MagicalRecord.rootSavingContext.performAndWait { () throws -> [[Value]] in
            let fresh = ManagedObjectContext(concurrencyType: .confined, coordinator: try MagicalRecord.stack.coordinator)
            var request = FetchRequest(entityName: "Person")
            request.sortDescriptors = [SortKey(keyPath: ["personID"], ascending: true)]
            return try fresh.fetch(request).map { [$0["personID"], $0["name"], $0["email"]] }
        }
        #expect(rows == [[.int(7), .string("Ada King"), .string("ada@example.com")], [.int(8), .null, .null]])
    }

    // MARK: - Opening (issue 16, item 1)

    /// `setupCoreDataStack` opens a store made with another model only when
    /// migration is asked for (`autoMigrate`), as MagicalRecord's
    /// `setupAutoMigratingCoreDataStack` does; otherwise the store is left
    /// untouched.
    @Test func onlyTheAutoMigratingSetupMigrates() throws {
        let v1 = try ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        let v2 = try ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("email", .string)
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-stack-\(UUID().uuidString)")
        defer { Self.tearDown(directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        try MagicalRecord.setupCoreDataStack(model: v1, storeAt: url)
        try MagicalRecord.saveAndWait { Self.insertPerson("Ada", in: $0) }
        MagicalRecord.cleanUp()
        #expect {
            try MagicalRecord.setupCoreDataStack(model: v2, storeAt: url)
        } throws: { error in
            (error as? StoreError)?.kind == .modelMismatch
        }
        // Still the first model's store. (Byte for byte: OpeningTests; the
        // first stack's connection may still fold in its own log here.)
        #expect(try PersistentStoreCoordinator.storedModel(at: url)?.entity(named: "Person")?.attribute(named: "email") == nil)
        var options = CoreDataStack.Options()
        options.autoMigrate = true
        let stack = try MagicalRecord.setupCoreDataStack(model: v2, storeAt: url, options: options)
        let names = try stack.rootSavingContext.performAndWait {
            try stack.rootSavingContext.fetch(FetchRequest(entityName: "Person")).map { $0["name"] }
        }
        #expect(names == [.string("Ada")])
    }
}
