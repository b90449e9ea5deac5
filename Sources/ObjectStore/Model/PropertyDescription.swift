import Foundation
import Predicates

/// What every property of an entity has: a name, optionality, transience
/// and a user-info dictionary.
public class PropertyDescription: @unchecked Sendable {
    /// The property's name, unique in its entity and the entity's parents.
    public let name: String
    // Properties are set while a model is built and only read once a
    // model holds them: don't change one after that.
    /// Whether the property may be nil (or, for a to-many, empty) when the
    /// object is saved (Core Data's `isOptional`).
    public var isOptional: Bool
    /// Whether the property lives in memory only: never stored, never
    /// validated, and not part of the store's schema (Core Data's
    /// `isTransient`).
    public var isTransient: Bool
    /// The property's user info (Core Data's `userInfo`): MagicalRecord's
    /// import reads `mappedKeyName`, `relatedByAttribute`, `dateFormat` and
    /// `useDefaultValueWhenNotPresent` here.
    public var userInfo: [String: String]
    /// The user info entries whose values are not strings (arrays,
    /// dictionaries, data, dates), as a Core Data model holds them.
    public var otherUserInfo: [String: UserInfoValue] = [:]
    /// The entity that declares the property (not a sub-entity inheriting it).
    public internal(set) unowned(safe) var entity: EntityDescription?
    /// The name this property had in the previous model version (Xcode's
    /// `elementID`): a migration matches it against the old property names.
    public var renamingIdentifier: String?
    /// Changes the fingerprint without another change, as Core Data's
    /// `versionHashModifier` does.
    public var versionHashModifier: String?
    /// Whether Spotlight indexes the property (Core Data's
    /// `isIndexedBySpotlight`); mrq keeps it for round trips.
    public var isIndexedBySpotlight = false

    init(name: String, isOptional: Bool, isTransient: Bool, userInfo: [String: String]) {
        self.name = name
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.userInfo = userInfo
    }
}

/// An attribute: a typed value of an entity.
///
/// ```swift
/// let age = AttributeDescription(name: "age", type: .integer16, defaultValue: .int(0))
/// ```
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    /// The attribute's type (Core Data's `attributeType`).
    public var type: AttributeType
    /// The value a new object starts with; `.null` for none (Core Data's
    /// `defaultValue`).
    public var defaultValue: Value
    /// The smallest value a save accepts for a number or date, or the
    /// shortest length (`.int`) for a string or binary value; nil for no
    /// minimum.
    public var minValue: Value?
    /// The largest value a save accepts for a number or date, or the longest
    /// length (`.int`) for a string or binary value; nil for no maximum.
    public var maxValue: Value?
    /// A regular expression a string value must match as a whole.
    public var regularExpression: String? {
        didSet { compiledRegularExpression = Self.compile(regularExpression) }
    }
    /// The expression compiled to match a whole string; nil when there is
    /// none or it does not compile.
    private(set) var compiledRegularExpression: NSRegularExpression?
    /// Predicates (format strings) the value must satisfy, each with its
    /// message.
    public var validationPredicates: [(format: String, message: String)] {
        didSet { compiledValidationPredicates = validationPredicates.map { try? Predicates.Predicate(format: $0.format) } }
    }
    /// The validation predicates parsed once; nil for one that does not
    /// parse (reported as failing, with its text).
    private(set) var compiledValidationPredicates: [Predicates.Predicate?] = []
    /// Whether Core Data may keep large values of this binary attribute in
    /// files beside the store (Core Data's
    /// `allowsExternalBinaryDataStorage`). In a store of Core Data's layout
    /// mrq reads such files and writes every value inside the row, in the
    /// form Core Data reads; mrq's own layout always keeps the bytes in the
    /// row.
    public var allowsExternalBinaryDataStorage: Bool = false
    /// Whether persistent history keeps the value once the object is
    /// deleted (Xcode's Preserve After Deletion, `preserveAfterDeletion`).
    /// mrq keeps it for round trips; it counts in Core Data's version hash.
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// Whether the attribute is marked indexed (Xcode's old
    /// `indexed="YES"`; new models use fetch indexes). mrq keeps the mark
    /// for round trips but makes no index of it: declare a fetch index
    /// (``EntityDescription/fetchIndexes``) for one.
    public var isIndexed: Bool = false
    /// The value transformer a `Transformable` attribute names; mrq stores
    /// the value as opaque data and keeps the name for round trips.
    public var valueTransformerName: String?
    /// For a Core Data derived attribute (`NSDerivedAttributeDescription`):
    /// its derivation expression and filtering predicate as Core Data
    /// formats them (`predicateFormat`), concatenated, such as
    /// `count:(pages)`; Core Data computes the value on save. Its version
    /// hash is the SHA-256 of this text alone. nil for a stored attribute,
    /// or when mrq cannot format the expression.
    public var derivation: String?

    /// For a `Composite` attribute: its elements, in order (an element may
    /// be a composite too). Empty for every other type.
    ///
    /// ```swift
    /// let magnitude = AttributeDescription(name: "magnitude", type: .composite)
    /// magnitude.elements = [AttributeDescription(name: "richter", type: .double)]
    /// // stored and fetched as the attribute "magnitude.richter"
    /// ```
    public var elements: [AttributeDescription] = []
    /// The name Xcode gives the composite type (`composite="Address"`), kept
    /// so that writing the model back gives the same file.
    public var compositeName: String?
    /// A composite's elements as the model resolved them into slots
    /// (`resolveComposite(in:)`); empty until then.
    package internal(set) var compositeSlots: [AttributeDescription] = []

    /// What this attribute is stored as: itself, or for a composite the
    /// attributes of its elements.
    package var storedAttributes: [AttributeDescription] {
        type == .composite ? compositeSlots : [self]
    }

    /// An attribute named `name` of `type`, to `add(_:)` to an entity.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: Its type.
    ///   - isOptional: Whether it may be nil when saved.
    ///   - isTransient: Whether it lives in memory only.
    ///   - defaultValue: The value a new object starts with.
    ///   - userInfo: Its user info.
    public init(
        name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
        defaultValue: Value = .null, userInfo: [String: String] = [:]
    ) {
        self.type = type
        self.defaultValue = defaultValue
        self.validationPredicates = []
        super.init(name: name, isOptional: isOptional, isTransient: isTransient, userInfo: userInfo)
    }

    /// The attributes a composite is stored as, one per element that is not
    /// itself a composite, named by their path (`magnitude.richter`,
    /// `address.geo.latitude`) and declared by `entity`. A composite that
    /// is optional makes its elements optional; a transient one makes them
    /// transient.
    func resolveComposite(in entity: EntityDescription) throws -> [AttributeDescription] {
        var leaves: [AttributeDescription] = []
        func flatten(_ composite: AttributeDescription, path: String, optional: Bool, depth: Int) throws {
            // Composites nest a few levels in practice; a hand-built cycle
            // of composites must not recurse for ever.
            guard depth < 64 else { throw ModelError.compositeTooDeep(entity: entity.name, attribute: name) }
            for element in composite.elements {
                let elementPath = path + "." + element.name
                let isOptional = optional || element.isOptional
                if element.type == .composite {
                    try flatten(element, path: elementPath, optional: isOptional, depth: depth + 1)
                } else {
                    guard element.type != .undefined && element.type != .objectID else {
                        throw ModelError.compositeElementType(entity: entity.name, attribute: elementPath, type: element.type)
                    }
                    let leaf = element.copy(named: elementPath)
                    leaf.isOptional = isOptional
                    leaf.isTransient = isTransient || element.isTransient
                    leaf.entity = entity
                    leaves.append(leaf)
                }
            }
        }
        try flatten(self, path: name, optional: isOptional, depth: 0)
        return leaves
    }

    /// A copy of this attribute under another name.
    func copy(named newName: String) -> AttributeDescription {
        let copy = AttributeDescription(
            name: newName, type: type, isOptional: isOptional, isTransient: isTransient,
            defaultValue: defaultValue, userInfo: userInfo)
        copy.minValue = minValue
        copy.maxValue = maxValue
        copy.regularExpression = regularExpression
        copy.validationPredicates = validationPredicates
        copy.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        copy.isIndexed = isIndexed
        copy.valueTransformerName = valueTransformerName
        copy.renamingIdentifier = renamingIdentifier
        copy.versionHashModifier = versionHashModifier
        copy.elements = elements
        copy.compositeName = compositeName
        return copy
    }

    private static func compile(_ pattern: String?) -> NSRegularExpression? {
        guard let pattern else { return nil }
        return try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z")
    }
}

/// A relationship from one entity to another.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    /// The name of the destination entity; the model resolves it into
    /// `destination`.
    public var destinationName: String
    /// The name of the relationship back from the destination, or nil for
    /// none; the model resolves it into `inverse`.
    public var inverseName: String?
    /// Whether the relationship holds any number of destinations rather than
    /// at most one (Core Data's `isToMany`).
    public var isToMany: Bool
    /// Whether a to-many keeps its destinations in order (Core Data's
    /// `isOrdered`, an `NSOrderedSet`).
    public var isOrdered: Bool
    /// What deleting the source does to the destinations (Core Data's
    /// `deleteRule`).
    public var deleteRule: DeleteRule
    /// The fewest objects a to-many must hold (0 for none); a to-one has 0
    /// when optional and 1 when required.
    public var minCount: Int
    /// 0 means unbounded; a to-one has 1.
    public var maxCount: Int
    /// A to-one's `minCount` as its model file states it: old Xcode models
    /// say 1 even for optional to-ones, new ones leave it out (0) even for
    /// required ones. mrq checks a to-one by its optionality (and sets
    /// `minCount` from it); Core Data's version hash counts this number.
    /// nil when the file states none, the model was built in code, or the
    /// relationship is to-many (its `minCount` is the stated one).
    public var declaredMinCount: Int?

    /// The destination entity (Core Data's `destinationEntity`), once the
    /// model has resolved `destinationName`.
    public internal(set) unowned(safe) var destination: EntityDescription?
    /// The relationship back from the destination (Core Data's
    /// `inverseRelationship`), once the model has resolved `inverseName`;
    /// nil for none. Setting one side of a relationship with an inverse sets
    /// the other.
    public internal(set) weak var inverse: RelationshipDescription?
    /// The inverse's name and kind, as the model resolved them: read on
    /// every change of the relationship, where loading the weak `inverse`
    /// costs more than the rest.
    package internal(set) var resolvedInverse: (name: String, isToMany: Bool)?

    /// Whether the relationship holds at most one destination.
    public var isToOne: Bool { !isToMany }
    /// A to-many whose inverse is to-many too (or that has no inverse): stored in a join table.
    public var isManyToMany: Bool { isToMany && (inverse?.isToMany ?? true) }

    /// A relationship named `name` to the entity `destination`, to `add(_:)`
    /// to an entity.
    ///
    /// ```swift
    /// let department = RelationshipDescription(
    ///     name: "department", destination: "Department", inverse: "people")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The relationship's name.
    ///   - destination: The destination entity, by name.
    ///   - inverse: The relationship back from the destination, by name.
    ///   - isToMany: Whether it holds any number of destinations.
    ///   - isOrdered: Whether a to-many keeps them in order.
    ///   - deleteRule: What deleting the source does to the destinations.
    ///   - isOptional: Whether it may be empty when saved.
    ///   - isTransient: Whether it lives in memory only.
    ///   - minCount: The fewest destinations of a to-many.
    ///   - maxCount: The most destinations of a to-many; 0 for no limit.
    ///   - userInfo: Its user info.
    public init(
        name: String, destination: String, inverse: String? = nil, isToMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
        isTransient: Bool = false, minCount: Int = 0, maxCount: Int = 0,
        userInfo: [String: String] = [:]
    ) {
        self.destinationName = destination
        self.inverseName = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        super.init(name: name, isOptional: isOptional, isTransient: isTransient, userInfo: userInfo)
    }
}

/// A fetched property: a predicate-based, read-only to-many.
public final class FetchedPropertyDescription: PropertyDescription, @unchecked Sendable {
    /// The name of the entity whose objects the predicate selects.
    public var destinationName: String
    /// The predicate as its format string; the `Predicates` module parses it.
    public var predicateFormat: String
    /// The name of the fetch request, as Xcode writes it.
    public var fetchRequestName: String = "fetchedPropertyFetchRequest"

    /// A fetched property named `name`: the objects of `destination` that
    /// match `predicate`, a format string. Fetched properties are always
    /// optional and transient.
    public init(name: String, destination: String, predicate: String, userInfo: [String: String] = [:]) {
        self.destinationName = destination
        self.predicateFormat = predicate
        super.init(name: name, isOptional: true, isTransient: true, userInfo: userInfo)
    }
}
