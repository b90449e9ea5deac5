import Foundation
import Predicates
import struct Predicates.Predicate

/// A fetch request for objects of one managed object class: what
/// `NSFetchRequest<Person>` is to Core Data. The request's settings are
/// its own (`request.predicate`, `request.fetchLimit`, …); fetching it
/// gives `[Person]`.
///
/// ```swift
/// var request = Person.fetchRequest()
/// request.predicate = try Predicate(format: "age >= %d", 18)
/// request.fetchLimit = 10
/// let adults: [Person] = try context.fetch(request)
/// ```
@dynamicMemberLookup
public struct TypedFetchRequest<Object: ManagedObject>: Sendable {
    /// The request as the context runs it; its result type is always
    /// `.managedObject`.
    public private(set) var request: FetchRequest

    /// A request for every object of `Object`'s entity.
    public init(predicate: Predicate? = nil, sortDescriptors: [SortKey] = []) {
        request = FetchRequest(entityName: Object.entityName, predicate: predicate, sortDescriptors: sortDescriptors)
    }

    /// Reads and sets the request's settings (`predicate`, `sortDescriptors`,
    /// `fetchLimit`, `fetchBatchSize`, …). The result type is not among
    /// them: it is objects by construction.
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<FetchRequest, T>) -> T {
        get { request[keyPath: keyPath] }
        set {
            request[keyPath: keyPath] = newValue
            request.resultType = .managedObject
        }
    }
}

/// A managed object class that can make typed fetch requests for itself.
public protocol TypedFetchable: ManagedObject {}

extension ManagedObject: TypedFetchable {}

extension TypedFetchable {
    /// A request for objects of this class: `Person.fetchRequest()`.
    public static func fetchRequest() -> TypedFetchRequest<Self> {
        TypedFetchRequest<Self>()
    }
}

extension ManagedObjectContext {
    /// The objects `request` matches, typed: `[Person]` for a request made
    /// by `Person.fetchRequest()`. The class becomes its entity's class
    /// if it is not yet, after `ManagedObjectModel.register`'s check;
    /// objects this context loaded earlier as another class make it throw,
    /// saying so.
    public func fetch<Object: ManagedObject>(_ request: TypedFetchRequest<Object>) throws -> [Object] {
        if Object.self != ManagedObject.self, !model.isRegistered(Object.self) { try model.register(Object.self) }
        return try fetch(request.request).map { object in
            guard let typed = object as? Object else {
                throw StoreError(.misuse, "\(object.entity.name) objects were loaded as \(type(of: object)), not \(Object.self): "
                    + "register the class with model.register(\(Object.self).self) before any context loads its objects")
            }
            return typed
        }
    }

    /// How many objects a typed request matches.
    public func count<Object: ManagedObject>(for request: TypedFetchRequest<Object>) throws -> Int {
        try count(for: request.request)
    }
}
