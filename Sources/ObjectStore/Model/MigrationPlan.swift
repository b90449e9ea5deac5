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
/// Accepted: entities added, removed or renamed; attributes added (optional
/// or with a default), removed or renamed; optional to required when the
/// attribute has a default; required to optional; relationships of any kind
/// added (a to-one only if optional), removed or renamed. Renames come from
/// the new model's renaming identifiers (Xcode's `elementID`), which name
/// the entity or property in the old model. Changes that do not touch
/// storage (user info, validation, delete rules, indexes) need no step.
/// Anything else throws a `ModelError` naming the first change found:
/// `cannot infer a migration: attribute 'Person.age' changed type from
/// Integer 16 to String`.
///
/// Property steps name the entity as the new model does and list only the
/// properties an entity declares (not inherited ones). Nothing is listed
/// for the properties of added or removed entities.
public struct MigrationPlan: Sendable, Equatable {
    public enum EntityStep: Sendable, Hashable {
        /// An entity of the new model only.
        case added(String)
        /// An entity of the old model only (its old name).
        case removed(String)
        case renamed(from: String, to: String)
    }

    public enum PropertyStep: Sendable, Hashable {
        case addedAttribute(entity: String, attribute: String)
        case removedAttribute(entity: String, attribute: String)
        case renamedAttribute(entity: String, from: String, to: String)
        /// A required attribute became optional.
        case madeOptional(entity: String, attribute: String)
        /// An optional attribute became required: rows holding nil get the
        /// default value.
        case madeRequired(entity: String, attribute: String, default: Value)
        case addedRelationship(entity: String, relationship: String)
        case removedRelationship(entity: String, relationship: String)
        case renamedRelationship(entity: String, from: String, to: String)
    }

    public var entities: [EntityStep] = []
    public var properties: [PropertyStep] = []

    public init(entities: [EntityStep] = [], properties: [PropertyStep] = []) {
        self.entities = entities
        self.properties = properties
    }

    /// Whether the two models store the same way.
    public var isEmpty: Bool { entities.isEmpty && properties.isEmpty }

    /// Works out the steps from `old` to `new`, or throws when a change
    /// cannot be inferred.
    public static func infer(from old: ManagedObjectModel, to new: ManagedObjectModel) throws -> MigrationPlan {
        var plan = MigrationPlan()
        let entityPairs = try match(old.entities, new.entities, kind: "entities")
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

        for (o, n) in entityPairs {
            let oldParent = o.parentName.map { newNameOf[$0] ?? "\($0) (removed)" }
            if oldParent != n.parentName {
                throw ModelError.cannotMigrate(
                    "entity '\(n.name)' moved in the inheritance hierarchy "
                        + "(parent was \(quoted(o.parentName)), now \(quoted(n.parentName)))")
            }
            try plan.compareProperties(o, n, newNameOf: newNameOf)
        }
        return plan
    }

    private mutating func compareProperties(
        _ o: EntityDescription, _ n: EntityDescription, newNameOf: [String: String]
    ) throws {
        let stored = { (e: EntityDescription) in e.declaredProperties.filter { !($0 is FetchedPropertyDescription) } }
        let oldProperties = stored(o)
        let newProperties = stored(n)
        let pairs = try MigrationPlan.match(oldProperties, newProperties, kind: "properties of entity '\(n.name)'")
        var matchedOld = Set<ObjectIdentifier>()
        var oldFor: [ObjectIdentifier: PropertyDescription] = [:]
        for (op, np) in pairs {
            matchedOld.insert(ObjectIdentifier(op))
            oldFor[ObjectIdentifier(np)] = op
        }
        for property in newProperties {
            let path = "\(n.name).\(property.name)"
            guard let previous = oldFor[ObjectIdentifier(property)] else {
                try added(property, entity: n.name)
                continue
            }
            switch (previous, property) {
            case let (a as AttributeDescription, b as AttributeDescription):
                try compare(a, b, entity: n.name)
            case let (a as RelationshipDescription, b as RelationshipDescription):
                try compare(a, b, entity: n.name, newNameOf: newNameOf)
            default:
                throw ModelError.cannotMigrate(
                    "property '\(path)' changed from \(Self.kind(previous)) to \(Self.kind(property))")
            }
        }
        for property in oldProperties where !matchedOld.contains(ObjectIdentifier(property)) {
            removed(property, entity: n.name)
        }
    }

    private mutating func added(_ property: PropertyDescription, entity: String) throws {
        guard !property.isTransient else { return }
        let path = "\(entity).\(property.name)"
        switch property {
        case let a as AttributeDescription:
            guard a.isOptional || !a.defaultValue.isNull else {
                throw ModelError.cannotMigrate("attribute '\(path)' was added as required without a default value")
            }
            properties.append(.addedAttribute(entity: entity, attribute: a.name))
        case let r as RelationshipDescription:
            guard r.isOptional || r.isToMany else {
                throw ModelError.cannotMigrate("relationship '\(path)' was added as a required to-one")
            }
            properties.append(.addedRelationship(entity: entity, relationship: r.name))
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

    private mutating func compare(_ a: AttributeDescription, _ b: AttributeDescription, entity: String) throws {
        let path = "\(entity).\(b.name)"
        switch (a.isTransient, b.isTransient) {
        case (true, true): return
        case (true, false): return try added(b, entity: entity)
        case (false, true): return removed(a, entity: entity)
        case (false, false): break
        }
        guard a.type == b.type else {
            throw ModelError.cannotMigrate(
                "attribute '\(path)' changed type from \(a.type.rawValue) to \(b.type.rawValue)")
        }
        if a.name != b.name { properties.append(.renamedAttribute(entity: entity, from: a.name, to: b.name)) }
        if a.isOptional && !b.isOptional {
            guard !b.defaultValue.isNull else {
                throw ModelError.cannotMigrate("attribute '\(path)' became required without a default value")
            }
            properties.append(.madeRequired(entity: entity, attribute: b.name, default: b.defaultValue))
        } else if !a.isOptional && b.isOptional {
            properties.append(.madeOptional(entity: entity, attribute: b.name))
        }
    }

    private mutating func compare(
        _ a: RelationshipDescription, _ b: RelationshipDescription, entity: String, newNameOf: [String: String]
    ) throws {
        let path = "\(entity).\(b.name)"
        switch (a.isTransient, b.isTransient) {
        case (true, true): return
        case (true, false): return try added(b, entity: entity)
        case (false, true): return removed(a, entity: entity)
        case (false, false): break
        }
        let oldDestination = newNameOf[a.destinationName] ?? "\(a.destinationName) (removed)"
        guard oldDestination == b.destinationName else {
            throw ModelError.cannotMigrate(
                "relationship '\(path)' changed destination from '\(a.destinationName)' to '\(b.destinationName)'")
        }
        guard a.isToMany == b.isToMany else {
            throw ModelError.cannotMigrate(
                "relationship '\(path)' changed from \(Self.cardinality(a)) to \(Self.cardinality(b))")
        }
        guard a.isManyToMany == b.isManyToMany else {
            throw ModelError.cannotMigrate(
                "relationship '\(path)' changed from \(Self.shape(a)) to \(Self.shape(b))")
        }
        guard a.isOrdered == b.isOrdered else {
            throw ModelError.cannotMigrate(
                "relationship '\(path)' changed from \(a.isOrdered ? "ordered" : "unordered") "
                    + "to \(b.isOrdered ? "ordered" : "unordered")")
        }
        if b.isToOne && a.isOptional && !b.isOptional {
            throw ModelError.cannotMigrate("relationship '\(path)' became required")
        }
        if a.name != b.name { properties.append(.renamedRelationship(entity: entity, from: a.name, to: b.name)) }
    }

    private static func kind(_ property: PropertyDescription) -> String {
        property is AttributeDescription ? "an attribute" : "a relationship"
    }

    private static func cardinality(_ r: RelationshipDescription) -> String { r.isToMany ? "to-many" : "to-one" }

    private static func shape(_ r: RelationshipDescription) -> String {
        r.isManyToMany ? "many-to-many" : "one-to-many"
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
