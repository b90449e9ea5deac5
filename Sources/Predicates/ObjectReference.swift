import Foundation

/// An object a predicate names as a constant: what `%@` becomes when it is
/// given a managed object or an object ID, as NSPredicate keeps an
/// `NSManagedObject` in a constant expression.
///
/// ```swift
/// let p = try Predicate(format: "department == %@", sales)
/// print(p)   // department == <x-coredata://…/Department/p3>
/// ```
///
/// The store module makes these (its managed objects and object IDs are
/// ``PredicateConstant``s). The evaluator compares them by identity,
/// asking ``ReferencedObject/refers(to:)``; the SQL translator compares
/// foreign and primary keys. A reference prints as its object's
/// description, which does not parse back: bind a `$variable` instead when
/// the text must round-trip.
public struct ObjectReference: Sendable, Hashable, CustomStringConvertible {
    /// The object named.
    public var object: any ReferencedObject { operand.referent }
    /// What the evaluator holds for it.
    let operand: ReferenceOperand

    /// A reference to `object`.
    public init(_ object: any ReferencedObject) {
        self.operand = ReferenceOperand(object)
    }

    public static func == (a: ObjectReference, b: ObjectReference) -> Bool {
        AnyHashable(a.object) == AnyHashable(b.object)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(object))
    }

    /// The object's description: `<x-coredata://…/Department/p3>`.
    public var description: String { object.description }
}

/// What an ``ObjectReference`` holds: a stand-in for an object of a graph
/// that knows which objects it names. Equal stand-ins name the same object.
///
/// ```swift
/// final class RowID: ReferencedObject, @unchecked Sendable {
///     let row: Int
///     init(row: Int) { self.row = row }
///     func refers(to object: any PredicateObject) -> Bool {
///         (object as? Row)?.id == row || (object as? RowID)?.row == row
///     }
///     func predicateValue(forKey key: String) throws -> Operand {
///         throw EvaluationError(message: "a row ID has no keys")
///     }
///     static func == (a: RowID, b: RowID) -> Bool { a.row == b.row }
///     func hash(into hasher: inout Hasher) { hasher.combine(row) }
///     var description: String { "<row \(row)>" }
/// }
/// ```
public protocol ReferencedObject: PredicateObject, Hashable, Sendable, CustomStringConvertible {
    /// Whether `object`, met while evaluating (SELF, a relationship's
    /// destination, another reference), is the object this names.
    func refers(to object: any PredicateObject) -> Bool
}

/// An object reference as the evaluator holds it: an object whose keys
/// read through to the referent. It is told apart from other objects by
/// its exact class, which costs a few nanoseconds per comparison of two
/// objects, where asking whether an object conforms to
/// ``ReferencedObject`` would cost ten times as much.
final class ReferenceOperand: PredicateObject, Sendable {
    let referent: any ReferencedObject

    init(_ referent: any ReferencedObject) {
        self.referent = referent
    }

    func predicateValue(forKey key: String) throws -> Operand {
        try referent.predicateValue(forKey: key)
    }

    func predicateInvoke(selector: String, arguments: [Operand]) throws -> Operand {
        try referent.predicateInvoke(selector: selector, arguments: arguments)
    }

    /// The referent when `object` is a reference.
    @inline(__always)
    static func referent(of object: any PredicateObject) -> (any ReferencedObject)? {
        guard ObjectIdentifier(type(of: object)) == ObjectIdentifier(ReferenceOperand.self) else { return nil }
        return unsafeDowncast(object as AnyObject, to: ReferenceOperand.self).referent
    }
}

extension Expression {
    /// A constant naming an object (see ``ObjectReference``).
    public static func object(_ object: any ReferencedObject) -> Expression {
        Expression(.object(ObjectReference(object)))
    }
}
