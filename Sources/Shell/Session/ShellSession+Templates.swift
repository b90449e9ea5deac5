import Foundation
import ObjectStore
import Predicates
import struct Predicates.Expression

extension ShellSession {
    /// `fetch`: every fetch request template of the model, by name, with
    /// its entity, predicate and the variables it needs.
    func templateList() -> String {
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }
        guard !templates.isEmpty else { return "the model has no fetch request templates" }
        let rows: [[Cell]] = templates.map { name, request in
            [.value(.string(name)), .value(.string(request.entityName)),
             .value(request.predicate.map { .string($0.format) } ?? .null),
             .value(.string(model.substitutionVariables(ofTemplate: name).map { "$" + $0 }.joined(separator: ", ")))]
        }
        return Renderer(options: resultOptions).render(ResultSet(columns: ["template", "entity", "predicate", "variables"], rows: rows))
    }

    /// The request of `fetch Name with a = 1, …`: the template with its
    /// variables filled in, from the statement and else from the session
    /// (`let`, `--param`).
    func templateRequest(_ fetch: TemplateFetch) throws -> (FetchRequest, EntityDescription) {
        let name = fetch.name
        guard model.fetchRequestTemplate(forName: name.text) != nil else {
            if let damage = model.damageOfFetchRequestTemplate(named: name.text) {
                throw LocatedError("fetch request template '\(name.text)' cannot be read: \(damage)", name.range)
            }
            let names = Array(model.fetchRequestTemplatesByName.keys)
            var message = "no fetch request template named '\(name.text)'"
            if let close = Suggestions.closest(to: name.text, in: names) {
                message += "; did you mean '\(close)'?"
            } else if names.isEmpty {
                message += "; the model has none"
            }
            throw LocatedError(message, name.range)
        }
        var values = valueVariables()
        for (variable, expression) in fetch.variables {
            switch try evaluateOperand(expression) {
            case .collection(let items) where items.allSatisfy({ $0.scalar != nil }):
                values[variable.text] = .aggregate(items.compactMap(\.scalar))
            default:
                values[variable.text] = .constant(try evaluate(expression))
            }
        }
        let request: FetchRequest
        do {
            request = try model.fetchRequestFromTemplate(withName: name.text, substitutionExpressions: values)
        } catch let error as ModelError {
            throw LocatedError(error.message + templateHint(name.text), name.range)
        }
        return (request, try entity(Name(text: request.entityName, range: name.range)))
    }

    /// `fetch Name with …`: the objects (or, for a count template, the
    /// count).
    func runTemplate(_ fetch: TemplateFetch, output: OutputSink) throws {
        var (request, _) = try templateRequest(fetch)
        if request.resultType == .count {
            output.result(Renderer(options: resultOptions).render(scalar: .int(Int64(try context.count(for: request))), label: "count"))
            return
        }
        // Objects are shown whatever the template returns.
        request.resultType = .managedObject
        try streamRows(try rowPlan(for: request), output: output)
    }

    /// `; it needs $a, $b` after a missing variable.
    private func templateHint(_ name: String) -> String {
        let needed = model.substitutionVariables(ofTemplate: name)
        guard !needed.isEmpty else { return "" }
        let example = needed.map { "\($0) = …" }.joined(separator: ", ")
        return "; give it with 'fetch \(name) with \(example)'"
    }
}
