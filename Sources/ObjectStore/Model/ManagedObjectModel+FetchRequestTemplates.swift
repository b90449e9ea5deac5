import Foundation
import Predicates

extension ManagedObjectModel {
    /// The fetch request template named `name`, as the model keeps it:
    /// `$variables` in its predicate are not filled in.
    ///
    /// ```swift
    /// let all = model.fetchRequestTemplate(forName: "AllPeople")
    /// ```
    public func fetchRequestTemplate(forName name: String) -> FetchRequest? {
        fetchRequestTemplatesByName[name]
    }

    /// A copy of the template named `name` with every `$variable` of its
    /// predicate replaced by its value in `substitutionVariables`.
    ///
    /// ```swift
    /// let request = try model.fetchRequestFromTemplate(withName: "Adults",
    ///                                                  substitutionVariables: ["minAge": 18])
    /// let adults = try context.fetch(request)
    /// ```
    ///
    /// Throws a `ModelError` when there is no such template (naming the
    /// closest one) or when a variable of the predicate has no value
    /// (naming the variable). Values left over are ignored, as in Core
    /// Data.
    public func fetchRequestFromTemplate(
        withName name: String, substitutionVariables: [String: Value]
    ) throws -> FetchRequest {
        try fetchRequestFromTemplate(withName: name, substitutionExpressions: substitutionVariables.mapValues { .constant($0) })
    }

    /// The template named `name` with each `$variable` replaced by an
    /// expression: a constant, or an aggregate for a collection, as Core
    /// Data takes an array in `substitutionVariables` (`name IN $NAMES`).
    ///
    /// ```swift
    /// let request = try model.fetchRequestFromTemplate(
    ///     withName: "Named", substitutionExpressions: ["NAMES": .aggregate(["Zoey", "Kai"])])
    /// ```
    public func fetchRequestFromTemplate(
        withName name: String, substitutionExpressions: [String: Predicates.Expression]
    ) throws -> FetchRequest {
        guard var request = fetchRequestTemplatesByName[name] else {
            if let damage = damageOfFetchRequestTemplate(named: name) {
                throw ModelError("fetch request template '\(name)' cannot be read: \(damage)")
            }
            var message = "no fetch request template named '\(name)'"
            if let close = Suggestions.closest(to: name, in: Array(fetchRequestTemplatesByName.keys)) {
                message += "; did you mean '\(close)'?"
            }
            throw ModelError(message)
        }
        if let predicate = request.predicate {
            do {
                request.predicate = try predicate.substituting(expressions: substitutionExpressions)
            } catch {
                throw ModelError("fetch request template '\(name)': \(error.message)")
            }
        }
        return request
    }

    /// Why the template named `name` is not in a model read from a Core
    /// Data archive, when damage kept it out (the model reads its
    /// templates when first asked for, and leaves a damaged one out); nil
    /// when the model has it or never had it.
    package func damageOfFetchRequestTemplate(named name: String) -> String? {
        templateStore.damage(of: name, in: self)
    }

    /// Adds, replaces (or with nil removes) the template named `name`.
    ///
    /// ```swift
    /// try model.setFetchRequestTemplate(
    ///     FetchRequest(entityName: "Person", predicate: try Predicate(format: "age >= $minAge")),
    ///     forName: "Adults")
    /// ```
    ///
    /// Throws when the request names an entity the model does not have,
    /// its predicate names a key the entity does not have, or compares a
    /// key with a constant it can never match (`hiredAt > "2020-01-01"`).
    public func setFetchRequestTemplate(_ request: FetchRequest?, forName name: String) throws {
        try setFetchRequestTemplate(request, forName: name, checkingComparisons: true)
    }

    /// ``setFetchRequestTemplate(_:forName:)`` for models read from files:
    /// without `checkingComparisons`, a template Core Data accepted loads
    /// even when a comparison of it can never match; without `checkingKeys`
    /// (a model Core Data archived, which checks a template's keys only
    /// when it runs), even when it names a key its entity lacks.
    package func setFetchRequestTemplate(_ request: FetchRequest?, forName name: String, checkingComparisons: Bool,
                                         checkingKeys: Bool = true) throws {
        guard let request else {
            fetchRequestTemplatesByName[name] = nil
            return
        }
        guard entity(named: request.entityName) != nil else {
            throw ModelError("fetch request '\(name)' names unknown entity '\(request.entityName)'")
        }
        if checkingKeys, let predicate = request.predicate {
            do {
                try predicate.validateKeys(entity: request.entityName, schema: self, comparisons: checkingComparisons)
            } catch {
                throw ModelError("fetch request '\(name)': \(error.message)")
            }
        }
        fetchRequestTemplatesByName[name] = request
    }

    /// The `$variables` a template's predicate needs, sorted, for help and
    /// completion (`Adults` → `["minAge"]`).
    public func substitutionVariables(ofTemplate name: String) -> [String] {
        guard let predicate = fetchRequestTemplatesByName[name]?.predicate else { return [] }
        return predicate.freeVariables.sorted()
    }
}

/// A model's fetch request templates, with those still to be read: a
/// model read from a Core Data archive leaves its templates there until
/// they are first asked for. Safe from any thread.
final class FetchRequestTemplateStore: @unchecked Sendable {
    /// What reading the templates found: the templates, and the damage
    /// that kept some out, by name, or all of those not read (`all`).
    struct Reading {
        var templates: [String: FetchRequest]
        var damageByName: [String: String] = [:]
        var all: String?
    }

    private let lock = NSLock()
    private var byName: [String: FetchRequest] = [:]
    private var damageByName: [String: String] = [:]
    private var damageToAll: String?
    /// Reads the templates for the model passed; nil once read.
    private var pending: ((ManagedObjectModel) -> Reading)?

    /// Leaves `read` to run when the templates are first asked for (under
    /// the lock: one thread reads, the others wait for what it read).
    func readLater(_ read: @escaping (ManagedObjectModel) -> Reading) {
        lock.withLock { pending = read }
    }

    /// Whether the templates are still to be read.
    var isPending: Bool { lock.withLock { pending != nil } }

    /// The templates, read first if they are pending.
    func templates(of model: ManagedObjectModel) -> [String: FetchRequest] {
        lock.withLock {
            resolve(model)
            return byName
        }
    }

    /// Why the template named `name` is not there, when damage kept it
    /// out; nil when it was never there or was read.
    func damage(of name: String, in model: ManagedObjectModel) -> String? {
        lock.withLock {
            resolve(model)
            guard byName[name] == nil else { return nil }
            return damageByName[name] ?? damageToAll
        }
    }

    /// Replaces every template (after the pending ones were read: setting
    /// one goes through the getter first).
    func replace(_ templates: [String: FetchRequest]) {
        lock.withLock {
            pending = nil
            byName = templates
        }
    }

    private func resolve(_ model: ManagedObjectModel) {
        guard let read = pending else { return }
        pending = nil
        let reading = read(model)
        byName = reading.templates
        damageByName = reading.damageByName
        damageToAll = reading.all
    }
}
