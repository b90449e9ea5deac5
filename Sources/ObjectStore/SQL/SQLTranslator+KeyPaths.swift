import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

// Key paths and scalar expressions as SQL operands: a key path's joins and
// column, constants, variables and objects.
extension SQLTranslator {
    enum Resolved {
        case attribute(String, AttributeType)
        /// The foreign key, the destination, and the condition that the
        /// key's row exists when the store does not guarantee it.
        case toOne(String, EntityDescription, presence: String?)
    }

    /// A to-one key path: joins as needed, then the column.
    mutating func resolve(_ path: [String], in scope: Scope, range: SourceRange = .unknown) throws -> Resolved {
        // The common case: one stored attribute of the scope's own entity
        // (only those have a column); anything else takes the long way.
        if path.count == 1, !scope.hasVariables {
            if scope === root {
                if let column = mapping.rowColumn(for: path[0], of: scope.entity) { return .attribute(column.sql, column.type) }
            } else if let column = mapping.column(for: path[0], of: scope.entity) {
                return .attribute(Self.columnSQL(alias: scope.alias, column: column.name), column.type)
            }
        }
        var current = scope
        var components = path
        if let first = components.first, let variableScope = scope.variable(first) {
            current = variableScope
            components.removeFirst()
            if components.isEmpty {
                return .toOne("\(variableScope.alias).\(mapping.primaryKey)", variableScope.entity, presence: nil)
            }
        }
        var alias = current.alias
        var entity = current.entity
        var prefix = ""
        for (i, key) in components.enumerated() {
            let isLast = i == components.count - 1
            if let attribute = entity.attribute(named: key) {
                guard isLast else { throw Untranslatable(reason: "key path through an attribute") }
                if attribute.isTransient { throw Untranslatable(reason: "transient attribute") }
                guard let column = mapping.column(for: key, of: entity) else { throw Untranslatable(reason: "unmapped attribute") }
                return .attribute(Self.columnSQL(alias: alias, column: column.name), attribute.type)
            }
            if entity.compositeAttribute(named: key) != nil {
                // `magnitude.richter`: the element's own column.
                let element = components[i...].joined(separator: ".")
                guard !isLast, let attribute = entity.attribute(named: element), !attribute.isTransient,
                      let column = mapping.column(for: element, of: entity) else {
                    throw Untranslatable(reason: "a composite attribute as a whole")
                }
                return .attribute(Self.columnSQL(alias: alias, column: column.name), attribute.type)
            }
            guard let relationship = entity.relationship(named: key) else {
                // A fetched property is a fetch of its own per object: in memory.
                if entity.fetchedProperties.contains(where: { $0.name == key }) {
                    throw Untranslatable(reason: "fetched property")
                }
                throw UnknownKey(key: key, entity: entity, range: range)
            }
            guard relationship.isToOne, !relationship.isTransient, let destination = relationship.destination,
                  let columns = mapping.toOne(key, of: entity) else {
                throw Untranslatable(reason: "to-many in a scalar key path")
            }
            let fk = "\(alias).\(columns.foreignKey)"
            if isLast {
                guard !enforcesKeys(relationship, entity) else { return .toOne(fk, destination, presence: nil) }
                // One alias (no other is `k`): the same key path writes the
                // same SQL, which a grouped dictionary fetch compares.
                let presence = "EXISTS (SELECT 1 FROM \(mapping.table(for: destination).name) k "
                    + "WHERE k.\(mapping.primaryKey) = \(fk))"
                return .toOne(fk, destination, presence: presence)
            }
            prefix += (prefix.isEmpty ? "" : ".") + key
            if let existing = current.joinAliases[prefix] {
                alias = existing.alias
            } else {
                guard current.joinCount < Self.maximumJoins else {
                    throw Untranslatable(reason: "more joins than SQLite takes in one query")
                }
                let joined = newAlias()
                let table = mapping.table(for: destination)
                current.addJoin("LEFT JOIN \(table.name) \(joined) ON \(joined).\(mapping.primaryKey) = \(fk)",
                                prefix: prefix, alias: joined, entity: destination)
                alias = joined
            }
            entity = destination
        }
        throw Untranslatable(reason: "empty key path")
    }

    /// `alias."column"`.
    static func columnSQL(alias: String, column: SQLIdentifier) -> String {
        // Appends, not interpolation: most results fit in a small string.
        var sql = alias
        sql += "."
        sql += column.quoted
        return sql
    }

    static func category(of type: AttributeType) -> Category {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: return .number
        case .boolean: return .boolean
        case .string: return .string
        case .uuid: return .uuid
        case .uri: return .url
        case .date: return .date
        case .binary, .transformable, .objectID: return .data
        case .undefined, .composite: return .unknown
        }
    }

    static func category(of value: Value) -> Category {
        switch value {
        case .null: return .unknown
        case .bool: return .boolean
        case .int, .double, .decimal: return .number
        case .string: return .string
        case .uuid: return .uuid
        case .url: return .url
        case .date: return .date
        case .data: return .data
        }
    }

    mutating func operand(_ expression: Expression, in scope: Scope) throws -> Operand {
        try deeper()
        defer { nesting -= 1 }
        switch expression.kind {
        case .constant(let value):
            let dialect = self.dialect
            return try dialect.constant(value, in: &self)
        case .keyPath(let path):
            if path.count == 1, scope === root, let named = namedColumns[path[0]] {
                return Operand(sql: named.sql, category: named.category, kind: named.kind)
            }
            switch try resolve(path, in: scope, range: expression.range) {
            case .attribute(let sql, let type):
                if type == .decimal { throw Untranslatable(reason: "decimal attributes compare exactly only in memory") }
                // Booleans compare with numbers, as 0 and 1, as in SQLite.
                return Operand(form: .text(dialect.column(sql, of: type)), category: Self.category(of: type), kind: .of(type))
            case .toOne(let sql, let destination, let presence):
                return Operand(form: .text(sql), category: .object, entity: destination, presence: presence)
            }
        case .variable(let name):
            if let variableScope = scope.variable(name) {
                return Operand(sql: "\(variableScope.alias).\(mapping.primaryKey)", category: .object, entity: variableScope.entity)
            }
            if case .object(let id)? = objectVariables[name] { return objectOperand(id) }
            throw Untranslatable(reason: "unbound variable $\(name)")
        case .object(let reference):
            guard let id = reference.objectID else { throw Untranslatable(reason: "an object of another kind than managed objects") }
            return objectOperand(id)
        case .evaluatedObject:
            return Operand(sql: "\(scope.alias).\(mapping.primaryKey)", category: .object, entity: scope.entity)
        case .member(let base, let path):
            if case .variable(let name) = base.kind, scope.variable(name) != nil {
                return try operand(Expression(.keyPath([name] + path), range: expression.range), in: scope)
            }
            throw Untranslatable(reason: "key path on an expression")
        case .binary(let op, _, _):
            return try arithmetic(expression, top: op, in: scope)
        case .negate(let inner):
            let value = try operand(inner, in: scope)
            guard value.category == .number else { throw Untranslatable(reason: "negating a non-number") }
            // -Int64.min is an error in PostgreSQL, a double in the evaluator.
            try dialect.checkNegation(of: value)
            return Operand(sql: "(-\(value.sql))", category: .number, kind: value.kind)
        case .function(.now, []):
            let dialect = self.dialect
            return try dialect.constant(.date(Date()), in: &self)
        case .collection(let op, let base, let key):
            return try collection(op, base: base, key: key, in: scope)
        case .subquery:
            throw Untranslatable(reason: "SUBQUERY outside @count")
        case .cast(let inner, .date):
            if case .constant(let v) = inner.kind, let seconds = v.numericValue {
                let date = Date(timeIntervalSinceReferenceDate: seconds)
                let dialect = self.dialect
                return try dialect.constant(.date(date), in: &self)
            }
            throw Untranslatable(reason: "CAST of a non-constant")
        default:
            throw Untranslatable(reason: "expression evaluated in memory")
        }
    }
}

extension Value {
    /// The value as a Double when it is a number (or a boolean).
    var numericValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        default: return nil
        }
    }
}
