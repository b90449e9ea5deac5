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
    public enum ResultType: Sendable {
        case managedObject
        case managedObjectID
        case dictionary
        case count
    }

    public var entityName: String
    public var predicate: Predicate?
    /// The order: key paths (through to-one relationships too), each
    /// ascending or descending.
    public var sortDescriptors: [SortKey] = []
    /// 0 means no limit.
    public var fetchLimit = 0
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
    public var resultType: ResultType = .managedObject
    /// For dictionary results: key paths and expressions to fetch.
    public var propertiesToFetch: [PropertyToFetch]?
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
    public var objectVariables: [String: ObjectVariable] = [:]

    public init(entityName: String, predicate: Predicate? = nil, sortDescriptors: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }
}

/// A column of a dictionary result: a key path, or an aggregate over one.
public struct PropertyToFetch: Sendable, Hashable {
    public enum Function: String, Sendable, CaseIterable {
        case sum, min, max, average, count
    }

    /// The key in each result dictionary.
    public var name: String
    public var keyPath: String
    /// nil for a plain key path.
    public var function: Function?
    /// An expression over the row instead of a key path, Core Data's
    /// `NSExpressionDescription`: arithmetic on attributes, collection
    /// operators on to-many relationships.
    public var expression: Expression?

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
