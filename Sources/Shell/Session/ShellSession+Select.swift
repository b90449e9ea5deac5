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
        guard !context.hasChanges else { return false }
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

    /// `select [distinct] a, b.c from Entity …`, each row printed as it
    /// is fetched.
    func runSelect(_ select: SelectQuery, output: OutputSink) throws {
        let entity = try self.entity(select.query.entity)
        for keyPath in select.keyPaths { try checkPath(keyPath.path, range: keyPath.range, entity: entity) }
        let columns = select.keyPaths.map { $0.path.joined(separator: ".") }
        if canRunInSQL(select.keyPaths.map(\.path), entity: entity) {
            var (request, _) = try self.request(for: select.query)
            request.resultType = .dictionary
            request.propertiesToFetch = select.keyPaths.map { PropertyToFetch(keyPath: $0.path.joined(separator: ".")) }
            request.returnsDistinctResults = select.distinct
            try streamResult(columns: columns, output: output) { stream in
                try context.fetchRows(request) { row in try stream.add(row.map { .value($0) }) }
            }
            return
        }
        let (objects, _) = try fetch(select.query)
        for keyPath in select.keyPaths { try checkPath(keyPath.path, range: keyPath.range, entity: entity) }
        var seen: Set<[Value]> = []
        try streamResult(columns: columns, output: output) { stream in
            for object in objects {
                let values = select.keyPaths.map { pathValue(object, $0.path) }
                if select.distinct && !seen.insert(values).inserted { continue }
                try stream.add(values.map { .value($0) })
            }
        }
    }

    /// `sum salary of Person where … group by department.name having sum > 10`.
    func runAggregate(_ aggregate: AggregateQuery) throws -> ResultSet {
        let entity = try self.entity(aggregate.query.entity)
        if !aggregate.keyPath.isEmpty {
            try checkPath(aggregate.keyPath, range: aggregate.keyRange, entity: entity)
        }
        for key in aggregate.groupBy { try checkPath(key.path, range: key.range, entity: entity) }
        let name = aggregate.keyPath.isEmpty ? aggregate.function.rawValue : "\(aggregate.function.rawValue)(\(aggregate.keyPath.joined(separator: ".")))"
        if canRunInSQL([aggregate.keyPath] + aggregate.groupBy.map(\.path), entity: entity) {
            var (request, _) = try self.request(for: aggregate.query)
            guard let function: PropertyToFetch.Function = aggregate.function == .avg ? .average
                : PropertyToFetch.Function(rawValue: aggregate.function.rawValue) else {
                throw LocatedError(ShellDiagnostics.unknownAggregate(aggregate.function.rawValue), aggregate.query.range)
            }
            request.resultType = .dictionary
            let groups = aggregate.groupBy.map { $0.path.joined(separator: ".") }
            request.propertiesToFetch = groups.map { PropertyToFetch(keyPath: $0) }
                + [PropertyToFetch(function, of: aggregate.keyPath.joined(separator: "."), as: name)]
            request.propertiesToGroupBy = groups.isEmpty ? nil : groups
            if request.sortDescriptors.isEmpty {
                request.sortDescriptors = aggregate.groupBy.map { SortKey(keyPath: $0.path, ascending: true) }
            }
            if let having = aggregate.having {
                // `having sum > 10` names the aggregate by its function.
                request.havingPredicate = try renamingKey(aggregate.function.rawValue, to: name, in: having.substituting(variables: scalarVariables()))
            }
            do {
                let (columns, rows) = try context.fetchRows(request)
                return ResultSet(columns: columns, rows: rows.map { $0.map { .value($0) } })
            } catch let error as StoreError where error.kind == .sqlite && error.message.contains("integer overflow") {
                // SQLite's SUM stops at Int64; the sum below goes on as a
                // double, as a sum in memory does.
            }
        }
        var query = aggregate.query
        let limit = query.limit
        query.limit = nil
        let (objects, _) = try fetch(query)
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
            let result = Self.aggregate(aggregate.function, values, count: aggregate.keyPath.isEmpty ? members.count : values.count)
            if let having = aggregate.having {
                // `name` is the function's own name for `count of Person`.
                var entries: [String: Value] = [aggregate.function.rawValue: result]
                entries[name] = result
                for (i, group) in aggregate.groupBy.enumerated() where i < key.count {
                    entries[group.path.joined(separator: ".")] = key[i]
                    if let last = group.path.last { entries[last] = key[i] }
                }
                let filled = try having.substituting(variables: scalarVariables())
                if !(try Evaluator().evaluate(filled, on: entries)) { continue }
            }
            rows.append(key.map { .value($0) } + [.value(result)])
        }
        if !aggregate.groupBy.isEmpty {
            rows.sort { a, b in
                for (x, y) in zip(a, b) {
                    guard case .value(let l) = x, case .value(let r) = y else { continue }
                    let c = ValueOrdering.compare(l, r)
                    if c != 0 { return c < 0 }
                }
                return false
            }
        }
        if let limit { rows = Array(rows.prefix(limit)) }
        return ResultSet(columns: aggregate.groupBy.map { $0.path.joined(separator: ".") } + [name], rows: rows)
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
    static func aggregate(_ function: AggregateQuery.PropertyFunction, _ values: [Value], count: Int) -> Value {
        switch function {
        case .count:
            return .int(Int64(count))
        case .sum:
            if values.allSatisfy({ if case .int = $0 { return true }; return false }) {
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
