import Foundation
import Predicates

/// The old model paired with the new one, for a migration: which old
/// entity each new one was, which old property each new one was, and the
/// links of relationships whose storage changes.
///
/// A relationship's links are read as rows `(src, dst, ord, inv_ord)`:
/// the primary keys of an object of the relationship's entity and of one
/// of its destinations, the destination's position among the object's
/// (for an ordered to-many) and the object's among the destination's
/// (for an ordered inverse). Rows keep their primary keys through a
/// migration, so the keys are those of the new tables too.
final class MigrationLinks {
    let old: ManagedObjectModel
    let oldMapping: SchemaMapping
    /// New entity → the old one it was.
    private var oldEntities: [ObjectIdentifier: EntityDescription] = [:]
    /// Old entity → the new one it became.
    private var newEntities: [ObjectIdentifier: EntityDescription] = [:]
    /// (old entity, new entity) → new property → old property, as paired.
    private var propertyPairs: [[ObjectIdentifier]: [ObjectIdentifier: PropertyDescription]] = [:]

    init(old: ManagedObjectModel, oldMapping: SchemaMapping, new: ManagedObjectModel) throws {
        self.old = old
        self.oldMapping = oldMapping
        for (o, n) in try MigrationPlan.entityPairs(old, new) {
            oldEntities[ObjectIdentifier(n)] = o
            newEntities[ObjectIdentifier(o)] = n
        }
    }

    /// The old entity `entity` of the new model was, if any.
    func oldEntity(_ entity: EntityDescription) -> EntityDescription? { oldEntities[ObjectIdentifier(entity)] }

    /// The new entity the old `entity` became, if any.
    func newEntity(_ entity: EntityDescription) -> EntityDescription? { newEntities[ObjectIdentifier(entity)] }

    /// The stored property of `old`'s objects that `property` of `new`'s
    /// objects was (paired as the plan pairs them).
    func oldProperty(_ property: PropertyDescription, of new: EntityDescription, in old: EntityDescription) throws
        -> PropertyDescription?
    {
        guard !property.isTransient else { return nil }
        let key = [ObjectIdentifier(old), ObjectIdentifier(new)]
        if propertyPairs[key] == nil {
            var pairs: [ObjectIdentifier: PropertyDescription] = [:]
            for pair in try MigrationPlan.propertyPairs(old, new) { pairs[ObjectIdentifier(pair.new)] = pair.old }
            propertyPairs[key] = pairs
        }
        let match = propertyPairs[key]?[ObjectIdentifier(property)]
        return match?.isTransient == false ? match : nil
    }

    /// The old relationship `relationship` (of the new model) was, seen
    /// from its declaring entity.
    func oldRelationship(_ relationship: RelationshipDescription) throws -> RelationshipDescription? {
        guard let entity = relationship.entity, let previous = oldEntity(entity) else { return nil }
        return try oldProperty(relationship, of: entity, in: previous) as? RelationshipDescription
    }

    /// Where a new relationship that stores links (a to-one, or the owner
    /// of a join table) gets them from when its storage changed: its old
    /// self stored another way (a to-many, or a to-one now in a join
    /// table), or its inverse's old self, read the other way round. Nil
    /// when rows and join tables carry the links over as they are, or
    /// when there is nothing to carry.
    func changedSource(for relationship: RelationshipDescription, db: MigrationConnection) throws -> String? {
        guard !relationship.isTransient else { return nil }
        let previous = try oldRelationship(relationship)
        if let previous {
            if relationship.isToOne && previous.isToOne { return nil }
            if relationship.isManyToMany && previous.isManyToMany { return nil }
            return try links(of: previous, db: db)
        }
        if let inverse = relationship.inverse, inverse !== relationship, let previousInverse = try oldRelationship(inverse),
           let links = try links(of: previousInverse, db: db) {
            return "SELECT dst AS src, src AS dst, inv_ord AS ord, ord AS inv_ord FROM (\(links)) AS i"
        }
        return nil
    }

    /// A missing position, typed: PostgreSQL would take a bare NULL for text.
    private static let noPosition = "CAST(NULL AS INTEGER)"

    /// The links of an old relationship, as the old store keeps them: in
    /// its own foreign key, in a join table, or in its inverse's foreign
    /// key. Nil when the table is not there.
    func links(of relationship: RelationshipDescription, db: MigrationConnection) throws -> String? {
        guard let entity = relationship.entity else { return nil }
        if relationship.isToOne {
            guard let columns = oldMapping.toOne(relationship.name, of: entity) else { return nil }
            let table = oldMapping.table(for: entity).name
            guard try db.tableExists(table) else { return nil }
            let fk = columns.foreignKey
            return "SELECT \(oldMapping.primaryKey) AS src, \(fk) AS dst, \(Self.noPosition) AS ord, \(columns.order?.quoted ?? Self.noPosition) AS inv_ord "
                + "FROM \(table) WHERE \(fk) IS NOT NULL"
        }
        if relationship.isManyToMany {
            guard let join = oldMapping.joinTable(relationship.name, of: entity), try db.tableExists(join.name) else { return nil }
            return "SELECT \(join.sourceColumn) AS src, \(join.destinationColumn) AS dst, \(join.orderColumn?.quoted ?? Self.noPosition) AS ord, "
                + "\(join.inverseOrderColumn?.quoted ?? Self.noPosition) AS inv_ord FROM \(join.name)"
        }
        guard let inverse = relationship.inverse, let destination = inverse.entity,
              let columns = oldMapping.toOne(inverse.name, of: destination) else { return nil }
        let table = oldMapping.table(for: destination).name
        guard try db.tableExists(table) else { return nil }
        let fk = columns.foreignKey
        return "SELECT \(fk) AS src, \(oldMapping.primaryKey) AS dst, \(columns.order?.quoted ?? Self.noPosition) AS ord, \(Self.noPosition) AS inv_ord "
            + "FROM \(table) WHERE \(fk) IS NOT NULL"
    }

    /// Links whose `column` end (`src` or `dst`) is a row that will not be
    /// of `entity`'s kind (of the new model): a row of an entity removed,
    /// or gone out of the hierarchy. The migration drops them.
    func strays(_ links: String, column: String, endingAt entity: EntityDescription, db: MigrationConnection) throws -> Int {
        guard let previous = oldEntity(entity) else { return try count("SELECT COUNT(*) FROM (\(links)) AS l", db) }
        let table = oldMapping.table(for: previous)
        var kinds = ""
        if let entityColumn = table.entityColumn {
            let codes = previous.rootEntity.selfAndDescendants.filter { newEntity($0)?.isKind(of: entity) == true }
                .map { String(oldMapping.entityCode($0)) }
            guard !codes.isEmpty else { return try count("SELECT COUNT(*) FROM (\(links)) AS l", db) }
            kinds = " AND d.\(entityColumn) IN (\(codes.joined(separator: ",")))"
        } else if newEntity(previous)?.isKind(of: entity) != true {
            return try count("SELECT COUNT(*) FROM (\(links)) AS l", db)
        }
        return try count("SELECT COUNT(*) FROM (\(links)) l WHERE NOT EXISTS "
                         + "(SELECT 1 FROM \(table.name) d WHERE d.\(table.primaryKey) = l.\(column)\(kinds))", db)
    }

    private func count(_ sql: String, _ db: MigrationConnection) throws -> Int {
        guard case .int(let n)? = try db.scalar(sql) else { return 0 }
        return Int(n)
    }

    /// Links a to-one made from `links` drops: all but each object's first.
    static func dropped(by links: String, db: MigrationConnection) throws -> Int {
        guard case .int(let n)? = try db.scalar("SELECT COUNT(*) - COUNT(DISTINCT src) FROM (\(links)) AS l") else { return 0 }
        return Int(n)
    }
}
