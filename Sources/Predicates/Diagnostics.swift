import Foundation

/// An error in predicate or statement text, with the range it points at.
///
/// ```swift
/// do { _ = try Predicate(format: "age > AND x == 1") }
/// catch let error as SyntaxError { print(error.message) }   // expected value after '>'
/// ```
public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, lowercase and without a final period:
    /// `expected value after '>'`.
    public let message: String
    /// The span of the source the error points at; render it with
    /// ``DiagnosticRenderer``.
    public let range: SourceRange
    let kind: Kind

    enum Kind: Sendable, Hashable {
        case lexical, syntax, incompleteInput, tooDeep, argument, unknownKey, neverMatches
    }

    init(_ diagnostic: Diagnostic, at range: SourceRange) {
        self.message = diagnostic.message
        self.range = range
        self.kind = diagnostic.kind
    }

    /// Makes an error for another layer (the shell) reusing this type.
    public init(message: String, range: SourceRange) {
        self.message = message
        self.range = range
        self.kind = .syntax
    }

    /// True when the input ended too early; the REPL reads another line.
    public var isIncompleteInput: Bool { kind == .incompleteInput }

    /// True for `validateKeys` errors.
    public var isUnknownKey: Bool { kind == .unknownKey }

    public var description: String { "\(range.start): \(message)" }
}

/// An error while evaluating a predicate in memory: a type mismatch,
/// division by zero, a missing variable.
public struct EvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: `division by zero`,
    /// `cannot apply '+' to string "a" and int 1`.
    public let message: String
    /// The span of the predicate being evaluated when it failed, or
    /// ``SourceRange/unknown`` for a tree built in code.
    public let range: SourceRange

    init(_ diagnostic: Diagnostic, at range: SourceRange) {
        self.message = diagnostic.message
        self.range = range
    }

    /// Makes an error for a conforming object to throw from
    /// `predicateValue(forKey:)`.
    public init(message: String, range: SourceRange = .unknown) {
        self.message = message
        self.range = range
    }

    public var description: String { message }
}

/// Every message text a user can see from this module.
struct Diagnostic: Sendable {
    let message: String
    let kind: SyntaxError.Kind

    init(_ message: String, _ kind: SyntaxError.Kind = .syntax) {
        self.message = message
        self.kind = kind
    }

    private static func quoted(_ s: String) -> String { "'\(s)'" }

    private static func suggestion(_ s: String?) -> String {
        s.map { "; did you mean '\($0)'?" } ?? ""
    }

    // Lexical.
    static func unexpectedCharacter(_ c: String) -> Diagnostic {
        Diagnostic("unexpected character \(quoted(c))", .lexical)
    }
    static let unterminatedString = Diagnostic("unterminated string", .lexical)
    static func quoteEndsStringEarly(_ string: String, escaped: String, otherQuotes: String) -> Diagnostic {
        Diagnostic("this quote ends the string \(string) early: escape the quote inside, \(escaped), "
                   + "or write the string in the other quotes, \(otherQuotes)", .lexical)
    }
    static let invalidUnicodeEscape = Diagnostic("invalid unicode escape, expected \\uXXXX", .lexical)
    static func invalidEscape(_ text: String) -> Diagnostic {
        Diagnostic("invalid escape \(quoted(text)) in a string, expected \\n \\t \\r \\\\ \\' \\\" \\a \\b \\f \\v \\0, \\ooo octal, \\xHH or \\uHHHH (a regular expression writes its backslash twice)", .lexical)
    }
    static func invalidNumber(_ text: String) -> Diagnostic { Diagnostic("invalid number \(quoted(text))", .lexical) }
    static func integerTooLarge(_ text: String) -> Diagnostic {
        Diagnostic("integer \(quoted(text)) does not fit in 64 bits", .lexical)
    }
    static func invalidDate(_ text: String) -> Diagnostic {
        Diagnostic("invalid date \(quoted(text)), expected @YYYY-MM-DD or @YYYY-MM-DDTHH:MM:SSZ", .lexical)
    }
    static let expectedVariableName = Diagnostic("expected variable name after '$'", .lexical)
    static let expectedCollectionOperator = Diagnostic("expected collection operator or date after '@'", .lexical)
    static func unknownFormatSpecifier(_ text: String) -> Diagnostic {
        Diagnostic("unknown format specifier \(quoted(text)), expected %@, %K, %% or a printf conversion such as %d %lu %x %f %g", .lexical)
    }

    // Syntax.
    static let incompleteInput = Diagnostic("incomplete input", .incompleteInput)
    static func unexpected(_ token: String) -> Diagnostic { Diagnostic("unexpected \(token)") }
    static func expectedClosing(_ closing: String, opening: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic("expected \(quoted(closing)) to close \(quoted(opening)) at \(location)")
    }
    static func expectedValue(after token: String) -> Diagnostic { Diagnostic("expected value after \(token)") }
    static func expectedPredicate(after token: String) -> Diagnostic {
        Diagnostic("expected predicate after \(token)")
    }
    static let expectedPredicate = Diagnostic("expected predicate")
    static func keyPathIsNotAPredicate(_ keyPath: String) -> Diagnostic {
        Diagnostic("a key path alone is not a predicate: write '\(keyPath) == YES'")
    }
    static let expectedExpression = Diagnostic("expected value")
    static func expectedOperator(after text: String, found: String, suggestion s: String?) -> Diagnostic {
        Diagnostic("expected comparison operator after \(text), found \(found)\(suggestion(s))")
    }
    static func expected(_ what: String, after token: String) -> Diagnostic {
        Diagnostic("expected \(what) after \(token)")
    }
    static func expectedKey(after token: String) -> Diagnostic { Diagnostic("expected key after \(token)") }
    static func unknownOption(_ text: String) -> Diagnostic {
        Diagnostic("unknown comparison option \(quoted(text)), expected c, d, n or a combination such as cd")
    }
    static func optionsNotAllowed(_ op: String) -> Diagnostic {
        Diagnostic("options are not allowed after \(quoted(op))")
    }
    static func modifierNeedsComparison(_ modifier: String) -> Diagnostic {
        Diagnostic("expected comparison after \(quoted(modifier))")
    }
    static func unknownFunction(_ name: String, suggestion s: String?) -> Diagnostic {
        Diagnostic("unknown function \(quoted(name))\(suggestion(s))")
    }
    static func functionArity(_ name: String, expected: String, got: Int) -> Diagnostic {
        Diagnostic("function \(quoted(name)) takes \(expected) argument\(expected == "1" ? "" : "s"), got \(got)")
    }
    static func unknownCastType(_ name: String, suggestion s: String?) -> Diagnostic {
        Diagnostic("unknown CAST type \(quoted(name)), expected NSDate, NSNumber, NSString, NSDecimalNumber, NSUUID, NSURL or NSData\(suggestion(s))")
    }
    static let castTypeMustBeString = Diagnostic("expected the CAST type as a string, such as \"NSDate\"")
    static func invalidCastConstant(_ text: String, type: String) -> Diagnostic {
        Diagnostic("cannot CAST \(text) to \(type)")
    }
    static let selectorMustBeString = Diagnostic("expected the FUNCTION selector as a string, such as 'uppercase:'")
    static func reservedWord(_ word: String) -> Diagnostic {
        Diagnostic("\(quoted(word)) is a reserved word; write #\(word) to use it as a key")
    }
    static func unknownCollectionOperator(_ name: String, suggestion s: String?) -> Diagnostic {
        Diagnostic("unknown collection operator '@\(name)'\(suggestion(s))")
    }
    static let tooDeep = Diagnostic("nested too deeply (more than \(Parser.maximumDepth) levels of parentheses, operators or statements)", .tooDeep)
    // Habits from other languages, each with the fix that keeps the meaning.
    static func parenthesizedList(_ fix: String) -> Diagnostic {
        Diagnostic("a collection is written in braces, not parentheses: write \(fix)")
    }
    static func betweenWithAnd(_ fix: String) -> Diagnostic {
        Diagnostic("BETWEEN takes its two bounds in braces, not joined by AND: write \(fix)")
    }
    static func notBeforeOperator(_ op: String, fix: String?) -> Diagnostic {
        Diagnostic("there is no 'NOT \(op)' operator: put NOT before the comparison" + (fix.map { ", \($0)" } ?? ""))
    }
    static func optionsAfterValue(_ fix: String) -> Diagnostic {
        Diagnostic("comparison options go in brackets right after the operator: write \(fix)")
    }
    static func loneValue(_ value: String, after word: String, fix: String) -> Diagnostic {
        Diagnostic("\(value) alone is not a predicate: each side of \(word) is a whole comparison; write \(fix)")
    }
    static let expectedSortKey = Diagnostic("expected sort key")
    static func expectedSortDirection(found: String) -> Diagnostic {
        Diagnostic("expected YES, NO, ASC or DESC, found \(found)")
    }
    static func trailing(_ token: String) -> Diagnostic { Diagnostic("unexpected \(token) after the end") }

    // Format arguments.
    static func missingArgument(_ spec: String, index: Int) -> Diagnostic {
        Diagnostic("missing argument \(index) for \(quoted(spec))", .argument)
    }
    static func tooManyArguments(expected: Int, got: Int) -> Diagnostic {
        Diagnostic("too many format arguments: the format uses \(expected), got \(got)", .argument)
    }
    static func keyPathArgument(_ got: String) -> Diagnostic {
        Diagnostic("'%K' needs a key path argument, got \(got)", .argument)
    }
    static func missingVariable(_ name: String) -> Diagnostic {
        Diagnostic("no value for variable '$\(name)'", .argument)
    }

    // Schema.
    static func unknownKey(_ key: String, entity: String, suggestion s: String?) -> Diagnostic {
        Diagnostic("unknown key \(quoted(key)) on \(entity)\(suggestion(s))", .unknownKey)
    }
    static func collectionOperatorWithoutAt(_ key: String, entity: String, fix: String) -> Diagnostic {
        Diagnostic("unknown key \(quoted(key)) on \(entity); a collection operator starts with @: write \(fix)", .unknownKey)
    }
    static func unquotedString(_ word: String, entity: String, suggestion s: String?) -> Diagnostic {
        Diagnostic("unknown key \(quoted(word)) on \(entity)\(suggestion(s)); "
                   + (s == nil ? "" : "or, ") + "to compare with the text, quote the string: \(quoted(word))", .unknownKey)
    }
    static func unknownEntity(_ entity: String) -> Diagnostic { Diagnostic("unknown entity \(quoted(entity))", .unknownKey) }
    static func notARelationship(_ key: String, entity: String, next: String) -> Diagnostic {
        Diagnostic("\(quoted(key)) on \(entity) is an attribute, so it has no key \(quoted(next))", .unknownKey)
    }

    // Comparisons that never match, and habits from SQL.
    static func neverMatches(_ key: String, holds: String, constant: String, isA: String, fix: String?,
                             alternative: String?, hint: String?) -> Diagnostic {
        var message = "\(quoted(key)) holds \(holds) and \(constant) is \(isA), so this never matches"
        if let fix {
            message += "; write \(fix)" + (alternative.map { " (or \($0))" } ?? "")
        } else if let hint {
            message += "; \(hint)"
        }
        return Diagnostic(message, .neverMatches)
    }
    static func relationshipNeverMatches(_ key: String, destination: String, toMany: Bool, constant: String,
                                         isA: String, fix: String?) -> Diagnostic {
        let kind = toMany ? "a to-many relationship" : "a relationship"
        return Diagnostic("\(quoted(key)) is \(kind) to \(destination) objects and \(constant) is \(isA), so this never matches"
                          + (fix.map { "; write \($0)" } ?? "; compare one of \(destination)'s attributes, as in \(key).name"), .neverMatches)
    }
    static func stringOperatorOnNonString(_ op: String, key: String, holds: String) -> Diagnostic {
        Diagnostic("\(op) compares strings and \(quoted(key)) holds \(holds), so this never matches", .neverMatches)
    }
    static func dateAsArithmetic(_ d: (year: Int64, month: Int64, day: Int64, result: Int64)) -> Diagnostic {
        let written = "\(d.year)-\(d.month < 10 ? "0" : "")\(d.month)-\(d.day < 10 ? "0" : "")\(d.day)"
        var components = DateComponents()
        components.year = Int(d.year)
        components.month = Int(d.month)
        components.day = Int(d.day)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let cast = calendar.date(from: components).map { "\(Printer.castDate($0)) or pass a date with %@ (mrq also reads @\(written))" }
            ?? "@\(written)"
        return Diagnostic("\(written) without quotes is arithmetic, \(d.year) - \(d.month) - \(d.day) = \(d.result), not a date: "
                          + "for the date write \(cast)")
    }
    static func quotedPlaceholder(_ pattern: String, fixed: String) -> Diagnostic {
        Diagnostic("in quotes, \(quoted(pattern)) is the text \(pattern), not a format placeholder, and LIKE uses * and ?, "
                   + "not %: this matches only that text, as \(fixed) does")
    }
    static func sqlLikePattern(fixed: String) -> Diagnostic {
        Diagnostic("LIKE uses * and ?, not % and _: write \(fixed) (here % and _ match only themselves)")
    }

    // mrq's additions to Apple's language.
    static func additionUsed(_ addition: LanguageAddition, written: String, apple: String?) -> Diagnostic {
        let fix = apple.map { "; in Apple's NSPredicate write \($0)" } ?? ""
        switch addition {
        case .dateLiteral:
            return Diagnostic("\(quoted(written)) is mrq's date literal\(fix) or pass a date with %@")
        case .readableFunction:
            return Diagnostic("\(quoted(written)) calls a function by mrq's readable name\(fix)")
        case .implicitAny:
            return Diagnostic("\(quoted(written)) goes through a to-many relationship without ANY, which mrq adds for you\(fix)")
        case .anyOnToOne:
            return Diagnostic("\(quoted(written)) is not a collection: Apple's NSPredicate raises for ANY, ALL or NONE on a single value\(fix)")
        }
    }

    // Evaluation.
    static func typeMismatch(_ op: String, _ lhs: String, _ rhs: String) -> Diagnostic {
        Diagnostic("cannot apply \(quoted(op)) to \(lhs) and \(rhs)")
    }
    static func typeMismatch(_ op: String, _ operand: String) -> Diagnostic {
        Diagnostic("cannot apply \(quoted(op)) to \(operand)")
    }
    static let divisionByZero = Diagnostic("division by zero")
    static func noSuchKey(_ key: String, on what: String) -> Diagnostic {
        Diagnostic("cannot read key \(quoted(key)) from \(what)")
    }
    static let betweenNeedsPair = Diagnostic("BETWEEN needs a two-value aggregate such as {1, 10}")
    static func invalidRegex(_ pattern: String) -> Diagnostic {
        Diagnostic("invalid regular expression \(quoted(pattern))")
    }
    static func unboundVariable(_ name: String) -> Diagnostic { Diagnostic("no value for variable '$\(name)'") }
    static func unsubstitutedPlaceholder(_ spec: String) -> Diagnostic {
        Diagnostic("format placeholder \(quoted(spec)) was never given an argument")
    }
    static func indexOutOfRange(_ index: Int, count: Int) -> Diagnostic {
        Diagnostic("index \(index) out of range for a collection of \(count)")
    }
    static func unknownSelector(_ selector: String, on what: String) -> Diagnostic {
        Diagnostic("\(what) does not respond to \(quoted(selector))")
    }
    static func castFailed(_ what: String, type: String) -> Diagnostic {
        Diagnostic("cannot CAST \(what) to \(type)")
    }
}

/// Renders diagnostics the same way for the REPL, scripts and tests.
///
/// ```swift
/// DiagnosticRenderer.render(message: e.message, range: e.range,
///                           source: text, fileName: "people.mrq")
/// // people.mrq:3:7: error: expected value after '>'
/// //     age > AND name == "x"
/// //           ^~~
/// ```
public enum DiagnosticRenderer {
    /// The message line, the source line indented by four spaces, and a
    /// caret line underlining the range (clipped to its first line).
    ///
    /// With no `fileName`, the first line reads `error: …`, for the REPL.
    public static func render(message: String, range: SourceRange, source: String,
                              fileName: String? = nil, severity: String = "error") -> String {
        let head: String
        if let fileName {
            head = "\(fileName):\(range.start.line):\(range.start.column): \(severity): \(message)"
        } else {
            head = "\(severity): \(message)"
        }
        let utf8 = Array(source.utf8)
        let offset = min(max(0, range.start.offset), utf8.count)
        var lineStart = offset
        while lineStart > 0, utf8[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        var lineEnd = offset
        while lineEnd < utf8.count, utf8[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
        var lineBytes = Array(utf8[lineStart..<lineEnd])
        if lineBytes.last == UInt8(ascii: "\r") { lineBytes.removeLast() }
        let lineText = String(decoding: lineBytes, as: UTF8.self).replacingOccurrences(of: "\t", with: " ")
        let endOffset = min(max(range.end.offset, offset), lineStart + lineBytes.count)
        let column = scalarCount(utf8[lineStart..<offset])
        let width = scalarCount(utf8[offset..<endOffset])
        let caret = String(repeating: " ", count: column) + "^" + String(repeating: "~", count: max(0, width - 1))
        return "\(head)\n    \(lineText)\n    \(caret)"
    }

    /// Renders a ``SyntaxError``.
    public static func render(_ error: SyntaxError, source: String, fileName: String? = nil) -> String {
        render(message: error.message, range: error.range, source: source, fileName: fileName)
    }

    private static func scalarCount(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }
}
