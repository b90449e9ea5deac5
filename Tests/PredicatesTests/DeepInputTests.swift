import Foundation
import Testing
@testable import Predicates

/// Deep and long input: every shape a line can nest or chain, from a few
/// levels to far past the bound. Each either parses, and then every walk
/// over the tree (printer, tree dump, evaluator, key checker, argument and
/// variable substitution) finishes; or it stops with the one "nested too
/// deeply" error. Run on a thread with half a Linux thread's stack, in a
/// debug build (the largest frames), so a walk that recursed without a
/// bound, or a bound set too high, crashes the test process here first.
@Suite(.serialized) struct DeepInputTests {
    /// A shape: the source for `n` levels or links.
    struct Shape: CustomStringConvertible, Sendable {
        let name: String
        let make: @Sendable (Int) -> String
        var description: String { name }
    }

    static func repeated(_ s: String, _ n: Int, separator: String = "") -> String {
        Array(repeating: s, count: n).joined(separator: separator)
    }

    static let shapes: [Shape] = [
        Shape(name: "a + a + …") { "age + " + repeated("age", $0, separator: " + ") + " > 0" },
        Shape(name: "a * a * …") { repeated("age", $0 + 1, separator: " * ") + " >= 0" },
        Shape(name: "a - 1 * a - …") { "0 " + repeated("- 1 * age ", $0) + "< %@" },
        Shape(name: "a[0][0]…") { "kids" + repeated("[0]", $0) + " == nil" },
        Shape(name: "a.@count.@count…") { "kids" + repeated(".@count", $0) + " > 0" },
        Shape(name: "(((…)))") { repeated("(", $0) + "age == 1" + repeated(")", $0) },
        Shape(name: "((a + 1) + 1)…") { repeated("(", $0) + "age" + repeated(" + 1)", $0) + " > 0" },
        // Two levels a step: the parenthesis and the `+`.
        Shape(name: "a + (a + (…))") { repeated("age + (", $0 / 2) + "age" + repeated(")", $0 / 2) + " > 0" },
        Shape(name: "NOT NOT …") { repeated("NOT ", $0) + "age == 1" },
        Shape(name: "- - 1") { "age == " + repeated("- ", $0) + "1" },
        Shape(name: "2 ** 2 ** …") { "age < " + repeated("1 ** ", $0) + "1" },
        Shape(name: "{{…}}") { "age IN " + repeated("{", $0) + "1" + repeated("}", $0) },
        Shape(name: "sum:(sum:(…))") { "age == " + repeated("sum:(", $0) + "{1, age}" + repeated(")", $0) },
        Shape(name: "CAST(CAST(…))") { "age == " + repeated("CAST(", $0) + "'1'" + repeated(", 'NSNumber')", $0) },
        Shape(name: "FUNCTION(FUNCTION(…))") { "name == " + repeated("FUNCTION(", $0) + "name" + repeated(", 'uppercase')", $0) },
        // A SUBQUERY counts four levels.
        Shape(name: "SUBQUERY in SUBQUERY") {
            repeated("SUBQUERY(kids, $k, ", $0 / 4) + "$k.age > 1" + repeated(").@count > 0", $0 / 4)
        },
        Shape(name: "x OR (x OR (…))") { repeated("age == 1 OR (", $0) + "age == 2" + repeated(")", $0) },
        Shape(name: "x OR x OR …") { repeated("age == $v", $0 + 1, separator: " OR ") },
        Shape(name: "x AND x AND …") { repeated("age >= %@", $0 + 1, separator: " AND ") },
        Shape(name: "a IN {1, 2, …}") { "age IN {" + (0...$0).map(String.init).joined(separator: ", ") + "}" },
        Shape(name: "a.b.c.…") { "dept" + repeated(".dept", $0) + ".title == 'x'" },
    ]

    static let lengths = [1, 10, 100, 126, 127, 128, 129, 1_000, 20_000]

    /// Runs `body` on a thread with a 4 MiB stack, half of what every
    /// thread of a Linux process gets (main, Dispatch, Task), and waits.
    static func onSmallStack(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        done.wait()
    }

    static var object: Operand {
        .object(DictionaryObject([
            "age": .value(.int(3)), "name": .value(.string("Zoë")),
            "kids": .collection([.object(DictionaryObject(["age": .value(.int(4)), "name": .value(.string("Kim"))]))]),
            "dept": .object(DictionaryObject(["title": .value(.string("x"))])),
        ]))
    }

    /// What happened to one source: parsed (and every walk ran), or the
    /// message it was refused with.
    static func run(_ source: String) -> Result<Predicate, SyntaxError> {
        var p: Predicate
        do {
            let count = source.components(separatedBy: "%@").count - 1
            p = try Predicate(format: source, arguments: Array(repeating: .value(.int(0)), count: count))
        } catch {
            return .failure(error)
        }
        if let substituted = try? p.substituting(variables: ["v": .int(1)]) { p = substituted }
        let printed = p.format
        #expect((try? Predicate(format: printed)) == p, "\(source.prefix(60))… printed back differently: \(printed.prefix(80))")
        #expect(!p.treeDescription.isEmpty)
        _ = try? Evaluator(variables: ["v": 1]).evaluate(p, on: object)
        try? p.validateKeys(entity: "Person", schema: DiagnosticTests.People())
        return .success(p)
    }

    @Test(arguments: shapes)
    func parsesOrSaysNestedTooDeeply(shape: Shape) {
        Self.onSmallStack {
            var deepestParsed = 0
            for n in Self.lengths {
                let source = shape.make(n)
                switch Self.run(source) {
                case .success: deepestParsed = n
                case .failure(let error):
                    #expect(error.kind == .tooDeep, "\(shape) × \(n): \(error.message)")
                    #expect(error.message == Diagnostic.tooDeep.message)
                }
            }
            // Everything up to 126 levels is ordinary input.
            #expect(deepestParsed >= 126, "\(shape.name) parsed only \(deepestParsed) levels")
        }
    }

    /// Flat lists have no depth: a 20,000-term OR parses like a short one.
    @Test func flatListsAreNotNesting() throws {
        for source in [Self.repeated("age == 3", 20_000, separator: " OR "),
                       Self.repeated("age == 3", 20_000, separator: " AND "),
                       "age IN {" + (0..<20_000).map(String.init).joined(separator: ", ") + "}"] {
            let p = try Predicate(format: source)
            #expect(try Evaluator().evaluate(p, on: Self.object))
        }
    }

    /// Found by fuzzing: parentheses around SUBQUERYs inside SUBQUERYs
    /// made the parser try each SUBQUERY again for every parenthesis
    /// around it, and again for theirs (245 bytes took minutes). Each is
    /// parsed once per place now.
    @Test func subqueriesInParenthesesAreParsedOnce() throws {
        let fuzzed = Data(base64Encoded: [
            "KCgoKCgoKCgoKCgoKChTVUJRVUVSWShraWRzLCAkaywgKCgoKCgoKCgoKCgoU1VCUVVFUlkoa2lkcywgJGssICgoKCgoKCgoKCgo",
            "KCgoKChTVUJRVUVSWShraWRzLCAkaywgKCgoKCgoKCgoKCgoU1VCUVVFUlkoa2lkcywgJGssICgoKCgoKCgoKCgoKCgoU1VCUVVF",
            "Ulkoa2lkcywgJGssICgoKCgoKCgoKFNVQlFVRVJZKGtpZHMsICRrLCAoKCgoKCggJiYsICRrLFVCUVVFLCAkayxVQlFVRVJZKGtp",
            "ZHNOTigoKCgoKCgoKCkpKSkpKUU=",
        ].joined())!
        let sources = [
            String(decoding: fuzzed, as: UTF8.self),
            // Valid, and as nested: six SUBQUERYs, each behind ten parentheses.
            Self.repeated(Self.repeated("(", 10) + "SUBQUERY(kids, $k, ", 6) + "$k.age > 1"
                + Self.repeated(").@count > 0" + Self.repeated(")", 10), 6),
        ]
        for source in sources {
            var parser = try Parser(source: source)
            _ = try? parser.parsePredicate()
            let written = source.components(separatedBy: "SUBQUERY(").count - 1
            #expect(parser.subqueriesParsed <= 2 * written, "\(parser.subqueriesParsed) parses of \(written) SUBQUERYs")
        }
    }

    /// The parser gives back every level after an error, so the next
    /// statement of a script starts at depth 0 again.
    @Test func depthIsRestoredAfterAnError() throws {
        var parser = try Parser(source: Self.repeated("(", 300) + "a == 1; " + Self.repeated("(", 120) + "a == 1" + Self.repeated(")", 120))
        #expect(throws: SyntaxError.self) { try parser.parsePredicate() }
        parser.synchronize()
        #expect(parser.depth == 0)
        let next = try parser.parsePredicate()
        #expect(next.format == "a == 1")
    }
}
