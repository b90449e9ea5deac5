import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// The test models under `Fixtures/Models`.
package enum ModelFixtures {
    package static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("../ObjectStoreTests/Fixtures/Models").standardizedFileURL

    package static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    package static func load(_ name: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: url(name))
    }

    /// The error loading `name` throws.
    package static func loadError(_ name: String) -> ModelError? {
        do {
            _ = try load(name)
            return nil
        } catch {
            return error as? ModelError
        }
    }

    /// Parses XML held in a string.
    package static func parse(_ xml: String, file: String = "contents") throws -> ManagedObjectModel {
        try ManagedObjectModel(xcdatamodelContents: Data(xml.utf8), file: file)
    }

    package static func model(entities body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        \(body)
        </model>
        """
    }

    /// The archive as text, to show what differs when two models do.
    package static func dump(_ model: ManagedObjectModel) -> String {
        String(decoding: model.archived(), as: UTF8.self)
    }

    /// The Everything fixture, written in code.
    package static func builtEverything() throws -> ManagedObjectModel {
        try ManagedObjectModel(version: "everything-1") {
            Entity("Item", abstract: true, className: "Item",
                   userInfo: ["relatedByAttribute": "title", "note": "abstract root"]) {
                Attribute("createdAt", .date, optional: false, default: .date(Date(timeIntervalSinceReferenceDate: 0)))
                Attribute("title", .string, default: .string("Untitled")).required()
                    .minimum(.int(1)).maximum(.int(40)).matching("[A-Z][A-Za-z ]*")
                    .userInfo("mappedKeyName", "item_title")
            }
            Entity("Gadget", parent: "Item", className: "Gadget", userInfo: ["relatedByAttribute": "code"],
                   renamedFrom: "Widget") {
                Attribute("small", .integer16, default: .int(7)).minimum(.int(-5)).maximum(.int(500))
                Attribute("medium", .integer32, default: .int(70000))
                Attribute("large", .integer64, default: .int(9_000_000_000)).renamed(from: "big")
                Attribute("price", .decimal, default: .decimal(Decimal(string: "19.99")!))
                Attribute("weight", .double, default: .double(1.5)).minimum(.double(0)).maximum(.double(1000.5))
                Attribute("ratio", .float, default: .double(0.25))
                Attribute("enabled", .boolean, optional: false, default: .bool(true))
                Attribute("madeOn", .date, default: .date(Date(timeIntervalSinceReferenceDate: 86400)))
                    .minimum(.date(Date(timeIntervalSince1970: 0)))
                    .maximum(.date(Date(timeIntervalSinceReferenceDate: 1_000_000_000)))
                Attribute("blob", .binary).maximum(.int(1024)).externalStorage()
                Attribute("token", .uuid, default: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
                Attribute("homepage", .uri, default: .url(URL(string: "https://example.com/gadgets")!))
                Attribute("payload", .transformable).transformer("NSSecureUnarchiveFromData")
                Attribute("origin", .objectID)
                Attribute("scratch", .string).transient()
                Attribute("code", .string, optional: false, default: .string("G-0"))
                    .validated(by: "SELF BEGINSWITH 'G-'", message: "code must start with G-")
                    .validated(by: "length <= 8", message: "code is too long")
                ToOne("maker", "Maker", inverse: "gadgets").userInfo("mappedKeyName", "maker_id")
                ToMany("parts", "Part", ordered: true, deleteRule: .cascade, minCount: 1, maxCount: 5)
                ToMany("related", "Gadget", deleteRule: .noAction)
                ToOne("owner", "Maker", deleteRule: .deny)
                FetchedProperty("heavyParts", entity: "Part", predicate: "mass > 10 AND name != $FETCH_SOURCE.title",
                                userInfo: ["kind": "fetched"])
                Unique("code")
                Unique("title", "maker")
                FetchIndex("byCode", .ascending("code"))
                FetchIndex("byTitleAndWeight", .ascending("title"), .descending("weight"))
            }
            Entity("Maker", className: "Maker") {
                Attribute("name", .string).required()
                ToMany("gadgets", "Gadget", inverse: "maker", deleteRule: .cascade)
                ToMany("partners", "Maker", inverse: "partners")
            }
            Entity("Part", className: "Part") {
                Attribute("mass", .double, default: .double(0))
                Attribute("name", .string)
            }
            ModelConfiguration("Cloud", "Maker", "Part")
            ModelConfiguration("Local", "Item", "Gadget")
        }
    }

    /// Every attribute type, a to-one, a one-to-many kept in order, a
    /// many-to-many, an ordered many-to-many, a to-many with no inverse, a
    /// to-one with no inverse, a sub-entity, and two names that differ
    /// only in case (unless `caseTwins` is false: a SQLite store cannot
    /// hold those).
    package static func everyKind(caseTwins: Bool = true) throws -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        let types: [(String, AttributeType)] = [
            ("small", .integer16), ("medium", .integer32), ("large", .integer64), ("price", .decimal),
            ("ratio", .double), ("weight", .float), ("title", .string), ("flag", .boolean), ("when", .date),
            ("blob", .binary), ("thing", .transformable), ("uid", .uuid), ("link", .uri),
        ] + (caseTwins ? [("Title", .string)] : [])
        for (name, type) in types { item.add(AttributeDescription(name: name, type: type)) }
        item.add(AttributeDescription(name: "scratch", type: .string, isTransient: true))
        let size = AttributeDescription(name: "size", type: .composite)
        size.elements = [AttributeDescription(name: "width", type: .double), AttributeDescription(name: "unit", type: .string)]
        item.add(size)
        item.add(RelationshipDescription(name: "owner", destination: "Owner", inverse: "items"))
        item.add(RelationshipDescription(name: "labels", destination: "Label", inverse: "items", isToMany: true))
        item.add(RelationshipDescription(name: "related", destination: "Item", isToMany: true))
        item.add(RelationshipDescription(name: "playlists", destination: "Playlist", inverse: "tracks", isToMany: true))
        let special = EntityDescription(name: "SpecialItem", parent: "Item")
        special.add(AttributeDescription(name: "grade", type: .integer16))
        let owner = EntityDescription(name: "Owner")
        owner.add(AttributeDescription(name: "name", type: .string))
        owner.add(RelationshipDescription(name: "items", destination: "Item", inverse: "owner", isToMany: true, isOrdered: true))
        owner.add(RelationshipDescription(name: "favourite", destination: "Item"))
        let label = EntityDescription(name: "Label")
        label.add(AttributeDescription(name: "name", type: .string))
        label.add(RelationshipDescription(name: "items", destination: "Item", inverse: "labels", isToMany: true))
        let playlist = EntityDescription(name: "Playlist")
        playlist.add(AttributeDescription(name: "name", type: .string))
        playlist.add(RelationshipDescription(name: "tracks", destination: "Item", inverse: "playlists", isToMany: true, isOrdered: true))
        let upper = EntityDescription(name: "OWNER")
        upper.add(AttributeDescription(name: "name", type: .string))
        return try ManagedObjectModel(entities: [item, special, owner, label, playlist] + (caseTwins ? [upper] : []))
    }

    /// A fresh directory, removed by the caller.
    package static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("apple-xml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
