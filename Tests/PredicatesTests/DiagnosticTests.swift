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

    /// People with kinds: the checks of comparisons that never match.
    struct TypedPeople: PredicateSchema {
        let kinds: [String: [String: ValueKind]] = [
            "Person": ["age": .number, "name": .string, "hiredAt": .date, "active": .boolean, "identifier": .uuid, "url": .url],
            "Dept": ["title": .string, "floor": .number, "code": .string],
        ]
        func keys(ofEntity entity: String) -> [String]? {
            kinds[entity].map { Array($0.keys).sorted() + (entity == "Person" ? ["dept", "kids"] : ["people"]) }
        }
        func destination(ofEntity entity: String, key: String) -> String? {
            switch (entity, key) {
            case ("Person", "dept"): return "Dept"
            case ("Person", "kids"), ("Dept", "people"): return "Person"
            default: return nil
            }
        }
        func isToMany(entity: String, key: String) -> Bool { key == "kids" || key == "people" }
        func valueKind(ofEntity entity: String, key: String) -> ValueKind? { kinds[entity]?[key] }
    }

    @Test(arguments: [
        (#"hiredAt > "2020-01-01""#, #"""
            error: 'hiredAt' holds dates and "2020-01-01" is a string, so this never matches; write hiredAt > CAST(599529600, "NSDate") (or mrq's hiredAt > @2020-01-01)
                hiredAt > "2020-01-01"
                          ^~~~~~~~~~~~
            """#),
        (#"age > "18""#, #"""
            error: 'age' holds numbers and "18" is a string, so this never matches; write age > 18
                age > "18"
                      ^~~~
            """#),
        (#"dept == "Sales""#, #"""
            error: 'dept' is a relationship to Dept objects and "Sales" is a string, so this never matches; write dept.title == "Sales"
                dept == "Sales"
                        ^~~~~~~
            """#),
        (#"kids.dept.floor IN {1, "2"}"#, #"""
            error: 'kids.dept.floor' holds numbers and "2" is a string, so this never matches; write kids.dept.floor IN {1, 2}
                kids.dept.floor IN {1, "2"}
                                       ^~~
            """#),
        (#""Ada" == age"#, #"""
            error: 'age' holds numbers and "Ada" is a string, so this never matches
                "Ada" == age
                ^~~~~
            """#),
        ("name == 5", #"""
            error: 'name' holds strings and 5 is a number, so this never matches; write name == "5"
                name == 5
                        ^
            """#),
        ("hiredAt < 0", #"""
            error: 'hiredAt' holds dates and 0 is a number, so this never matches; write hiredAt < CAST(0, "NSDate") (seconds since 2001-01-01)
                hiredAt < 0
                          ^
            """#),
        (#"age BEGINSWITH "1""#, """
            error: BEGINSWITH compares strings and 'age' holds numbers, so this never matches
                age BEGINSWITH "1"
                ^~~
            """),
        (#"identifier == "nope""#, #"""
            error: 'identifier' holds UUIDs and "nope" is a string, so this never matches; write a UUID such as "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
                identifier == "nope"
                              ^~~~~~
            """#),
        (#"active == "yes""#, #"""
            error: 'active' holds booleans and "yes" is a string, so this never matches; write active == TRUE
                active == "yes"
                          ^~~~~
            """#),
        (#"ANY kids.dept == "x""#, #"""
            error: 'kids.dept' is a relationship to Dept objects and "x" is a string, so this never matches; write ANY kids.dept.title == "x"
                ANY kids.dept == "x"
                                 ^~~
            """#),
        (#"SUBQUERY(kids, $k, $k.age > "3").@count > 0"#, #"""
            error: 'age' holds numbers and "3" is a string, so this never matches; write $k.age > 3
                SUBQUERY(kids, $k, $k.age > "3").@count > 0
                                            ^~~
            """#),
    ])
    func comparisonsThatNeverMatchTeachTheFix(source: String, expected: String) {
        do {
            try Predicate(format: source).validateKeys(entity: "Person", schema: TypedPeople())
            Issue.record("no error for \(source)")
        } catch {
            #expect(DiagnosticRenderer.render(error, source: source) == expected)
        }
    }

    @Test(arguments: [
        #"identifier == "3F2504E0-4F89-11D3-9A0C-0305E82C3301" AND url BEGINSWITH "https""#,
        #"hiredAt > @2020-01-01 AND age > 18 AND active == YES AND name == nil AND dept.title == "x""#,
        #"name IN "Ada Lovelace" AND age BETWEEN {1, 2.5} AND url == "https://x.org" AND dept != nil"#,
        #"identifier BEGINSWITH "3F" AND hiredAt > CAST(0, "NSDate") AND age == TRUE"#,
    ])
    func comparisonsThatCanMatchPass(source: String) throws {
        try Predicate(format: source).validateKeys(entity: "Person", schema: TypedPeople())
        // Without kinds (the default), nothing is checked.
        try Predicate(format: #"age > "18""#).validateKeys(entity: "Person", schema: People())
        try Predicate(format: #"age > "18""#).validateKeys(entity: "Person", schema: TypedPeople(), comparisons: false)
    }

    @Test func aLikePatternWithPercentWarns() throws {
        let warnings = try Predicate(format: #"name LIKE "Zh%" OR name LIKE[c] "a_b%" OR name LIKE "*100%""#).warnings
        #expect(warnings.map(\.message) == [
            #"LIKE uses * and ?, not % and _: write name LIKE "Zh*" (here % and _ match only themselves)"#,
            #"LIKE uses * and ?, not % and _: write name LIKE[c] "a?b*" (here % and _ match only themselves)"#,
        ])
        #expect(warnings.first?.range.start.column == 11)
    }
}
