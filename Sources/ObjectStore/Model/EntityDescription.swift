import Foundation
import Predicates

/// An entity: a named type of object with attributes and relationships.
///
/// ```swift
/// let person = EntityDescription(name: "Person")
/// person.add(AttributeDescription(name: "age", type: .integer16))
/// ```
///
/// Entities are mutable while a model is built and frozen by
/// `ManagedObjectModel.init`, which resolves relationship destinations,
/// inverses and inheritance. Don't change an entity after that.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    /// The entity's name, unique in its model (Core Data's `name`).
    public let name: String
    /// Whether the entity has no instances of its own, only of its
    /// sub-entities; inserting one is a programming error.
    public var isAbstract: Bool
    /// The name of the entity this one inherits from, or nil for a root
    /// entity; the model resolves it into `parent`.
    public var parentName: String?
    /// The entity's user info (Core Data's `userInfo`), as the model file
    /// or builder gives it.
    public var userInfo: [String: String]
    /// The user info entries whose values are not strings (arrays,
    /// dictionaries, data, dates), as a Core Data model holds them.
    public var otherUserInfo: [String: UserInfoValue] = [:]
    /// The Swift class name the model names for this entity, if any.
    public var className: String?
    /// Properties this entity declares itself, in declaration order.
    public private(set) var declaredProperties: [PropertyDescription] = []
    /// Uniqueness constraints: each is a list of property names.
    public var uniquenessConstraints: [[String]] = []
    /// Fetch indexes: name and the property names with their order.
    public var fetchIndexes: [FetchIndexDescription] = []
    /// The name this entity had in the previous model version (Xcode's
    /// `elementID`).
    public var renamingIdentifier: String?
    /// Changes the fingerprint without another change, as Core Data's
    /// `versionHashModifier` does.
    public var versionHashModifier: String?

    // Resolved by the model.
    /// The entity this one inherits from (Core Data's `superentity`), once
    /// the model has resolved `parentName`; nil for a root entity.
    public internal(set) unowned(safe) var parent: EntityDescription?
    /// The entities that inherit directly from this one, in model order
    /// (Core Data's `subentities`).
    public internal(set) var subentities: [EntityDescription] {
        get { layout.subentities }
        _modify { yield &layout.subentities }
    }
    /// The model the entity belongs to, once it is part of one; held
    /// weakly.
    public internal(set) weak var model: ManagedObjectModel?
    /// Every attribute, inherited ones first, in a fixed order: the slot
    /// order of an object's values.
    public internal(set) var attributes: [AttributeDescription] {
        get { layout.attributes }
        set { layout.attributes = newValue }
    }
    /// Every relationship, inherited ones first.
    public internal(set) var relationships: [RelationshipDescription] {
        get { layout.relationships }
        set {
            layout.relationships = newValue
            layout.hasToMany = newValue.contains { $0.isToMany }
        }
    }
    /// Whether any of `relationships` is to-many, kept with them: the SQL
    /// translator asks at every key path whether it goes through one, and
    /// an entity without any needs no lookup by name (mrq-bench e. parse).
    var hasToManyRelationships: Bool { layout.hasToMany }
    /// Every fetched property, inherited ones first.
    public internal(set) var fetchedProperties: [FetchedPropertyDescription] = []
    /// Every composite attribute, inherited ones first. A composite has no
    /// slot of its own: its elements are in `attributes`, named
    /// `composite.element`.
    public internal(set) var compositeAttributes: [AttributeDescription] = []
    /// Attribute name → slot, built on each call: `attributeSlot(named:)`
    /// answers one name without building anything.
    public var attributeIndex: [String: Int] {
        Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
    }
    /// Relationship name → slot, built on each call: `relationshipSlot(named:)`
    /// answers one name without building anything.
    public var relationshipIndex: [String: Int] {
        Dictionary(uniqueKeysWithValues: relationships.enumerated().map { ($1.name, $0) })
    }
    var attributeSlots: SlotLookup {
        get { layout.attributeSlots }
        set { layout.attributeSlots = newValue }
    }
    var relationshipSlots: SlotLookup {
        get { layout.relationshipSlots }
        set { layout.relationshipSlots = newValue }
    }
    /// Relationship slots of a fault: to-many ones not loaded, to-one nil.
    package internal(set) var faultSlots: [RelationshipSlot] {
        get { layout.faultSlots }
        set { layout.faultSlots = newValue }
    }
    /// Relationship slots of a new object: every one empty.
    package internal(set) var emptySlots: [RelationshipSlot] {
        get { layout.emptySlots }
        set { layout.emptySlots = newValue }
    }
    /// The default value of every attribute, in slot order.
    package internal(set) var defaultValues: [Value] {
        get { layout.defaultValues }
        set { layout.defaultValues = newValue }
    }
    /// Each attribute's type, in slot order: read on every write of a value
    /// without going through (and retaining) its description.
    package internal(set) var attributeTypes: [AttributeType] {
        get { layout.attributeTypes }
        set { layout.attributeTypes = newValue }
    }

    /// What the model resolves for the entity: written by
    /// `ManagedObjectModel.init` (through the accessors above and below)
    /// before the model is used, then only read, from any thread, on every
    /// access of every object.
    private struct Layout {
        var subentities: [EntityDescription] = []
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var hasToMany = false
        var attributeSlots = SlotLookup()
        var relationshipSlots = SlotLookup()
        var faultSlots: [RelationshipSlot] = []
        var emptySlots: [RelationshipSlot] = []
        var defaultValues: [Value] = []
        var attributeTypes: [AttributeType] = []
        var root: Unmanaged<EntityDescription>?
        var family: (members: [EntityDescription], range: Range<Int>)?
    }
    // Written once, then read-only: its accesses skip the runtime's
    // exclusivity bookkeeping, which every object's property access and
    // every ObjectID hash would otherwise pay (mrq-bench b. fetch,
    // a. insert, d. import).
    @exclusivity(unchecked) private var layout = Layout()

    /// The slot of the attribute named `name`.
    @inline(__always)
    public func attributeSlot(named name: String) -> Int? { layout.attributeSlots.index(of: name) }

    /// The slot of the relationship named `name`.
    @inline(__always)
    public func relationshipSlot(named name: String) -> Int? { layout.relationshipSlots.index(of: name) }

    /// An entity named `name`, with no properties yet: `add(_:)` them, then
    /// make a `ManagedObjectModel` of the entities.
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - isAbstract: Whether it has no instances of its own.
    ///   - parent: The entity it inherits from, by name.
    ///   - userInfo: Its user info.
    public init(name: String, isAbstract: Bool = false, parent: String? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.isAbstract = isAbstract
        self.parentName = parent
        self.userInfo = userInfo
    }

    /// Declares `property` in this entity, after the ones added before. Add
    /// every property before the model is made.
    public func add(_ property: PropertyDescription) {
        property.entity = self
        declaredProperties.append(property)
    }

    public var description: String { name }

    /// The entity at the top of this entity's inheritance chain.
    public var rootEntity: EntityDescription {
        if let root = resolvedRoot { return root.takeUnretainedValue() }
        var entity = self
        while let parent = entity.parent { entity = parent }
        return entity
    }

    /// Set by the model once inheritance is resolved: every `ObjectID`
    /// hash reads the root, so it must not walk the chain each time. The
    /// model owns its entities, so the reference needs no retain.
    var resolvedRoot: Unmanaged<EntityDescription>? {
        get { layout.root }
        set { layout.root = newValue }
    }

    /// This entity and every entity below it, depth first, sub-entities in
    /// model order.
    public var selfAndDescendants: [EntityDescription] {
        if let family = resolvedFamily { return Array(family.members[family.range]) }
        return [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// Where `selfAndDescendants` sits in its hierarchy's depth-first order,
    /// set by the model once inheritance is resolved: one array per
    /// hierarchy, shared by its entities, so that a chain of n levels holds
    /// n entries rather than n²/2.
    var resolvedFamily: (members: [EntityDescription], range: Range<Int>)? {
        get { layout.family }
        set { layout.family = newValue }
    }

    /// Whether `other` is this entity or one of its descendants.
    public func isKind(of other: EntityDescription) -> Bool {
        if let mine = resolvedFamily, let theirs = other.resolvedFamily {
            // One hierarchy's depth-first order: a descendant sits inside
            // its ancestor's range.
            return rootEntity === other.rootEntity && theirs.range.contains(mine.range.lowerBound)
        }
        var entity: EntityDescription? = self
        while let e = entity {
            if e === other { return true }
            entity = e.parent
        }
        return false
    }

    /// The attribute named `name`, declared here or inherited; nil when the
    /// entity has none. An element of a composite is found by its path
    /// (`magnitude.richter`).
    public func attribute(named name: String) -> AttributeDescription? {
        attributeSlot(named: name).map { attributes[$0] }
    }

    /// The relationship named `name`, declared here or inherited; nil when
    /// the entity has none.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationshipSlot(named: name).map { relationships[$0] }
    }

    /// The composite attribute named `name` (declared or inherited).
    public func compositeAttribute(named name: String) -> AttributeDescription? {
        compositeAttributes.first { $0.name == name }
    }

    /// The attribute, relationship or fetched property named `name` (Core
    /// Data's `propertiesByName[name]`); nil when the entity has none.
    public func property(named name: String) -> PropertyDescription? {
        attribute(named: name) ?? relationship(named: name)
            ?? fetchedProperties.first { $0.name == name }
    }

    /// The names of every property, for suggestions and completion.
    public var propertyNames: [String] {
        attributes.map(\.name) + compositeAttributes.map(\.name) + relationships.map(\.name)
            + fetchedProperties.map(\.name)
    }
}

/// A fetch index: a named list of properties, each ascending or descending.
public struct FetchIndexDescription: Sendable, Hashable {
    /// The index's name, unique in its entity.
    public var name: String
    /// The indexed properties, by name, each ascending or descending, in
    /// order.
    public var elements: [(property: String, ascending: Bool)]
    /// The elements that are expressions rather than properties, by their
    /// name in `elements`, each with the expression's text (empty when mrq
    /// cannot read it): Core Data indexes expressions (Photos' models do),
    /// mrq keeps them but builds no index over them.
    public var expressions: [String: String] = [:]

    /// An index named `name` over `elements`.
    public init(name: String, elements: [(property: String, ascending: Bool)]) {
        self.name = name
        self.elements = elements
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.elements.map(\.property) == b.elements.map(\.property)
            && a.elements.map(\.ascending) == b.elements.map(\.ascending) && a.expressions == b.expressions
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        for element in elements {
            hasher.combine(element.property)
            hasher.combine(element.ascending)
        }
    }
}
