import Foundation
import Predicates

/// One constraint a PostgreSQL store's tables get from its model: a
/// foreign key, a required value, or a validation range.
///
/// ```swift
/// for constraint in try SchemaBuilder.constraints(mapping: mapping, model: model) {
///     print(constraint.summary)   // "Person.department names a Department"
/// }
/// ```
package struct SchemaConstraint: Sendable {
    /// The table the constraint is on.
    package let table: SQLIdentifier
    /// Its name in the catalog (`Person_department_fkey`); nil for a
    /// column's NOT NULL, which has none.
    package let name: SQLIdentifier?
    /// The `ALTER TABLE` that adds it.
    package let addSQL: String
    /// The `ALTER TABLE` that removes it.
    package let dropSQL: String
    /// A query for the rows breaking it: one key column per row (the
    /// row's `_pk`, or a join row's source), in key order.
    package let violationsSQL: String
    /// What it asks, for people: `Person.department names a Department`.
    package let summary: String
    /// What rows breaking it have: `department naming no Department`.
    package let broken: String
    /// Whose rows break it: an entity's name, or a join table's.
    package let rows: String
    /// The key column `violationsSQL` returns (`_pk`, or a join row's
    /// `source`).
    package let keyName: String
}

extension SchemaBuilder {
    /// The version of the constraints `constraints(mapping:model:)` makes,
    /// kept in a PostgreSQL store's metadata: a store without it was made
    /// before them, and gets them by migration.
    package static let constraintsVersion = "1"

    /// The constraints a PostgreSQL store of `model` has beside its
    /// tables: foreign keys (deferred to commit, with no action on delete:
    /// the model's delete rules stay mrq's) on to-one columns and join
    /// tables whose links mrq removes when their destination goes, NOT
    /// NULL on required attributes and to-ones (a CHECK on the entity
    /// code for those of a sub-entity), and CHECKs for the model's
    /// minimum and maximum values, lengths and dates. A CHECK never
    /// refuses what validation accepts: a string's maximum length is
    /// checked on strings of ASCII only (Swift counts characters, which
    /// PostgreSQL cannot), a date's bounds within a millisecond.
    package static func constraints(mapping: SchemaMapping, model: ManagedObjectModel) throws -> [SchemaConstraint] {
        var result: [SchemaConstraint] = []
        let key = mapping.primaryKey
        for root in model.rootEntities {
            let table = mapping.table(for: root)
            for entity in root.selfAndDescendants {
                // Rows of the entity and its sub-entities, when the table holds others.
                var only: String?
                if let entityColumn = table.entityColumn, entity !== root {
                    let codes = entity.selfAndDescendants.map { String(mapping.entityCode($0)) }.joined(separator: ", ")
                    only = "\(entityColumn) IN (\(codes))"
                }
                func add(_ suffix: String, column: SQLIdentifier, holds condition: String, notNull: Bool = false,
                         summary: String, broken: String) throws {
                    let violations = "SELECT \(key) FROM \(table.name) WHERE \(only.map { "\($0) AND " } ?? "")NOT (\(condition)) "
                        + "ORDER BY \(key)"
                    if notNull && only == nil {
                        result.append(SchemaConstraint(
                            table: table.name, name: nil, addSQL: "ALTER TABLE \(table.name) ALTER COLUMN \(column) SET NOT NULL",
                            dropSQL: "ALTER TABLE \(table.name) ALTER COLUMN \(column) DROP NOT NULL", violationsSQL: violations,
                            summary: summary, broken: broken, rows: entity.name, keyName: key.unquoted))
                        return
                    }
                    let name = try constraintName(table.name, column, suffix)
                    let check = only.map { "NOT (\($0)) OR (\(condition))" } ?? condition
                    result.append(SchemaConstraint(
                        table: table.name, name: name, addSQL: "ALTER TABLE \(table.name) ADD CONSTRAINT \(name) CHECK (\(check))",
                        dropSQL: "ALTER TABLE \(table.name) DROP CONSTRAINT IF EXISTS \(name)", violationsSQL: violations,
                        summary: summary, broken: broken, rows: entity.name, keyName: key.unquoted))
                }
                for property in entity.declaredProperties where !property.isTransient {
                    if let attribute = property as? AttributeDescription, attribute.type != .composite,
                       let column = mapping.column(for: attribute.name, of: entity)?.name {
                        if !attribute.isOptional {
                            try add("not_null", column: column, holds: "\(column) IS NOT NULL", notNull: true,
                                    summary: "\(entity.name).\(attribute.name) is required", broken: "no \(attribute.name)")
                        }
                        if let range = rangeCondition(attribute, column: column) {
                            try add("check", column: column, holds: "\(column) IS NULL OR (\(range))",
                                    summary: "\(entity.name).\(attribute.name) is within its bounds",
                                    broken: "\(attribute.name) out of its bounds")
                        }
                    } else if let relationship = property as? RelationshipDescription, relationship.isToOne,
                              let columns = mapping.toOne(relationship.name, of: entity), let destination = relationship.destination {
                        let fk = columns.foreignKey
                        if !relationship.isOptional {
                            try add("not_null", column: fk, holds: "\(fk) IS NOT NULL", notNull: true,
                                    summary: "\(entity.name).\(relationship.name) is required", broken: "no \(relationship.name)")
                        }
                        // A link mrq leaves behind when its destination goes
                        // (no inverse, or an inverse whose rule is no action)
                        // would break the key at commit.
                        guard let inverse = relationship.inverse, inverse.deleteRule != .noAction else { continue }
                        let target = mapping.table(for: destination.rootEntity).name
                        let name = try constraintName(table.name, fk, "fkey")
                        result.append(SchemaConstraint(
                            table: table.name, name: name,
                            addSQL: "ALTER TABLE \(table.name) ADD CONSTRAINT \(name) FOREIGN KEY (\(fk)) REFERENCES \(target) (\(key)) "
                                + "DEFERRABLE INITIALLY DEFERRED",
                            dropSQL: "ALTER TABLE \(table.name) DROP CONSTRAINT IF EXISTS \(name)",
                            violationsSQL: "SELECT t.\(key) FROM \(table.name) t WHERE t.\(fk) IS NOT NULL AND NOT EXISTS "
                                + "(SELECT 1 FROM \(target) d WHERE d.\(key) = t.\(fk)) ORDER BY t.\(key)",
                            summary: "\(entity.name).\(relationship.name) names a \(destination.name)",
                            broken: "\(relationship.name) naming no \(destination.name)", rows: entity.name, keyName: key.unquoted))
                    }
                }
            }
        }
        for entity in model.entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties
            where relationship.isManyToMany && !relationship.isTransient {
                guard let join = mapping.joinTable(relationship.name, of: entity), join.isOwner,
                      let destination = relationship.destination else { continue }
                var sides = [(join.sourceColumn, entity)]
                // The destination's rows take their join rows with them only
                // when they know the relationship (an inverse).
                if relationship.inverse != nil { sides.append((join.destinationColumn, destination)) }
                for (column, side) in sides {
                    let target = mapping.table(for: side.rootEntity).name
                    let name = try constraintName(join.name, column, "fkey")
                    result.append(SchemaConstraint(
                        table: join.name, name: name,
                        addSQL: "ALTER TABLE \(join.name) ADD CONSTRAINT \(name) FOREIGN KEY (\(column)) REFERENCES \(target) (\(key)) "
                            + "DEFERRABLE INITIALLY DEFERRED",
                        dropSQL: "ALTER TABLE \(join.name) DROP CONSTRAINT IF EXISTS \(name)",
                        violationsSQL: "SELECT j.\(join.sourceColumn) FROM \(join.name) j WHERE NOT EXISTS "
                            + "(SELECT 1 FROM \(target) d WHERE d.\(key) = j.\(column)) ORDER BY j.\(join.sourceColumn)",
                        summary: "\(entity.name).\(relationship.name) links name a \(side.name)",
                        broken: "a \(column.unquoted) naming no \(side.name)", rows: "\(entity.name).\(relationship.name) link",
                        keyName: join.sourceColumn.unquoted))
                }
            }
        }
        return result
    }

    /// The condition a value of `attribute` in `column` meets when it is
    /// within the attribute's minimum and maximum; nil when it has none
    /// that SQL can check without refusing what validation accepts.
    static func rangeCondition(_ attribute: AttributeDescription, column: SQLIdentifier) -> String? {
        var parts: [String] = []
        switch attribute.type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            if let minimum = attribute.minValue.flatMap(numberLiteral) { parts.append("\(column) >= \(minimum)") }
            if let maximum = attribute.maxValue.flatMap(numberLiteral) { parts.append("\(column) <= \(maximum)") }
        case .date:
            // Within a millisecond: the bound and the stored value round to
            // PostgreSQL's microseconds each its own way.
            if case .date(let minimum)? = attribute.minValue, let seconds = finite(minimum.timeIntervalSince1970 - 0.001) {
                parts.append("\(column) >= to_timestamp(\(seconds))")
            }
            if case .date(let maximum)? = attribute.maxValue, let seconds = finite(maximum.timeIntervalSince1970 + 0.001) {
                parts.append("\(column) <= to_timestamp(\(seconds))")
            }
        case .string:
            // Swift counts characters: at least as many code points, and as
            // many in ASCII but for "\r\n", one character.
            if case .int(let minimum)? = attribute.minValue { parts.append("char_length(\(column)) >= \(minimum)") }
            if case .int(let maximum)? = attribute.maxValue {
                parts.append("(octet_length(\(column)) <> char_length(\(column)) "
                             + "OR char_length(replace(\(column), E'\\r\\n', E'\\n')) <= \(maximum))")
            }
        case .binary where !attribute.allowsExternalBinaryDataStorage:
            if case .int(let minimum)? = attribute.minValue { parts.append("octet_length(\(column)) >= \(minimum)") }
            if case .int(let maximum)? = attribute.maxValue { parts.append("octet_length(\(column)) <= \(maximum)") }
        default:
            break
        }
        return parts.isEmpty ? nil : parts.joined(separator: " AND ")
    }

    /// A bound as an SQL number: digits the model's value prints as, never
    /// text from it.
    private static func numberLiteral(_ value: Value) -> String? {
        switch value {
        case .int(let n): return String(n)
        case .double(let x): return finite(x)
        case .decimal(let d):
            let text = d.description
            return text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }) ? text : nil
        default: return nil
        }
    }

    private static func finite(_ x: Double) -> String? {
        x.isFinite ? "\(x)" : nil
    }

    /// `table_column_suffix`, PostgreSQL's own way of naming constraints;
    /// one longer than PostgreSQL keeps is cut and told apart by a hash.
    static func constraintName(_ table: SQLIdentifier, _ column: SQLIdentifier, _ suffix: String) throws -> SQLIdentifier {
        let full = "\(table.unquoted)_\(column.unquoted)_\(suffix)"
        guard full.utf8.count > 63 else { return try SQLIdentifier(full) }
        let hash = "_" + fnv1a(full).prefix(12)
        var kept = ""
        for character in full {
            guard kept.utf8.count + character.utf8.count + hash.utf8.count <= 63 else { break }
            kept.append(character)
        }
        return try SQLIdentifier(kept + hash)
    }
}
