import Foundation
import Testing
@testable import Predicates

/// Issue 32, items 1–6: Apple's documented syntax that mrq refused or
/// answered wrongly, each from its repro.
@Suite struct AppleLanguageTests {
    func evaluate(_ format: String, on object: [String: Value], variables: [String: Operand] = [:]) throws -> Bool {
        try Evaluator(operands: variables).evaluate(try Predicate(format: format), on: object)
    }

    // MARK: 1. Collection variables

    /// `FirstName IN $NAME_LIST` is membership in the collection the
    /// variable holds, not a substring of its text.
    @Test func substitutedCollectionIsMembership() throws {
        let names = Expression.aggregate(["Zoey", "Kai"])
        let template = try Predicate(format: "FirstName IN $NAME_LIST")
        let p = try template.substituting(expressions: ["NAME_LIST": names])
        #expect(p.format == #"FirstName IN {"Zoey", "Kai"}"#)
        #expect(try Evaluator().evaluate(p, on: ["FirstName": "Kai"]))
        #expect(try !Evaluator().evaluate(p, on: ["FirstName": "Zoe"]))
        #expect(try !Evaluator().evaluate(p, on: ["FirstName": "y, K"]))
        let constant = try Predicate(format: "'Zoe' IN $NAME_LIST").substituting(expressions: ["NAME_LIST": names])
        #expect(try !Evaluator().evaluate(constant, on: ["FirstName": "Zoe"]))
        let kai = try Predicate(format: "'Kai' IN $NAME_LIST").substituting(expressions: ["NAME_LIST": names])
        #expect(try Evaluator().evaluate(kai, on: [:]))
    }

    /// The evaluator takes a collection for a variable as well.
    @Test func evaluatorVariableHoldsACollection() throws {
        let list = Operand.collection([.value("Zoey"), .value("Kai")])
        #expect(try evaluate("FirstName IN $L", on: ["FirstName": "Kai"], variables: ["L": list]))
        #expect(try !evaluate("'Zoe' IN $L", on: [:], variables: ["L": list]))
    }

    // MARK: 2. UTI-CONFORMS-TO and UTI-EQUALS

    @Test func uniformTypeOperatorsParseAndPrint() throws {
        let p = try Predicate(format: "type UTI-CONFORMS-TO 'public.image' AND type uti-equals 'public.jpeg'")
        guard case .and(let parts) = p.kind, case .comparison(let a) = parts[0].kind, case .comparison(let b) = parts[1].kind else {
            Issue.record("not two comparisons: \(p.kind)")
            return
        }
        #expect(a.op == .utiConformsTo && b.op == .utiEquals)
        #expect(p.format == #"type UTI-CONFORMS-TO "public.image" AND type UTI-EQUALS "public.jpeg""#)
        #expect(try Predicate(format: p.format) == p)
        // Spaced out, `UTI - CONFORMS` stays arithmetic on keys.
        let arithmetic = try Predicate(format: "UTI - CONFORMS > 1")
        guard case .comparison(let c) = arithmetic.kind else { Issue.record("\(arithmetic.kind)"); return }
        #expect(c.op == .greater)
    }

    @Test(arguments: [
        ("public.jpeg", "public.image", true), ("public.jpeg", "public.data", true), ("public.jpeg", "public.item", true),
        ("public.jpeg", "public.content", true), ("public.jpeg", "public.text", false), ("public.image", "public.jpeg", false),
        ("public.utf8-plain-text", "public.text", true), ("public.swift-source", "public.plain-text", true),
        ("com.adobe.pdf", "public.composite-content", true), ("public.zip-archive", "public.archive", true),
        ("public.mpeg-4-audio", "public.movie", true), ("public.mpeg-4-audio", "public.audio", true),
        ("com.example.x", "com.example.x", true), ("com.example.x", "public.item", false), ("PUBLIC.JPEG", "public.image", false),
    ])
    func conformanceFollowsTheTable(type: String, other: String, conforms: Bool) throws {
        #expect(UniformTypes.conforms(type, to: other) == conforms)
        #expect(try evaluate("t UTI-CONFORMS-TO \(Printer.quote(other))", on: ["t": .string(type)]) == conforms)
        #expect(UniformTypes.conforming(to: other).contains(type) == conforms)
    }

    @Test func utiEqualsComparesIdentifiers() throws {
        #expect(try evaluate("t UTI-EQUALS 'public.png'", on: ["t": "public.png"]))
        #expect(try !evaluate("t UTI-EQUALS 'public.png'", on: ["t": "public.image"]))
        #expect(try !evaluate("t UTI-EQUALS 'public.png'", on: ["t": .null]))
        #expect(try !evaluate("t UTI-CONFORMS-TO 'public.png'", on: ["t": .int(3)]))
    }

    // MARK: 3. Assignment

    /// `$x := expr` is the value of `expr`, which `$x` holds for the rest
    /// of the evaluation.
    @Test func assignmentParsesPrintsAndEvaluates() throws {
        let p = try Predicate(format: "($x := age * 2) > 10 AND $x < 30")
        #expect(p.format == "($x := age * 2) > 10 AND $x < 30")
        #expect(try Predicate(format: p.format) == p)
        #expect(try Evaluator().evaluate(p, on: ["age": 6]))
        #expect(try !Evaluator().evaluate(p, on: ["age": 20]))
        #expect(try !Evaluator().evaluate(p, on: ["age": 4]))
        let bare = try Expression(format: "$y := 5")
        guard case .assignment("y", let value) = bare.kind else { Issue.record("\(bare.kind)"); return }
        #expect(value == .constant(5))
        #expect(try Evaluator().evaluate(bare, on: [:]).scalar == 5)
    }

    /// An assigned variable is no substitution variable: templates leave it.
    @Test func assignedVariablesAreNotFree() throws {
        let p = try Predicate(format: "($x := age) > $min AND $x < 30")
        #expect(p.freeVariables == ["min"])
        let filled = try p.substituting(variables: ["min": 3])
        #expect(filled.format == "($x := age) > 3 AND $x < 30")
    }

    @Test func assignmentNeedsAValue() {
        #expect(throws: SyntaxError.self) { try Predicate(format: "($x :=) > 1") }
    }

    // MARK: 4. String escapes

    @Test(arguments: [
        (#"'\U0041'"#, "A"), (#"'\u0041'"#, "A"), (#"'\x41'"#, "A"), (#"'\101'"#, "A"), (#"'\x7e\x7E'"#, "~~"),
        (#"'a\nb'"#, "a\nb"), (#"'\t'"#, "\t"), (#"'\r'"#, "\r"), (#"'\"'"#, "\""), (#"'\''"#, "'"), (#"'\\'"#, "\\"),
        (#"'\a\b\f\v'"#, "\u{07}\u{08}\u{0C}\u{0B}"), (#"'\0'"#, "\0"), (#"'\0x'"#, "\0x"), (#"'\000'"#, "\0"),
        (#"'\uD83D\uDE00'"#, "😀"), (#"'\uD83D\UDE00'"#, "😀"), (#""\\d+""#, "\\d+"),
    ])
    func escapesDecode(source: String, value: String) throws {
        let e = try Expression(format: source)
        #expect(e == .constant(.string(value)))
        // The printer writes what reads back as the same value.
        #expect(try Expression(format: e.format) == e)
    }

    @Test(arguments: [
        (#"'\q'"#, #"'\q'"#, 1, 3), (#"'ab\d+'"#, #"'\d'"#, 3, 5), (#"'\x4'"#, #"'\x4'"#, 1, 4), (#"'\xg0'"#, #"'\x'"#, 1, 3),
        (#"'\8'"#, #"'\8'"#, 1, 3), (#"'\12'"#, #"'\1'"#, 1, 3), (#"'\é'"#, #"'\é'"#, 1, 4),
    ])
    func invalidEscapeIsAnErrorAtIt(source: String, named: String, start: Int, end: Int) {
        do {
            _ = try Expression(format: source)
            Issue.record("no error for \(source)")
        } catch {
            #expect(error.message.hasPrefix("invalid escape \(named) in a string"), "\(error.message)")
            #expect(error.range.offsets == start..<end)
        }
    }

    @Test func nulThenDigitsRoundTrips() throws {
        let e = Expression.constant(.string("\0" + "12"))
        #expect(try Expression(format: e.format) == e)
    }

    // MARK: 5. printf-style format specifiers

    @Test(arguments: ["%x", "%X", "%o", "%e", "%E", "%g", "%G", "%c", "%C", "%u", "%hi", "%hu", "%qi", "%lu",
                      "%lld", "%llu", "%ld", "%f", "%d", "%i", "%@", "%hhd", "%zu", "%Lf", "%lf", "%a", "%s"])
    func printfSpecifierTakesItsArgument(spec: String) throws {
        let p = try Predicate(format: "age > \(spec)", 18)
        #expect(p.format == "age > 18")
        let tokens = try Lexer.tokenize("age > \(spec)")
        #expect(tokens.count == 4)
        guard tokens.count == 4, case .formatArgument(let placeholder) = tokens[2].kind else {
            Issue.record("\(tokens)")
            return
        }
        #expect(placeholder.rawValue == spec)
        #expect(FormatSpecifier(rawValue: spec) == placeholder)
    }

    @Test(arguments: [("age > %y", "'%y'", 6, 8), ("age > %lK", "'%lK'", 6, 9), ("age > %lz", "'%lz'", 6, 9),
                      ("age > %", "'%'", 6, 7), ("age > %hf", "'%hf'", 6, 9)])
    func unknownSpecifierIsNamedWhole(source: String, named: String, start: Int, end: Int) {
        do {
            _ = try Predicate(format: source)
            Issue.record("no error for \(source)")
        } catch {
            #expect(error.message.hasPrefix("unknown format specifier \(named)"), "\(error.message)")
            #expect(error.range.offsets == start..<end)
        }
    }

    @Test func percentAndKeyPathStayAsTheyWere() throws {
        #expect(try Predicate(format: "%K > %lu", "age", 3).format == "age > 3")
        #expect(try Predicate(format: "name LIKE '100%%'").format == #"name LIKE "100%%""#)
    }

    // MARK: 6. @avg with nils

    /// The Key-Value Coding guide: @avg converts each value to a double,
    /// "substituting 0 for nil values"; @sum skips them (the same total),
    /// @min and @max ignore them.
    @Test func averageCountsNilAsZero() throws {
        let values: [Operand] = [.value(10), .value(.null), .value(20)]
        let object: Operand = .value(.null)
        var evaluator = Evaluator()
        evaluator.variables["list"] = .collection(values)
        #expect(try evaluator.evaluate(try Expression(format: "$list.@avg"), on: object).scalar == .double(10))
        #expect(try evaluator.evaluate(try Expression(format: "$list.@sum"), on: object).scalar == 30)
        #expect(try evaluator.evaluate(try Expression(format: "$list.@min"), on: object).scalar == 10)
        // NSExpression's average: documents no nil rule; it skips nils.
        #expect(try evaluator.evaluate(try Expression(format: "average:($list)"), on: object).scalar == .double(15))
        evaluator.variables["none"] = .collection([])
        #expect(try evaluator.evaluate(try Expression(format: "$none.@avg"), on: object).scalar == .null)
    }
}
