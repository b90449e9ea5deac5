import ActiveRecord
import Foundation
import ObjectStore
import ObjectStorePostgres
import PostgresTestServer
import Predicates
import Testing

/// MagicalRecord's stack on a PostgreSQL store shared by two processes
/// (two stacks here): with `postsRemoteChangeNotifications`, a save in one
/// reaches the other's default context and the fetched results on it.
@Suite struct RemoteChangeStackTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer64, default: .int(0))
            }
        }
    }

    static func stack(at url: URL, defaultContext type: ManagedObjectContext.ConcurrencyType) throws -> CoreDataStack {
        var options = CoreDataStack.Options.server
        options.defaultContextType = type
        options.postsRemoteChangeNotifications = true
        return try CoreDataStack(model: try model(), store: .url(url), options: options)
    }


    /// Saves `body`'s changes from a private context of `stack` to the store.
    static func save(in stack: CoreDataStack, _ body: @escaping (ManagedObjectContext) throws -> Void) throws {
        let context = stack.newPrivateContext()
        try context.performAndWait {
            try body(context)
            _ = try context.saveToPersistentStoreAndWait()
        }
    }

    static func person(named name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entityName: "Person",
                                                    predicate: try Predicate(format: "name == %@", .string(name)))).first)
    }

    @Test(arguments: [ManagedObjectContext.ConcurrencyType.privateQueue, .mainQueue])
    func aSaveInOneStackReachesTheDefaultContextAndFetchedResultsOfAnother(type: ManagedObjectContext.ConcurrencyType) throws {
        let url = URL(string: try PostgresServer.shared().createSchema())!
        let writer = try Self.stack(at: url, defaultContext: .privateQueue)
        let reader = try Self.stack(at: url, defaultContext: type)
        try Self.save(in: writer) { context in
            for (name, age) in [("Ann", 30), ("Bob", 40), ("Dee", 80)] {
                let person = context.insertObject(forEntityName: "Person")
                person["name"] = .string(name)
                person["age"] = .int(Int64(age))
            }
        }

        let context = reader.defaultContext
        var request = FetchRequest(entityName: "Person", predicate: try Predicate(format: "age < 60"))
        request.sortDescriptors = try SortSpec.parse("name")
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        try context.performAndWait { try controller.performFetch() }
        #expect(fetchedNames(controller, in: context) == ["Ann", "Bob"])
        let bob = try context.performAndWait { try #require(controller.fetchedObjects?[1]) }

        // An update, an insert, an update taking an object out of the
        // results and one bringing in an object the reader never read.
        try Self.save(in: writer) { context in
            try Self.person(named: "Bob", in: context)["age"] = .int(41)
            try Self.person(named: "Ann", in: context)["age"] = .int(70)
            try Self.person(named: "Dee", in: context)["age"] = .int(20)
            let cy = context.insertObject(forEntityName: "Person")
            cy["name"] = .string("Cy")
            cy["age"] = .int(50)
        }
        #expect(waitUntil { fetchedNames(controller, in: context) == ["Bob", "Cy", "Dee"] })
        #expect(context.performAndWait { bob["age"] } == .int(41))
    }
}
