import Foundation
import Testing
@testable import Predicates

@Suite struct EvaluatorTests {
    struct PeopleCase: CustomTestStringConvertible, Sendable {
        let section: String, predicate: String, ids: [Int]
        var testDescription: String { "\(section): \(predicate)" }
    }

    struct ScalarCase: CustomTestStringConvertible, Sendable {
        let section: String, predicate: String, result: Bool
        var testDescription: String { "\(section): \(predicate)" }
    }

    static let peopleCases = Corpus.peopleCases.map { PeopleCase(section: $0.section, predicate: $0.predicate, ids: $0.ids) }
    static let scalarCases = Corpus.scalarCases.map { ScalarCase(section: $0.section, predicate: $0.predicate, result: $0.result) }

    @Test func corpusIsLargeEnough() {
        #expect(Corpus.peopleCases.count + Corpus.scalarCases.count >= 300)
    }

    @Test(arguments: peopleCases)
    func people(_ c: PeopleCase) throws {
        let predicate = try Predicate(format: c.predicate, arguments: Corpus.arguments[c.predicate] ?? [])
        var matched: [Int] = []
        for person in CorpusData.people {
            if try Evaluator().evaluate(predicate, on: person) {
                guard case .object(let o) = person, case .value(.int(let id)) = try o.predicateValue(forKey: "id") else { continue }
                matched.append(Int(id))
            }
        }
        #expect(matched == c.ids, "\(c.section): \(c.predicate)")
    }

    /// An empty needle is in no string, whatever the options; a lone
    /// combining accent under [d] is compared as itself.
    @Test func emptyAndAccentOnlyNeedles() throws {
        let object = Operand.dictionary(["name": .string("Zoë")])
        for op in ["CONTAINS", "BEGINSWITH", "ENDSWITH"] {
            #expect(try !Evaluator().evaluate(Predicate(format: "name \(op)[cd] ''"), on: object), "\(op) empty")
            #expect(try !Evaluator().evaluate(Predicate(format: "name \(op)[d] %@", arguments: [.value(.string("\u{301}"))]), on: object),
                    "\(op) accent")
        }
    }

    /// A decimal compared with (or added to) a double takes the double as
    /// it was written: the decimal stored from `19.99` equals `19.99`.
    @Test func decimalsMeetDoublesAsTheyWereWritten() throws {
        for (stored, written, equal) in [("19.99", 19.99, true), ("0.1", 0.1, true), ("1e-05", 0.00001, true),
                                         ("12345.678", 12345.678, true), ("19.99", 19.990000000000002, false),
                                         ("-3.3", -3.3, true), ("1e20", 1e20, true)] {
            let object = Operand.dictionary(["d": .decimal(try #require(Decimal(string: stored)))])
            #expect(try Evaluator().evaluate(Predicate(format: "d == %@", arguments: [.value(.double(written))]), on: object) == equal,
                    "\(stored) == \(written)")
            #expect(try Evaluator().evaluate(Predicate(format: "d >= %@ AND d <= %@", arguments: [.value(.double(written)), .value(.double(written))]),
                                             on: object) == equal, "\(stored) between \(written)")
        }
        let sum = Operand.dictionary(["d": .decimal(Decimal(string: "0.2")!)])
        #expect(try Evaluator().evaluate(Predicate(format: "d + 0.1 == 0.3"), on: sum))
    }

    @Test(arguments: scalarCases)
    func scalars(_ c: ScalarCase) throws {
        let predicate = try Predicate(format: c.predicate)
        let result = try Evaluator(variables: CorpusData.variables).evaluate(predicate, on: CorpusData.scalarObject)
        #expect(result == c.result, "\(c.section): \(c.predicate)")
    }

    @Test(arguments: [
        ("1 / 0 == 1", "division by zero"),
        ("x.y == 1", "cannot read key 'y' from int 5"),
        ("$nope == 1", "no value for variable '$nope'"),
        ("x BETWEEN 1", "BETWEEN needs a two-value aggregate such as {1, 10}"),
        ("'a' MATCHES '('", "invalid regular expression '('"),
        ("'a' + 1 == 2", "cannot apply '+' to string \"a\" and int 1"),
        ("CAST('abc', 'NSDate') == nil", "cannot CAST string \"abc\" to NSDate"),
        ("FUNCTION(1, 'frobnicate') == 1", "int 1 does not respond to 'frobnicate'"),
    ])
    func evaluationErrors(source: String, message: String) throws {
        let p = try Predicate(format: source)
        do {
            _ = try Evaluator().evaluate(p, on: CorpusData.scalarObject)
            Issue.record("no error for \(source)")
        } catch let error as EvaluationError {
            #expect(error.message == message)
        }
    }

    final class Person: PredicateObject {
        let age: Int64
        var friend: Person?
        init(age: Int64) { self.age = age }
        func predicateValue(forKey key: String) throws -> Operand {
            switch key {
            case "age": return .value(.int(age))
            case "friend": return friend.map { .object($0) } ?? .value(.null)
            default: throw EvaluationError(message: "no key \(key)")
            }
        }
        func predicateInvoke(selector: String, arguments: [Operand]) throws -> Operand {
            selector == "double" ? .value(.int(age * 2)) : .value(.null)
        }
    }

    @Test func objectsThroughTheProtocol() throws {
        let a = Person(age: 30), b = Person(age: 40)
        a.friend = b
        #expect(try Evaluator().evaluate(Predicate(format: "friend.age == 40"), on: a))
        #expect(try Evaluator().evaluate(Predicate(format: "friend.friend.age == nil"), on: a))
        #expect(try Evaluator().evaluate(Predicate(format: "FUNCTION(SELF, 'double') == 60"), on: a))
        #expect(try Evaluator().evaluate(Predicate(format: "friend == nil"), on: b))
        #expect(try Evaluator().evaluate(Predicate(format: "SELF > 3"), on: .int(5)))
        let e = try Evaluator().evaluate(Expression(format: "friend.age + 1"), on: .object(a))
        #expect(e.scalar == .int(41))
    }

    /// UUIDs and URLs compare with their string forms, as in Core Data's
    /// SQLite store.
    @Test(arguments: [
        (#"identifier == "3F2504E0-4F89-11D3-9A0C-0305E82C3301""#, true),
        (#"identifier == "3f2504e0-4f89-11d3-9a0c-0305e82c3301""#, true),
        (#""3F2504E0-4F89-11D3-9A0C-0305E82C3301" == identifier"#, true),
        (#"identifier != "3F2504E0-4F89-11D3-9A0C-0305E82C3301""#, false),
        (#"identifier == "3F2504E0""#, false),
        (#"identifier IN {"x", "3F2504E0-4F89-11D3-9A0C-0305E82C3301"}"#, true),
        (#"identifier BEGINSWITH "3F25""#, true),
        (#"url BEGINSWITH "https""#, true),
        (#"url == "https://example.com/a?b=1""#, true),
        (#"url CONTAINS[c] "EXAMPLE""#, true),
        (#"url LIKE "*.com/*""#, true),
        (#"url ENDSWITH "b=2""#, false),
        (#"url < "i""#, true),
    ])
    func uuidsAndURLsCompareWithTheirStrings(source: String, result: Bool) throws {
        let object = Operand.dictionary([
            "identifier": .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!),
            "url": .url(URL(string: "https://example.com/a?b=1")!),
        ])
        #expect(try Evaluator().evaluate(try Predicate(format: source), on: object) == result, "\(source)")
    }
}
