/// What the predicate checker needs to know about a model.
///
/// ```swift
/// struct People: PredicateSchema {
///     func keys(ofEntity entity: String) -> [String]? { … }
///     func destination(ofEntity entity: String, key: String) -> String? { … }
///     func isToMany(entity: String, key: String) -> Bool { … }
/// }
/// try predicate.validateKeys(entity: "Person", schema: People())
/// ```
public protocol PredicateSchema {
    /// Attribute and relationship names of `entity` (inherited ones
    /// included), or nil when there is no such entity.
    func keys(ofEntity entity: String) -> [String]?
    /// The destination entity when `key` is a relationship, else nil.
    func destination(ofEntity entity: String, key: String) -> String?
    /// True when `key` is a to-many relationship.
    func isToMany(entity: String, key: String) -> Bool
    /// What attribute `key` of `entity` holds, for the checks that refuse
    /// comparisons that can never match (a date with a string); nil for a
    /// relationship or an unknown key. The default returns nil, which
    /// turns those checks off.
    func valueKind(ofEntity entity: String, key: String) -> ValueKind?
}

extension PredicateSchema {
    public func valueKind(ofEntity entity: String, key: String) -> ValueKind? { nil }
}

extension Predicate {
    /// Checks every key path against the model, starting at `entity`,
    /// and every comparison of a key with a constant.
    ///
    /// Throws `unknown key 'agee' on Person; did you mean 'age'?` with the
    /// key's range. Key paths after a SUBQUERY variable are checked
    /// against the collection's destination; keys after a collection
    /// operator (`children.@avg.age`) against the relationship's.
    ///
    /// With `comparisons` (and a schema that gives ``ValueKind``s), a
    /// comparison that can never match is an error that says how to write
    /// it, pointing at the constant: `hiredAt > "2020-01-01"` (write
    /// `hiredAt > @2020-01-01`), `age > "18"`, `department == "Sales"`
    /// (write `department.name == "Sales"`), `age BEGINSWITH "1"`.
    public func validateKeys(entity: String, schema: some PredicateSchema,
                             comparisons: Bool = true) throws(SyntaxError) {
        guard schema.keys(ofEntity: entity) != nil else {
            throw SyntaxError(.unknownEntity(entity), at: range)
        }
        var checker = KeyChecker(schema: schema, root: entity, comparisons: comparisons)
        try checker.check(self)
    }
}

struct KeyChecker<Schema: PredicateSchema> {
    let schema: Schema
    let root: String
    /// Whether comparisons of keys with constants are checked too.
    let comparisons: Bool
    var variables: [String: String] = [:]

    init(schema: Schema, root: String, comparisons: Bool) {
        self.schema = schema
        self.root = root
        self.comparisons = comparisons
    }

    mutating func check(_ p: Predicate) throws(SyntaxError) {
        switch p.kind {
        case .constant: return
        case .not(let operand): try check(operand)
        case .and(let operands), .or(let operands):
            for operand in operands { try check(operand) }
        case .comparison(let c):
            _ = try entity(of: c.lhs)
            try checkBareWord(c)
            _ = try entity(of: c.rhs)
            if comparisons { try checkKinds(c) }
        }
    }

    /// Checks `e` and returns the entity its value belongs to, when known.
    mutating func entity(of e: Expression) throws(SyntaxError) -> String? {
        switch e.kind {
        case .keyPath(let path):
            return try walk(path, from: root, range: e.range, skip: 0)
        case .evaluatedObject:
            return root
        case .variable(let name):
            return variables[name]
        case .assignment(let name, let value):
            let destination = try entity(of: value)
            variables[name] = destination
            return destination
        case .member(let base, let keys):
            guard let start = try entity(of: base) else { return nil }
            return try walk(keys, from: start, range: e.range, skip: 0, offsetFromEnd: true)
        case .collection(let op, let base, let key):
            let start = try entity(of: base)
            guard let start, !key.isEmpty else {
                return op == .distinctUnionOfObjects || op == .unionOfObjects ? start : nil
            }
            return try walk(key, from: start, range: e.range, skip: 0, offsetFromEnd: true)
        case .index(let base, let index):
            if case .at(let i) = index { _ = try entity(of: i) }
            return try entity(of: base)
        case .subquery(let collection, let variable, let predicate):
            let destination = try entity(of: collection)
            let saved = variables[variable]
            variables[variable] = destination
            defer { variables[variable] = saved }
            try check(predicate)
            return destination
        case .aggregate(let list), .function(_, let list):
            for element in list { _ = try entity(of: element) }
            return nil
        case .method(let receiver, _, let arguments):
            _ = try entity(of: receiver)
            for argument in arguments { _ = try entity(of: argument) }
            return nil
        case .binary(_, let lhs, let rhs):
            _ = try entity(of: lhs)
            _ = try entity(of: rhs)
            return nil
        case .negate(let operand), .cast(let operand, _):
            _ = try entity(of: operand)
            return nil
        case .constant, .placeholder, .object:
            return nil
        }
    }

    /// `FirstName == Zoe`: a word on the right that is no key is most
    /// likely text written without quotes.
    func checkBareWord(_ c: Comparison) throws(SyntaxError) {
        guard case .keyPath = c.lhs.kind, case .keyPath(let path) = c.rhs.kind, path.count == 1,
              let keys = schema.keys(ofEntity: root), !keys.contains(path[0]) else { return }
        throw SyntaxError(.unquotedString(path[0], entity: root, suggestion: Suggestions.closest(to: path[0], in: keys)),
                          at: c.rhs.range)
    }

    func walk(_ path: [String], from start: String, range: SourceRange, skip: Int,
              offsetFromEnd: Bool = false) throws(SyntaxError) -> String? {
        var entity = start
        var previous = start
        for (i, key) in path.enumerated() {
            guard let keys = schema.keys(ofEntity: entity) else { return nil }
            guard keys.contains(key) else {
                let at = componentRange(path, i, in: range, fromEnd: offsetFromEnd)
                // `people.count`: a collection operator written without @.
                if i > 0, CollectionOperator(name: key) != nil, schema.isToMany(entity: previous, key: path[i - 1]) {
                    let fix = path[..<i].joined(separator: ".") + ".@" + path[i...].joined(separator: ".")
                    throw SyntaxError(.collectionOperatorWithoutAt(key, entity: entity, fix: fix), at: at)
                }
                let suggestion = Suggestions.closest(to: key, in: keys)
                throw SyntaxError(.unknownKey(key, entity: entity, suggestion: suggestion), at: at)
            }
            guard let next = schema.destination(ofEntity: entity, key: key) else {
                if i + 1 < path.count {
                    throw SyntaxError(.notARelationship(key, entity: entity, next: path[i + 1]),
                                      at: componentRange(path, i + 1, in: range, fromEnd: offsetFromEnd))
                }
                return nil
            }
            previous = entity
            entity = next
        }
        return entity
    }

    /// The range of component `i`, when the path was written without
    /// spaces or escapes; otherwise the whole range.
    func componentRange(_ path: [String], _ i: Int, in range: SourceRange, fromEnd: Bool) -> SourceRange {
        let lengths = path.map { $0.utf8.count }
        let written = lengths.reduce(0, +) + path.count - 1
        let total = range.end.offset - range.start.offset
        guard path.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }), range.start.line == range.end.line,
              fromEnd ? total >= written : total == written else { return range }
        let before = lengths[..<i].reduce(0, +) + i
        let base = fromEnd ? total - written : 0
        var start = range.start
        start.offset += base + before
        start.column += base + before
        var end = start
        end.offset += lengths[i]
        end.column += lengths[i]
        return SourceRange(start: start, end: end)
    }
}
