import Foundation
import Testing
@testable import ObjectStore
@testable import Shell

/// What a Core Data model holds that the statement language cannot
/// declare (user info of any property-list type, indexes over
/// expressions): `.schema` shows it as comments, and `.save-as` keeps it.
@Suite struct CoreDataLenientShellTests {
    static func store(in directory: URL) throws -> URL {
        let book = EntityDescription(name: "Book")
        let place = AttributeDescription(name: "place", type: .string)
        place.otherUserInfo = ["_NSLocationAttributeDerivedComponents": .array([.value(.string("latitude")), .value(.string("longitude"))])]
        book.add(place)
        book.add(AttributeDescription(name: "title", type: .string))
        book.otherUserInfo = ["bytes": .value(.data(Data([0xCA, 0xFE])))]
        var index = FetchIndexDescription(name: "forAllPhotos", elements: [("title", true), ("expression4", false)])
        index.expressions = ["expression4": "7"]
        book.fetchIndexes = [index]
        let model = try ManagedObjectModel(entities: [book])
        let url = directory.appendingPathComponent("Books.sqlite")
        var options = PersistentStoreOptions()
        options.layout = .coreData
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        context.insertObject(forEntityName: "Book")["title"] = .string("Earthsea")
        try context.save()
        return url
    }

    @Test func schemaShowsWhatNoStatementDeclaresAndSaveAsKeepsIt() throws {
        let directory = try CoreDataShellTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.store(in: directory)
        let session = try ShellSession(modelPath: nil, storePath: url.path)
        session.baseDirectory = directory
        let schema = SaveAsTests.run(session, ".schema Book")
        #expect(schema.contains(#"    # userInfo of place { "_NSLocationAttributeDerivedComponents": ["latitude", "longitude"] }"#), "\(schema)")
        #expect(schema.contains(#"    # userInfo { "bytes": CAST("yv4=", "NSData") }"#), "\(schema)")
        #expect(schema.contains("    # index forAllPhotos (title, expression4 = 7 DESC)"), "\(schema)")
        // The whole schema still runs as a script: the comments declare nothing.
        let script = SaveAsTests.run(session, ".schema")
        let fresh = try ShellSession(modelPath: nil, storePath: ":memory:")
        let rerun = SaveAsTests.run(fresh, script)
        #expect(!rerun.contains("error"), "\(rerun)")
        #expect(fresh.model.entity(named: "Book")?.attribute(named: "title") != nil)

        let saved = SaveAsTests.run(session, ".save-as Copy.sqlite coredata")
        #expect(saved.contains("saved as Copy.sqlite"), "\(saved)")
        let copy = try #require(try PersistentStoreCoordinator.storedModel(at: directory.appendingPathComponent("Copy.sqlite")))
        #expect(copy.entity(named: "Book")?.attribute(named: "place")?.otherUserInfo["_NSLocationAttributeDerivedComponents"]
            == .array([.value(.string("latitude")), .value(.string("longitude"))]))
        #expect(copy.entity(named: "Book")?.otherUserInfo == ["bytes": .value(.data(Data([0xCA, 0xFE])))])
        #expect(SaveAsTests.run(session, "count Book").contains("1"))
    }
}
