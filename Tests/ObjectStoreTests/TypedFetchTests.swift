import Foundation
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate

final class Person: ManagedObject {
    @Managed("lastName") var lastName: String?
    @Managed("age") var age: Int16
}

/// Typed requests, and a fetch that refuses what it cannot return (issue
/// 19, item 5).
@Suite struct TypedFetchTests {
    static func context() throws -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(try TestModels.people()))
        for (name, age) in [("Adams", 30), ("Brown", 17), ("Clark", 45)] {
            let p = context.insertObject(forEntityName: "Person")
            p["lastName"] = .string(name)
            p["age"] = .int(Int64(age))
        }
        try context.save()
        // A fresh context: this one holds the rows as plain ManagedObjects.
        return ManagedObjectContext(concurrencyType: .confined, coordinator: context.persistentStoreCoordinator!)
    }

    @Test func aTypedRequestGivesTypedObjects() throws {
        let context = try Self.context()
        var request = Person.fetchRequest()
        request.predicate = try Predicate(format: "age >= %d", 18)
        request.sortDescriptors = try SortSpec.parse("age:NO")
        request.fetchLimit = 5
        let adults: [Person] = try context.fetch(request)
        #expect(adults.map(\.lastName) == ["Clark", "Adams"])
        #expect(adults.map(\.age) == [45, 30])
        #expect(try context.count(for: request) == 2)
        // The result type stays objects, whatever is set through it.
        request.resultType = .dictionary
        #expect(request.request.resultType == .managedObject)
        #expect(try context.fetch(request).count == 2)
    }

    @Test func fetchRefusesRequestsForOtherResults() throws {
        let context = try Self.context()
        var request = FetchRequest(entityName: "Person")
        request.resultType = .dictionary
        request.propertiesToFetch = [PropertyToFetch(keyPath: "lastName")]
        request.returnsDistinctResults = true
        #expect {
            _ = try context.fetch(request)
        } throws: { error in
            "\(error)".contains("fetchDictionaries(_:)")
        }
        #expect(try context.fetchDictionaries(request).count == 3)
        request.resultType = .managedObjectID
        #expect { _ = try context.fetch(request) } throws: { "\($0)".contains("fetchObjectIDs(_:)") }
        request.resultType = .count
        #expect { _ = try context.fetch(request) } throws: { "\($0)".contains("count(for:)") }
    }
}
