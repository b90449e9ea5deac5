import Foundation
import Predicates

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads the `contents` XML of an `.xcdatamodel` into entity descriptions.
///
/// The parser keeps what shapes a model and skips what Xcode keeps for
/// itself (`elements`, layout, `codeGenerationType`, `syncable`,
/// `usesScalarValueType`, ...). It remembers the line of every entity and
/// property so that errors found later, when the model is resolved, still
/// point at their element.
final class XcodeModelParser: NSObject, XMLParserDelegate {
    struct Result {
        var entities: [EntityDescription]
        var configurations: [String: [String]]
        var versionIdentifier: String?
        /// `Entity` or `Entity.property` → line of its element.
        var lines: [String: Int]
        var configurationLines: [String: Int]
        /// Model-level `<fetchRequest>` elements, in file order.
        var fetchRequests: [XcodeFetchRequest]
    }

    private let file: String
    private var entities: [EntityDescription] = []
    private var configurations: [String: [String]] = [:]
    private var versionIdentifier: String?
    private var lines: [String: Int] = [:]
    private var configurationLines: [String: Int] = [:]
    private var fetchRequests: [XcodeFetchRequest] = []
    /// Model-level `<composite>` definitions: name → elements, and line.
    private var composites: [String: (elements: [AttributeDescription], line: Int)] = [:]
    private var error: ModelError?
    private let flag = XcodeXML.flag
    private let nonEmpty = XcodeXML.nonEmpty

    // Where the parser is.
    private var sawModel = false
    private var entity: EntityDescription?
    private var property: PropertyDescription?
    private var sawFetchRequest = false
    private var constraint: [String]?
    private var fetchIndex: FetchIndexDescription?
    private var compoundIndex: [String]?
    private var configuration: String?
    private var composite: (name: String, elements: [AttributeDescription], line: Int)?

    private init(file: String) { self.file = file }

    /// Parses `data`; `file` names it in errors.
    static func parse(_ data: Data, file: String) throws -> Result {
        let delegate = XcodeModelParser(file: file)
        let text: Data
        do {
            text = try XMLInput.normalized(data)
        } catch {
            throw ModelError.malformedXML(error.description).located(file: file, line: 1)
        }
        let parser = XMLParser(data: text)
        parser.delegate = delegate
        parser.shouldProcessNamespaces = false
        let ok = parser.parse()
        if let error = delegate.error { throw error }
        guard ok else {
            let reason = parser.parserError.map(Self.describe) ?? "cannot parse"
            throw ModelError.malformedXML(reason).located(file: file, line: parser.lineNumber)
        }
        guard delegate.sawModel else {
            throw ModelError.malformedXML("no <model> element").located(file: file, line: parser.lineNumber)
        }
        try delegate.fillComposites()
        return Result(
            entities: delegate.entities, configurations: delegate.configurations,
            versionIdentifier: delegate.versionIdentifier, lines: delegate.lines,
            configurationLines: delegate.configurationLines, fetchRequests: delegate.fetchRequests)
    }

    /// Gives every composite attribute the elements of the `<composite>`
    /// it names, each its own copy (an element of a composite used twice
    /// belongs to two attributes). Composites inside composites are filled
    /// the same way; one that contains itself is an error, and so is a
    /// file whose composites nest deeper than 32 levels or expand to more
    /// than 100,000 elements (each nesting multiplies).
    private func fillComposites() throws {
        var copies = 0
        func fill(_ attribute: AttributeDescription, inside: [String], line: Int?) throws {
            guard let name = attribute.compositeName else { return }
            guard let definition = composites[name] else {
                throw ModelError("attribute '\(attribute.name)' names unknown composite '\(name)'").located(file: file, line: line)
            }
            guard !inside.contains(name) else {
                throw ModelError("composite '\(name)' contains itself").located(file: file, line: definition.line)
            }
            copies += definition.elements.count
            guard inside.count < 32, copies <= 100_000 else {
                throw ModelError("composite '\(name)' nests too deep or expands to too many elements")
                    .located(file: file, line: definition.line)
            }
            attribute.elements = definition.elements.map { $0.copy(named: $0.name) }
            for element in attribute.elements where element.type == .composite {
                try fill(element, inside: inside + [name], line: definition.line)
            }
        }
        for entity in entities {
            for case let attribute as AttributeDescription in entity.declaredProperties where attribute.type == .composite {
                try fill(attribute, inside: [], line: lines["\(entity.name).\(attribute.name)"])
            }
        }
    }

    private static func describe(_ error: Error) -> String {
        let nsError = error as NSError
        if let message = nsError.userInfo["NSXMLParserErrorMessage"] as? String {
            return message.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return libxml2Messages[nsError.code] ?? "XML error \(nsError.code)"
    }

    /// The parser reports libxml2's error numbers without their text.
    private static let libxml2Messages: [Int: String] = [
        4: "the document is empty",
        5: "extra content at the end of the document",
        9: "invalid character",
        23: "entity reference without ';'",
        26: "undeclared entity",
        38: "'<' in an attribute value",
        39: "attribute value does not start with a quote",
        40: "attribute value is not closed",
        41: "attribute without a value",
        42: "attribute given twice",
        45: "comment is not closed",
        65: "expected a space",
        68: "expected a name",
        73: "expected '>'",
        74: "expected '</'",
        75: "expected '='",
        76: "closing tag does not match the opening tag",
        77: "element is not closed",
    ]

    // MARK: XMLParserDelegate

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        do {
            try start(element, attributes, line: parser.lineNumber)
        } catch let error as ModelError {
            fail(parser, error)
        } catch {
            fail(parser, ModelError(String(describing: error)))
        }
    }

    func parser(
        _ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?
    ) {
        do {
            try end(element)
        } catch let error as ModelError {
            fail(parser, error)
        } catch {
            fail(parser, ModelError(String(describing: error)))
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        // swift-corelibs-foundation's parser recovers and goes on, and
        // `parse()` may still return true: the first error is the one.
        fail(parser, ModelError.malformedXML(Self.describe(parseError)))
    }

    private func fail(_ parser: XMLParser, _ error: ModelError) {
        guard self.error == nil else { return }
        self.error = error.located(file: file, line: error.line ?? parser.lineNumber)
        parser.abortParsing()
    }

    // MARK: Elements

    private func start(_ element: String, _ attributes: [String: String], line: Int) throws {
        switch element {
        case "model":
            sawModel = true
            if let version = attributes["userDefinedModelVersionIdentifier"], !version.isEmpty {
                versionIdentifier = version
            }
        case "entity":
            guard sawModel else { throw ModelError.misplaced(element: element, expectedParent: "model") }
            guard let name = attributes["name"], !name.isEmpty else { throw ModelError.missingName("entity") }
            let entity = EntityDescription(
                name: name, isAbstract: flag(attributes["isAbstract"]), parent: attributes["parentEntity"])
            entity.className = attributes["representedClassName"]
            entity.renamingIdentifier = nonEmpty(attributes["elementID"])
            entity.versionHashModifier = nonEmpty(attributes["versionHashModifier"])
            entities.append(entity)
            lines[entity.name] = lines[entity.name] ?? line
            self.entity = entity
        case "attribute":
            if composite != nil {
                let attribute = try XcodeAttributeReader(attributes: attributes, entity: "composite").read()
                composite?.elements.append(attribute)
                property = attribute
                return
            }
            let entity = try currentEntity(element)
            let attribute = try XcodeAttributeReader(attributes: attributes, entity: entity.name).read()
            try add(attribute, to: entity, line: line)
        case "composite":
            guard sawModel, entity == nil, composite == nil else {
                throw ModelError.misplaced(element: element, expectedParent: "model")
            }
            guard let name = attributes["name"], !name.isEmpty else { throw ModelError.missingName("composite") }
            guard composites[name] == nil else { throw ModelError("duplicate composite '\(name)'") }
            composite = (name, [], line)
        case "relationship":
            let entity = try currentEntity(element)
            try add(try relationship(attributes, entity: entity.name), to: entity, line: line)
        case "fetchedProperty":
            let entity = try currentEntity(element)
            guard let name = attributes["name"], !name.isEmpty else {
                throw ModelError.missingName("fetched property of entity '\(entity.name)'")
            }
            let fetched = FetchedPropertyDescription(name: name, destination: "", predicate: "")
            fetched.isOptional = flag(attributes["optional"])
            fetched.renamingIdentifier = nonEmpty(attributes["elementID"])
            fetched.versionHashModifier = nonEmpty(attributes["versionHashModifier"])
            sawFetchRequest = false
            try add(fetched, to: entity, line: line)
        case "fetchRequest" where entity == nil && composite == nil && sawModel:
            // A fetch request template of the model.
            fetchRequests.append(try XcodeFetchRequest(attributes, line: line))
        case "fetchRequest":
            guard let fetched = property as? FetchedPropertyDescription else {
                throw ModelError.misplaced(element: element, expectedParent: "fetchedProperty")
            }
            guard let destination = attributes["entity"], !destination.isEmpty else {
                throw ModelError.missingAttribute(element: "fetched property", name: fetched.name, attribute: "entity")
            }
            fetched.destinationName = destination
            fetched.predicateFormat = attributes["predicateString"] ?? "TRUEPREDICATE"
            if let name = attributes["name"] { fetched.fetchRequestName = name }
            sawFetchRequest = true
        case "entry":
            guard let key = attributes["key"] else {
                throw ModelError.missingAttribute(element: "userInfo", name: "entry", attribute: "key")
            }
            let value = attributes["value"] ?? ""
            if let property {
                property.userInfo[key] = value
            } else if let entity {
                entity.userInfo[key] = value
            }
        case "validationPredicate":
            guard let attribute = property as? AttributeDescription else {
                throw ModelError.misplaced(element: element, expectedParent: "attribute")
            }
            guard let format = attributes["predicateString"] else {
                throw ModelError.missingAttribute(
                    element: "validation predicate of attribute", name: attribute.name, attribute: "predicateString")
            }
            attribute.validationPredicates.append((format, attributes["message"] ?? ""))
        case "uniquenessConstraint":
            _ = try currentEntity(element)
            constraint = []
        case "constraint":
            guard constraint != nil else { throw ModelError.misplaced(element: element, expectedParent: "uniquenessConstraint") }
            if let value = attributes["value"] { constraint?.append(value) }
        case "fetchIndex":
            let entity = try currentEntity(element)
            guard let name = attributes["name"], !name.isEmpty else {
                throw ModelError.missingName("fetch index of entity '\(entity.name)'")
            }
            fetchIndex = FetchIndexDescription(name: name, elements: [])
        case "fetchIndexElement":
            guard fetchIndex != nil else { throw ModelError.misplaced(element: element, expectedParent: "fetchIndex") }
            // Expression elements (`expression="..."`) index a computed
            // value that mrq's stores cannot build; they are skipped.
            if let property = attributes["property"] {
                fetchIndex?.elements.append((property, attributes["order"]?.lowercased() != "descending"))
            }
        case "compoundIndex":
            _ = try currentEntity(element)
            compoundIndex = []
        case "index":
            if compoundIndex != nil, let value = attributes["value"] { compoundIndex?.append(value) }
        case "configuration":
            guard let name = attributes["name"], !name.isEmpty else { throw ModelError.missingName("configuration") }
            configuration = name
            configurations[name] = configurations[name] ?? []
            configurationLines[name] = line
        case "memberEntity":
            guard let configuration else { throw ModelError.misplaced(element: element, expectedParent: "configuration") }
            guard let name = attributes["name"], !name.isEmpty else {
                throw ModelError.missingName("member entity of configuration '\(configuration)'")
            }
            configurations[configuration]?.append(name)
        default:
            break  // elements, element, userInfo, layout and what Xcode adds next
        }
    }

    private func end(_ element: String) throws {
        switch element {
        case "entity":
            entity = nil
        case "attribute", "relationship":
            property = nil
        case "fetchedProperty":
            if let fetched = property, !sawFetchRequest {
                throw ModelError.missingAttribute(element: "fetched property", name: fetched.name, attribute: "fetchRequest")
            }
            property = nil
        case "uniquenessConstraint":
            if let constraint, !constraint.isEmpty { entity?.uniquenessConstraints.append(constraint) }
            constraint = nil
        case "fetchIndex":
            if let fetchIndex, !fetchIndex.elements.isEmpty { entity?.fetchIndexes.append(fetchIndex) }
            fetchIndex = nil
        case "compoundIndex":
            if let compoundIndex, !compoundIndex.isEmpty, let entity {
                let name = "\(entity.name)_" + compoundIndex.joined(separator: "_")
                entity.fetchIndexes.append(FetchIndexDescription(name: name, elements: compoundIndex.map { ($0, true) }))
            }
            compoundIndex = nil
        case "configuration":
            configuration = nil
        case "composite":
            if let composite { composites[composite.name] = (composite.elements, composite.line) }
            composite = nil
        default:
            break
        }
    }

    private func currentEntity(_ element: String) throws -> EntityDescription {
        guard let entity else { throw ModelError.misplaced(element: element, expectedParent: "entity") }
        return entity
    }

    private func add(_ property: PropertyDescription, to entity: EntityDescription, line: Int) throws {
        entity.add(property)
        lines["\(entity.name).\(property.name)"] = lines["\(entity.name).\(property.name)"] ?? line
        self.property = property
    }

    private func relationship(_ attributes: [String: String], entity: String) throws -> RelationshipDescription {
        guard let name = attributes["name"], !name.isEmpty else {
            throw ModelError.missingName("relationship of entity '\(entity)'")
        }
        guard let destination = attributes["destinationEntity"], !destination.isEmpty else {
            throw ModelError.missingAttribute(element: "relationship", name: name, attribute: "destinationEntity")
        }
        var rule = DeleteRule.nullify
        if let text = attributes["deletionRule"] {
            guard let parsed = DeleteRule(rawValue: text) else {
                throw ModelError.unknownDeleteRule(relationship: name, rule: text)
            }
            rule = parsed
        }
        func count(_ key: String) throws -> Int {
            guard let text = attributes[key] else { return 0 }
            guard let value = Int(text), value >= 0 else {
                throw ModelError.invalidNumber(element: "relationship", name: name, attribute: key, text: text)
            }
            return value
        }
        // Xcode marks to-many with toMany="YES"; a to-one has maxCount="1"
        // and, in old models, minCount="1" even when optional.
        let toMany = flag(attributes["toMany"])
        let relationship = RelationshipDescription(
            name: name, destination: destination, inverse: nonEmpty(attributes["inverseName"]),
            isToMany: toMany, isOrdered: flag(attributes["ordered"]), deleteRule: rule,
            isOptional: flag(attributes["optional"]), isTransient: flag(attributes["transient"]),
            minCount: toMany ? try count("minCount") : 0, maxCount: toMany ? try count("maxCount") : 1)
        if !toMany, attributes["minCount"] != nil {
            relationship.declaredMinCount = try count("minCount")
        }
        relationship.renamingIdentifier = nonEmpty(attributes["elementID"])
        relationship.versionHashModifier = nonEmpty(attributes["versionHashModifier"])
        return relationship
    }
}
