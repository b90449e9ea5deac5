import Foundation
import Predicates

extension SchemaMapping {
    /// The SELECT of a store's `prefetchRows(of:sourceEntity:sources:)`: the
    /// sources' keys bound to the first parameter as a JSON list; nil for
    /// a relationship stored nowhere (no inverse, no join table).
    package func prefetchSQL(of relationship: RelationshipDescription, sourceEntity: EntityDescription,
                             dialect: SQLDialect) -> String? {
        let mapping = self
        guard let destination = relationship.destination else { return nil }
        let root = destination.rootEntity
        let table = mapping.table(for: root)
        // The keys are the statement's only value, bound when it runs.
        let keys = dialect.keysIn(SQL.boundLater(type: "text"))
        if let join = mapping.joinTable(relationship.name, of: sourceEntity) {
            let order = join.orderColumn.map { "j.\($0), " } ?? ""
            let sql: SQL = "SELECT \(mapping.selectList(for: root)), j.\(join.sourceColumn) FROM \(join.name) j "
                + "JOIN \(table.name) t ON t.\(mapping.primaryKey) = j.\(join.destinationColumn) "
                + "WHERE j.\(join.sourceColumn) IN \(keys) ORDER BY j.\(join.sourceColumn), \(order)t.\(mapping.primaryKey)"
            return sql.rendered(by: dialect).text
        }
        if let columns = mapping.toManyKey(relationship, of: sourceEntity) {
            let fk = "t.\(columns.foreignKey)"
            let order = columns.order.map { "t.\($0), " } ?? ""
            let sql: SQL = "SELECT \(mapping.selectList(for: root)), \(fk) FROM \(table.name) t "
                + "WHERE \(fk) IN \(keys) ORDER BY \(fk), \(order)t.\(mapping.primaryKey)"
            return sql.rendered(by: dialect).text
        }
        return nil
    }
}
