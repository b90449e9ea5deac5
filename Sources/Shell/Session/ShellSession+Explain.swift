import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

extension ShellSession {
    /// The teaching view of a statement: tokens, tree, canonical predicate,
    /// fetch request, SQL with bound values, and the Swift call.
    func explain(_ statement: Statement) throws -> String {
        var query: Query?
        var kind = "fetch"
        var template: TemplateFetch?
        switch statement {
        case .query(let q): query = q
        case .first(var q): q.limit = 1; query = q; kind = "first"
        case .count(let q): query = q; kind = "count"
        case .delete(let q): query = q; kind = "delete"
        case .update(let q, _): query = q; kind = "update"
        case .directUpdate(let q, _): query = q; kind = "direct update"
        case .directDelete(let q): query = q; kind = "direct delete"
        case .template(let t): template = t; kind = "template"
        default:
            throw LocatedError("explain takes a query: Entity where …, first …, count …, update …, delete … or fetch Template …", .unknown)
        }
        var (request, entity) = try template.map(templateRequest) ?? self.request(for: query!)
        if template != nil, request.resultType == .count { kind = "template count" }
        var lines: [String] = []
        func section(_ title: String, _ body: String) {
            lines.append(title)
            lines.append(contentsOf: body.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 })
        }
        if let template {
            let stored = model.fetchRequestTemplate(forName: template.name.text)?.predicate
            section("template:", "\(template.name.text): \(entity.name)" + (stored.map { " where \($0.format)" } ?? ""))
        }
        // The predicate as written (a query's), or as filled in (a template's).
        if let predicate = query?.predicate ?? request.predicate {
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
        if kind == "count" || kind == "template count" { explained.resultType = .count }
        if kind == "template" { explained.resultType = .managedObject }
        request.resultType = explained.resultType
        let plan = try context.explain(explained)
        section("sql:", plan.sql)
        if !plan.bindings.isEmpty {
            section("bindings:", plan.bindings.enumerated().map { "?\($0.offset + 1) = \(Printer.format(Expression(.constant($0.element))))" }.joined(separator: "\n"))
        }
        if let residual = plan.residual {
            section("in memory:", "\(residual.format)  (SQLite cannot say this with the same meaning; evaluated on the rows SQL returns)")
        }
        if plan.sortsInMemory { section("sorted in memory:", "a sort key is not a column") }
        section("swift:", template.map { templateSwiftCall($0, count: kind == "template count") }
                ?? swiftCall(kind: kind, entity: entity, request: request))
        return lines.joined(separator: "\n")
    }

    /// The same template fetch in Swift: Core Data's call, with the values
    /// given.
    func templateSwiftCall(_ template: TemplateFetch, count: Bool) -> String {
        var values = scalarVariables()
        for (variable, expression) in template.variables {
            if let value = try? evaluate(expression) { values[variable.text] = value }
        }
        let needed = model.substitutionVariables(ofTemplate: template.name.text)
        let dictionary = needed.isEmpty ? "[:]" : "[" + needed.map { name in
            Printer.quote(name) + ": " + (values[name].map { Printer.format(Expression(.constant($0))) } ?? "…")
        }.joined(separator: ", ") + "]"
        return "let request = try model.fetchRequestFromTemplate(withName: \(Printer.quote(template.name.text)), "
            + "substitutionVariables: \(dictionary))\n"
            + (count ? "let count = try context.count(for: request)" : "let results = try context.fetch(request)")
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
