import Foundation

// Errors a Swift user can show: `error.localizedDescription` (and an
// alert, a log line, a server's error body) says what `print(error)` says,
// not "The operation could not be completed".

extension SyntaxError: LocalizedError {
    /// The same text as `description`: what is wrong and where.
    public var errorDescription: String? { description }
}

extension EvaluationError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
