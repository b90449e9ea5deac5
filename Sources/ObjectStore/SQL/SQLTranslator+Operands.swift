import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

extension SQLTranslator {
    /// A translated scalar: its SQL, and what kind of value it holds.
    ///
    /// A column or a bound constant, what most operands are, is held as
    /// its text or its parameter's number, and appended to the statement
    /// as that (`SQL.append(_:)`): no SQL value of its own is made unless
    /// one is asked for (`sql`).
    package struct Operand {
        /// How the operand's SQL is held.
        enum Form {
            /// SQL text of mrq's own without slots: a column, `alias.key`.
            case text(String)
            /// The `n`th value (from 1) of the translator's bindings alone,
            /// and its parameter as the dialect writes it.
            case parameter(Int, written: String)
            /// Boxed: the rare form, kept out of the operand's size (every
            /// operand is copied as it is passed along).
            indirect case sql(SQL)
        }

        var form: Form
        /// The operand's SQL (made here for a column or a parameter).
        package var sql: SQL {
            get {
                switch form {
                case .text(let text): return SQL(sql: text)
                case .parameter(let n, let written):
                    var sql = SQL()
                    sql.appendSlot(for: n - 1, written: written)
                    return sql
                case .sql(let sql): return sql
                }
            }
            set { form = .sql(newValue) }
        }
        package var category: Category
        /// A bound constant (for null checks and type decisions).
        // `Optional<…>`, set by the initializers alone, as
        // `FetchRequest.predicate` (a `Value?` is nil first, then assigned).
        package var constant: Optional<Value>
        /// What only an object operand has, boxed: most operands are a
        /// column or a constant, and every operand is copied as it is
        /// passed along (mrq-bench e. parse).
        private final class ObjectFacts {
            let entity: EntityDescription?
            let object: ObjectID?
            let presence: String?

            init(entity: EntityDescription?, object: ObjectID?, presence: String?) {
                self.entity = entity
                self.object = object
                self.presence = presence
            }
        }

        private let facts: ObjectFacts?
        /// For an object (a to-one's foreign key, an object variable): the
        /// entity it belongs to.
        var entity: EntityDescription? { facts?.entity }
        /// For an object constant (an object given for `%@`, an object
        /// variable): its ID. Its primary key is bound only when a row of
        /// this store can be the object.
        var object: ObjectID? { facts?.object }
        /// For a to-one's foreign key that may name a row that is gone:
        /// the condition that its row exists (an EXISTS, binding nothing),
        /// which stands for `IS NOT NULL`.
        var presence: String? { facts?.presence }
        package var kind: NumberKind = .unknown
        /// For a bound constant whose SQL is its parameter alone: the
        /// number of that parameter among the translator's bindings, so
        /// that it can be bound again otherwise (folded, as a pattern).
        package var parameter: Int?
        package var isNullConstant: Bool { constant?.isNull ?? false }

        package init(sql: SQL, category: Category, constant: Value? = nil, entity: EntityDescription? = nil,
                     object: ObjectID? = nil, presence: String? = nil, kind: NumberKind = .unknown, parameter: Int? = nil) {
            self.init(form: .sql(sql), category: category, constant: constant, entity: entity, object: object,
                      presence: presence, kind: kind, parameter: parameter)
        }

        init(form: Form, category: Category, constant: Value? = nil, entity: EntityDescription? = nil,
             object: ObjectID? = nil, presence: String? = nil, kind: NumberKind = .unknown, parameter: Int? = nil) {
            self.form = form
            self.category = category
            self.constant = constant
            facts = entity == nil && object == nil && presence == nil
                ? nil : ObjectFacts(entity: entity, object: object, presence: presence)
            self.kind = kind
            self.parameter = parameter
        }
    }
}

// Arithmetic and collection operators as SQL operands, and the uniform
// type operators rewritten into comparisons SQL has.
extension SQLTranslator {
    /// `a + b - c …`: the left-deep chain the parser builds from flat text,
    /// written flat as SQLite reads it back (left to right, in one level of
    /// its parser stack however long the chain); an operand of another
    /// precedence in parentheses.
    mutating func arithmetic(_ expression: Expression, top: ArithmeticOperator, in scope: Scope) throws -> Operand {
        func group(_ op: ArithmeticOperator) throws -> Int {
            switch op {
            case .add, .subtract: return 0
            case .multiply: return 1
            case .divide: return 2
            case .power: throw Untranslatable(reason: "\(op.rawValue) is evaluated in memory")
            }
        }
        // PostgreSQL stops with an error where an integer overflows; the
        // evaluator goes on in doubles: arithmetic runs in memory there.
        try dialect.checkArithmetic()
        let level = try group(top)
        if level == 2 { return try division(expression, in: scope) }
        var links: [(ArithmeticOperator, Expression)] = []
        var first = expression
        while case .binary(let op, let l, let r) = first.kind, try group(op) == level {
            links.append((op, r))
            first = l
        }
        let left = try operand(first, in: scope)
        guard left.category == .number else { throw Untranslatable(reason: "arithmetic on non-numbers") }
        var sql = "(" + left.sql
        for (op, r) in links.reversed() {
            let right = try operand(r, in: scope)
            guard right.category == .number else { throw Untranslatable(reason: "arithmetic on non-numbers") }
            sql += " \(op.rawValue) " + right.sql
        }
        sql += ")"
        return Operand(sql: sql, category: .number)
    }

    /// `x / c` by a constant that is not zero, as the evaluator divides:
    /// exactly when both are integers and `c` divides `x` (an integer),
    /// else in doubles. Division by anything else (zero is an error in the
    /// evaluator, nil in SQLite) is evaluated in memory.
    mutating func division(_ expression: Expression, in scope: Scope) throws -> Operand {
        // Decimals divide exactly in the evaluator: not here.
        func isIntegerOrDouble(_ value: Value) -> Bool {
            if case .int = value { return true }
            if case .double = value { return true }
            return false
        }
        guard case .binary(.divide, let dividend, let divisor) = expression.kind, case .constant(let constant) = divisor.kind,
              isIntegerOrDouble(constant), let n = constant.numericValue, n != 0, n.isFinite else {
            throw Untranslatable(reason: "/ by anything but a constant other than zero is evaluated in memory")
        }
        let x = try operand(dividend, in: scope)
        guard x.category == .number else { throw Untranslatable(reason: "arithmetic on non-numbers") }
        let c = bind(constant)
        let sql: SQL = "(CASE WHEN typeof(\(x.sql)) = 'integer' AND \(x.sql) % \(c) != 0 THEN CAST(\(x.sql) AS REAL) / \(c) ELSE \(x.sql) / \(c) END)"
        return Operand(sql: sql, category: .number)
    }

    /// `rel.@count`, `rel.@sum.key`..., and `SUBQUERY(...).@count`, as
    /// correlated subqueries.
    mutating func collection(_ op: CollectionOperator, base: Expression, key: [String], in scope: Scope) throws -> Operand {
        if case .subquery(let collection, let variable, let predicate) = base.kind {
            // `$p.department.people` inside an outer SUBQUERY reads through
            // the outer variable's row.
            var collectionPath = collection.keyPathComponents
            if collectionPath == nil, case .member(let memberBase, let rest) = collection.kind,
               case .variable(let name) = memberBase.kind, scope.variable(name) != nil {
                collectionPath = [name] + rest
            }
            guard op == .count, key.isEmpty, let path = collectionPath,
                  let split = try toManySplit(path, in: scope), split.rest.isEmpty else {
                throw Untranslatable(reason: "SUBQUERY form")
            }
            let to = try toManyFrom(split.prefix, relationship: split.relationship, owner: split.owner, in: scope,
                                    variable: variable)
            let (from, correlation, inner) = (to.from, to.correlation, to.scope)
            let saved = polarity
            polarity = nil
            defer { polarity = saved }
            let condition = try self.condition(for: predicate, in: inner)
            let joins = inner.joins.isEmpty ? "" : " " + inner.joins.joined(separator: " ")
            return Operand(sql: "(SELECT COUNT(*) FROM \(from)\(joins) WHERE \(correlation) AND \(condition))", category: .number,
                           kind: .integer(exact: true))
        }
        guard let path = base.keyPathComponents, let split = try toManySplit(path, in: scope), split.rest.isEmpty else {
            throw Untranslatable(reason: "collection operator on a non-relationship")
        }
        let to = try toManyFrom(split.prefix, relationship: split.relationship, owner: split.owner, in: scope)
        let (from, correlation, inner) = (to.from, to.correlation, to.scope)
        let function: String
        var category = Category.number
        var kind = NumberKind.integer(exact: true)
        var column = "*"
        switch op {
        case .count:
            guard key.isEmpty else { throw Untranslatable(reason: "@count with a key") }
            function = "COUNT"
        case .sum, .avg, .min, .max:
            guard !key.isEmpty, case .attribute(let sql, let type) = try resolve(key, in: inner),
                  Self.category(of: type) == .number || (type == .date && (op == .min || op == .max)) else {
                throw Untranslatable(reason: "aggregate of a non-number")
            }
            // SQLite's SUM stops with an error on a 64-bit overflow and AVG
            // adds in doubles; the evaluator goes on in doubles after an
            // overflow and adds integers exactly.
            if type == .integer64 && (op == .sum || op == .avg) {
                throw Untranslatable(reason: "@\(op.rawValue) of a 64-bit integer is evaluated in memory")
            }
            if type == .decimal { throw Untranslatable(reason: "decimal attributes aggregate exactly only in memory") }
            if type == .date { category = .date }
            column = sql
            function = op == .sum ? "TOTAL" : op.rawValue.uppercased()
            switch (op, NumberKind.of(type)) {
            case (.avg, _), (_, .double): kind = .double(constant: false)
            case (.sum, _): kind = .integer(exact: false)
            case (_, let columnKind): kind = columnKind
            }

        default:
            throw Untranslatable(reason: "@\(op.rawValue) is evaluated in memory")
        }
        let joins = inner.joins.isEmpty ? "" : " " + inner.joins.joined(separator: " ")
        var sql: SQL = "(SELECT \(function)(\(column)) FROM \(from)\(joins) WHERE \(correlation))"
        if op == .sum {
            // TOTAL is a float; keep integer sums integral as the evaluator does.
            sql = "(SELECT COALESCE(SUM(\(column)), 0) FROM \(from)\(joins) WHERE \(correlation))"
        } else if op == .avg {
            // Key-value coding's @avg counts a nil as 0 (see the
            // evaluator's `keyValueAverage`); SQL's AVG would skip it.
            let zeroed: SQL = "COALESCE(\(column), 0)"
            sql = "(SELECT \(dialect.average(of: zeroed)) FROM \(from)\(joins) WHERE \(correlation))"
        }
        return Operand(sql: sql, category: category, kind: kind)
    }

    /// `x UTI-EQUALS "t"` as `x == "t"`, and `x UTI-CONFORMS-TO "t"` as
    /// `x IN {…}` over the identifiers ``UniformTypes`` knows to conform
    /// to `t` (`t` included), as the evaluator answers; a type read from a
    /// column on the right is evaluated in memory.
    static func uniformTypeComparison(_ c: Comparison) throws -> Comparison {
        guard case .constant(.string(let type)) = c.rhs.kind else {
            throw Untranslatable(reason: "\(c.op.rawValue) with a type that is not a constant")
        }
        var rewritten = c
        rewritten.options = []
        if c.op == .utiEquals {
            rewritten.op = .equal
        } else {
            rewritten.op = .in
            rewritten.rhs = .aggregate(UniformTypes.conforming(to: type).map { .string($0) })
        }
        return rewritten
    }
}

extension SQL {
    /// Appends `operand`'s SQL: a column's text or its parameter's slot as
    /// they are, without an SQL value made for either.
    package mutating func append(_ operand: SQLTranslator.Operand) {
        switch operand.form {
        case .text(let text): append(text)
        case .parameter(let n, let written): appendSlot(for: n - 1, written: written)
        case .sql(let sql): append(sql)
        }
    }
}
