import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// What to fetch: an entity, a predicate, an order, a window, and the shape
/// of the results.
///
/// ```swift
/// var request = FetchRequest(entityName: "Person")
/// request.predicate = try Predicate(format: "age > %d", 18)
/// request.sortDescriptors = try SortSpec.parse("lastName:NO")
/// request.fetchLimit = 10
/// let people = try context.fetch(request)
/// ```
public struct FetchRequest: Sendable {
    /// The shape of the results (Core Data's `NSFetchRequestResultType`),
    /// which says which call runs the request.
    public enum ResultType: Sendable {
        /// Objects, from ``ManagedObjectContext/fetch(_:)->FetchResults``
        /// (the default).
        case managedObject
        /// Object IDs, from ``ManagedObjectContext/fetchObjectIDs(_:)``.
        case managedObjectID
        /// One dictionary per row or group, from
        /// ``ManagedObjectContext/fetchDictionaries(_:)`` or
        /// ``ManagedObjectContext/fetchRows(_:)``.
        case dictionary
        /// The number of matches, from
        /// ``ManagedObjectContext/count(for:)-(FetchRequest)``.
        case count
    }

    /// The entity to fetch, by name; an unknown name makes the fetch throw.
    public var entityName: String
    /// Which objects to fetch; nil fetches them all.
    // Spelled `Optional<…>`, set by the initializer alone: a `Predicate?`
    // property is nil first and then assigned, which made the initializer
    // build the request twice over (mrq-bench e. parse: 700 instructions).
    public var predicate: Optional<Predicate>
    /// The order: key paths (through to-one relationships too), each
    /// ascending or descending.
    public var sortDescriptors: [SortKey]  // set by the initializer alone, as `predicate`
    /// 0 means no limit.
    public var fetchLimit = 0
    /// How many results to skip before the first one returned, after
    /// sorting; 0 skips none. With `fetchLimit`, a page of results.
    public var fetchOffset = 0
    /// When non-zero, IDs are fetched first and objects are loaded batch by
    /// batch as the results are read.
    public var fetchBatchSize = 0
    /// Whether instances of sub-entities are included.
    public var includesSubentities = true
    /// Whether the context's unsaved changes count: matching inserts are
    /// included, deleted objects left out, changed objects re-evaluated.
    public var includesPendingChanges = true
    /// Whether objects come back as faults when not yet registered.
    public var returnsObjectsAsFaults = true
    /// Relationship key paths whose destinations are loaded with the results.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// The shape of the results; `.managedObject` by default.
    public var resultType: ResultType = .managedObject
    /// For dictionary results: key paths and expressions to fetch.
    public var propertiesToFetch: [PropertyToFetch]?
    /// For dictionary results: whether rows with the same values come
    /// back once (SQL's `SELECT DISTINCT`).
    public var returnsDistinctResults = false
    /// For dictionary results: key paths to group by.
    public var propertiesToGroupBy: [String]?
    /// Filters groups, over the fetched properties' names.
    public var havingPredicate: Predicate?
    /// Objects the predicate names as `$variables`, by ID: `department ==
    /// $d` compares identity (in SQL, the foreign key with the object's
    /// primary key), `department IN $ds` tests membership in a list.
    ///
    /// ```swift
    /// request.predicate = try Predicate(format: "department == $d")
    /// request.objectVariables = ["d": .object(sales.objectID)]
    /// ```
    ///
    /// In Swift, an object or ID given for `%@` does the same without a
    /// variable: `Predicate(format: "department == %@", sales)`.
    public var objectVariables: [String: ObjectVariable] = .init()

    /// A request for the objects of `entityName` matching `predicate` (all
    /// of them for nil), in the order of `sortDescriptors` (in no
    /// guaranteed order when empty).
    public init(entityName: String, predicate: Predicate? = nil, sortDescriptors: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}

/// A column of a dictionary result: a key path, or an aggregate over one.
public struct PropertyToFetch: Sendable, Hashable {
    /// An aggregate function over a key path, or over the rows for
    /// `count` of an empty key path (Core Data's `sum:`, `min:`, `max:`,
    /// `average:` and `count:` expression functions).
    public enum Function: String, Sendable, CaseIterable {
        /// The total of the values.
        case sum
        /// The smallest value.
        case min
        /// The largest value.
        case max
        /// The mean of the non-nil values.
        case average
        /// How many non-nil values there are, or how many rows for an
        /// empty key path.
        case count
    }

    /// The key in each result dictionary.
    public var name: String
    /// The key path the column reads or aggregates, through to-one
    /// relationships too (`department.name`); empty for an expression.
    public var keyPath: String
    /// nil for a plain key path.
    public var function: Function?
    /// An expression over the row instead of a key path, Core Data's
    /// `NSExpressionDescription`: arithmetic on attributes, collection
    /// operators on to-many relationships.
    public var expression: Expression?

    /// A plain key path, named after itself:
    /// `PropertyToFetch(keyPath: "department.name")`.
    public init(keyPath: String) {
        self.name = keyPath
        self.keyPath = keyPath
        self.function = nil
    }

    /// An expression: `PropertyToFetch(expression: try Expression(format:
    /// "people.@avg.age"), as: "average age")`. Its value is a number (an
    /// integer or a double, as the evaluator computes it), a string or a
    /// date; an expression SQL cannot compute makes the fetch throw.
    public init(expression: Expression, as name: String) {
        self.name = name
        self.keyPath = ""
        self.expression = expression
    }

    /// An aggregate: `PropertyToFetch(.sum, of: "salary", as: "total")`.
    public init(_ function: Function, of keyPath: String, as name: String? = nil) {
        self.function = function
        self.keyPath = keyPath
        self.name = name ?? "\(function.rawValue)(\(keyPath))"
    }
}

/// The value of an object variable of a fetch request: one object, or a
/// list of them (for `IN`).
public enum ObjectVariable: Sendable, Hashable {
    /// One object: `department == $d`.
    case object(ObjectID)
    /// A list: `department IN $ds`.
    case objects([ObjectID])

    /// The IDs it holds.
    public var ids: [ObjectID] {
        switch self {
        case .object(let id): return [id]
        case .objects(let ids): return ids
        }
    }
}
