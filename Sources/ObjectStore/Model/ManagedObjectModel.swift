import Foundation
import Predicates

/// A set of entities, resolved and frozen: what a store is built from.
///
/// ```swift
/// let model = try ManagedObjectModel(entities: [person, department])
/// let person = model.entity(named: "Person")
/// ```
public final class ManagedObjectModel: @unchecked Sendable {
    public let entities: [EntityDescription]
    public let entitiesByName: [String: EntityDescription]
    private let entityLookup: SlotLookup
    /// Configuration name → entity names.
    public var configurations: [String: [String]]
    /// Version identifier, as Xcode's `versionIdentifier` or the
    /// `.xcdatamodeld` version name.
    public var versionIdentifier: String?
    /// The name of the version this model is (`People 3`), when it was
    /// loaded from a version of a bundle: a store remembers it, and refuses
    /// an earlier version of the same bundle.
    public var versionName: String?
    /// The bundle the model was loaded from (`People.xcdatamodeld`), if any.
    public var bundleName: String?
    /// Core Data's localization dictionary (`Entity/Person` → "Person", ...).
    public var localizationDictionary: [String: String] = [:]

    public init(entities: [EntityDescription], configurations: [String: [String]] = [:]) throws {
        self.entities = entities
        var byName: [String: EntityDescription] = [:]
        for entity in entities {
            guard byName[entity.name] == nil else {
                throw ModelError.duplicateEntity(entity.name)
            }
            byName[entity.name] = entity
        }
        self.entitiesByName = byName
        self.entityLookup = SlotLookup(entities.map(\.name))
        self.configurations = configurations
        try resolve()
    }

    public func entity(named name: String) -> EntityDescription? {
        entityLookup.index(of: name).map { entities[$0] }
    }

    /// Entities with no parent: each gets one table.
    public var rootEntities: [EntityDescription] {
        entities.filter { $0.parent == nil }
    }

    private func resolve() throws {
        for entity in entities {
            entity.model = self
            entity.subentities = []
        }
        for entity in entities {
            if let parentName = entity.parentName {
                guard let parent = entitiesByName[parentName] else {
                    throw ModelError.unknownParent(entity: entity.name, parent: parentName)
                }
                entity.parent = parent
                parent.subentities.append(entity)
            }
        }
        // Reject cycles in inheritance before walking it.
        for entity in entities {
            var seen: Set<ObjectIdentifier> = []
            var e: EntityDescription? = entity
            while let current = e {
                guard seen.insert(ObjectIdentifier(current)).inserted else {
                    throw ModelError.inheritanceCycle(entity.name)
                }
                e = current.parent
            }
        }
        for entity in entities {
            var root = entity
            while let parent = root.parent { root = parent }
            entity.resolvedRoot = Unmanaged.passUnretained(root)
            entity.resolvedFamily = nil
        }
        for entity in entities { entity.resolvedFamily = entity.selfAndDescendants }
        for entity in entities {
            var chain: [EntityDescription] = []
            var e: EntityDescription? = entity
            while let current = e { chain.insert(current, at: 0); e = current.parent }
            var attributes: [AttributeDescription] = []
            var relationships: [RelationshipDescription] = []
            var fetched: [FetchedPropertyDescription] = []
            var names: Set<String> = []
            for ancestor in chain {
                for property in ancestor.declaredProperties {
                    guard names.insert(property.name).inserted else {
                        throw ModelError.duplicateProperty(entity: entity.name, property: property.name)
                    }
                    switch property {
                    case let a as AttributeDescription: attributes.append(a)
                    case let r as RelationshipDescription: relationships.append(r)
                    case let f as FetchedPropertyDescription: fetched.append(f)
                    default: break
                    }
                }
            }
            entity.attributes = attributes
            entity.relationships = relationships
            entity.fetchedProperties = fetched
            entity.attributeIndex = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
            entity.relationshipIndex = Dictionary(uniqueKeysWithValues: relationships.enumerated().map { ($1.name, $0) })
            entity.attributeSlots = SlotLookup(attributes.map(\.name))
            entity.relationshipSlots = SlotLookup(relationships.map(\.name))
            entity.faultSlots = relationships.map { $0.isToMany ? .toManyFault : .toOne(nil) }
            entity.emptySlots = relationships.map { $0.isToMany ? .toMany(ObjectIDSet()) : .toOne(nil) }
            entity.defaultValues = attributes.map(\.defaultValue)
            entity.attributeTypes = attributes.map(\.type)
        }
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties {
                guard let destination = entitiesByName[relationship.destinationName] else {
                    throw ModelError.unknownDestination(
                        entity: entity.name, relationship: relationship.name,
                        destination: relationship.destinationName)
                }
                relationship.destination = destination
                if let inverseName = relationship.inverseName {
                    guard let inverse = destination.relationship(named: inverseName) else {
                        throw ModelError.unknownInverse(
                            entity: entity.name, relationship: relationship.name, inverse: inverseName)
                    }
                    relationship.inverse = inverse
                    relationship.resolvedInverse = (inverse.name, inverse.isToMany)
                }
                if relationship.isToOne {
                    relationship.maxCount = 1
                    relationship.minCount = relationship.isOptional ? 0 : 1
                }
            }
        }
        for entity in entities {
            for case let relationship as RelationshipDescription in entity.declaredProperties {
                if let inverse = relationship.inverse, let back = inverse.destination,
                    !entity.isKind(of: back) && !back.isKind(of: entity)
                {
                    throw ModelError.inverseMismatch(
                        entity: entity.name, relationship: relationship.name,
                        inverse: inverse.name, destination: relationship.destinationName)
                }
            }
            for case let fetched as FetchedPropertyDescription in entity.declaredProperties
            where entitiesByName[fetched.destinationName] == nil {
                throw ModelError.unknownFetchedPropertyEntity(
                    entity: entity.name, property: fetched.name, destination: fetched.destinationName)
            }
            for case let attribute as AttributeDescription in entity.declaredProperties {
                if let pattern = attribute.regularExpression, attribute.compiledRegularExpression == nil {
                    throw ModelError.invalidRegularExpression(
                        entity: entity.name, attribute: attribute.name, pattern: pattern)
                }
            }
            for constraint in entity.uniquenessConstraints {
                for name in constraint where entity.attribute(named: name) == nil && entity.relationship(named: name) == nil {
                    throw ModelError.unknownConstraintProperty(entity: entity.name, property: name)
                }
            }
            for index in entity.fetchIndexes {
                for element in index.elements
                where entity.attribute(named: element.property) == nil && entity.relationship(named: element.property) == nil {
                    throw ModelError.unknownIndexProperty(entity: entity.name, index: index.name, property: element.property)
                }
            }
        }
        for (configuration, members) in configurations.sorted(by: { $0.key < $1.key }) {
            for member in members where entitiesByName[member] == nil {
                throw ModelError.unknownConfigurationEntity(configuration: configuration, entity: member)
            }
        }
    }

    /// The entities of a configuration, or every entity for nil or an unknown
    /// name (Core Data's default configuration holds every entity).
    public func entities(forConfiguration name: String?) -> [EntityDescription] {
        guard let name, let members = configurations[name] else { return entities }
        return members.compactMap { entitiesByName[$0] }
    }
}
