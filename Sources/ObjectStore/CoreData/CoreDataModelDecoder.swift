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
struct CoreDataModelDecoder {
    let archive: KeyedArchive
    /// Entity UID → name.
    private var entityNames: [Int: String] = [:]

    struct Result {
        var entities: [EntityDescription]
        var configurations: [String: [String]]
        var versionIdentifier: String?
        var fetchRequestTemplates: [ArchivedFetchRequestTemplate]
    }

    init(_ archive: KeyedArchive) { self.archive = archive }

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
            entities: entities, configurations: try configurations(root),
            versionIdentifier: try versionIdentifier(root), fetchRequestTemplates: try templates(root))
    }

    /// The name of the entity an object points at through `key`; nil when
    /// the field is absent or nil.
    private func entityName(_ object: KeyedObject, _ key: String) throws -> String? {
        guard let uid = try object.reference(key) else { return nil }
        guard let name = entityNames[uid] else {
            throw object.error(key, "object \(uid) is not one of the model's entities")
        }
        return name
    }

    // MARK: Entities

    private func entity(_ object: KeyedObject) throws -> EntityDescription {
        guard let name = try object.string("NSEntityName") else { throw object.error("NSEntityName", "missing") }
        let entity = EntityDescription(
            name: name, isAbstract: try object.bool("NSIsAbstract") ?? false,
            parent: try entityName(object, "NSSuperentity"), userInfo: try object.stringDictionary("NSUserInfo"))
        entity.className = try object.string("NSClassNameForEntity")
        entity.renamingIdentifier = try object.string("NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 }
        entity.versionHashModifier = try object.string("NSVersionHashModifier").flatMap { $0.isEmpty ? nil : $0 }
        entity.uniquenessConstraints = try uniquenessConstraints(object)
        for property in try properties(object) { entity.add(property) }
        entity.fetchIndexes = try fetchIndexes(object, entity: entity)
        return entity
    }

    /// The entity's own properties, in Core Data's order: attributes,
    /// to-one relationships, to-many relationships, fetched properties,
    /// each by name (the archive's dictionary has no order of its own).
    private func properties(_ object: KeyedObject) throws -> [PropertyDescription] {
        var inherited: Set<String> = []
        if let parent = try object.object("NSSuperentity") {
            for (key, _) in try parent.dictionary("NSProperties") {
                if let name = try archive.value(at: key).string { inherited.insert(name) }
            }
        }
        var result: [PropertyDescription] = []
        for (key, value) in try object.dictionary("NSProperties") {
            guard let name = try archive.value(at: key).string else {
                throw object.error("NSProperties", "the key object \(key) is not a string")
            }
            let property = try archive.object(at: value)
            if property.className == "_NSPropertyDescriptionProxy" || inherited.contains(name) { continue }
            guard try property.string("NSPropertyName") == name else {
                throw property.error("NSPropertyName", "does not match its key '\(name)' in NSProperties")
            }
            guard try property.reference("NSEntity") == object.index else {
                throw property.error("NSEntity", "is not the entity that lists the property (object \(object.index))")
            }
            result.append(try self.property(property, name: name))
        }
        func rank(_ p: PropertyDescription) -> Int {
            switch p {
            case is AttributeDescription: 0
            case let r as RelationshipDescription: r.isToMany ? 2 : 1
            default: 3
            }
        }
        return result.sorted { (rank($0), $0.name) < (rank($1), $1.name) }
    }

    private func property(_ object: KeyedObject, name: String) throws -> PropertyDescription {
        let packed = try object.int("_P") ?? 0
        func flag(_ bit: Int, _ key: String) throws -> Bool {
            packed != 0 ? packed & bit != 0 : try object.bool(key) ?? false
        }
        let isOptional = try flag(0x2, "NSIsOptional")
        let isTransient = try flag(0x8, "NSIsTransient")
        let property: PropertyDescription
        if object.classes.contains("NSAttributeDescription") {
            property = try attribute(object, name: name, isOptional: isOptional, isTransient: isTransient)
        } else if object.classes.contains("NSRelationshipDescription") {
            property = try relationship(object, name: name, isOptional: isOptional, isTransient: isTransient,
                                        isOrdered: try flag(0x400, "NSIsOrdered"))
        } else if object.classes.contains("NSFetchedPropertyDescription") {
            property = try fetchedProperty(object, name: name, isOptional: isOptional)
        } else {
            throw KeyedArchiveError("object \(object.index): '\(name)' is an \(object.className), which mrq cannot read")
        }
        property.userInfo = try object.stringDictionary("NSUserInfo")
        property.versionHashModifier = try object.string("NSVersionHashModifier").flatMap { $0.isEmpty ? nil : $0 }
        property.renamingIdentifier = try object.string("NSRenamingIdentifier").flatMap { $0 == name ? nil : $0 }
        property.isIndexedBySpotlight = try flag(0x100, "NSIndexedBySpotlight")
        return property
    }

    private func attribute(_ object: KeyedObject, name: String, isOptional: Bool, isTransient: Bool) throws -> AttributeDescription {
        let code = try object.int("NSAttributeType") ?? 0
        guard let type = CoreDataCodes.attributeType(code) else {
            throw object.error("NSAttributeType", "attribute '\(name)' has type \(CoreDataCodes.typeName(code)) (\(code)), which mrq cannot represent")
        }
        let attribute = AttributeDescription(name: name, type: type, isOptional: isOptional, isTransient: isTransient)
        if let stored = try object.value("NSDefaultValue") {
            let value = try ArchivedValues.value(stored, in: object, key: "NSDefaultValue")
            attribute.defaultValue = try ArchivedValues.value(value, as: type, in: object, key: "NSDefaultValue")
        }
        attribute.valueTransformerName = try object.string("NSValueTransformerName")
        attribute.isIndexed = try object.bool("NSIsIndexed") ?? false
        let flags = try object.int("NSFlagsKey") ?? 0
        attribute.allowsExternalBinaryDataStorage = flags & 0x4 != 0
        attribute.preservesValueInHistoryOnDeletion = flags & 0x10 != 0
        if flags & 0x1 != 0 { attribute.maxValue = try oldBound(object, "NSMaxValueName", type) }
        if flags & 0x2 != 0 { attribute.minValue = try oldBound(object, "NSMinValueName", type) }
        try readValidation(object, into: attribute)
        return attribute
    }

    /// `NSMinValueName` and `NSMaxValueName`: integers for integer and
    /// string types, reals (seconds for dates) for the others.
    private func oldBound(_ object: KeyedObject, _ key: String, _ type: AttributeType) throws -> Value? {
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
        let predicates = try object.elements("NSValidationPredicates")
        let warnings = try object.elements("NSValidationWarnings")
        guard predicates.count == warnings.count else {
            throw object.error("NSValidationWarnings", "\(warnings.count) warnings for \(predicates.count) predicates")
        }
        var rules: [(format: String, message: String)] = []
        for (predicateUID, warningUID) in zip(predicates, warnings) {
            let predicate = try PredicateArchive.predicate(try archive.object(at: predicateUID))
            switch try archive.value(at: warningUID) {
            case .int(let code):
                if try !absorb(predicate, code: code, into: attribute, object) {
                    rules.append((predicate.format, ""))
                }
            case .string(let message):
                rules.append((predicate.format, message))
            case let other:
                throw object.error("NSValidationWarnings", "a warning is \(other.kind), not a number or a message")
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
        if let viaObject = try entityName(object, "NSDestinationEntity") {
            if let named = try object.string("_NSDestinationEntityName"), named != viaObject {
                throw object.error("_NSDestinationEntityName", "'\(named)' but NSDestinationEntity is '\(viaObject)'")
            }
            destination = viaObject
        } else if let named = try object.string("_NSDestinationEntityName") {
            destination = named
        } else {
            throw object.error("NSDestinationEntity", "relationship '\(name)' has no destination")
        }
        var inverse: String?
        if let inverseObject = try object.object("NSInverseRelationship") {
            guard inverseObject.classes.contains("NSRelationshipDescription") else {
                throw object.error("NSInverseRelationship", "object \(inverseObject.index) is an \(inverseObject.className)")
            }
            inverse = try inverseObject.string("NSPropertyName")
        } else {
            inverse = try object.string("_NSInverseRelationshipName")
        }
        let maxCount = try object.int("NSMaxCount") ?? 0
        let minCount = try object.int("NSMinCount") ?? 0
        guard maxCount >= 0, minCount >= 0 else {
            throw object.error("NSMinCount", "relationship '\(name)' has a negative count")
        }
        let ruleCode = try object.int("NSDeleteRule") ?? 1
        guard let rule = CoreDataCodes.deleteRule(ruleCode) else {
            throw object.error("NSDeleteRule", "unknown delete rule \(ruleCode)")
        }
        // Core Data's `isToMany` is `maxCount != 1`: 0 is unbounded.
        let isToMany = maxCount != 1
        let relationship = RelationshipDescription(
            name: name, destination: destination, inverse: inverse, isToMany: isToMany, isOrdered: isOrdered,
            deleteRule: rule, isOptional: isOptional, isTransient: isTransient,
            minCount: isToMany ? minCount : 0, maxCount: isToMany ? maxCount : 1)
        // A to-one's count as the file states it: the version hash counts it.
        if !isToMany { relationship.declaredMinCount = minCount }
        return relationship
    }

    private func fetchedProperty(_ object: KeyedObject, name: String, isOptional: Bool) throws -> FetchedPropertyDescription {
        guard let request = try object.object("NSFetchRequest") else {
            throw object.error("NSFetchRequest", "fetched property '\(name)' has no fetch request")
        }
        let template = try fetchRequest(request, name: name, fallbackEntity: try object.string("_NSFetchRequestEntityName"))
        let fetched = FetchedPropertyDescription(name: name, destination: template.entityName, predicate: template.predicateFormat)
        fetched.isOptional = isOptional
        return fetched
    }

    /// An NSFetchRequest's entity and predicate: `NSEntity` is the entity
    /// (or, for a request made by name, its name), `NSPredicate` an
    /// archived NSPredicate or nil.
    private func fetchRequest(_ request: KeyedObject, name: String, fallbackEntity: String? = nil) throws -> ArchivedFetchRequestTemplate {
        guard request.classes.contains("NSFetchRequest") else {
            throw KeyedArchiveError("object \(request.index): the fetch request of '\(name)' is an \(request.className)")
        }
        var entity: String?
        if let uid = try request.reference("NSEntity") {
            entity = archive.isObject(uid) ? try entityName(request, "NSEntity") : try archive.value(at: uid).string
        }
        guard let entityName = entity ?? fallbackEntity else {
            throw request.error("NSEntity", "the fetch request of '\(name)' names no entity")
        }
        var format = "TRUEPREDICATE"
        if let predicate = try request.object("NSPredicate") {
            format = try PredicateArchive.predicate(predicate).format
        }
        return ArchivedFetchRequestTemplate(name: name, entityName: entityName, predicateFormat: format)
    }

    private func uniquenessConstraints(_ object: KeyedObject) throws -> [[String]] {
        guard let value = try object.value("NSUniqueTuples") else { return [] }
        guard case .array(let tuples) = value else {
            if value == .null { return [] }
            throw object.error("NSUniqueTuples", "expected an array, found \(value.kind)")
        }
        return try tuples.map { tuple in
            guard case .array(let names) = tuple else {
                throw object.error("NSUniqueTuples", "a constraint is \(tuple.kind), not an array")
            }
            return try names.map { item in
                guard let name = item.string else { throw object.error("NSUniqueTuples", "a constraint names \(item.kind)") }
                return name
            }
        }.filter { !$0.isEmpty }
    }

    /// The entity's fetch indexes, less those Core Data made itself for
    /// attributes marked indexed (named after the attribute, one ascending
    /// element): mrq keeps those as `isIndexed`. An index with a partial
    /// index predicate, or elements that are expressions, is dropped, as
    /// the Xcode model reader drops expression elements: mrq's stores
    /// cannot build them, and indexes only make queries faster. Old
    /// archives with only `NSCompoundIndexes` give one index per compound
    /// index, named as the Xcode reader names them.
    private func fetchIndexes(_ object: KeyedObject, entity: EntityDescription) throws -> [FetchIndexDescription] {
        var indexes: [FetchIndexDescription] = []
        let indexedAttributes = Set(entity.declaredProperties.compactMap { ($0 as? AttributeDescription)?.isIndexed == true ? $0.name : nil })
        for uid in try object.elements("NSFetchIndexDescriptions") {
            let index = try archive.object(at: uid)
            guard index.classes.contains("NSFetchIndexDescription") else {
                throw object.error("NSFetchIndexDescriptions", "object \(uid) is an \(index.className)")
            }
            guard let name = try index.string("NSIndexName") else { throw index.error("NSIndexName", "missing") }
            if try index.reference("NSPartialIndexPredicate") != nil { continue }
            var elements: [(property: String, ascending: Bool)] = []
            for elementUID in try index.elements("NSIndexElements") {
                let element = try archive.object(at: elementUID)
                guard let property = try element.string("NSPropertyName") else { continue }
                elements.append((property, try element.bool("NSAscending") ?? true))
            }
            guard !elements.isEmpty else { continue }
            if elements.count == 1, elements[0].ascending, elements[0].property == name, indexedAttributes.contains(name) {
                continue
            }
            indexes.append(FetchIndexDescription(name: name, elements: elements))
        }
        guard let compound = try object.value("NSCompoundIndexes"), case .array(let lists) = compound else { return indexes }
        for list in lists {
            guard case .array(let items) = list else { continue }
            let names = items.compactMap(\.string)
            guard names.count == items.count, !names.isEmpty else {
                throw object.error("NSCompoundIndexes", "a compound index lists something other than names")
            }
            let covered = indexes.contains { index in
                index.elements.map(\.property) == names && index.elements.allSatisfy(\.ascending)
            }
            if !covered {
                indexes.append(FetchIndexDescription(name: "\(entity.name)_" + names.joined(separator: "_"), elements: names.map { ($0, true) }))
            }
        }
        return indexes
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
    /// with ", "; the empty string Xcode writes for none is nil.
    private func versionIdentifier(_ root: KeyedObject) throws -> String? {
        guard let value = try root.value("NSVersionIdentifiers") else { return nil }
        let items: [ArchivedValue]
        switch value {
        case .null: return nil
        case .set(let list), .array(let list): items = list
        default: throw root.error("NSVersionIdentifiers", "expected a set, found \(value.kind)")
        }
        let names = try items.map { item -> String in
            switch item {
            case .string(let s): return s
            case .int(let n): return String(n)
            case .double(let d): return String(d)
            default: throw root.error("NSVersionIdentifiers", "an identifier is \(item.kind)")
            }
        }.filter { !$0.isEmpty }.sorted()
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    private func templates(_ root: KeyedObject) throws -> [ArchivedFetchRequestTemplate] {
        try root.dictionary("NSFetchRequestTemplates").map { key, value in
            guard let name = try archive.value(at: key).string else {
                throw root.error("NSFetchRequestTemplates", "the key object \(key) is not a string")
            }
            return try fetchRequest(try archive.object(at: value), name: name)
        }.sorted { $0.name < $1.name }
    }
}

/// A model's fetch request template as a Core Data archive holds it: its
/// name, entity and predicate.
///
/// ```swift
/// let templates = try ManagedObjectModel.fetchRequestTemplates(coreDataArchive: data)
/// templates.first?.predicateFormat   // name BEGINSWITH $PREFIX
/// ```
public struct ArchivedFetchRequestTemplate: Sendable, Hashable {
    /// The template's name.
    public var name: String
    /// The entity it fetches.
    public var entityName: String
    /// Its predicate as mrq prints it, `$variables` and all;
    /// `TRUEPREDICATE` when it has none.
    public var predicateFormat: String

    /// A template fetching `entityName` with `predicateFormat`.
    public init(name: String, entityName: String, predicateFormat: String) {
        self.name = name
        self.entityName = entityName
        self.predicateFormat = predicateFormat
    }
}
