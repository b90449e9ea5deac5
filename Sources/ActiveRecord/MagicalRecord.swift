import Foundation
import ObjectStore
import Synchronization

/// MagicalRecord's one-line façade: set up the default stack, then save
/// with a block.
///
/// ```swift
/// try MagicalRecord.setupAutoMigratingCoreDataStack(model: model, storeNamed: "People.sqlite")
/// try MagicalRecord.saveAndWait { context in
///     let person = Person(context: context)
///     person.firstName = "Ada"
/// }
/// ```
public enum MagicalRecord {
    private static let current = Mutex<CoreDataStack?>(nil)

    /// The stack set up last. Before any set-up, or after `cleanUp()`, it
    /// throws a ``MagicalRecordError`` saying so (as does every finder and
    /// save block that needs it), never a crash.
    public static var stack: CoreDataStack {
        get throws(MagicalRecordError) {
            guard let stack = current.withLock({ $0 }) else { throw .noStack }
            return stack
        }
    }

    /// The stack's default context (see ``stack``).
    public static var defaultContext: ManagedObjectContext {
        get throws(MagicalRecordError) { try stack.defaultContext }
    }

    /// The stack's root saving context (see ``stack``).
    public static var rootSavingContext: ManagedObjectContext {
        get throws(MagicalRecordError) { try stack.rootSavingContext }
    }

    /// Uses `stack` as the default stack.
    public static func use(_ stack: CoreDataStack) {
        current.withLock { $0 = stack }
    }

    /// A SQLite store named `storeNamed` in the app's data directory
    /// (`CoreDataStack.defaultDirectory()`); by default named after the
    /// app, as MagicalRecord's `setupCoreDataStack` names it. A store made
    /// with another model is not migrated (it fails to open, untouched)
    /// unless `options.autoMigrate`: see `setupAutoMigratingCoreDataStack`.
    @discardableResult
    public static func setupCoreDataStack(model: ManagedObjectModel, storeNamed name: String = CoreDataStack.defaultStoreName,
                                          options: CoreDataStack.Options = .init()) throws -> CoreDataStack {
        let stack = try CoreDataStack(model: model, store: .named(name), options: options)
        use(stack)
        return stack
    }

    /// Like `setupCoreDataStack`, migrating the store automatically.
    @discardableResult
    public static func setupAutoMigratingCoreDataStack(model: ManagedObjectModel,
                                                       storeNamed name: String = CoreDataStack.defaultStoreName) throws -> CoreDataStack {
        var options = CoreDataStack.Options()
        options.autoMigrate = true
        return try setupCoreDataStack(model: model, storeNamed: name, options: options)
    }

    /// A SQLite store at `url`.
    @discardableResult
    public static func setupCoreDataStack(model: ManagedObjectModel, storeAt url: URL,
                                          options: CoreDataStack.Options = .init()) throws -> CoreDataStack {
        let stack = try CoreDataStack(model: model, store: .url(url), options: options)
        use(stack)
        return stack
    }

    /// A store in memory: for tests and previews.
    @discardableResult
    public static func setupInMemoryStack(model: ManagedObjectModel, options: CoreDataStack.Options = .init()) throws -> CoreDataStack {
        let stack = try CoreDataStack(model: model, store: .inMemory, options: options)
        use(stack)
        return stack
    }

    /// Drops the default stack; its contexts must no longer be used.
    public static func cleanUp() {
        current.withLock { $0 = nil }
    }

    // MARK: - Logging

    /// MagicalRecord's logging level: off, error, warn (the default),
    /// info, debug or verbose.
    public static func setLoggingLevel(_ level: MRLog.Level) {
        MRLog.level = level
    }

    /// The logging level in force (`setLoggingLevel(_:)` sets it):
    /// MagicalRecord's `loggingLevel`.
    public static var loggingLevel: MRLog.Level { MRLog.level }

    // MARK: - Save blocks

    /// Runs `block` on a new private context, saves it to the store, merges
    /// into the default context, and calls `completion` on the stack's
    /// completion queue (the main queue unless the stack's options say
    /// otherwise): `(true, nil)` after a save, `(false, nil)` when there
    /// was nothing to save, `(false, error)` on failure.
    ///
    /// The completion is a required argument (pass `nil` for none), so that
    /// `try await MagicalRecord.save { … }` always means the async form,
    /// which returns after the save, in top-level code too.
    public static func save(_ block: @escaping @Sendable (ManagedObjectContext) throws -> Void,
                            completion: (@Sendable (Bool, Error?) -> Void)?) {
        let stack: CoreDataStack
        do {
            stack = try self.stack
        } catch {
            DispatchQueue.main.async { completion?(false, error) }
            return
        }
        let context = stack.newPrivateContext()
        context.perform {
            let result = Result { () throws -> Bool in
                try block(context)
                return try context.saveToPersistentStoreAndWait()
            }
            stack.completionQueue.async {
                switch result {
                case .success(let saved): completion?(saved, nil)
                case .failure(let error): completion?(false, error)
                }
            }
        }
    }

    /// Runs `block` on a new private context and saves it to the store
    /// before returning. Returns whether anything was saved.
    @discardableResult
    public static func saveAndWait(_ block: (ManagedObjectContext) throws -> Void) throws -> Bool {
        let context = try stack.newPrivateContext()
        return try context.performAndWait {
            try block(context)
            return try context.saveToPersistentStoreAndWait()
        }
    }

    /// Runs `block` on a new private context and saves it to the store.
    @discardableResult
    public static func save(_ block: @escaping @Sendable (ManagedObjectContext) throws -> Void) async throws -> Bool {
        let context = try stack.newPrivateContext()
        return try await context.perform {
            try block(context)
            return try context.saveToPersistentStoreAndWait()
        }
    }
}

/// MagicalRecord used without a stack.
public enum MagicalRecordError: Error, CustomStringConvertible, LocalizedError {
    /// No stack is set up: none yet, or `cleanUp()` removed it.
    case noStack

    public var description: String {
        switch self {
        case .noStack:
            "no Core Data stack: call MagicalRecord.setupCoreDataStack (or setupInMemoryStack) first; cleanUp() removes it"
        }
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
