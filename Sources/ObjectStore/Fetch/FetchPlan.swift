import Foundation
import Predicates
import struct Predicates.Predicate

/// A fetch request turned into SQL for one store: the FROM clause with its
/// joins, the WHERE condition with its bound values, the ORDER BY, and the
/// part of the predicate left to evaluate in memory. Its statements are
/// ``SQL`` composed from these and written by the store's dialect.
package struct FetchPlan {
    let entity: EntityDescription
    package let root: EntityDescription
    /// The table and its joins (binding nothing).
    package let from: String
    /// The WHERE condition, with the values it binds: compose it into a
    /// statement, whose values it brings.
    package let condition: SQL
    /// Whether `condition` leaves rows out (else it is SQL's true).
    let restricts: Bool
    /// The values the plan's statements bind (the condition's), in order.
    package var bindings: [Value] { condition.bindings }
    /// The ORDER BY: the sort keys, then the primary key; nil when some
    /// sort key cannot be expressed in SQL. Written when a statement
    /// sorts (a count does not).
    package var order: SQL? { sortTerms.map { $0 + "t." + table.primaryKey.quoted } }
    /// Whether SQL sorts the rows (`order` is not nil), asked without
    /// writing the ORDER BY: a count and `explain` ask but sort nothing.
    /// (Kept, not compared: `sortTerms != nil` copied the terms to ask.)
    package let sortsInSQL: Bool
    /// The sort keys' ORDER BY terms, each followed by `, `; nil as `order`.
    private let sortTerms: SQL?
    /// Whether `order` sorts as `sortInMemory` does, so that SQL's sorted
    /// rows and objects sorted in memory merge: every key is a number, a
    /// boolean, a date, a string or a URI (decimals are text in mrq's
    /// layout, UUIDs blobs in Core Data's: SQLite orders them otherwise).
    let orderMatchesMemory: Bool
    /// The entities sort keys read through relationships (`owner.name`
    /// reads Owner): unsaved changes to them reorder objects in memory
    /// but not in SQL.
    let orderReads: [EntityDescription]
    /// What SQL could not express; evaluated in memory on the rows SQL returns.
    package let residual: Predicate?
    let table: SchemaMapping.Table
    /// Whose SQL the plan is written in.
    let dialect: SQLDialect

    /// The plan of `request` over `entity` in `store`.
    package init(request: borrowing FetchRequest, entity: EntityDescription, store: any SQLStore, predicate: borrowing Predicate?) throws {
        self.entity = entity
        self.root = entity.rootEntity
        // The store's mapping and dialect, read once (by the translator):
        // each read through the store copies the mapping (four retains)
        // and the dialect (workload e).
        var translator = SQLTranslator(store: store, entity: entity)
        dialect = translator.dialect
        table = translator.mapping.table(for: entity)
        if !request.objectVariables.isEmpty { translator.objectVariables = request.objectVariables }
        // The WHERE condition, written in one buffer: the entity filter,
        // then each conjunct SQL runs.
        var condition = SQL()
        if let filter = Self.entityFilter(entity: entity, table: table, includesSubentities: request.includesSubentities,
                                          mapping: translator.mapping) {
            condition.append(filter)
        }
        if let predicate = copy predicate {
            // Room for the values most predicates bind: the lists are made
            // once, not grown at every doubling (workload e).
            condition.reserve(slots: Self.typicalBindings, bytes: Self.typicalConditionBytes)
            translator.reserveBindings(Self.typicalBindings)
            residual = try translator.split(predicate, into: &condition)
        } else {
            residual = nil
        }
        restricts = !condition.isEmpty
        var terms = SQL()
        var orderable = true
        var matchesMemory = true
        var reads: [EntityDescription] = []
        for key in request.sortDescriptors {
            var source = entity
            for name in key.keyPath.dropLast() {
                guard let destination = source.relationship(named: name)?.destination else { break }
                reads.append(destination)
                source = destination
            }
            do {
                guard case .attribute(let sql, let type) = try translator.resolve(key.keyPath, in: translator.root, range: key.range) else {
                    orderable = false
                    break
                }
                if !Self.sortsAsInMemory.contains(type) { matchesMemory = false }
                terms += dialect.orderTerm(SQL(sql: sql), type: type, ascending: key.ascending)
                terms += ", "
            } catch is SQLTranslator.Untranslatable {
                orderable = false
                break
            }
        }
        orderMatchesMemory = orderable && matchesMemory
        orderReads = reads
        sortTerms = orderable ? terms : nil
        sortsInSQL = orderable
        // Written from the translator's parts, not through its methods: a
        // call on it here made a copy of the whole translator.
        // The buffer written moved into the plan, not copied.
        self.condition = restricts ? (consume condition).binding(translator.bindings)
            : SQL.always(true, dialect.trueSQL).binding(translator.bindings)
        var from = table.fromItem
        for join in translator.joins { from += " " + join }
        self.from = from
    }

    /// About the most values a typical WHERE condition binds and names
    /// (`t."age" > ?1 AND (length(?2) > 0 AND substr(t."lastName", 1,
    /// length(?2)) = ?2)`: two values, four slots); more grow as any do.
    private static let typicalBindings = 8
    /// About the longest WHERE condition a typical predicate writes
    /// (three comparisons, one of them a string operator).
    private static let typicalConditionBytes = 160

    /// The types SQLite sorts in `ValueOrdering`'s order as stored.
    private static let sortsAsInMemory: Set<AttributeType> = [.integer16, .integer32, .integer64, .double, .float,
                                                               .boolean, .date, .string, .uri]

    /// The condition keeping only rows of `entity` (and its sub-entities)
    /// in its hierarchy's table; nil when every row qualifies.
    static func entityFilter(entity: EntityDescription, includesSubentities: Bool, mapping: SchemaMapping) -> String? {
        entityFilter(entity: entity, table: mapping.table(for: entity), includesSubentities: includesSubentities, mapping: mapping)
    }

    /// ``entityFilter(entity:includesSubentities:mapping:)`` with the
    /// entity's table already looked up.
    static func entityFilter(entity: EntityDescription, table: SchemaMapping.Table, includesSubentities: Bool,
                             mapping: SchemaMapping) -> String? {
        guard let entityColumn = table.entityColumn else { return nil }
        let entities = includesSubentities ? entity.selfAndDescendants : [entity]
        guard entities.count < entity.rootEntity.selfAndDescendants.count else { return nil }
        return "t.\(entityColumn) IN (\(entities.map { String(mapping.entityCode($0)) }.joined(separator: ",")))"
    }

    /// The SELECT for whole rows, with an optional window; with
    /// `limitBound`, its LIMIT is bound to the parameter after the plan's
    /// own instead. Its values are the plan's `bindings`.
    package func selectRows(store: any SQLStore, limit: Int, offset: Int, limitBound: Bool = false) -> String {
        var sql: SQL = "SELECT \(store.mapping.selectList(for: root)) FROM \(from) WHERE \(condition)"
        if let order { sql += " ORDER BY " + order }
        if limitBound { sql += " LIMIT " + SQL.boundLater(type: dialect.integer) } else { sql += dialect.window(limit: limit, offset: offset) }
        return sql.rendered(by: dialect).text
    }

    func selectIDs(limit: Int, offset: Int) -> String {
        var sql: SQL = "SELECT t.\(table.primaryKey), \(table.entityColumn.map { "t.\($0)" } ?? "NULL") FROM \(from) WHERE \(condition)"
        if let order { sql += " ORDER BY " + order }
        sql += dialect.window(limit: limit, offset: offset)
        return sql.rendered(by: dialect).text
    }

    func selectCount(limit: Int, offset: Int) -> String {
        if limit == 0 && offset == 0 {
            // With no WHERE at all SQLite counts the b-tree's cells page by
            // page (OP_Count) instead of stepping every row; even `WHERE 1`
            // turns that off and makes counting a big table twice as slow.
            guard restricts else { return "SELECT COUNT(*) FROM " + from }
            // Without joins, the table's head as it is kept.
            if from == table.fromItem { return condition.rendered(by: dialect, after: table.countHead).text }
            return condition.rendered(by: dialect, after: "SELECT COUNT(*) FROM " + from + " WHERE ").text
        } else {
            let window = dialect.window(limit: limit, offset: offset)
            let sql: SQL = "SELECT COUNT(*) FROM (SELECT 1 FROM \(from) WHERE \(condition)\(window))\(dialect.derivedTableName)"
            return sql.rendered(by: dialect).text
        }
    }

    /// How many of the rows whose keys are bound, as a JSON list, to the
    /// parameter after the plan's own match.
    /// The keys come as one JSON list: one statement for any number.
    func selectCountAmongKeys() -> String {
        let sql: SQL = "SELECT COUNT(*) FROM \(from) WHERE (\(condition)) AND t.\(table.primaryKey) IN \(dialect.keysIn(SQL.boundLater(type: "text")))"
        return sql.rendered(by: dialect).text
    }

    /// The whole rows of `root`'s table (its sub-entities' too) whose
    /// primary key is among `marks` (`?,?,?`): the SELECT that loads a
    /// batch of objects, or the related objects a batch prefetches.
    package static func selectRows(byKeys marks: String, root: EntityDescription, mapping: SchemaMapping) -> String {
        "SELECT \(mapping.selectList(for: root)) FROM \(mapping.table(for: root).name) t WHERE t.\(mapping.primaryKey) IN (\(marks))"
    }
}
