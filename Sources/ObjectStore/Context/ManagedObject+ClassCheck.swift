import Foundation
import Predicates

/// What a `@Managed`, `@ManagedToOne` or `@ManagedToMany` property
/// expects of its entity, for the check `register` makes.
enum PropertyExpectation {
    case attribute(any AttributeValue.Type)
    case toOne(ManagedObject.Type)
    case toMany(ManagedObject.Type)
}

/// The property wrappers of a managed object subclass.
protocol ManagedPropertyWrapper {
    var key: String { get }
    var expectation: PropertyExpectation { get }
}

extension ManagedObjectModel {
    /// Makes `type` the class of its entity's objects in every context,
    /// after checking it against the entity: the entity exists, every
    /// `@Managed` key names an attribute whose type the Swift type holds
    /// (an `Int16` for an Integer 16, a `String?` for a String…), and
    /// every `@ManagedToOne`/`@ManagedToMany` key a relationship of that
    /// kind to the class's entity. Throws a `ModelError` naming each
    /// mismatch, so a mistake shows at setup, not as a crash later.
    ///
    /// ```swift
    /// try model.register(Person.self)
    /// ```
    public func register(_ type: ManagedObject.Type) throws {
        guard let entity = entity(named: type.entityName) else {
            var message = "class \(type) has no entity: the model has no '\(type.entityName)'"
            if let suggestion = Suggestions.closest(to: type.entityName, in: entities.map(\.name)) {
                message += "; did you mean '\(suggestion)'? (override `class var entityName` to name it)"
            }
            throw ModelError(message)
        }
        let problems = Self.mismatches(of: type, with: entity)
        guard problems.isEmpty else {
            throw ModelError("class \(type) does not fit entity \(entity.name): " + problems.joined(separator: "; "))
        }
        EntityClassRegistry.shared.register(type, for: entity)
    }

    /// Whether `type` is the registered class of its entity.
    package func isRegistered(_ type: ManagedObject.Type) -> Bool {
        guard let entity = entity(named: type.entityName) else { return false }
        return EntityClassRegistry.shared.objectClass(for: entity) == type
    }

    /// Each way `type`'s managed properties disagree with `entity`.
    static func mismatches(of type: ManagedObject.Type, with entity: EntityDescription) -> [String] {
        // The wrappers are stored properties: read them from an instance
        // that no context holds.
        let sample = type.init(entity: entity, insertInto: nil)
        var problems: [String] = []
        var mirror: Mirror? = Mirror(reflecting: sample)
        while let current = mirror {
            for child in current.children {
                guard let wrapper = child.value as? any ManagedPropertyWrapper else { continue }
                let property = child.label.map { String($0.dropFirst()) } ?? wrapper.key
                if let problem = mismatch(wrapper, property: property, entity: entity) { problems.append(problem) }
            }
            mirror = current.superclassMirror
        }
        return problems
    }

    private static func mismatch(_ wrapper: any ManagedPropertyWrapper, property: String, entity: EntityDescription) -> String? {
        let key = wrapper.key
        switch wrapper.expectation {
        case .attribute(let swiftType):
            guard let attribute = entity.attribute(named: key) else {
                let suggestion = Suggestions.closest(to: key, in: entity.attributes.map(\.name))
                return "\(property): @Managed(\"\(key)\") names no attribute of \(entity.name)" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
            }
            guard let fits = swiftType.attributeTypes, !fits.contains(attribute.type) else { return nil }
            return "\(property): \(swiftType) cannot hold \(key), a \(attribute.type.rawValue) attribute"
        case .toOne(let destination), .toMany(let destination):
            let toMany: Bool
            if case .toMany = wrapper.expectation { toMany = true } else { toMany = false }
            let wrapperName = toMany ? "@ManagedToMany" : "@ManagedToOne"
            guard let relationship = entity.relationship(named: key) else {
                let suggestion = Suggestions.closest(to: key, in: entity.relationships.map(\.name))
                return "\(property): \(wrapperName)(\"\(key)\") names no relationship of \(entity.name)" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
            }
            if relationship.isToMany != toMany {
                return "\(property): \(key) is a to-\(relationship.isToMany ? "many" : "one") relationship; use \(relationship.isToMany ? "@ManagedToMany" : "@ManagedToOne")"
            }
            // The class may be the destination's or one of its parents'.
            if destination != ManagedObject.self, let target = relationship.destination,
               !sequence(first: target, next: \.parent).contains(where: { $0.name == destination.entityName }) {
                return "\(property): \(key) leads to \(target.name), not \(destination.entityName)"
            }
            return nil
        }
    }
}
