import Foundation

// Errors a Swift user can show: `error.localizedDescription` says what
// `print(error)` says, not "The operation could not be completed.
// (ObjectStore.ModelError error 1.)".

extension StoreError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension ModelError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension ValidationIssue: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension ValidationError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension MergeConflictError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension ConstraintConflictError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
