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
    /// Configuration name → entity names.
    public var configurations: [String: [String]]
    /// Version identifier, as Xcode's `versionIdentifier` or the
    /// `.xcdatamodeld` version name.
    public var versionIdentifier: String?
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
        self.configurations = configurations
        try resolve()
    }

    public func entity(named name: String) -> EntityDescription? {
        entitiesByName[name]
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
                }
            }
        }
    }
}

/// A model that cannot be resolved or loaded.
public struct ModelError: Error, CustomStringConvertible, Equatable {
    public let message: String

    public init(_ message: String) { self.message = message }
    public var description: String { message }

    static func duplicateEntity(_ name: String) -> ModelError {
        ModelError("duplicate entity '\(name)'")
    }
    static func unknownParent(entity: String, parent: String) -> ModelError {
        ModelError("entity '\(entity)' names unknown parent entity '\(parent)'")
    }
    static func inheritanceCycle(_ entity: String) -> ModelError {
        ModelError("entity '\(entity)' inherits from itself")
    }
    static func duplicateProperty(entity: String, property: String) -> ModelError {
        ModelError("entity '\(entity)' has property '\(property)' twice")
    }
    static func unknownDestination(entity: String, relationship: String, destination: String) -> ModelError {
        ModelError("relationship '\(entity).\(relationship)' names unknown destination entity '\(destination)'")
    }
    static func unknownInverse(entity: String, relationship: String, inverse: String) -> ModelError {
        ModelError("relationship '\(entity).\(relationship)' names unknown inverse '\(inverse)'")
    }
}
