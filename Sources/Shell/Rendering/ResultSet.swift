import Predicates

/// Rows of values under named columns, ready to be rendered.
///
/// ```swift
/// let people = ResultSet(
///     columns: ["name", "friends"],
///     rows: [[.value(.string("Ada")), .list([.string("Grace")])]]
/// )
/// ```
///
/// A to-one relationship appears as the related object's key value (a
/// `.value`), a to-many relationship as a `.list` of key values.
public struct ResultSet: Sendable, Hashable {
    public var columns: [String]
    public var rows: [[Cell]]

    public init(columns: [String], rows: [[Cell]]) {
        self.columns = columns
        self.rows = rows
    }
}

/// One cell of a ``ResultSet``: a single value or a to-many list.
public enum Cell: Sendable, Hashable {
    case value(Value)
    case list([Value])
}
