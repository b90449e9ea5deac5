import Foundation
import Predicates
import struct Predicates.Predicate

/// What a fetch will run, for `explain`: the very statements the fetch
/// executes (taken from the same code), and what it does in memory after.
public struct FetchExplanation: Sendable {
    /// A value bound to a parameter.
    public enum Binding: Sendable, Hashable {
        /// A value known now.
        case value(Value)
        /// The primary keys the statement before finds, as a JSON list:
        /// known only when it runs.
        case keysFoundBefore
        /// The primary keys of the saved objects whose unsaved changes (in
        /// the context or its ancestors) decide whether they match, as a
        /// JSON list: known only when it runs.
        case keysOfPendingChanges
        /// A LIMIT: this many rows (the request's offset plus its limit)
        /// plus the number of those saved objects, which SQL may return
        /// and memory leaves out: known only when it runs.
        case rowsPlusPendingChanges(Int)
        /// This many primary keys, found by the statements before: one
        /// parameter each in SQLite, one array in PostgreSQL.
        case keys(Int)
    }

    /// The engine whose SQL the statements are.
    public enum Engine: String, Sendable {
        /// SQLite: parameters written `?1`, `?2`, …
        case sqlite = "SQLite"
        /// PostgreSQL: parameters written `$1`, `$2`, …
        case postgres = "PostgreSQL"
    }

    /// One SQL statement.
    public struct Step: Sendable {
        /// The statement, with numbered parameters.
        public let sql: String
        /// The values bound to `?1`, `?2`, … (`$1`, `$2`, … in PostgreSQL)
        public var bindings: [Binding] {
            switch storage {
            case .values(let values): return values.map { .value($0) }
            case .bindings(let bindings): return bindings
            }
        }
        /// The bindings as given: a statement's values known now (most
        /// statements) are kept as the plan holds them, not copied into a
        /// list of ``Binding``s no caller may read (workload e).
        fileprivate let storage: Storage
        fileprivate enum Storage: Sendable {
            case values([Value])
            case bindings([Binding])
        }
        /// What the statement is for: `count`, `rows`, `ids`, `keys`
        /// (the saved matches of a dictionary fetch), `dictionaries`,
        /// `changed` (how many of the saved objects with unsaved changes a
        /// count counted, to count them as they are now), `batch` (a batch
        /// of objects by key), `prefetch` (the related objects of a batch,
        /// by key), `prefetch many` (a to-many's objects for a whole
        /// batch, its keys as a JSON list); for a batch request also
        /// `update`, `delete`, `delete rule`, `key bookkeeping`,
        /// `range check` and `update each`.
        public let purpose: String

        package init(sql: String, bindings: [Binding], purpose: String) {
            self.sql = sql
            self.storage = .bindings(bindings)
            self.purpose = purpose
        }

        /// A statement whose bindings are `values`, all known now.
        package init(sql: String, values: [Value], purpose: String) {
            self.sql = sql
            self.storage = .values(values)
            self.purpose = purpose
        }

        /// The values bound, with a string placeholder for those known
        /// only when the statement runs.
        var values: [Value] {
            switch storage {
            case .values(let values): return values
            case .bindings(let bindings):
                return bindings.map {
                    if case .value(let v) = $0 { return v }
                    return .string("[…]")
                }
            }
        }
    }

    /// Every statement, in the order they run.
    public let steps: [Step]
    /// The part of the predicate evaluated in memory on the rows of the
    /// first statement; nil when SQL runs all of it.
    public let residual: Predicate?
    /// Whether sorting happens in memory (a sort key SQL cannot order by).
    public let sortsInMemory: Bool
    /// Whether the context's unsaved changes are merged in memory: matching
    /// inserts added, deletes left out, changed objects tested again.
    public let mergesPendingChanges: Bool
    /// Whether the limit and offset are applied in memory.
    public let windowsInMemory: Bool
    /// Whether the first statement is run in pages of its sorted rows,
    /// each twice as long as the last, until the residual has let through
    /// enough rows for the limit and offset (its SQL is shown without the
    /// LIMIT and OFFSET each page adds).
    public let readsInPages: Bool
    /// The part of a dictionary fetch's HAVING predicate evaluated in
    /// memory on its rows.
    public let havingResidual: Predicate?
    /// Whose SQL the statements are.
    public let engine: Engine

    package init(steps: [Step], residual: Predicate?, sortsInMemory: Bool, mergesPendingChanges: Bool,
                 windowsInMemory: Bool, havingResidual: Predicate?, engine: Engine, readsInPages: Bool = false) {
        self.steps = steps
        self.residual = residual
        self.sortsInMemory = sortsInMemory
        self.mergesPendingChanges = mergesPendingChanges
        self.windowsInMemory = windowsInMemory
        self.readsInPages = readsInPages
        self.havingResidual = havingResidual
        self.engine = engine
    }

    /// The `n`th parameter (from 1) as the engine writes it: `?1` or `$1`.
    ///
    /// ```swift
    /// plan.parameter(2)   // "$2" on PostgreSQL
    /// ```
    public func parameter(_ n: Int) -> String {
        (engine == .postgres ? "$" : "?") + String(n)
    }

    /// This explanation with `step` run after its statements.
    package func adding(_ step: Step) -> FetchExplanation {
        FetchExplanation(steps: steps + [step], residual: residual, sortsInMemory: sortsInMemory,
                         mergesPendingChanges: mergesPendingChanges, windowsInMemory: windowsInMemory,
                         havingResidual: havingResidual, engine: engine, readsInPages: readsInPages)
    }

    /// The last (main) statement's SQL.
    public var sql: String { steps.isEmpty ? "" : steps[steps.count - 1].sql }

    /// The last statement's bound values (the keys found before as a
    /// string placeholder).
    public var bindings: [Value] {
        guard !steps.isEmpty else { return [] }
        // The stored values read where they are: through `values` the
        // whole step was copied out of the list first (workload e).
        if case .values(let values) = steps[steps.count - 1].storage { return values }
        return steps[steps.count - 1].values
    }
}

extension ManagedObjectContext {
    /// The SQL a fetch request runs against the store, without running it:
    /// the statements `fetch`, `count(for:)` (for a `.count` result type)
    /// and `fetchRows` (for `.dictionary`) execute, taken from the code
    /// they run, with what is done in memory after. For objects, a batch
    /// size and prefetching are part of the plan: the keys first, then
    /// what each batch reads (its rows, then each prefetched
    /// relationship's objects not loaded yet).
    ///
    /// ```swift
    /// let plan = try context.explain(request)
    /// print(plan.sql, plan.bindings)
    /// ```
    public func explain(_ request: FetchRequest) throws -> FetchExplanation {
        try performAndWait {
            let entity = try entity(for: request)
            if request.resultType == .dictionary {
                return try explainDictionaries(request, entity: entity)
            }
            // Objects read a batch at a time are found by their IDs first.
            let wanting: FetchStatement.Kind = request.resultType == .count ? .count
                : request.resultType == .managedObjectID || request.fetchBatchSize > 0 ? .ids : .rows
            guard let statement = try fetchStatement(request, entity: entity, wanting: wanting) else {
                // Names why there is no SQL: the entity's objects are in other stores.
                _ = try persistentStoreCoordinator!.sqlBackend(for: entity, purpose: "explain")
                throw StoreError(.misuse, "explain needs the entity's objects in a single SQLite or PostgreSQL store")
            }
            let purpose: String
            switch statement.kind {
            case .count: purpose = "count"
            case .ids: purpose = "ids"
            case .rows: purpose = "rows"
            }
            let values = statement.bindings
            let paged = parent == nil && statement.readsInPages(request)
            let sql = statement.firstSQL(request, paged: paged)
            // Each list made whole, once (not grown step by step).
            var steps: [FetchExplanation.Step]
            switch statement.merge {
            case .excludingDecided(let rows):
                steps = rows > 0
                    ? [.init(sql: sql, bindings: values.map { .value($0) } + [.rowsPlusPendingChanges(rows)], purpose: purpose)]
                    : [.init(sql: sql, values: values, purpose: purpose)]
            case .countingDecided(let changedSQL):
                steps = [.init(sql: sql, values: values, purpose: purpose),
                         .init(sql: changedSQL, bindings: values.map { .value($0) } + [.keysOfPendingChanges], purpose: "changed")]
            case .none, .inMemory:
                steps = [.init(sql: sql, values: values, purpose: purpose)]
            }
            if request.resultType == .managedObject {
                steps += loadingSteps(request, entity: entity, store: statement.store)
            }
            return FetchExplanation(steps: steps,
                                    residual: statement.plan.residual, sortsInMemory: !statement.plan.sortsInSQL,
                                    mergesPendingChanges: statement.pending, windowsInMemory: statement.worksInMemory,
                                    havingResidual: nil, engine: statement.store.dialect.engine,
                                    readsInPages: paged)
        }
    }

    /// What a fetch of objects runs after its first statement, for each
    /// batch (one batch without a batch size): the batch's rows by key
    /// (with a batch size: the first statement found only keys), then the
    /// objects each prefetched relationship reaches. Each runs only when
    /// some object it loads is not loaded yet.
    private func loadingSteps(_ request: FetchRequest, entity: EntityDescription,
                              store: any SQLStore) -> [FetchExplanation.Step] {
        let mapping = store.mapping
        var steps: [FetchExplanation.Step] = []
        func rows(of root: EntityDescription, purpose: String) {
            steps.append(.init(sql: FetchPlan.selectRows(byKeys: "?, …", root: root, mapping: mapping),
                               bindings: [.keysFoundBefore], purpose: purpose))
        }
        if request.fetchBatchSize > 0 { rows(of: entity.rootEntity, purpose: "batch") }
        var done: Set<String> = []
        for keyPath in request.relationshipKeyPathsForPrefetching {
            var source = entity
            var prefix = ""
            for key in keyPath.split(separator: ".").map(String.init) {
                prefix += (prefix.isEmpty ? "" : ".") + key
                guard let owner = source.selfAndDescendants.first(where: { $0.relationship(named: key) != nil }),
                      let relationship = owner.relationship(named: key), let destination = relationship.destination else { break }
                source = destination
                guard done.insert(prefix).inserted else { continue }
                if relationship.isToOne {
                    rows(of: destination.rootEntity, purpose: "prefetch")
                } else if let sql = mapping.prefetchSQL(of: relationship, sourceEntity: owner, dialect: store.dialect) {
                    steps.append(.init(sql: sql, bindings: [.keysFoundBefore], purpose: "prefetch many"))
                }
            }
        }
        return steps
    }

    private func explainDictionaries(_ request: FetchRequest, entity: EntityDescription) throws -> FetchExplanation {
        let store = try persistentStoreCoordinator!.sqlBackend(for: entity, purpose: "explain")
        let (first, plan) = try dictionaryStatements(request, entity: entity, store: store)
        var steps: [FetchExplanation.Step] = []
        if let first {
            steps.append(.init(sql: first.sql, values: first.bindings, purpose: "keys"))
        }
        steps.append(.init(sql: plan.sql, bindings: plan.bindings.enumerated().map { i, value in
            i == plan.keysBinding ? .keysFoundBefore : .value(value)
        }, purpose: "dictionaries"))
        return FetchExplanation(steps: steps, residual: first?.plan.residual, sortsInMemory: false, mergesPendingChanges: false,
                                windowsInMemory: plan.havingResidual != nil, havingResidual: plan.havingResidual,
                                engine: store.dialect.engine, readsInPages: first.map { $0.statement.readsInPages($0.request) } ?? false)
    }
}

