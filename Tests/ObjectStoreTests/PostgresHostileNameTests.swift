import Foundation
import Testing
@testable import ObjectStore
@testable import ObjectStorePostgres
import PostgresTestServer
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// `HostileNameTests` on PostgreSQL: the same names (quotes, `;`, `--`,
/// `OR 1=1`, a function call, a query that never ends) are only names in
/// PostgreSQL's SQL too, and the store's catalogue (the model it keeps)
/// is refused when it holds them.
@Suite struct PostgresHostileNameTests {
    static func open(_ model: ManagedObjectModel, url: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .postgres, at: url)
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    @Test func everyOperationTreatsNamesAsNames() throws {
        let url = URL(string: try PostgresServer.shared().createSchema())!
        let model = try HostileNameTests.model()
        typealias H = HostileNameTests
        let context = try Self.open(model, url: url)
        func insert(_ entity: String, _ values: [String: Value]) -> ManagedObject {
            let object = context.insertObject(forEntityName: H.n(entity))
            for (key, value) in values { object[H.n(key)] = value }
            return object
        }
        let ann = insert("Person", ["name": "ann", "Name": "ANN", "age": 30, "note": "a", "score": 1.5])
        let bob = insert("Person", ["name": "bob", "Name": "BOB", "age": 40, "note": "b", "score": 2.5])
        _ = insert("Person", ["name": "cy", "Name": "CY", "age": 50, "note": "c"])
        let g1 = insert("Group", ["title": "g1"])
        let t1 = insert("Team", ["title": "t1", "level": 2])
        let a = insert("Tag", ["label": "A"])
        let b = insert("Tag", ["label": "B"])
        ann.setObject(g1, forKey: H.n("group"))
        bob.setObject(t1, forKey: H.n("group"))
        ann.setObjects([a], forKey: H.n("tags"))
        bob.setObjects([b], forKey: H.n("tags"))
        try context.save()

        let fresh = try Self.open(model, url: url)
        #expect(try H.fetch(fresh, "Person", "name == 'ann'") == ["ann"])
        #expect(try H.fetch(fresh, "Person", "group.title == 't1'") == ["bob"])
        #expect(try H.fetch(fresh, "Person", "ANY tags.label == 'A'") == ["ann"])
        #expect(try H.fetch(fresh, "Person", "tags.@count == 0") == ["cy"])
        #expect(try H.fetch(fresh, "Person", "SUBQUERY(tags, $t, $t.label == 'B').@count > 0") == ["bob"])
        #expect(try H.fetch(fresh, "Group", "ANY members.name == 'bob'") == ["t1"])
        #expect(try H.fetch(fresh, "Tag", "ANY people.age >= 40") == ["B"])
        #expect(try H.fetch(fresh, "Person", sort: [("Name", false)]) == ["cy", "bob", "ann"])
        for person in try fresh.fetch(FetchRequest(entityName: H.n("Person"))) {
            let expected: [String: [String]] = ["ann": ["A"], "bob": ["B"], "cy": []]
            #expect(H.names(person.objects(forKey: H.n("tags"))) == expected[H.names([person])[0]])
        }
        var dictionaries = FetchRequest(entityName: H.n("Person"))
        dictionaries.resultType = .dictionary
        dictionaries.propertiesToFetch = [PropertyToFetch(keyPath: H.n("name")), PropertyToFetch(.sum, of: H.n("age"), as: "total")]
        dictionaries.propertiesToGroupBy = [H.n("name")]
        dictionaries.sortDescriptors = [SortKey(keyPath: [H.n("name")], ascending: true)]
        #expect(try fresh.fetchDictionaries(dictionaries).map { $0["total"] } == [.int(30), .int(40), .int(50)])

        let update = BatchUpdateRequest(entityName: H.n("Person"), predicate: try H.predicate("name == 'ann'"),
                                        propertiesToUpdate: [H.n("age"): .expression(H.rename(try Expression(format: "age + 1")))])
        #expect(try fresh.execute(update).count == 1)
        #expect(try fresh.execute(BatchDeleteRequest(entityName: H.n("Tag"), predicate: try H.predicate("label == 'B'"))).count == 1)
        let again = try Self.open(model, url: url)
        #expect(try H.fetch(again, "Person", "age == 31") == ["ann"])
        #expect(try H.fetch(again, "Tag") == ["A"])
        #expect(try H.fetch(again, "Person", "ANY tags.label == 'B'") == [])

        // The store keeps the model in its catalogue: read with no model,
        // it is refused, naming an entity.
        let error = try #require(throws: (any Error).self) { try PersistentStoreCoordinator.storedModel(at: url) }
        #expect("\(error)".contains("is not a valid Core Data name"), "\(error)")
    }

    /// PostgreSQL keeps 63 bytes of a name: a model whose layout would
    /// need a longer one is refused, naming it, rather than have two
    /// names run into one.
    @Test func namesPostgreSQLWouldCutAreRefused() throws {
        let url = URL(string: try PostgresServer.shared().createSchema())!
        let entity = EntityDescription(name: "Person")
        entity.add(AttributeDescription(name: String(repeating: "a", count: 70), type: .string))
        let model = try ManagedObjectModel(entities: [entity])
        let error = try #require(throws: StoreError.self) { try Self.open(model, url: url) }
        #expect(error.message.hasPrefix("the name \"aaaa") && error.message.contains("is 70 bytes long"), "\(error)")
    }
}
