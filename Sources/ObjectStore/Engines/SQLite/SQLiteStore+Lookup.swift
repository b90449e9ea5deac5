import Foundation
import Predicates

extension SQLiteStore {
    /// Rows of `entity` whose `attribute` is one of `values`.
    package func snapshots(of entity: EntityDescription, where attribute: String, in values: [Value]) throws -> [Snapshot] {
        guard let column = mapping.column(for: attribute, of: entity) else { return [] }
        let root = entity.rootEntity
        let table = mapping.table(for: root)
        var entityFilter = ""
        if let entityColumn = table.entityColumn {
            let codes = entity.selfAndDescendants.map { String(mapping.entityCode($0)) }.joined(separator: ",")
            entityFilter = " AND t.\(entityColumn) IN (\(codes))"
        }
        // A table without rows has none to find: one probe instead of the
        // lists of values (an import into a new store asks for every key
        // it reads, batch after batch).
        let probe = "SELECT 1 FROM \(table.name) LIMIT 1"
        if try values.isEmpty || read({ try $0.scalar(probe) }) == nil { return [] }
        var result: [Snapshot] = []
        let nonNull = values.filter { !$0.isNull }
        for start in stride(from: 0, to: nonNull.count, by: 500) {
            let chunk = Array(nonNull[start..<Swift.min(start + 500, nonNull.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql = "SELECT \(selectList(for: root)) FROM \(table.name) t WHERE t.\(column.name) IN (\(marks))\(entityFilter)"
            result += try snapshots(sql: sql, bindings: chunk, root: root)
        }
        if values.contains(where: \.isNull) {
            let sql = "SELECT \(selectList(for: root)) FROM \(table.name) t WHERE t.\(column.name) IS NULL\(entityFilter)"
            result += try snapshots(sql: sql, bindings: [], root: root)
        }
        return result
    }
}
