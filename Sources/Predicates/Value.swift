import Foundation

/// A scalar value as mrq stores, compares and prints it.
///
/// ```swift
/// let age: Value = .int(42)
/// ```
///
/// Every layer shares this one representation: the predicate evaluator,
/// the store's rows, the shell's renderer. Integers of every width are
/// `.int`; `Float` and `Double` are `.double`.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    /// An instant in time.
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
