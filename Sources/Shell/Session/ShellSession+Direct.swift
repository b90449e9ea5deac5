import Foundation
import ObjectStore
import Predicates

extension ShellSession {
    /// `update Person where … set age = age + 1 direct`: a batch update in
    /// the store; the session's live objects are refreshed afterwards.
    func runDirectUpdate(_ query: Query, assignments: [Assignment], output: OutputSink) throws {
        let (fetch, entity) = try directRequest(for: query, verb: "update")
        var batch = BatchUpdateRequest(entityName: entity.name, predicate: fetch.predicate,
                                       propertiesToUpdate: try directProperties(assignments, entity: entity))
        batch.objectVariables = fetch.objectVariables
        let result = try context.execute(batch)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
        output.status("updated \(Self.count(result.count ?? 0, entity.name)) directly")
    }

    /// A direct update's assignments as batch values: attributes only.
    func directProperties(_ assignments: [Assignment], entity: EntityDescription) throws -> [String: BatchValue] {
        var properties: [String: BatchValue] = [:]
        for assignment in assignments {
            let key = assignment.key
            guard let attribute = entity.attribute(named: key.text) else {
                if entity.relationship(named: key.text) != nil {
                    throw LocatedError("a direct update sets attributes only, not the relationship '\(key.text)'", key.range)
                }
                throw LocatedError(ShellDiagnostics.unknownKey(key.text, entity: entity.name,
                                                               suggestion: Suggestions.closest(to: key.text, in: entity.propertyNames)), key.range)
            }
            guard case .expression(let expression) = assignment.value else {
                throw LocatedError("'\(key.text)' is an attribute: give it a value, not a query", key.range)
            }
            properties[attribute.name] = .expression(try expression.substituting(expressions: valueVariables()))
        }
        return properties
    }

    /// `delete Person where … direct`: a batch delete in the store, delete
    /// rules run in SQL.
    func runDirectDelete(_ query: Query, output: OutputSink) throws {
        let (fetch, entity) = try directRequest(for: query, verb: "delete")
        var batch = BatchDeleteRequest(entityName: entity.name, predicate: fetch.predicate)
        batch.objectVariables = fetch.objectVariables
        let result = try context.execute(batch)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
        var text = "deleted \(Self.count(result.count ?? 0, entity.name)) directly"
        let cascaded = result.changes.deleted.count - (result.count ?? 0)
        if cascaded > 0 { text += " (and \(cascaded) by cascade)" }
        output.status(text)
    }

    func directRequest(for query: Query, verb: String) throws -> (FetchRequest, EntityDescription) {
        if !query.sort.isEmpty || query.limit != nil || query.offset != nil {
            throw LocatedError("a direct \(verb) takes no sort, limit or offset", query.range)
        }
        return try request(for: query)
    }
}
