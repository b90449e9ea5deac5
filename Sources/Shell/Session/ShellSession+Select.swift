import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

extension ShellSession {
    /// The value at a key path through to-one relationships; a to-one at
    /// the end reads as the related object's key value.
    func pathValue(_ object: ManagedObject, _ path: [String]) -> Value {
        var current = object
        for (i, key) in path.enumerated() {
            let last = i == path.count - 1
            if let _ = current.entity.attribute(named: key) {
                return last ? current[key] : .null
            }
            guard let relationship = current.entity.relationship(named: key), relationship.isToOne else { return .null }
            guard let next = current.object(forKey: key) else { return .null }
            if last { return keyValue(next, via: relationship) }
            current = next
        }
        return .null
    }

    /// The attribute a key path through to-one relationships ends at.
    func attribute(at path: [String], from entity: EntityDescription) -> AttributeDescription? {
        var current = entity
        for key in path.dropLast() {
            guard let next = current.relationship(named: key)?.destination else { return nil }
            current = next
        }
        return path.last.flatMap { current.attribute(named: $0) }
    }

    func checkPath(_ path: [String], range: SourceRange, entity: EntityDescription) throws {
        var current = entity
        for (i, key) in path.enumerated() {
            if current.attribute(named: key) != nil, i == path.count - 1 { return }
            guard let relationship = current.relationship(named: key), relationship.isToOne, let destination = relationship.destination else {
                throw LocatedError(ShellDiagnostics.unknownKey(key, entity: current.name, suggestion: Suggestions.closest(to: key, in: current.propertyNames)), range)
            }
            current = destination
        }
    }

    /// Whether a select or aggregate can run as one SQL statement: the
    /// store's dictionary fetch ignores unsaved changes (as Core Data's
    /// does), so it is used only when the context has none, and key paths
    /// must end at attributes (a to-one shows as its key value here).
    func canRunInSQL(_ paths: [[String]], entity: EntityDescription) -> Bool {
        // Only SQL answers a dictionary fetch (SQLite's or PostgreSQL's):
        // an XML store's objects are fetched and the columns computed
        // from them.
        guard !context.hasChanges,
              coordinator.persistentStores.allSatisfy({ [.sqlite, .inMemory, .postgres].contains($0.storeType) }) else { return false }
        for path in paths where !path.isEmpty {
            var current = entity
            for (i, key) in path.enumerated() {
                if i == path.count - 1 {
                    guard let attribute = current.attribute(named: key), attribute.type != .decimal else { return false }
                } else {
                    guard let relationship = current.relationship(named: key), relationship.isToOne,
                          let destination = relationship.destination else { return false }
                    current = destination
                }
            }
        }
        return true
    }

    /// How a select runs: one dictionary fetch in SQL (`dictionary`), or
    /// a fetch of the objects (`objects`) with the columns evaluated on
    /// each in memory, when the context has unsaved changes (the
    /// dictionary fetch reads the saved store only, as Core Data's does)
    /// or a column is something SQL cannot say with the evaluator's
    /// meaning (a to-many without an operator, a to-one as a whole, a
    /// decimal, a division by a key…). Both give the same rows.
    struct SelectPlan {
        let entity: EntityDescription
        /// The columns' names and expressions, variables filled in.
        let columns: [(name: String, expression: Expression)]
        let objects: FetchRequest
        let dictionary: FetchRequest?
    }

    /// With `inMemory`, the plan evaluates in memory whatever SQL could do
    /// (the differential tests compare both).
    func selectPlan(_ select: SelectQuery, inMemory: Bool = false) throws -> SelectPlan {
        let (request, entity) = try self.request(for: select.query)
        // In memory, DISTINCT comes before the window.
        var objects = request
        if select.distinct { (objects.fetchLimit, objects.fetchOffset) = (0, 0) }
        var columns: [(name: String, expression: Expression)] = []
        for column in select.columns {
            let expression = try column.expression.substituting(expressions: valueVariables())
            // The keys are checked as a predicate's are.
            try Predicate(.comparison(Comparison(.direct, .equal, expression, .constant(.null))))
                .validateKeys(entity: entity.name, schema: model, comparisons: false)
            columns.append((column.name, expression))
        }
        // In memory, what the columns reach is read with the objects.
        objects.relationshipKeyPathsForPrefetching = Self.relationshipPaths(columns.map(\.expression), from: entity)
        return SelectPlan(entity: entity, columns: columns, objects: objects,
                          dictionary: inMemory ? nil : dictionaryRequest(request, columns: columns, distinct: select.distinct, entity: entity))
    }

    /// The select as a dictionary fetch, when SQL can run it whole.
    private func dictionaryRequest(_ request: FetchRequest, columns: [(name: String, expression: Expression)],
                                   distinct: Bool, entity: EntityDescription) -> FetchRequest? {
        guard !context.hasChanges else { return nil }
        var request = request
        request.resultType = .dictionary
        request.returnsDistinctResults = distinct
        var properties: [PropertyToFetch] = []
        for column in columns {
            if let path = column.expression.keyPathComponents {
                // A key path shows an attribute's value; a to-one (its key
                // value) and a to-many (a list) are shown from objects.
                guard canRunInSQL([path], entity: entity) else { return nil }
                var property = PropertyToFetch(keyPath: path.joined(separator: "."))
                property.name = column.name
                properties.append(property)
            } else {
                properties.append(PropertyToFetch(expression: column.expression, as: column.name))
            }
        }
        request.propertiesToFetch = properties
        // Planning is cheap and names what SQL cannot compute.
        guard (try? context.explain(request)) != nil else { return nil }
        return request
    }

    /// `select [distinct] a, b.c, people.@count, age * 2 from Entity …`,
    /// each row printed as it is fetched when SQL runs it whole.
    func runSelect(_ select: SelectQuery, output: OutputSink) throws {
        let plan = try selectPlan(select)
        let columns = plan.columns.map(\.name)
        if let dictionary = plan.dictionary {
            try streamResult(columns: columns, output: output) { stream in
                try context.fetchRows(dictionary) { row in try stream.add(row.map { .value($0) }) }
            }
            return
        }
        let rows = try rowsInMemory(select, plan: plan)
        try streamResult(columns: columns, output: output) { stream in
            for row in rows { try stream.add(row) }
        }
    }

    /// The select's whole result (for tests and `let`), by SQL or, with
    /// `inMemory`, by the evaluator.
    func runSelect(_ select: SelectQuery, inMemory: Bool = false) throws -> ResultSet {
        let plan = try selectPlan(select, inMemory: inMemory)
        if let dictionary = plan.dictionary {
            let (_, rows) = try context.fetchRows(dictionary)
            return ResultSet(columns: plan.columns.map(\.name), rows: rows.map { $0.map { .value($0) } })
        }
        return ResultSet(columns: plan.columns.map(\.name), rows: try rowsInMemory(select, plan: plan))
    }

    /// The select's rows from its objects, the columns evaluated on each.
    private func rowsInMemory(_ select: SelectQuery, plan: SelectPlan) throws -> [[Cell]] {
        let objects = try context.fetch(plan.objects)
        var rows: [[Cell]] = []
        var seen: Set<[Cell]> = []
        let evaluator = Evaluator()
        for object in objects {
            try StatementInterrupt.check()
            let row = try plan.columns.map { try cell(evaluator.evaluate($0.expression, on: .object(object)), path: $0.expression.keyPathComponents, of: plan.entity) }
            if select.distinct && !seen.insert(row).inserted { continue }
            rows.append(row)
        }
        // SELECT DISTINCT without a sort orders by the columns.
        if select.distinct {
            if select.query.sort.isEmpty { rows.sort(by: Self.ascending) }
            rows = Array(rows.dropFirst(select.query.offset ?? 0).prefix(select.query.limit ?? rows.count))
        }
        return rows
    }

    /// A column's value as shown: an object (a to-one) as its key value,
    /// a collection (a to-many) as a list of them.
    func cell(_ operand: Operand, path: [String]?, of entity: EntityDescription) -> Cell {
        let via = path.flatMap { self.relationship(at: $0, from: entity) }
        func value(_ operand: Operand) -> Value {
            switch operand {
            case .value(let v): return v
            case .object(let object as ManagedObject): return keyValue(object, via: via)
            case .object, .collection: return .null
            }
        }
        if case .collection(let items) = operand { return .list(items.map(value)) }
        return .value(value(operand))
    }

    /// Rows in ascending order of their cells, first to last.
    static func ascending(_ a: [Cell], _ b: [Cell]) -> Bool {
        for (x, y) in zip(a, b) {
            guard case .value(let l) = x, case .value(let r) = y else { continue }
            let c = ValueOrdering.compare(l, r)
            if c != 0 { return c < 0 }
        }
        return false
    }

    /// How an aggregate runs: one dictionary fetch in SQL (`dictionary`),
    /// or the objects fetched (`objects`, unwindowed) and grouped in
    /// memory. Its result columns are the group keys, then the aggregate
    /// (`name`); `sort` orders them by column.
    struct AggregatePlan {
        let entity: EntityDescription
        let name: String
        let objects: FetchRequest
        let dictionary: FetchRequest?
        let sort: [(column: Int, ascending: Bool)]
    }

    func aggregatePlan(_ aggregate: AggregateQuery, inMemory: Bool = false) throws -> AggregatePlan {
        var query = aggregate.query
        // Sort keys name result columns: the aggregate by its function
        // (`sort count:NO`, `sort sum`), or a group key.
        let sortKeys = query.sort
        query.sort = []
        let (request, entity) = try self.request(for: query)
        if !aggregate.keyPath.isEmpty {
            try checkPath(aggregate.keyPath, range: aggregate.keyRange, entity: entity)
        }
        for key in aggregate.groupBy { try checkPath(key.path, range: key.range, entity: entity) }
        let name = aggregate.keyPath.isEmpty ? aggregate.function.rawValue : "\(aggregate.function.rawValue)(\(aggregate.keyPath.joined(separator: ".")))"
        let groups = aggregate.groupBy.map { $0.path.joined(separator: ".") }
        var sort: [(column: Int, ascending: Bool)] = []
        for key in sortKeys {
            if key.keyPath.count == 1, key.keyPath[0].lowercased() == aggregate.function.rawValue || key.keyPath[0] == name {
                sort.append((groups.count, key.ascending))
            } else if let index = groups.firstIndex(of: key.key) {
                sort.append((index, key.ascending))
            } else {
                throw LocatedError(ShellDiagnostics.aggregateSortKey(key.key, function: aggregate.function.rawValue, groups: groups), key.range)
            }
        }
        var objects = request
        (objects.fetchLimit, objects.fetchOffset) = (0, 0)
        objects.relationshipKeyPathsForPrefetching = Self.relationshipPaths(
            [aggregate.keyPath] + aggregate.groupBy.map(\.path), from: entity)
        var dictionary: FetchRequest?
        if !inMemory, canRunInSQL([aggregate.keyPath] + aggregate.groupBy.map(\.path), entity: entity) {
            let function: PropertyToFetch.Function? = aggregate.function == .avg ? .average : PropertyToFetch.Function(rawValue: aggregate.function.rawValue)
            guard let function else {
                throw LocatedError(ShellDiagnostics.unknownAggregate(aggregate.function.rawValue), aggregate.query.range)
            }
            var fetch = request
            fetch.resultType = .dictionary
            fetch.propertiesToFetch = groups.map { PropertyToFetch(keyPath: $0) }
                + [PropertyToFetch(function, of: aggregate.keyPath.joined(separator: "."), as: name)]
            fetch.propertiesToGroupBy = groups.isEmpty ? nil : groups
            fetch.sortDescriptors = sort.map { column, ascending in
                SortKey(keyPath: column == groups.count ? [name] : aggregate.groupBy[column].path, ascending: ascending)
            }
            if let having = aggregate.having {
                // `having sum > 10` names the aggregate by its function.
                fetch.havingPredicate = try renamingKey(aggregate.function.rawValue, to: name, in: having.substituting(expressions: valueVariables()))
            }
            dictionary = fetch
        }
        return AggregatePlan(entity: entity, name: name, objects: objects, dictionary: dictionary, sort: sort)
    }

    /// `sum salary of Person where … group by department.name having sum > 10
    /// sort sum:NO limit 3`.
    func runAggregate(_ aggregate: AggregateQuery, inMemory: Bool = false) throws -> ResultSet {
        let plan = try aggregatePlan(aggregate, inMemory: inMemory)
        let name = plan.name
        if let dictionary = plan.dictionary {
            do {
                let (columns, rows) = try context.fetchRows(dictionary)
                return ResultSet(columns: columns, rows: rows.map { $0.map { .value($0) } })
            } catch let error as StoreError where error.kind == .other && error.message.contains("integer overflow") {
                // SQLite's SUM stops at Int64; the sum below goes on as a
                // double, as a sum in memory does.
            }
        }
        let objects = try context.fetch(plan.objects)
        // A sum of a floating-point attribute is a double, as in SQL, even
        // of nothing.
        let type = attribute(at: aggregate.keyPath, from: plan.entity)?.type
        let floating = type == .double || type == .float
        var groups: [[Value]: [ManagedObject]] = [:]
        var order: [[Value]] = []
        for object in objects {
            let key = aggregate.groupBy.map { pathValue(object, $0.path) }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(object)
        }
        if aggregate.groupBy.isEmpty && order.isEmpty { order = [[]]; groups[[]] = [] }
        var rows: [[Cell]] = []
        for key in order {
            let members = groups[key] ?? []
            let values = aggregate.keyPath.isEmpty ? [] : members.map { pathValue($0, aggregate.keyPath) }.filter { !$0.isNull }
            let result = Self.aggregate(aggregate.function, values, count: aggregate.keyPath.isEmpty ? members.count : values.count,
                                        floating: floating)
            if let having = aggregate.having {
                // `name` is the function's own name for `count of Person`.
                var entries: [String: Value] = [aggregate.function.rawValue: result]
                entries[name] = result
                for (i, group) in aggregate.groupBy.enumerated() where i < key.count {
                    entries[group.path.joined(separator: ".")] = key[i]
                    if let last = group.path.last { entries[last] = key[i] }
                }
                let filled = try having.substituting(expressions: valueVariables())
                if !(try Evaluator().evaluate(filled, on: entries)) { continue }
            }
            rows.append(key.map { .value($0) } + [.value(result)])
        }
        // As SQL orders them: by the sort keys, then by every column.
        if !aggregate.groupBy.isEmpty || !plan.sort.isEmpty {
            rows.sort { a, b in
                for (column, ascending) in plan.sort {
                    guard case .value(let l) = a[column], case .value(let r) = b[column] else { continue }
                    let c = ValueOrdering.compare(l, r)
                    if c != 0 { return ascending ? c < 0 : c > 0 }
                }
                return Self.ascending(a, b)
            }
        }
        if let limit = aggregate.query.limit { rows = Array(rows.prefix(limit)) }
        return ResultSet(columns: aggregate.groupBy.map { $0.path.joined(separator: ".") } + [name], rows: rows)
    }

    /// The relationships the columns reach, as prefetch key paths: read
    /// with the objects, a batch at a time, and not by a fault per object.
    static func relationshipPaths(_ expressions: [Expression], from entity: EntityDescription) -> [String] {
        var paths: [[String]] = []
        func walk(_ e: Expression) {
            switch e.kind {
            case .keyPath(let path): paths.append(path)
            case .assignment(_, let inner), .negate(let inner), .cast(let inner, _), .index(let inner, _): walk(inner)
            case .aggregate(let items), .function(_, let items): items.forEach(walk)
            case .method(let receiver, _, let arguments): walk(receiver); arguments.forEach(walk)
            case .binary(_, let a, let b): walk(a); walk(b)
            case .collection(_, let inner, let key), .member(let inner, let key):
                if case .keyPath(let path) = inner.kind { paths.append(path + key) } else { walk(inner) }
            default: break
            }
        }
        expressions.forEach(walk)
        return relationshipPaths(paths, from: entity)
    }

    /// The relationship prefixes of key paths (`department` of
    /// `department.name`), each once, in order.
    static func relationshipPaths(_ keyPaths: [[String]], from entity: EntityDescription) -> [String] {
        var result: [String] = []
        for path in keyPaths {
            var current: EntityDescription? = entity
            var prefix: [String] = []
            for key in path {
                guard let relationship = current?.relationship(named: key) else { break }
                prefix.append(key)
                let joined = prefix.joined(separator: ".")
                if !result.contains(joined) { result.append(joined) }
                current = relationship.destination
            }
        }
        return result
    }

    /// The predicate with key `old` read as key `new`.
    func renamingKey(_ old: String, to new: String, in predicate: Predicate) -> Predicate {
        func expression(_ e: Expression) -> Expression {
            var e = e
            if case .keyPath(let path) = e.kind, path == [old] { e.kind = .keyPath([new]) }
            return e
        }
        func rewrite(_ p: Predicate) -> Predicate {
            var p = p
            switch p.kind {
            case .constant: break
            case .not(let inner): p.kind = .not(rewrite(inner))
            case .and(let parts): p.kind = .and(parts.map(rewrite))
            case .or(let parts): p.kind = .or(parts.map(rewrite))
            case .comparison(var c):
                c.lhs = expression(c.lhs)
                c.rhs = expression(c.rhs)
                p.kind = .comparison(c)
            }
            return p
        }
        return rewrite(predicate)
    }

    static func number(_ v: Value) -> Double? {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        case .date(let d): return d.timeIntervalSinceReferenceDate
        default: return nil
        }
    }

    /// sum of integers stays an integer; avg is a double; min/max keep the
    /// values' type; count counts non-nil values (or objects).
    static func aggregate(_ function: AggregateQuery.PropertyFunction, _ values: [Value], count: Int, floating: Bool = false) -> Value {
        switch function {
        case .count:
            return .int(Int64(count))
        case .sum:
            if !floating, values.allSatisfy({ if case .int = $0 { return true }; return false }) {
                var total: Int64 = 0
                for case .int(let i) in values {
                    let (sum, overflow) = total.addingReportingOverflow(i)
                    if overflow { return .double(values.compactMap(number).reduce(0, +)) }
                    total = sum
                }
                return .int(total)
            }
            return .double(values.compactMap(number).reduce(0, +))
        case .avg:
            let numbers = values.compactMap(number)
            return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        case .min:
            return values.min { ValueOrdering.compare($0, $1) < 0 } ?? .null
        case .max:
            return values.max { ValueOrdering.compare($0, $1) < 0 } ?? .null
        }
    }
}
