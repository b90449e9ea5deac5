import Foundation
import Predicates

extension ManagedObjectContext {
    /// Runs the object's per-key validation (`validateValue(_:forKey:)`)
    /// over every changed attribute: all of them for an insert. A value
    /// the method replaces is stored, tracked as any other change.
    func keyValidationFailures(of object: ManagedObject) -> [ValidationError.Failure] {
        // Only a subclass can override `validateValue`.
        if type(of: object) == ManagedObject.self { return [] }
        var failures: [ValidationError.Failure] = []
        for index in object.changedAttributeIndexes {
            let attribute = object.entity.attributes[index]
            guard !attribute.isTransient else { continue }
            var value = object.values[index]
            do {
                try object.validateValue(&value, forKey: attribute.name)
                if value != object.values[index] { object.setAttribute(at: index, to: value) }
            } catch let error as ValidationError {
                failures += error.failures
            } catch let issue as ValidationIssue {
                failures.append(.init(objectID: object.objectID, key: attribute.name, message: issue.message))
            } catch {
                failures.append(.init(objectID: object.objectID, key: attribute.name,
                                      message: model.localizedErrorString("\(error)")))
            }
        }
        return failures
    }
}

extension ManagedObjectModel {
    /// The message refusing to delete an object whose Deny relationship
    /// still holds objects, in the model's localized names.
    func denyMessage(entity: EntityDescription, relationship: String, count: Int) -> String {
        let entityName = localizedName(ofEntity: entity.name)
        let relationshipName = localizedName(ofProperty: relationship, entity: entity.name)
        let objects = count == 1 ? "object" : "objects"
        return localizedErrorString(
            "cannot delete \(entityName): its '\(relationshipName)' still has \(count) \(objects) (delete rule Deny)")
    }
}

extension AttributeType {
    /// Whether Core Data would give the attribute a scalar accessor: a
    /// number or a boolean, which cannot hold nil.
    var isScalar: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .boolean, .decimal: return true
        default: return false
        }
    }
}

extension ValidationError {
    /// One failure of `object`, for validation methods to throw.
    ///
    /// ```swift
    /// throw ValidationError(self, key: "email", message: "email is taken")
    /// ```
    public init(_ object: ManagedObject, key: String?, message: String) {
        let text = object.entity.model?.localizedErrorString(message) ?? message
        self.init(failures: [.init(objectID: object.objectID, key: key, message: text)])
    }
}
