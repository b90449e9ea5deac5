import Foundation
import Predicates
import struct Predicates.Expression

/// A managed object is a predicate constant: `department == %@` compares
/// identity in memory and, in SQL, the foreign key with the object's
/// primary key; `department IN %@` takes an array of objects.
///
/// ```swift
/// let staff = try context.fetch(FetchRequest(entityName: "Person",
///     predicate: try Predicate(format: "department == %@", sales)))
/// ```
///
/// The predicate holds the object, as NSPredicate does: an object still
/// unsaved when the predicate was made matches by its permanent ID once
/// saved. Until then it matches the context's pending objects that point
/// at it, and no saved row. Use the predicate where the object may be used
/// (its context's queue, or a child's); for another queue, pass the
/// object's `objectID`.
extension ManagedObject: PredicateConstant {
    /// A reference to this object, for a predicate.
    public var predicateExpression: Expression { .object(ObjectArgument(id: objectID, object: self)) }
}

/// An object ID is a predicate constant: the object it names, matched by
/// ID in any context (an object of another store, or a temporary ID from
/// before a save, matches nothing saved).
///
/// ```swift
/// let p = try Predicate(format: "department IN %@", Set(departmentIDs))
/// ```
extension ObjectID: PredicateConstant {
    /// A reference to the object this names, for a predicate.
    public var predicateExpression: Expression { .object(ObjectArgument(id: self, object: nil)) }
}

/// What `%@` holds for a managed object or an object ID.
///
/// Sendable though it may hold a managed object: it only reads the
/// object's ID and identity, where a predicate holding it is used (the
/// rule ``ManagedObject/predicateExpression`` states, Core Data's too).
package final class ObjectArgument: ReferencedObject, @unchecked Sendable {
    /// The ID when the argument was given.
    let id: ObjectID
    /// The object given, if an object (rather than an ID) was.
    package let object: ManagedObject?

    init(id: ObjectID, object: ManagedObject?) {
        self.id = id
        self.object = object
    }

    /// The ID now: an object given unsaved has its permanent ID once saved.
    package var currentID: ObjectID {
        guard id.isTemporaryID, let object else { return id }
        return object.objectID
    }

    /// The object given, or one with the same ID: a managed object of any
    /// context, an XML store's row, another argument.
    package func refers(to candidate: any PredicateObject) -> Bool {
        if let object, candidate === object { return true }
        let candidateID: ObjectID
        switch candidate {
        case let other as ManagedObject: candidateID = other.objectID
        case let other as ObjectArgument: candidateID = other.currentID
        case let row as RowObject: candidateID = row.row.snapshot.id
        default: return false
        }
        return candidateID == currentID
    }

    /// Keys read through to the object given; an ID has none to read.
    package func predicateValue(forKey key: String) throws -> Operand {
        guard let object else {
            throw EvaluationError(message: "cannot read '\(key)' of the object ID \(id) in a predicate: pass the object instead")
        }
        return try object.predicateValue(forKey: key)
    }

    /// Equal arguments name the same object the same way: the same object
    /// given, or the same ID.
    package static func == (a: ObjectArgument, b: ObjectArgument) -> Bool {
        a.object === b.object && (a.object != nil || a.id == b.id)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(id.entity.rootEntity))
    }

    /// `<x-coredata://…/Department/p3>`.
    package var description: String { "<\(currentID)>" }
}

extension ObjectReference {
    /// The ID of the object named, when the store module made the
    /// reference.
    var objectID: ObjectID? { (object as? ObjectArgument)?.currentID }
}
