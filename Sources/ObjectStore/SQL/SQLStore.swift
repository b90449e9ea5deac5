import Foundation
import Predicates

/// A store that answers fetches in SQL: SQLite or PostgreSQL. The context
/// plans a fetch once (`FetchPlan`, through the one `SQLTranslator` in the
/// store's dialect) and runs the statements here, merging its unsaved
/// changes around them the same way for every engine.
package protocol SQLStore: StoreBackend {
    var mapping: SchemaMapping { get }
    var storeNumber: StoreNumber { get }
    /// Whose SQL the store speaks.
    var dialect: SQLDialect { get }
    /// Runs a SELECT built on the mapping's `selectList` and hands each
    /// decoded row to `body`.
    func forEachSnapshot(sql: String, bindings: [Value], root: EntityDescription,
                         _ body: (consuming Snapshot) throws -> Void) throws
    /// Object IDs of a query whose first two columns are `_pk` and `_ent`.
    func objectIDs(sql: String, bindings: [Value], root: EntityDescription) throws -> [ObjectID]
    /// The same, compactly.
    func objectIDList(sql: String, bindings: [Value], root: EntityDescription) throws -> ObjectIDList
    /// The integer a `SELECT COUNT(*)` answers.
    func count(sql: String, bindings: [Value]) throws -> Int
    /// Runs a dictionary fetch's SELECT, handing each decoded row to `body`.
    func forEachRow(of plan: DictionaryPlan, _ body: ([Value]) throws -> Void) throws
    /// Runs `body` with every read it makes of the store seeing one moment.
    func readTransaction<T>(_ body: () throws -> T) throws -> T

    /// Rows of a statement whose parameters are written `?`.
    func sqlRows(_ sql: String, _ values: [Value]) throws -> [[Value]]
    /// Runs a statement whose parameters are written `?`.
    func sqlExecute(_ sql: String, _ values: [Value]) throws
    /// Runs `body` in one write transaction, under the store's lock.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T
    /// Keeps the keys of rows about to be deleted from being handed out
    /// again; explained (with a `listing`), lists what it would write.
    func recordHighestKeys(ofTables tables: Set<SQLIdentifier>, listing: StatementList?) throws
    /// Sets `properties` on every matching row and bumps its version;
    /// returns the IDs it changed. With a `listing`, a dry run for
    /// explain (see ``StatementList``): nothing is written.
    func batchUpdate(entity: EntityDescription, matching: FetchRequest, properties: [String: BatchValue],
                     coordinator: PersistentStoreCoordinator, listing: StatementList?) throws -> [ObjectID]
}

extension SQLStore {
    package var sqlStore: (any SQLStore)? { self }
}

extension PersistentStoreCoordinator {
    /// The SQL store answering for `entity` (for any entity when nil), for
    /// what only SQL answers (dictionary fetches, batch requests); throws
    /// when another kind of store, or several stores, hold it.
    func sqlBackend(for entity: EntityDescription?, purpose: String) throws -> any SQLStore {
        let stores = entity.map { self.stores(for: $0) } ?? backends
        guard stores.count == 1, let store = stores[0].sqlStore else {
            let kinds = stores.map(\.storeType.rawValue).joined(separator: ", ")
            throw StoreError(.misuse, "\(purpose) needs one SQLite or PostgreSQL store\(entity.map { " for \($0.name)" } ?? ""); "
                             + (stores.isEmpty ? "there is none" : "found: \(kinds)"))
        }
        return store
    }

    /// The only store serving `entity` when it answers in SQL: SQL
    /// answers the whole fetch there.
    func soleSQLStore(for entity: EntityDescription, includesSubentities: Bool = true) -> (any SQLStore)? {
        soleStore(for: entity, includesSubentities: includesSubentities)?.sqlStore
    }
}
