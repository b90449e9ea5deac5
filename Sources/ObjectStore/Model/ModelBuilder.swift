import Foundation
import Predicates

extension ManagedObjectModel {
    /// Builds a model in code.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel {
    ///     Entity("Department") {
    ///         Attribute("name", .string).required()
    ///         ToMany("people", "Person", inverse: "department")
    ///     }
    ///     Entity("Person") {
    ///         Attribute("age", .integer16, default: .int(0)).minimum(.int(0))
    ///         ToOne("department", "Department", inverse: "people")
    ///     }
    /// }
    /// ```
    ///
    /// The model is resolved as a loaded one is: an unknown destination,
    /// inverse or parent throws a `ModelError`.
    public convenience init(
        version: String? = nil, localization: [String: String] = [:],
        @ModelBuilder _ content: () -> [ModelPart]
    ) throws {
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        for part in content() {
            switch part.kind {
            case .entity(let entity): entities.append(entity.makeDescription())
            case .configuration(let c): configurations[c.name, default: []] += c.entities
            }
        }
        try self.init(entities: entities, configurations: configurations)
        versionIdentifier = version
        localizationDictionary = localization
    }
}

/// Collects the entities and configurations of a model.
@resultBuilder
public enum ModelBuilder {
    /// An entity becomes part of the model.
    public static func buildExpression(_ entity: Entity) -> [ModelPart] { [ModelPart(kind: .entity(entity))] }
    /// A configuration becomes part of the model; configurations of the same
    /// name add up.
    public static func buildExpression(_ configuration: ModelConfiguration) -> [ModelPart] {
        [ModelPart(kind: .configuration(configuration))]
    }
    /// The parts of a block, in order.
    public static func buildBlock(_ parts: [ModelPart]...) -> [ModelPart] { parts.flatMap { $0 } }
    /// The parts of an `if` without `else`: none when the condition is false.
    public static func buildOptional(_ parts: [ModelPart]?) -> [ModelPart] { parts ?? [] }
    /// The parts of the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first parts: [ModelPart]) -> [ModelPart] { parts }
    /// The parts of the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second parts: [ModelPart]) -> [ModelPart] { parts }
    /// The parts of every pass of a `for` loop, in order.
    public static func buildArray(_ parts: [[ModelPart]]) -> [ModelPart] { parts.flatMap { $0 } }
}

/// Collects the properties, constraints and indexes of an entity.
@resultBuilder
public enum EntityBuilder {
    /// An attribute becomes a property of the entity.
    public static func buildExpression(_ a: Attribute) -> [EntityPart] { [EntityPart(kind: .attribute(a))] }
    /// A to-one relationship becomes a property of the entity.
    public static func buildExpression(_ r: ToOne) -> [EntityPart] { [EntityPart(kind: .relationship(r.relationship))] }
    /// A to-many relationship becomes a property of the entity.
    public static func buildExpression(_ r: ToMany) -> [EntityPart] { [EntityPart(kind: .relationship(r.relationship))] }
    /// A fetched property becomes a property of the entity.
    public static func buildExpression(_ f: FetchedProperty) -> [EntityPart] { [EntityPart(kind: .fetched(f))] }
    /// A uniqueness constraint of the entity.
    public static func buildExpression(_ u: Unique) -> [EntityPart] { [EntityPart(kind: .unique(u.properties))] }
    /// A fetch index of the entity.
    public static func buildExpression(_ i: FetchIndex) -> [EntityPart] { [EntityPart(kind: .index(i))] }
    /// The parts of a block, in order.
    public static func buildBlock(_ parts: [EntityPart]...) -> [EntityPart] { parts.flatMap { $0 } }
    /// The parts of an `if` without `else`: none when the condition is false.
    public static func buildOptional(_ parts: [EntityPart]?) -> [EntityPart] { parts ?? [] }
    /// The parts of the first branch of an `if`/`else` or `switch`.
    public static func buildEither(first parts: [EntityPart]) -> [EntityPart] { parts }
    /// The parts of the second branch of an `if`/`else` or `switch`.
    public static func buildEither(second parts: [EntityPart]) -> [EntityPart] { parts }
    /// The parts of every pass of a `for` loop, in order.
    public static func buildArray(_ parts: [[EntityPart]]) -> [EntityPart] { parts.flatMap { $0 } }
}

/// An entity or a configuration in a `ModelBuilder` block.
public struct ModelPart: Sendable {
    enum Kind: Sendable {
        case entity(Entity)
        case configuration(ModelConfiguration)
    }
    let kind: Kind
}

/// A property, uniqueness constraint or fetch index in an `EntityBuilder`
/// block.
public struct EntityPart: Sendable {
    enum Kind: Sendable {
        case attribute(Attribute)
        case relationship(RelationshipSpec)
        case fetched(FetchedProperty)
        case unique([String])
        case index(FetchIndex)
    }
    let kind: Kind
}

/// An entity in a model built in code.
public struct Entity: Sendable {
    /// The entity's name, unique in the model.
    public var name: String
    /// The name of the entity this one inherits from, or nil for a root
    /// entity.
    public var parent: String?
    /// Whether the entity has no instances of its own, only of its
    /// sub-entities.
    public var isAbstract: Bool
    /// The class name the model file gives the entity (Xcode's
    /// `representedClassName`), kept for writing the model back.
    public var className: String?
    /// The entity's user info, as Xcode's User Info pane holds it.
    public var userInfo: [String: String]
    /// The name the entity had in the previous model version, for migration.
    public var renamingIdentifier: String?
    var parts: [EntityPart]

    /// An entity named `name` with the properties, constraints and indexes of
    /// `content`.
    ///
    /// ```swift
    /// Entity("Manager", parent: "Person", renamedFrom: "Boss") {
    ///     Attribute("level", .integer16, default: .int(1))
    ///     Unique("level")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The entity's name.
    ///   - parent: The entity it inherits from, by name.
    ///   - abstract: Whether it has no instances of its own.
    ///   - className: The class name to record in the model.
    ///   - userInfo: Its user info.
    ///   - renamedFrom: Its name in the previous model version, when it was
    ///     renamed.
    ///   - content: Its attributes, relationships, fetched properties,
    ///     uniqueness constraints and fetch indexes.
    public init(
        _ name: String, parent: String? = nil, abstract: Bool = false, className: String? = nil,
        userInfo: [String: String] = [:], renamedFrom: String? = nil,
        @EntityBuilder _ content: () -> [EntityPart] = { [] }
    ) {
        self.name = name
        self.parent = parent
        self.isAbstract = abstract
        self.className = className
        self.userInfo = userInfo
        self.renamingIdentifier = renamedFrom
        self.parts = content()
    }

    func makeDescription() -> EntityDescription {
        let entity = EntityDescription(name: name, isAbstract: isAbstract, parent: parent, userInfo: userInfo)
        entity.className = className
        entity.renamingIdentifier = renamingIdentifier
        for part in parts {
            switch part.kind {
            case .attribute(let a): entity.add(a.makeDescription())
            case .relationship(let r): entity.add(r.makeDescription())
            case .fetched(let f): entity.add(f.makeDescription())
            case .unique(let names): entity.uniquenessConstraints.append(names)
            case .index(let i): entity.fetchIndexes.append(FetchIndexDescription(name: i.name, elements: i.elements))
            }
        }
        return entity
    }
}

/// An attribute in a model built in code; modifiers return a changed copy.
///
/// ```swift
/// Attribute("email", .string).required().matching(".+@.+").userInfo("mappedKeyName", "mail")
/// ```
public struct Attribute: Sendable {
    /// The attribute's name, unique in its entity and the entity's parents.
    public var name: String
    /// The attribute's type.
    public var type: AttributeType
    /// Whether the attribute may be nil when the object is saved.
    public var isOptional: Bool
    /// Whether the attribute lives in memory only, never stored.
    public var isTransient: Bool
    /// The value a new object starts with; `.null` for none.
    public var defaultValue: Value
    /// The smallest value (numbers, dates) or length (strings, binary), set
    /// by `minimum(_:)`.
    public var minValue: Value?
    /// The largest value (numbers, dates) or length (strings, binary), set by
    /// `maximum(_:)`.
    public var maxValue: Value?
    /// The regular expression a string value must match as a whole, set by
    /// `matching(_:)`.
    public var regularExpression: String?
    /// The validation predicates and their messages, added by
    /// `validated(by:message:)`.
    public var validationPredicates: [ValidationRule] = []
    /// The attribute's user info: MagicalRecord's import keys
    /// (`mappedKeyName`, `dateFormat`, …) live here.
    public var userInfo: [String: String]
    /// The name the attribute had in the previous model version, set by
    /// `renamed(from:)`.
    public var renamingIdentifier: String?
    /// Whether the attribute is marked indexed, set by `indexed()`; see
    /// ``AttributeDescription/isIndexed``.
    public var isIndexed = false
    /// Whether Core Data may keep large values in files beside the store, set
    /// by `externalStorage()`.
    public var allowsExternalBinaryDataStorage = false
    /// The value transformer a Transformable attribute names, set by
    /// `transformer(_:)`.
    public var valueTransformerName: String?

    /// A validation predicate (a format string) and its message.
    public struct ValidationRule: Sendable, Hashable {
        /// The predicate, as a format string evaluated with the value as `SELF`
        /// (`SELF BEGINSWITH 'G-'`).
        public var format: String
        /// The message of the validation failure when the predicate is false;
        /// empty for a message naming the predicate.
        public var message: String
    }

    /// An attribute named `name` of `type`.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: Its type.
    ///   - optional: Whether it may be nil when saved (true by default, as
    ///     in Xcode); `required()` says the opposite.
    ///   - defaultValue: The value a new object starts with.
    ///   - transient: Whether it lives in memory only.
    ///   - userInfo: Its user info.
    ///   - renamedFrom: Its name in the previous model version, when it was
    ///     renamed.
    public init(
        _ name: String, _ type: AttributeType, optional: Bool = true, default defaultValue: Value = .null,
        transient: Bool = false, userInfo: [String: String] = [:], renamedFrom: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.defaultValue = defaultValue
        self.isTransient = transient
        self.userInfo = userInfo
        self.renamingIdentifier = renamedFrom
    }

    private func with(_ change: (inout Attribute) -> Void) -> Attribute {
        var copy = self
        change(&copy)
        return copy
    }

    /// The attribute, required: saving an object whose value is nil fails
    /// validation.
    public func required() -> Attribute { with { $0.isOptional = false } }
    /// The attribute, transient: kept in memory and never stored.
    public func transient() -> Attribute { with { $0.isTransient = true } }
    /// The attribute, marked indexed (Xcode's old `indexed="YES"`); see
    /// ``AttributeDescription/isIndexed``.
    public func indexed() -> Attribute { with { $0.isIndexed = true } }
    /// The attribute, allowing external storage (Xcode's Allows External
    /// Storage); see ``AttributeDescription/allowsExternalBinaryDataStorage``.
    public func externalStorage() -> Attribute { with { $0.allowsExternalBinaryDataStorage = true } }
    /// The smallest value (numbers, dates) or length (strings, binary).
    public func minimum(_ value: Value) -> Attribute { with { $0.minValue = value } }
    /// The largest value (numbers, dates) or length (strings, binary).
    public func maximum(_ value: Value) -> Attribute { with { $0.maxValue = value } }
    /// A regular expression the whole string must match.
    public func matching(_ pattern: String) -> Attribute { with { $0.regularExpression = pattern } }
    /// A predicate the value must satisfy, kept as its format string.
    public func validated(by format: String, message: String) -> Attribute {
        with { $0.validationPredicates.append(ValidationRule(format: format, message: message)) }
    }
    /// The attribute with user-info entry `key` set to `value`:
    /// `.userInfo("mappedKeyName", "first_name")`.
    public func userInfo(_ key: String, _ value: String) -> Attribute { with { $0.userInfo[key] = value } }
    /// The attribute, renamed from `identifier` in the previous model
    /// version: a migration moves the old attribute's values into it.
    public func renamed(from identifier: String) -> Attribute { with { $0.renamingIdentifier = identifier } }
    /// The value transformer a Transformable attribute names.
    public func transformer(_ name: String) -> Attribute { with { $0.valueTransformerName = name } }

    func makeDescription() -> AttributeDescription {
        let a = AttributeDescription(
            name: name, type: type, isOptional: isOptional, isTransient: isTransient,
            defaultValue: defaultValue, userInfo: userInfo)
        a.minValue = minValue
        a.maxValue = maxValue
        a.regularExpression = regularExpression
        a.validationPredicates = validationPredicates.map { ($0.format, $0.message) }
        a.renamingIdentifier = renamingIdentifier
        a.isIndexed = isIndexed
        a.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        a.valueTransformerName = valueTransformerName
        return a
    }
}

/// What `ToOne` and `ToMany` build.
struct RelationshipSpec: Sendable {
    var name: String
    var destination: String
    var inverse: String?
    var isToMany: Bool
    var isOrdered: Bool
    var deleteRule: DeleteRule
    var isOptional: Bool
    var minCount: Int
    var maxCount: Int
    var userInfo: [String: String]
    var renamingIdentifier: String?

    func makeDescription() -> RelationshipDescription {
        let r = RelationshipDescription(
            name: name, destination: destination, inverse: inverse, isToMany: isToMany, isOrdered: isOrdered,
            deleteRule: deleteRule, isOptional: isOptional, minCount: minCount, maxCount: maxCount,
            userInfo: userInfo)
        r.renamingIdentifier = renamingIdentifier
        return r
    }
}

/// A to-one relationship in a model built in code.
public struct ToOne: Sendable {
    var relationship: RelationshipSpec

    /// A to-one relationship named `name` to the entity `destination`.
    ///
    /// ```swift
    /// ToOne("owner", "Person", inverse: "cars", deleteRule: .nullify)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The destination entity, by name.
    ///   - inverse: The relationship back from the destination, by name;
    ///     give one, as Core Data advises, so that both sides stay in step.
    ///   - deleteRule: What deleting the source does to the destination.
    ///   - optional: Whether the relationship may be empty when saved.
    ///   - userInfo: Its user info (`relatedByAttribute` for import).
    ///   - renamedFrom: Its name in the previous model version.
    public init(
        _ name: String, _ destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        optional: Bool = true, userInfo: [String: String] = [:], renamedFrom: String? = nil
    ) {
        relationship = RelationshipSpec(
            name: name, destination: destination, inverse: inverse, isToMany: false, isOrdered: false,
            deleteRule: deleteRule, isOptional: optional, minCount: optional ? 0 : 1, maxCount: 1,
            userInfo: userInfo, renamingIdentifier: renamedFrom)
    }

    /// The relationship, required: saving an object without a destination
    /// fails validation.
    public func required() -> ToOne {
        var copy = self
        copy.relationship.isOptional = false
        copy.relationship.minCount = 1
        return copy
    }
    /// The relationship with user-info entry `key` set to `value`.
    public func userInfo(_ key: String, _ value: String) -> ToOne {
        var copy = self
        copy.relationship.userInfo[key] = value
        return copy
    }
}

/// A to-many relationship in a model built in code; `maxCount` 0 means
/// unbounded.
public struct ToMany: Sendable {
    var relationship: RelationshipSpec

    /// A to-many relationship named `name` to the entity `destination`.
    ///
    /// ```swift
    /// ToMany("employees", "Person", inverse: "department", ordered: true,
    ///        deleteRule: .cascade)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The destination entity, by name.
    ///   - inverse: The relationship back from the destination, by name.
    ///   - ordered: Whether the destinations keep an order (an `NSOrderedSet`
    ///     in Core Data).
    ///   - deleteRule: What deleting the source does to the destinations.
    ///   - optional: Whether the relationship may be empty when saved.
    ///   - minCount: The fewest destinations a save accepts; an optional
    ///     relationship may still be empty.
    ///   - maxCount: The most destinations a save accepts; 0 for no limit.
    ///   - userInfo: Its user info.
    ///   - renamedFrom: Its name in the previous model version.
    public init(
        _ name: String, _ destination: String, inverse: String? = nil, ordered: Bool = false,
        deleteRule: DeleteRule = .nullify, optional: Bool = true, minCount: Int = 0, maxCount: Int = 0,
        userInfo: [String: String] = [:], renamedFrom: String? = nil
    ) {
        relationship = RelationshipSpec(
            name: name, destination: destination, inverse: inverse, isToMany: true, isOrdered: ordered,
            deleteRule: deleteRule, isOptional: optional, minCount: minCount, maxCount: maxCount,
            userInfo: userInfo, renamingIdentifier: renamedFrom)
    }

    /// The relationship with user-info entry `key` set to `value`.
    public func userInfo(_ key: String, _ value: String) -> ToMany {
        var copy = self
        copy.relationship.userInfo[key] = value
        return copy
    }
}

/// A fetched property in a model built in code.
public struct FetchedProperty: Sendable {
    /// The fetched property's name.
    public var name: String
    /// The entity whose objects the predicate selects, by name.
    public var entity: String
    /// The predicate, as a format string.
    public var predicate: String
    /// Whether the property is optional, as the model file records it.
    public var isOptional: Bool
    /// The fetched property's user info.
    public var userInfo: [String: String]

    /// A fetched property named `name`: the objects of `entity` that match
    /// `predicate`.
    ///
    /// ```swift
    /// FetchedProperty("adults", entity: "Person", predicate: "age >= 18")
    /// ```
    public init(
        _ name: String, entity: String, predicate: String, optional: Bool = true, userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.entity = entity
        self.predicate = predicate
        self.isOptional = optional
        self.userInfo = userInfo
    }

    func makeDescription() -> FetchedPropertyDescription {
        let f = FetchedPropertyDescription(name: name, destination: entity, predicate: predicate, userInfo: userInfo)
        f.isOptional = isOptional
        return f
    }
}

/// A uniqueness constraint over one or more properties.
public struct Unique: Sendable {
    /// The property names whose values, together, identify an object.
    public var properties: [String]
    /// A constraint over `properties`: no two objects of the entity (and its
    /// sub-entities) may share all their values. A save that would break it
    /// merges the objects or fails, by the context's merge policy.
    ///
    /// ```swift
    /// Unique("email")
    /// Unique("firstName", "lastName")
    /// ```
    public init(_ properties: String...) { self.properties = properties }
}

/// A fetch index in a model built in code.
///
/// ```swift
/// FetchIndex("byName", .ascending("LastName"), .descending("age"))
/// ```
public struct FetchIndex: Sendable {
    /// One property of the index and its direction.
    public struct Element: Sendable {
        /// The property's name.
        public var property: String
        /// Whether the index orders the property ascending.
        public var ascending: Bool
        /// The property `property`, in ascending order.
        public static func ascending(_ property: String) -> Element { Element(property: property, ascending: true) }
        /// The property `property`, in descending order.
        public static func descending(_ property: String) -> Element { Element(property: property, ascending: false) }
    }
    /// The index's name, unique in its entity.
    public var name: String
    /// The index's properties and their directions, in order.
    public var elements: [(property: String, ascending: Bool)] {
        storage.map { ($0.property, $0.ascending) }
    }
    private var storage: [Element]

    /// An index named `name` over `elements`, in order; the store creates it
    /// as an SQL index.
    public init(_ name: String, _ elements: Element...) {
        self.name = name
        self.storage = elements
    }
}

/// A named configuration: a subset of the entities.
public struct ModelConfiguration: Sendable {
    /// The configuration's name.
    public var name: String
    /// The names of the entities the configuration holds.
    public var entities: [String]
    /// A configuration named `name` holding `entities`: a store added with
    /// this configuration holds those entities only.
    ///
    /// ```swift
    /// ModelConfiguration("Archive", "Invoice", "Payment")
    /// ```
    public init(_ name: String, _ entities: String...) {
        self.name = name
        self.entities = entities
    }
}
