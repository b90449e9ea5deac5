import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

extension ShellSession {
    /// The teaching view of a statement: tokens, tree, canonical predicate,
    /// fetch request, SQL with bound values, and the Swift call.
    func explain(_ statement: Statement) throws -> String {
        var query: Query
        var kind = "fetch"
        switch statement {
        case .query(let q): query = q
        case .first(let q): query = q; query.limit = 1; kind = "first"
        case .count(let q): query = q; kind = "count"
        case .delete(let q): query = q; kind = "delete"
        case .update(let q, _): query = q; kind = "update"
        case .directUpdate(let q, _): query = q; kind = "direct update"
        case .directDelete(let q): query = q; kind = "direct delete"
        default:
            throw LocatedError("explain takes a query: Entity where …, first …, count …, update … or delete …", .unknown)
        }
        let (request, entity) = try self.request(for: query)
        var lines: [String] = []
        func section(_ title: String, _ body: String) {
            lines.append(title)
            lines.append(contentsOf: body.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 })
        }
        if let predicate = query.predicate {
            let text = predicate.format
            let tokens = (try? Lexer.tokenize(text)) ?? []
            section("tokens:", tokens.filter { $0.kind != .end }.map { $0.description(in: text) }.joined(separator: " "))
            section("tree:", predicate.treeDescription)
            section("canonical:", predicate.format)
        } else {
            section("predicate:", "none: every \(entity.name)")
        }
        var requestText = "entity: \(entity.name)"
        if let predicate = request.predicate { requestText += "\npredicate: \(predicate.format)" }
        if !request.sortDescriptors.isEmpty {
            requestText += "\nsort: " + request.sortDescriptors.map { "\($0.key) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
        }
        if request.fetchLimit > 0 { requestText += "\nlimit: \(request.fetchLimit)" }
        if request.fetchOffset > 0 { requestText += "\noffset: \(request.fetchOffset)" }
        requestText += "\nincludes sub-entities: \(request.includesSubentities ? "yes" : "no"), includes pending changes: yes"
        section("fetch request:", requestText)
        var explained = request
        if kind == "count" { explained.resultType = .count }
        let plan = try context.explain(explained)
        section("sql:", plan.sql)
        if !plan.bindings.isEmpty {
            section("bindings:", plan.bindings.enumerated().map { "?\($0.offset + 1) = \(Printer.format(Expression(.constant($0.element))))" }.joined(separator: "\n"))
        }
        if let residual = plan.residual {
            section("in memory:", "\(residual.format)  (SQLite cannot say this with the same meaning; evaluated on the rows SQL returns)")
        }
        if plan.sortsInMemory { section("sorted in memory:", "a sort key is not a column") }
        section("swift:", swiftCall(kind: kind, entity: entity, request: request))
        return lines.joined(separator: "\n")
    }

    /// The same request through mrq's MagicalRecord API.
    func swiftCall(kind: String, entity: EntityDescription, request: FetchRequest) -> String {
        var arguments: [String] = []
        if let predicate = request.predicate { arguments.append("where: \(Printer.quote(predicate.format))") }
        if !request.sortDescriptors.isEmpty {
            let spec = request.sortDescriptors.map { $0.key + ($0.ascending ? "" : ":NO") }.joined(separator: ",")
            arguments.append("sortedBy: \(Printer.quote(spec))")
        }
        arguments.append("in: context")
        switch kind {
        case "count":
            return request.predicate.map { "try \(entity.name).count(where: \(Printer.quote($0.format)), in: context)" }
                ?? "try \(entity.name).count(in: context)"
        case "first":
            return "try \(entity.name).findFirst(\(arguments.joined(separator: ", ")))"
        case "delete":
            return "try \(entity.name).deleteAll(matching: \(Printer.quote(request.predicate?.format ?? "TRUEPREDICATE")), in: context)"
        case "direct delete":
            return "try context.execute(BatchDeleteRequest(entityName: \(Printer.quote(entity.name)), predicate: \(request.predicate.map { "try Predicate(format: \(Printer.quote($0.format)))" } ?? "nil")))"
        case "direct update":
            return "try context.execute(BatchUpdateRequest(entityName: \(Printer.quote(entity.name)), predicate: \(request.predicate.map { "try Predicate(format: \(Printer.quote($0.format)))" } ?? "nil"), propertiesToUpdate: […]))"
        case "update":
            return "for object in try \(entity.name).findAll(\(arguments.joined(separator: ", "))) { … }"
        default:
            var call = "try \(entity.name).findAll(\(arguments.joined(separator: ", ")))"
            if request.fetchLimit > 0 || request.fetchOffset > 0 {
                var builder = "var request = \(entity.name).requestAll(\(arguments.joined(separator: ", ")))"
                if request.fetchLimit > 0 { builder += "\nrequest.fetchLimit = \(request.fetchLimit)" }
                if request.fetchOffset > 0 { builder += "\nrequest.fetchOffset = \(request.fetchOffset)" }
                call = builder + "\nlet results = try context.execute(request)"
            }
            return call
        }
    }
}
