import Foundation
import Predicates

/// Reads an archived `NSManagedObjectModel` (a model cache, a compiled
/// `.mom`) into mrq's entity descriptions.
///
/// What the archives hold, learnt from the nine model caches of plaso's
/// test stores (written by Core Data 851 to 1145, macOS 10.13 to iOS 16)
/// and from Core Data's `encodeWithCoder:` methods:
///
/// - NSManagedObjectModel: `NSEntities` (an NSKnownKeysDictionary1, a
///   private dictionary whose `searchMapping.keys` are the entity names,
///   sorted, and whose `values` array holds the entities in the same
///   order; a model with no entities has a plain NSMutableDictionary),
///   `NSConfigurations` (name → NSSet of entities, only when the model has
///   configurations), `NSFetchRequestTemplates` (name → NSFetchRequest, or
///   nil), `NSVersionIdentifiers` (NSSet of strings; `""` when the model
///   sets none).
/// - NSEntityDescription: `NSEntityName`, `NSClassNameForEntity`,
///   `NSIsAbstract` (only when true), `NSManagedObjectModel`,
///   `NSSuperentity`, `NSSubentities` (name → entity, or nil),
///   `NSProperties` (name → property), `NSUserInfo`,
///   `NSVersionHashModifier`, `NSRenamingIdentifier` (the name when none
///   was set), `NSUniqueTuples` (arrays of property names),
///   `NSFetchIndexDescriptions` and `NSCompoundIndexes` (the fetch indexes
///   again, as arrays of names, for those Core Data can also express as
///   old-style compound indexes).
/// - A sub-entity's `NSProperties` holds its inherited properties too:
///   either as `_NSPropertyDescriptionProxy` objects pointing at the
///   parent's property (`NSUnderlyingProperty`, `NSEntityDescription`,
///   `NSReferenceID`: the property's index in Core Data's order), as
///   knowledgeC's and netusage's caches do, or as copies whose `NSEntity`
///   is the sub-entity, as NoteStore's and RMAdminStore's do. Either way
///   they are the parent's, and skipped here.
/// - NSPropertyDescription: `NSPropertyName`, `NSEntity`,
///   `NSRenamingIdentifier` (the name when none was set), `NSUserInfo`,
///   `NSVersionHashModifier`, `NSValidationPredicates` with
///   `NSValidationWarnings`, the flags `NSIsOptional`, `NSIsTransient`,
///   `NSIsReadOnly`, `NSIndexedBySpotlight`, `NSIsStoredInTruth`,
///   `NSIsOrdered`, `NSAllowsCloudEncryption` (each written only when
///   true), and `_P`, the same flags packed, which Core Data reads instead
///   of them when it is not 0. `_P`'s bits, confirmed on the caches
///   (243 = an optional property with nothing else; 241 = required; 179 =
///   optional with user info; 251 = optional transient; 499 = optional,
///   Spotlight-indexed; 1267 = optional ordered):
///
///   | bit | meaning |
///   |---|---|
///   | 0x001 | always set: the flags are packed |
///   | 0x002 | optional |
///   | 0x004 | read-only |
///   | 0x008 | transient |
///   | 0x010 | no `NSValidationPredicates` |
///   | 0x020 | no `NSValidationWarnings` |
///   | 0x040 | no `NSUserInfo` |
///   | 0x080 | no `NSVersionHashModifier` |
///   | 0x100 | indexed by Spotlight |
///   | 0x200 | stored in an external record ("truth") |
///   | 0x400 | ordered (a relationship) |
///   | 0x800 | allows cloud encryption |
///
///   As Core Data does, this reader does not look for a key `_P` says is
///   absent (user info, version hash modifier, validation predicates).
/// - NSAttributeDescription: `NSAttributeType`, `NSAttributeValueClassName`,
///   `NSDefaultValue`, `NSValueTransformerName`, `NSIsIndexed` (only when
///   true) and `NSFlagsKey`: 0x4 allows external binary storage, 0x10
///   preserves the value in history on deletion (16 in 39 attributes of
///   the caches), 0x20 file-backed future; 0x1 and 0x2 say an old archive
///   has `NSMaxValueName` and `NSMinValueName`. Minimum and maximum live in
///   the validation predicates: `SELF >= 0` with warning 1620 is a minimum
///   (NoteStore's and RMAdminStore's caches hold exactly that),
///   `length >= n` for strings, `timeIntervalSinceReferenceDate >= t` for
///   dates, `<=` for maxima.
/// - NSRelationshipDescription: `NSMaxCount` (1 for a to-one, 0 unbounded),
///   `NSMinCount`, `NSDeleteRule`, `NSDestinationEntity` and
///   `_NSDestinationEntityName`, `NSInverseRelationship` and
///   `_NSInverseRelationshipName`.
/// - NSFetchedPropertyDescription: `NSFetchRequest` and
///   `_NSFetchRequestEntityName`.
///
/// What Core Data wrote is valid: counts past Int64 (NSUIntegerMax for "no
/// bound") and user info of any property-list type are kept, fetch index
/// elements over expressions kept as expressions, composites read with
/// their elements, an attribute type this reader does not know read as
/// Transformable. A property class, a predicate (validation rule, fetched
/// property, template) or a default value mrq does not know is left out,
/// and the model still reads. Only what cannot be read at all (damage,
/// cycles, the bounds of `ArchiveWork`) throws, naming the object and key.
struct CoreDataModelDecoder {
    let archive: KeyedArchive
    /// Entity UID → name.
    private var entityNames: [Int: String] = [:]

    struct Result {
        var entities: [EntityDescription]
        var configurations: [String: [String]]
        var versionIdentifier: String?
        /// The fetch request templates, still to be read: a model reads
        /// them when they are first asked for.
        var templates: PendingTemplates
    }

    init(_ archive: KeyedArchive) { self.archive = archive }

    /// How deep composites may nest in composites.
    static let maximumCompositeDepth = 16

    mutating func decode() throws -> Result {
        let root = try archive.object(at: archive.topReference())
        guard root.classes.contains("NSManagedObjectModel") else {
            throw KeyedArchiveError("the archive holds an \(root.className), not an NSManagedObjectModel")
        }
        var entityObjects: [KeyedObject] = []
        for (key, value) in try root.dictionary("NSEntities") {
            guard let name = try archive.value(at: key).string else {
                throw root.error("NSEntities", "the key object \(key) is not a string")
            }
            let entity = try archive.object(at: value)
            guard entity.classes.contains("NSEntityDescription") else {
                throw root.error("NSEntities", "the value for '\(name)' is an \(entity.className)")
            }
            guard try entity.string("NSEntityName") == name else {
                throw entity.error("NSEntityName", "does not match its key '\(name)' in NSEntities")
            }
            guard entityNames[entity.index] == nil else {
                throw root.error("NSEntities", "entity '\(name)' is listed twice")
            }
            entityNames[entity.index] = name
            entityObjects.append(entity)
        }
        let entities = try entityObjects.map(entity)
        return Result(
            entities: entities, configurations: try configurations(root), versionIdentifier: try versionIdentifier(root),
            templates: PendingTemplates(decoder: self, entries: try root.dictionary("NSFetchRequestTemplates"), root: root))
    }

    /// The name of the entity an object points at through `key`; nil when
    /// the field is absent or nil.
    private func entityName(_ object: KeyedObject, _ key: FieldKey) throws -> String? {
        guard let uid = try object.reference(key) else { return nil }
        guard let name = entityNames[uid] else {
            throw object.error(key, "object \(uid) is not one of the model's entities")
        }
        return name
    }

    /// `NSUserInfo`: a dictionary of any property-list values. Strings,
    /// numbers and booleans go to `userInfo` as text (what MagicalRecord's
    /// import reads); arrays, dictionaries, data, dates and the rest are
    /// kept as they are. An entry holding an object of a class that is no
    /// value (a custom class archived by code) is left out: it says
    /// nothing mrq could use, and the store opens.
    private func userInfo(_ object: KeyedObject) throws -> (strings: [String: String], others: [String: UserInfoValue]) {
        var strings: [String: String] = [:], others: [String: UserInfoValue] = [:]
        guard try object.reference(.userInfo) != nil else { return ([:], [:]) }
        for (keyUID, valueUID) in try object.dictionary(.userInfo) {
            let key = try archive.value(at: keyUID)
            guard let name = key.string else { throw object.error(.userInfo, "a key is \(key.kind), not a string") }
            let read: ArchivedValue?
            do {
                read = try known { try archive.value(at: valueUID) }
            } catch let error as KeyedArchiveError {
                throw object.error(.userInfo, "the value of '\(name)': \(error.description)")
            }
            guard let value = read else { continue }
            switch value {
            case .string(let s): strings[name] = s
            case .int(let n): strings[name] = String(n)
            case .double(let d): strings[name] = String(d)
            case .bool(let b): strings[name] = b ? "YES" : "NO"
            default: others[name] = try userInfoValue(value, object)
            }
        }
        return (strings, others)
    }

    private func userInfoValue(_ value: ArchivedValue, _ object: KeyedObject) throws -> UserInfoValue {
        switch value {
        case .array(let items): return .array(try items.map { try userInfoValue($0, object) })
        case .set(let items): return .set(try items.map { try userInfoValue($0, object) })
        case .dictionary(let pairs):
            var entries: [String: UserInfoValue] = [:]
            for (key, item) in pairs {
                // A key that is no string (code may use numbers) is kept by its text.
                let name = try key.string ?? userInfoValue(key, object).text
                entries[name] = try userInfoValue(item, object)
            }
            return .dictionary(entries)
        default:
            return .value(try ArchivedValues.value(value, in: object, key: "NSUserInfo"))
        }
    }

    /// What `body` reads; nil when the archive is sound but holds what
    /// mrq does not know there (`KeyedArchiveError.isUnknown`). Damage,
    /// cycles and the archive's bounds still throw.
    private func known<T>(_ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch let error as KeyedArchiveError where error.isUnknown {
            return nil
        }
    }

    /// The object a field points at, when it holds a UID of one; nil when
    /// it holds anything else (a number, a flag, `$null`).
    private func referencedObject(_ object: KeyedObject, _ key: FieldKey) throws -> KeyedObject? {
        guard case .uid? = try object.fields[key], let uid = try object.reference(key) else { return nil }
        return try archive.instance(at: uid)
    }

    /// Whether a field points at an instance of a class that is neither a
    /// value nor a collection (an object archived by an app's code).
    private func holdsInstance(_ object: KeyedObject, _ key: FieldKey) throws -> Bool {
        guard let target = try referencedObject(object, key) else { return false }
        return try target.scalarValue() == nil && !target.isCollection
    }

    // MARK: Entities

    private func entity(_ object: KeyedObject) throws -> EntityDescription {
        guard let name = try object.string("NSEntityName") else { throw object.error("NSEntityName", "missing") }
        let info = try userInfo(object)
        let entity = EntityDescription(
            name: name, isAbstract: try object.bool("NSIsAbstract") ?? false,
            parent: try entityName(object, .superentity), userInfo: info.strings)
        entity.otherUserInfo = info.others
        entity.className = try object.string("NSClassNameForEntity")
        entity.renamingIdentifier = try object.string(.renamingIdentifier).flatMap { $0 == name ? nil : $0 }
        entity.versionHashModifier = try object.string(.versionHashModifier).flatMap { $0.isEmpty ? nil : $0 }
        entity.uniquenessConstraints = try uniquenessConstraints(object)
        let (properties, listed) = try properties(object)
        for property in properties { entity.add(property) }
        entity.fetchIndexes = try fetchIndexes(object, entity: entity, listed: listed)
        return entity
    }

    /// The entity's own properties, in Core Data's order: attributes,
    /// to-one relationships, to-many relationships, fetched properties,
    /// each by name (the archive's dictionary has no order of its own).
    /// Also returns every name `NSProperties` lists, inherited ones too.
    private func properties(_ object: KeyedObject) throws -> ([PropertyDescription], listed: [String]) {
        var inherited: Set<String> = []
        if let parent = try object.object(.superentity) {
            for (key, _) in try parent.dictionary(.properties) {
                if let name = try archive.value(at: key).string { inherited.insert(name) }
            }
        }
        var result: [PropertyDescription] = []
        var listed: [String] = []
        for (key, value) in try object.dictionary(.properties) {
            guard let name = try archive.value(at: key).string else {
                throw object.error(.properties, "the key object \(key) is not a string")
            }
            listed.append(name)
            let property = try archive.object(at: value)
            if property.className == "_NSPropertyDescriptionProxy" || inherited.contains(name) { continue }
            guard try property.string(.propertyName) == name else {
                throw property.error(.propertyName, "does not match its key '\(name)' in NSProperties")
            }
            guard try property.reference(.entity) == object.index else {
                throw property.error(.entity, "is not the entity that lists the property (object \(object.index))")
            }
            if let decoded = try self.property(property, name: name) { result.append(decoded) }
        }
        func rank(_ p: PropertyDescription) -> Int {
            switch p {
            case is AttributeDescription: 0
            case let r as RelationshipDescription: r.isToMany ? 2 : 1
            default: 3
            }
        }
        return (result.sorted { (rank($0), $0.name) < (rank($1), $1.name) }, listed)
    }

    /// The property an archived description stands for; nil for a class
    /// this reader does not know (a newer Core Data's) or a fetched property
    /// whose request it cannot read: left out, so the store still opens.
    private func property(_ object: KeyedObject, name: String, depth: Int = 0) throws -> PropertyDescription? {
        let packed = try object.int(.packedFlags) ?? 0
        func flag(_ bit: Int, _ key: FieldKey) throws -> Bool {
            packed != 0 ? packed & bit != 0 : try object.bool(key) ?? false
        }
        // Core Data reads `_P` instead of the keys it packs: where a bit
        // says a key is absent, the key is not looked for (a look for a
        // key an object lacks reads all its fields).
        func absent(_ bit: Int) -> Bool { packed != 0 && packed & bit != 0 }
        let isOptional = try flag(0x2, .isOptional)
        let isTransient = try flag(0x8, .isTransient)
        let property: PropertyDescription?
        if object.classes.contains("NSAttributeDescription") {
            property = try attribute(object, name: name, isOptional: isOptional, isTransient: isTransient,
                                     validated: !absent(0x10), depth: depth)
        } else if object.classes.contains("NSRelationshipDescription") {
            property = try relationship(object, name: name, isOptional: isOptional, isTransient: isTransient,
                                        isOrdered: try flag(0x400, .isOrdered))
        } else if object.classes.contains("NSFetchedPropertyDescription") {
            property = try fetchedProperty(object, name: name, isOptional: isOptional)
        } else {
            property = nil
        }
        guard let property else { return nil }
        if !absent(0x40) { (property.userInfo, property.otherUserInfo) = try userInfo(object) }
        if !absent(0x80) {
            property.versionHashModifier = try object.string(.versionHashModifier).flatMap { $0.isEmpty ? nil : $0 }
        }
        property.renamingIdentifier = try object.string(.renamingIdentifier).flatMap { $0 == name ? nil : $0 }
        property.isIndexedBySpotlight = try flag(0x100, .indexedBySpotlight)
        return property
    }

    /// `validated`: whether the attribute may have validation predicates
    /// (`_P` says when it has none).
    private func attribute(_ object: KeyedObject, name: String, isOptional: Bool, isTransient: Bool,
                           validated: Bool = true, depth: Int) throws -> AttributeDescription {
        let code = try object.int(.attributeType) ?? 0
        // A type this reader does not know (a newer Core Data's, such as
        // 2200) is read as Transformable: its column reads as whatever it
        // holds.
        let type = CoreDataCodes.attributeType(code) ?? .transformable
        let attribute = AttributeDescription(name: name, type: type, isOptional: isOptional, isTransient: isTransient)
        if type == .composite { attribute.elements = try compositeElements(object, depth: depth + 1) }
        // A default that is no single value of the type (a Transformable's
        // archived object, an array) is left out.
        if try !holdsInstance(object, .defaultValue), let stored = try object.value(.defaultValue) {
            attribute.defaultValue = try known {
                let value = try ArchivedValues.value(stored, in: object, key: "NSDefaultValue")
                return try ArchivedValues.value(value, as: type, in: object, key: "NSDefaultValue")
            } ?? .null
        }
        attribute.valueTransformerName = try object.string(.valueTransformerName)
        attribute.isIndexed = try object.bool(.isIndexed) ?? false
        let flags = try object.int(.flags) ?? 0
        attribute.allowsExternalBinaryDataStorage = flags & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        if flags & 0x1 != 0 { attribute.maxValue = try oldBound(object, "NSMaxValueName", type) }
        if flags & 0x2 != 0 { attribute.minValue = try oldBound(object, "NSMinValueName", type) }
        if validated { try readValidation(object, into: attribute) }
        if object.classes.contains("NSDerivedAttributeDescription") {
            attribute.derivation = derivation(object)
        }
        return attribute
    }

    /// A derived attribute's expression and filtering predicate as Core
    /// Data's `predicateFormat` writes them, which its version hash covers;
    /// nil for an expression this reader cannot format (the hash then
    /// differs from the store's, and the store still opens).
    private func derivation(_ object: KeyedObject) -> String? {
        // What is not understood here is left out, never refused.
        let filter: KeyedObject?, expression: KeyedObject?
        do {
            filter = try object.object("NSFilteringPredicate")
            expression = try object.object("NSDerivationExpression")
        } catch {
            return nil
        }
        guard filter == nil, let expression else { return nil }
        return try? Self.predicateFormat(expression, depth: 0)
    }

    /// `predicateFormat` of the expressions derived attributes use: key
    /// paths (`name`, `author.name`) and the built-in functions over them
    /// (`count:(pages)`, `lowercase:(name)`, `now()`); nil for others.
    private static func predicateFormat(_ object: KeyedObject, depth: Int) throws -> String? {
        guard depth <= KeyedArchive.maximumDepth else { return nil }
        switch object.className {
        case "NSKeyPathExpression":
            let arguments = try object.elements("NSArguments")
            guard arguments.count == 1 else { return nil }
            let specifier = try object.archive.object(at: arguments[0])
            guard try object.object("NSOperand")?.className == "NSSelfExpression" else { return nil }
            return try specifier.string("NSKeyPath")
        case "NSKeyPathSpecifierExpression":
            return try object.string("NSKeyPath")
        case "NSFunctionExpression":
            guard let selector = try object.string("NSSelectorName"),
                  let operand = try object.object("NSOperand"), operand.className == "NSConstantValueExpression",
                  try operand.string("NSConstantValueClassName") == "_NSPredicateUtilities" else { return nil }
            var arguments: [String] = []
            for uid in try object.elements("NSArguments") {
                guard let argument = try predicateFormat(try object.archive.object(at: uid), depth: depth + 1) else { return nil }
                arguments.append(argument)
            }
            return "\(selector)(\(arguments.joined(separator: ", ")))"
        default:
            return nil
        }
    }

    /// A composite's elements (NSCompositeAttributeDescription, macOS 14):
    /// the attribute descriptions of the array it keeps, under whichever
    /// key holds one.
    private func compositeElements(_ object: KeyedObject, depth: Int) throws -> [AttributeDescription] {
        guard depth <= Self.maximumCompositeDepth else {
            throw object.error(.attributeType, "composites nest more than \(Self.maximumCompositeDepth) deep")
        }
        for key in try object.keys.sorted() {
            guard let list = try referencedObject(object, FieldKey(key)) else { continue }
            guard list.classes.contains("NSArray"), !list.isDictionary else { continue }
            let items = try list.collectionElements().map { try archive.object(at: $0) }
            guard !items.isEmpty, items.allSatisfy({ $0.classes.contains("NSAttributeDescription") }) else { continue }
            return try items.compactMap { item in
                guard let name = try item.string(.propertyName) else { throw item.error(.propertyName, "missing") }
                return try property(item, name: name, depth: depth) as? AttributeDescription
            }
        }
        return []
    }

    /// `NSMinValueName` and `NSMaxValueName`: integers for integer and
    /// string types, reals (seconds for dates) for the others.
    private func oldBound(_ object: KeyedObject, _ key: FieldKey, _ type: AttributeType) throws -> Value? {
        switch type {
        case .integer16, .integer32, .integer64, .string, .binary:
            return try object.int(key).map { .int(Int64($0)) }
        case .date:
            return try object.double(key).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .decimal:
            return try object.double(key).map { .decimal(Decimal($0)) }
        default:
            return try object.double(key).map(Value.double)
        }
    }

    /// Sorts the validation predicates into minimum, maximum, regular
    /// expression and the rest: a predicate with a numeric warning in one
    /// of the shapes Core Data makes from Xcode's minimum and maximum
    /// (`SELF >= n`, `length <= n`, `timeIntervalSinceReferenceDate >= t`)
    /// is a bound, `SELF MATCHES "…"` with warning 1680 the regular
    /// expression; a predicate with a text warning is a validation
    /// predicate with its message. A numeric warning on any other predicate
    /// has no message in mrq: it is kept with an empty one.
    private func readValidation(_ object: KeyedObject, into attribute: AttributeDescription) throws {
        let predicates = try object.elements(.validationPredicates)
        let warnings = try object.elements(.validationWarnings)
        var rules: [(format: String, message: String)] = []
        // A predicate with no warning has an empty one; a predicate mrq
        // cannot read (a custom selector, a block) is left out: validation
        // matters to saves, not to reading the store.
        for (offset, predicateUID) in predicates.enumerated() {
            guard let predicate = try known({ try PredicateArchive.predicate(try archive.object(at: predicateUID)) }) else { continue }
            let warning = offset < warnings.count ? try archive.value(at: warnings[offset]) : .string("")
            switch warning {
            case .int(let code):
                if try !absorb(predicate, code: code, into: attribute, object) {
                    rules.append((predicate.format, ""))
                }
            case .string(let message):
                rules.append((predicate.format, message))
            default:
                rules.append((predicate.format, ""))
            }
        }
        attribute.validationPredicates = rules
    }

    /// Takes a bound or regular expression out of a validation predicate;
    /// false when the predicate is neither.
    private func absorb(_ predicate: Predicates.Predicate, code: Int64, into attribute: AttributeDescription, _ object: KeyedObject) throws -> Bool {
        guard case .comparison(let c) = predicate.kind, c.modifier == .direct, c.options.isEmpty,
            case .constant(let constant) = c.rhs.kind
        else { return false }
        if c.op == .matches, code == 1680, case .evaluatedObject = c.lhs.kind, case .string(let pattern) = constant {
            attribute.regularExpression = pattern
            return true
        }
        guard c.op == .greaterEqual || c.op == .lessEqual else { return false }
        let bound: Value
        switch attribute.type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal:
            guard case .evaluatedObject = c.lhs.kind else { return false }
            guard let value = try? ArchivedValues.value(constant, as: attribute.type, in: object, key: "NSValidationPredicates") else { return false }
            bound = value
        case .string, .binary:
            guard c.lhs.keyPathComponents == ["length"],
                let value = try? ArchivedValues.value(constant, as: .integer64, in: object, key: "NSValidationPredicates")
            else { return false }
            bound = value
        case .date:
            guard c.lhs.keyPathComponents == ["timeIntervalSinceReferenceDate"],
                let value = try? ArchivedValues.value(constant, as: .date, in: object, key: "NSValidationPredicates")
            else { return false }
            bound = value
        default:
            return false
        }
        if c.op == .greaterEqual {
            guard attribute.minValue == nil else { return false }
            attribute.minValue = bound
        } else {
            guard attribute.maxValue == nil else { return false }
            attribute.maxValue = bound
        }
        return true
    }

    private func relationship(_ object: KeyedObject, name: String, isOptional: Bool, isTransient: Bool, isOrdered: Bool) throws -> RelationshipDescription {
        let destination: String
        if let viaObject = try entityName(object, .destinationEntity) {
            if let named = try object.string(.destinationEntityName), named != viaObject {
                throw object.error(.destinationEntityName, "'\(named)' but NSDestinationEntity is '\(viaObject)'")
            }
            destination = viaObject
        } else if let named = try object.string(.destinationEntityName) {
            destination = named
        } else {
            throw object.error(.destinationEntity, "relationship '\(name)' has no destination")
        }
        var inverse: String?
        if let inverseObject = try object.object(.inverseRelationship) {
            guard inverseObject.classes.contains("NSRelationshipDescription") else {
                throw object.error(.inverseRelationship, "object \(inverseObject.index) is an \(inverseObject.className)")
            }
            inverse = try inverseObject.string(.propertyName)
        } else {
            inverse = try object.string(.inverseRelationshipName)
        }
        // Counts are NSUIntegers, kept as the file states them: a count
        // past Int64.max (NSUIntegerMax for "no limit") is its bit
        // pattern, -1, which every check reads as no bound and the
        // version hash truncates as Core Data does.
        let maxCount = try count(object, .maxCount)
        let minCount = try count(object, .minCount)
        // A rule this reader does not know is Core Data's default, nullify.
        let rule = CoreDataCodes.deleteRule(try object.int(.deleteRule) ?? 1) ?? .nullify
        // Core Data's `isToMany` is `maxCount != 1`: 0 is unbounded.
        let isToMany = maxCount != 1
        let relationship = RelationshipDescription(
            name: name, destination: destination, inverse: inverse, isToMany: isToMany, isOrdered: isOrdered,
            deleteRule: rule, isOptional: isOptional, isTransient: isTransient,
            minCount: isToMany ? minCount : 0, maxCount: isToMany ? maxCount : 1)
        // A to-one's count as the file states it (the version hash counts
        // it); none stands for 0, as in an Xcode model.
        if !isToMany && minCount != 0 { relationship.declaredMinCount = minCount }
        return relationship
    }

    /// An `NSUInteger` count field, 0 when absent.
    private func count(_ object: KeyedObject, _ key: FieldKey) throws -> Int {
        if case .double(let real)? = try object.value(key), real >= 0x1p63, real.rounded() == real {
            return real >= 0x1p64 ? -1 : Int(truncatingIfNeeded: UInt64(real))
        }
        return try object.int(key) ?? 0
    }

    /// nil when the request is missing or mrq cannot read it (a predicate
    /// it does not know): a fetched property is computed, never stored.
    private func fetchedProperty(_ object: KeyedObject, name: String, isOptional: Bool) throws -> FetchedPropertyDescription? {
        guard let request = try object.object("NSFetchRequest"),
              let template = try known({ try fetchRequest(request, name: name, fallbackEntity: try object.string("_NSFetchRequestEntityName")) })
        else { return nil }
        let fetched = FetchedPropertyDescription(name: name, destination: template.entityName, predicate: template.predicateFormat)
        fetched.isOptional = isOptional
        return fetched
    }

    /// An NSFetchRequest's entity and predicate: `NSEntity` is the entity
    /// (or, for a request made by name, its name), `NSPredicate` an
    /// archived NSPredicate or nil.
    private func fetchRequest(_ request: KeyedObject, name: String, fallbackEntity: String? = nil) throws -> ArchivedFetchRequestTemplate {
        let decoded = try decodedFetchRequest(request, name: name, fallbackEntity: fallbackEntity)
        return ArchivedFetchRequestTemplate(name: name, entityName: decoded.entityName,
                                            predicateFormat: decoded.predicate?.format ?? "TRUEPREDICATE")
    }

    /// `fetchRequest`, with its predicate as read (nil when it has none).
    private func decodedFetchRequest(_ request: KeyedObject, name: String, fallbackEntity: String? = nil) throws -> DecodedTemplate {
        guard request.classes.contains("NSFetchRequest") else {
            throw KeyedArchiveError("object \(request.index): the fetch request of '\(name)' is an \(request.className)")
        }
        var entity: String?
        if let uid = try request.reference(.entity) {
            entity = try archive.isObject(uid) ? try entityName(request, .entity) : try archive.value(at: uid).string
        }
        guard let entityName = entity ?? fallbackEntity else {
            throw request.error(.entity, "the fetch request of '\(name)' names no entity")
        }
        var predicate: Predicates.Predicate?
        if let archived = try request.object("NSPredicate") {
            predicate = try PredicateArchive.predicate(archived)
        }
        return DecodedTemplate(name: name, entityName: entityName, predicate: predicate)
    }

    private func uniquenessConstraints(_ object: KeyedObject) throws -> [[String]] {
        try nameLists(object, "NSUniqueTuples")
    }

    /// An array of arrays of property names (`NSUniqueTuples`,
    /// `NSCompoundIndexes`): Core Data's API takes names or property
    /// descriptions, so an item is a string or an object with an
    /// `NSPropertyName`. A list naming something else is left out.
    private func nameLists(_ object: KeyedObject, _ key: FieldKey) throws -> [[String]] {
        guard let outer = try object.object(key), outer.isCollection, !outer.isDictionary else { return [] }
        var lists: [[String]] = []
        for uid in try outer.collectionElements() {
            guard try archive.isObject(uid) else { continue }
            let list = try archive.object(at: uid)
            guard list.isCollection, !list.isDictionary else { continue }
            let items = try list.collectionElements()
            let names = try items.compactMap { item -> String? in
                if try archive.isObject(item) {
                    let named = try archive.object(at: item)
                    if named.classes.contains("NSPropertyDescription") { return try named.string(.propertyName) }
                    return try named.scalarValue()?.string
                }
                return try archive.value(at: item).string
            }
            if names.count == items.count, !names.isEmpty { lists.append(names) }
        }
        return lists
    }

    /// The entity's fetch indexes, less those Core Data made itself for
    /// attributes marked indexed (named after the attribute, one ascending
    /// element): mrq keeps those as `isIndexed`. An index with a partial
    /// index predicate is dropped: mrq's stores cannot build it, and
    /// indexes only make queries faster. Elements that are expressions
    /// (Photos indexes `expression4`, an NSExpressionDescription) are kept
    /// in the index's `expressions`; no store builds an index over them. Old
    /// archives with only `NSCompoundIndexes` give one index per compound
    /// index, named as the Xcode reader names them.
    /// `listed`: the names the entity's `NSProperties` lists, which
    /// include its inherited properties.
    private func fetchIndexes(_ object: KeyedObject, entity: EntityDescription,
                              listed: [String]) throws -> [FetchIndexDescription] {
        var indexes: [FetchIndexDescription] = []
        // Made when an index needs them: most entities have none.
        lazy var propertyNames = Set(listed).union(entity.declaredProperties.map(\.name))
        lazy var indexedAttributes = Set(entity.declaredProperties.compactMap { ($0 as? AttributeDescription)?.isIndexed == true ? $0.name : nil })
        for uid in try object.elements("NSFetchIndexDescriptions") {
            let index = try archive.object(at: uid)
            guard index.classes.contains("NSFetchIndexDescription") else {
                throw object.error("NSFetchIndexDescriptions", "object \(uid) is an \(index.className)")
            }
            guard let name = try index.string("NSIndexName") else { throw index.error("NSIndexName", "missing") }
            if try index.reference("NSPartialIndexPredicate") != nil { continue }
            var elements: [(property: String, ascending: Bool)] = []
            var expressions: [String: String] = [:]
            for elementUID in try index.elements("NSIndexElements") {
                let element = try archive.object(at: elementUID)
                guard let property = try element.string(.propertyName) else { continue }
                if let expression = try expression(of: element) {
                    expressions[property] = expression
                } else if !propertyNames.contains(property) {
                    // Core Data indexes only its entity's properties and
                    // expressions: a name that is neither is an expression
                    // this reader did not find.
                    expressions[property] = ""
                }
                elements.append((property, try element.bool("NSAscending") ?? true))
            }
            guard !elements.isEmpty else { continue }
            if elements.count == 1, elements[0].ascending, elements[0].property == name, indexedAttributes.contains(name) {
                continue
            }
            var description = FetchIndexDescription(name: name, elements: elements)
            description.expressions = expressions
            indexes.append(description)
        }
        for names in try nameLists(object, "NSCompoundIndexes") {
            let covered = indexes.contains { index in
                index.elements.map(\.property) == names && index.elements.allSatisfy(\.ascending)
            }
            if !covered {
                indexes.append(FetchIndexDescription(name: "\(entity.name)_" + names.joined(separator: "_"), elements: names.map { ($0, true) }))
            }
        }
        return indexes
    }

    /// The text of the expression a fetch index element indexes: its
    /// property is an NSExpressionDescription, whose NSExpression this
    /// reads wherever the description keeps it; "" when mrq cannot read
    /// the expression; nil when the element indexes a property.
    private func expression(of element: KeyedObject) throws -> String? {
        for key in try element.keys.sorted() {
            guard let property = try referencedObject(element, FieldKey(key)) else { continue }
            guard property.classes.contains("NSExpressionDescription") else { continue }
            for field in try property.keys.sorted() {
                guard let candidate = try referencedObject(property, FieldKey(field)) else { continue }
                if candidate.classes.contains("NSExpression") {
                    return try known { try PredicateArchive.expressionFormat(candidate) } ?? ""
                }
            }
            return ""
        }
        return nil
    }

    // MARK: The model

    private func configurations(_ root: KeyedObject) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (key, value) in try root.dictionary("NSConfigurations") {
            guard let name = try archive.value(at: key).string else {
                throw root.error("NSConfigurations", "the key object \(key) is not a string")
            }
            let members = try archive.object(at: value)
            guard members.isCollection, !members.isDictionary else {
                throw root.error("NSConfigurations", "configuration '\(name)' is an \(members.className), not a set")
            }
            result[name] = try members.collectionElements().map { uid in
                if let entity = entityNames[uid] { return entity }
                if let entity = try archive.value(at: uid).string { return entity }
                throw root.error("NSConfigurations", "configuration '\(name)' lists object \(uid), which is not an entity")
            }.sorted()
        }
        return result
    }

    /// `NSVersionIdentifiers`, a set: one identifier is mrq's
    /// `versionIdentifier`; several, which only code can make, are joined
    /// with ", "; the empty string Xcode writes for none is nil. Code may
    /// put any object in the set: what is no string or number is left out.
    private func versionIdentifier(_ root: KeyedObject) throws -> String? {
        guard let value = try known({ try root.value("NSVersionIdentifiers") }) ?? nil else { return nil }
        let items: [ArchivedValue]
        switch value {
        case .set(let list), .array(let list): items = list
        case .string, .int, .double: items = [value]
        default: return nil
        }
        let names = items.compactMap { item -> String? in
            switch item {
            case .string(let s): s
            case .int(let n): String(n)
            case .double(let d): String(d)
            default: nil
            }
        }.filter { !$0.isEmpty }.sorted()
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// The name of the template `NSFetchRequestTemplates` holds under
    /// the key with UID `key`.
    func templateName(_ key: Int, root: KeyedObject) throws -> String {
        guard let name = try archive.value(at: key).string else {
            throw root.error("NSFetchRequestTemplates", "the key object \(key) is not a string")
        }
        return name
    }

    /// The template named `name` at UID `value`; nil when mrq cannot read
    /// it (a predicate it does not know, a request of a class it does not
    /// know).
    func template(_ value: Int, name: String) throws -> DecodedTemplate? {
        try known { try decodedFetchRequest(try archive.object(at: value), name: name) }
    }
}

extension FieldKey {
    // The fields the decoder reads at every property and entity, their
    // tags worked out once (mrq-bench w. corpus's largest model).
    static let packedFlags = FieldKey("_P")
    static let isOptional = FieldKey("NSIsOptional")
    static let isTransient = FieldKey("NSIsTransient")
    static let attributeType = FieldKey("NSAttributeType")
    static let defaultValue = FieldKey("NSDefaultValue")
    static let valueTransformerName = FieldKey("NSValueTransformerName")
    static let isIndexed = FieldKey("NSIsIndexed")
    static let flags = FieldKey("NSFlagsKey")
    static let versionHashModifier = FieldKey("NSVersionHashModifier")
    static let renamingIdentifier = FieldKey("NSRenamingIdentifier")
    static let indexedBySpotlight = FieldKey("NSIndexedBySpotlight")
    static let isOrdered = FieldKey("NSIsOrdered")
    static let propertyName = FieldKey("NSPropertyName")
    static let entity = FieldKey("NSEntity")
    static let properties = FieldKey("NSProperties")
    static let userInfo = FieldKey("NSUserInfo")
    static let destinationEntity = FieldKey("NSDestinationEntity")
    static let destinationEntityName = FieldKey("_NSDestinationEntityName")
    static let inverseRelationship = FieldKey("NSInverseRelationship")
    static let inverseRelationshipName = FieldKey("_NSInverseRelationshipName")
    static let maxCount = FieldKey("NSMaxCount")
    static let minCount = FieldKey("NSMinCount")
    static let deleteRule = FieldKey("NSDeleteRule")
    static let validationPredicates = FieldKey("NSValidationPredicates")
    static let validationWarnings = FieldKey("NSValidationWarnings")
    static let superentity = FieldKey("NSSuperentity")
}
