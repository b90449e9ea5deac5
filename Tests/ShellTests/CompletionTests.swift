import Foundation
import Testing
@testable import Shell

@Suite struct CompletionTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    private func session() throws -> ShellSession {
        let session = try ShellSession(modelPath: Self.samples.appendingPathComponent("People.xcdatamodeld").path, storePath: ":memory:")
        session.baseDirectory = Self.samples
        return session
    }

    private func complete(_ session: ShellSession, _ line: String) -> [String] {
        session.completions(in: line, cursor: line.utf8.count)
    }

    @Test func entityNamesAndStatementWordsStartAStatement() throws {
        let s = try session()
        #expect(complete(s, "Pe") == ["Person"])
        #expect(complete(s, "co") == ["count"])
        #expect(complete(s, "") .contains("Department"))
    }

    @Test func entityNamesAfterWordsThatTakeOne() throws {
        let s = try session()
        #expect(complete(s, "count Pers") == ["Person"])
        #expect(complete(s, "sum salary of Dep") == ["Department"])
        #expect(complete(s, "insert D") == ["Department"])
    }

    @Test func attributesAndKeyPathsAfterWhereAndSort() throws {
        let s = try session()
        #expect(complete(s, "Person where ag") == ["age"])
        #expect(complete(s, "count Person where ag") == ["age"])
        #expect(complete(s, "Person where department.na") == ["department.name"])
        #expect(complete(s, "Person sort Last") == ["LastName"])
        #expect(complete(s, "Department where people.@c") == ["people.@count"])
        #expect(complete(s, "Person where age > 3 AN") == ["AND"])
    }

    @Test func dotCommandsAndFileNames() throws {
        let s = try session()
        #expect(Set(complete(s, ".mo")) == [".mode", ".model"])
        #expect(complete(s, ".read peo") == ["people-load.mrq", "people.mrq", "people.out", "people-load.out", "people.json"].sorted())
        #expect(complete(s, "import Person from \"mai") == ["mail.json", "mail.mrq", "mail.out"])
    }

    static let personKeys = ["FirstName", "LastName", "age", "email", "salary", "active", "hiredAt", "personID", "department."]
    static let departmentKeys = ["name", "budget", "code", "people."]
    static let clauses = ["where", "sort", "limit", "offset"]
    static let comparisons = ["BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "MATCHES", "IN", "BETWEEN"]
    static let predicateStart = ["NOT", "ANY", "ALL", "NONE", "SOME", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE"]
    static let values = ["YES", "NO", "nil", "now()"]
    static let operators = ["@count", "@sum.", "@avg.", "@min.", "@max.", "@distinctUnionOfObjects.", "@unionOfObjects.",
                            "@distinctUnionOfArrays.", "@unionOfArrays.", "@distinctUnionOfSets."]

    static let personProperties = ["FirstName", "LastName", "age", "email", "salary", "active", "hiredAt", "personID", "department"]
    static let keysOrPredicate: [String] = personKeys + predicateStart
    static let keysOrValue: [String] = personKeys + values
    static let afterComparison = ["AND", "OR", "sort", "limit", "offset"]
    static let modifiers = ["required", "optional", "transient", "unique", "indexed", "ordered",
                            "cascade", "nullify", "deny", "noaction", "inverse", "min", "max"]
    static let followers: [(String, [String])] = [
        ("count Person ", clauses),
        ("Person where age ", comparisons),
        ("Person where department ", comparisons),
        ("Person where ", keysOrPredicate),
        ("Person where NOT ", keysOrPredicate),
        ("Person where ANY ", personKeys),
        ("Person where age > ", keysOrValue),
        ("Person where age > 3 ", afterComparison),
        ("Person where (age > 3 OR age < 1) ", afterComparison),
        ("Person where age IN {1, 2} ", afterComparison),
        ("Person where hiredAt < now() ", afterComparison),
        ("Person where age > 3 sort ", personKeys),
        ("Person sort age ", ["limit", "offset"]),
        ("Person sort age:", ["YES", "NO"]),
        ("Person sort age:NO limit 3 ", ["offset"]),
        ("count ", ["Department", "Person", "of"]),
        ("count of ", ["Department", "Person"]),
        ("count of Person ", ["where", "group", "having", "sort", "limit"]),
        ("sum salary ", ["of"]),
        ("sum salary of Person group ", ["by"]),
        ("sum salary of Person group by department.name ", ["having", "sort", "limit"]),
        ("sum salary of Person group by department.name having ", keysOrPredicate + ["sum"]),
        ("select FirstName ", ["from"]),
        ("select FirstName from ", ["Department", "Person"]),
        ("select FirstName from Person ", clauses),
        ("update Person ", ["where", "set", "direct"]),
        ("update Person where age > 3 ", ["AND", "OR", "set", "direct"]),
        ("update Person set ", personProperties),
        ("update Person set age = ", keysOrValue + ["first"]),
        ("update Person set age = age + 1 ", ["direct"]),
        ("update Person set department = first ", ["Department", "Person"]),
        ("update Person set department = first Department where ", departmentKeys + predicateStart),
        ("delete Person where active == YES ", ["AND", "OR", "direct"]),
        ("insert Person { ", personProperties),
        ("insert Person { age: ", values + ["first"]),
        ("insert Person { department: first ", ["Department", "Person"]),
        ("insert Department { name: \"x\", ", ["name", "budget", "code", "people"]),
        ("insert Person { department: first Department where name == \"x\", ", personProperties),
        ("import Person ", ["from"]),
        ("let d = first Department where ", departmentKeys + predicateStart),
        ("explain count Person where ", keysOrPredicate),
        ("entity Thing ", ["abstract"]),
        ("entity Thing { name: String ", modifiers),
        ("count Person where\n  ", keysOrPredicate),
        ("truncate Person ", []),
        ("save ", []),
    ]

    /// Only what may follow at the cursor: clause words after an entity,
    /// operators after a key, keys after an operator, entities where an
    /// entity goes; never the word just typed again.
    @Test(arguments: followers)
    func onlyWhatMayFollow(line: String, expected: [String]) throws {
        let s = try session()
        #expect(complete(s, line) == expected, "\(line.debugDescription)")
    }

    @Test func keyPathsGoOnThroughRelationshipsWithoutASpace() throws {
        let s = try session()
        func completion(_ line: String) -> Completion { s.completion(in: line, cursor: line.utf8.count) }
        #expect(completion("Person where depa") == Completion(range: 13..<17, candidates: ["department."], terminator: ""))
        #expect(completion("Person where department.na") == Completion(range: 13..<26, candidates: ["department.name"], terminator: " "))
        #expect(complete(s, "Person where department.") == ["department.name", "department.budget", "department.code", "department.people."])
        #expect(complete(s, "Department where people.") == ["FirstName", "LastName", "age", "email", "salary", "active", "hiredAt",
                                                                "personID", "department."].map { "people." + $0 } + Self.operators.map { "people." + $0 })
        #expect(complete(s, "Department where people.@") == Self.operators.map { "people." + $0 })
        #expect(completion("Department where people.@su") == Completion(range: 17..<27, candidates: ["people.@sum."], terminator: ""))
        #expect(complete(s, "Department where people.@sum.sa") == ["people.@sum.salary"])
        #expect(complete(s, "Department where people.@count.") == [])
        #expect(complete(s, "Department where ANY people.ag") == ["people.age"])
        #expect(complete(s, "select department.na") == ["department.name"])
        #expect(complete(s, "sum peo") == ["people."])
        // Where a relationship is assigned, it is the whole key.
        #expect(completion("update Person set depa") == Completion(range: 18..<22, candidates: ["department"], terminator: " "))
    }

    @Test func keywordsAreNotOfferedInsideStringsNorEntitiesWhereKeysGo() throws {
        let s = try session()
        #expect(complete(s, "Person where FirstName == \"wh") == [])
        #expect(complete(s, "Person where FirstName == 'An") == [])
        #expect(!complete(s, "Person where ").contains("Person"))
        #expect(!complete(s, "Person where age > ").contains("Department"))
        #expect(complete(s, "count Person where ag") == ["age"])
    }

    @Test func anImportsFileNameGetsItsQuote() throws {
        let s = try session()
        func completion(_ line: String) -> Completion { s.completion(in: line, cursor: line.utf8.count) }
        #expect(completion("import Person from mail.j") == Completion(range: 19..<25, candidates: ["\"mail.json"], terminator: "\""))
        #expect(complete(s, "import Person from mai") == ["\"mail.json", "\"mail.mrq", "\"mail.out"])
        #expect(completion("import Person from Mail.xc") == Completion(range: 19..<26, candidates: ["\"Mail.xcdatamodeld/"], terminator: ""))
    }
}
