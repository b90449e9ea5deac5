import Foundation
@testable import Predicates

/// The people every corpus case runs against, by id.
enum CorpusData {
    static func date(_ literal: String) -> Value {
        let token = try! Lexer.tokenize(literal)[0]
        guard token.kind == .date else { fatalError(literal) }
        let d = token.dateValue
        return .date(d)
    }

    static func kid(_ name: String, _ age: Int64?) -> Operand {
        .dictionary(["name": .value(.string(name)), "age": .value(age.map { .int($0) } ?? .null)])
    }

    static func dept(_ title: String, _ floor: Int64?) -> Operand {
        .dictionary(["title": .value(.string(title)), "floor": .value(floor.map { .int($0) } ?? .null)])
    }

    static func person(_ id: Int64, _ fields: [String: Value], tags: [Value], dept: Operand, kids: [Operand]) -> Operand {
        var entries = fields.mapValues { Operand.value($0) }
        entries["id"] = .value(.int(id))
        entries["tags"] = .values(tags)
        entries["dept"] = dept
        entries["kids"] = .collection(kids)
        return .dictionary(entries)
    }

    static var people: [Operand] {
        let eng = dept("Engineering", 3), design = dept("Design", 2), sales = dept("Sales", nil)
        return [
            person(1, ["name": "Ann", "age": 34, "score": 88.5, "nick": "annie", "email": "ann@example.com",
                       "born": date("@1990-05-01"), "active": true, "salary": .decimal(Decimal(string: "5000.50")!)],
                   tags: ["swift", "ios"], dept: eng, kids: [kid("Bob", 5), kid("Cleo", 9)]),
            person(2, ["name": "bob", "age": 17, "score": 42.0, "nick": nil, "email": nil,
                       "born": date("@2007-01-15"), "active": false, "salary": nil],
                   tags: [], dept: .value(.null), kids: []),
            person(3, ["name": "Zo\u{EB}", "age": 29, "score": 95.25, "nick": "zo", "email": "zoe@example.org",
                       "born": date("@1995-12-31T23:30:00Z"), "active": true, "salary": .decimal(7200)],
                   tags: ["rust"], dept: design, kids: [kid("Dan", 1)]),
            person(4, ["name": "\u{C9}mile", "age": 61, "score": 70, "nick": "", "email": "emile@example.com",
                       "born": date("@1963-07-04"), "active": true, "salary": .decimal(Decimal(string: "6100.25")!)],
                   tags: ["swift", "go", "ios"], dept: eng, kids: [kid("Eve", 30), kid("Finn", 28), kid("Gus", nil)]),
            person(5, ["name": "carol", "age": 45, "score": nil, "nick": "CC", "email": "carol@example.net",
                       "born": nil, "active": false, "salary": .decimal(4000)],
                   tags: ["go"], dept: sales, kids: [kid("Hal", 12)]),
            person(6, ["name": "Dave O'Neil", "age": 18, "score": 60.0, "nick": "d*", "email": "dave@example.com",
                       "born": date("@2006-02-28"), "active": true, "salary": .decimal(3000)],
                   tags: [], dept: design, kids: []),
        ]
    }

    /// The object scalar cases run against, and their variables.
    static var scalarObject: Operand { .dictionary(["x": 5, "s": "12"]) }
    static let variables: [String: Value] = ["min": 10, "word": "abc"]
}
