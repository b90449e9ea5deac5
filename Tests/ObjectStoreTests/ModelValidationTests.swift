import Foundation
import Predicates
import Testing

@testable import ObjectStore

@Suite struct ModelValidationTests {
    let model: ManagedObjectModel

    init() throws {
        model = try ManagedObjectModel(localization: ["Property/nick/Entity/Person": "Nickname"]) {
            Entity("Person") {
                Attribute("name", .string).required().minimum(.int(2)).maximum(.int(10)).matching("[A-Z][a-z]+")
                Attribute("age", .integer16).minimum(.int(0)).maximum(.int(120))
                Attribute("score", .double).minimum(.double(0.5))
                Attribute("born", .date).minimum(.date(Date(timeIntervalSince1970: 0)))
                    .maximum(.date(Date(timeIntervalSince1970: 86400)))
                Attribute("photo", .binary).maximum(.int(4))
                Attribute("nick", .string).maximum(.int(3))
                Attribute("cache", .string).required().transient()
                Attribute("code", .string).validated(by: "SELF BEGINSWITH 'P'", message: "code must start with P")
                ToMany("friends", "Person", minCount: 2, maxCount: 3)
                ToMany("pets", "Person", optional: false)
                ToOne("boss", "Person").required()
            }
        }
    }

    func attribute(_ name: String) throws -> AttributeDescription {
        try #require(model.entity(named: "Person")?.attribute(named: name))
    }

    func messages(_ name: String, _ value: Value) throws -> [String] {
        try attribute(name).validate(value).map(\.message)
    }

    @Test func testValidValuesHaveNoIssues() throws {
        #expect(try messages("name", .string("Ann")).isEmpty)
        #expect(try messages("age", .int(120)).isEmpty)
        #expect(try messages("age", .null).isEmpty)
        #expect(try messages("score", .double(0.5)).isEmpty)
        #expect(try messages("born", .date(Date(timeIntervalSince1970: 10))).isEmpty)
        #expect(try messages("cache", .null).isEmpty)  // transient: not checked
    }

    @Test func testRequiredValue() throws {
        let issues = try attribute("name").validate(.null)
        #expect(issues == [ValidationIssue(entity: "Person", property: "name", kind: .missingValue, message: "name is required")])
    }

    @Test(arguments: [
        ("age", Value.int(150), "age is too large (150 > 120)"),
        ("age", Value.int(-1), "age is too small (-1 < 0)"),
        ("age", Value.int(40000), "age is too large (40000 > 32767)"),
        ("score", Value.double(0.25), "score is too small (0.25 < 0.5)"),
        ("born", Value.date(Date(timeIntervalSince1970: -1)), "born is too early (1969-12-31T23:59:59Z < 1970-01-01T00:00:00Z)"),
        ("born", Value.date(Date(timeIntervalSince1970: 90000)), "born is too late (1970-01-02T01:00:00Z > 1970-01-02T00:00:00Z)"),
        ("name", Value.string("Bartholomew"), "name is too long (11 > 10 characters)"),
        ("name", Value.string("Al").self, ""),
        ("name", Value.string("al"), "name does not match the pattern '[A-Z][a-z]+'"),
        ("photo", Value.data(Data([1, 2, 3, 4, 5])), "photo is too long (5 > 4 bytes)"),
        ("age", Value.string("ten"), "age must be Integer 16, not String"),
        ("nick", Value.string("Bobby"), "Nickname is too long (5 > 3 characters)"),
    ])
    func testIssueMessages(name: String, value: Value, expected: String) throws {
        #expect(try messages(name, value) == (expected.isEmpty ? [] : [expected]))
    }

    @Test func testShortStringAndPatternBothReported() throws {
        let issues = try attribute("name").validate(.string("a"))
        #expect(issues.map(\.kind) == [.tooShort, .patternMismatch])
        #expect(issues.first?.message == "name is too short (1 < 2 characters)")
    }

    @Test func testPredicateIssueUsesItsMessage() throws {
        let issue = try attribute("code").predicateIssue(at: 0)
        #expect(issue.kind == .predicateFailed(0))
        #expect(issue.message == "code must start with P")
    }

    @Test func testValidationPredicatesSeeTheValueAsSelf() throws {
        let code = try attribute("code")
        #expect(code.validate(.string("P-1")).isEmpty)
        #expect(code.validate(.null).isEmpty)  // optional: nil is fine, as in Core Data
        let issues = code.validate(.string("X-1"))
        #expect(issues.map(\.kind) == [.predicateFailed(0)])
        #expect(issues.map(\.message) == ["code must start with P"])
    }

    @Test func testEveryFailingValidationPredicateIsReported() throws {
        let model = try ManagedObjectModel {
            Entity("Group") {
                Attribute("code", .string)
                    .validated(by: "SELF BEGINSWITH 'G-'", message: "code must start with G-")
                    .validated(by: "length <= 8", message: "code is too long")
            }
        }
        let code = try #require(model.entity(named: "Group")?.attribute(named: "code"))
        #expect(code.validate(.string("G-12")).isEmpty)
        #expect(code.validate(.string("G-123456789")).map(\.message) == ["code is too long"])
        #expect(code.validate(.string("X-123456789")).map(\.kind) == [.predicateFailed(0), .predicateFailed(1)])

        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try {
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addSQLiteStore(at: nil)
            return coordinator
        }())
        let group = context.insertObject(forEntityName: "Group")
        group["code"] = .string("team-a")
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.map(\.message) == ["code must start with G-"])
        #expect(group.isInserted && group.objectID.isTemporaryID)
        group["code"] = .string("G-a")
        try context.save()
        #expect(!group.objectID.isTemporaryID)
    }

    @Test func testRelationshipCounts() throws {
        let person = try #require(model.entity(named: "Person"))
        let friends = try #require(person.relationship(named: "friends"))
        #expect(friends.validateCount(0).isEmpty)  // optional to-many may be empty
        #expect(friends.validateCount(1).map(\.message) == ["friends has too few objects (1 < 2)"])
        #expect(friends.validateCount(2).isEmpty)
        #expect(friends.validateCount(4).map(\.message) == ["friends has too many objects (4 > 3)"])
        #expect(friends.validateCount(4).first?.kind == .tooManyObjects)
        // Required is about nil, which a to-many never is: with no minimum
        // count an empty one is fine (Apple's minCount/maxCount rules).
        #expect(person.relationship(named: "pets")?.validateCount(0).isEmpty == true)
        #expect(person.relationship(named: "boss")?.validateCount(0).first?.kind == .missingValue)
        #expect(person.relationship(named: "boss")?.validateCount(1).isEmpty == true)
    }

    @Test func testLocalizedErrorStringReplacesTheMessage() throws {
        let model = try ManagedObjectModel(localization: ["ErrorString/age is required": "Alter fehlt"]) {
            Entity("P") { Attribute("age", .integer32).required() }
        }
        let age = try #require(model.entity(named: "P")?.attribute(named: "age"))
        #expect(age.validate(.null).first?.message == "Alter fehlt")
    }

    @Test func testIssueNamesTheSubEntity() throws {
        let model = try ManagedObjectModel {
            Entity("Base") { Attribute("n", .integer32).required() }
            Entity("Sub", parent: "Base")
        }
        let n = try #require(model.entity(named: "Sub")?.attribute(named: "n"))
        #expect(n.validate(.null).first?.entity == "Base")
        #expect(n.validate(.null, in: model.entity(named: "Sub")).first?.entity == "Sub")
    }
}

@Suite struct ModelCoercionTests {
    @Test(arguments: [
        (AttributeType.double, Value.int(1), Value.double(1)),
        (.float, .int(2), .double(2)),
        (.integer16, .double(3), .int(3)),
        (.integer64, .string(" 42 "), .int(42)),
        (.integer32, .bool(true), .int(1)),
        (.decimal, .int(5), .decimal(5)),
        (.decimal, .string("1.25"), .decimal(Decimal(string: "1.25")!)),
        (.boolean, .int(0), .bool(false)),
        (.boolean, .int(1), .bool(true)),
        (.boolean, .string("YES"), .bool(true)),
        (.boolean, .string("false"), .bool(false)),
        (.string, .string("x"), .string("x")),
        (.uuid, .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
        (.uri, .string("https://example.com/a"), .url(URL(string: "https://example.com/a")!)),
        (.date, .string("1970-01-02"), .date(Date(timeIntervalSince1970: 86400))),
        (.date, .string("1970-01-01T00:01:00Z"), .date(Date(timeIntervalSince1970: 60))),
        (.date, .string("1970-01-01T01:00:00+01:00"), .date(Date(timeIntervalSince1970: 0))),
        (.date, .int(60), .date(Date(timeIntervalSince1970: 60))),
        (.binary, .data(Data([1])), .data(Data([1]))),
        (.integer16, .null, .null),
    ])
    func testCoercion(type: AttributeType, value: Value, expected: Value) throws {
        #expect(try type.coerce(value) == expected)
    }

    @Test(arguments: [
        (AttributeType.integer16, Value.double(1.5), "cannot convert 1.5 to Integer 16"),
        (.integer16, .int(40000), "40000 is out of range for Integer 16"),
        (.integer32, .string("12abc"), #"cannot convert "12abc" to Integer 32"#),
        (.boolean, .int(2), "cannot convert 2 to Boolean"),
        (.uuid, .string("nope"), #"cannot convert "nope" to UUID"#),
        (.date, .string("yesterday"), #"cannot convert "yesterday" to Date"#),
        (.string, .int(3), "cannot convert 3 to String"),
        (.decimal, .string("1.2.3"), #"cannot convert "1.2.3" to Decimal"#),
        (.binary, .string("abc"), #"cannot convert "abc" to Binary"#),
    ])
    func testCoercionErrors(type: AttributeType, value: Value, expected: String) {
        #expect(throws: ModelError(expected)) { try type.coerce(value) }
    }
}
