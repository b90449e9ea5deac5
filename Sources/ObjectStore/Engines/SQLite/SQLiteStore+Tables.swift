import Foundation
import Predicates

extension SQLiteStore {
    /// Refuses a store that has a view where the mapping reads a table: a
    /// store from someone else can make an entity's "table" a view over a
    /// query that never ends, or over anything else. (Connections cannot
    /// read views at all, see `Database.harden`; this says which, and why.)
    static func refuseViews(_ db: Database, mapping: SchemaMapping) throws {
        let read = Set((mapping.allTables.map(\.name) + mapping.allJoinTables.map(\.name)).map { $0.unquoted.lowercased() })
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'view'") {
            // SQLite's names ignore case: a view "znote" stands for ZNOTE.
            guard case .string(let name)? = row.first, read.contains(name.lowercased()) else { continue }
            throw StoreError(.corrupt, """
                '\(db.path)' has a view named '\(name)' where its entities' table should be: \
                a store keeps its objects in tables, and mrq reads no view
                """)
        }
    }
}
