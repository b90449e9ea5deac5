import Foundation
import ObjectStore
import Predicates
import struct Predicates.Expression

extension ShellSession {
    /// `entity Name { ... }`: adds or replaces an entity and migrates the
    /// store. A relationship whose named inverse does not exist yet on an
    /// existing destination gets it added (to-many for a to-one).
    func declare(_ declaration: EntityDeclaration, output: OutputSink) throws {
        guard !context.hasChanges else {
            throw LocatedError(ShellDiagnostics.pendingChangesBlockSchema(), declaration.name.range)
        }
        let (newModel, created, notes) = try declaredModel(declaration)
        try replaceModel(with: newModel)
        output.status((created ? "created entity \(declaration.name.text)" : "changed entity \(declaration.name.text)")
                      + notes.map { "; \($0)" }.joined())
    }

    /// The model with the entity `declaration` declares added (`created`)
    /// or replaced, and notes on what else changed.
    func declaredModel(_ declaration: EntityDeclaration) throws -> (model: ManagedObjectModel, created: Bool, notes: [String]) {
        let copy = try ManagedObjectModel(archive: model.archived())
        var entities = copy.entities.filter { $0.name != declaration.name.text }
        let existing = copy.entity(named: declaration.name.text)
        let userInfo = declaration.userInfo.isEmpty
            ? existing?.userInfo ?? [:] : Dictionary(declaration.userInfo, uniquingKeysWith: { _, last in last })
        let entity = EntityDescription(name: declaration.name.text, isAbstract: declaration.isAbstract,
                                       parent: declaration.parent?.text, userInfo: userInfo)
        if let parent = declaration.parent, copy.entity(named: parent.text) == nil {
            throw LocatedError(ShellDiagnostics.unknownEntity(parent.text, suggestion: Suggestions.closest(to: parent.text, in: copy.entities.map(\.name))), parent.range)
        }
        var notes: [String] = []
        for property in declaration.properties {
            entity.add(try makeProperty(property, entity: declaration.name.text, entities: entities + [entity], notes: &notes))
        }
        try addConstraintsAndIndexes(declaration, to: entity)
        entities.append(entity)
        // Entities that inherited from the replaced one keep pointing at it by name.
        let newModel: ManagedObjectModel
        do {
            newModel = try ManagedObjectModel(entities: entities, configurations: copy.configurations)
        } catch let error as ModelError {
            throw LocatedError(error.message, declaration.name.range)
        }
        // Templates come along while their entity and keys still exist.
        for (name, request) in copy.fetchRequestTemplatesByName.sorted(by: { $0.key < $1.key }) {
            do {
                try newModel.setFetchRequestTemplate(request, forName: name, checkingComparisons: false)
            } catch {
                notes.append("dropped fetch request template \(name)")
            }
        }
        return (newModel, existing == nil, notes)
    }

    private func makeProperty(_ property: EntityDeclaration.Property, entity: String, entities: [EntityDescription],
                              notes: inout [String]) throws -> PropertyDescription {
        var isOptional = true
        var isTransient = false
        var unique = false
        var indexed = false
        var ordered = false
        var deleteRule: DeleteRule = .nullify
        for modifier in property.modifiers {
            switch modifier.text.lowercased() {
            case "required": isOptional = false
            case "optional": isOptional = true
            case "transient": isTransient = true
            case "unique": unique = true
            case "indexed": indexed = true
            case "ordered": ordered = true
            case "cascade": deleteRule = .cascade
            case "nullify": deleteRule = .nullify
            case "deny": deleteRule = .deny
            case "noaction": deleteRule = .noAction
            default: throw LocatedError(ShellDiagnostics.unknownModifier(modifier.text), modifier.range)
            }
        }
        switch property.kind {
        case .attribute(let typeName, let defaultExpression):
            guard let coreDataName = AttributeTypeNames.type(named: typeName.text), let type = AttributeType(rawValue: coreDataName) else {
                throw LocatedError(ShellDiagnostics.unknownType(typeName.text, suggestion: Suggestions.closest(to: typeName.text, in: Array(Set(AttributeTypeNames.names.values.map(AttributeTypeNames.shellName(of:)))).sorted())), typeName.range)
            }
            var defaultValue: Value = .null
            if let defaultExpression {
                let value = try evaluate(defaultExpression)
                do { defaultValue = try type.coerce(value) } catch {
                    throw LocatedError("default value does not fit \(typeName.text): \(error)", defaultExpression.range)
                }
            }
            let attribute = AttributeDescription(name: property.name.text, type: type, isOptional: isOptional,
                                                 isTransient: isTransient, defaultValue: defaultValue,
                                                 userInfo: Dictionary(property.userInfo, uniquingKeysWith: { _, last in last }))
            attribute.isIndexed = indexed
            attribute.minValue = try bound(property.minValue, for: type, typeName: typeName.text)
            attribute.maxValue = try bound(property.maxValue, for: type, typeName: typeName.text)
            if let pattern = property.pattern {
                guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                    throw LocatedError("'\(pattern)' is not a regular expression", property.name.range)
                }
                attribute.regularExpression = pattern
            }
            if unique, let owner = entities.last { owner.uniquenessConstraints.append([property.name.text]) }
            return attribute
        case .relationship(let destinationName, let toMany):
            guard let destination = entities.first(where: { $0.name == destinationName.text }) else {
                throw LocatedError(ShellDiagnostics.unknownEntity(destinationName.text, suggestion: Suggestions.closest(to: destinationName.text, in: entities.map(\.name) + AttributeTypeNames.names.values.map(AttributeTypeNames.shellName(of:)))) + "; declare it first", destinationName.range)
            }
            let relationship = RelationshipDescription(
                name: property.name.text, destination: destination.name, inverse: property.inverse?.text,
                isToMany: toMany, isOrdered: ordered, deleteRule: deleteRule, isOptional: isOptional,
                isTransient: isTransient, minCount: property.minCount ?? 0, maxCount: property.maxCount ?? 0,
                userInfo: Dictionary(property.userInfo, uniquingKeysWith: { _, last in last }))
            if let inverse = property.inverse, destination.name != entity,
               !destination.declaredProperties.contains(where: { $0.name == inverse.text }) {
                destination.add(RelationshipDescription(name: inverse.text, destination: entity, inverse: property.name.text,
                                                        isToMany: property.inverseIsToMany || !toMany))
                notes.append("added \(destination.name).\(inverse.text) as the inverse")
            }
            return relationship
        }
    }

    /// `min`/`max` of an attribute: a value of its type, or for a string
    /// or binary attribute a length.
    private func bound(_ expression: Expression?, for type: AttributeType, typeName: String) throws -> Value? {
        guard let expression else { return nil }
        let value = try evaluate(expression)
        let lengthType: AttributeType? = type == .string || type == .binary ? .integer32 : nil
        do {
            return try (lengthType ?? type).coerce(value)
        } catch {
            throw LocatedError("a bound of a \(typeName) attribute must be \(lengthType == nil ? "a \(typeName)" : "a length"), not \(Printer.format(expression))", expression.range)
        }
    }

    /// `unique (a, b)` and `index name (a, b DESC)`: each name must be an
    /// attribute or a to-one relationship of the entity (or its parents).
    private func addConstraintsAndIndexes(_ declaration: EntityDeclaration, to entity: EntityDescription) throws {
        let declared = declaration.properties.map(\.name.text)
        func check(_ name: String, _ range: SourceRange) throws {
            var inherited: [String] = []
            var parent = declaration.parent.flatMap { model.entity(named: $0.text) }
            while let p = parent {
                inherited += p.declaredProperties.map(\.name)
                parent = p.parent
            }
            guard !(declared + inherited).contains(name) else { return }
            throw LocatedError(ShellDiagnostics.unknownKey(name, entity: entity.name,
                                                           suggestion: Suggestions.closest(to: name, in: declared + inherited)), range)
        }
        for names in declaration.uniquenessConstraints {
            for name in names { try check(name.text, name.range) }
            entity.uniquenessConstraints.append(names.map(\.text))
        }
        for (name, keys) in declaration.fetchIndexes {
            for key in keys {
                guard key.keyPath.count == 1 else {
                    throw LocatedError("a fetch index lists properties of \(entity.name), not key paths", key.range)
                }
                try check(key.keyPath[0], key.range)
            }
            entity.fetchIndexes.append(FetchIndexDescription(name: name.text, elements: keys.map { ($0.keyPath[0], $0.ascending) }))
        }
    }

    /// The `entity` statement that declares `entity`, for `.schema`.
    /// `{ richter: Double, place { latitude: Double } }`.
    static func compositeText(_ composite: AttributeDescription) -> String {
        "{ " + composite.elements.map { element in
            element.type == .composite
                ? "\(element.name) " + compositeText(element)
                : "\(element.name): " + AttributeTypeNames.shellName(of: element.type.rawValue)
        }.joined(separator: ", ") + " }"
    }

    /// The entity statement for `entity`; with `relationships` false, a
    /// first statement without its relationships (and the constraints
    /// and indexes naming them), for `schemaScript` to complete later.
    func schemaText(_ entity: EntityDescription, relationships: Bool = true) -> String {
        var head = "entity \(entity.name)"
        if let parent = entity.parentName { head += " : \(parent)" }
        if entity.isAbstract { head += " abstract" }
        var lines: [String] = []
        let relationshipNames = Set(entity.declaredProperties.compactMap { ($0 as? RelationshipDescription)?.name })
        for property in entity.declaredProperties {
            var line = "    \(property.name): "
            switch property {
            case let attribute as AttributeDescription where attribute.type == .composite:
                // The statement has no spelling for a composite: shown, not declared.
                line = "    # composite \(attribute.name) " + Self.compositeText(attribute)
            case let attribute as AttributeDescription:
                line += AttributeTypeNames.shellName(of: attribute.type.rawValue)
                if !attribute.defaultValue.isNull {
                    line += " = " + Printer.format(Expression(.constant(attribute.defaultValue)))
                }
                if !attribute.isOptional { line += " required" }
                if attribute.isTransient { line += " transient" }
                if entity.uniquenessConstraints.contains([attribute.name]) { line += " unique" }
                if attribute.isIndexed { line += " indexed" }
                if let min = attribute.minValue { line += " min " + Printer.format(Expression(.constant(min))) }
                if let max = attribute.maxValue { line += " max " + Printer.format(Expression(.constant(max))) }
                if let pattern = attribute.regularExpression { line += " pattern " + Self.quoted(pattern) }
            case let relationship as RelationshipDescription:
                guard relationships else { continue }
                line += relationship.isToMany ? "[\(relationship.destinationName)]" : relationship.destinationName
                if let inverse = relationship.inverseName {
                    line += relationship.inverse?.isToMany == true && relationship.isToMany ? " inverse [\(inverse)]" : " inverse \(inverse)"
                }
                if relationship.isOrdered { line += " ordered" }
                if relationship.deleteRule != .nullify {
                    line += " " + relationship.deleteRule.rawValue.lowercased().replacingOccurrences(of: " ", with: "")
                }
                if !relationship.isOptional { line += " required" }
                if relationship.isToMany && relationship.minCount > 0 { line += " min \(relationship.minCount)" }
                if relationship.isToMany && relationship.maxCount > 0 { line += " max \(relationship.maxCount)" }
            case let fetched as FetchedPropertyDescription:
                // The predicate's text is the model file's: one line, escaped.
                line = "    # fetched \(fetched.name): \(fetched.destinationName) where \(TerminalText.escaped(fetched.predicateFormat))"
            default:
                continue
            }
            if !property.userInfo.isEmpty, !line.hasPrefix("    #") { line += " userInfo " + Self.userInfoText(property.userInfo) }
            lines.append(line)
            // User info a statement cannot spell (arrays, data, dates): shown, not declared.
            if !property.otherUserInfo.isEmpty {
                lines.append("    # userInfo of \(property.name) " + Self.otherUserInfoText(property.otherUserInfo))
            }
        }
        let attributeNames = Set(entity.attributes.map(\.name))
        for names in entity.uniquenessConstraints where names.count > 1 || !attributeNames.contains(names[0]) {
            guard relationships || relationshipNames.isDisjoint(with: names) else { continue }
            lines.append("    unique (" + names.joined(separator: ", ") + ")")
        }
        for index in entity.fetchIndexes {
            guard relationships || relationshipNames.isDisjoint(with: index.elements.map(\.property)) else { continue }
            let elements = index.elements.map { element in
                let expression = index.expressions[element.property].map { " = " + ($0.isEmpty ? "(an expression)" : $0) } ?? ""
                return element.property + expression + (element.ascending ? "" : " DESC")
            }.joined(separator: ", ")
            // An index over expressions cannot be declared: shown, not declared.
            lines.append((index.expressions.isEmpty ? "    index " : "    # index ") + "\(index.name) (\(elements))")
        }
        if !entity.userInfo.isEmpty { lines.append("    userInfo " + Self.userInfoText(entity.userInfo)) }
        if !entity.otherUserInfo.isEmpty { lines.append("    # userInfo " + Self.otherUserInfoText(entity.otherUserInfo)) }
        // Each line one line, whatever a name holds (values are escaped
        // already, as literals).
        let shown = lines.map { TerminalText.escaped($0) }
        return TerminalText.escaped(head) + " {\n" + shown.joined(separator: "\n") + (lines.isEmpty ? "" : "\n") + "}"
    }

    /// `{ "key": "value", … }`, keys sorted.
    static func userInfoText(_ userInfo: [String: String]) -> String {
        "{ " + userInfo.sorted { $0.key < $1.key }.map { quoted($0.key) + ": " + quoted($0.value) }.joined(separator: ", ") + " }"
    }

    /// `{ "key": [1, 2], … }`, keys sorted.
    static func otherUserInfoText(_ userInfo: [String: UserInfoValue]) -> String {
        UserInfoValue.dictionary(userInfo).text
    }

    static func quoted(_ text: String) -> String {
        Printer.format(Expression(.constant(.string(text))))
    }

    /// The entity statements that build the whole model in an empty store,
    /// in an order they run in: a parent before its children, a
    /// relationship's destination before it. Entities that relationships
    /// name before their turn (inverse pairs name each other) are first
    /// declared without relationships, then in full where their turn
    /// comes.
    func schemaScript() -> [String] {
        // Parents first, by depth; at each depth, destinations before the
        // entities naming them, where no cycle prevents it.
        func depth(_ entity: EntityDescription) -> Int { entity.parent.map { depth($0) + 1 } ?? 0 }
        var order: [EntityDescription] = []
        var visited = Set<ObjectIdentifier>()
        func visit(_ entity: EntityDescription) {
            guard visited.insert(ObjectIdentifier(entity)).inserted else { return }
            for case let relationship as RelationshipDescription in entity.declaredProperties {
                if let destination = relationship.destination, depth(destination) == depth(entity) { visit(destination) }
            }
            order.append(entity)
        }
        for (_, entities) in Dictionary(grouping: model.entities, by: depth).sorted(by: { $0.key < $1.key }) {
            for entity in entities.sorted(by: { $0.name < $1.name }) { visit(entity) }
        }
        // Named before its declaration: declared first without relationships.
        var early = Set<ObjectIdentifier>()
        var declared = Set<ObjectIdentifier>()
        for entity in order {
            declared.insert(ObjectIdentifier(entity))
            for case let relationship as RelationshipDescription in entity.declaredProperties {
                guard let destination = relationship.destination, !declared.contains(ObjectIdentifier(destination)) else { continue }
                var current: EntityDescription? = destination
                while let e = current {
                    early.insert(ObjectIdentifier(e))
                    current = e.parent
                }
            }
        }
        var statements: [String] = []
        var stubs: [ObjectIdentifier: String] = [:]
        for entity in order where early.contains(ObjectIdentifier(entity)) {  // parents first
            let stub = schemaText(entity, relationships: false)
            stubs[ObjectIdentifier(entity)] = stub
            statements.append(stub)
        }
        // A first declaration needs no second when the other sides'
        // declarations add each of its relationships as their inverse,
        // exactly as it is.
        var complete = Set<ObjectIdentifier>()
        for entity in order where stubs[ObjectIdentifier(entity)] != nil {
            let relationships = entity.declaredProperties.compactMap { $0 as? RelationshipDescription }
            if relationships.allSatisfy({ Self.isAddedAsInverse($0, of: entity) && !complete.contains(ObjectIdentifier($0.destination!)) }),
               entity.uniquenessConstraints.allSatisfy({ $0.allSatisfy { entity.attribute(named: $0) != nil } }),
               entity.fetchIndexes.allSatisfy({ $0.elements.allSatisfy { entity.attribute(named: $0.property) != nil } }) {
                complete.insert(ObjectIdentifier(entity))
            }
        }
        for entity in order where !complete.contains(ObjectIdentifier(entity)) {
            let full = schemaText(entity)
            if stubs[ObjectIdentifier(entity)] != full { statements.append(full) }
        }
        return statements
    }

    /// Whether declaring the other side of `relationship` (with `inverse
    /// NAME`) adds it to `entity` as it is: the entity statement's
    /// defaults (optional, nullify, unordered, no counts, no user info),
    /// to-many exactly when the other side says so.
    static func isAddedAsInverse(_ relationship: RelationshipDescription, of entity: EntityDescription) -> Bool {
        guard let inverse = relationship.inverse, let destination = relationship.destination, destination !== entity,
              inverse.destination === entity, !relationship.isTransient, !inverse.isTransient else { return false }
        // The other side writes `inverse [name]` when both are to-many.
        let addedToMany = (inverse.isToMany && relationship.isToMany) || !inverse.isToMany
        return addedToMany == relationship.isToMany && relationship.isOptional && !relationship.isOrdered
            && relationship.deleteRule == .nullify && relationship.minCount == 0 && relationship.maxCount == 0
            && relationship.userInfo.isEmpty
    }
}
