import Foundation
import Predicates

/// A Swift type an attribute can hold.
public protocol AttributeValue {
    /// Reads the type from a stored attribute value, or returns nil when the
    /// value holds something this type cannot represent (another case of
    /// `Value`, or a number out of range).
    init?(attributeValue: Value)
    /// The value as an attribute holds it, ready for
    /// ``ManagedObject/setAttributeValue(_:forKey:)``.
    var attributeValue: Value { get }
    /// The attribute types whose every value this type holds and writes
    /// back unchanged, for the check `register` makes; nil (the default
    /// for your own conformances) checks nothing.
    static var attributeTypes: Set<AttributeType>? { get }
}

extension AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { nil }
}

private let integerTypes: Set<AttributeType> = [.integer16, .integer32, .integer64]

extension String: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.string] }
    /// Unwraps a `.string` value; nil for any other case.
    public init?(attributeValue v: Value) { guard case .string(let s) = v else { return nil }; self = s }
    /// The string as a `.string` value.
    public var attributeValue: Value { .string(self) }
}
extension Bool: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.boolean] }
    /// Unwraps a `.bool` value, or reads an `.int` as `true` when it is not
    /// zero (how SQLite stores booleans); nil for any other case.
    public init?(attributeValue v: Value) {
        switch v {
        case .bool(let b): self = b
        case .int(let i): self = i != 0
        default: return nil
        }
    }
    /// The Boolean as a `.bool` value.
    public var attributeValue: Value { .bool(self) }
}
extension Int: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { integerTypes }
    /// Unwraps an `.int` value; nil for any other case.
    public init?(attributeValue v: Value) { guard case .int(let i) = v, let n = Int(exactly: i) else { return nil }; self = n }
    /// The integer as an `.int` value.
    public var attributeValue: Value { .int(Int64(self)) }
}
extension Int16: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.integer16] }
    /// Unwraps an `.int` value that fits in 16 bits; nil for a larger
    /// integer or any other case.
    public init?(attributeValue v: Value) { guard case .int(let i) = v, let n = Int16(exactly: i) else { return nil }; self = n }
    /// The integer as an `.int` value.
    public var attributeValue: Value { .int(Int64(self)) }
}
extension Int32: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.integer16, .integer32] }
    /// Unwraps an `.int` value that fits in 32 bits; nil for a larger
    /// integer or any other case.
    public init?(attributeValue v: Value) { guard case .int(let i) = v, let n = Int32(exactly: i) else { return nil }; self = n }
    /// The integer as an `.int` value.
    public var attributeValue: Value { .int(Int64(self)) }
}
extension Int64: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { integerTypes }
    /// Unwraps an `.int` value; nil for any other case.
    public init?(attributeValue v: Value) { guard case .int(let i) = v else { return nil }; self = i }
    /// The integer as an `.int` value.
    public var attributeValue: Value { .int(self) }
}
extension Double: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.double, .float] }
    /// Unwraps a `.double` value, or converts an `.int`; nil for any other
    /// case.
    public init?(attributeValue v: Value) {
        switch v {
        case .double(let d): self = d
        case .int(let i): self = Double(i)
        default: return nil
        }
    }
    /// The number as a `.double` value.
    public var attributeValue: Value { .double(self) }
}
extension Float: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.double, .float] }
    /// Reads a `.double` or `.int` value as `Double` does, then rounds it to
    /// the nearest `Float`; nil for any other case.
    public init?(attributeValue v: Value) {
        guard let d = Double(attributeValue: v) else { return nil }
        self = Float(d)
    }
    /// The number widened to a `.double` value.
    public var attributeValue: Value { .double(Double(self)) }
}
extension Decimal: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.decimal] }
    /// Unwraps a `.decimal` value; nil for any other case.
    public init?(attributeValue v: Value) { guard case .decimal(let d) = v else { return nil }; self = d }
    /// The number as a `.decimal` value.
    public var attributeValue: Value { .decimal(self) }
}
extension Date: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.date] }
    /// Unwraps a `.date` value; nil for any other case.
    public init?(attributeValue v: Value) { guard case .date(let d) = v else { return nil }; self = d }
    /// The date as a `.date` value.
    public var attributeValue: Value { .date(self) }
}
extension Data: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.binary, .transformable] }
    /// Unwraps a `.data` value (a binary or transformable attribute); nil for
    /// any other case.
    public init?(attributeValue v: Value) { guard case .data(let d) = v else { return nil }; self = d }
    /// The bytes as a `.data` value.
    public var attributeValue: Value { .data(self) }
}
extension UUID: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.uuid] }
    /// Unwraps a `.uuid` value; nil for any other case.
    public init?(attributeValue v: Value) { guard case .uuid(let u) = v else { return nil }; self = u }
    /// The identifier as a `.uuid` value.
    public var attributeValue: Value { .uuid(self) }
}
extension URL: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { [.uri, .objectID] }
    /// Unwraps a `.url` value (a URI or object ID attribute); nil for any
    /// other case.
    public init?(attributeValue v: Value) { guard case .url(let u) = v else { return nil }; self = u }
    /// The URL as a `.url` value.
    public var attributeValue: Value { .url(self) }
}
extension Optional: AttributeValue where Wrapped: AttributeValue {
    public static var attributeTypes: Set<AttributeType>? { Wrapped.attributeTypes }
    /// Reads `.null` as `nil` and anything else as `Wrapped` does; nil (the
    /// initializer failing) when `Wrapped` cannot read the value.
    public init?(attributeValue v: Value) {
        if v.isNull { self = .none; return }
        guard let wrapped = Wrapped(attributeValue: v) else { return nil }
        self = .some(wrapped)
    }
    /// The wrapped value's attribute value, or `.null` for `nil`.
    public var attributeValue: Value { self?.attributeValue ?? .null }
}

/// A typed attribute of a managed object subclass.
///
/// ```swift
/// final class Person: ManagedObject {
///     @Managed("firstName") var firstName: String?
///     @Managed("age") var age: Int16
///     @ManagedToOne("department") var department: Department?
///     @ManagedToMany("friends") var friends: [Person]
/// }
/// ```
///
/// Reading a nil into a non-optional type gives the type's zero value
/// (Core Data's scalar accessors do the same); use an optional type to see
/// nil.
@propertyWrapper
public struct Managed<T: AttributeValue>: ManagedPropertyWrapper {
    /// The name of the attribute in the entity, as the model spells it.
    public let key: String
    var expectation: PropertyExpectation { .attribute(T.self) }
    /// Binds the property to the attribute named `key` of the object's
    /// entity.
    public init(_ key: String) { self.key = key }

    @available(*, unavailable, message: "@Managed works only in ManagedObject subclasses")
    public var wrappedValue: T {
        get { fatalError("@Managed works only in ManagedObject subclasses") }
        set { fatalError("@Managed works only in ManagedObject subclasses") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed<T>>
    ) -> T {
        get {
            let key = object[keyPath: storageKeyPath].key
            let value = object[key]
            if let typed = T(attributeValue: value) { return typed }
            guard let zero = T(attributeValue: zeroValue(for: object, key: key)) else {
                let attribute = object.entity.attribute(named: key)
                preconditionFailure("@Managed(\"\(key)\") of \(type(of: object)) is a \(T.self), which cannot hold "
                    + (attribute.map { "\(object.entity.name).\(key), a \($0.type.rawValue) attribute" } ?? "\(object.entity.name).\(key): the entity has no such attribute")
                    + " (model.register(\(type(of: object)).self) says so at setup)")
            }
            return zero
        }
        set {
            object.setAttributeValueCodingNil(newValue.attributeValue, forKey: object[keyPath: storageKeyPath].key)
        }
    }

    private static func zeroValue(for object: ManagedObject, key: String) -> Value {
        guard let attribute = object.entity.attribute(named: key) else { return .null }
        switch attribute.type {
        case .integer16, .integer32, .integer64: return .int(0)
        case .double, .float: return .double(0)
        case .boolean: return .bool(false)
        case .string: return .string("")
        case .decimal: return .decimal(0)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .binary, .transformable: return .data(Data())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .uri, .objectID, .undefined, .composite: return .null
        }
    }
}

/// A typed to-one relationship of a managed object subclass.
@propertyWrapper
public struct ManagedToOne<Destination: ManagedObject>: ManagedPropertyWrapper {
    /// The name of the to-one relationship in the entity, as the model
    /// spells it.
    public let key: String
    var expectation: PropertyExpectation { .toOne(Destination.self) }
    /// Binds the property to the to-one relationship named `key` of the
    /// object's entity; setting it keeps the inverse in step, as Core Data
    /// does.
    public init(_ key: String) { self.key = key }

    @available(*, unavailable, message: "@ManagedToOne works only in ManagedObject subclasses")
    public var wrappedValue: Destination? {
        get { fatalError("@ManagedToOne works only in ManagedObject subclasses") }
        set { fatalError("@ManagedToOne works only in ManagedObject subclasses") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, ManagedToOne<Destination>>
    ) -> Destination? {
        get { object.object(forKey: object[keyPath: storageKeyPath].key).map(ManagedObject.cast) }
        set { object.setObject(newValue, forKey: object[keyPath: storageKeyPath].key) }
    }
}

/// A typed to-many relationship of a managed object subclass.
@propertyWrapper
public struct ManagedToMany<Destination: ManagedObject>: ManagedPropertyWrapper {
    /// The name of the to-many relationship in the entity, as the model
    /// spells it.
    public let key: String
    var expectation: PropertyExpectation { .toMany(Destination.self) }
    /// Binds the property to the to-many relationship named `key` of the
    /// object's entity. Reading gives the related objects (in order for an
    /// ordered relationship); setting replaces them and keeps the inverses
    /// in step.
    public init(_ key: String) { self.key = key }

    @available(*, unavailable, message: "@ManagedToMany works only in ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        get { fatalError("@ManagedToMany works only in ManagedObject subclasses") }
        set { fatalError("@ManagedToMany works only in ManagedObject subclasses") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, [Destination]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, ManagedToMany<Destination>>
    ) -> [Destination] {
        get { object.objects(forKey: object[keyPath: storageKeyPath].key).map(ManagedObject.cast) }
        set { object.setObjects(newValue, forKey: object[keyPath: storageKeyPath].key) }
    }
}

extension ManagedObject {
    /// The object as `T`, which must be its entity's registered class.
    package static func cast<T: ManagedObject>(_ object: ManagedObject) -> T {
        guard let typed = object as? T else {
            preconditionFailure("\(object.entity.name) objects are \(type(of: object)), not \(T.self): register the class with model.register(\(T.self).self) before any context loads its objects")
        }
        return typed
    }
}
