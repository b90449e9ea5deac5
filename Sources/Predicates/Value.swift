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
    /// `nil` (also `NULL`): the absence of a value, an SQL `NULL`.
    case null
    /// `YES`/`NO` (also `TRUE`/`FALSE`): a Boolean attribute.
    case bool(Bool)
    /// An integer of any width: Integer 16, 32 and 64 attributes.
    case int(Int64)
    /// A floating-point number: Double and Float attributes.
    case double(Double)
    /// An exact decimal number: a Decimal attribute (`NSDecimalNumber`).
    case decimal(Decimal)
    /// Text: a String attribute.
    case string(String)
    /// An instant in time.
    case date(Date)
    /// Bytes: a Binary Data attribute.
    case data(Data)
    /// A UUID attribute.
    case uuid(UUID)
    /// A URI attribute.
    case url(URL)

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
