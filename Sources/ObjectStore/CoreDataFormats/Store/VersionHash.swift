import Foundation

// Core Data's version hashes, as its SQLite store records them in
// Z_METADATA (NSStoreModelVersionHashes, NSStoreModelVersionHashesVersion 3).
// Every number below is little-endian, as Core Data hashes its own memory.
//
// property   = SHA-256(name · flags as UInt16 (1 optional, 2 transient,
//              4 read-only) · versionHashModifier)
// attribute  = SHA-256(property · NSAttributeType as UInt32
//              · 0x01 if it allows external storage
//              · 0x01 if it preserves its value in history on deletion)
// derived attribute = SHA-256(the derivation expression's predicateFormat
//              · the filtering predicate's, if any): nothing else, not even
//              the name (CoreDataPlus's `pagesCount`, `count:(pages)`)
// relationship = SHA-256(property · destination name
//              · inverse name, unless the relationship is its own inverse
//              · maxCount as UInt32 · minCount as UInt32 · 0x01 0x00 if ordered)
// entity     = SHA-256(name · 0x01 or 0x00 for abstract · the parent's hash
//              · the hash of every stored attribute and relationship,
//                inherited ones too, in name order
//              · versionHashModifier
//              · each uniqueness constraint, its names joined by ".",
//                in order)
//
// Names are UTF-8 without a terminator; an absent string adds nothing.
// Transient properties and fetched properties stay out of the entity hash;
// delete rules, user info, defaults, validation, class names, indexes and
// renaming identifiers stay out of every hash.

extension AttributeType {
    /// Core Data's `NSAttributeType` number for this type: 100 for
    /// Integer 16 up to 2000 for ObjectID.
    ///
    /// ```swift
    /// AttributeType.string.coreDataAttributeType   // 700
    /// ```
    public var coreDataAttributeType: Int {
        switch self {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .undefined: 0
        case .composite: 2100
        }
    }

    /// The type Core Data numbers `code`; nil for a number mrq does not
    /// model (2200 codable) or knows nothing of.
    ///
    /// ```swift
    /// AttributeType(coreDataAttributeType: 900)   // .date
    /// ```
    public init?(coreDataAttributeType code: Int) {
        guard let type = Self.allCases.first(where: { $0.coreDataAttributeType == code }) else { return nil }
        self = type
    }
}

extension PropertyDescription {
    /// Core Data's version hash of this property: 32 bytes of SHA-256 over
    /// what makes it persist differently (name, optionality, transience,
    /// version hash modifier; the attribute type; a relationship's
    /// destination, inverse, counts and ordering).
    ///
    /// ```swift
    /// person.attribute(named: "name")?.versionHash.count   // 32
    /// ```
    ///
    /// User info, default values, validation rules, delete rules and
    /// renaming identifiers do not count.
    public var versionHash: Data {
        var hasher = VersionHasher()
        return Data(hasher.hash(self))
    }
}

extension EntityDescription {
    /// Core Data's version hash of this entity, as a Core Data store
    /// records it in its metadata: 32 bytes of SHA-256 over its name,
    /// abstractness, parent's hash, the hashes of its stored attributes
    /// and relationships (inherited ones too, in name order), its version
    /// hash modifier and its uniqueness constraints.
    ///
    /// ```swift
    /// let hash = model.entity(named: "Person")?.versionHash
    /// ```
    ///
    /// Read it once the entity belongs to a model: the parent is known
    /// only then. Declaration order, user info, class name, indexes and
    /// transient or fetched properties do not count.
    public var versionHash: Data {
        var hasher = VersionHasher()
        return Data(hasher.hash(self))
    }
}

extension ManagedObjectModel {
    /// Every entity's version hash by entity name: a Core Data store's
    /// `NSStoreModelVersionHashes`.
    ///
    /// ```swift
    /// model.entityVersionHashesByName["Person"]   // 32 bytes
    /// ```
    public var entityVersionHashesByName: [String: Data] {
        var hasher = VersionHasher(entities: entities)
        var hashes: [String: Data] = [:]
        hashes.reserveCapacity(entities.count)
        for entity in entities {
            hashes[entity.name] = Data(hasher.hash(entity))
        }
        return hashes
    }

    /// The SHA-512 digest of `entityVersionHashesByName` (64 bytes): a
    /// Core Data store's `NSStoreModelVersionHashesDigest` holds its
    /// base64 text.
    ///
    /// ```swift
    /// model.versionHashesDigest.base64EncodedString()
    /// ```
    public var versionHashesDigest: Data {
        CoreDataMetadata.versionHashesDigest(of: entityVersionHashesByName)
    }
}

/// Computes version hashes, remembering each entity's and property's so that
/// deep inheritance chains hash every ancestor once.
struct VersionHasher {
    private var entityHashes: [ObjectIdentifier: [UInt8]] = [:]
    private var propertyHashes: [ObjectIdentifier: [UInt8]] = [:]

    init() {}

    /// A hasher for `entities`, its tables sized for them (a big model's
    /// thousands of properties would otherwise regrow them a dozen times).
    init(entities: [EntityDescription]) {
        entityHashes.reserveCapacity(entities.count)
        propertyHashes.reserveCapacity(entities.reduce(0) { $0 + $1.declaredProperties.count })
    }

    mutating func hash(_ entity: EntityDescription) -> [UInt8] {
        if let known = entityHashes[ObjectIdentifier(entity)] { return known }
        // Parents first, by a loop: a chain may be thousands of entities
        // deep, too deep to recurse.
        var chain: [EntityDescription] = []
        var next: EntityDescription? = entity
        while let e = next, entityHashes[ObjectIdentifier(e)] == nil {
            chain.append(e)
            next = e.parent
        }
        var last: [UInt8] = []
        for e in chain.reversed() {
            last = entityHash(e)
            entityHashes[ObjectIdentifier(e)] = last
        }
        return last
    }

    private mutating func entityHash(_ entity: EntityDescription) -> [UInt8] {
        var bytes = Array(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.parent, let parentHash = entityHashes[ObjectIdentifier(parent)] {
            bytes += parentHash
        }
        // Each name's UTF-16 once, not at every comparison of the sort.
        var properties: [(name: [UInt16], property: PropertyDescription)] = []
        var owner: EntityDescription? = entity
        while let e = owner {
            for property in e.declaredProperties
            where (property is AttributeDescription || property is RelationshipDescription) && !property.isTransient {
                properties.append((Array(property.name.utf16), property))
            }
            owner = e.parent
        }
        properties.sort { $0.name.lexicographicallyPrecedes($1.name) }
        for (_, property) in properties {
            bytes += hash(property)
        }
        bytes += (entity.versionHashModifier ?? "").utf8
        let constraints = entity.uniquenessConstraints.map { $0.joined(separator: ".") }
        for constraint in constraints.sorted(by: Self.precedes) {
            bytes += constraint.utf8
        }
        return sha256(bytes)
    }

    mutating func hash(_ property: PropertyDescription) -> [UInt8] {
        if let known = propertyHashes[ObjectIdentifier(property)] { return known }
        // Core Data does not mark a fetched property transient; mrq does.
        let isTransient = property.isTransient && !(property is FetchedPropertyDescription)
        // Bit 4 is read-only, which only Core Data's derived attributes
        // (hashed apart, below) and fetched properties are.
        let flags: UInt16 = (property.isOptional ? 1 : 0) | (isTransient ? 2 : 0)
        var base = Array(property.name.utf8)
        Self.appendLittleEndian(flags, to: &base)
        base += (property.versionHashModifier ?? "").utf8
        var bytes = sha256(base)
        switch property {
        case let attribute as AttributeDescription where attribute.derivation != nil:
            // A derived attribute (NSDerivedAttributeDescription) hashes
            // its derivation's text only: Core Data computes the plain
            // attribute's hash and then leaves it out.
            bytes = sha256(Array((attribute.derivation ?? "").utf8))
        case let attribute as AttributeDescription:
            Self.appendLittleEndian(UInt32(attribute.type.coreDataAttributeType), to: &bytes)
            if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
            if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
            bytes = sha256(bytes)
        case let relationship as RelationshipDescription:
            bytes += relationship.destinationName.utf8
            if let inverse = relationship.inverseName, !Self.isOwnInverse(relationship) {
                bytes += inverse.utf8
            }
            let maxCount = relationship.isToMany ? relationship.maxCount : 1
            let minCount = relationship.isToMany ? relationship.minCount : relationship.declaredMinCount ?? 0
            Self.appendLittleEndian(UInt32(truncatingIfNeeded: maxCount), to: &bytes)
            Self.appendLittleEndian(UInt32(truncatingIfNeeded: minCount), to: &bytes)
            if relationship.isOrdered { bytes += [1, 0] }
            bytes = sha256(bytes)
        default:
            break  // a fetched property hashes as a plain property
        }
        propertyHashes[ObjectIdentifier(property)] = bytes
        return bytes
    }

    private static func isOwnInverse(_ relationship: RelationshipDescription) -> Bool {
        if let inverse = relationship.inverse { return inverse === relationship }
        // Not resolved yet: judge by the names.
        return relationship.inverseName == relationship.name
            && relationship.destinationName == relationship.entity?.name
    }

    /// Core Data sorts names with `compare:`, by UTF-16 code units.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// Appends `value`'s bytes, least significant first.
    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: T.bitWidth, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
