import Foundation
import Testing
@testable import Predicates

@Suite struct DiagnosticTests {
    func render(_ source: String, fileName: String? = nil) -> String {
        do {
            _ = try Predicate(format: source)
            return "no error"
        } catch {
            return DiagnosticRenderer.render(error, source: source, fileName: fileName)
        }
    }

    @Test func rendersWithFileName() {
        let source = "a == 1 AND\nb == 2 AND\nage > AND name == \"x\""
        do {
            _ = try Predicate(format: source)
        } catch {
            #expect(DiagnosticRenderer.render(error, source: source, fileName: "people.mrq") == """
                people.mrq:3:7: error: expected value after '>'
                    age > AND name == "x"
                          ^~~
                """)
        }
    }

    @Test(arguments: [
        ("age > AND name == \"x\"", """
            error: expected value after '>'
                age > AND name == "x"
                      ^~~
            """),
        ("(age > 1 AND b == 2", """
            error: incomplete input
                (age > 1 AND b == 2
                                   ^
            """),
        ("(age > 1 AND b == 2 c", """
            error: expected ')' to close '(' at 1:1
                (age > 1 AND b == 2 c
                                    ^
            """),
        ("AND b == 2", """
            error: unexpected 'AND'
                AND b == 2
                ^~~
            """),
        ("name BEGINSWTIH 'x'", """
            error: expected comparison operator after 'name', found 'BEGINSWTIH'; did you mean 'BEGINSWITH'?
                name BEGINSWTIH 'x'
                     ^~~~~~~~~~
            """),
        ("name == 'abc", """
            error: unterminated string
                name == 'abc
                        ^~~~
            """),
        ("name ==[x] 'a'", """
            error: unknown comparison option 'x', expected c, d, n or a combination such as cd
                name ==[x] 'a'
                        ^
            """),
        ("avrage:(x) > 1", """
            error: unknown function 'avrage:'; did you mean 'average:'?
                avrage:(x) > 1
                ^~~~~~~
            """),
        ("sqrt(1, 2) > 1", """
            error: function 'sqrt' takes 1 argument, got 2
                sqrt(1, 2) > 1
                ^~~~~~~~~~
            """),
        ("fetch == 1", """
            error: 'FETCH' is a reserved word; write #FETCH to use it as a key
                fetch == 1
                ^~~~~
            """),
        ("a.first == 1", """
            error: 'FIRST' is a reserved word; write #FIRST to use it as a key
                a.first == 1
                  ^~~~~
            """),
        ("x == CAST(1, 'NSFoo')", """
            error: unknown CAST type 'NSFoo', expected NSDate, NSNumber, NSString, NSDecimalNumber, NSUUID, NSURL or NSData
                x == CAST(1, 'NSFoo')
                             ^~~~~~~
            """),
        ("kids.@avrg.age > 1", """
            error: unknown collection operator '@avrg'; did you mean '@avg'?
                kids.@avrg.age > 1
                     ^~~~~
            """),
        ("a == 1 b", """
            error: unexpected 'b'
                a == 1 b
                       ^
            """),
        ("", """
            error: incomplete input
                \("")
                ^
            """),
        ("NOT active", """
            error: a key path alone is not a predicate: write 'active == YES'
                NOT active
                    ^~~~~~
            """),
        ("age > 18 AND department.active", """
            error: a key path alone is not a predicate: write 'department.active == YES'
                age > 18 AND department.active
                             ^~~~~~~~~~~~~~~~~
            """),
        ("(active) OR age > 3", """
            error: a key path alone is not a predicate: write 'active == YES'
                (active) OR age > 3
                 ^~~~~~
            """),
        ("ANY > 3", """
            error: expected comparison after 'ANY'
                ANY > 3
                    ^
            """),
        ("x == 'é' ~", """
            error: unexpected character '~'
                x == 'é' ~
                         ^
            """),
    ])
    func messages(source: String, expected: String) {
        #expect(render(source) == expected)
    }

    @Test func incompleteInputIsFlagged() {
        do {
            _ = try Predicate(format: "age >")
        } catch {
            #expect(error.isIncompleteInput)
        }
    }

    @Test func suggestions() {
        #expect(Suggestions.closest(to: "agee", in: ["age", "name"]) == "age")
        #expect(Suggestions.closest(to: "BEGINSWTIH", in: Keyword.allCases.map(\.rawValue)) == "BEGINSWITH")
        #expect(Suggestions.closest(to: "zzz", in: ["age", "name"]) == nil)
        #expect(Suggestions.distance("ca", "ac") == 1)
        #expect(Suggestions.distance("kitten", "sitting") == 3)
    }

    struct People: PredicateSchema {
        let entities: [String: [String: (String?, Bool)]] = [
            "Person": ["age": (nil, false), "name": (nil, false), "kids": ("Person", true), "dept": ("Dept", false)],
            "Dept": ["title": (nil, false), "floor": (nil, false)],
        ]
        func keys(ofEntity entity: String) -> [String]? { entities[entity].map { Array($0.keys).sorted() } }
        func destination(ofEntity entity: String, key: String) -> String? { entities[entity]?[key]?.0 ?? nil }
        func isToMany(entity: String, key: String) -> Bool { entities[entity]?[key]?.1 ?? false }
    }

    func check(_ source: String) -> String {
        do {
            try Predicate(format: source).validateKeys(entity: "Person", schema: People())
            return "ok"
        } catch {
            return DiagnosticRenderer.render(error, source: source)
        }
    }

    @Test func validateKeys() {
        #expect(check("age > 1 AND dept.title == 'x' AND kids.@avg.age > 3 AND SUBQUERY(kids, $k, $k.dept.floor > 1).@count > 0") == "ok")
        #expect(check("agee > 1") == """
            error: unknown key 'agee' on Person; did you mean 'age'?
                agee > 1
                ^~~~
            """)
        #expect(check("age > 1 AND dept.titel == 'x'") == """
            error: unknown key 'titel' on Dept; did you mean 'title'?
                age > 1 AND dept.titel == 'x'
                                 ^~~~~
            """)
        #expect(check("kids.@sum.agge > 1") == """
            error: unknown key 'agge' on Person; did you mean 'age'?
                kids.@sum.agge > 1
                          ^~~~
            """)
        #expect(check("SUBQUERY(kids, $k, $k.nme == 'x').@count > 0").hasPrefix("error: unknown key 'nme' on Person; did you mean 'name'?"))
        #expect(check("name.first2 == 1").hasPrefix("error: 'name' on Person is an attribute, so it has no key 'first2'"))
    }
}
