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

extension Value {
    /// An integer or a string hashes as itself, without the enum's
    /// general hashing: dictionaries and sets keyed by values (an import's
    /// objects by key value, a batch's wanted keys) hash on every row.
    /// Equal values are of the same case, so they still hash alike.
    public func _rawHashValue(seed: Int) -> Int {
        switch self {
        case .int(let i): return i._rawHashValue(seed: seed)
        case .string(let s): return s._rawHashValue(seed: seed)
        default:
            var hasher = Hasher()
            hasher.combine(seed)
            hash(into: &hasher)
            return hasher.finalize()
        }
    }
}
