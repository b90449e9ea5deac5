import Foundation
import Testing
@testable import Predicates

@Suite struct RoundTripTests {
    @Test func randomTreesSurvivePrintAndParse() throws {
        var generator = TreeGenerator(seed: 0xC0FFEE)
        var totalLength = 0
        defer { #expect(totalLength > 100_000, "the generator makes trivial trees") }
        for i in 0..<2_500 {
            let tree = generator.predicate(depth: 1 + i % 5)
            let printed = tree.format
            totalLength += printed.utf8.count
            let parsed: Predicate
            do {
                parsed = try Predicate(format: printed, arguments: [])
                    .substituting(arguments: [])
            } catch {
                // Placeholders need arguments; parse without substituting.
                do {
                    var parser = try Parser(source: printed)
                    parsed = try parser.parsePredicate()
                    try parser.expectEnd()
                } catch {
                    Issue.record("tree \(i) printed as: \(printed)\ndoes not parse: \(error)")
                    return
                }
            }
            #expect(parsed == tree, "tree \(i) printed as: \(printed)\nreparsed as: \(parsed.format)")
            if parsed != tree { return }
        }
    }

    @Test func randomExpressionsSurvivePrintAndParse() throws {
        var generator = TreeGenerator(seed: 42)
        for i in 0..<1_000 {
            let tree = generator.expression(depth: 1 + i % 5)
            var parser = try Parser(source: tree.format)
            let parsed = try parser.parseExpression()
            try parser.expectEnd()
            #expect(parsed == tree, "printed as: \(tree.format)")
            if parsed != tree { return }
        }
    }

    @Test(arguments: [
        ("age>18 and name beginswith[c] 'eng'", "age > 18 AND name BEGINSWITH[c] \"eng\""),
        ("(a = 1 OR b = 2) AND c = 3", "(a == 1 OR b == 2) AND c == 3"),
        ("a = 1 OR (b = 2 AND c = 3)", "a == 1 OR b == 2 AND c == 3"),
        ("NOT (a = 1 AND b = 2)", "NOT (a == 1 AND b == 2)"),
        ("a - (b - c) == 1", "a - (b - c) == 1"),
        ("(a - b) - c == 1", "a - b - c == 1"),
        ("2 ** 3 ** 2 == x", "2 ** 3 ** 2 == x"),
        ("(2 ** 3) ** 2 == x", "(2 ** 3) ** 2 == x"),
        ("-x ** 2 == 4", "-x ** 2 == 4"),
        ("- 5 == -(5)", "-5 == -(5)"),
        ("SELF.name == 'x'", "name == \"x\""),
        ("some kids.age <> 3", "ANY kids.age != 3"),
        ("a =< 1 && b => 2 || !c == 3", "a <= 1 AND b >= 2 OR NOT c == 3"),
        ("#first == yes", "#first == TRUE"),
        ("date > @2024-01-31", "date > @2024-01-31"),
        ("date > @2024-01-31T10:00:00+02:00", "date > @2024-01-31T08:00:00Z"),
        ("date > CAST(0, 'NSDate')", "date > CAST(0, \"NSDate\")"),
        ("x == CAST('1.50', 'NSDecimalNumber')", "x == CAST(\"1.5\", \"NSDecimalNumber\")"),
        ("SUBQUERY(kids, $k, $k.age > 3).@count > 0", "SUBQUERY(kids, $k, $k.age > 3).@count > 0"),
        ("kids.@avg.age >= average({1, 2})", "kids.@avg.age >= average:({1, 2})"),
        ("FUNCTION(name, 'uppercase:') == 'X'", "FUNCTION(name, \"uppercase:\") == \"X\""),
        ("tags[FIRST] == 'a' and tags[size] == 2", "tags[FIRST] == \"a\" AND tags[SIZE] == 2"),
        ("x in {1, 2, 3}", "x IN {1, 2, 3}"),
        ("n == 0x1F + 0b101 + 0o17", "n == 31 + 5 + 15"),
        ("name == \"a\\\"b\\\\c\\n\\u00e9\"", "name == \"a\\\"b\\\\c\\né\""),
        ("age BETWEEN {1, 10}", "age BETWEEN {1, 10}"),
        ("now() > born", "now() > born"),
        ("add:to:(1, 2) == 3", "add:to:(1, 2) == 3"),
        ("TRUEPREDICATE", "TRUEPREDICATE"),
    ])
    func canonicalForm(source: String, expected: String) throws {
        let p = try Predicate(format: source)
        #expect(p.format == expected)
        #expect(try Predicate(format: p.format) == p)
    }
}
