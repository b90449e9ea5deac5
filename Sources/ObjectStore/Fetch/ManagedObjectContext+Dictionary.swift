import Foundation
import Predicates
import struct Predicates.Predicate

extension ManagedObjectContext {
    /// Runs a fetch request for dictionaries, Core Data's
    /// `NSDictionaryResultType`: one dictionary per row (or per group),
    /// keyed by the fetched properties' names.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "Person")
    /// request.resultType = .dictionary
    /// request.propertiesToFetch = [PropertyToFetch(keyPath: "department.name"),
    ///                              PropertyToFetch(.sum, of: "salary", as: "total")]
    /// request.propertiesToGroupBy = ["department.name"]
    /// request.havingPredicate = try Predicate(format: "total > 100")
    /// let rows = try context.fetchDictionaries(request)
    /// // [["department.name": "Engineering", "total": 420]]
    /// ```
    ///
    /// As in Core Data, a nil value leaves its key out of the dictionary
    /// (``fetchRows(_:)`` keeps it as `.null`), and the results come from
    /// the saved store only: unsaved changes of this context (and of its
    /// parents) are ignored, whatever `includesPendingChanges` says.
    ///
    /// What each property returns:
    /// - a key path, through to-one relationships too: the attribute's
    ///   value, decoded by its type;
    /// - a to-one relationship's name: the destination's primary key, as
    ///   `.int` (the `ObjectID.primaryKey`);
    /// - `count` of an empty key path: the number of rows; `count` of a
    ///   key path: the number of non-nil values;
    /// - `sum`: `.int` for integer and boolean attributes, `.double` for
    ///   floating-point ones; 0 when there is nothing to add;
    /// - `average`: `.double`, nil when there are no values;
    /// - `min`, `max`: the attribute's type (`.date` for dates), nil when
    ///   there are no values.
    ///
    /// Decimal attributes cannot be summed, averaged or ordered in SQL and
    /// throw. With `propertiesToGroupBy` or any aggregate, every plain
    /// property must be grouped by. `havingPredicate` and sort keys may
    /// name fetched properties (`total > 100`) or key paths; in a grouped
    /// or distinct fetch a sort key must have one value per row: a fetched
    /// or grouped property, or a key path through a grouped to-one
    /// (`department.name` grouped by `department`), else it throws. Parts of the
    /// predicate SQL cannot express are evaluated in memory first (on the
    /// saved objects) and the SQL then runs over the matching rows, so the
    /// answer is always the evaluator's.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: Value]] {
        let result = try fetchRows(request)
        return result.rows.map { row in
            var dictionary: [String: Value] = [:]
            for (name, value) in zip(result.columns, row) where !value.isNull { dictionary[name] = value }
            return dictionary
        }
    }

    /// The rows of a dictionary fetch in column order, for tables: the
    /// fetched properties' names, and one array of values per row, nil
    /// values included as `.null`.
    ///
    /// ```swift
    /// let (columns, rows) = try context.fetchRows(request)
    /// print(columns)   // ["department.name", "total"]
    /// ```
    ///
    /// Everything ``fetchDictionaries(_:)`` says applies.
    public func fetchRows(_ request: FetchRequest) throws -> (columns: [String], rows: [[Value]]) {
        var rows: [[Value]] = []
        let columns = try fetchRows(request) { rows.append($0) }
        return (columns, rows)
    }

    /// The rows of a dictionary fetch one at a time, as SQLite steps
    /// them: a cursor, for results too big to hold. Returns the fetched
    /// properties' names.
    ///
    /// ```swift
    /// try context.fetchRows(request) { row in
    ///     print(row)   // [.string("Engineering"), .int(420)]
    /// }
    /// ```
    ///
    /// No object is made and no array of rows is kept, so memory stays the
    /// same whatever the number of rows. `body` gets each row in column
    /// order (the same array, refilled: copy it to keep it), on the
    /// context's queue. In WAL mode the rows are read on a connection of
    /// their own, so other contexts read and save meanwhile (the rows show
    /// the store as it was when the first was read). `body` must not use
    /// this context. To stop early, throw from `body`; the error comes out
    /// of this call. Everything ``fetchDictionaries(_:)`` says applies.
    @discardableResult
    public func fetchRows(_ request: FetchRequest, each body: ([Value]) throws -> Void) throws -> [String] {
        try performAndWait {
            let entity = try entity(for: request)
            let store = try persistentStoreCoordinator!.sqlBackend(for: entity, purpose: "a dictionary fetch")
            let (matches, plan) = try dictionaryStatements(request, entity: entity, store: store)
            guard let matches else { return try Self.rows(of: plan, request, store: store, body) }
            // The keys and then the rows, of one moment of the store.
            return try store.readTransaction {
                let scratch = ManagedObjectContext(concurrencyType: .confined, coordinator: persistentStoreCoordinator!)
                let keys = try scratch.fetchObjectIDs(matches.request).map(\.primaryKey)
                let restricted = try DictionaryPlan(request: matches.rowsRequest, entity: entity, store: store, restrictedTo: keys)
                return try Self.rows(of: restricted, request, store: store, body)
            }
        }
    }

    /// Runs a dictionary fetch's SELECT, handing `body` each row the HAVING
    /// part SQL cannot express lets through, windowed; returns the names.
    private static func rows(of plan: DictionaryPlan, _ request: FetchRequest, store: any SQLStore,
                             _ body: ([Value]) throws -> Void) throws -> [String] {
        let names = plan.columns.map(\.name)
        guard let having = plan.havingResidual else {
            try store.forEachRow(of: plan, body)
            return names
        }
        // The HAVING part SQL cannot express filters the rows here, so
        // the window (left out of the SQL) is applied after it.
        let evaluator = Evaluator()
        var skipped = 0
        var left = request.fetchLimit > 0 ? request.fetchLimit : Int.max
        do {
            try store.forEachRow(of: plan) { row in
                guard try evaluator.evaluate(having, on: FetchedRow(Dictionary(uniqueKeysWithValues: zip(names, row)))) else {
                    return
                }
                guard skipped >= request.fetchOffset else {
                    skipped += 1
                    return
                }
                try body(row)
                left -= 1
                if left == 0 { throw WindowFilled() }
            }
        } catch is WindowFilled {}
        return names
    }

    /// One aggregate over the saved objects of an entity, MagicalRecord's
    /// `aggregateOperation:onAttribute:withPredicate:`.
    ///
    /// ```swift
    /// let total = try context.aggregate(.sum, of: "salary", entity: "Person",
    ///                                   where: try Predicate(format: "age > 30"))
    /// let people = try context.aggregate(.count, of: "", entity: "Person", where: nil)
    /// ```
    ///
    /// An empty key path with `.count` counts rows. The value is typed as
    /// ``fetchDictionaries(_:)`` describes; `.null` for the average, minimum
    /// or maximum of nothing.
    public func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, entity: String,
                          where predicate: Predicate? = nil) throws -> Value {
        var request = FetchRequest(entityName: entity, predicate: predicate)
        request.resultType = .dictionary
        request.propertiesToFetch = [PropertyToFetch(function, of: keyPath)]
        return try fetchRows(request).rows.first?.first ?? .null
    }

    /// One aggregate per group: the groups' key values, in `groupBy`
    /// order, with the aggregate of each, sorted by the keys.
    ///
    /// ```swift
    /// for group in try context.aggregate(.average, of: "age", entity: "Person",
    ///                                    where: nil, groupBy: ["department.name"]) {
    ///     print(group.keys[0], group.value)   // "Engineering" 31.5
    /// }
    /// ```
    public func aggregate(_ function: PropertyToFetch.Function, of keyPath: String, entity: String,
                          where predicate: Predicate? = nil, groupBy: [String]) throws -> [AggregateGroup] {
        var request = FetchRequest(entityName: entity, predicate: predicate)
        request.resultType = .dictionary
        request.propertiesToFetch = groupBy.map { PropertyToFetch(keyPath: $0) } + [PropertyToFetch(function, of: keyPath)]
        request.propertiesToGroupBy = groupBy
        return try fetchRows(request).rows.map { row in
            AggregateGroup(keys: Array(row.dropLast()), value: row[row.count - 1])
        }
    }

    /// The statements a dictionary fetch runs (`fetchRows` runs them,
    /// `explain` shows them): its SELECT, and first, when the predicate
    /// has a part SQL cannot express, the fetch of the saved objects'
    /// keys that match it, evaluated where needed in memory (on a scratch
    /// context, so that no unsaved change of this one counts); the SELECT
    /// is then restricted to those keys (none here: `fetchRows` plans it
    /// again with them).
    func dictionaryStatements(_ request: FetchRequest, entity: EntityDescription,
                              store: any SQLStore) throws -> (matches: SavedMatches?, plan: DictionaryPlan) {
        let plan = try DictionaryPlan(request: request, entity: entity, store: store)
        guard plan.whereResidual != nil else { return (nil, plan) }
        var matching = FetchRequest(entityName: request.entityName, predicate: request.predicate)
        matching.includesSubentities = request.includesSubentities
        matching.includesPendingChanges = false
        matching.objectVariables = request.objectVariables
        let scratch = ManagedObjectContext(concurrencyType: .confined, coordinator: persistentStoreCoordinator!)
        // One row per object, sorted and limited: the keys of the window
        // alone, read in pages of the sorted rows (see `pagedMatches`),
        // not every match; the rows of those keys then take no offset.
        if request.fetchLimit > 0, request.propertiesToGroupBy?.isEmpty ?? true, !request.returnsDistinctResults,
           !plan.columns.contains(where: \.isAggregate) {
            var window = matching
            window.sortDescriptors = request.sortDescriptors
            window.fetchLimit = request.fetchLimit
            window.fetchOffset = request.fetchOffset
            if let statement = try scratch.performAndWait({ try scratch.fetchStatement(window, entity: entity, wanting: .ids) }),
               statement.readsInPages(window) {
                var rows = request
                rows.fetchOffset = 0
                return (SavedMatches(request: window, statement: statement, rowsRequest: rows),
                        try DictionaryPlan(request: rows, entity: entity, store: store, restrictedTo: []))
            }
        }
        guard let statement = try scratch.performAndWait({ try scratch.fetchStatement(matching, entity: entity, wanting: .ids) }) else {
            throw DictionaryPlan.error("a dictionary fetch needs a single SQLite or PostgreSQL store")
        }
        return (SavedMatches(request: matching, statement: statement, rowsRequest: request),
                try DictionaryPlan(request: request, entity: entity, store: store, restrictedTo: []))
    }

    /// The fetch of the saved matches' keys before a dictionary fetch.
    struct SavedMatches {
        let request: FetchRequest
        let statement: FetchStatement
        /// The request the rows of the keys found are read by.
        let rowsRequest: FetchRequest
        /// The SQL the keys are read with first: a paged read's first page.
        var sql: String { statement.firstSQL(request, paged: statement.readsInPages(request)) }
        var bindings: [Value] { statement.bindings }
        var plan: FetchPlan { statement.plan }
    }
}

/// Stops a row loop once the window has all its rows.
private struct WindowFilled: Error {}

/// One group of ``ManagedObjectContext/aggregate(_:of:entity:where:groupBy:)``.
public struct AggregateGroup: Sendable, Hashable {
    /// The values of the `groupBy` key paths, in order.
    public var keys: [Value]
    /// The aggregate over the group.
    public var value: Value

    /// A group with the given key values and aggregate.
    public init(keys: [Value], value: Value) {
        self.keys = keys
        self.value = value
    }
}

/// A result row as the evaluator sees it for a HAVING predicate: fetched
/// names are keys, and a dotted name (`department.name`) reads as a key
/// path. Any other key is an error, never a silent nil.
private final class FetchedRow: PredicateObject {
    let entries: [String: Value]

    init(_ entries: [String: Value]) { self.entries = entries }

    func predicateValue(forKey key: String) throws -> Operand {
        if let value = entries[key] { return .value(value) }
        let prefix = key + "."
        var nested: [String: Value] = [:]
        for (name, value) in entries where name.hasPrefix(prefix) {
            nested[String(name.dropFirst(prefix.count))] = value
        }
        if nested.isEmpty {
            throw EvaluationError(message: "'\(key)' is not a fetched property; the HAVING predicate reads only fetched names")
        }
        return .object(FetchedRow(nested))
    }
}
