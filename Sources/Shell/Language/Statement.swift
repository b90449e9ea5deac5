import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// A name as written, with where it was written.
public struct Name: Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var range: SourceRange
    public var description: String { text }
}

/// `Person [where PRED] [sort SPEC] [limit N] [offset N]`.
public struct Query: Sendable {
    public var entity: Name
    public var predicate: Predicate?
    public var sort: [SortKey] = []
    public var limit: Int?
    public var offset: Int?
    public var range: SourceRange
}

/// Where an assigned value comes from.
public indirect enum ValueSource: Sendable {
    /// A predicate-language expression: `30`, `"Ada"`, `age + 1`, `nil`, `now()`.
    case expression(Expression)
    /// `first Department where name == "Eng"`: one object.
    case first(Query)
    /// `Tag where label IN {"a", "b"}`: the objects of a to-many.
    case all(Query)
}

/// `key: value` in an insert, `key = value` in an update.
public struct Assignment: Sendable {
    public var key: Name
    public var value: ValueSource
}

/// `sum salary of Person where ... group by department.name having sum > 10`.
public struct AggregateQuery: Sendable {
    public var function: PropertyFunction
    /// Empty for `count of Person`.
    public var keyPath: [String]
    public var keyRange: SourceRange
    public var query: Query
    public var groupBy: [(path: [String], range: SourceRange)]
    public var having: Predicate?

    public enum PropertyFunction: String, Sendable, CaseIterable {
        case sum, min, max, avg, count
    }
}

/// `select [distinct] a, b.c, people.@count, age * 2 from Person where …
/// sort … limit …`.
public struct SelectQuery: Sendable {
    /// One column: an expression of the predicate language, named as
    /// written.
    public struct Column: Sendable {
        /// What the column shows, evaluated on each object (or in SQL).
        public var expression: Expression
        /// The column's heading: the expression's text.
        public var name: String
    }

    /// Whether repeated rows are dropped.
    public var distinct: Bool
    /// The columns, in order.
    public var columns: [Column]
    /// Which objects, in which order, how many.
    public var query: Query
}

/// `entity Person : Parent abstract { name: String required; age: Int16 = 0; ... }`.
public struct EntityDeclaration: Sendable {
    public struct Property: Sendable {
        public enum Kind: Sendable {
            case attribute(typeName: Name, defaultValue: Expression?)
            case relationship(destination: Name, toMany: Bool)
        }
        public var name: Name
        public var kind: Kind
        public var modifiers: [Name]
        public var inverse: Name?
        /// `inverse [name]`: the inverse is to-many (a many-to-many).
        public var inverseIsToMany = false
        public var minCount: Int?
        public var maxCount: Int?
        /// An attribute's bounds (`min 0 max 150`); a length for a string.
        public var minValue: Expression?
        public var maxValue: Expression?
        /// A regular expression a string must match (`pattern "^[A-Z]"`).
        public var pattern: String?
        public var userInfo: [(key: String, value: String)] = []
    }

    public var name: Name
    public var parent: Name?
    public var isAbstract: Bool
    public var properties: [Property]
    /// `unique (firstName, lastName)`: compound uniqueness constraints.
    public var uniquenessConstraints: [[Name]] = []
    /// `index byName (lastName, firstName DESC)`: fetch indexes.
    public var fetchIndexes: [(name: Name, keys: [SortKey])] = []
    /// `userInfo { relatedByAttribute: "name" }`.
    public var userInfo: [(key: String, value: String)] = []
}

/// `fetch Adults with minAge = 18`: a fetch request template of the model,
/// run with values for its `$variables`; `fetch` alone lists them.
public struct TemplateFetch: Sendable {
    public var name: Name
    /// Each `$variable` and the expression that gives its value.
    public var variables: [(name: Name, value: Expression)]
}

/// One statement of the mrq language.
public indirect enum Statement: Sendable {
    case query(Query)
    case first(Query)
    case count(Query)
    case select(SelectQuery)
    case aggregate(AggregateQuery)
    case insert(entity: Name, assignments: [Assignment])
    case update(Query, assignments: [Assignment])
    case delete(Query)
    /// `update … set … direct`: a batch update in the store.
    case directUpdate(Query, assignments: [Assignment])
    /// `delete … direct`: a batch delete in the store.
    case directDelete(Query)
    case truncate(Name)
    case importJSON(entity: Name, path: String, pathRange: SourceRange)
    case save
    case rollback
    case undo
    case redo
    case entity(EntityDeclaration)
    case letBinding(name: Name, value: Statement)
    /// A bare expression (`$adults`, `1 + 2`): its value is printed.
    case expression(Expression)
    case explain(Statement)
    /// `fetch`: the model's fetch request templates.
    case templates
    /// `fetch Adults with minAge = 18`.
    case template(TemplateFetch)
}

/// A statement with its place in the source.
public struct LocatedStatement: Sendable {
    public var statement: Statement
    public var range: SourceRange
}

extension Statement {
    /// Every predicate written in the statement (where and having
    /// clauses, and those of the queries that give values), with the name
    /// of the entity its keys are read from (nil for `having`), for
    /// warnings and strict mode.
    var predicates: [(predicate: Predicate, entity: Name?)] {
        func of(_ query: Query) -> [(predicate: Predicate, entity: Name?)] {
            query.predicate.map { [($0, query.entity)] } ?? []
        }
        func of(_ assignments: [Assignment]) -> [(predicate: Predicate, entity: Name?)] {
            assignments.flatMap { assignment -> [(predicate: Predicate, entity: Name?)] in
                switch assignment.value {
                case .first(let query), .all(let query): return of(query)
                case .expression: return []
                }
            }
        }
        switch self {
        case .query(let q), .first(let q), .count(let q), .delete(let q), .directDelete(let q): return of(q)
        case .select(let select): return of(select.query)
        case .aggregate(let aggregate): return of(aggregate.query) + (aggregate.having.map { [($0, nil)] } ?? [])
        case .insert(_, let assignments): return of(assignments)
        case .update(let q, let assignments), .directUpdate(let q, let assignments): return of(q) + of(assignments)
        case .letBinding(_, let value), .explain(let value): return value.predicates
        case .truncate, .importJSON, .save, .rollback, .undo, .redo, .entity, .expression, .templates, .template: return []
        }
    }

    /// The predicate-language expressions written as values: an
    /// expression statement and the values assignments give.
    var expressions: [Expression] {
        func of(_ assignments: [Assignment]) -> [Expression] {
            assignments.compactMap { assignment in
                if case .expression(let expression) = assignment.value { return expression }
                return nil
            }
        }
        switch self {
        case .expression(let expression): return [expression]
        case .insert(_, let assignments), .update(_, let assignments), .directUpdate(_, let assignments): return of(assignments)
        case .letBinding(_, let value), .explain(let value): return value.expressions
        default: return []
        }
    }
}
