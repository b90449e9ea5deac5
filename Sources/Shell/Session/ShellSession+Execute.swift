import ActiveRecord
import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

extension ShellSession {
    func execute(_ statement: Statement, output: OutputSink) throws {
        switch statement {
        case .query(let query) where isHistoryQuery(query):
            output.result(Renderer(options: resultOptions).render(try runHistory(query)))
        case .count(let query) where isHistoryQuery(query):
            output.result(Renderer(options: resultOptions).render(scalar: .int(Int64(try runHistory(query).rows.count)), label: "count"))
        case .query(let query):
            try streamQuery(query, output: output)
        case .first(var query):
            query.limit = 1
            try streamQuery(query, output: output)
        case .count(let query):
            output.result(Renderer(options: resultOptions).render(scalar: .int(Int64(try count(query))), label: "count"))
        case .select(let select):
            try runSelect(select, output: output)
        case .aggregate(let aggregate):
            let result = try runAggregate(aggregate)
            if aggregate.groupBy.isEmpty, result.rows.count == 1, result.columns.count == 1, case .value(let v) = result.rows[0][0] {
                output.result(Renderer(options: resultOptions).render(scalar: v, label: result.columns[0]))
            } else {
                output.result(Renderer(options: resultOptions).render(result))
            }
        case .insert(let entityName, let assignments):
            let object = try insert(entityName, assignments)
            output.status("inserted 1 \(object.entity.name)")
        case .update(let query, let assignments):
            let (objects, entity) = try fetch(query)
            for object in objects {
                for assignment in assignments { try assign(assignment, to: object) }
            }
            output.status("updated \(Self.count(objects.count, entity.name))")
        case .delete(let query):
            let (count, entity) = try deleteObjects(query)
            output.status("deleted \(Self.count(count, entity.name))")
        case .directUpdate(let query, let assignments):
            try runDirectUpdate(query, assignments: assignments, output: output)
        case .directDelete(let query):
            try runDirectDelete(query, output: output)
        case .truncate(let name):
            let (count, entity) = try deleteObjects(Query(entity: name, range: name.range))
            output.status("deleted \(Self.count(count, entity.name))")
        case .importJSON(let name, let path, let range):
            try runImportJSON(name, path: path, range: range, output: output)
        case .save:
            try runSave(output: output)
        case .rollback:
            let changes = context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count
            rollbackAndRefresh()
            output.status(changes == 0 ? "nothing to roll back" : "rolled back \(changes) change\(changes == 1 ? "" : "s")")
        case .undo:
            output.status(undoManager.undo() ? "undone" : "nothing to undo")
        case .redo:
            output.status(undoManager.redo() ? "redone" : "nothing to redo")
        case .entity(let declaration):
            try declare(declaration, output: output)
        case .letBinding(let name, let value):
            let variable = try evaluateForLet(value)
            variables[name.text] = variable
            output.status("\(name.text) = \(describe(variable))")
        case .expression(let expression):
            if case .variable(let name) = expression.kind, case .objects(let objects, let entity, _)? = variables[name] {
                try streamObjects(try liveObjects(objects, of: name, at: expression.range), columns: ObjectColumns(entity), output: output)
                return
            }
            let value = try evaluate(expression)
            output.result(Renderer(options: resultOptions).render(scalar: value, label: nil))
        case .explain(let inner):
            output.result(try explain(inner))
        case .templates:
            output.result(templateList())
        case .template(let fetch):
            try runTemplate(fetch, output: output)
        }
    }

    /// `insert Entity { … }`: the new object, or none when an assignment
    /// fails.
    func insert(_ entityName: Name, _ assignments: [Assignment]) throws -> ManagedObject {
        let entity = try self.entity(entityName)
        guard !entity.isAbstract else {
            throw LocatedError("cannot insert an object of abstract entity \(entity.name); insert one of: \(entity.selfAndDescendants.filter { !$0.isAbstract }.map(\.name).joined(separator: ", "))", entityName.range)
        }
        let object = context.insertObject(forEntityName: entity.name)
        do {
            for assignment in assignments { try assign(assignment, to: object) }
        } catch {
            context.delete(object)
            throw error
        }
        return object
    }

    static func count(_ n: Int, _ entity: String) -> String {
        n == 1 ? "1 \(entity)" : "\(n) \(entity) objects"
    }

    // MARK: - Fetching

    /// The predicate with scalar `$variables` filled in (those holding
    /// objects stay, for the fetch request's `objectVariables`), its keys
    /// and comparisons checked against the entity, and what evaluation
    /// is certain to refuse refused (``Predicate/checkRunnable()``).
    func resolve(_ predicate: Predicate?, entity: EntityDescription) throws -> Predicate? {
        guard var predicate else { return nil }
        predicate = try predicate.substituting(expressions: valueVariables(), keeping: objectVariableNames())
        try predicate.validateKeys(entity: entity.name, schema: model)
        // What evaluation would refuse is refused here, where running and
        // `explain` both pass, so that explain never approves it.
        try predicate.checkRunnable()
        return predicate
    }

    /// The names of the variables that hold objects.
    func objectVariableNames() -> Set<String> {
        Set(variables.compactMap { name, variable in
            if case .objects = variable { return name }
            return nil
        })
    }

    /// The object variables `predicate` uses, for its fetch request: each
    /// must still be in the context (and not deleted), `== $d` needs one
    /// object (`first …`), and a relationship compares only with objects
    /// of its destination.
    func objectVariables(in predicate: Predicate, entity: EntityDescription) throws -> [String: ObjectVariable] {
        var result: [String: ObjectVariable] = [:]
        func visit(_ p: Predicate) throws {
            switch p.kind {
            case .constant: break
            case .not(let inner): try visit(inner)
            case .and(let parts), .or(let parts): for part in parts { try visit(part) }
            case .comparison(let c):
                for (side, other) in [(c.lhs, c.rhs), (c.rhs, c.lhs)] {
                    guard case .variable(let name) = side.kind, case .objects(let objects, let held, let one)? = variables[name] else { continue }
                    _ = try liveObjects(objects, of: name, at: side.range, relating: true)
                    if !one, c.op == .equal || c.op == .notEqual {
                        throw LocatedError(ShellDiagnostics.variableHoldsMany(name, count: objects.count, entity: held.name), side.range)
                    }
                    if let path = other.keyPathComponents, let relationship = relationship(at: path, from: entity),
                       let destination = relationship.destination,
                       !destination.selfAndDescendants.contains(where: { $0 === held }) && !held.selfAndDescendants.contains(where: { $0 === destination }) {
                        throw LocatedError(ShellDiagnostics.wrongDestination(relationship.name, takes: destination.name, given: held.name), side.range)
                    }
                    let ids = objects.map(\.objectID)
                    result[name] = one && ids.count == 1 ? .object(ids[0]) : .objects(ids)
                }
            }
        }
        try visit(predicate)
        return result
    }

    /// The relationship a key path ends at, through to-one or to-many hops.
    func relationship(at path: [String], from entity: EntityDescription) -> RelationshipDescription? {
        var current = entity
        for (i, key) in path.enumerated() {
            guard let relationship = current.relationship(named: key) else { return nil }
            if i == path.count - 1 { return relationship }
            guard let next = relationship.destination else { return nil }
            current = next
        }
        return nil
    }

    func checkSortKeys(_ keys: [SortKey], entity: EntityDescription) throws {
        for key in keys {
            var current = entity
            for (i, part) in key.keyPath.enumerated() {
                // An element of a composite (`magnitude.richter`) is one attribute.
                if i < key.keyPath.count - 1, current.compositeAttribute(named: part) != nil,
                   current.attribute(named: key.keyPath[i...].joined(separator: ".")) != nil {
                    break
                }
                if i == key.keyPath.count - 1 {
                    guard current.attribute(named: part) != nil || current.relationship(named: part)?.isToOne == true else {
                        throw LocatedError(ShellDiagnostics.unknownKey(part, entity: current.name,
                            suggestion: Suggestions.closest(to: part, in: current.attributes.map(\.name))), key.range)
                    }
                } else {
                    guard let relationship = current.relationship(named: part), relationship.isToOne,
                          let destination = relationship.destination else {
                        throw LocatedError(ShellDiagnostics.unknownKey(part, entity: current.name,
                            suggestion: Suggestions.closest(to: part, in: current.relationships.filter(\.isToOne).map(\.name))), key.range)
                    }
                    current = destination
                }
            }
        }
    }

    func request(for query: Query) throws -> (FetchRequest, EntityDescription) {
        let entity = try self.entity(query.entity)
        var request = FetchRequest(entityName: entity.name)
        request.predicate = try resolve(query.predicate, entity: entity)
        if let predicate = request.predicate { request.objectVariables = try objectVariables(in: predicate, entity: entity) }
        try checkSortKeys(query.sort, entity: entity)
        request.sortDescriptors = query.sort
        request.fetchLimit = query.limit ?? 0
        request.fetchOffset = query.offset ?? 0
        return (request, entity)
    }

    func fetch(_ query: Query) throws -> ([ManagedObject], EntityDescription) {
        let (request, entity) = try self.request(for: query)
        return (Array(try context.fetch(request)), entity)
    }

    /// The fetch of the objects a delete removes, with what their delete
    /// rules read prefetched (see `prefetchingDeleteRules(of:)`): the
    /// reads `explain` lists are the ones the delete makes.
    func deleteRequest(for query: Query) throws -> (FetchRequest, EntityDescription) {
        let (request, entity) = try request(for: query)
        return (request.prefetchingDeleteRules(of: entity), entity)
    }

    /// Deletes the matching objects from the context, running their
    /// delete rules; returns how many matched.
    private func deleteObjects(_ query: Query) throws -> (Int, EntityDescription) {
        let (request, entity) = try deleteRequest(for: query)
        // Held while the rules run: they keep the prefetched objects alive.
        let results = try context.fetch(request)
        var count = 0
        for object in results {
            count += 1
            if !object.isDeleted { context.delete(object) }
        }
        withExtendedLifetime(results) {}
        return (count, entity)
    }

    func count(_ query: Query) throws -> Int {
        let (request, _) = try self.request(for: query)
        return try context.count(for: request)
    }

    // MARK: - Values

    /// What each variable holding values stands for in a predicate or an
    /// expression: a constant, or an aggregate for a collection.
    func valueVariables() -> [String: Expression] {
        var expressions: [String: Expression] = [:]
        for (name, variable) in variables {
            switch variable {
            case .value(let v): expressions[name] = Expression(.constant(v))
            case .collection(let values): expressions[name] = .aggregate(values)
            case .objects: break
            }
        }
        return expressions
    }

    func scalarVariables() -> [String: Value] {
        var scalars: [String: Value] = [:]
        for (name, variable) in variables {
            if case .value(let v) = variable { scalars[name] = v }
        }
        return scalars
    }

    /// Evaluates an expression with no object (constants, arithmetic,
    /// variables, functions).
    func evaluate(_ expression: Expression, on object: ManagedObject? = nil) throws -> Value {
        switch try evaluateOperand(expression, on: object) {
        case .value(let v): return v
        case .object(let o as ManagedObject): return .string(keyValueText(o))
        case .object: return .null
        case .collection(let items):
            return .string("{" + items.map { $0.scalar.map { ValueFormatter.text($0, nullText: "nil") } ?? "…" }.joined(separator: ", ") + "}")
        }
    }

    /// The operand an expression gives, a collection kept as one.
    func evaluateOperand(_ expression: Expression, on object: ManagedObject? = nil) throws -> Operand {
        if case .variable(let name) = expression.kind, variables[name] == nil {
            throw LocatedError(ShellDiagnostics.unknownVariable(name), expression.range)
        }
        let filled = try expression.substituting(expressions: valueVariables())
        return try Evaluator().evaluate(filled, on: object.map { Operand.object($0) } ?? .value(.null))
    }

    func assign(_ assignment: Assignment, to object: ManagedObject) throws {
        let entity = object.entity
        let key = assignment.key
        if let attribute = entity.attribute(named: key.text) {
            guard case .expression(let expression) = assignment.value else {
                throw LocatedError("'\(key.text)' is an attribute: give it a value, not a query", key.range)
            }
            let value = try evaluate(expression, on: object)
            do {
                object.setAttributeValue(try attribute.type.coerce(value), forKey: attribute.name)
            } catch {
                throw LocatedError("cannot store \(Printer.format(Expression(.constant(value)))) in \(attribute.type.rawValue) attribute '\(attribute.name)'", expression.range)
            }
        } else if let relationship = entity.relationship(named: key.text) {
            let destinations = try objects(for: assignment.value, key: key, relationship: relationship)
            try checkDestinations(destinations, of: relationship, at: assignment.value.range)
            if relationship.isToMany {
                object.setObjects(destinations, forKey: relationship.name)
            } else {
                guard destinations.count <= 1 else { throw LocatedError(ShellDiagnostics.notAToOne(key.text), key.range) }
                object.setObject(destinations.first, forKey: relationship.name)
            }
        } else {
            throw LocatedError(ShellDiagnostics.unknownKey(key.text, entity: entity.name,
                                                           suggestion: Suggestions.closest(to: key.text, in: entity.propertyNames)), key.range)
        }
    }

    private func objects(for source: ValueSource, key: Name, relationship: RelationshipDescription) throws -> [ManagedObject] {
        switch source {
        case .first(var query):
            query.limit = 1
            let (found, _) = try fetch(query)
            guard let first = found.first else { throw LocatedError(ShellDiagnostics.noMatchForFirst(query.entity.text), query.range) }
            return [first]
        case .all(let query):
            guard relationship.isToMany else { throw LocatedError(ShellDiagnostics.notAToOne(key.text), query.range) }
            return try fetch(query).0
        case .expression(let expression):
            if case .constant(.null) = expression.kind { return [] }
            // `{$a, $b}`: the objects of several variables (as `.dump` writes).
            if case .aggregate(let elements) = expression.kind, !elements.isEmpty {
                return try elements.flatMap { element -> [ManagedObject] in
                    guard case .variable(let name) = element.kind, case .objects(let objects, _, _)? = variables[name] else {
                        throw LocatedError("'\(key.text)' is a relationship: give it object variables, {$a, $b}", element.range)
                    }
                    return try liveObjects(objects, of: name, at: element.range, relating: true)
                }
            }
            if case .variable(let name) = expression.kind {
                switch variables[name] {
                case .objects(let objects, _, _)?:
                    return try liveObjects(objects, of: name, at: expression.range, relating: true)
                case .value(.null)?:
                    return []
                default:
                    throw LocatedError(ShellDiagnostics.unknownVariable(name), expression.range)
                }
            }
            throw LocatedError("'\(key.text)' is a relationship: give it 'first \(relationship.destinationName) where …'\(relationship.isToMany ? " or '\(relationship.destinationName) where …'" : ""), or nil", expression.range)
        }
    }

    /// Objects a variable holds that are still in the context, as they
    /// must be to be shown: one rolled back, undone, or whose row a direct
    /// delete removed is an error; to be related (`relating`), one deleted
    /// too.
    func liveObjects(_ objects: [ManagedObject], of variable: String, at range: SourceRange, relating: Bool = false) throws -> [ManagedObject] {
        for object in objects {
            let live = object.managedObjectContext === context && !(relating && object.isDeleted)
                && (try? context.existingObject(with: object.objectID)) === object
            guard live else {
                throw LocatedError(ShellDiagnostics.objectGone(variable: variable, entity: object.entity.name), range)
            }
        }
        return objects
    }

    /// Refuses destinations of another entity than the relationship's
    /// (a Person as someone's department).
    private func checkDestinations(_ objects: [ManagedObject], of relationship: RelationshipDescription, at range: SourceRange) throws {
        guard let destination = relationship.destination else { return }
        let accepted = Set(destination.selfAndDescendants.map(\.name))
        if let wrong = objects.first(where: { !accepted.contains($0.entity.name) }) {
            throw LocatedError(ShellDiagnostics.wrongDestination(relationship.name, takes: destination.name, given: wrong.entity.name), range)
        }
    }

    private func evaluateForLet(_ statement: Statement) throws -> Variable {
        switch statement {
        case .count(let query) where isHistoryQuery(query):
            return .value(.int(Int64(try runHistory(query).rows.count)))
        case .query(let query):
            let (objects, entity) = try fetch(query)
            return .objects(objects, entity: entity, one: false)
        case .first(var query):
            query.limit = 1
            let (objects, entity) = try fetch(query)
            return .objects(objects, entity: entity, one: true)
        case .template(let fetch):
            var (request, entity) = try templateRequest(fetch)
            if request.resultType == .count { return .value(.int(Int64(try context.count(for: request)))) }
            request.resultType = .managedObject
            return .objects(Array(try context.fetch(request)), entity: entity, one: false)
        case .count(let query):
            return .value(.int(Int64(try count(query))))
        case .insert(let entityName, let assignments):
            let object = try insert(entityName, assignments)
            return .objects([object], entity: object.entity, one: true)
        case .aggregate(let aggregate) where aggregate.groupBy.isEmpty:
            let result = try runAggregate(aggregate)
            if case .value(let v)? = result.rows.first?.first { return .value(v) }
            return .value(.null)
        case .expression(let expression):
            if case .variable(let name) = expression.kind, let existing = variables[name] { return existing }
            if case .collection(let items) = try evaluateOperand(expression) {
                // A collection of values stays one, so `IN $NAMES` is
                // membership; objects or nested collections show as text.
                let values = items.compactMap(\.scalar)
                if values.count == items.count { return .collection(values) }
            }
            return .value(try evaluate(expression))
        default:
            throw LocatedError("let takes a query, a count, an aggregate without 'group by', an insert, or an expression", .unknown)
        }
    }

    func describe(_ variable: Variable) -> String {
        switch variable {
        case .value(let v):
            // On one line and cut, as a table shows it: the value may be a
            // file's.
            return ShownCell(.value(v), nullText: "nil", listLimit: Renderer.listLimit,
                             limit: renderOptions.maxValueWidth, escaping: .all, binary: renderOptions.binary).text
        case .collection(let values):
            // As a predicate writes it: `{"Zoey", "Kai"}`.
            return ShownCell(.value(.string(Printer.format(Expression.aggregate(values)))), nullText: "nil",
                             listLimit: Renderer.listLimit, limit: renderOptions.maxValueWidth, escaping: .all).text
        case .objects(let objects, let entity, _): return Self.count(objects.count, entity.name)
        }
    }

    // MARK: - Rendering objects

    /// How a related object is shown: its `relatedByAttribute` (or
    /// `<entity>ID`, `name`, `title`) value, else its primary key; null
    /// for an object whose row is gone.
    func keyValue(_ object: ManagedObject, via relationship: RelationshipDescription? = nil) -> Value {
        for name in keyCandidates(of: object.entity, via: relationship) {
            let value = object[name]
            if !value.isNull { return value }
        }
        // A row that is gone (deleted behind mrq's back) has no key to
        // show: its number would pass for one.
        if object.managedObjectContext?.isGone(object.objectID) == true { return .null }
        return .int(object.objectID.primaryKey)
    }

    /// The attributes of `entity` that may show an object of it, in the
    /// order tried (see ActiveRecord's `KeyAttributes`): the relationship's
    /// `relatedByAttribute`, the entity's (or an ancestor's),
    /// `<entity>ID`, `name`, `title`.
    func keyCandidates(of entity: EntityDescription, via relationship: RelationshipDescription?) -> [String] {
        KeyAttributes.names(of: entity, via: relationship)
    }

    func keyValueText(_ object: ManagedObject) -> String {
        ValueFormatter.text(keyValue(object), nullText: "nil")
    }
}

extension Statement {
    /// Whether running it changes objects of the context (and can be
    /// undone as one group).
    var changesObjects: Bool {
        switch self {
        case .insert, .update, .delete, .truncate, .importJSON: return true
        case .letBinding(_, let value): return value.changesObjects
        default: return false
        }
    }
}

extension ValueSource {
    /// Where the value is written.
    var range: SourceRange {
        switch self {
        case .expression(let expression): return expression.range
        case .first(let query), .all(let query): return query.range
        }
    }
}
