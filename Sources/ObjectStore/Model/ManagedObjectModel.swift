import Foundation
import Predicates

/// A set of entities, resolved and frozen: what a store is built from.
///
/// ```swift
/// let model = try ManagedObjectModel(entities: [person, department])
/// let person = model.entity(named: "Person")
/// ```
public final class ManagedObjectModel: @unchecked Sendable {
    /// The entities, in the order given (the order of `.schema` and of
    /// mrq's entity codes).
    public let entities: [EntityDescription]
    /// The entities by name (Core Data's `entitiesByName`).
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
    /// The model's fetch request templates by name (Xcode's model-level
    /// `<fetchRequest>`): see `fetchRequestTemplate(forName:)`.
    ///
    /// A model read from a Core Data archive reads its templates the first
    /// time they are asked for (from any thread); one that turns out
    /// damaged is left out here, and `fetchRequestFromTemplate(withName:…)`
    /// says why.
    public internal(set) var fetchRequestTemplatesByName: [String: FetchRequest] {
        get { templateStore.templates(of: self) }
        set { templateStore.replace(newValue) }
    }
    /// Where the templates are kept, and read from when first asked for.
    let templateStore = FetchRequestTemplateStore()

    /// A model of `entities`, resolved: parents, inherited properties,
    /// relationship destinations and inverses are linked, and the entities
    /// must not change afterwards.
    ///
    /// - Parameters:
    ///   - entities: The entities, each named once.
    ///   - configurations: Configuration name → the names of its entities.
    /// - Throws: `ModelError` when the entities do not make a model: a
    ///   duplicate entity or property, an unknown parent, destination or
    ///   inverse, an inverse that does not lead back, an invalid regular
    ///   expression, a name no Core Data model can hold (see
    ///   `ModelName`: an empty name, whitespace, quotes, punctuation other
    ///   than `_`, control characters, a digit first), and the like.
    public convenience init(entities: [EntityDescription], configurations: [String: [String]] = [:]) throws {
        try self.init(entities: entities, configurations: configurations, checkingNames: true)
    }

    /// A model of `entities`; with `checkingNames` false, names no Core
    /// Data model can hold are let through: only for the tests that check
    /// such names never reach SQL or a terminal as they are.
    init(entities: [EntityDescription], configurations: [String: [String]] = [:], checkingNames: Bool) throws {
        if checkingNames { try Self.checkNames(of: entities) }
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

    /// The entity named `name`, or nil when the model has none.
    public func entity(named name: String) -> EntityDescription? {
        entityLookup.index(of: name).map { entities[$0] }
    }

    /// Entities with no parent: each gets one table.
    public var rootEntities: [EntityDescription] {
        entities.filter { $0.parent == nil }
    }

    /// Links parents, sub-entities and inherited properties. Every step is
    /// linear in the size of the model and of what it resolves to: a chain
    /// of thousands of levels is walked a constant number of times, never
    /// once per entity.
    private func resolve() throws {
        for entity in entities {
            entity.model = self
            entity.parent = nil
            entity.subentities = []
            entity.resolvedRoot = nil
            entity.resolvedFamily = nil
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
        try rejectInheritanceCycles()
        let order = resolveHierarchies()
        // Parents come before their sub-entities in `order`: each entity
        // extends what its parent resolved.
        for entity in order {
            try resolveProperties(of: entity)
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
                if attribute.type == .undefined && !attribute.isTransient {
                    throw ModelError.undefinedNotTransient(entity: entity.name, attribute: attribute.name)
                }
                if let pattern = attribute.regularExpression, attribute.compiledRegularExpression == nil {
                    throw ModelError.invalidRegularExpression(
                        entity: entity.name, attribute: attribute.name, pattern: pattern)
                }
            }
            // A composite may be named whole (Core Data constrains and
            // indexes composites); mrq's store indexes only its elements.
            func isKnown(_ name: String) -> Bool {
                entity.attribute(named: name) != nil || entity.relationship(named: name) != nil
                    || entity.compositeAttribute(named: name) != nil
            }
            for constraint in entity.uniquenessConstraints {
                for name in constraint where !isKnown(name) {
                    throw ModelError.unknownConstraintProperty(entity: entity.name, property: name)
                }
            }
            for index in entity.fetchIndexes {
                for element in index.elements where !isKnown(element.property) && index.expressions[element.property] == nil {
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

    /// Throws for the first entity (in model order) whose chain of parents
    /// comes back to itself. Each entity is walked over once.
    private func rejectInheritanceCycles() throws {
        enum Mark { case onPath, done }
        var marks: [ObjectIdentifier: Mark] = [:]
        for entity in entities {
            var path: [EntityDescription] = []
            var next: EntityDescription? = entity
            while let current = next, marks[ObjectIdentifier(current)] == nil {
                marks[ObjectIdentifier(current)] = .onPath
                path.append(current)
                next = current.parent
            }
            if let current = next, marks[ObjectIdentifier(current)] == .onPath {
                throw ModelError.inheritanceCycle(entity.name)
            }
            for member in path { marks[ObjectIdentifier(member)] = .done }
        }
    }

    /// Lays each hierarchy out depth first (sub-entities in model order),
    /// so that an entity and its descendants are one range of it, and sets
    /// every entity's root and family. Returns every entity, parents first.
    private func resolveHierarchies() -> [EntityDescription] {
        var all: [EntityDescription] = []
        all.reserveCapacity(entities.count)
        for root in entities where root.parent == nil {
            var members: [EntityDescription] = []
            // An explicit stack: a chain thousands of levels deep must not
            // recurse as deep.
            var stack: [EntityDescription] = [root]
            while let entity = stack.popLast() {
                members.append(entity)
                stack.append(contentsOf: entity.subentities.reversed())
            }
            var position: [ObjectIdentifier: Int] = [:]
            for (i, member) in members.enumerated() { position[ObjectIdentifier(member)] = i }
            // Family sizes, leaves up: a family ends where its last
            // descendant's does.
            var end = Array(1...members.count)
            for i in members.indices.reversed() {
                if let parent = members[i].parent, let p = position[ObjectIdentifier(parent)] {
                    end[p] = max(end[p], end[i])
                }
            }
            let unmanagedRoot = Unmanaged.passUnretained(root)
            for (i, member) in members.enumerated() {
                member.resolvedRoot = unmanagedRoot
                member.resolvedFamily = (members, i..<end[i])
            }
            all += members
        }
        return all
    }

    /// The entity's slots: its parent's, then its own properties, in
    /// declaration order. The parent is resolved already.
    private func resolveProperties(of entity: EntityDescription) throws {
        let parent = entity.parent
        var attributes = parent?.attributes ?? []
        var relationships = parent?.relationships ?? []
        var fetched = parent?.fetchedProperties ?? []
        var composites = parent?.compositeAttributes ?? []
        var declared = Set<String>(minimumCapacity: entity.declaredProperties.count)
        for property in entity.declaredProperties {
            let inherited = parent.map { $0.property(named: property.name) != nil || $0.compositeAttribute(named: property.name) != nil } ?? false
            guard !inherited, declared.insert(property.name).inserted else {
                throw ModelError.duplicateProperty(entity: entity.name, property: property.name)
            }
            switch property {
            case let a as AttributeDescription:
                if a.type == .composite {
                    composites.append(a)
                    a.compositeSlots = try a.resolveComposite(in: entity)
                    attributes += a.compositeSlots
                } else {
                    try Self.convertDefault(of: a, in: entity)
                    attributes.append(a)
                }
            case let r as RelationshipDescription: relationships.append(r)
            case let f as FetchedPropertyDescription: fetched.append(f)
            default: break
            }
        }
        entity.attributes = attributes
        entity.relationships = relationships
        entity.fetchedProperties = fetched
        entity.compositeAttributes = composites
        entity.attributeSlots = SlotLookup(attributes.map(\.name))
        entity.relationshipSlots = SlotLookup(relationships.map(\.name))
        entity.faultSlots = relationships.map { $0.isToMany ? .toManyFault : .toOne(nil) }
        entity.emptySlots = relationships.map { $0.isToMany ? .toMany(ObjectIDSet()) : .toOne(nil) }
        entity.defaultValues = attributes.map(\.defaultValue)
        entity.attributeTypes = attributes.map(\.type)
    }

    /// Gives a default value written in another type the attribute's own
    /// (`default: 0` on a Double is `0.0`), as an Xcode model's text
    /// default is; one that does not convert exactly stops the model here,
    /// naming the attribute, rather than failing every insert later.
    private static func convertDefault(of attribute: AttributeDescription, in entity: EntityDescription) throws {
        guard !attribute.type.accepts(attribute.defaultValue) else { return }
        do {
            attribute.defaultValue = try attribute.type.coerce(attribute.defaultValue)
        } catch let error as ModelError {
            throw ModelError.badDefault(entity: entity.name, attribute: attribute.name, reason: error.description)
        }
    }

    /// The entities of a configuration, or every entity for nil or an unknown
    /// name (Core Data's default configuration holds every entity).
    public func entities(forConfiguration name: String?) -> [EntityDescription] {
        guard let name, let members = configurations[name] else { return entities }
        return members.compactMap { entitiesByName[$0] }
    }
}
