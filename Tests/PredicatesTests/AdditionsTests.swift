import Foundation
import Testing
@testable import Predicates

/// mrq's additions to Apple's NSPredicate are found, named with Apple's
/// spelling, refused in strict mode, and Apple's own forms pass.
@Suite struct AdditionsTests {
    typealias People = DiagnosticTests.People

    /// The tree as parsed, placeholders left in.
    func parsed(_ source: String) throws -> Predicate {
        var parser = try Parser(source: source)
        return try parser.parsePredicate()
    }

    func additions(_ source: String) throws -> [String] {
        try parsed(source).additions(in: source, entity: "Person", schema: People()).map(\.message)
    }

    @Test(arguments: [
        ("age > 1 AND hiredAt > @2024-01-31", ["'@2024-01-31' is mrq's date literal; in Apple's NSPredicate write "
                                              + "CAST(728352000, \"NSDate\") or pass a date with %@"]),
        ("avg({1, 2}) > 1", ["'avg({1, 2})' calls a function by mrq's readable name; in Apple's NSPredicate write average:({1, 2})"]),
        ("add(age, 1) > 1", ["'add(age, 1)' calls a function by mrq's readable name; in Apple's NSPredicate write add:to:(age, 1)"]),
        ("random({1, 2}) > 1", ["'random({1, 2})' calls a function by mrq's readable name; in Apple's NSPredicate write random:({1, 2})"]),
        ("kids.age > 60", ["'kids.age' goes through a to-many relationship without ANY, which mrq adds for you; "
                           + "in Apple's NSPredicate write ANY kids.age > 60"]),
        ("60 < kids.age", ["'kids.age' goes through a to-many relationship without ANY, which mrq adds for you; "
                           + "in Apple's NSPredicate write ANY kids.age > 60"]),
        ("ANY age > 18", ["'age' is not a collection: Apple's NSPredicate raises for ANY, ALL or NONE on a single value; "
                          + "in Apple's NSPredicate write age > 18"]),
        ("NONE dept.title == 'x'", ["'dept.title' is not a collection: Apple's NSPredicate raises for ANY, ALL or NONE on a "
                                    + "single value; in Apple's NSPredicate write NOT (dept.title == \"x\")"]),
    ])
    func additionsAreNamedWithApplesSpelling(source: String, expected: [String]) throws {
        #expect(try additions(source) == expected)
    }

    /// Apple's own forms are no additions: selector calls, now() and
    /// random(), CAST dates, ANY through a to-many, collection operators,
    /// CONTAINS and IN with the collection where Apple puts it, SUBQUERY.
    @Test(arguments: [
        "average:({1, 2}) > 1", "add:to:(age, 1) > 2", "hiredAt < now()", "random() < 2",
        "hiredAt > CAST(728352000, \"NSDate\")", "ANY kids.age > 60", "ALL kids.age > 1", "kids.@avg.age > 3",
        "kids.age CONTAINS 3", "3 IN kids.age", "SUBQUERY(kids, $k, $k.age > 1).@count > 0", "dept.title == 'x'",
        "FUNCTION(name, 'uppercaseString') == 'A'", "hiredAt > %@",
    ])
    func applesFormsAreNoAdditions(source: String) throws {
        #expect(try additions(source) == [])
    }

    @Test func strictParsingRefusesWithApplesSpelling() throws {
        #expect(throws: SyntaxError.self) { try Predicate(format: "hiredAt > @2024-01-31", options: .strict) }
        do {
            _ = try Predicate(format: "x > 1 AND ceil(2.5) == 3", options: .strict)
            Issue.record("strict parsing accepted ceil")
        } catch {
            #expect(error.message == "'ceil(2.5)' calls a function by mrq's readable name; in Apple's NSPredicate write ceiling:(2.5)")
            #expect(error.range.start.column == 11)
        }
        #expect(try Predicate(format: "hiredAt > CAST(728352000, \"NSDate\") AND ceiling:(2.5) == 3", options: .strict)
                == Predicate(format: "hiredAt > @2024-01-31 AND ceil(2.5) == 3"))
        // A date passed for %@ is Apple's, not a literal.
        _ = try Predicate(format: "hiredAt > %@", options: .strict,
                          arguments: [.date(Date(timeIntervalSinceReferenceDate: 0))])
        #expect(throws: SyntaxError.self) {
            try Predicate(format: "kids.age > 1").refuseAdditions(in: "kids.age > 1", entity: "Person", schema: People())
        }
    }

    /// Apple's CAST of a number to NSDate prints back as written, not as
    /// mrq's date literal; the value is the same.
    @Test func castDatesPrintAsWritten() throws {
        let cast = try Predicate(format: "hiredAt > CAST(700000000, \"NSDate\")")
        #expect(cast.format == "hiredAt > CAST(700000000, \"NSDate\")")
        #expect(cast == (try Predicate(format: "hiredAt > @2023-03-08T20:26:40Z")))
        #expect(try Predicate(format: "hiredAt > @2023-03-08T20:26:40Z").format == "hiredAt > @2023-03-08T20:26:40Z")
        #expect(try Predicate(format: cast.format).format == cast.format)
    }

    /// What evaluation is certain to refuse is found before it runs, with
    /// evaluation's own message and range.
    @Test(arguments: [
        ("FirstName LIKE %@", "format placeholder '%@' was never given an argument", 16),
        ("age BETWEEN 16", "BETWEEN needs a two-value aggregate such as {1, 10}", 13),
        ("age BETWEEN {1, 2, 3}", "BETWEEN needs a two-value aggregate such as {1, 10}", 13),
        ("name MATCHES \"(\"", "invalid regular expression '('", 14),
        ("age / 0 > 1", "division by zero", 1),
    ])
    func checkRunnableMatchesEvaluation(source: String, message: String, column: Int) throws {
        let predicate = try parsed(source)
        #expect(throws: EvaluationError.self) { try predicate.checkRunnable() }
        do {
            try predicate.checkRunnable()
        } catch {
            #expect(error.message == message)
            #expect(error.range.start.column == column)
        }
        do {
            _ = try Evaluator().evaluate(predicate, on: ["age": .int(3), "name": .string("x")])
            Issue.record("evaluation accepted \(source)")
        } catch let error as EvaluationError {
            #expect(error.message == message)
        }
        try Predicate(format: "age BETWEEN {1, 2} AND FirstName LIKE 'a*'").checkRunnable()
    }
}
