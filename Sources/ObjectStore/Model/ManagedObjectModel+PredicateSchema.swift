import Foundation
import Predicates

/// Lets the predicate checker name unknown keys and suggest the closest.
///
/// A composite attribute reads, to the checker, like a to-one whose
/// destination is the composite itself, named `Entity.composite`
/// (`Quake.magnitude`): its keys are the composite's elements, so that
/// `magnitude.richter` is checked and `magnitude.richtr` gets a suggestion.
extension ManagedObjectModel: PredicateSchema {
    public func keys(ofEntity entity: String) -> [String]? {
        if let composite = composite(named: entity) { return composite.elements.map(\.name) }
        return self.entity(named: entity)?.propertyNames
    }

    public func destination(ofEntity entity: String, key: String) -> String? {
        if let composite = composite(named: entity) {
            return composite.elements.first { $0.name == key && $0.type == .composite }.map { _ in entity + "." + key }
        }
        guard let description = self.entity(named: entity) else { return nil }
        if description.compositeAttribute(named: key) != nil { return entity + "." + key }
        return description.relationship(named: key)?.destinationName
            ?? description.fetchedProperties.first { $0.name == key }?.destinationName
    }

    public func valueKind(ofEntity entity: String, key: String) -> ValueKind? {
        let attribute = composite(named: entity)?.elements.first { $0.name == key }
            ?? self.entity(named: entity)?.attribute(named: key)
        return attribute.map { $0.type.valueKind }
    }

    public func isToMany(entity: String, key: String) -> Bool {
        guard let description = self.entity(named: entity) else { return false }
        // A fetched property reads as a to-many of its destination's objects.
        return description.relationship(named: key)?.isToMany
            ?? description.fetchedProperties.contains { $0.name == key }
    }

    /// The composite a checker name `Entity.composite[.element…]` stands for.
    private func composite(named name: String) -> AttributeDescription? {
        let parts = name.split(separator: ".").map(String.init)
        guard parts.count > 1, let entity = self.entity(named: parts[0]),
              var composite = entity.compositeAttribute(named: parts[1]) else { return nil }
        for part in parts.dropFirst(2) {
            guard let element = composite.elements.first(where: { $0.name == part && $0.type == .composite }) else { return nil }
            composite = element
        }
        return composite
    }
}

extension AttributeType {
    /// What the predicate checker compares values of this type with.
    var valueKind: ValueKind {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: return .number
        case .boolean: return .boolean
        case .string: return .string
        case .date: return .date
        case .binary: return .data
        case .uuid: return .uuid
        case .uri: return .url
        case .transformable, .objectID, .undefined, .composite: return .other
        }
    }
}
