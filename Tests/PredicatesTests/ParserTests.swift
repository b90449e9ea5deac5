import Foundation
import Testing
@testable import Predicates

@Suite struct ParserTests {
    @Test func treeShape() throws {
        let p = try Predicate(format: "age > 18 AND ANY kids.name ==[cd] 'x' OR NOT active == YES")
        #expect(p.treeDescription == """
            OR
              AND
                comparison >
                  keyPath age
                  constant 18
                comparison ANY ==[cd]
                  keyPath kids.name
                  constant "x"
              NOT
                comparison ==
                  keyPath active
                  constant TRUE
            """)
    }

    /// Most comparisons compare a key path with a constant: those leaves
    /// live in their expression node rather than in a box of their own
    /// (only the cases that hold another expression are `indirect`), so
    /// parsing `age > 18` allocates no node for either side.
    @Test func leafExpressionsAreNotBoxed() {
        #expect(MemoryLayout<Expression.Kind>.size > MemoryLayout<Int>.size)
    }

    @Test func keyPathsArePlainLists() throws {
        let e = try Expression(format: "department.manager.name")
        #expect(e.keyPathComponents == ["department", "manager", "name"])
        #expect(try Expression(format: "%K", "a.b").keyPathComponents == ["a", "b"])
        #expect(try Expression(format: "SELF.a").keyPathComponents == ["a"])
    }

    @Test func collectionOperatorsAndMembers() throws {
        let e = try Expression(format: "kids.@avg.age")
        #expect(e.kind == .collection(.avg, .keyPath("kids"), key: ["age"]))
        let s = try Expression(format: "SUBQUERY(kids, $k, $k.age > 1).@count")
        guard case .collection(.count, let base, let key) = s.kind, case .subquery(_, "k", _) = base.kind else {
            Issue.record("unexpected \(s.treeDescription)")
            return
        }
        #expect(key.isEmpty)
        #expect(try Expression(format: "$x.name.first2").kind == .member(Expression(.variable("x")), ["name", "first2"]))
    }

    @Test func functionsInEveryForm() throws {
        let forms = ["average:({1, 2})", "average({1, 2})", "AVERAGE({1, 2})", "avg({1, 2})",
                     "FUNCTION({1, 2}, 'average:')"]
        let parsed = try forms.map { try Expression(format: $0) }
        #expect(parsed[0].kind == .function(.average, [Expression(.aggregate([.constant(1), .constant(2)]))]))
        #expect(parsed[1] == parsed[0] && parsed[2] == parsed[0] && parsed[3] == parsed[0])
        #expect(try Evaluator().evaluate(parsed[4], on: .value(.null)).scalar == .double(1.5))
        #expect(try Expression(format: "from:subtract:(5, 2)").kind == .function(.subtract, [.constant(5), .constant(2)]))
        #expect(try Expression(format: "now()").kind == .function(.now, []))
        #expect(try Expression(format: "max(1, 5, 10)").kind == .function(.max, [.constant(1), .constant(5), .constant(10)]))
    }

    @Test func formatArguments() throws {
        let p = try Predicate(format: "%K > %d AND name == %@ AND tag IN %@", "age", 18, "x", ["a", "b"])
        #expect(p.format == "age > 18 AND name == \"x\" AND tag IN {\"a\", \"b\"}")
        #expect(throws: SyntaxError.self) { try Predicate(format: "age > %d") }
        #expect(throws: SyntaxError.self) { try Predicate(format: "age > %d", 1, 2) }
        #expect(try Predicate(format: "name LIKE '*%%'").format == "name LIKE \"*%%\"")
    }

    @Test func variables() throws {
        let template = try Predicate(format: "age > $min AND SUBQUERY(kids, $k, $k.age > $min).@count > 0")
        let p = try template.substituting(variables: ["min": 18])
        #expect(p.format == "age > 18 AND SUBQUERY(kids, $k, $k.age > 18).@count > 0")
        #expect(throws: SyntaxError.self) { try template.substituting(variables: [:]) }
    }

    @Test func stopsBeforeTokensThatCannotContinue() throws {
        var parser = try Parser(source: "age > 18 sort LastName:NO,FirstName limit 10")
        let p = try parser.parsePredicate()
        #expect(p.format == "age > 18")
        #expect(parser.check(word: "sort"))
        parser.advance()
        let keys = try parser.parseSortKeys()
        #expect(keys == [SortKey(keyPath: ["LastName"], ascending: false), SortKey(keyPath: ["FirstName"], ascending: true)])
        #expect(parser.check(word: "limit"))

        var insert = try Parser(source: "{ firstName: \"John\" + 'x', age: 30 }; next")
        _ = try insert.expect(.leftBrace)
        insert.advance()
        _ = try insert.expect(.colon)
        #expect(try insert.parseExpression().format == "\"John\" + \"x\"")
        #expect(insert.check(.comma))
        insert.advance(); insert.advance(); insert.advance()
        #expect(try insert.parseExpression().format == "30")
        #expect(insert.check(.rightBrace))
    }

    @Test func sortSpecs() throws {
        #expect(try SortSpec.parse("LastName:NO, FirstName:YES,age", defaultAscending: true) == [
            SortKey(keyPath: ["LastName"], ascending: false), SortKey(keyPath: ["FirstName"], ascending: true),
            SortKey(keyPath: ["age"], ascending: true),
        ])
        #expect(try SortSpec.parse("a.b DESC, c:asc, d", defaultAscending: false) == [
            SortKey(keyPath: ["a", "b"], ascending: false), SortKey(keyPath: ["c"], ascending: true),
            SortKey(keyPath: ["d"], ascending: false),
        ])
        #expect(try SortSpec.parse("  ") == [])
        do {
            _ = try SortSpec.parse("name:MAYBE")
            Issue.record("no error")
        } catch {
            #expect(error.message == "expected YES, NO, ASC or DESC, found 'MAYBE'")
            #expect(error.range.offsets == 5..<10)
        }
        #expect(throws: SyntaxError.self) { try SortSpec.parse("a,,b") }
    }

    @Test func nestingIsCapped() {
        for source in [String(repeating: "(", count: 5000) + "a == 1",
                       String(repeating: "NOT ", count: 5000) + "a == 1",
                       "a == " + String(repeating: "-", count: 5000) + "1",
                       "a == " + String(repeating: "{", count: 5000),
                       "a == " + String(repeating: "2 ** ", count: 5000) + "2",
                       "a == " + String(repeating: "b[", count: 5000)] {
            do {
                _ = try Predicate(format: source)
                Issue.record("no error")
            } catch {
                #expect(error.message == "nested too deeply (more than 128 levels of parentheses, operators or statements)")
            }
        }
        let deep = String(repeating: "(", count: 120) + "a == 1" + String(repeating: ")", count: 120)
        #expect(throws: Never.self) { try Predicate(format: deep) }
    }

    @Test func rangesCoverNodes() throws {
        let p = try Predicate(format: "age > 18 AND name == 'x'")
        guard case .and(let parts) = p.kind, case .comparison(let c) = parts[1].kind else { return }
        #expect(c.range.offsets == 13..<24)
        #expect(c.lhs.range.offsets == 13..<17)
        #expect(c.rhs.range.offsets == 21..<24)
        #expect(p.range.offsets == 0..<24)
    }
}
