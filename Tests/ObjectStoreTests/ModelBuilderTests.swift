import Foundation
import Predicates
import Testing

@testable import ObjectStore

@Suite struct ModelBuilderTests {

    @Test func testBuilderMatchesTheXMLModel() throws {
        let built = try ModelFixtures.builtEverything()
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
