import Foundation
import Predicates
import Testing

@testable import ObjectStore

@Suite struct ModelBuilderTests {
    /// The Everything fixture, written in code.
    static func everything() throws -> ManagedObjectModel {
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

    @Test func testBuilderMatchesTheXMLModel() throws {
        let built = try Self.everything()
        let loaded = try ModelFixtures.load("Everything.xcdatamodel")
        loaded.localizationDictionary = [:]
        #expect(built.isEquivalent(to: loaded), "\(ModelFixtures.dump(built))\n---\n\(ModelFixtures.dump(loaded))")
        #expect(built.fingerprint == loaded.fingerprint)
    }

    @Test func testBriefExample() throws {
        let model = try ManagedObjectModel {
            Entity("Department") { Attribute("name", .string); ToMany("people", "Person", inverse: "department") }
            Entity("Person") { Attribute("age", .integer16, default: .int(0)); ToOne("department", "Department", inverse: "people") }
        }
        let people = try #require(model.entity(named: "Department")?.relationship(named: "people"))
        #expect(people.inverse === model.entity(named: "Person")?.relationship(named: "department"))
        #expect(people.isToMany && !people.isManyToMany)
    }

    @Test func testControlFlowInBuilders() throws {
        let withTags = true
        let names = ["a", "b"]
        let model = try ManagedObjectModel {
            Entity("Note") {
                for name in names { Attribute(name, .string) }
                if withTags { ToMany("tags", "Tag", inverse: "notes") } else { Attribute("tagList", .string) }
            }
            if withTags {
                Entity("Tag") { ToMany("notes", "Note", inverse: "tags") }
            }
        }
        #expect(model.entity(named: "Note")?.propertyNames == ["a", "b", "tags"])
        #expect(model.entity(named: "Note")?.relationship(named: "tags")?.isManyToMany == true)
    }

    @Test func testBuilderReportsUnknownDestination() {
        #expect(throws: ModelError("relationship 'Person.pet' names unknown destination entity 'Pet'")) {
            _ = try ManagedObjectModel { Entity("Person") { ToOne("pet", "Pet") } }
        }
    }

    @Test func testRequiredToOneHasMinCountOne() throws {
        let model = try ManagedObjectModel {
            Entity("A") { ToOne("b", "B").required() }
            Entity("B")
        }
        let b = try #require(model.entity(named: "A")?.relationship(named: "b"))
        #expect(!b.isOptional && b.minCount == 1 && b.maxCount == 1)
    }
}
