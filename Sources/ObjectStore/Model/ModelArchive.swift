import Foundation
import Predicates

extension ManagedObjectModel {
    /// The whole model as JSON, so that a store can keep the model it was
    /// built from and compare it with the one it is opened with later.
    ///
    /// ```swift
    /// let data = model.archived()
    /// let again = try ManagedObjectModel(archive: data)
    /// again.fingerprint == model.fingerprint   // true
    /// ```
    ///
    /// The JSON has sorted keys and keeps declaration order, so the same
    /// model always gives the same bytes.
    public func archived() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Every field is a string, a number, a bool or an array of them:
        // encoding cannot fail.
        return try! encoder.encode(ModelArchive(self))
    }

    /// Rebuilds a model from `archived()`.
    public convenience init(archive data: Data) throws {
        let archive: ModelArchive
        do {
            archive = try JSONDecoder().decode(ModelArchive.self, from: data)
        } catch {
            throw ModelError.invalidArchive(String(describing: error))
        }
        guard archive.format == ModelArchive.currentFormat else {
            throw ModelError.invalidArchive("unknown format \(archive.format)")
        }
        try self.init(entities: archive.entities.map { try $0.entity() }, configurations: archive.configurations)
        versionIdentifier = archive.versionIdentifier
        versionName = archive.versionName
        localizationDictionary = archive.localization
        for template in archive.fetchRequests ?? [] {
            // Kept as the model had it: one read from Core Data may name a
            // key its entity lacks (checked when it runs).
            try setFetchRequestTemplate(try template.request(), forName: template.name, checkingComparisons: false, checkingKeys: false)
        }
    }

    /// Whether two models describe the same thing, down to user info,
    /// validation rules and declaration order.
    public func isEquivalent(to other: ManagedObjectModel) -> Bool {
        // Where a model was loaded from is no part of what it describes.
        var mine = ModelArchive(self), theirs = ModelArchive(other)
        mine.versionName = nil
        theirs.versionName = nil
        return mine == theirs
    }
}

struct ModelArchive: Codable, Equatable {
    static let currentFormat = 1

    var format = currentFormat
    var versionIdentifier: String?
    /// Absent from archives written before it was kept.
    var versionName: String?
    var configurations: [String: [String]]
    var localization: [String: String]
    var entities: [EntityArchive]
    /// The fetch request templates, by name; absent from archives written
    /// before they were kept, and when there are none.
    var fetchRequests: [FetchRequestArchive]?

    init(_ model: ManagedObjectModel) {
        versionIdentifier = model.versionIdentifier
        versionName = model.versionName
        configurations = model.configurations
        localization = model.localizationDictionary
        entities = model.entities.map(EntityArchive.init)
        let templates = model.fetchRequestTemplatesByName.sorted { $0.key < $1.key }
        fetchRequests = templates.isEmpty ? nil : templates.map { FetchRequestArchive(name: $0.key, request: $0.value) }
    }
}

/// A fetch request template: its predicate as its format string, its sort
/// as MagicalRecord's `key:NO` spelling.
struct FetchRequestArchive: Codable, Equatable {
    var name: String
    var entity: String
    var predicate: String?
    var sort: [String]?
    var fetchLimit: Int?
    var fetchOffset: Int?
    var fetchBatchSize: Int?
    var includesSubentities: Bool
    var includesPendingChanges: Bool
    var returnsObjectsAsFaults: Bool
    var returnsDistinctResults: Bool
    var resultType: String

    init(name: String, request: FetchRequest) {
        self.name = name
        entity = request.entityName
        predicate = request.predicate?.format
        sort = request.sortDescriptors.isEmpty ? nil : request.sortDescriptors.map(\.description)
        fetchLimit = request.fetchLimit > 0 ? request.fetchLimit : nil
        fetchOffset = request.fetchOffset > 0 ? request.fetchOffset : nil
        fetchBatchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : nil
        includesSubentities = request.includesSubentities
        includesPendingChanges = request.includesPendingChanges
        returnsObjectsAsFaults = request.returnsObjectsAsFaults
        returnsDistinctResults = request.returnsDistinctResults
        resultType = switch request.resultType {
        case .managedObject: "managedObject"
        case .managedObjectID: "managedObjectID"
        case .dictionary: "dictionary"
        case .count: "count"
        }
    }

    func request() throws -> FetchRequest {
        var request = FetchRequest(entityName: entity)
        do {
            request.predicate = try predicate.map { try Predicate(format: $0) }
            request.sortDescriptors = try sort.map { try SortSpec.parse($0.joined(separator: ",")) } ?? []
        } catch {
            throw ModelError.invalidArchive("fetch request '\(name)': \((error as? SyntaxError)?.message ?? String(describing: error))")
        }
        request.fetchLimit = fetchLimit ?? 0
        request.fetchOffset = fetchOffset ?? 0
        request.fetchBatchSize = fetchBatchSize ?? 0
        request.includesSubentities = includesSubentities
        request.includesPendingChanges = includesPendingChanges
        request.returnsObjectsAsFaults = returnsObjectsAsFaults
        request.returnsDistinctResults = returnsDistinctResults
        switch resultType {
        case "managedObject": request.resultType = .managedObject
        case "managedObjectID": request.resultType = .managedObjectID
        case "dictionary": request.resultType = .dictionary
        case "count": request.resultType = .count
        default: throw ModelError.invalidArchive("fetch request '\(name)' has unknown result type '\(resultType)'")
        }
        return request
    }
}

struct EntityArchive: Codable, Equatable {
    var name: String
    var parent: String?
    var isAbstract: Bool
    var className: String?
    var userInfo: [String: String]
    /// Absent when empty.
    var otherUserInfo: [String: UserInfoArchive]?
    var renamingIdentifier: String?
    var versionHashModifier: String?
    var uniquenessConstraints: [[String]]
    var fetchIndexes: [FetchIndexArchive]
    var properties: [PropertyArchive]

    init(_ entity: EntityDescription) {
        name = entity.name
        parent = entity.parentName
        isAbstract = entity.isAbstract
        className = entity.className
        userInfo = entity.userInfo
        otherUserInfo = UserInfoArchive.archive(entity.otherUserInfo)
        renamingIdentifier = entity.renamingIdentifier
        versionHashModifier = entity.versionHashModifier
        uniquenessConstraints = entity.uniquenessConstraints
        fetchIndexes = entity.fetchIndexes.map {
            FetchIndexArchive(name: $0.name, elements: $0.elements.map { .init(property: $0.property, ascending: $0.ascending) },
                              expressions: $0.expressions.isEmpty ? nil : $0.expressions)
        }
        properties = entity.declaredProperties.map(PropertyArchive.init)
    }

    func entity() throws -> EntityDescription {
        let entity = EntityDescription(name: name, isAbstract: isAbstract, parent: parent, userInfo: userInfo)
        entity.className = className
        entity.otherUserInfo = try UserInfoArchive.decoded(otherUserInfo)
        entity.renamingIdentifier = renamingIdentifier
        entity.versionHashModifier = versionHashModifier
        entity.uniquenessConstraints = uniquenessConstraints
        entity.fetchIndexes = fetchIndexes.map {
            var index = FetchIndexDescription(name: $0.name, elements: $0.elements.map { ($0.property, $0.ascending) })
            index.expressions = $0.expressions ?? [:]
            return index
        }
        for property in properties { entity.add(try property.property(in: name)) }
        return entity
    }
}

struct FetchIndexArchive: Codable, Equatable {
    struct Element: Codable, Equatable {
        var property: String
        var ascending: Bool
    }
    var name: String
    var elements: [Element]
    /// Absent when no element is an expression.
    var expressions: [String: String]?
}

struct PropertyArchive: Codable, Equatable {
    enum Kind: String, Codable { case attribute, relationship, fetchedProperty }
    struct Rule: Codable, Equatable {
        var predicate: String
        var message: String
    }

    var kind: Kind
    var name: String
    var isOptional: Bool
    var isTransient: Bool
    var userInfo: [String: String]
    /// Absent when empty.
    var otherUserInfo: [String: UserInfoArchive]?
    var renamingIdentifier: String?
    var versionHashModifier: String?
    /// Absent when false.
    var isIndexedBySpotlight: Bool?
    // Attributes
    var type: String?
    var defaultValue: ValueArchive?
    var minValue: ValueArchive?
    var maxValue: ValueArchive?
    var regularExpression: String?
    var validationPredicates: [Rule]?
    var allowsExternalBinaryDataStorage: Bool?
    var preservesValueInHistoryOnDeletion: Bool?
    var isIndexed: Bool?
    var valueTransformerName: String?
    var derivation: String?
    /// A composite's elements and the name Xcode gave its type.
    var elements: [PropertyArchive]?
    var compositeName: String?
    // Relationships and fetched properties
    var destination: String?
    var inverse: String?
    var isToMany: Bool?
    var isOrdered: Bool?
    var deleteRule: String?
    var minCount: Int?
    var maxCount: Int?
    var declaredMinCount: Int?
    var predicate: String?
    var fetchRequestName: String?

    init(_ property: PropertyDescription) {
        name = property.name
        isOptional = property.isOptional
        isTransient = property.isTransient
        userInfo = property.userInfo
        otherUserInfo = UserInfoArchive.archive(property.otherUserInfo)
        renamingIdentifier = property.renamingIdentifier
        versionHashModifier = property.versionHashModifier
        isIndexedBySpotlight = property.isIndexedBySpotlight ? true : nil
        switch property {
        case let a as AttributeDescription:
            kind = .attribute
            type = a.type.rawValue
            defaultValue = a.defaultValue.isNull ? nil : ValueArchive(a.defaultValue)
            minValue = a.minValue.map(ValueArchive.init)
            maxValue = a.maxValue.map(ValueArchive.init)
            regularExpression = a.regularExpression
            validationPredicates = a.validationPredicates.isEmpty
                ? nil : a.validationPredicates.map { Rule(predicate: $0.format, message: $0.message) }
            allowsExternalBinaryDataStorage = a.allowsExternalBinaryDataStorage ? true : nil
            preservesValueInHistoryOnDeletion = a.preservesValueInHistoryOnDeletion ? true : nil
            isIndexed = a.isIndexed ? true : nil
            valueTransformerName = a.valueTransformerName
            derivation = a.derivation
            if a.type == .composite {
                elements = a.elements.map(PropertyArchive.init)
                compositeName = a.compositeName
            }
        case let r as RelationshipDescription:
            kind = .relationship
            destination = r.destinationName
            inverse = r.inverseName
            isToMany = r.isToMany
            isOrdered = r.isOrdered
            deleteRule = r.deleteRule.rawValue
            minCount = r.minCount
            maxCount = r.maxCount
            declaredMinCount = r.declaredMinCount
        case let f as FetchedPropertyDescription:
            kind = .fetchedProperty
            destination = f.destinationName
            predicate = f.predicateFormat
            fetchRequestName = f.fetchRequestName
        default:
            preconditionFailure("unknown property class \(Swift.type(of: property))")
        }
    }

    func property(in entity: String) throws -> PropertyDescription {
        func require<T>(_ value: T?, _ field: String) throws -> T {
            guard let value else { throw ModelError.invalidArchive("property '\(entity).\(name)' has no \(field)") }
            return value
        }
        let property: PropertyDescription
        switch kind {
        case .attribute:
            let typeName = try require(type, "type")
            guard let type = AttributeType(rawValue: typeName) else {
                throw ModelError.invalidArchive("attribute '\(entity).\(name)' has unknown type '\(typeName)'")
            }
            let a = AttributeDescription(
                name: name, type: type, isOptional: isOptional, isTransient: isTransient,
                defaultValue: try defaultValue?.decoded() ?? .null, userInfo: userInfo)
            a.minValue = try minValue?.decoded()
            a.maxValue = try maxValue?.decoded()
            a.regularExpression = regularExpression
            a.validationPredicates = (validationPredicates ?? []).map { ($0.predicate, $0.message) }
            a.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage ?? false
            a.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion ?? false
            a.isIndexed = isIndexed ?? false
            a.valueTransformerName = valueTransformerName
            a.derivation = derivation
            a.compositeName = compositeName
            a.elements = try (elements ?? []).map { element in
                guard element.kind == .attribute, let attribute = try element.property(in: entity) as? AttributeDescription else {
                    throw ModelError.invalidArchive("composite '\(entity).\(name)' has an element that is not an attribute")
                }
                return attribute
            }
            property = a
        case .relationship:
            let ruleName = try require(deleteRule, "deleteRule")
            guard let rule = DeleteRule(rawValue: ruleName) else {
                throw ModelError.invalidArchive("relationship '\(entity).\(name)' has unknown delete rule '\(ruleName)'")
            }
            let r = RelationshipDescription(
                name: name, destination: try require(destination, "destination"), inverse: inverse,
                isToMany: isToMany ?? false, isOrdered: isOrdered ?? false, deleteRule: rule,
                isOptional: isOptional, isTransient: isTransient, minCount: minCount ?? 0,
                maxCount: maxCount ?? 0, userInfo: userInfo)
            r.declaredMinCount = declaredMinCount
            property = r
        case .fetchedProperty:
            let f = FetchedPropertyDescription(
                name: name, destination: try require(destination, "destination"),
                predicate: try require(predicate, "predicate"), userInfo: userInfo)
            f.fetchRequestName = fetchRequestName ?? f.fetchRequestName
            f.isOptional = isOptional
            property = f
        }
        property.otherUserInfo = try UserInfoArchive.decoded(otherUserInfo)
        property.renamingIdentifier = renamingIdentifier
        property.versionHashModifier = versionHashModifier
        property.isIndexedBySpotlight = isIndexedBySpotlight ?? false
        return property
    }
}

/// A value as two strings, exact for every case (doubles print their
/// shortest round-tripping form).
struct ValueArchive: Codable, Equatable {
    var type: String
    var value: String

    init(_ value: Value) {
        switch value {
        case .null: (type, self.value) = ("null", "")
        case .bool(let b): (type, self.value) = ("bool", b ? "true" : "false")
        case .int(let i): (type, self.value) = ("int", String(i))
        case .double(let d): (type, self.value) = ("double", String(d))
        case .decimal(let d): (type, self.value) = ("decimal", d.description)
        case .string(let s): (type, self.value) = ("string", s)
        case .date(let d): (type, self.value) = ("date", String(d.timeIntervalSinceReferenceDate))
        case .data(let d): (type, self.value) = ("data", d.base64EncodedString())
        case .uuid(let u): (type, self.value) = ("uuid", u.uuidString)
        case .url(let u): (type, self.value) = ("url", u.absoluteString)
        }
    }

    func decoded() throws -> Value {
        let decoded: Value?
        switch type {
        case "null": decoded = .null
        case "bool": decoded = value == "true" ? .bool(true) : value == "false" ? .bool(false) : nil
        case "int": decoded = Int64(value).map(Value.int)
        case "double": decoded = Double(value).map(Value.double)
        case "decimal": decoded = Decimal(string: value, locale: Locale(identifier: "en_US_POSIX")).map(Value.decimal)
        case "string": decoded = .string(value)
        case "date": decoded = Double(value).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case "data": decoded = Data(base64Encoded: value).map(Value.data)
        case "uuid": decoded = UUID(uuidString: value).map(Value.uuid)
        case "url": decoded = URL(string: value).map(Value.url)
        default: decoded = nil
        }
        guard let decoded else { throw ModelError.invalidArchive("bad \(type) value '\(value)'") }
        return decoded
    }
}
