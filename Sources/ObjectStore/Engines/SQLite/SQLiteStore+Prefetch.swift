import Foundation
import Predicates

extension SQLiteStore {
    /// The destination rows of a to-many relationship for many sources at
    /// once, each with its source's primary key, in each source's order
    /// (the ordered relationship's, else by primary key).
    package func prefetchRows(of relationship: RelationshipDescription, sourceEntity: EntityDescription,
                              sources: [Int64]) throws -> [(owner: Int64, snapshot: Snapshot)]? {
        guard let root = relationship.destination?.rootEntity,
              let sql = mapping.prefetchSQL(of: relationship, sourceEntity: sourceEntity, dialect: dialect) else { return [] }
        let table = mapping.table(for: root)
        let ownerColumn = Int32(3 + table.columns.count)
        let list = "[" + sources.map(String.init).joined(separator: ",") + "]"
        return try read { database in
            let statement = try database.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind([.string(list)])
            var rows: [(owner: Int64, snapshot: Snapshot)] = []
            while try statement.step() {
                rows.append((statement.int64(at: ownerColumn), try decodeSnapshot(statement, root: root)))
            }
            return rows
        }
    }
}
