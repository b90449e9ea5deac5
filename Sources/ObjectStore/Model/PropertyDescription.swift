import Foundation
import Predicates

/// What every property of an entity has: a name, optionality, transience
/// and a user-info dictionary.
public class PropertyDescription: @unchecked Sendable {
    public let name: String
    // Properties are set while a model is built and only read once it is
    // frozen, on every save and access: the hot ones skip the runtime's
    // exclusivity bookkeeping.
    @exclusivity(unchecked) public var isOptional: Bool
    @exclusivity(unchecked) public var isTransient: Bool
    public var userInfo: [String: String]
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
    @exclusivity(unchecked) public var type: AttributeType
    @exclusivity(unchecked) public var defaultValue: Value
    @exclusivity(unchecked) public var minValue: Value?
    @exclusivity(unchecked) public var maxValue: Value?
    /// A regular expression a string value must match as a whole.
    @exclusivity(unchecked) public var regularExpression: String? {
        didSet { compiledRegularExpression = Self.compile(regularExpression) }
    }
    /// The expression compiled to match a whole string; nil when there is
    /// none or it does not compile.
    @exclusivity(unchecked) private(set) var compiledRegularExpression: NSRegularExpression?
    /// Predicates (format strings) the value must satisfy, each with its
    /// message.
    @exclusivity(unchecked) public var validationPredicates: [(format: String, message: String)] {
        didSet { compiledValidationPredicates = validationPredicates.map { try? Predicates.Predicate(format: $0.format) } }
    }
    /// The validation predicates parsed once; nil for one that does not
    /// parse (reported as failing, with its text).
    @exclusivity(unchecked) private(set) var compiledValidationPredicates: [Predicates.Predicate?] = []
    public var allowsExternalBinaryDataStorage: Bool = false
    /// Whether the store should index this attribute (Xcode's old
    /// `indexed="YES"`; new models use fetch indexes).
    public var isIndexed: Bool = false
    /// The value transformer a `Transformable` attribute names; mrq stores
    /// the value as opaque data and keeps the name for round trips.
    public var valueTransformerName: String?
    /// Whether persistent history keeps the value of a deleted object
    /// (Core Data's `preservesValueInHistoryOnDeletion`); part of the
    /// attribute's version hash.
    public var preservesValueInHistoryOnDeletion = false

    public init(
        name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
        defaultValue: Value = .null, userInfo: [String: String] = [:]
    ) {
        self.type = type
        self.defaultValue = defaultValue
        self.validationPredicates = []
        super.init(name: name, isOptional: isOptional, isTransient: isTransient, userInfo: userInfo)
    }

    private static func compile(_ pattern: String?) -> NSRegularExpression? {
        guard let pattern else { return nil }
        return try? NSRegularExpression(pattern: "\\A(?:\(pattern))\\z")
    }
}

/// A relationship from one entity to another.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    public var destinationName: String
    public var inverseName: String?
    @exclusivity(unchecked) public var isToMany: Bool
    @exclusivity(unchecked) public var isOrdered: Bool
    @exclusivity(unchecked) public var deleteRule: DeleteRule
    /// The fewest objects a to-many must hold (0 for none); a to-one has 0
    /// when optional and 1 when required.
    @exclusivity(unchecked) public var minCount: Int
    /// 0 means unbounded; a to-one has 1.
    @exclusivity(unchecked) public var maxCount: Int

    public internal(set) unowned(safe) var destination: EntityDescription?
    public internal(set) weak var inverse: RelationshipDescription?
    /// The inverse's name and kind, as the model resolved them: read on
    /// every change of the relationship, where loading the weak `inverse`
    /// costs more than the rest.
    @exclusivity(unchecked) package internal(set) var resolvedInverse: (name: String, isToMany: Bool)?

    public var isToOne: Bool { !isToMany }
    /// A to-many whose inverse is to-many too (or that has no inverse): stored in a join table.
    public var isManyToMany: Bool { isToMany && (inverse?.isToMany ?? true) }

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
    public var destinationName: String
    /// The predicate as its format string; the `Predicates` module parses it.
    public var predicateFormat: String
    /// The name of the fetch request, as Xcode writes it.
    public var fetchRequestName: String = "fetchedPropertyFetchRequest"

    public init(name: String, destination: String, predicate: String, userInfo: [String: String] = [:]) {
        self.destinationName = destination
        self.predicateFormat = predicate
        super.init(name: name, isOptional: true, isTransient: true, userInfo: userInfo)
    }
}
