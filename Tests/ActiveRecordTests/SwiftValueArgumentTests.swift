import Foundation
import Testing
@testable import ActiveRecord
import ObjectStore
import Predicates

/// Ordinary Swift values, in variables, as predicate arguments (issue 19,
/// item 1): what used to fail with "cannot convert 'Int' to
/// 'FormatArgument'".
@Suite(.serialized) struct SwiftValueArgumentTests {
    @Test func everyValueTypeFillsAPlaceholder() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        let uuid = UUID()
        let url = URL(string: "https://example.com/a")!
        let cases: [(any PredicateArgument, Value)] = [
            (Int(7), .int(7)), (Int8(-8), .int(-8)), (Int16(16), .int(16)), (Int32(32), .int(32)), (Int64.max, .int(.max)),
            (UInt8(8), .int(8)), (UInt32(32), .int(32)), (UInt64.max, .decimal(Decimal(string: "18446744073709551615")!)),
            (2.5, .double(2.5)), (Float(0.5), .double(0.5)), (true, .bool(true)), ("Zoë", .string("Zoë")),
            ("abc".dropFirst(), .string("bc")), (date, .date(date)), (Data([1, 2]), .data(Data([1, 2]))), (uuid, .uuid(uuid)),
            (url, .url(url)), (Decimal(string: "1.25")!, .decimal(Decimal(string: "1.25")!)),
            (Optional<Int>.none, .null), (Optional(3), .int(3)), (Value.string("v"), .string("v")),
        ]
        for (argument, expected) in cases {
            let predicate = try Predicates.Predicate(format: "x == %@", argument)
            #expect(predicate == (try Predicates.Predicate(format: "x == %@", FormatArgument.value(expected))), "\(argument)")
        }
    }

    @Test func collectionsBecomeAggregates() throws {
        let names: Set = ["Ada", "Grace"]
        let ages = [36, 85]
        let slice = ages[1...]
        let fromSet = try Predicates.Predicate(format: "name IN %@", names)
        #expect(try Evaluator().evaluate(fromSet, on: ["name": "Ada"]))
        #expect(try !Evaluator().evaluate(fromSet, on: ["name": "Alan"]))
        #expect(try Evaluator().evaluate(Predicates.Predicate(format: "age IN %@", ages), on: ["age": 85]))
        #expect(try !Evaluator().evaluate(Predicates.Predicate(format: "age IN %@", slice), on: ["age": 36]))
        let maybe: [String?] = ["Ada", nil]
        #expect(try Evaluator().evaluate(Predicates.Predicate(format: "name IN %@", maybe), on: ["name": Value.null]))
    }

    @Test func variablesAndLiteralFormsBothCompile() throws {
        let key = "age", minimum: Int16 = 18
        // Variables with a spelled-out key path argument, and the literal forms.
        let mixed = try Predicates.Predicate(format: "%K >= %d", FormatArgument.keyPath(key), minimum)
        let literal = try Predicates.Predicate(format: "%K >= %d", .keyPath("age"), 18)
        #expect(mixed == literal)
        #expect(try Predicates.Predicate(format: "name == %@", nil) == Predicates.Predicate(format: "name == nil"))
        let names = try Expression(format: "age + %d", minimum)
        #expect(names == (try Expression(format: "age + 18")))
    }

    @Test func findersTakeVariables() throws {
        let context = try FinderTests().context()
        let minAge = 30, last = "Lovelace", team = "core"
        let maybeTeam: String? = "core"
        #expect(try Employee.findAll(where: "age > %d", minAge, sortedBy: "age", in: context).map(\.age) == [36, 41, 85])
        #expect(try Employee.findFirst(where: "lastName == %@", last, in: context)?.firstName == "Ada")
        #expect(try Employee.count(where: "team.name == %@ AND age > %d", team, minAge, in: context) == 2)
        #expect(try Employee.hasAtLeastOne(where: "team.name == %@", maybeTeam, in: context))
        #expect(try Employee.findFirst(byAttribute: "lastName", withValue: last, in: context)?.age == 36)
        #expect(try Employee.find(byAttribute: "firstName", withValue: "Ada", orderedBy: "age", in: context).map(\.age) == [20, 36])
        #expect(try Team.findFirstOrCreate(byAttribute: "name", withValue: team, in: context).members.count == 3)
        #expect(try Employee.aggregate(.max, of: "age", where: "team.name == %@", team, in: context) == .int(41))
        let groups = try Employee.aggregate(.count, of: "", where: "age >= %d", minAge, groupBy: ["team.name"], in: context)
        #expect(groups.count == 2)
        let ids = try Employee.findAll(where: "lastName IN %@", ["Byron", "Turing"], in: context)
        #expect(Set(ids.compactMap(\.lastName)) == ["Byron", "Turing"])
        #expect(try Employee.deleteAll(matching: "age < %d", minAge, in: context) == 1)
        #expect(try Employee.count(in: context) == 3)
    }

    @Test func predicateOverloadsWhereverAFormatIsTaken() throws {
        let context = try FinderTests().context()
        let old = try Predicates.Predicate(format: "age > 40")
        #expect(try Employee.hasAtLeastOne(where: old, in: context))
        #expect(try Employee.aggregate(.count, of: "", where: old, in: context) == .int(2))
        #expect(try Employee.aggregate(.count, of: "", where: old, groupBy: ["team.name"], in: context).count == 2)
        #expect(try Employee.requestFirst(where: old, in: context).fetchLimit == 1)
        #expect(try Employee.deleteAll(matching: old, in: context) == 2)
        #expect(try Employee.count(in: context) == 2)
    }
}
