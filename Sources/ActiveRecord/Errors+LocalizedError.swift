import Foundation

// Errors a Swift user can show: `error.localizedDescription` says what
// `print(error)` says.

extension FinderError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension ImportError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension JSONSyntaxError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension CSVSyntaxError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

extension CSVImportError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
