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
    public static func buildExpression(_ entity: Entity) -> [ModelPart] { [ModelPart(kind: .entity(entity))] }
    public static func buildExpression(_ configuration: ModelConfiguration) -> [ModelPart] {
        [ModelPart(kind: .configuration(configuration))]
    }
    public static func buildBlock(_ parts: [ModelPart]...) -> [ModelPart] { parts.flatMap { $0 } }
    public static func buildOptional(_ parts: [ModelPart]?) -> [ModelPart] { parts ?? [] }
    public static func buildEither(first parts: [ModelPart]) -> [ModelPart] { parts }
    public static func buildEither(second parts: [ModelPart]) -> [ModelPart] { parts }
    public static func buildArray(_ parts: [[ModelPart]]) -> [ModelPart] { parts.flatMap { $0 } }
}

/// Collects the properties, constraints and indexes of an entity.
@resultBuilder
public enum EntityBuilder {
    public static func buildExpression(_ a: Attribute) -> [EntityPart] { [EntityPart(kind: .attribute(a))] }
    public static func buildExpression(_ r: ToOne) -> [EntityPart] { [EntityPart(kind: .relationship(r.relationship))] }
    public static func buildExpression(_ r: ToMany) -> [EntityPart] { [EntityPart(kind: .relationship(r.relationship))] }
    public static func buildExpression(_ f: FetchedProperty) -> [EntityPart] { [EntityPart(kind: .fetched(f))] }
    public static func buildExpression(_ u: Unique) -> [EntityPart] { [EntityPart(kind: .unique(u.properties))] }
    public static func buildExpression(_ i: FetchIndex) -> [EntityPart] { [EntityPart(kind: .index(i))] }
    public static func buildBlock(_ parts: [EntityPart]...) -> [EntityPart] { parts.flatMap { $0 } }
    public static func buildOptional(_ parts: [EntityPart]?) -> [EntityPart] { parts ?? [] }
    public static func buildEither(first parts: [EntityPart]) -> [EntityPart] { parts }
    public static func buildEither(second parts: [EntityPart]) -> [EntityPart] { parts }
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
    public var name: String
    public var parent: String?
    public var isAbstract: Bool
    public var className: String?
    public var userInfo: [String: String]
    public var renamingIdentifier: String?
    var parts: [EntityPart]

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
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    public var isTransient: Bool
    public var defaultValue: Value
    public var minValue: Value?
    public var maxValue: Value?
    public var regularExpression: String?
    public var validationPredicates: [ValidationRule] = []
    public var userInfo: [String: String]
    public var renamingIdentifier: String?
    public var isIndexed = false
    public var allowsExternalBinaryDataStorage = false
    public var valueTransformerName: String?

    /// A validation predicate (a format string) and its message.
    public struct ValidationRule: Sendable, Hashable {
        public var format: String
        public var message: String
    }

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

    public func required() -> Attribute { with { $0.isOptional = false } }
    public func transient() -> Attribute { with { $0.isTransient = true } }
    public func indexed() -> Attribute { with { $0.isIndexed = true } }
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
    public func userInfo(_ key: String, _ value: String) -> Attribute { with { $0.userInfo[key] = value } }
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

    public init(
        _ name: String, _ destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        optional: Bool = true, userInfo: [String: String] = [:], renamedFrom: String? = nil
    ) {
        relationship = RelationshipSpec(
            name: name, destination: destination, inverse: inverse, isToMany: false, isOrdered: false,
            deleteRule: deleteRule, isOptional: optional, minCount: optional ? 0 : 1, maxCount: 1,
            userInfo: userInfo, renamingIdentifier: renamedFrom)
    }

    public func required() -> ToOne {
        var copy = self
        copy.relationship.isOptional = false
        copy.relationship.minCount = 1
        return copy
    }
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

    public func userInfo(_ key: String, _ value: String) -> ToMany {
        var copy = self
        copy.relationship.userInfo[key] = value
        return copy
    }
}

/// A fetched property in a model built in code.
public struct FetchedProperty: Sendable {
    public var name: String
    public var entity: String
    public var predicate: String
    public var isOptional: Bool
    public var userInfo: [String: String]

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
    public var properties: [String]
    public init(_ properties: String...) { self.properties = properties }
}

/// A fetch index in a model built in code.
///
/// ```swift
/// FetchIndex("byName", .ascending("LastName"), .descending("age"))
/// ```
public struct FetchIndex: Sendable {
    public struct Element: Sendable {
        public var property: String
        public var ascending: Bool
        public static func ascending(_ property: String) -> Element { Element(property: property, ascending: true) }
        public static func descending(_ property: String) -> Element { Element(property: property, ascending: false) }
    }
    public var name: String
    public var elements: [(property: String, ascending: Bool)] {
        storage.map { ($0.property, $0.ascending) }
    }
    private var storage: [Element]

    public init(_ name: String, _ elements: Element...) {
        self.name = name
        self.storage = elements
    }
}

/// A named configuration: a subset of the entities.
public struct ModelConfiguration: Sendable {
    public var name: String
    public var entities: [String]
    public init(_ name: String, _ entities: String...) {
        self.name = name
        self.entities = entities
    }
}
