import Foundation

/// What an attribute holds, as far as comparing it with a constant goes.
///
/// ```swift
/// struct People: PredicateSchema {
///     func valueKind(ofEntity entity: String, key: String) -> ValueKind? {
///         key == "hiredAt" ? .date : nil
///     }
///     …
/// }
/// ```
public enum ValueKind: String, Sendable, Hashable, CaseIterable {
    /// Integers, floating-point and decimal numbers.
    case number
    /// Compares with booleans and numbers (0 and 1).
    case boolean
    /// Compares with strings.
    case string
    /// Compares with dates (`@2024-01-31`, `CAST(…, "NSDate")`).
    case date
    /// Binary data.
    case data
    /// Compares with UUIDs, and with strings that spell one.
    case uuid
    /// Compares with URLs, and with strings (its absolute string).
    case url
    /// Anything else (transformable values): never checked.
    case other

    /// The plural the messages use: `'hiredAt' holds dates`.
    var plural: String {
        switch self {
        case .number: return "numbers"
        case .boolean: return "booleans"
        case .string: return "strings"
        case .date: return "dates"
        case .data: return "data"
        case .uuid: return "UUIDs"
        case .url: return "URLs"
        case .other: return "values"
        }
    }

    /// Whether a comparison of this kind with `value` can ever hold.
    func accepts(_ value: Value, op: Comparison.Operator) -> Bool {
        switch (self, value) {
        case (_, .null), (.other, _): return true
        case (.number, .int), (.number, .double), (.number, .decimal), (.number, .bool),
             (.boolean, .int), (.boolean, .double), (.boolean, .decimal), (.boolean, .bool):
            return true
        case (.string, .string), (.date, .date), (.data, .data), (.uuid, .uuid), (.url, .url), (.url, .string):
            return true
        case (.uuid, .string(let s)):
            return op.isStringOperator || UUID(uuidString: s) != nil
        default:
            return false
        }
    }

    /// `value` written as a constant of this kind, when it has an obvious
    /// spelling: `"18"` → `18`, `"2020-01-01"` → `@2020-01-01`, `5` → `"5"`.
    func converting(_ value: Value) -> Value? {
        switch (self, value) {
        case (.number, .string(let s)), (.boolean, .string(let s)):
            let text = s.trimmingCharacters(in: .whitespaces)
            if let i = Int64(text) { return .int(i) }
            if let d = Double(text), d.isFinite { return .double(d) }
            guard self == .boolean else { return nil }
            switch text.lowercased() {
            case "yes", "true": return .bool(true)
            case "no", "false": return .bool(false)
            default: return nil
            }
        case (.date, .string(let s)):
            let text = s.trimmingCharacters(in: .whitespaces)
            guard let tokens = try? Lexer.tokenize("@" + text), tokens.count == 2, tokens[0].kind == .date else { return nil }
            return .date(tokens[0].dateValue)
        case (.string, .int(let i)): return .string(String(i))
        case (.string, .double(let d)): return .string(d.description)
        case (.string, .uuid(let u)): return .string(u.uuidString)
        case (.string, .url(let u)): return .string(u.absoluteString)
        default: return nil
        }
    }
}

extension Comparison.Operator {
    /// BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES.
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: return true
        default: return false
        }
    }
}

/// A predicate that is valid but likely not what was meant: it runs, and
/// the shell prints the warning first.
///
/// ```swift
/// let p = try Predicate(format: #"name LIKE "Zh%""#)
/// p.warnings.first?.message   // LIKE uses * and ?, not %: write name LIKE "Zh*" …
/// ```
public struct PredicateWarning: Sendable, Hashable {
    /// What looks wrong, and how to write it.
    public let message: String
    /// The part of the predicate it is about.
    public let range: SourceRange
}

extension Predicate {
    /// What looks like a habit from SQL: a LIKE pattern with `%` (or `_`)
    /// and no `*` or `?`, which matches only those characters themselves.
    public var warnings: [PredicateWarning] {
        var found: [PredicateWarning] = []
        func visit(_ p: Predicate) {
            switch p.kind {
            case .constant: break
            case .not(let inner): visit(inner)
            case .and(let parts), .or(let parts): parts.forEach(visit)
            case .comparison(let c):
                for side in [c.lhs, c.rhs] {
                    if let date = Predicate.dateWrittenAsArithmetic(side) {
                        found.append(PredicateWarning(message: Diagnostic.dateAsArithmetic(date).message, range: side.range))
                    }
                }
                guard c.op == .like, case .constant(.string(let pattern)) = c.rhs.kind, pattern.contains("%"),
                      !pattern.contains("*"), !pattern.contains("?") else { return }
                var fixed = c
                if Predicate.looksLikeQuotedPlaceholder(pattern) {
                    // Apple's own example: a quoted '%@' is the text %@, not
                    // a placeholder; with no * or ? LIKE is equality.
                    fixed.op = .equal
                    found.append(PredicateWarning(message: Diagnostic.quotedPlaceholder(pattern, fixed: fixed.description).message,
                                                  range: c.rhs.range))
                    return
                }
                let glob = String(pattern.map { $0 == "%" ? "*" : $0 == "_" ? "?" : $0 })
                fixed.rhs = Expression(.constant(.string(glob)))
                found.append(PredicateWarning(message: Diagnostic.sqlLikePattern(fixed: fixed.description).message,
                                              range: c.rhs.range))
            }
        }
        visit(self)
        return found
    }
}

extension Predicate {
    /// `2020-01-01` unquoted: 2020 − 1 − 1, an integer, where a date was
    /// meant. Returns the date meant (year 1000 to 9999, a real month and
    /// day).
    static func dateWrittenAsArithmetic(_ e: Expression) -> (year: Int64, month: Int64, day: Int64, result: Int64)? {
        guard case .binary(.subtract, let left, let dayExpression) = e.kind,
              case .binary(.subtract, let yearExpression, let monthExpression) = left.kind,
              case .constant(.int(let year)) = yearExpression.kind, case .constant(.int(let month)) = monthExpression.kind,
              case .constant(.int(let day)) = dayExpression.kind,
              (1000...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        return (year, month, day, year - month - day)
    }

    /// A LIKE pattern that is a format placeholder in quotes: `'%@'`,
    /// `'%K'`, `'%d'`.
    static func looksLikeQuotedPlaceholder(_ pattern: String) -> Bool {
        let specifiers: Set<String> = ["%@", "%K", "%d", "%i", "%f", "%u", "%ld", "%lld", "%lu", "%x", "%s"]
        return specifiers.contains(pattern)
    }
}

extension KeyChecker {
    /// What one side of a comparison is, for the kind checks.
    enum Side {
        case attribute(String, ValueKind)
        case relationship(String, destination: String, toMany: Bool)
        case constant(Value)
        case other
    }

    func side(_ e: Expression) -> Side {
        switch e.kind {
        case .constant(let value):
            return .constant(value)
        case .keyPath(let path):
            return keySide(path, from: root)
        case .member(let base, let keys):
            guard case .variable(let name) = base.kind, let start = variables[name] else { return .other }
            return keySide(keys, from: start)
        default:
            return .other
        }
    }

    /// Whether a key path expression goes through a to-many relationship
    /// before its last key: its value is then a collection.
    private func passesToMany(_ expression: Expression) -> Bool {
        guard case .keyPath(let path) = expression.kind else { return false }
        var entity = root
        for key in path.dropLast() {
            if schema.isToMany(entity: entity, key: key) { return true }
            guard let next = schema.destination(ofEntity: entity, key: key) else { return false }
            entity = next
        }
        return false
    }

    private func keySide(_ path: [String], from start: String) -> Side {
        guard let last = path.last else { return .other }
        var entity = start
        for key in path.dropLast() {
            guard let next = schema.destination(ofEntity: entity, key: key) else { return .other }
            entity = next
        }
        let written = path.joined(separator: ".")
        if let kind = schema.valueKind(ofEntity: entity, key: last) { return .attribute(written, kind) }
        // A composite's checker name has a dot: it is no relationship.
        if let destination = schema.destination(ofEntity: entity, key: last), !destination.contains(".") {
            return .relationship(written, destination: destination, toMany: schema.isToMany(entity: entity, key: last))
        }
        return .other
    }

    /// Refuses a comparison of a key with a constant that can never hold,
    /// with the comparison written so that it can.
    func checkKinds(_ c: Comparison) throws(SyntaxError) {
        // The constants compared with the key, and where each sits.
        let key: Side
        var constants: [(value: Value, range: SourceRange, replace: (inout Comparison, Expression) -> Void)] = []
        switch (side(c.lhs), side(c.rhs)) {
        case (let k, .constant(let value)) where k.isKey:
            key = k
            constants.append((value, c.rhs.range, { $0.rhs = $1 }))
        case (.constant(let value), let k) where k.isKey && !c.op.isStringOperator:
            key = k
            constants.append((value, c.lhs.range, { $0.lhs = $1 }))
        case (let k, _) where k.isKey && (c.op == .in || c.op == .between):
            guard case .aggregate(let elements) = c.rhs.kind else { return }
            key = k
            for (i, element) in elements.enumerated() {
                guard case .constant(let value) = element.kind else { continue }
                constants.append((value, element.range, { comparison, fixed in
                    var list = elements
                    list[i] = fixed
                    comparison.rhs = Expression(.aggregate(list), range: c.rhs.range)
                }))
            }
        default:
            return
        }
        // `name IN "abc"` looks for a substring.
        if c.op == .in, case .constant(.string) = c.rhs.kind { return }
        // `people.age CONTAINS 30`: through a to-many, CONTAINS asks whether
        // the collection holds the value, whatever its kind.
        if c.op == .contains, passesToMany(c.lhs) { return }
        let op = c.op == .in || c.op == .between ? Comparison.Operator.equal : c.op
        switch key {
        case .attribute(let name, let kind):
            if op.isStringOperator, kind != .string, kind != .url, kind != .uuid, kind != .other {
                throw SyntaxError(.stringOperatorOnNonString(c.op.rawValue, key: name, holds: kind.plural),
                                  at: c.lhs.range)
            }
            for constant in constants where constant.value != .null {
                let accepted = op.isStringOperator ? constant.value.isString : kind.accepts(constant.value, op: op)
                guard !accepted else { continue }
                let target = op.isStringOperator ? ValueKind.string : kind
                var fix: String?
                var alternative: String?
                if let converted = target.converting(constant.value) {
                    var fixed = c
                    constant.replace(&fixed, Expression(.constant(converted)))
                    fix = fixed.description
                    if target == .date {
                        // Apple's spelling first; mrq's date literal named as mrq's.
                        var apple = Expression(.constant(converted))
                        apple.isFoldedCast = true
                        var appleFixed = c
                        constant.replace(&appleFixed, apple)
                        alternative = "mrq's " + fixed.description
                        fix = appleFixed.description
                    }
                } else if target == .date, constant.value.isNumber {
                    var fixed = c
                    constant.replace(&fixed, Expression(.cast(Expression(.constant(constant.value)), .date)))
                    fix = fixed.description + " (seconds since 2001-01-01)"
                }
                throw SyntaxError(.neverMatches(name, holds: kind.plural, constant: Printer.format(Expression(.constant(constant.value))),
                                                isA: constant.value.kindPhrase, fix: fix, alternative: alternative,
                                                hint: kind == .uuid ? "write a UUID such as \"3F2504E0-4F89-11D3-9A0C-0305E82C3301\"" : nil),
                                  at: constant.range)
            }
        case .relationship(let name, let destination, let toMany):
            guard let constant = constants.first(where: { $0.value != .null }) else { return }
            var fix: String?
            if let wanted = constant.value.isString ? ValueKind.string : constant.value.isNumber ? .number : nil,
               let attribute = likeliestKey(of: destination, kind: wanted) {
                var fixed = c
                let path = name.split(separator: ".").map(String.init) + [attribute]
                if case .relationship = side(c.lhs) {
                    fixed.lhs = Expression(.keyPath(path))
                } else {
                    fixed.rhs = Expression(.keyPath(path))
                }
                fix = fixed.description
            }
            throw SyntaxError(.relationshipNeverMatches(name, destination: destination, toMany: toMany,
                                                        constant: Printer.format(Expression(.constant(constant.value))),
                                                        isA: constant.value.kindPhrase, fix: fix),
                              at: constant.range)
        case .constant, .other:
            return
        }
    }

    /// The destination's attribute a user most likely meant: `name`,
    /// `title`, then the first attribute of the kind.
    func likeliestKey(of entity: String, kind: ValueKind) -> String? {
        let keys = (schema.keys(ofEntity: entity) ?? []).filter { schema.valueKind(ofEntity: entity, key: $0) == kind }
        for preferred in ["name", "title", "label"] where keys.contains(preferred) { return preferred }
        return keys.first
    }
}

extension KeyChecker.Side {
    /// An attribute or a relationship.
    var isKey: Bool {
        switch self {
        case .attribute, .relationship: return true
        case .constant, .other: return false
        }
    }
}

extension Value {
    var isString: Bool {
        if case .string = self { return true }
        return false
    }

    var isNumber: Bool {
        switch self {
        case .int, .double, .decimal: return true
        default: return false
        }
    }

    /// `a string`, `a number`…, for messages.
    var kindPhrase: String {
        switch self {
        case .null: return "nil"
        case .bool: return "a boolean"
        case .int, .double, .decimal: return "a number"
        case .string: return "a string"
        case .date: return "a date"
        case .data: return "data"
        case .uuid: return "a UUID"
        case .url: return "a URL"
        }
    }
}
