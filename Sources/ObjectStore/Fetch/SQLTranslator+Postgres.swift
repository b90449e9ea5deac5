import Foundation
import Predicates

// What PostgreSQL's SQL says otherwise than SQLite's, for the same meaning.
extension SQLTranslator {
    /// A constant as PostgreSQL must see it to compare as the evaluator
    /// does: a double holding an integer below 2^63 as that integer
    /// (bigint against double compares in doubles there), a date only when
    /// a timestamp holds it exactly (microseconds), no string with U+0000.
    mutating func postgresConstant(_ value: Value) throws -> Operand {
        func number(_ d: Double) -> Operand {
            if d.rounded() == d, abs(d) < 9.223_372_036_854_775_808e18 {
                let i = Int64(d)
                return bound(.int(i), category: .number, constant: value, kind: .integer(exact: i.magnitude <= 1 << 53))
            }
            return bound(.double(d), category: .number, constant: value, kind: .double(constant: true))
        }
        switch value {
        case .null: return Operand(sql: "NULL", category: .unknown, constant: value)
        case .int(let i): return bound(value, category: .number, constant: value, kind: .integer(exact: i.magnitude <= 1 << 53))
        case .bool: return bound(value, category: .boolean, constant: value, kind: .integer(exact: true))
        case .double(let d): return number(d)
        case .decimal(let d): return number(NSDecimalNumber(decimal: d).doubleValue)
        case .uuid(let u): return bound(.uuid(u), category: .uuid, constant: value)
        case .url(let u): return bound(.string(u.absoluteString), category: .url, constant: value)
        case .date(let d):
            guard PostgresTimestamp.date(microseconds: PostgresTimestamp.microseconds(d)) == d else {
                throw Untranslatable(reason: "a date finer than PostgreSQL's microseconds")
            }
            return bound(value, category: .date, constant: value)
        case .string(let s):
            if s.utf8.contains(0) { throw Untranslatable(reason: "PostgreSQL text cannot hold U+0000") }
            return bound(value, category: .string, constant: value)
        case .data: return bound(value, category: .data, constant: value)
        }
    }

    /// Refuses what PostgreSQL cannot compare with the evaluator's
    /// meaning: `[c]` and `[d]` left unfolded (see `postgresFolding`), and
    /// numbers that PostgreSQL would compare in doubles where the
    /// evaluator compares exactly.
    func checkPostgres(_ lhs: Operand, _ rhs: Operand, _ c: Comparison, options: Comparison.Options) throws {
        if lhs.isNullConstant || rhs.isNullConstant { return }
        let textual: Set<Category> = [.string, .url, .uuid]
        if !options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive]),
           textual.contains(lhs.category) || textual.contains(rhs.category) {
            throw Untranslatable(reason: "[c] and [d] fold as Swift does only in memory here")
        }
        let numeric: Set<Category> = [.number, .boolean]
        if numeric.contains(lhs.category), numeric.contains(rhs.category), !lhs.kind.comparesExactly(with: rhs.kind) {
            throw Untranslatable(reason: "PostgreSQL compares this integer with a double in doubles")
        }
    }

    /// `[c]` and `[d]` between strings, as far as SQL decides them
    /// exactly: each constant folded here as the evaluator folds it (and
    /// bound so), each other side lowered in SQL for `[c]`. On a string of
    /// printable ASCII, Swift's case folding is ASCII lowering, which is
    /// what `lower(… COLLATE "C")` does, and diacritic folding changes
    /// nothing; so the comparison is exact on rows whose sides are such
    /// strings (or nil). Returns those sides' SQL (empty when both are
    /// constants: exact everywhere), for `postgresApproximation` to let
    /// the other rows through to memory; nil when there is nothing to fold.
    /// Throws where SQL must be exact (inside SUBQUERY).
    mutating func postgresFolding(_ lhs: inout Operand, _ rhs: inout Operand, _ c: Comparison) throws -> [String]? {
        let options = c.options.intersection([.caseInsensitive, .diacriticInsensitive])
        // A pattern is not folded as text is (`\D` is not `\d`): memory.
        guard c.op != .matches else { return nil }
        guard !options.isEmpty, !lhs.isNullConstant, !rhs.isNullConstant,
              lhs.category == .string, rhs.category == .string else { return nil }
        guard polarity != nil else { throw Untranslatable(reason: "[c] and [d] inside SUBQUERY fold only in memory") }
        var undecided: [String] = []
        func fold(_ side: inout Operand) throws {
            if let constant = side.constant {
                guard case .string(let text) = constant, let n = side.parameter else {
                    throw Untranslatable(reason: "[c] and [d] on a constant that is no string")
                }
                let folded = StringMatching.fold(text, options)
                // A lone combining mark folds to nothing: memory decides.
                if folded.isEmpty != text.isEmpty { throw Untranslatable(reason: "a string [d] folds to nothing") }
                side.sql = rebind(n, .string(folded))
                side.constant = .string(folded)
            } else {
                undecided.append(side.sql)
                if options.contains(.caseInsensitive) { side.sql = "lower(\(side.sql) COLLATE \"C\")" }
            }
        }
        try fold(&lhs)
        try fold(&rhs)
        return undecided
    }

    /// `sql`, exact on rows where every `undecided` side is printable
    /// ASCII or nil, widened (narrowed under NOT) for the other rows,
    /// which the caller's residual then decides in memory.
    mutating func postgresApproximation(_ sql: String, undecided: [String]) -> String {
        guard !undecided.isEmpty, let widen = polarity else { return sql }
        approximated = true
        let decided = undecided.map { "COALESCE(\($0) ~ '^[ -~]*$', TRUE)" }.joined(separator: " AND ")
        return widen ? "(NOT (\(decided)) OR \(sql))" : "(\(decided) AND \(sql))"
    }

    /// `sql` ordered as the evaluator orders `subject`'s kind: text by
    /// code point (UTF-8 bytes) whatever the database's collation.
    func ordered(_ sql: String, _ subject: Operand) -> String {
        guard isPostgres, [.string, .url, .uuid].contains(subject.category) else { return sql }
        return "(\(sql) COLLATE \"C\")"
    }

    /// The average of `column` as SQLite and the evaluator take it: the
    /// sum in doubles over the count. (PostgreSQL's AVG averages integers
    /// exactly, and stops with an overflow where the squares it also adds
    /// overflow.)
    static func postgresAverage(_ column: String) -> String {
        "SUM(CAST(\(column) AS double precision)) / COUNT(\(column))"
    }

    /// BEGINSWITH, ENDSWITH and CONTAINS without options: by code points,
    /// which agree with the evaluator's UTF-8 bytes; an empty needle
    /// matches nothing.
    func postgresStringOperator(_ op: Comparison.Operator, _ text: String, _ needle: String) -> String {
        switch op {
        case .beginsWith: return "(length(\(needle)) > 0 AND starts_with(\(text), \(needle)))"
        case .endsWith: return "(length(\(needle)) > 0 AND right(\(text), length(\(needle))) = \(needle))"
        default: return "(length(\(needle)) > 0 AND strpos(\(text), \(needle)) > 0)"
        }
    }

    /// LIKE with a constant pattern, its `*` and `?` written as `%` and
    /// `_` (and a literal `%`, `_` or `\` escaped); MATCHES and a pattern
    /// read from a column run in memory (ICU's and PostgreSQL's regular
    /// expressions differ).
    mutating func postgresLike(_ c: Comparison, _ text: Operand, _ pattern: Operand) throws -> String {
        if c.op == .matches { return try postgresMatches(text, pattern) }
        guard case .string(let source)? = pattern.constant, let n = pattern.parameter else {
            throw Untranslatable(reason: "LIKE with a pattern that is no constant")
        }
        return "\(text.sql) LIKE \(rebind(n, .string(Self.likePattern(source))))"
    }

    /// MATCHES (without options) with a constant pattern written only in
    /// what ICU's and PostgreSQL's regular expressions read alike (see
    /// `readsAlike`), matched whole: exact on subjects of printable ASCII,
    /// where the two agree; other rows come back for the evaluator to
    /// decide. Any other pattern is evaluated in memory.
    mutating func postgresMatches(_ text: Operand, _ pattern: Operand) throws -> String {
        guard case .string(let source)? = pattern.constant, let n = pattern.parameter, polarity != nil,
              Self.readsAlike(source), (try? NSRegularExpression(pattern: "(?:" + source + ")\\z")) != nil else {
            throw Untranslatable(reason: "MATCHES with a pattern PostgreSQL may read otherwise is evaluated in memory")
        }
        return postgresApproximation("(\(text.sql) COLLATE \"C\") ~ \(rebind(n, .string("^(?:" + source + ")$")))",
                                     undecided: [text.sql])
    }

    /// Whether `pattern` keeps to what ICU (the evaluator's
    /// NSRegularExpression) and PostgreSQL's advanced regular expressions
    /// read alike on printable ASCII text: printable ASCII literals; `.`;
    /// `\d \D \w \W \s \S` and an escaped punctuation mark; bracket
    /// classes of plain characters and ranges (no nested sets, escapes or
    /// `&`); `(…)` and `(?:…)` groups; `|` between non-empty branches;
    /// `* + ?`, lazy `*? +? ??` and `{m}`, `{m,}`, `{m,n}` up to 255
    /// after a one-character atom (not after a group: a random test found
    /// ICU and PostgreSQL answering differently for repeated groups that
    /// can match empty). No anchors, backreferences, word boundaries,
    /// look-arounds, flags or possessive quantifiers.
    static func readsAlike(_ pattern: String) -> Bool {
        let chars = Array(pattern.utf8)
        guard !chars.isEmpty, chars.allSatisfy({ (0x20...0x7E).contains($0) }) else { return false }
        func isAlnum(_ c: UInt8) -> Bool { (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) }
        var i = 0
        var depth = 0
        var atom = false         // an atom a quantifier may follow
        var quantified = false   // just after a quantifier: only a lazy `?` more
        var branchEmpty = true
        func number() -> Int? {
            var value = 0, digits = 0
            while i < chars.count, (0x30...0x39).contains(chars[i]), digits < 4 {
                value = value * 10 + Int(chars[i] - 0x30); digits += 1; i += 1
            }
            return digits == 0 ? nil : value
        }
        while i < chars.count {
            let c = chars[i]
            switch c {
            case UInt8(ascii: "\\"):
                guard i + 1 < chars.count else { return false }
                let e = chars[i + 1]
                guard "dDwWsS".utf8.contains(e) || !isAlnum(e) else { return false }
                i += 2; atom = true; quantified = false; branchEmpty = false
            case UInt8(ascii: "["):
                i += 1
                if i < chars.count, chars[i] == UInt8(ascii: "^") { i += 1 }
                var members = 0
                while i < chars.count, chars[i] != UInt8(ascii: "]") {
                    let m = chars[i]
                    guard !"[\\&{}".utf8.contains(m) else { return false }
                    if m == UInt8(ascii: "-") {
                        // Literal only first or last.
                        guard members == 0 || (i + 1 < chars.count && chars[i + 1] == UInt8(ascii: "]")) else { return false }
                        i += 1; members += 1; continue
                    }
                    if i + 2 < chars.count, chars[i + 1] == UInt8(ascii: "-"), chars[i + 2] != UInt8(ascii: "]") {
                        let end = chars[i + 2]
                        guard isAlnum(m), isAlnum(end), m <= end,
                              (0x30...0x39).contains(m) == (0x30...0x39).contains(end),
                              (0x41...0x5A).contains(m) == (0x41...0x5A).contains(end) else { return false }
                        i += 3; members += 1; continue
                    }
                    i += 1; members += 1
                }
                guard i < chars.count, members > 0 else { return false }
                i += 1; atom = true; quantified = false; branchEmpty = false
            case UInt8(ascii: "("):
                i += 1
                if i < chars.count, chars[i] == UInt8(ascii: "?") {
                    guard i + 1 < chars.count, chars[i + 1] == UInt8(ascii: ":") else { return false }
                    i += 2
                }
                depth += 1; atom = false; quantified = false; branchEmpty = true
            case UInt8(ascii: ")"):
                // A group takes no quantifier: how a repeated group that
                // may match empty iterates is where the engines part.
                guard depth > 0, !branchEmpty else { return false }
                depth -= 1; i += 1; atom = false; quantified = false
            case UInt8(ascii: "|"):
                guard !branchEmpty else { return false }
                i += 1; atom = false; quantified = false; branchEmpty = true
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                if quantified {
                    guard c == UInt8(ascii: "?") else { return false }   // lazy; never possessive
                    i += 1; quantified = false; atom = false; continue
                }
                guard atom else { return false }
                i += 1; quantified = true; atom = false
            case UInt8(ascii: "{"):
                guard atom, !quantified else { return false }
                i += 1
                guard let low = number(), low <= 255 else { return false }
                if i < chars.count, chars[i] == UInt8(ascii: ",") {
                    i += 1
                    if let high = number() { guard high <= 255, high >= low else { return false } }
                }
                guard i < chars.count, chars[i] == UInt8(ascii: "}") else { return false }
                i += 1; quantified = true; atom = false
            case UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                return false
            default:
                i += 1; atom = true; quantified = false; branchEmpty = false
            }
        }
        return depth == 0 && !branchEmpty
    }

    /// The evaluator's LIKE pattern as PostgreSQL's.
    static func likePattern(_ source: String) -> String {
        var result = ""
        var scalars = source.unicodeScalars.makeIterator()
        func literal(_ c: Unicode.Scalar) {
            if c == "%" || c == "_" || c == "\\" { result += "\\" }
            result.unicodeScalars.append(c)
        }
        while let c = scalars.next() {
            switch c {
            case "\\": literal(scalars.next() ?? "\\")
            case "*": result += "%"
            case "?": result += "_"
            default: literal(c)
            }
        }
        return result
    }
}
