import Foundation
import Predicates
import struct Predicates.Predicate

extension ManagedObject {
    /// How deep fetched properties may evaluate through one another
    /// (a predicate of one naming another) before it is taken for a cycle.
    static let fetchedPropertyDepthLimit = 16

    /// The fetched properties being evaluated on this thread, innermost last.
    @TaskLocal static var fetchedPropertiesInProgress: [String] = []

    /// The objects the fetched property `key` selects for this object, as
    /// Core Data's `value(forKey:)` on a fetched property gives them: its
    /// fetch request run in this object's context (unsaved changes
    /// included), with `$FETCH_SOURCE` standing for this object.
    ///
    /// ```swift
    /// // <fetchedProperty name="heavyParts">: Part where mass > 10 AND name != $FETCH_SOURCE.title
    /// let heavy = try gadget.fetchedObjects(forKey: "heavyParts")
    /// ```
    ///
    /// Evaluated afresh at each call (Core Data caches the result until the
    /// object is refreshed). Predicates read fetched properties the same
    /// way, in memory: `Gadget where heavyParts.@count > 0`.
    ///
    /// Throws when the entity has no fetched property `key`, the object is
    /// in no context, the predicate does not parse or uses
    /// `$FETCHED_PROPERTY` (the property's own description, which mrq
    /// does not offer to predicates), or fetched properties reach through
    /// one another more than 16 deep (a cycle).
    public func fetchedObjects(forKey key: String) throws -> [ManagedObject] {
        guard let property = entity.fetchedProperties.first(where: { $0.name == key }) else {
            var message = "\(entity.name) has no fetched property '\(key)'"
            if let suggestion = Suggestions.closest(to: key, in: entity.fetchedProperties.map(\.name)) {
                message += "; did you mean '\(suggestion)'?"
            }
            throw StoreError(.notFound, message)
        }
        guard let context = managedObjectContext else {
            throw StoreError(.misuse, "fetched property '\(key)' of a \(entity.name) that is in no context")
        }
        let path = Self.fetchedPropertiesInProgress + ["\(entity.name).\(key)"]
        guard path.count <= Self.fetchedPropertyDepthLimit else {
            throw StoreError(.misuse, "fetched properties evaluate through one another in a cycle: "
                             + path.suffix(4).joined(separator: " → ") + " …")
        }
        let predicate: Predicate?
        do {
            predicate = property.predicateFormat.isEmpty ? nil : try Predicate(format: property.predicateFormat)
        } catch {
            throw StoreError(.misuse, "fetched property '\(entity.name).\(key)': \(error)")
        }
        if let predicate, predicate.format.contains("$FETCHED_PROPERTY") {
            throw StoreError(.misuse, """
                fetched property '\(entity.name).\(key)' uses $FETCHED_PROPERTY (its own description), \
                which mrq does not give to predicates; write the value it reads into the predicate
                """)
        }
        var request = FetchRequest(entityName: property.destinationName, predicate: predicate)
        request.objectVariables["FETCH_SOURCE"] = .object(objectID)
        return try Self.$fetchedPropertiesInProgress.withValue(path) { () throws -> [ManagedObject] in
            Array(try context.fetch(request) as FetchResults)
        }
    }
}
