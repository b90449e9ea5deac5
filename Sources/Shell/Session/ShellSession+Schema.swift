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
        let entity = EntityDescription(name: declaration.name.text, isAbstract: declaration.isAbstract,
                                       parent: declaration.parent?.text, userInfo: existing?.userInfo ?? [:])
        if let parent = declaration.parent, copy.entity(named: parent.text) == nil {
            throw LocatedError(ShellDiagnostics.unknownEntity(parent.text, suggestion: Suggestions.closest(to: parent.text, in: copy.entities.map(\.name))), parent.range)
        }
        var notes: [String] = []
        for property in declaration.properties {
            entity.add(try makeProperty(property, entity: declaration.name.text, entities: entities + [entity], notes: &notes))
        }
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
                                                 isTransient: isTransient, defaultValue: defaultValue)
            attribute.isIndexed = indexed
            if unique, let owner = entities.last { owner.uniquenessConstraints.append([property.name.text]) }
            return attribute
        case .relationship(let destinationName, let toMany):
            guard let destination = entities.first(where: { $0.name == destinationName.text }) else {
                throw LocatedError(ShellDiagnostics.unknownEntity(destinationName.text, suggestion: Suggestions.closest(to: destinationName.text, in: entities.map(\.name) + AttributeTypeNames.names.values.map(AttributeTypeNames.shellName(of:)))) + "; declare it first", destinationName.range)
            }
            let relationship = RelationshipDescription(
                name: property.name.text, destination: destination.name, inverse: property.inverse?.text,
                isToMany: toMany, isOrdered: ordered, deleteRule: deleteRule, isOptional: isOptional,
                isTransient: isTransient, minCount: property.minCount ?? 0, maxCount: property.maxCount ?? 0)
            if let inverse = property.inverse, destination.name != entity,
               !destination.declaredProperties.contains(where: { $0.name == inverse.text }) {
                destination.add(RelationshipDescription(name: inverse.text, destination: entity, inverse: property.name.text,
                                                        isToMany: property.inverseIsToMany || !toMany))
                notes.append("added \(destination.name).\(inverse.text) as the inverse")
            }
            return relationship
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

    func schemaText(_ entity: EntityDescription) -> String {
        var head = "entity \(entity.name)"
        if let parent = entity.parentName { head += " : \(parent)" }
        if entity.isAbstract { head += " abstract" }
        var lines: [String] = []
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
            case let relationship as RelationshipDescription:
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
                line = "    # fetched \(fetched.name): \(fetched.destinationName) where \(fetched.predicateFormat)"
            default:
                continue
            }
            lines.append(line)
        }
        return head + " {\n" + lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n") + "}"
    }
}
