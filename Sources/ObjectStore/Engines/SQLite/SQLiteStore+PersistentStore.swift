import Foundation
import Predicates
import struct Predicates.Predicate

extension SQLiteStore: StoreBackend {
    package var url: URL? { path == ":memory:" ? nil : URL(fileURLWithPath: path) }
    package var layout: SchemaMapping.Layout? { mapping.layout }

    package func fetchSnapshots(_ request: FetchRequest, entity: EntityDescription, predicate: Predicate?,
                                windowed: Bool) throws -> StoreFetch {
        let plan = try FetchPlan(request: request, entity: entity, store: self, predicate: predicate)
        let whole = windowed && plan.residual == nil && plan.sortsInSQL
        let sql = whole ? plan.selectRows(store: self, limit: request.fetchLimit, offset: request.fetchOffset)
            : plan.selectRows(store: self, limit: 0, offset: 0)
        let rows = try snapshots(sql: sql, bindings: plan.bindings, root: plan.root)
        return StoreFetch(snapshots: rows, residual: plan.residual, isSorted: plan.sortsInSQL)
    }

    package func prepareSave(_ changes: StoreChanges) throws -> any PreparedSave {
        // The store's lock stays held until commit or rollback, so nothing
        // else runs inside the open transaction.
        lockForPreparedSave()
        do {
            try database.beginTransaction()
        } catch {
            unlockAfterPreparedSave()
            throw error
        }
        do {
            let ids = try save(changes)  // a savepoint inside the open transaction
            return PreparedSQLiteSave(store: self, permanentIDs: ids)
        } catch {
            database.rollbackTransaction()
            unlockAfterPreparedSave()
            throw error
        }
    }

    package func allSnapshots() throws -> [Snapshot] {
        var result: [Snapshot] = []
        for root in model.entities where root.parent == nil {
            let table = mapping.table(for: root)
            let sql = "SELECT \(selectList(for: root)) FROM \(table.name) t ORDER BY t.\(mapping.primaryKey)"
            result += try snapshots(sql: sql, bindings: [], root: root)
        }
        return result
    }
}

/// An open SQLite transaction holding one store's part of a save.
private struct PreparedSQLiteSave: PreparedSave {
    let store: SQLiteStore
    let permanentIDs: PermanentIDs

    func commit() throws {
        defer { store.unlockAfterPreparedSave() }
        try store.database.commitTransaction()
    }

    func rollback() {
        store.database.rollbackTransaction()
        store.unlockAfterPreparedSave()
    }
}
