import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// The models in `Samples/`, which the shell and the README use.
@Suite struct ModelSampleTests {
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples")

    @Test func testPeopleModel() throws {
        let model = try ManagedObjectModel(contentsOf: Self.samples.appendingPathComponent("People.xcdatamodeld"))
        #expect(model.versionIdentifier == "People")
        let person = try #require(model.entity(named: "Person"))
        #expect(person.attributes.map(\.name) == [
            "FirstName", "LastName", "age", "email", "salary", "active", "hiredAt", "personID",
        ])
        #expect(person.attributes.map(\.type) == [
            .string, .string, .integer16, .string, .double, .boolean, .date, .integer64,
        ])
        #expect(person.userInfo["relatedByAttribute"] == "personID")
        #expect(person.attribute(named: "FirstName")?.userInfo["mappedKeyName"] == "first_name")
        #expect(person.attribute(named: "LastName")?.userInfo["mappedKeyName"] == "last_name")
        #expect(person.attribute(named: "hiredAt")?.userInfo["dateFormat"] == "yyyy-MM-dd")
        #expect(person.uniquenessConstraints == [["personID"]])
        let department = try #require(person.relationship(named: "department"))
        #expect(department.isToOne && department.deleteRule == .nullify && department.inverse?.name == "people")
        let dept = try #require(model.entity(named: "Department"))
        #expect(dept.attribute(named: "name")?.isOptional == false)
        #expect(dept.attribute(named: "budget")?.type == .double)
        #expect(dept.relationship(named: "people")?.deleteRule == .deny)
    }

    @Test func testMailModel() throws {
        let model = try ManagedObjectModel(contentsOf: Self.samples.appendingPathComponent("Mail.xcdatamodeld"))
        let user = try #require(model.entity(named: "User"))
        #expect(user.attributes.map(\.name) == ["account", "writeName", "userID"])
        #expect(user.relationship(named: "letters")?.deleteRule == .cascade)
        let letter = try #require(model.entity(named: "Letter"))
        #expect(letter.attributes.map(\.name) == ["pkNumber", "sender", "content", "dateString", "date", "isRead", "incoming"])
        #expect(letter.relationship(named: "user")?.inverse === user.relationship(named: "letters"))
    }

    @Test func testSampleDataMatchesTheMappedKeys() throws {
        let data = try Data(contentsOf: Self.samples.appendingPathComponent("people.json"))
        let people = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(people.count >= 1000)
        let keys = Set(people[0].keys)
        #expect(keys == ["id", "first_name", "last_name", "age", "email", "salary", "active", "hired_at", "department"])
        let departments = Set(people.compactMap { ($0["department"] as? [String: Any])?["name"] as? String })
        #expect(departments.count >= 6)
    }
}
