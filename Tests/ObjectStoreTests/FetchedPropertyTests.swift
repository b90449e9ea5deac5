import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// Fetched properties (Xcode's <fetchedProperty>): evaluated per object
/// as Core Data's `value(forKey:)` does, with `$FETCH_SOURCE` the object,
/// and read by predicates in memory. Before, naming one in a predicate was
/// "unknown key 'heavyParts' on Gadget; did you mean 'heavyParts'?".
@Suite struct FetchedPropertyTests {
    /// The Everything fixture: Gadget.heavyParts is the Parts with
    /// `mass > 10 AND name != $FETCH_SOURCE.title`.
    static func context() throws -> ManagedObjectContext {
        let coordinator = try TestModels.coordinator(try ModelFixtures.load("Everything.xcdatamodel"))
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    static func names(_ objects: [ManagedObject]) -> Set<String> {
        Set(objects.map { if case .string(let s) = $0["name"] { return s }; return "?" })
    }

    @Test func aFetchedPropertySelectsForItsSourceWithSavedAndUnsavedObjects() throws {
        let context = try Self.context()
        let gadget = context.insertObject(forEntityName: "Gadget")
        gadget["title"] = .string("Bolt")
        for (name, mass) in [("Bolt", 20.0), ("Nut", 30.0), ("Washer", 1.0)] {
            let part = context.insertObject(forEntityName: "Part")
            (part["name"], part["mass"]) = (.string(name), .double(mass))
        }
        #expect(Self.names(try gadget.fetchedObjects(forKey: "heavyParts")) == ["Nut"])
        try context.save()
        let gear = context.insertObject(forEntityName: "Part")
        (gear["name"], gear["mass"]) = (.string("Gear"), .double(12))
        gadget["title"] = .string("Nut")
        // Saved rows and pending changes, the source's new title included.
        #expect(Self.names(try gadget.fetchedObjects(forKey: "heavyParts")) == ["Bolt", "Gear"])
    }

    @Test func predicatesReadAFetchedPropertyInMemoryWithTheSameAnswerSavedOrNot() throws {
        let context = try Self.context()
        for title in ["G", "Bolt", "Nut"] {
            let gadget = context.insertObject(forEntityName: "Gadget")
            (gadget["title"], gadget["code"]) = (.string(title), .string("G-" + title))
        }
        for (name, mass) in [("Bolt", 20.0), ("Nut", 30.0)] {
            let part = context.insertObject(forEntityName: "Part")
            (part["name"], part["mass"]) = (.string(name), .double(mass))
        }
        func titles(_ format: String) throws -> [String] {
            var request = FetchRequest(entityName: "Gadget", predicate: try Predicate(format: format))
            request.sortDescriptors = [SortKey(keyPath: ["title"], ascending: true)]
            return try context.fetch(request).map { if case .string(let s) = $0["title"] { return s }; return "?" }
        }
        for _ in 0..<2 {
            #expect(try titles("heavyParts.@count == 1") == ["Bolt", "Nut"])
            #expect(try titles("ANY heavyParts.name == 'Bolt'") == ["G", "Nut"])
            #expect(try context.count(for: FetchRequest(entityName: "Gadget", predicate: try Predicate(format: "heavyParts.@count == 2"))) == 1)
            try context.save()
        }
    }

    @Test func mistakesAreErrorsThatSayWhich() throws {
        let context = try Self.context()
        let gadget = context.insertObject(forEntityName: "Gadget")
        #expect(throws: StoreError.self) { _ = try gadget.fetchedObjects(forKey: "heavyPart") }
        do {
            _ = try gadget.fetchedObjects(forKey: "heavyPart")
        } catch {
            #expect("\(error)".contains("did you mean 'heavyParts'"))
        }

        // Two fetched properties that read each other: a cycle, not a hang.
        let node = EntityDescription(name: "Node")
        node.add(AttributeDescription(name: "name", type: .string))
        node.add(FetchedPropertyDescription(name: "echo", destination: "Node", predicate: "ANY echo.name == $FETCH_SOURCE.name"))
        node.add(FetchedPropertyDescription(name: "own", destination: "Node", predicate: "$FETCHED_PROPERTY.userInfo.k == name"))
        let cyclic = ManagedObjectContext(concurrencyType: .confined,
                                          coordinator: try TestModels.coordinator(try ManagedObjectModel(entities: [node])))
        let a = cyclic.insertObject(forEntityName: "Node")
        a["name"] = .string("a")
        #expect {
            _ = try a.fetchedObjects(forKey: "echo")
        } throws: { "\($0)".contains("cycle") }
        #expect {
            _ = try a.fetchedObjects(forKey: "own")
        } throws: { "\($0)".contains("$FETCHED_PROPERTY") }
    }
}
