import Foundation
import ObjectStore

extension ManagedObjectContext {
    /// Saves this context only, not its parents. Returns false when there
    /// was nothing to save.
    @discardableResult
    public func saveOnlySelfAndWait() throws -> Bool {
        try performAndWait {
            guard hasChanges else { return false }
            try save()
            return true
        }
    }

    /// Saves this context, then each parent up to the store, each on its
    /// own queue, as one save: when any level fails, every context of the
    /// chain is left as it was (see `saveUpToStore()`). Returns false when
    /// this context had nothing to save.
    @discardableResult
    public func saveToPersistentStoreAndWait() throws -> Bool {
        try performAndWait { try saveUpToStore() }
    }

    /// Saves to the store in the background and calls `completion` on
    /// `queue` (the main queue unless given) with whether anything was
    /// saved, or the error.
    ///
    /// The completion is a required argument (pass `nil` for none), so that
    /// `try await context.saveToPersistentStore()` always means the async
    /// form, which returns after the save, in top-level code too.
    public func saveToPersistentStore(on queue: DispatchQueue = .main, completion: (@Sendable (Bool, Error?) -> Void)?) {
        perform {
            let result = Result { try self.saveToPersistentStoreAndWait() }
            queue.async {
                switch result {
                case .success(let saved): completion?(saved, nil)
                case .failure(let error): completion?(false, error)
                }
            }
        }
    }

    /// Saves this context only (into its parent), in the background;
    /// `completion` on `queue`, the main queue unless given. Required, as
    /// in ``saveToPersistentStore(on:completion:)``.
    public func saveOnlySelf(on queue: DispatchQueue = .main, completion: (@Sendable (Bool, Error?) -> Void)?) {
        perform {
            let result = Result { try self.saveOnlySelfAndWait() }
            queue.async {
                switch result {
                case .success(let saved): completion?(saved, nil)
                case .failure(let error): completion?(false, error)
                }
            }
        }
    }

    /// Saves to the store; returns whether anything was saved.
    @discardableResult
    public func saveToPersistentStore() async throws -> Bool {
        try await perform { try self.saveToPersistentStoreAndWait() }
    }

    /// Saves this context only (into its parent); returns whether anything
    /// was saved.
    @discardableResult
    public func saveOnlySelf() async throws -> Bool {
        try await perform { try self.saveOnlySelfAndWait() }
    }
}
