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
    /// Whether persistent history keeps the value once the object is
    /// deleted (Xcode's Preserve After Deletion, `preserveAfterDeletion`).
    /// mrq keeps it for round trips; it counts in Core Data's version hash.
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// Whether the store should index this attribute (Xcode's old
    /// `indexed="YES"`; new models use fetch indexes).
    public var isIndexed: Bool = false
    /// The value transformer a `Transformable` attribute names; mrq stores
    /// the value as opaque data and keeps the name for round trips.
    public var valueTransformerName: String?

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
    @exclusivity(unchecked) package internal(set) var compositeSlots: [AttributeDescription] = []

    /// What this attribute is stored as: itself, or for a composite the
    /// attributes of its elements.
    package var storedAttributes: [AttributeDescription] {
        type == .composite ? compositeSlots : [self]
    }

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
    /// A to-one's `minCount` as its model file states it: old Xcode models
    /// say 1 even for optional to-ones, new ones leave it out (0) even for
    /// required ones. mrq checks a to-one by its optionality (and sets
    /// `minCount` from it); Core Data's version hash counts this number.
    /// nil when the file states none, the model was built in code, or the
    /// relationship is to-many (its `minCount` is the stated one).
    public var declaredMinCount: Int?

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
