import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate

extension ManagedObject {
    /// MagicalRecord's `MR_fetchAllGroupedBy:withPredicate:sortedBy:ascending:delegate:inContext:`:
    /// live results in sections by `keyPath`, already fetched.
    ///
    /// ```swift
    /// let results = try Person.fetchAllGrouped(by: "department.name", sortedBy: "department.name,lastName")
    /// results.sections?.map(\.name)
    /// ```
    ///
    /// Put `keyPath` first in `sortedBy` so that each section is one run
    /// of the results.
    public static func fetchAllGrouped(
        by keyPath: String?, where predicate: Predicate? = nil, sortedBy: String, ascending: Bool = true,
        delegate: FetchedResultsControllerDelegate? = nil, in context: ManagedObjectContext? = nil
    ) throws -> FetchedResultsController {
        try Finder.fetchAllGrouped(entityName: entityName, by: keyPath, where: predicate, sortedBy: sortedBy,
                                   ascending: ascending, delegate: delegate, in: context)
    }
}

extension Finder {
    /// `fetchAllGrouped(by:…)` by entity name, for plain `ManagedObject`s.
    public static func fetchAllGrouped(
        entityName: String, by keyPath: String?, where predicate: Predicate? = nil, sortedBy: String,
        ascending: Bool = true, delegate: FetchedResultsControllerDelegate? = nil, in context: ManagedObjectContext? = nil
    ) throws -> FetchedResultsController {
        let context = try Finder.context(context)
        let request = try Finder.request(entityName, where: predicate, sortedBy: sortedBy, ascending: ascending, in: context)
        let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: keyPath)
        controller.delegate = delegate
        try controller.performFetch()
        return controller
    }
}
