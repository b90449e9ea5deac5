import Foundation
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// Turns a predicate into a SQL condition over the schema mapping, with
/// every value bound as a parameter.
///
/// ```swift
/// var translator = SQLTranslator(store: store, entity: person)
/// let condition = try translator.condition(for: predicate)   // t."age" > ?1
/// translator.bindings                                       // [.int(18)]
/// ```
///
/// The SQL it writes is ``SQL``: fragments whose slots name the
/// translator's values by place, written as `?n` (or `$n`) only when the
/// statement is rendered; `statement(_:)` gives a fragment its values.
///
/// The in-memory evaluator is the reference. What SQLite cannot express
/// with the same meaning (division, most functions, comparisons across
/// types, objects as values) throws `Untranslatable`; the fetch then keeps
/// that part as a residual predicate and evaluates it in memory after the
/// SQL pre-filter. Null follows the evaluator: `!=` is true against nil,
/// every other operator false; under NOT, conditions are made two-valued so
/// SQL's unknown never leaks.
package struct SQLTranslator {
    /// A part that SQL cannot express with the evaluator's meaning.
    package struct Untranslatable: Error {
        package let reason: String

        package init(reason: String) {
            self.reason = reason
        }
    }

    /// A key that the entity does not have: a real error, not a fallback.
    struct UnknownKey: Error, CustomStringConvertible {
        let key: String
        let entity: EntityDescription
        let range: SourceRange
        var description: String {
            var text = "unknown key '\(key)' on \(entity.name)"
            if let suggestion = Suggestions.closest(to: key, in: entity.propertyNames) {
                text += "; did you mean '\(suggestion)'?"
            }
            return text
        }
    }

    /// One FROM item and its to-one joins: the main query or a subquery.
    final class Scope {
        let alias: String
        let entity: EntityDescription
        /// The joins, in order.
        var joins: [String] { joinList }
        /// How many joins there are, asked at every conjunct: without
        /// taking the list (a retain and a release).
        var joinCount: Int { joinList.count }
        /// Each join's alias and entity, by the key path prefix it follows.
        var joinAliases: [String: (alias: String, entity: EntityDescription)] { aliasesByPrefix }
        // The joins' storage: read at every conjunct and plan, changed
        // only through `addJoin` and `dropJoins`, which keep no access
        // open while they call out; read without the runtime's
        // exclusivity bookkeeping (mrq-bench e. parse ×20).
        @exclusivity(unchecked) private var joinList: [String] = []
        // `.init()` rather than `[:]` here and below: an empty dictionary
        // literal is a call (~20 instructions), made for every plan's
        // translator (mrq-bench e. parse); `init()` is the empty singleton.
        @exclusivity(unchecked) private var aliasesByPrefix: [String: (alias: String, entity: EntityDescription)] = .init()
        /// The prefixes of `joins`, in their order: what `dropJoins` takes
        /// out of `joinAliases` (a conjunct refused goes back without a
        /// copy of the map made for every conjunct).
        private var joinPrefixes: [String] = []
        /// The SUBQUERY variables of the scopes around this one, by name.
        /// Constants (as `variable` is), so that reading them takes no
        /// dynamic exclusivity check: every key path asks (workload e).
        private let outerVariables: [String: Scope]
        /// The SUBQUERY variable naming this scope's own row, if any. Kept
        /// apart from `outerVariables`: a scope in its own map would keep
        /// itself alive.
        let variable: String?

        init(alias: String, entity: EntityDescription, variables: [String: Scope] = .init(), variable: String? = nil) {
            self.alias = alias
            self.entity = entity
            self.outerVariables = variables
            self.variable = variable
        }

        /// Whether any SUBQUERY variable is visible here.
        var hasVariables: Bool { variable != nil || !outerVariables.isEmpty }

        /// The scope the SUBQUERY variable `name` reads, if one is visible here.
        func variable(_ name: String) -> Scope? {
            if let variable, variable == name { return self }
            return outerVariables.isEmpty ? nil : outerVariables[name]
        }

        /// Every SUBQUERY variable visible here, by name: those of a scope
        /// inside this one.
        var variables: [String: Scope] {
            guard let variable else { return outerVariables }
            var all = outerVariables
            all[variable] = self
            return all
        }

        /// Adds `join`, which follows the key path `prefix` to `entity`
        /// as `alias`.
        func addJoin(_ join: String, prefix: String, alias: String, entity: EntityDescription) {
            joinList.append(join)
            joinPrefixes.append(prefix)
            aliasesByPrefix[prefix] = (alias, entity)
        }

        /// Drops the joins after the first `count`, and their aliases.
        func dropJoins(after count: Int) {
            guard joinList.count > count else { return }
            for prefix in joinPrefixes[count...] { aliasesByPrefix[prefix] = nil }
            joinList.removeSubrange(count...)
            joinPrefixes.removeSubrange(count...)
        }
    }

    /// What kind of value an operand holds.
    package enum Category { case number, string, date, data, boolean, uuid, url, object, unknown }

    /// What a number holds, where PostgreSQL compares it otherwise than
    /// the evaluator: PostgreSQL compares a bigint with a double in
    /// doubles, the evaluator exactly. An integer is `exact` when every
    /// value it can hold is a double too (16- and 32-bit columns, counts,
    /// constants within 2^53); a double `constant` is never an integer
    /// below 2^63 (those are bound as integers), so no rounding of the
    /// integer side changes its comparison with it.
    package enum NumberKind: Equatable {
        case integer(exact: Bool)
        case double(constant: Bool)
        case unknown

        static func of(_ type: AttributeType) -> NumberKind {
            switch type {
            case .integer16, .integer32, .boolean: return .integer(exact: true)
            case .integer64: return .integer(exact: false)
            case .double, .float: return .double(constant: false)
            default: return .unknown
            }
        }

        /// Whether PostgreSQL compares the two as the evaluator does.
        package func comparesExactly(with other: NumberKind) -> Bool {
            switch (self, other) {
            case (.integer, .integer), (.double, .double): return true
            case (.integer(let exact), .double(let constant)), (.double(let constant), .integer(let exact)): return exact || constant
            default: return false
            }
        }
    }

    let storeNumber: StoreNumber
    /// Whose SQL to write: the store's engine's.
    package let dialect: SQLDialect
    /// Read once: the translator looks columns up at every key path.
    package let mapping: SchemaMapping
    let root: Scope
    /// Names that stand for SQL expressions in the root scope: the fetched
    /// properties of a dictionary request, for its HAVING predicate.
    // (`.init()`, not `[:]`: see `Scope.aliasesByPrefix`.)
    var namedColumns: [String: (sql: SQL, category: Category, kind: NumberKind)] = .init()
    /// The request's object variables: `$d` reads as the object's primary
    /// key, compared with a to-one's foreign key.
    var objectVariables: [String: ObjectVariable] = .init()
    package internal(set) var bindings: [Value] = []
    var aliasCounter = 0
    /// How deep the SQL written so far nests at this point.
    var nesting = 0
    /// Where the comparison being written stands in its conjunct: true
    /// where a wider condition widens the conjunct (under AND and OR),
    /// false under one NOT (or NONE), nil where SQL must be exact
    /// (SUBQUERY, outside `split`). PostgreSQL's `[c]` and `[d]` are exact
    /// only on ASCII rows and let the rest through (or out) here.
    package var polarity: Bool?
    /// Whether the conjunct being written let rows through for memory to
    /// decide (so `split` keeps it in the residual too).
    package var approximated = false

    /// How deep the SQL may nest (parentheses, NOT, functions, subqueries).
    /// SQLite's parser keeps a stack of 100 entries, which about 30 nested
    /// `(a + (…))` fill; a part nested deeper runs in memory. Flat chains
    /// (`a + b + …`, `x OR y OR …`) are written flat and stay in SQL.
    static let maximumNesting = 16
    /// The most numbered parameters SQLite takes in one statement
    /// (SQLITE_MAX_VARIABLE_NUMBER); a conjunct that would bind more runs
    /// in memory.
    static let maximumBindings = 32_000
    /// The most tables one SELECT joins before SQLite refuses (64, with the
    /// table itself and room for the sort keys' joins).
    static let maximumJoins = 56
    /// `a OR b OR …` longer than this is written as groups of groups:
    /// SQLite parses a flat list into a tree as deep as the list is long,
    /// and refuses one deeper than 1,000.
    static let groupSize = 32

    init(store: any SQLStore, entity: EntityDescription) {
        self.storeNumber = store.storeNumber
        self.dialect = store.dialect
        self.mapping = store.mapping
        self.root = Scope(alias: Self.rowAlias, entity: entity)
        self.store = store
    }

    /// The alias of the statement's own table (`FROM "Person" t`): the
    /// root scope's, which the mapping's `AttributeColumn.inRow` is
    /// written with.
    static let rowAlias = "t"

    /// The store the SQL is for.
    private let store: any SQLStore

    /// Whether the store guarantees a to-one's keys name rows (see
    /// `StoreBackend.enforcesKeys`); where it does not, a key whose row is
    /// gone is nil, as the evaluator reads it.
    func enforcesKeys(_ relationship: RelationshipDescription, _ entity: EntityDescription) -> Bool {
        store.enforcesKeys(of: relationship, in: entity)
    }

    /// The condition that always holds, and the one that never does.
    var trueSQL: SQL { .always(true, dialect.trueSQL) }
    var falseSQL: SQL { .always(false, dialect.falseSQL) }

    /// `fragment`, written by this translator, with the values its slots
    /// name: SQL to compose into a statement.
    func statement(_ fragment: SQL) -> SQL { fragment.binding(bindings) }

    var joins: [String] { root.joins }

    mutating func newAlias() -> String {
        aliasCounter += 1
        return "a\(aliasCounter)"
    }

    /// A slot for `value`, bound among the translator's values: the same
    /// fragment can stand twice in the SQL for one value
    /// (`length(?3) > 0 AND substr(x, 1, length(?3)) = ?3`). Typed as the
    /// dialect types the value, or as `type`.
    mutating func bind(_ value: Value, type: String? = nil) -> SQL {
        bindings.append(value)
        var sql = SQL()
        sql.appendSlot(for: bindings.count - 1, type: type, written: parameter(bindings.count, of: value, type: type))
        return sql
    }

    /// The `n`th parameter (from 1) as the dialect writes it, holding
    /// `value`, typed as `type` when given: written where the translator
    /// puts it, once (see `SQL.Kind.written`).
    func parameter(_ n: Int, of value: Value, type: String? = nil) -> String {
        if let type { return dialect.parameter(n, type: type) }
        return dialect.parameter(n, of: value)
    }

    /// `value` bound as a constant operand: its parameter, remembered
    /// (see `Operand.parameter`).
    package mutating func bound(_ value: Value, category: Category, constant: Value?, kind: NumberKind = .unknown) -> Operand {
        bindings.append(value)
        return Operand(form: .parameter(bindings.count, written: parameter(bindings.count, of: value)), category: category,
                       constant: constant, kind: kind,
                       parameter: bindings.count)
    }

    /// Makes room for `count` values bound without growing `bindings`.
    mutating func reserveBindings(_ count: Int) {
        bindings.reserveCapacity(bindings.count + count)
    }

    /// Binds `value` instead as the `n`th value (from 1); returns its SQL.
    package mutating func rebind(_ n: Int, _ value: Value) -> SQL {
        bindings[n - 1] = value
        var sql = SQL()
        sql.appendSlot(for: n - 1, written: parameter(n, of: value))
        return sql
    }

    // MARK: - Predicates

    /// Goes one level deeper in the SQL being written, or refuses (the
    /// part then runs in memory) past `maximumNesting`. The caller comes
    /// back up with `nesting -= 1`.
    mutating func deeper() throws {
        guard nesting < Self.maximumNesting else {
            throw Untranslatable(reason: "nested deeper than SQLite's parser takes")
        }
        nesting += 1
    }

    /// The condition for `predicate`, two-valued when `negated` context
    /// needs it.
    mutating func condition(for predicate: Predicate, in scope: Scope? = nil, twoValued: Bool = false) throws -> SQL {
        var sql = SQL()
        try write(predicate, in: scope ?? root, twoValued: twoValued, into: &sql)
        return sql
    }

    /// Appends the condition for `predicate` to `out`: one buffer for the
    /// whole condition, each part written where it goes. On a throw, `out`
    /// holds part of it: the caller truncates (see `translate(conjunct:)`).
    mutating func write(_ predicate: Predicate, in scope: Scope, twoValued: Bool, into out: inout SQL) throws {
        try deeper()
        defer { nesting -= 1 }
        switch predicate.kind {
        case .constant(let value):
            out += value ? trueSQL : falseSQL
        case .not(let inner):
            let saved = polarity
            polarity = polarity.map { !$0 }
            defer { polarity = saved }
            out += "NOT ("
            try write(inner, in: scope, twoValued: true, into: &out)
            out += ")"
        case .and(let parts):
            try conditions(parts, separator: " AND ", in: scope, twoValued: twoValued, into: &out)
        case .or(let parts):
            try conditions(parts, separator: " OR ", in: scope, twoValued: twoValued, into: &out)
        case .comparison(let comparison) where twoValued:
            let dialect = self.dialect
            try dialect.writeTwoValued(into: &out) { try self.comparison(comparison, in: scope, into: &$0) }
        case .comparison(let comparison):
            // A case of its own, apart from the closure above: a binding
            // a closure captures is a copy of the comparison out of its
            // box (its operands retained and released); here it is read
            // where it is (mrq-bench e. parse ×20).
            try self.comparison(comparison, in: scope, into: &out)
        }
    }

    /// `(a AND b …)` or `(a OR b …)`, appended to `out`; a list longer
    /// than `groupSize` as `((a OR …) OR (… OR z))`, groups of at most
    /// `groupSize` nested as deep as it takes (AND and OR group freely,
    /// also in SQL's three-valued logic).
    private mutating func conditions(_ parts: [Predicate], separator: String, in scope: Scope, twoValued: Bool,
                                     into out: inout SQL) throws {
        if parts.count <= Self.groupSize {
            // Flat: each part written where it goes, no list of parts.
            out += "("
            for (i, part) in parts.enumerated() {
                if i > 0 { out += separator }
                try write(part, in: scope, twoValued: twoValued, into: &out)
            }
            out += ")"
            return
        }
        var sqls: [SQL] = []
        sqls.reserveCapacity(parts.count)
        for part in parts { sqls.append(try condition(for: part, in: scope, twoValued: twoValued)) }
        out += "("
        out += Self.grouped(sqls[...], separator: separator)
        out += ")"
    }

    /// `a OR b OR …` as SQLite parses it without growing a tree deeper
    /// than it takes: up to `groupSize` parts flat, more as groups of
    /// groups in parentheses (`groupSize` ** 4 parts nest four deep).
    static func grouped(_ parts: ArraySlice<SQL>, separator: String) -> SQL {
        if parts.count <= groupSize { return SQL.joined(parts, separator: separator) }
        let perGroup = (parts.count + groupSize - 1) / groupSize
        var sql = SQL()
        for start in stride(from: parts.startIndex, to: parts.endIndex, by: perGroup) {
            if start > parts.startIndex { sql += separator }
            sql += "(" + grouped(parts[start..<min(start + perGroup, parts.endIndex)], separator: separator) + ")"
        }
        return sql
    }

    // MARK: - Comparisons

    /// Appends the condition for `c` to `out`.
    private mutating func comparison(_ c: Comparison, in scope: Scope, into out: inout SQL) throws {
        // A key path through a to-many on the left: ANY (or the modifier) over it.
        if let path = c.lhs.keyPathComponents, let split = try toManySplit(path, in: scope) {
            out += try quantified(c, path: split, in: scope)
            return
        }
        if c.modifier != .direct {
            throw Untranslatable(reason: "\(c.modifier.rawValue) needs a to-many key path")
        }
        if let path = c.rhs.keyPathComponents, try toManySplit(path, in: scope) != nil {
            if c.op == .in, isObjectConstant(c.lhs) {
                // `%@ IN employees` is `employees CONTAINS %@`.
                var contains = c
                contains.op = .contains
                swap(&contains.lhs, &contains.rhs)
                return try comparison(contains, in: scope, into: &out)
            }
            if c.op == .in || c.op == .contains {
                throw Untranslatable(reason: "membership in a to-many relationship")
            }
            throw Untranslatable(reason: "to-many key path on the right")
        }
        if let sql = try scalarComparison(c, in: scope, rhsScope: scope, into: &out) { out += sql }
    }

    /// `prefix` (to-one hops), the to-many relationship, and what follows.
    func toManySplit(_ path: [String], in scope: Scope) throws -> (prefix: [String], relationship: RelationshipDescription, owner: EntityDescription, rest: [String])? {
        var entity = scope.entity
        // Walked in place (no copy of the path): a SUBQUERY variable first
        // starts at its own entity (looked up only where there are any:
        // a lookup hashes the name).
        var start = 0
        if scope.hasVariables, let first = path.first, let variableScope = scope.variable(first) {
            entity = variableScope.entity
            start = 1
        }
        for i in start..<path.count {
            // The last key splits the path only as a to-many: without one
            // on its entity, no lookup (most key paths are one attribute).
            if i == path.count - 1 && !entity.hasToManyRelationships { return nil }
            guard let relationship = entity.relationship(named: path[i]) else { return nil }
            if relationship.isToMany {
                return (Array(path[..<i]), relationship, entity, Array(path[(i + 1)...]))
            }
            guard let destination = relationship.destination else { return nil }
            entity = destination
        }
        return nil
    }

    private mutating func quantified(_ c: Comparison, path split: (prefix: [String], relationship: RelationshipDescription, owner: EntityDescription, rest: [String]),
                                     in scope: Scope) throws -> SQL {
        if split.rest.contains(where: { $0.hasPrefix("@") }) {
            throw Untranslatable(reason: "collection operator after a to-many")
        }
        let to = try toManyFrom(split.prefix, relationship: split.relationship, owner: split.owner, in: scope)
        // ANY is EXISTS (…test), ALL NOT EXISTS (… NOT test): the test
        // stands as the comparison does; NONE's NOT EXISTS turns it over.
        let saved = polarity
        if c.modifier == .none { polarity = polarity.map { !$0 } }
        defer { polarity = saved }
        var element = c
        element.modifier = .direct
        // `employees CONTAINS %@`, `ANY employees == %@`: the element is
        // the destination row itself.
        element.lhs = split.rest.isEmpty ? Expression(.evaluatedObject) : Expression(.keyPath(split.rest))
        // Without a quantifier, CONTAINS on a collection is membership, as
        // in the evaluator: some element equals the right side.
        if c.modifier == .direct && c.op == .contains {
            if case .aggregate = c.rhs.kind { throw Untranslatable(reason: "CONTAINS of a collection in a collection") }
            element.op = .equal
        }
        // The element's keys are read in the subquery; the right side
        // belongs to the object being tested.
        let test = try scalarComparison(element, in: to.scope, rhsScope: scope)
        let from = to.from + (to.scope.joins.isEmpty ? "" : " " + to.scope.joins.joined(separator: " "))
        switch c.modifier {
        case .direct, .any:
            let exists: SQL = "EXISTS (SELECT 1 FROM \(from) WHERE \(to.correlation) AND \(test))"
            // A key path through a nil to-one is nil, not an empty
            // collection: without a quantifier the comparison then applies
            // to nil itself.
            guard c.modifier == .direct, let owner = to.nullableOwner, c.op != .contains else { return exists }
            var onNil = c
            onNil.lhs = .constant(.null)
            let nilCase = try scalarComparison(onNil, in: scope)
            if nilCase.truth == false { return exists }
            return "((\(owner) IS NULL AND \(nilCase)) OR \(exists))"
        case .none:
            return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(to.correlation) AND \(test))"
        case .all:
            return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(to.correlation) AND NOT \(dialect.twoValued(test)))"
        }
    }

    /// A subquery's FROM item over a to-many, its correlation with the
    /// outer row, and the scope its keys resolve in.
    struct ToManyFrom {
        let from: String
        let correlation: String
        /// Joins added while translating inside must follow `from`.
        let scope: Scope
        /// The foreign key reaching the owner through to-one hops, which
        /// may be null; nil when the owner is the row itself or a SUBQUERY
        /// variable, which always exist.
        let nullableOwner: String?
    }

    /// The FROM clause and correlation of a subquery over a to-many.
    /// The returned scope's joins must be placed after the FROM item.
    /// `variable` names the subquery's row (a SUBQUERY's variable).
    mutating func toManyFrom(_ prefix: [String], relationship: RelationshipDescription, owner: EntityDescription,
                             in scope: Scope, variable: String? = nil) throws -> ToManyFrom {
        guard let destination = relationship.destination else { throw Untranslatable(reason: "no destination") }
        let ownerColumn: String
        var nullableOwner: String?
        if prefix.isEmpty {
            ownerColumn = "\(scope.alias).\(mapping.primaryKey)"
        } else if prefix.count == 1, let variableScope = scope.variable(prefix[0]) {
            ownerColumn = "\(variableScope.alias).\(mapping.primaryKey)"
        } else {
            let resolved = try resolve(prefix, in: scope)
            guard case .toOne(let sql, _, let presence) = resolved else { throw Untranslatable(reason: "path before to-many") }
            // A key whose row is gone owns nothing: nil, as in memory.
            ownerColumn = presence.map { "CASE WHEN \($0) THEN \(sql) END" } ?? sql
            nullableOwner = ownerColumn
        }
        let alias = newAlias()
        let inner = Scope(alias: alias, entity: destination, variables: scope.variables, variable: variable)
        let destinationTable = mapping.table(for: destination)
        var entityFilter = ""
        if let entityColumn = destinationTable.entityColumn, destination.rootEntity !== destination {
            let codes = destination.selfAndDescendants.map { String(mapping.entityCode($0)) }.joined(separator: ",")
            entityFilter = " AND \(alias).\(entityColumn) IN (\(codes))"
        }
        if let join = mapping.joinTable(relationship.name, of: owner) {
            let joinAlias = newAlias()
            let from = "\(join.name) \(joinAlias) JOIN \(destinationTable.name) \(alias) ON \(alias).\(mapping.primaryKey) = \(joinAlias).\(join.destinationColumn)"
            return ToManyFrom(from: from, correlation: "\(joinAlias).\(join.sourceColumn) = \(ownerColumn)\(entityFilter)",
                              scope: inner, nullableOwner: nullableOwner)
        }
        guard let columns = mapping.toManyKey(relationship, of: owner) else {
            throw Untranslatable(reason: "to-many without a mapping")
        }
        return ToManyFrom(from: "\(destinationTable.name) \(alias)",
                          correlation: "\(alias).\(columns.foreignKey) = \(ownerColumn)\(entityFilter)",
                          scope: inner, nullableOwner: nullableOwner)
    }

    /// `lhs op rhs` with `lhs` read in `scope` and `rhs` in `rhsScope`
    /// (the same unless the left side is an element of a quantified
    /// to-many).
    private mutating func scalarComparison(_ c: Comparison, in scope: Scope, rhsScope: Scope? = nil) throws -> SQL {
        var sql = SQL()
        if let whole = try scalarComparison(c, in: scope, rhsScope: rhsScope ?? scope, into: &sql) { return whole }
        return sql
    }

    /// Appends `lhs op rhs` to `out`, or returns its SQL where it is not
    /// written in place (decided without rows, or composed around its
    /// operands): the caller appends it.
    private mutating func scalarComparison(_ c: Comparison, in scope: Scope, rhsScope: Scope,
                                           into out: inout SQL) throws -> SQL? {
        let mark = bindings.count
        guard let sql = try scalarComparisonSQL(c, in: scope, rhsScope: rhsScope, into: &out) else { return nil }
        // A comparison decided without its operands leaves no parameters
        // behind: every numbered parameter must appear in the SQL.
        if sql.truth != nil { bindings.removeSubrange(mark...) }
        return sql
    }

    /// ``scalarComparison(_:in:rhsScope:into:)`` without giving back the
    /// bindings of a comparison decided without rows.
    private mutating func scalarComparisonSQL(_ c: Comparison, in scope: Scope, rhsScope: Scope,
                                              into out: inout SQL) throws -> SQL? {
        if c.op == .utiConformsTo || c.op == .utiEquals {
            return try scalarComparisonSQL(try Self.uniformTypeComparison(c), in: scope, rhsScope: rhsScope, into: &out)
        }
        if c.op == .between { return try between(c, in: scope, rhsScope: rhsScope, into: &out) }
        if c.op == .in { return try membership(c, in: scope, rhsScope: rhsScope, into: &out) }
        var lhs = try operand(c.lhs, in: scope)
        var rhs = try operand(c.rhs, in: rhsScope)
        try reconcile(&lhs, &rhs, op: c.op)
        try checkCategories(lhs, rhs, op: c.op)
        let dialect = self.dialect
        let prepared = try dialect.prepare(&lhs, &rhs, c, in: &self)
        guard let undecided = prepared.undecided, !undecided.isEmpty else {
            return try compared(c, lhs, rhs, options: prepared.options, into: &out)
        }
        var sql = SQL()
        if let whole = try compared(c, lhs, rhs, options: prepared.options, into: &sql) { sql = whole }
        return dialect.approximation(sql, undecided: undecided, in: &self)
    }

    /// `lhs op rhs` once the operands are read and reconciled, with
    /// `options` (none when PostgreSQL's folding has been done): appended
    /// to `out`, or returned where it is decided or composed otherwise.
    private mutating func compared(_ c: Comparison, _ lhs: Operand, _ rhs: Operand, options: Comparison.Options,
                                   into out: inout SQL) throws -> SQL? {
        switch c.op {
        case .equal, .notEqual:
            if let equal = try knownObjectEquality(lhs, rhs) { return equal == (c.op == .equal) ? trueSQL : falseSQL }
            if lhs.isNullConstant || rhs.isNullConstant {
                let other = lhs.isNullConstant ? rhs : lhs
                if lhs.isNullConstant && rhs.isNullConstant { return c.op == .equal ? trueSQL : falseSQL }
                if let presence = other.presence { return SQL(sql: c.op == .equal ? "NOT " + presence : presence) }
                return c.op == .equal ? "\(other.sql) IS NULL" : "\(other.sql) IS NOT NULL"
            }
            if lhs.category == .object || rhs.category == .object {
                // Keys compare within one table: objects of one root entity.
                guard lhs.category == rhs.category, let a = lhs.entity, let b = rhs.entity, a.rootEntity === b.rootEntity else {
                    throw Untranslatable(reason: "object comparison")
                }
                return dialect.same(lhs.sql, rhs.sql, c.op == .equal)
            }
            // IS, not =: nil == nil holds in the evaluator. (No options,
            // nothing to fold: asked before the call, which takes both
            // operands for nothing, ~35 instructions a comparison.)
            guard !options.isEmpty, let (l, r) = folded(lhs, rhs, options) else {
                dialect.writeSame(lhs, rhs, c.op == .equal, into: &out)
                return nil
            }
            return dialect.same(l, r, c.op == .equal)
        case .less, .lessEqual, .greater, .greaterEqual:
            if lhs.isNullConstant || rhs.isNullConstant { return falseSQL }
            if lhs.category == .object || rhs.category == .object || lhs.category == .data {
                throw Untranslatable(reason: "ordering of objects or data")
            }
            guard !options.isEmpty, let (l, r) = folded(lhs, rhs, options) else {
                out.append(lhs)
                out += " "
                out += c.op.rawValue
                out += " "
                dialect.writeOrdered(rhs, lhs, into: &out)
                return nil
            }
            return "\(l) \(c.op.rawValue) \(dialect.ordered(r, lhs))"
        case .beginsWith, .endsWith, .contains:
            guard lhs.category == .string || lhs.category == .unknown, rhs.category == .string else {
                throw Untranslatable(reason: "string operator on a non-string")
            }
            dialect.writeStringOperator(c.op, lhs, rhs, options: options, into: &out)
            return nil
        case .like, .matches:
            guard lhs.category == .string || lhs.category == .unknown, rhs.category == .string else {
                throw Untranslatable(reason: "string operator on a non-string")
            }
            let dialect = self.dialect
            try dialect.writeLike(c, lhs, rhs, options: options, in: &self, into: &out)
            return nil
        case .between, .in, .utiConformsTo, .utiEquals:
            throw Untranslatable(reason: "\(c.op.rawValue) is translated before")
        }
    }

    /// Both sides with `[c] [d] [n]` folding applied, or nil when they
    /// compare as they are.
    private func folded(_ lhs: Operand, _ rhs: Operand, _ options: Comparison.Options) -> (SQL, SQL)? {
        guard !options.isEmpty, lhs.category == .string || rhs.category == .string,
              let l = dialect.folded(lhs.sql, options), let r = dialect.folded(rhs.sql, options) else { return nil }
        return (l, r)
    }

    /// URIs and UUIDs with strings, as the evaluator compares them: a URI
    /// reads as the absolute string its column holds; a UUID equals the
    /// string constant that spells it, bound as the column holds UUIDs
    /// (16 bytes in Core Data's layout, the uppercase string in mrq's),
    /// and a string operator reads mrq's layout's text. Only the subject
    /// (the left side) of a string operator is read so.
    private mutating func reconcile(_ lhs: inout Operand, _ rhs: inout Operand, op: Comparison.Operator) throws {
        if lhs.isNullConstant || rhs.isNullConstant { return }
        let stringOperator: Bool
        switch op {
        case .beginsWith, .endsWith, .contains, .like, .matches: stringOperator = true
        default: stringOperator = false
        }
        func adjust(_ a: inout Operand, _ b: inout Operand) throws {
            guard b.category == .string else { return }
            if a.category == .url { a.category = .string }
            guard a.category == .uuid else { return }
            if stringOperator {
                guard mapping.layout == .mrq, a.constant == nil else {
                    throw Untranslatable(reason: "a string operator on a UUID held as bytes")
                }
                a.category = .string
                a.sql = dialect.uuidText(a.sql)
            } else if op == .equal || op == .notEqual, case .string(let text)? = b.constant, let uuid = UUID(uuidString: text),
                      let n = b.parameter {
                b = Operand(sql: rebind(n, dialect.stored(uuid, layout: mapping.layout)), category: .uuid, constant: .uuid(uuid), parameter: n)
            }
        }
        try adjust(&lhs, &rhs)
        if !stringOperator { try adjust(&rhs, &lhs) }
    }

    /// SQLite compares across types by its own rules (and column affinity
    /// converts bound values); the evaluator does not: send mixed
    /// comparisons to memory.
    private func checkCategories(_ lhs: Operand, _ rhs: Operand, op: Comparison.Operator) throws {
        if lhs.isNullConstant || rhs.isNullConstant { return }
        func compatible(_ a: Category, _ b: Category) -> Bool {
            if a == .unknown || b == .unknown { return a == b ? false : true }
            if a == b { return true }
            return (a == .number || a == .boolean) && (b == .number || b == .boolean)
        }
        if lhs.category == .unknown && rhs.category == .unknown {
            throw Untranslatable(reason: "types unknown")
        }
        if lhs.category == rhs.category { return }
        guard compatible(lhs.category, rhs.category) else {
            throw Untranslatable(reason: "comparing \(lhs.category) with \(rhs.category)")
        }
    }

    private mutating func between(_ c: Comparison, in scope: Scope, rhsScope: Scope, into out: inout SQL) throws -> SQL? {
        guard case .aggregate(let bounds) = c.rhs.kind, bounds.count == 2 else {
            throw Untranslatable(reason: "BETWEEN needs two constant bounds")
        }
        var value = try operand(c.lhs, in: scope)
        if value.category == .object { throw Untranslatable(reason: "objects have no order") }
        var low = try operand(bounds[0], in: rhsScope)
        var high = try operand(bounds[1], in: rhsScope)
        if low.isNullConstant || high.isNullConstant { return falseSQL }
        var copy = value
        try reconcile(&value, &low, op: .greaterEqual)
        try reconcile(&copy, &high, op: .lessEqual)
        try checkCategories(value, low, op: .greaterEqual)
        try checkCategories(value, high, op: .lessEqual)
        try dialect.checkComparable(value, low, options: c.options)
        try dialect.checkComparable(value, high, options: c.options)
        if !c.options.isEmpty && value.category == .string, let v = dialect.folded(value.sql, c.options),
           let l = dialect.folded(low.sql, c.options), let h = dialect.folded(high.sql, c.options) {
            return "\(v) BETWEEN \(l) AND \(h)"
        }
        // Written where it goes, each side as it stands (mrq-bench e. parse ×20).
        out.append(value)
        out += " BETWEEN "
        dialect.writeOrdered(low, value, into: &out)
        out += " AND "
        dialect.writeOrdered(high, value, into: &out)
        return nil
    }

    /// An IN list's item and the subject `value`, made comparable as
    /// `==` makes its sides: nil is refused, categories reconciled.
    private mutating func membershipItem(_ element: Expression, of value: Operand, in scope: Scope) throws
        -> (subject: Operand, item: Operand) {
        var item = try operand(element, in: scope)
        if item.isNullConstant { throw Untranslatable(reason: "nil inside IN") }
        var subject = value
        try reconcile(&subject, &item, op: .equal)
        try checkCategories(subject, item, op: .equal)
        return (subject, item)
    }

    private mutating func membership(_ c: Comparison, in scope: Scope, rhsScope: Scope, into out: inout SQL) throws -> SQL? {
        switch c.rhs.kind {
        case .variable(let name) where objectVariables[name] != nil:
            // `department IN $ds`: the foreign key among the objects' keys.
            return try objectMembership(try operand(c.lhs, in: scope), objectVariables[name]?.ids ?? [])
        case .aggregate(let elements):
            var value = try operand(c.lhs, in: scope)
            if elements.isEmpty { return falseSQL }
            if value.category == .object {
                // `department IN %@` with objects.
                var ids: [ObjectID] = []
                for element in elements {
                    guard let id = objectConstant(element) else { throw Untranslatable(reason: "an object among non-objects") }
                    ids.append(id)
                }
                return try objectMembership(value, ids)
            }
            if value.category == .url, elements.allSatisfy({ if case .constant(.string) = $0.kind { return true }; return false }) {
                value.category = .string
            }
            let dialect = self.dialect
            let folds = !c.options.isEmpty && value.category == .string
            if !folds && !dialect.approximates {
                // Each item written where it goes: no list of items made
                // apart, nor SQL for the subject (mrq-bench e. parse ×20).
                // On a throw `out` holds part of it, as `write` says.
                out.append(value)
                out += " IN ("
                for (i, element) in elements.enumerated() {
                    var (subject, item) = try membershipItem(element, of: value, in: rhsScope)
                    guard try dialect.prepare(&subject, &item, c, in: &self).undecided == nil else {
                        throw Untranslatable(reason: "IN decided in memory")
                    }
                    if i > 0 { out += ", " }
                    out.append(item)
                }
                out += ")"
                return nil
            }
            let fold: (SQL) -> SQL? = { folds ? dialect.folded($0, c.options) : nil }
            var head: SQL? = fold(value.sql)
            // The items written in one list, as they come.
            var items = SQL()
            var undecided: [SQL] = []
            for (i, element) in elements.enumerated() {
                var (subject, item) = try membershipItem(element, of: value, in: rhsScope)
                // PostgreSQL's [c] [d]: the subject lowered, each item folded.
                let prepared = try dialect.prepare(&subject, &item, c, in: &self)
                if let folding = prepared.undecided { (head, undecided) = (subject.sql, folding) }
                if i > 0 { items += ", " }
                if folds, let folded = fold(item.sql) { items += folded } else { items.append(item) }
            }
            guard undecided.isEmpty else {
                let sql: SQL = "\(head ?? value.sql) IN (\(items))"
                return dialect.approximation(sql, undecided: undecided, in: &self)
            }
            if let head { out += head } else { out.append(value) }
            out += " IN ("
            out += items
            out += ")"
            return nil
        default:
            // `needle IN haystack` where the haystack is a string: substring.
            let mark = bindings.count
            let needle = try operand(c.lhs, in: scope)
            let haystack = try operand(c.rhs, in: rhsScope)
            guard haystack.category == .string, needle.category == .string else {
                throw Untranslatable(reason: "IN over a non-collection")
            }
            bindings.removeSubrange(mark...)
            var reversed = c
            reversed.op = .contains
            reversed.lhs = c.rhs
            reversed.rhs = c.lhs
            return try scalarComparisonSQL(reversed, in: rhsScope, rhsScope: scope, into: &out)
        }
    }

    // MARK: - Objects

    /// The ID of an object constant: an object given for `%@`, or an object
    /// variable holding one object.
    func objectConstant(_ expression: Expression) -> ObjectID? {
        switch expression.kind {
        case .object(let reference): return reference.objectID
        case .variable(let name):
            if case .object(let id)? = objectVariables[name] { return id }
            return nil
        default: return nil
        }
    }

    func isObjectConstant(_ expression: Expression) -> Bool { objectConstant(expression) != nil }

    /// Whether a row of this store can be the object `id` names, as an
    /// object of `entity`: never one unsaved (a temporary ID is no key), of
    /// another store, or of another inheritance tree.
    func rowCanBe(_ id: ObjectID, _ entity: EntityDescription) -> Bool {
        !id.isTemporaryID && id.storeNumber == storeNumber && id.entity.rootEntity === entity.rootEntity
    }

    /// An object constant: its primary key, bound when a row of this store
    /// can be it (else nothing is bound, and comparisons decide alone).
    mutating func objectOperand(_ id: ObjectID) -> Operand {
        let sql = rowCanBe(id, id.entity) ? bind(.int(id.primaryKey)) : SQL(sql: "NULL")
        return Operand(sql: sql, category: .object, entity: id.entity, object: id)
    }

    /// `==` between an object constant and the other side, when it is
    /// known without SQL: false with nil or an object no row can be (the
    /// rows that point at an unsaved object are pending changes, tested
    /// in memory); with another constant, whether they are the same.
    private func knownObjectEquality(_ lhs: Operand, _ rhs: Operand) throws -> Bool? {
        guard let id = lhs.object ?? rhs.object else { return nil }
        let other = lhs.object != nil ? rhs : lhs
        if other.isNullConstant { return false }
        guard other.category == .object, let entity = other.entity else {
            throw Untranslatable(reason: "comparing an object with a non-object")
        }
        if let otherID = other.object { return otherID == id }
        return rowCanBe(id, entity) ? nil : false
    }

    /// `value IN (keys…)`: an object column among the objects `ids` name,
    /// leaving out those no row can be.
    private mutating func objectMembership(_ value: Operand, _ ids: [ObjectID]) throws -> SQL {
        guard value.category == .object, value.object == nil, let entity = value.entity else {
            throw Untranslatable(reason: "membership in a list of objects")
        }
        var keys: [SQL] = []
        for id in ids where rowCanBe(id, entity) { keys.append(bind(.int(id.primaryKey))) }
        return keys.isEmpty ? falseSQL : value.sql + " IN (" + SQL.joined(keys, separator: ", ") + ")"
    }
}
