import Foundation
import Predicates

/// Lays an mrq model out as Core Data archives an `NSManagedObjectModel`:
/// the classes, keys and nesting `CoreDataModelDecoder` describes, in the
/// order Core Data's `encodeWithCoder:` methods write them, in the form the
/// newest of plaso's caches has (Core Data 1145: empty `NSSubentities`
/// dictionaries rather than nil, inherited properties copied into each
/// sub-entity rather than proxied, `NSSet` version identifiers, plain
/// strings for renaming identifiers).
struct CoreDataModelEncoder {
    let model: ManagedObjectModel
    let templates: [ArchivedFetchRequestTemplate]

    private var entityNodes: [String: ArchiveNode] = [:]
    /// Each declared property's node, by the property's identity.
    private var propertyNodes: [ObjectIdentifier: ArchiveNode] = [:]
    private let modelNode = ArchiveNode(["NSManagedObjectModel", "NSObject"])

    init(model: ManagedObjectModel, templates: [ArchivedFetchRequestTemplate]) {
        self.model = model
        self.templates = templates
    }

    /// The archive's root, the NSManagedObjectModel.
    mutating func encode() throws -> ArchiveNode {
        for entity in model.entities {
            entityNodes[entity.name] = ArchiveNode(["NSEntityDescription", "NSObject"])
            for property in entity.declaredProperties {
                propertyNodes[ObjectIdentifier(property)] = ArchiveNode(Self.classes(of: property))
            }
        }
        for entity in model.entities { try fill(entity) }

        let sorted = model.entities.sorted { $0.name < $1.name }
        modelNode.set("NSEntities", .object(.node(entitiesDictionary(sorted))))
        if !model.configurations.isEmpty {
            let pairs = model.configurations.sorted { $0.key < $1.key }.map { name, members in
                (ArchiveItem.string(name), ArchiveItem.node(.array(members.sorted().compactMap { entityNodes[$0].map(ArchiveItem.node) }, classes: ["NSSet", "NSObject"])))
            }
            modelNode.set("NSConfigurations", .object(.node(.dictionary(pairs, classes: Self.mutableDictionary))))
        }
        if templates.isEmpty {
            modelNode.set("NSFetchRequestTemplates", .object(.null))
        } else {
            let pairs = try templates.sorted { $0.name < $1.name }.map { template -> (ArchiveItem, ArchiveItem) in
                (.string(template.name), .node(try fetchRequest(template.entityName, template.predicateFormat, what: "fetch request template '\(template.name)'")))
            }
            modelNode.set("NSFetchRequestTemplates", .object(.node(.dictionary(pairs, classes: Self.mutableDictionary))))
        }
        let identifiers: [ArchiveItem] = [.string(model.versionIdentifier ?? "")]
        modelNode.set("NSVersionIdentifiers", .object(.node(.array(identifiers, classes: ["NSSet", "NSObject"]))))
        return modelNode
    }

    static let mutableDictionary = ["NSMutableDictionary", "NSDictionary", "NSObject"]
    static let mutableArray = ["NSMutableArray", "NSArray", "NSObject"]

    private static func classes(of property: PropertyDescription) -> [String] {
        switch property {
        case is AttributeDescription: ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        case is RelationshipDescription: ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
        default: ["NSFetchedPropertyDescription", "NSPropertyDescription", "NSObject"]
        }
    }

    /// Core Data's NSKnownKeysDictionary1: the names, sorted, in its
    /// `searchMapping`, the entities in the same order in `values`. With no
    /// entities, an empty NSMutableDictionary, as an empty compiled model
    /// has.
    private func entitiesDictionary(_ entities: [EntityDescription]) -> ArchiveNode {
        guard !entities.isEmpty else { return .dictionary([], classes: Self.mutableDictionary) }
        let mapping = ArchiveNode(["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"])
        mapping.set("keys", .object(.node(.array(entities.map { .string($0.name) }))))
        mapping.set("length", .int(entities.count))
        mapping.set("version", .int(1))
        let dictionary = ArchiveNode(["NSKnownKeysDictionary1", "NSKnownKeysDictionary"] + Self.mutableDictionary)
        dictionary.set("searchMapping", .object(.node(mapping)))
        dictionary.set("emptyToken", .object(.string("__empty_slot_token_4c24_98dc_ac1e_b773__")))
        dictionary.set("values", .object(.node(.array(entities.compactMap { entityNodes[$0.name].map(ArchiveItem.node) }))))
        dictionary.set("version", .int(1))
        return dictionary
    }

    // MARK: Entities

    private func fill(_ entity: EntityDescription) throws {
        guard let node = entityNodes[entity.name] else { return }
        node.set("NSEntityName", .object(.string(entity.name)))
        node.set("NSClassNameForEntity", .object(entity.className.map(ArchiveItem.string) ?? .null))
        if entity.isAbstract { node.set("NSIsAbstract", .bool(true)) }
        node.set("NSManagedObjectModel", .conditional(modelNode))
        node.set("NSSuperentity", .conditional(entity.parent.flatMap { entityNodes[$0.name] }))
        let subentities = entity.subentities.sorted { $0.name < $1.name }.compactMap { sub in
            entityNodes[sub.name].map { (ArchiveItem.string(sub.name), ArchiveItem.node($0)) }
        }
        node.set("NSSubentities", .object(.node(.dictionary(subentities, classes: Self.mutableDictionary))))

        // Inherited properties first, each a copy belonging to this entity;
        // then the entity's own, in Core Data's order.
        var properties: [(ArchiveItem, ArchiveItem)] = []
        for property in Self.ordered(entity.attributes + entity.relationships + entity.fetchedProperties) {
            guard let own = propertyNodes[ObjectIdentifier(property)] else { continue }
            if property.entity === entity {
                try fill(own, property, in: entity)
                properties.append((.string(property.name), .node(own)))
            } else {
                let copy = ArchiveNode(Self.classes(of: property))
                try fill(copy, property, in: entity)
                properties.append((.string(property.name), .node(copy)))
            }
        }
        node.set("NSProperties", .object(.node(.dictionary(properties, classes: Self.mutableDictionary))))
        node.set("NSUserInfo", .object(.node(Self.userInfo(entity.userInfo, entity.otherUserInfo))))
        node.set("NSVersionHashModifier", .object(entity.versionHashModifier.map(ArchiveItem.string) ?? .null))
        node.set("NSRenamingIdentifier", .object(.string(entity.renamingIdentifier ?? entity.name)))
        if !entity.uniquenessConstraints.isEmpty {
            let tuples = entity.uniquenessConstraints.map { names in
                ArchiveItem.node(.array(names.map(ArchiveItem.string), classes: Self.mutableArray))
            }
            node.set("NSUniqueTuples", .object(.node(.array(tuples, classes: Self.mutableArray))))
        }
        let indexes = fetchIndexes(entity, entityNode: node)
        if !indexes.isEmpty {
            node.set("NSFetchIndexDescriptions", .object(.node(.array(indexes.map { .node($0.node) }, classes: Self.mutableArray))))
            let compound = indexes.compactMap(\.compound).map { ArchiveItem.node(.array($0.map(ArchiveItem.string), classes: Self.mutableArray)) }
            node.set("NSCompoundIndexes", .object(.node(.array(compound, classes: Self.mutableArray))))
        }
    }

    /// Attributes, to-one relationships, to-many relationships, fetched
    /// properties; inherited before own, each group by name: the order of
    /// Core Data's `properties` (its `_NSPropertyDescriptionProxy` objects
    /// number them so).
    static func ordered(_ properties: [PropertyDescription]) -> [PropertyDescription] {
        func rank(_ p: PropertyDescription) -> Int {
            switch p {
            case is AttributeDescription: 0
            case let r as RelationshipDescription: r.isToMany ? 2 : 1
            default: 3
            }
        }
        func depth(_ p: PropertyDescription) -> Int {
            var n = 0
            var e = p.entity?.parent
            while let current = e { n += 1; e = current.parent }
            return n
        }
        return properties.sorted { a, b in
            (rank(a), depth(a), a.name) < (rank(b), depth(b), b.name)
        }
    }

    private static func userInfo(_ info: [String: String], _ others: [String: UserInfoValue]) -> ArchiveNode {
        let entries = info.map { ($0.key, ArchiveItem.string($0.value)) } + others.map { ($0.key, item($0.value)) }
        return .dictionary(entries.sorted { $0.0 < $1.0 }.map { (.string($0.0), $0.1) })
    }

    /// A user info value as Foundation archives it.
    private static func item(_ value: UserInfoValue) -> ArchiveItem {
        switch value {
        case .value(let scalar): ArchivedValues.item(scalar)
        case .array(let items): .node(.array(items.map(item)))
        case .set(let items): .node(.array(items.map(item), classes: ["NSSet", "NSObject"]))
        case .dictionary(let entries): .node(.dictionary(entries.sorted { $0.key < $1.key }.map { (.string($0.key), item($0.value)) }))
        }
    }

    /// The entity's fetch indexes as Core Data lists them: first one per
    /// attribute marked indexed (named after it, as Core Data makes them),
    /// then the declared ones. Each comes with its old-style compound index
    /// when it has one: two or more ascending attributes.
    private func fetchIndexes(_ entity: EntityDescription, entityNode: ArchiveNode) -> [(node: ArchiveNode, compound: [String]?)] {
        var indexes = entity.declaredProperties.compactMap { $0 as? AttributeDescription }
            .filter { attribute in attribute.isIndexed && !entity.fetchIndexes.contains { $0.name == attribute.name } }
            .sorted { $0.name < $1.name }
            .map { FetchIndexDescription(name: $0.name, elements: [($0.name, true)]) }
        indexes += entity.fetchIndexes
        return indexes.map { index in
            let node = ArchiveNode(["NSFetchIndexDescription", "NSObject"])
            let elements = index.elements.map { element -> ArchiveItem in
                let e = ArchiveNode(["NSFetchIndexElementDescription", "NSObject"])
                e.set("NSPropertyName", .object(.string(element.property)))
                // An expression element points at its NSExpressionDescription
                // (one mrq cannot archive goes by its name alone).
                if let text = index.expressions[element.property] {
                    let description = ArchiveNode(["NSExpressionDescription", "NSPropertyDescription", "NSObject"])
                    description.set("NSPropertyName", .object(.string(element.property)))
                    if let expression = try? PredicateArchive.expressionNode(format: text) {
                        description.set("NSExpression", .object(.node(expression)))
                    }
                    e.set("NSProperty", .object(.node(description)))
                }
                e.set("NSFetchIndexElementType", .int(0))
                e.set("NSAscending", .bool(element.ascending))
                e.set("NSFetchIndexDescription", .conditional(node))
                return .node(e)
            }
            node.set("NSIndexName", .object(.string(index.name)))
            node.set("NSIndexElements", .object(.node(.array(elements))))
            node.set("NSEntity", .conditional(entityNode))
            node.set("NSPartialIndexPredicate", .object(.null))
            let isCompound = index.elements.count > 1
                && index.elements.allSatisfy { $0.ascending && entity.attribute(named: $0.property) != nil }
            return (node, isCompound ? index.elements.map(\.property) : nil)
        }
    }

    // MARK: Properties

    /// Writes `property` into `node` as a property of `entity` (its own
    /// entity, or a sub-entity it is copied into).
    private func fill(_ node: ArchiveNode, _ property: PropertyDescription, in entity: EntityDescription) throws {
        let relationship = property as? RelationshipDescription
        let isOrdered = relationship?.isOrdered ?? false
        var packed = 0x1
        if property.isOptional { node.set("NSIsOptional", .bool(true)); packed |= 0x2 }
        if property.isTransient { node.set("NSIsTransient", .bool(true)); packed |= 0x8 }
        if property.isIndexedBySpotlight { node.set("NSIndexedBySpotlight", .bool(true)); packed |= 0x100 }
        if isOrdered { node.set("NSIsOrdered", .bool(true)); packed |= 0x400 }
        node.set("NSRenamingIdentifier", .object(.string(property.renamingIdentifier ?? property.name)))
        node.set("NSPropertyName", .object(.string(property.name)))
        node.set("NSEntity", .conditional(entityNodes[entity.name]))
        let (predicates, warnings) = try validation(property, entity: entity)
        if predicates.isEmpty {
            packed |= 0x30
        } else {
            node.set("NSValidationPredicates", .object(.node(.array(predicates.map { .node($0) }, classes: Self.mutableArray))))
            node.set("NSValidationWarnings", .object(.node(.array(warnings, classes: Self.mutableArray))))
        }
        if property.userInfo.isEmpty && property.otherUserInfo.isEmpty {
            packed |= 0x40
        } else {
            node.set("NSUserInfo", .object(.node(Self.userInfo(property.userInfo, property.otherUserInfo))))
        }
        if let modifier = property.versionHashModifier, !modifier.isEmpty {
            node.set("NSVersionHashModifier", .object(.string(modifier)))
        } else {
            packed |= 0x80
        }
        node.set("_P", .int(packed))

        switch property {
        case let attribute as AttributeDescription:
            node.set("NSAttributeType", .int(attribute.type.coreDataAttributeType))
            node.set("NSAttributeValueClassName", .object(CoreDataCodes.valueClassName(attribute.type).map(ArchiveItem.string) ?? .null))
            node.set("NSDefaultValue", .object(ArchivedValues.item(attribute.defaultValue)))
            node.set("NSValueTransformerName", .object(attribute.valueTransformerName.map(ArchiveItem.string) ?? .null))
            if attribute.isIndexed { node.set("NSIsIndexed", .bool(true)) }
            var flags = 0
            if attribute.allowsExternalBinaryDataStorage { flags |= 0x4 }
            if attribute.preservesValueInHistoryOnDeletion { flags |= 0x10 }
            node.set("NSFlagsKey", .int(flags))
        case let relationship as RelationshipDescription:
            node.set("NSMaxCount", .int(relationship.isToMany ? relationship.maxCount : 1))
            node.set("NSMinCount", .int(relationship.isToMany ? relationship.minCount : relationship.declaredMinCount ?? 0))
            node.set("NSDeleteRule", .int(CoreDataCodes.code(relationship.deleteRule)))
            node.set("NSDestinationEntity", .conditional(entityNodes[relationship.destinationName]))
            node.set("_NSDestinationEntityName", .object(.string(relationship.destinationName)))
            node.set("NSInverseRelationship", .conditional(relationship.inverse.flatMap { propertyNodes[ObjectIdentifier($0)] }))
            node.set("_NSInverseRelationshipName", .object(relationship.inverseName.map(ArchiveItem.string) ?? .null))
        case let fetched as FetchedPropertyDescription:
            let what = "fetched property '\(entity.name).\(fetched.name)'"
            node.set("NSFetchRequest", .object(.node(try fetchRequest(fetched.destinationName, fetched.predicateFormat, what: what))))
            node.set("_NSFetchRequestEntityName", .object(.string(fetched.destinationName)))
        default:
            break
        }
    }

    /// An attribute's validation predicates and their warnings, as Core
    /// Data holds them: the regular expression (`SELF MATCHES`, warning
    /// 1680) and the predicates with their messages, then the minimum and
    /// maximum in the form `-[NSAttributeDescription validationPredicates]`
    /// gives them, with the error codes `validationWarnings` gives (values
    /// 1620/1610, string lengths 1670/1660, dates 1640/1630). Core Data has
    /// no length bound for binary data; mrq writes it as a string's.
    private func validation(_ property: PropertyDescription, entity: EntityDescription) throws -> ([ArchiveNode], [ArchiveItem]) {
        guard let attribute = property as? AttributeDescription else { return ([], []) }
        var predicates: [ArchiveNode] = []
        var warnings: [ArchiveItem] = []
        func add(_ predicate: Predicates.Predicate, _ warning: ArchiveItem) throws {
            do {
                predicates.append(try PredicateArchive.node(for: predicate))
            } catch let error as PredicateArchiveError {
                throw ModelError("attribute '\(entity.name).\(attribute.name)': a validation predicate cannot be archived: \(error.description)")
            }
            warnings.append(warning)
        }
        if let pattern = attribute.regularExpression {
            try add(Predicates.Predicate(.comparison(Comparison(.direct, .matches, Predicates.Expression(.evaluatedObject), .constant(.string(pattern))))), .int(1680))
        }
        for rule in attribute.validationPredicates {
            let predicate: Predicates.Predicate
            do {
                predicate = try Predicates.Predicate(format: rule.format)
            } catch {
                throw ModelError("attribute '\(entity.name).\(attribute.name)': validation predicate '\(rule.format)' does not parse: \(error.message)")
            }
            try add(predicate, .string(rule.message))
        }
        let (subject, codes): (Predicates.Expression, (min: Int64, max: Int64))
        switch attribute.type {
        case .string, .binary: (subject, codes) = (.keyPath("length"), (1670, 1660))
        case .date: (subject, codes) = (.keyPath("timeIntervalSinceReferenceDate"), (1640, 1630))
        default: (subject, codes) = (Predicates.Expression(.evaluatedObject), (1620, 1610))
        }
        func bound(_ value: Value) -> Value {
            if case .date(let d) = value { return .double(d.timeIntervalSinceReferenceDate) }
            return value
        }
        if let min = attribute.minValue {
            try add(Predicates.Predicate(.comparison(Comparison(.direct, .greaterEqual, subject, .constant(bound(min))))), .int(codes.min))
        }
        if let max = attribute.maxValue {
            try add(Predicates.Predicate(.comparison(Comparison(.direct, .lessEqual, subject, .constant(bound(max))))), .int(codes.max))
        }
        return (predicates, warnings)
    }

    /// An NSFetchRequest of `entityName` with the predicate `format`, with
    /// Core Data's default flags (includes sub-entities, property values
    /// and pending changes, returns faults).
    private func fetchRequest(_ entityName: String, _ format: String, what: String) throws -> ArchiveNode {
        let node = ArchiveNode(["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"])
        let predicate: Predicates.Predicate
        do {
            predicate = try Predicates.Predicate(format: format)
        } catch {
            throw ModelError("\(what): predicate '\(format)' does not parse: \(error.message)")
        }
        let predicateNode: ArchiveNode
        do {
            predicateNode = try PredicateArchive.node(for: predicate)
        } catch let error as PredicateArchiveError {
            throw ModelError("\(what): its predicate cannot be archived: \(error.description)")
        }
        node.set("NSValuesToGroupBy", .object(.null))
        node.set("NSHavingPredicate", .object(.null))
        node.set("NSFetchOffset", .int(0))
        node.set("NSValuesToFetch", .object(.null))
        if let entity = entityNodes[entityName] {
            node.set("NSEntity", .conditional(entity))
        } else {
            throw ModelError("\(what) fetches unknown entity '\(entityName)'")
        }
        node.set("NSPredicate", .object(.node(predicateNode)))
        node.set("NSSortDescriptors", .object(.null))
        node.set("NSFetchLimit", .int(0))
        node.set("NSBatchSize", .int(0))
        node.set("NSRelationshipKeyPathsForPrefetching", .object(.null))
        node.set("NSResultType", .int(0))
        node.set("NSAllocationType", .int(0))
        node.set("NSHasFetchRequestFlags", .bool(true))
        node.set("NSFetchRequestFlags", .int(0x1E))
        return node
    }
}
