import Foundation
import Predicates
import struct Predicates.Predicate

/// What a fetch will run, for `explain`.
public struct FetchExplanation: Sendable {
    /// The SELECT, with numbered parameters.
    public let sql: String
    /// The values bound to `?1`, `?2`, …
    public let bindings: [Value]
    /// The part of the predicate evaluated in memory after the SQL
    /// pre-filter; nil when SQL runs all of it.
    public let residual: Predicate?
    /// Whether sorting happens in memory (a sort key SQL cannot order by).
    public let sortsInMemory: Bool
}

extension ManagedObjectContext {
    /// The SQL a fetch request runs against the store, without running it.
    ///
    /// ```swift
    /// let plan = try context.explain(request)
    /// print(plan.sql, plan.bindings)
    /// ```
    public func explain(_ request: FetchRequest) throws -> FetchExplanation {
        try performAndWait {
            let entity = try entity(for: request)
            let store = try persistentStoreCoordinator!.sqlStore(for: entity, purpose: "explain")
            let plan = try FetchPlan(request: request, entity: entity, store: store, predicate: request.predicate)
            let windowInSQL = plan.residual == nil && plan.order != nil
            let sql: String
            switch request.resultType {
            case .count:
                sql = plan.selectCount(limit: windowInSQL ? request.fetchLimit : 0, offset: windowInSQL ? request.fetchOffset : 0)
            case .managedObjectID:
                sql = plan.selectIDs(limit: windowInSQL ? request.fetchLimit : 0, offset: windowInSQL ? request.fetchOffset : 0)
            default:
                sql = plan.selectRows(store: store, limit: windowInSQL ? request.fetchLimit : 0, offset: windowInSQL ? request.fetchOffset : 0)
            }
            return FetchExplanation(sql: sql, bindings: plan.bindings, residual: plan.residual, sortsInMemory: plan.order == nil)
        }
    }
}
