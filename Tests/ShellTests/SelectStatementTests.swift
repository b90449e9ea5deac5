import Foundation
import ObjectStore
import Predicates
import Testing
@testable import Shell

/// `select` with to-one key paths, collection operators and arithmetic;
/// aggregates sorted by their value or a group key; object variables in
/// predicates. SQL and memory give the same answers (a differential test
/// over random data).
@Suite struct SelectStatementTests {
    /// Random departments and people, saved: nils, negative and large
    /// numbers, people without a department, departments without people.
    static func randomPeople(seed: UInt64) throws -> ShellHarness {
        let shell = try ShellHarness()
        var random = SplitMix64(seed: seed)
        func maybe(_ value: Value) -> Value { random.below(100) < 15 ? .null : value }
        let context = shell.session.context
        var departments: [ManagedObject] = []
        for i in 0..<(2 + random.below(4)) {
            let department = context.insertObject(forEntityName: "Department")
            department["name"] = .string(["Sales", "Eng", "Ops", "Legal", "R&D", "Zoë"][i])
            department["budget"] = maybe(.double([0, 1.5, 1e6, -250.25, 3][random.below(5)]))
            department["code"] = maybe(.string(["S", "E", "", "é"][random.below(4)]))
            departments.append(department)
        }
        for n in 0..<(10 + random.below(30)) {
            let person = context.insertObject(forEntityName: "Person")
            person["personID"] = .int(Int64(n * 7 - 20))
            person["FirstName"] = maybe(.string(["Ada", "Bob", "Zhang", "", "Émile"][random.below(5)]))
            person["age"] = maybe(.int(Int64([0, 1, 17, 42, 150, 33][random.below(6)])))
            person["salary"] = maybe(.double([0, 1000, 12345.5, -3, 1e9][random.below(5)]))
            person["active"] = maybe(.bool(random.below(2) == 0))
            person["hiredAt"] = maybe(.date(Date(timeIntervalSinceReferenceDate: [0, 86_400, 6e8, -1e8][random.below(4)])))
            if random.below(100) < 85 { person.setObject(departments[random.below(departments.count)], forKey: "department") }
        }
        #expect(shell.run("save").ok)
        return shell
    }

    static let personColumns = [
        "FirstName", "department.name", "department.budget", "age * 2", "salary / 12", "age / 4", "age + personID",
        "-age", "salary - age", "personID * 3 + 1", "department.budget / 2", "age * salary", "hiredAt", "active",
        "department.code", "age / 0.5", "2 * 3",
    ]
    static let departmentColumns = [
        "name", "people.@count", "people.@sum.age", "people.@avg.age", "people.@avg.salary", "people.@min.hiredAt",
        "people.@max.age", "people.@sum.salary", "budget * 2", "people.@count * 2 + 1", "people.@min.FirstName",
    ]

    static func parse<T>(_ text: String, _ extract: (Shell.Statement) -> T?) throws -> T {
        let statement = try StatementParser.parse(text)[0].statement
        return try #require(extract(statement), "\(text)")
    }

    /// Cells equal, doubles within a relative 1e-12 (SQLite's AVG adds in
    /// another order than the evaluator).
    static func same(_ a: ResultSet, _ b: ResultSet) -> Bool {
        guard a.columns == b.columns, a.rows.count == b.rows.count else { return false }
        for (x, y) in zip(a.rows.joined(), b.rows.joined()) where x != y {
            guard case .value(.double(let p)) = x, case .value(.double(let q)) = y,
                  abs(p - q) <= 1e-12 * max(abs(p), abs(q)) else { return false }
        }
        return true
    }

    @Test(arguments: 1...6)
    func selectsAgreeInSQLAndInMemory(seed: UInt64) throws {
        let shell = try Self.randomPeople(seed: seed)
        var random = SplitMix64(seed: seed &* 31)
        var inSQL = 0
        for n in 0..<40 {
            let person = n % 3 != 2
            let pool = person ? Self.personColumns : Self.departmentColumns
            let columns = (0..<(1 + random.below(3))).map { _ in pool[random.below(pool.count)] }
            let predicate = person ? ["", " where age > 16", " where department.name BEGINSWITH \"S\"", " where salary / 2 > 10"][random.below(4)]
                : ["", " where people.@count > 1", " where name != \"Ops\""][random.below(3)]
            let sort = person ? [" sort personID", " sort age:NO, personID", ""][random.below(3)] : [" sort name", ""][random.below(2)]
            let limit = ["", " limit 3", " limit 2 offset 1"][random.below(3)]
            let distinct = random.below(4) == 0 ? "distinct " : ""
            let text = "select \(distinct)\(columns.joined(separator: ", ")) from \(person ? "Person" : "Department")\(predicate)\(sort)\(limit)"
            let select = try Self.parse(text) { if case .select(let s) = $0 { return s }; return nil }
            if try shell.session.selectPlan(select).dictionary != nil { inSQL += 1 }
            let sql = try shell.session.runSelect(select)
            let memory = try shell.session.runSelect(select, inMemory: true)
            #expect(sql.columns == columns)
            // DISTINCT with a sort on another key has no one order in SQL.
            if distinct.isEmpty || sort.isEmpty || limit.isEmpty {
                let (a, b) = distinct.isEmpty ? (sql, memory)
                    : (ResultSet(columns: sql.columns, rows: sql.rows.sorted(by: ShellSession.ascending)),
                       ResultSet(columns: memory.columns, rows: memory.rows.sorted(by: ShellSession.ascending)))
                #expect(Self.same(a, b), "seed \(seed): \(text)\nSQL:    \(String(describing: sql.rows))\nmemory: \(String(describing: memory.rows))")
            }
        }
        #expect(inSQL >= 24, "only \(inSQL) of 40 selects ran in SQL")
    }

    @Test(arguments: 1...4)
    func groupedAggregatesAgreeInSQLAndInMemory(seed: UInt64) throws {
        let shell = try Self.randomPeople(seed: seed)
        var random = SplitMix64(seed: seed &* 17)
        for _ in 0..<30 {
            let function = ["count", "sum", "avg", "min", "max"][random.below(5)]
            let key = function == "count" ? "" : " " + ["age", "salary", "personID", "hiredAt"][random.below(function == "min" || function == "max" ? 4 : 3)]
            let group = [" group by department.name", " group by active", " group by department.name, active"][random.below(3)]
            let sort = ["", " sort \(function):NO", " sort \(function)", " sort department.name:NO, \(function)"][random.below(group.contains("department") ? 4 : 3)]
            let having = random.below(3) == 0 ? " having \(function) > 1" : ""
            let limit = random.below(2) == 0 ? " limit 2" : ""
            let text = "\(function)\(key) of Person where personID > -100\(group)\(having)\(sort)\(limit)"
            let aggregate = try Self.parse(text) { if case .aggregate(let a) = $0 { return a }; return nil }
            let sql = try shell.session.runAggregate(aggregate)
            let memory = try shell.session.runAggregate(aggregate, inMemory: true)
            #expect(Self.same(sql, memory), "seed \(seed): \(text)\nSQL:    \(String(describing: sql.rows))\nmemory: \(String(describing: memory.rows))")
        }
    }

    @Test func columnsAreNamedAsWrittenAndToManyIsAList() throws {
        let shell = try ShellHarness()
        #expect(shell.run("""
            insert Department { name: "Sales" }
            insert Person { personID: 1, FirstName: "Ada", age: 30, salary: 1200, department: first Department }
            insert Person { personID: 2, FirstName: "Bob", age: 40, salary: 2400, department: first Department }
            save
            """).ok)
        let result = try shell.session.runSelect(Self.parse("select FirstName, department.name, age * 2, salary / 12 from Person sort personID") {
            if case .select(let s) = $0 { return s }; return nil
        })
        #expect(result == ResultSet(columns: ["FirstName", "department.name", "age * 2", "salary / 12"], rows: [
            [.value(.string("Ada")), .value(.string("Sales")), .value(.int(60)), .value(.double(100))],
            [.value(.string("Bob")), .value(.string("Sales")), .value(.int(80)), .value(.double(200))],
        ]))
        let departments = try shell.session.runSelect(Self.parse("select name, people.@count, people.@avg.age, people from Department") {
            if case .select(let s) = $0 { return s }; return nil
        })
        let expected: [[Cell]] = [[.value(.string("Sales")), .value(.int(2)), .value(.double(35)), .list([.int(1), .int(2)])]]
        #expect(departments.rows == expected)
        let printed = shell.run("select name, people.@count, people.@avg.age from Department")
        #expect(printed.text.contains("│ name  │ people.@count │ people.@avg.age │"), "\(printed.text)")
    }

    @Test func groupedAggregatesSortByTheirValueOrAGroupKey() throws {
        let shell = try Self.randomPeople(seed: 9)
        for (pending, label) in [(false, "in SQL"), (true, "in memory")] {
            if pending { #expect(shell.run("insert Person { personID: 99999 }").ok) }
            let counts = shell.run("count of Person group by department.name sort count:NO")
            #expect(counts.ok, "\(label): \(counts.errors)")
            let numbers = counts.text.split(separator: "\n").compactMap { line in
                line.split(separator: "│").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            }
            #expect(numbers.count >= 2 && numbers == numbers.sorted(by: >), "\(label): \(counts.text)")
            let sums = shell.run("sum salary of Person group by department.name sort sum:NO limit 3")
            #expect(sums.ok && sums.text.contains("(3 rows)"), "\(label): \(sums.text)\(sums.errors)")
            let byName = shell.run("count of Person group by department.name sort department.name:NO limit 1")
            #expect(byName.text.contains("Zoë") || byName.text.contains("Sales") || byName.text.contains("R&D"), "\(label): \(byName.text)")
        }
        let wrong = shell.run("count of Person group by department.name sort age")
        #expect(wrong.errors.hasPrefix("error: an aggregate sorts by its value ('sort count:NO') or a group key ('department.name'), not 'age'"),
                "\(wrong.errors)")
    }

    /// `let d = first Department where …` then `department == $d`, and a
    /// list variable with IN: the same answers saved (SQL) and unsaved
    /// (memory); gone objects and lists compared with == are errors.
    @Test func objectVariablesInPredicates() throws {
        let shell = try ShellHarness()
        #expect(shell.run("""
            insert Department { name: "Sales" }
            insert Department { name: "Eng" }
            insert Department { name: "Ops" }
            insert Person { personID: 1, department: first Department where name == "Sales" }
            insert Person { personID: 2, department: first Department where name == "Eng" }
            insert Person { personID: 3, department: first Department where name == "Sales" }
            insert Person { personID: 4 }
            let d = first Department where name == "Sales"
            let ds = Department where name != "Sales"
            """).ok)
        func counts() -> [Int?] {
            ["count Person where department == $d", "count Person where department != $d", "count Person where department IN $ds",
             "count Person where NOT (department IN $ds)", "select personID from Person where department == $d AND personID > 1"].map { text in
                let result = shell.run(text)
                #expect(result.ok, "\(text): \(result.errors)")
                return result.text.split(separator: "\n").compactMap { Int($0.replacingOccurrences(of: "│", with: "").trimmingCharacters(in: .whitespaces)) }.first
            }
        }
        let unsaved = counts()
        #expect(unsaved == [2, 2, 1, 3, 3])
        #expect(shell.run("save").ok)
        #expect(counts() == unsaved)
        let explained = shell.run("explain count Person where department IN $ds")
        #expect(explained.text.contains(#"SELECT COUNT(*) FROM "Person" t WHERE t."department" IN (?1, ?2)"#), "\(explained.text)")
        #expect(explained.text.contains("$ds: 2 objects: Department #"), "\(explained.text)")

        let direct = shell.run("update Person where department == $d set age = 5 direct")
        #expect(direct.text == "updated 2 Person objects directly\n", "\(direct.text)\(direct.errors)")
        #expect(shell.run("explain delete Person where department IN $ds direct").text.contains(#"WHERE t."department" IN (?1, ?2)"#))
        let many = shell.run("count Person where department == $ds")
        #expect(many.errors.hasPrefix("error: $ds holds 2 Department objects (a query): compare with 'IN $ds'"), "\(many.errors)")
        #expect(shell.run("let p = first Person").ok)
        let wrongEntity = shell.run("count Person where department == $p")
        #expect(wrongEntity.errors.hasPrefix("error: 'department' takes Department objects, not Person"), "\(wrongEntity.errors)")
        #expect(shell.run("delete Person where department == $d\ndelete Department where name == \"Sales\"").ok)
        let gone = shell.run("count Person where department == $d")
        #expect(gone.errors.hasPrefix("error: $d holds a Department that is no longer in the store or was deleted"), "\(gone.errors)")
    }

    /// A fetched property of the model shows in select and filters in
    /// predicates (in memory), as a list of its objects' keys.
    @Test func aFetchedPropertyIsSelectedAndFilteredOn() throws {
        let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ObjectStoreTests/Fixtures/Models/Everything.xcdatamodel").path
        let shell = try ShellHarness(model: model)
        #expect(shell.run("""
            insert Gadget {title: "G", code: "G-1"}
            insert Gadget {title: "Bolt", code: "G-2"}
            insert Part {name: "Bolt", mass: 20}
            insert Part {name: "Nut", mass: 30}
            """).ok)
        let select = shell.run(".mode csv\nselect title, heavyParts.@count from Gadget sort title")
        #expect(select.ok && select.text == "title,heavyParts.@count\nBolt,1\nG,2\n", "\(select.text)\(select.errors)")
        let count = shell.run("count Gadget where ANY heavyParts.name == \"Bolt\"")
        #expect(count.ok && count.text.hasSuffix("1\n"), "\(count.text)\(count.errors)")
    }
}
