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

    /// Saves to the store in the background and calls `completion` on the
    /// main queue with whether anything was saved, or the error.
    public func saveToPersistentStore(completion: (@Sendable (Bool, Error?) -> Void)? = nil) {
        perform {
            let result = Result { try self.saveToPersistentStoreAndWait() }
            DispatchQueue.main.async {
                switch result {
                case .success(let saved): completion?(saved, nil)
                case .failure(let error): completion?(false, error)
                }
            }
        }
    }

    /// Saves this context only, in the background; completion on the main queue.
    public func saveOnlySelf(completion: (@Sendable (Bool, Error?) -> Void)? = nil) {
        perform {
            let result = Result { try self.saveOnlySelfAndWait() }
            DispatchQueue.main.async {
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
}
