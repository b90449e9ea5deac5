import Foundation

/// One of mrq's additions to Apple's NSPredicate format language: what mrq
/// parses that Apple's `NSPredicate(format:)` does not, or accepts where
/// Apple raises. This is the one list; `Grammar/predicate.ebnf`, `.help
/// predicates`, `explain` and strict parsing all come from it.
///
/// ```swift
/// let p = try Predicate(format: "hiredAt > @2024-01-31")
/// p.additions(in: "hiredAt > @2024-01-31").first?.addition   // .dateLiteral
/// ```
public enum LanguageAddition: String, Sendable, Hashable, CaseIterable {
    /// `@2024-01-31`, `@2024-01-31T10:00:00Z`: Apple has no date literal;
    /// write `CAST(727833600, "NSDate")` or pass a date with `%@`.
    case dateLiteral
    /// `sum(x)`, `avg(x)`, `add(1, 2)`, `upper(s)`, `random(list)`: a
    /// function called by a readable name or alias; Apple's format strings
    /// call it by its selector, `sum:(x)`, `average:(x)`, `add:to:(1, 2)`.
    /// `now()` and `random()` are Apple's own spellings.
    case readableFunction
    /// `people.age > 60` through a to-many relationship without ANY: mrq
    /// reads it as `ANY people.age > 60`; Apple needs the ANY.
    case implicitAny
    /// `ANY age > 18` where the left side is not a collection: mrq compares
    /// the one value; Apple raises (the left side of ANY or ALL must be a
    /// collection).
    case anyOnToOne

    /// How `.help` and the grammar name it.
    public var title: String {
        switch self {
        case .dateLiteral: return "date literals"
        case .readableFunction: return "readable function names and aliases: sum, avg, ceil, pow, mod, upper, random(list)…"
        case .implicitAny: return "a to-many key path without ANY"
        case .anyOnToOne: return "ANY, ALL or NONE on a single value"
        }
    }

    /// An example of the addition and Apple's spelling of the same, on
    /// the People sample.
    public var example: (mrq: String, apple: String) {
        switch self {
        case .dateLiteral: return ("hiredAt > @2024-01-31", "hiredAt > CAST(728352000, \"NSDate\")")
        case .readableFunction: return ("upper(FirstName) == \"ZOE\"", "uppercase:(FirstName) == \"ZOE\"")
        case .implicitAny: return ("people.age > 60", "ANY people.age > 60")
        case .anyOnToOne: return ("ANY age > 60", "age > 60")
        }
    }

    /// True when the addition can only be told from Apple's language with
    /// the model (which keys are to-many relationships).
    public var needsModel: Bool { self == .implicitAny || self == .anyOnToOne }
}

/// One place a predicate uses one of mrq's additions, with what to write
/// in Apple's NSPredicate instead.
public struct AdditionUse: Sendable, Hashable {
    /// Which addition.
    public let addition: LanguageAddition
    /// The text as written: `@2024-01-31`, `avg(salary)`.
    public let written: String
    /// Apple's spelling of the same, when there is one.
    public let apple: String?
    /// Where it is.
    public let range: SourceRange

    /// What `explain` says and strict parsing refuses with:
    /// `'@2024-01-31' is mrq's date literal; in Apple's NSPredicate write …`.
    public var message: String {
        Diagnostic.additionUsed(addition, written: written, apple: apple).message
    }
}

/// How a predicate is parsed.
///
/// ```swift
/// try Predicate(format: "hiredAt > @2024-01-31", options: .strict)
/// // throws: '@2024-01-31' is mrq's date literal; in Apple's NSPredicate
/// // write CAST(728352000, "NSDate") or pass a date with %@
/// ```
public struct ParseOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Exactly Apple's NSPredicate language: each of mrq's additions
    /// (``LanguageAddition``) is refused with a message naming Apple's
    /// spelling, for text that will be pasted into Xcode. The additions
    /// that need the model are refused by
    /// ``Predicate/refuseAdditions(in:entity:schema:)``.
    public static let strict = ParseOptions(rawValue: 1)
}

extension Predicate {
    /// Parses `format` with `options`; placeholders take `arguments` in
    /// order.
    public init(format: String, options: ParseOptions, arguments: [FormatArgument] = []) throws(SyntaxError) {
        try self.init(format: format, arguments: arguments)
        if options.contains(.strict) { try refuseAdditions(in: format) }
    }

    /// Throws at the first of mrq's additions the predicate uses (see
    /// ``additions(in:entity:schema:)``), saying what Apple's NSPredicate
    /// writes instead.
    public func refuseAdditions(in source: String, entity: String? = nil,
                                schema: (any PredicateSchema)? = nil) throws(SyntaxError) {
        if let first = additions(in: source, entity: entity, schema: schema).first {
            throw SyntaxError(message: first.message, range: first.range)
        }
    }

    /// The additions to Apple's language this predicate uses, in source
    /// order, read from the tree and the `source` it was parsed from. With
    /// a `schema` and the `entity` the predicate is about, the model-bound
    /// ones too (``LanguageAddition/implicitAny`` and
    /// ``LanguageAddition/anyOnToOne``).
    ///
    /// ```swift
    /// let text = "avg({1, 2}) > 1"
    /// try Predicate(format: text).additions(in: text).map(\.written)   // ["avg({1, 2})"]
    /// ```
    public func additions(in source: String, entity: String? = nil,
                          schema: (any PredicateSchema)? = nil) -> [AdditionUse] {
        var finder = AdditionFinder(source: source, schema: schema, root: entity)
        finder.visit(self)
        return finder.found.sorted { $0.range.start.offset < $1.range.start.offset }
    }
}

extension Expression {
    /// The additions to Apple's language this expression uses (see
    /// ``Predicate/additions(in:entity:schema:)``).
    public func additions(in source: String) -> [AdditionUse] {
        var finder = AdditionFinder(source: source, schema: nil, root: nil)
        finder.visit(self)
        return finder.found.sorted { $0.range.start.offset < $1.range.start.offset }
    }
}

/// Walks a tree for ``Predicate/additions(in:entity:schema:)``.
struct AdditionFinder {
    let source: String
    let schema: (any PredicateSchema)?
    let root: String?
    var found: [AdditionUse] = []
    /// The entity each SUBQUERY variable ranges over.
    var variables: [String: String] = [:]

    init(source: String, schema: (any PredicateSchema)?, root: String?) {
        self.source = source
        self.schema = schema
        self.root = root
    }

    func text(_ range: SourceRange) -> String {
        guard range != .unknown else { return "" }
        return Token.slice(source, range.start.offset, range.end.offset)
    }

    mutating func visit(_ p: Predicate) {
        switch p.kind {
        case .constant: break
        case .not(let inner): visit(inner)
        case .and(let parts), .or(let parts): parts.forEach { visit($0) }
        case .comparison(let c):
            checkQuantifier(c)
            visit(c.lhs)
            visit(c.rhs)
        }
    }

    mutating func visit(_ e: Expression) {
        switch e.kind {
        case .constant(.date(let date)) where !e.isFoldedCast:
            if text(e.range).hasPrefix("@") {
                found.append(AdditionUse(addition: .dateLiteral, written: text(e.range),
                                         apple: Printer.castDate(date), range: e.range))
            }
        case .function(let function, let arguments):
            let written = text(e.range)
            let head = written.prefix { $0 != "(" }
            let isSelector = head.contains(":") || ((function == .now || function == .random) && arguments.isEmpty)
            if !isSelector, e.range != .unknown {
                let call = "\(function.selector)(" + arguments.map(Printer.format).joined(separator: ", ") + ")"
                found.append(AdditionUse(addition: .readableFunction, written: written, apple: call, range: e.range))
            }
            arguments.forEach { visit($0) }
        case .subquery(let collection, let variable, let predicate):
            visit(collection)
            let saved = variables[variable]
            if let path = collection.keyPathComponents, let destination = walk(path, from: root).entity {
                variables[variable] = destination
            }
            visit(predicate)
            variables[variable] = saved
        default:
            e.children.forEach { visit($0) }
        }
    }

    /// The entity a key path ends at and whether it went through a to-many
    /// relationship before its last key (so it reads many values).
    func walk(_ path: [String], from start: String?) -> (entity: String?, toManyBeforeLast: String?, endsToMany: Bool) {
        guard let schema, var entity = start else { return (nil, nil, false) }
        var toMany: String? = nil
        for (i, key) in path.enumerated() {
            let many = schema.isToMany(entity: entity, key: key)
            guard let next = schema.destination(ofEntity: entity, key: key) else {
                return (nil, toMany, false)
            }
            if i == path.count - 1 { return (next, toMany, many) }
            if many, toMany == nil { toMany = key }
            entity = next
        }
        return (entity, toMany, false)
    }

    /// The start entity and key path of a side that reads keys: `a.b` from
    /// the root, `$x.b` from a SUBQUERY variable.
    func keyPath(_ e: Expression) -> (start: String?, path: [String])? {
        switch e.kind {
        case .keyPath(let path): return (root, path)
        case .member(let base, let path):
            if case .variable(let name) = base.kind, let entity = variables[name] { return (entity, path) }
            return nil
        default: return nil
        }
    }

    mutating func checkQuantifier(_ c: Comparison) {
        guard schema != nil else { return }
        if c.modifier == .direct {
            // `people CONTAINS $p`, `30 IN people.age`: the collection is the
            // operand Apple expects there.
            for (side, isCollectionOperand) in [(c.lhs, c.op == .contains), (c.rhs, c.op == .in)] {
                guard !isCollectionOperand, let (start, path) = keyPath(side),
                      walk(path, from: start).toManyBeforeLast != nil else { continue }
                var fixed = c
                fixed.modifier = .any
                if side.range == c.rhs.range, side.range != c.lhs.range {
                    // ANY quantifies the left side: swap a flipped comparison.
                    guard let flipped = c.op.flipped else { return }
                    fixed.op = flipped
                    fixed.lhs = c.rhs
                    fixed.rhs = c.lhs
                }
                found.append(AdditionUse(addition: .implicitAny, written: text(side.range),
                                         apple: Printer.format(Predicate(.comparison(fixed))), range: side.range))
                return
            }
        } else if let (start, path) = keyPath(c.lhs) {
            let walked = walk(path, from: start)
            guard walked.toManyBeforeLast == nil, !walked.endsToMany, isKnownKey(path, from: start) else { return }
            var fixed = c
            fixed.modifier = .direct
            found.append(AdditionUse(addition: .anyOnToOne, written: text(c.lhs.range),
                                     apple: c.modifier == .none ? "NOT (\(Printer.format(Predicate(.comparison(fixed)))))"
                                        : Printer.format(Predicate(.comparison(fixed))),
                                     range: c.lhs.range))
        }
    }

    /// True when every key of `path` is a key of the model, so a to-one or
    /// attribute is known to be one (unknown keys are another error).
    func isKnownKey(_ path: [String], from start: String?) -> Bool {
        guard let schema, var entity = start else { return false }
        for (i, key) in path.enumerated() {
            guard schema.keys(ofEntity: entity)?.contains(key) == true else { return false }
            if i == path.count - 1 { return true }
            guard let next = schema.destination(ofEntity: entity, key: key) else { return false }
            entity = next
        }
        return true
    }
}

extension Comparison.Operator {
    /// The operator with its sides swapped (`<` for `>`); nil for those
    /// that do not swap (`BEGINSWITH`).
    var flipped: Comparison.Operator? {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessEqual: return .greaterEqual
        case .greater: return .less
        case .greaterEqual: return .lessEqual
        default: return nil
        }
    }
}
