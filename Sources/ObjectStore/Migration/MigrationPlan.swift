import Foundation
import Predicates

/// The steps that take a store from one model version to the next, for the
/// changes Core Data's lightweight (inferred) migration accepts.
///
/// ```swift
/// let plan = try MigrationPlan.infer(from: storedModel, to: model)
/// for step in plan.entities { ... }     // .added("Tag"), .renamed(from: "Employee", to: "Person")
/// for step in plan.properties { ... }   // .addedAttribute(entity: "Person", attribute: "email")
/// ```
///
/// Accepted, as Apple's "Lightweight Migration" lists them: entities added,
/// removed or renamed; attributes added (optional or with a default),
/// removed or renamed; optional to required when the attribute has a
/// default; required to optional; relationships added (a to-one only if
/// optional), removed or renamed; a to-one becoming a to-many (each
/// object's destination becomes the one member) and back (each object
/// keeps its first destination: the rest are dropped, which a store
/// allows only with data loss allowed); an unordered to-many becoming
/// ordered (positions follow the destinations' keys) and back; entities
/// moving in the inheritance hierarchy (a new parent above them, or out of
/// one), their properties moving up or down with them, as long as no two
/// hierarchies merge into one. Renames come from the new model's renaming
/// identifiers (Xcode's `elementID`), which name the entity or property
/// in the old model. Changes that do not touch storage (user info,
/// validation, delete rules, indexes) need no step. Anything else throws
/// a `ModelError` naming the first change found: `cannot infer a
/// migration: attribute 'Person.age' changed type from Integer 16 to
/// String`.
///
/// Property steps name the entity as the new model does. An inherited
/// property is listed under the entity that declares it, unless the
/// entity moved in the hierarchy. Nothing is listed for the properties of
/// added or removed entities.
public struct MigrationPlan: Sendable, Equatable {
    /// A change to the entities.
    public enum EntityStep: Sendable, Hashable {
        /// An entity of the new model only.
        case added(String)
        /// An entity of the old model only (its old name).
        case removed(String)
        /// An entity renamed by its renaming identifier: its rows stay and take
        /// the new name.
        case renamed(from: String, to: String)
        /// An entity whose parent changed (names in the new model; nil for
        /// none): its rows move with it.
        case moved(entity: String, fromParent: String?, toParent: String?)
    }

    /// A change to the properties of an entity.
    public enum PropertyStep: Sendable, Hashable {
        /// An attribute of the new model only: existing rows get its default
        /// value (nil when it has none).
        case addedAttribute(entity: String, attribute: String)
        /// An attribute of the old model only (its old name): its values are
        /// dropped.
        case removedAttribute(entity: String, attribute: String)
        /// An attribute renamed by its renaming identifier: its values stay.
        case renamedAttribute(entity: String, from: String, to: String)
        /// A required attribute became optional.
        case madeOptional(entity: String, attribute: String)
        /// An optional attribute became required: rows holding nil get the
        /// default value.
        case madeRequired(entity: String, attribute: String, default: Value)
        /// A relationship of the new model only: it starts empty.
        case addedRelationship(entity: String, relationship: String)
        /// A relationship of the old model only (its old name): its links are
        /// dropped.
        case removedRelationship(entity: String, relationship: String)
        /// A relationship renamed by its renaming identifier: its links stay.
        case renamedRelationship(entity: String, from: String, to: String)
        /// A to-one became a to-many: each object's destination becomes the
        /// one member.
        case madeToMany(entity: String, relationship: String)
        /// A to-many became a to-one: each object keeps its first
        /// destination (in order, else by key); the others are dropped.
        case madeToOne(entity: String, relationship: String)
        /// An unordered to-many became ordered: positions follow the
        /// destinations' keys.
        case madeOrdered(entity: String, relationship: String)
        /// An ordered to-many became unordered: the positions are dropped.
        case madeUnordered(entity: String, relationship: String)
        /// A to-many whose inverse came, went or changed kind, so that it is
        /// many-to-many now and was not, or the reverse: its links move.
        case changedInverse(entity: String, relationship: String, manyToMany: Bool)
    }

    /// The steps for entities.
    public var entities: [EntityStep] = []
    /// The steps for properties.
    public var properties: [PropertyStep] = []

    /// A plan of the given steps; `infer(from:to:empty:)` works one out from
    /// two models.
    public init(entities: [EntityStep] = [], properties: [PropertyStep] = []) {
        self.entities = entities
        self.properties = properties
    }

    /// Old entities with no objects (see `infer`).
    private var emptyEntities: Set<String> = []
    /// The entity whose properties are being compared has no objects.
    private var comparingEmpty = false

    /// Whether the two models store the same way.
    public var isEmpty: Bool { entities.isEmpty && properties.isEmpty }

    /// Works out the steps from `old` to `new`, or throws when a change
    /// cannot be inferred. `empty` names the old entities with no objects:
    /// they may gain a required attribute without default or a required
    /// to-one, which no object then lacks.
    public static func infer(from old: ManagedObjectModel, to new: ManagedObjectModel, empty: Set<String> = []) throws -> MigrationPlan {
        var plan = MigrationPlan()
        plan.emptyEntities = empty
        let entityPairs = try entityPairs(old, new)
        // new entity name → old entity name
        var oldNameOf: [String: String] = [:]
        for (o, n) in entityPairs { oldNameOf[n.name] = o.name }
        let newNameOf = Dictionary(uniqueKeysWithValues: oldNameOf.map { ($1, $0) })

        for entity in new.entities {
            guard let oldName = oldNameOf[entity.name] else {
                plan.entities.append(.added(entity.name))
                continue
            }
            if oldName != entity.name { plan.entities.append(.renamed(from: oldName, to: entity.name)) }
        }
        for entity in old.entities where newNameOf[entity.name] == nil {
            plan.entities.append(.removed(entity.name))
        }
        try rejectMergedHierarchies(new, oldEntityNamed: { name in oldNameOf[name].flatMap { old.entity(named: $0) } })

        for (o, n) in entityPairs {
            // The old parent under its new name ("X (removed)" when it went).
            let oldParent = o.parentName.map { newNameOf[$0] ?? "\($0) (removed)" }
            let moved = oldParent != n.parentName
            if moved {
                plan.entities.append(.moved(entity: n.name, fromParent: oldParent, toParent: n.parentName))
            }
            try plan.compareProperties(o, n, newNameOf: newNameOf, moved: moved)
        }
        return plan
    }

    /// Old and new entities paired by renaming identifier, else by name.
    static func entityPairs(_ old: ManagedObjectModel, _ new: ManagedObjectModel) throws
        -> [(old: EntityDescription, new: EntityDescription)]
    {
        try match(old.entities, new.entities, kind: "entities").map { ($0.0, $0.1) }
    }

    /// The stored properties of an entity's objects: every attribute (a
    /// composite's elements) and relationship, inherited ones included.
    static func storedProperties(_ entity: EntityDescription) -> [PropertyDescription] {
        entity.attributes + entity.relationships
    }

    /// An old and a new entity's stored properties, paired by renaming
    /// identifier, else by name.
    static func propertyPairs(_ old: EntityDescription, _ new: EntityDescription) throws
        -> [(old: PropertyDescription, new: PropertyDescription)]
    {
        try match(storedProperties(old), storedProperties(new), kind: "properties of entity '\(new.name)'").map { ($0.0, $0.1) }
    }

    /// Core Data moves entities in and out of hierarchies but never merges
    /// two: the old entities of each new hierarchy all come from one.
    private static func rejectMergedHierarchies(
        _ new: ManagedObjectModel, oldEntityNamed: (String) -> EntityDescription?
    ) throws {
        for root in new.rootEntities {
            var origin: (root: EntityDescription, member: String)?
            for member in root.selfAndDescendants {
                guard let old = oldEntityNamed(member.name) else { continue }
                guard let first = origin else {
                    origin = (old.rootEntity, member.name)
                    continue
                }
                if first.root !== old.rootEntity {
                    throw ModelError.cannotMigrate(
                        "entities '\(first.member)' and '\(member.name)' come from two inheritance hierarchies "
                            + "(under '\(first.root.name)' and '\(old.rootEntity.name)'), which cannot merge into one")
                }
            }
        }
    }

    private mutating func compareProperties(
        _ o: EntityDescription, _ n: EntityDescription, newNameOf: [String: String], moved: Bool
    ) throws {
        comparingEmpty = emptyEntities.contains(o.name)
        let oldProperties = Self.storedProperties(o)
        let newProperties = Self.storedProperties(n)
        let pairs = try MigrationPlan.match(oldProperties, newProperties, kind: "properties of entity '\(n.name)'")
        var matchedOld = Set<ObjectIdentifier>()
        var oldFor: [ObjectIdentifier: PropertyDescription] = [:]
        for (op, np) in pairs {
            matchedOld.insert(ObjectIdentifier(op))
            oldFor[ObjectIdentifier(np)] = op
        }
        // Every entity's objects are checked; a change is listed once, under
        // the entity declaring the property (or under one that moved).
        for property in newProperties {
            let path = "\(n.name).\(property.name)"
            let previous = oldFor[ObjectIdentifier(property)]
            let listed = moved || property.entity === n || previous?.entity === o
            guard let previous else {
                try added(property, entity: n.name, listed: listed)
                continue
            }
            switch (previous, property) {
            case let (a as AttributeDescription, b as AttributeDescription):
                try compare(a, b, entity: n.name, listed: listed)
            case let (a as RelationshipDescription, b as RelationshipDescription):
                try compare(a, b, entity: n.name, newNameOf: newNameOf, listed: listed)
            default:
                throw ModelError.cannotMigrate(
                    "property '\(path)' changed from \(Self.kind(previous)) to \(Self.kind(property))")
            }
        }
        for property in oldProperties where !matchedOld.contains(ObjectIdentifier(property)) {
            if moved || property.entity === o { removed(property, entity: n.name) }
        }
    }

    private mutating func added(_ property: PropertyDescription, entity: String, listed: Bool = true) throws {
        guard !property.isTransient else { return }
        let path = "\(entity).\(property.name)"
        switch property {
        case let a as AttributeDescription:
            guard a.isOptional || !a.defaultValue.isNull || comparingEmpty else {
                throw ModelError.cannotMigrate("attribute '\(path)' was added as required without a default value")
            }
            if listed { properties.append(.addedAttribute(entity: entity, attribute: a.name)) }
        case let r as RelationshipDescription:
            guard r.isOptional || r.isToMany || comparingEmpty else {
                throw ModelError.cannotMigrate("relationship '\(path)' was added as a required to-one")
            }
            if listed { properties.append(.addedRelationship(entity: entity, relationship: r.name)) }
        default:
            break
        }
    }

    private mutating func removed(_ property: PropertyDescription, entity: String) {
        guard !property.isTransient else { return }
        if property is AttributeDescription {
            properties.append(.removedAttribute(entity: entity, attribute: property.name))
        } else {
            properties.append(.removedRelationship(entity: entity, relationship: property.name))
        }
    }

    private mutating func compare(_ a: AttributeDescription, _ b: AttributeDescription, entity: String, listed: Bool) throws {
        let path = "\(entity).\(b.name)"
        switch (a.isTransient, b.isTransient) {
        case (true, true): return
        case (true, false): return try added(b, entity: entity, listed: listed)
        case (false, true): return listed ? removed(a, entity: entity) : ()
        case (false, false): break
        }
        guard a.type == b.type else {
            throw ModelError.cannotMigrate(
                "attribute '\(path)' changed type from \(a.type.rawValue) to \(b.type.rawValue)")
        }
        var steps: [PropertyStep] = []
        if a.name != b.name { steps.append(.renamedAttribute(entity: entity, from: a.name, to: b.name)) }
        if a.isOptional && !b.isOptional {
            guard !b.defaultValue.isNull || comparingEmpty else {
                throw ModelError.cannotMigrate("attribute '\(path)' became required without a default value")
            }
            steps.append(.madeRequired(entity: entity, attribute: b.name, default: b.defaultValue))
        } else if !a.isOptional && b.isOptional {
            steps.append(.madeOptional(entity: entity, attribute: b.name))
        }
        if listed { properties += steps }
    }

    private mutating func compare(
        _ a: RelationshipDescription, _ b: RelationshipDescription, entity: String, newNameOf: [String: String],
        listed: Bool
    ) throws {
        let path = "\(entity).\(b.name)"
        switch (a.isTransient, b.isTransient) {
        case (true, true): return
        case (true, false): return try added(b, entity: entity, listed: listed)
        case (false, true): return listed ? removed(a, entity: entity) : ()
        case (false, false): break
        }
        let oldDestination = newNameOf[a.destinationName] ?? "\(a.destinationName) (removed)"
        guard oldDestination == b.destinationName else {
            throw ModelError.cannotMigrate(
                "relationship '\(path)' changed destination from '\(a.destinationName)' to '\(b.destinationName)'")
        }
        if b.isToOne && !b.isOptional && (a.isOptional || a.isToMany) && !comparingEmpty {
            // No default can fill a to-one: objects without a destination
            // would be invalid.
            throw ModelError.cannotMigrate(
                a.isToMany ? "relationship '\(path)' became a required to-one" : "relationship '\(path)' became required")
        }
        var steps: [PropertyStep] = []
        if a.name != b.name { steps.append(.renamedRelationship(entity: entity, from: a.name, to: b.name)) }
        if a.isToMany != b.isToMany {
            steps.append(b.isToMany ? .madeToMany(entity: entity, relationship: b.name) : .madeToOne(entity: entity, relationship: b.name))
        } else if b.isToMany && a.isOrdered != b.isOrdered {
            steps.append(b.isOrdered ? .madeOrdered(entity: entity, relationship: b.name) : .madeUnordered(entity: entity, relationship: b.name))
        } else if b.isToMany && a.isManyToMany != b.isManyToMany {
            steps.append(.changedInverse(entity: entity, relationship: b.name, manyToMany: b.isManyToMany))
        }
        if listed { properties += steps }
    }

    private static func kind(_ property: PropertyDescription) -> String {
        property is AttributeDescription ? "an attribute" : "a relationship"
    }

    private static func quoted(_ name: String?) -> String { name.map { "'\($0)'" } ?? "none" }

    /// Pairs old and new elements: a new one matches the old one named by
    /// its renaming identifier, else the old one of the same name.
    private static func match<T: Named>(_ old: [T], _ new: [T], kind: String) throws -> [(T, T)] {
        var byName: [String: T] = [:]
        for element in old { byName[element.name] = element }
        var claimed: [String: String] = [:]  // old name → new name
        var pairs: [(T, T)] = []
        for element in new {
            let candidate = element.renamingIdentifier.flatMap { byName[$0] }
                ?? old.first { $0.renamingIdentifier != nil && $0.renamingIdentifier == element.renamingIdentifier }
                ?? byName[element.name]
            guard let candidate else { continue }
            if let other = claimed[candidate.name] {
                throw ModelError.cannotMigrate(
                    "\(kind) '\(other)' and '\(element.name)' both match '\(candidate.name)' of the old model")
            }
            claimed[candidate.name] = element.name
            pairs.append((candidate, element))
        }
        return pairs
    }
}

/// What `MigrationPlan.match` pairs: entities and properties.
private protocol Named: AnyObject {
    var name: String { get }
    var renamingIdentifier: String? { get }
}

extension EntityDescription: Named {}
extension PropertyDescription: Named {}
