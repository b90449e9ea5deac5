import Foundation
import ObjectStore
@testable import Shell

/// Random mrq input for the shell fuzz test: statements built from the
/// rules of Grammar/mrq.ebnf with the model's real entity, attribute and
/// relationship names and random values (odd ones included), garbled and
/// mutated versions of them, and dot commands that stay inside a
/// temporary folder.
struct StatementGenerator {
    var random: SplitMix64
    /// The session's model, read again before every statement (an
    /// `entity` statement changes it).
    var model: ManagedObjectModel
    /// Where generated files go: JSON to import, scripts to read, outputs.
    let directory: String
    /// Variables bound so far.
    var variables: [String] = []
    private var nextName = 0

    init(seed: UInt64, model: ManagedObjectModel, directory: String) {
        random = SplitMix64(seed: seed)
        self.model = model
        self.directory = directory
    }

    // MARK: - Choosing

    mutating func chance(_ percent: Int) -> Bool { random.below(100) < percent }

    mutating func pick<T>(_ items: [T]) -> T { items[random.below(items.count)] }

    mutating func fresh(_ prefix: String) -> String {
        nextName += 1
        return "\(prefix)\(nextName)"
    }

    var entities: [EntityDescription] { model.entities.sorted { $0.name < $1.name } }

    mutating func entity() -> EntityDescription? {
        entities.isEmpty ? nil : pick(entities)
    }

    /// An entity name, now and then a wrong or oddly cased one.
    mutating func entityName(_ entity: EntityDescription?) -> String {
        guard let entity, !chance(4) else { return pick(["Nobody", "person", "PERSON", "Persn", "X", "é"]) }
        return entity.name
    }

    // MARK: - Input of every kind

    /// One line (or a few) of input.
    mutating func input() -> String {
        switch random.below(100) {
        case 0..<62: return statement()
        case 62..<74: return dotCommand()
        case 74..<82: return statement() + pick(["; ", ";", "\n"]) + statement()
        case 82..<91: return Self.withoutFileCommands(StatementCorpus.mutated(statement(), &random))
        default: return Self.withoutFileCommands(StatementCorpus.garbled(&random))
        }
    }

    /// Garbled text can make a dot command out of fragments (`.open /…`);
    /// those that name files, open another store or quit become comments,
    /// so that nothing outside the temporary folder is touched.
    static func withoutFileCommands(_ text: String) -> String {
        let safe: Set<String> = ["mode", "headers", "timer", "bail", "schema", "entities", "help"]
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard ScriptSplitter.isDotLine(line) else { return String(line) }
            let name = line.drop { $0 == " " || $0 == "\t" }.dropFirst().prefix { !$0.isWhitespace }.lowercased()
            return safe.contains(name) ? String(line) : "# " + line
        }.joined(separator: "\n")
    }

    /// A statement of the grammar: `statement → query | "first" query | …`.
    mutating func statement() -> String {
        let e = entity()
        let name = entityName(e)
        switch random.below(100) {
        case 0..<12: return query(e, name)
        case 12..<17: return "first " + query(e, name)
        case 17..<24: return "count " + query(e, name)
        case 24..<29: return select(e, name)
        case 29..<34: return aggregate(e, name)
        case 34..<48: return insert(e, name)
        case 48..<57: return update(e, name)
        case 57..<63: return "delete " + query(e, name, sorted: false) + (chance(30) ? " direct" : "")
        case 63..<65: return "truncate \(name)"
        case 65..<69: return "import \(name) from \"\(pick(JSONFiles.names))\""
        case 69..<73: return "save"
        case 73..<77: return "rollback"
        case 77..<82: return pick(["undo", "redo"])
        case 82..<86: return letBinding(e, name)
        case 86..<89: return "explain " + statement()
        case 89..<95: return expression(depth: 0)
        case 95..<97: return entityDeclaration()
        default: return pick(["", "   ", "# a comment", "$" + (variables.isEmpty ? "nothing" : pick(variables))])
        }
    }

    /// `query → entityName [ "where" predicate ] [ "sort" sortKeys ] [ "limit" INTEGER ] [ "offset" INTEGER ]`
    mutating func query(_ e: EntityDescription?, _ name: String, sorted: Bool = true) -> String {
        var text = name
        if chance(70) { text += " where " + predicate(e, depth: 0) }
        if sorted, chance(30) { text += " sort " + sortKeys(e) }
        if sorted, chance(25) { text += " limit " + pick(["0", "1", "3", "2147483647", "99999999999", "-1", "x"]) }
        if sorted, chance(15) { text += " offset " + pick(["0", "2", "2147483647", "-3"]) }
        return text
    }

    mutating func sortKeys(_ e: EntityDescription?) -> String {
        (0..<(1 + random.below(2))).map { _ in keyPath(e, scalar: true) + pick(["", ":YES", ":NO", ":yes"]) }
            .joined(separator: ",")
    }

    /// `select → "select" [ "distinct" ] column { "," column } "from" query`, `column → expression`
    mutating func select(_ e: EntityDescription?, _ name: String) -> String {
        let columns = (0..<(1 + random.below(3))).map { _ in column(e) }
        return "select " + (chance(30) ? "distinct " : "") + columns.joined(separator: ", ") + " from " + query(e, name)
    }

    /// A select column: a key path, a to-many with a collection operator,
    /// or arithmetic.
    mutating func column(_ e: EntityDescription?) -> String {
        switch random.below(10) {
        case 0:
            guard let toMany = e?.relationships.filter(\.isToMany), !toMany.isEmpty else { break }
            let relationship = pick(toMany)
            let operators = ["@count", "@sum.", "@avg.", "@min.", "@max."]
            let op = pick(operators)
            return relationship.name + "." + op + (op == "@count" ? "" : keyPath(relationship.destination, scalar: true, allowRelationships: false))
        case 1: return keyPath(e, scalar: true) + " " + pick(["+", "-", "*", "/"]) + " " + pick(["2", "0", "1.5", keyPath(e, scalar: true)])
        case 2: return pick(["-", ""]) + keyPath(e, scalar: true)
        default: break
        }
        return keyPath(e, scalar: true)
    }

    /// `aggregate → aggregateFunction [ keyPath ] "of" entityName [ "where" predicate ] [ "group" "by" keyPathList ] [ "having" predicate ] …`
    mutating func aggregate(_ e: EntityDescription?, _ name: String) -> String {
        let function = pick(["sum", "min", "max", "avg", "count"])
        var text = function + (function == "count" && chance(60) ? "" : " " + keyPath(e, scalar: true)) + " of " + name
        if chance(50) { text += " where " + predicate(e, depth: 1) }
        if chance(50) {
            text += " group by " + keyPath(e, scalar: true)
            if chance(50) { text += " having \(function) " + pick([">", "<", "=="]) + " " + pick(["1", "0", "100.5", "\"x\""]) }
        }
        if chance(20) { text += " limit " + pick(["1", "5"]) }
        return text
    }

    /// `insert → "insert" entityName "{" [ assignment { ( "," | ";" ) assignment } ] "}"`
    mutating func insert(_ e: EntityDescription?, _ name: String) -> String {
        let assignments = (0..<random.below(5)).map { _ in assignment(e, separator: ": ") }
        return "insert \(name) { " + assignments.joined(separator: pick([", ", "; "])) + " }"
    }

    /// `update → "update" entityName [ "where" predicate ] "set" assignment { "," assignment } [ "direct" ]`
    mutating func update(_ e: EntityDescription?, _ name: String) -> String {
        var text = "update \(name)"
        if chance(70) { text += " where " + predicate(e, depth: 1) }
        let assignments = (0..<(1 + random.below(3))).map { _ in assignment(e, separator: " = ") }
        return text + " set " + assignments.joined(separator: ", ") + (chance(25) ? " direct" : "")
    }

    /// `assignment → IDENTIFIER ( ":" | "=" ) value`, `value → "first" query | query | expression`
    mutating func assignment(_ e: EntityDescription?, separator: String) -> String {
        guard let e, !chance(5) else { return "nokey" + separator + "1" }
        let properties = e.attributes.map(\.name) + e.relationships.map(\.name)
        guard !properties.isEmpty else { return "x" + separator + "1" }
        let key = pick(properties)
        if let relationship = e.relationship(named: key) {
            let destination = relationship.destination
            let other = entity()
            switch random.below(6) {
            case 0: return key + separator + "nil"
            case 1: return key + separator + "first " + query(destination, entityName(destination))
            case 2: return key + separator + query(destination, entityName(destination))
            case 3 where !variables.isEmpty: return key + separator + "$" + pick(variables)
            case 4: return key + separator + "first " + entityName(other)
            default: return key + separator + value(for: nil)
            }
        }
        return key + separator + (chance(85) ? value(for: e.attribute(named: key)?.type) : expression(depth: 1))
    }

    /// `let → "let" IDENTIFIER "=" statement`
    mutating func letBinding(_ e: EntityDescription?, _ name: String) -> String {
        let variable = chance(70) || variables.isEmpty ? pick(["a", "b", "people", "n", "x", "d"]) : pick(variables)
        if !variables.contains(variable) { variables.append(variable) }
        let value = pick([query(e, name), "first " + query(e, name), "count " + query(e, name), aggregate(e, name), expression(depth: 0), "save"])
        return "let \(variable) = \(value)"
    }

    /// `entityDecl → "entity" IDENTIFIER [ ":" entityName ] [ "abstract" ] "{" { propertyDecl … } "}"`: a new entity,
    /// never one that replaces an existing entity.
    mutating func entityDeclaration() -> String {
        let name = fresh("Fuzz")
        var properties = ["label: String" + pick(["", " required", " unique", " = \"x\""]), "n: " + pick(["Int16", "Int64", "Double", "Bool", "Date"]) + pick(["", " = 3", " indexed"])]
        if let other = entity(), chance(50) { properties.append("link: \(other.name)") }
        if chance(10) { properties.append("bad: Nonsense") }
        return "entity \(name) { " + properties.joined(separator: "; ") + " }"
    }

    // MARK: - Predicates and values

    /// A predicate over `e` (Grammar/predicate.ebnf), at most a few deep.
    mutating func predicate(_ e: EntityDescription?, depth: Int) -> String {
        if depth < 2 {
            switch random.below(10) {
            case 0: return "NOT " + predicate(e, depth: depth + 1)
            case 1: return "(" + predicate(e, depth: depth + 1) + " AND " + predicate(e, depth: depth + 1) + ")"
            case 2: return predicate(e, depth: depth + 1) + " OR " + predicate(e, depth: depth + 1)
            default: break
            }
        }
        switch random.below(20) {
        case 0: return pick(["TRUEPREDICATE", "FALSEPREDICATE"])
        case 1: return keyPath(e, scalar: true) + " == nil"
        case 2: return keyPath(e, scalar: true) + " IN {" + (0..<random.below(4)).map { _ in value(for: nil) }.joined(separator: ", ") + "}"
        case 3: return keyPath(e, scalar: true) + " BETWEEN {" + value(for: nil) + ", " + value(for: nil) + "}"
        case 4:
            guard let toMany = e?.relationships.filter(\.isToMany), !toMany.isEmpty else { break }
            let relationship = pick(toMany)
            let inner = relationship.destination
            switch random.below(3) {
            case 0: return "\(relationship.name).@count " + comparison() + " " + pick(["0", "1", "2"])
            case 1: return pick(["ANY ", "ALL ", "NONE "]) + relationship.name + "." + keyPath(inner, scalar: true, allowRelationships: false) + " " + comparison() + " " + value(for: nil)
            default: return "SUBQUERY(\(relationship.name), $s, $s.\(keyPath(inner, scalar: true, allowRelationships: false)) != nil).@count > 0"
            }
        case 5: return keyPath(e, scalar: true) + " " + pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"]) + pick(["", "[c]", "[cd]", "[n]"]) + " " + pick(["\"A\"", "\"a*\"", "\"(\"", "\"[\"", "\".*\"", "\"é\"", "\"\"", "1"])
        default: break
        }
        let path = keyPath(e, scalar: true)
        let attribute = e.flatMap { attributeType(at: path, from: $0) }
        let right = chance(80) ? value(for: attribute) : expression(depth: 1)
        return path + " " + comparison() + " " + right
    }

    mutating func comparison() -> String {
        pick(["==", "!=", "<", "<=", ">", ">=", "=", "<>", "=<", "=>"])
    }

    /// A key path of `e`: an attribute, through a to-one now and then,
    /// and once in a while a key that does not exist.
    mutating func keyPath(_ e: EntityDescription?, scalar: Bool, allowRelationships: Bool = true) -> String {
        guard let e, !chance(4) else { return pick(["nokey", "age.x", "department.nokey", "#age", "SELF"]) }
        let toOne = e.relationships.filter(\.isToOne)
        if allowRelationships, !toOne.isEmpty, chance(25) {
            let relationship = pick(toOne)
            if let destination = relationship.destination, !destination.attributes.isEmpty {
                return relationship.name + "." + pick(destination.attributes).name
            }
            return relationship.name
        }
        if e.attributes.isEmpty { return "nokey" }
        return pick(e.attributes).name
    }

    func attributeType(at path: String, from e: EntityDescription) -> AttributeType? {
        var current = e
        let parts = path.split(separator: ".").map(String.init)
        for part in parts.dropLast() {
            guard let next = current.relationship(named: part)?.destination else { return nil }
            current = next
        }
        return parts.last.flatMap { current.attribute(named: $0)?.type }
    }

    /// A literal for an attribute of `type` (any type when nil), odd
    /// values included: limits, overflow, escapes, bad dates.
    mutating func value(for type: AttributeType?) -> String {
        if chance(8) { return pick(["nil", "NULL"]) }
        if !variables.isEmpty, chance(5) { return "$" + pick(variables) }
        switch type {
        case .integer16?, .integer32?, .integer64?:
            return pick(["0", "1", "-1", "17", "36", "32767", "32768", "-32769", "2147483648", "9223372036854775807",
                         "99999999999999999999", "0x7F", "0b101", "1e3", "3.5", "\"12\"", "YES"])
        case .double?, .float?, .decimal?:
            return pick(["0", "0.1", "-0.0", "1e308", "1e-300", "50000", "3.14159", "1e999", "\"x\""])
        case .boolean?:
            return pick(["YES", "NO", "TRUE", "FALSE", "1", "0", "\"yes\""])
        case .date?:
            return pick(["@2024-01-31", "@1970-01-01T00:00:00Z", "now()", "@0001-01-01", "@9999-12-31",
                         "CAST(1e300, \"NSDate\")", "CAST(-1e20, \"NSDate\")", "CAST(700000000, \"NSDate\")", "@2024-13-45"])
        case .string?:
            return pick(["\"\"", "\"Ada\"", "\"O'Brien\"", "\"say \\\"hi\\\"\"", "\"back\\\\slash\"", "'single'",
                         "\"é日本🎉\"", "\"\\u00e9\"", "\"tab\\there\"", "\"" + String(repeating: "long ", count: 40) + "\"", "42"])
        default:
            let types: [AttributeType] = [.integer64, .double, .string, .boolean, .date]
            return value(for: pick(types))
        }
    }

    /// An expression: arithmetic, functions, aggregates of literals.
    mutating func expression(depth: Int) -> String {
        if depth > 2 { return value(for: nil) }
        switch random.below(12) {
        case 0: return expression(depth: depth + 1) + " " + pick(["+", "-", "*", "/", "**"]) + " " + expression(depth: depth + 1)
        case 1: return "-" + expression(depth: depth + 1)
        case 2: return "(" + expression(depth: depth + 1) + ")"
        case 3: return pick(["now()", "sum({1, 2})", "count({})", "average:({})", "sqrt:(-1)", "abs:(-9223372036854775807 - 1)",
                             "FUNCTION(\"a\", 'lastPathComponent')", "FUNCTION(\"a\", 'nope')", "{1, 2, 3}[99]", "{}[LAST]",
                             "9223372036854775807 + 1", "(-9223372036854775807 - 1) / -1", "1 / 0", "5 % 0", "2 ** 1000"])
        case 4: return "{" + (0..<random.below(4)).map { _ in expression(depth: depth + 1) }.joined(separator: ", ") + "}"
        case 5: return pick(["age + 1", "salary * 1.1", "age * 1000", "FirstName", "department.name", "budget / 0"])
        default: return value(for: nil)
        }
    }

    // MARK: - Dot commands

    /// A dot command that touches no file outside `directory` and does
    /// not quit.
    mutating func dotCommand() -> String {
        switch random.below(13) {
        case 0: return ".mode " + pick(["table", "line", "json", "csv", "xml", ""])
        case 1: return ".headers " + pick(["on", "off", "maybe"])
        case 2: return ".bail " + pick(["on", "off"])
        case 3: return ".schema" + (chance(50) ? " " + entityName(entity()) : "")
        case 4: return ".entities"
        case 5: return ".help" + (chance(60) ? " " + pick(Help.topics + ["nothing"]) : "")
        case 6: return ".output " + (chance(50) ? "\"\(directory)/out \(random.below(3)).txt\"" : "")
        case 7: return ".output"
        case 8: return ".read \"\(directory)/\(pick(["script.mrq", "missing.mrq", "self.mrq", "people.json"]))\""
        case 9: return ".save-as \"\(directory)/\(fresh("copy")).\(pick(["sqlite", "xml", "db"]))\"" + (chance(30) ? " " + pick(["xml", "sqlite", "memory"]) : "")
        case 10: return ".timer " + pick(["on", "off"])
        case 11: return "." + pick(["nope", "mod", "schemas", "Help"])
        default: return ".entities"
        }
    }

    /// Writes the files the statements name: JSON to import, a script to
    /// read, and a script that reads itself.
    mutating func writeFiles() throws {
        for (name, contents) in JSONFiles.contents {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        var script = ""
        for _ in 0..<6 { script += statement() + "\n" }
        try Data(script.utf8).write(to: URL(fileURLWithPath: directory + "/script.mrq"))
        try Data(".read self.mrq\n".utf8).write(to: URL(fileURLWithPath: directory + "/self.mrq"))
        try FileManager.default.createDirectory(atPath: directory + "/adir.json", withIntermediateDirectories: true)
    }

    /// JSON files for `import`: good, odd and broken.
    enum JSONFiles {
        static let contents: [(String, String)] = [
            ("people.json", #"[{"id": 900001, "first_name": "Zoe", "age": 30, "department": {"name": "Fuzz"}}, {"id": 900002, "first_name": "Yan"}]"#),
            ("one.json", #"{"id": 900003, "first_name": "One", "age": 99999}"#),
            ("empty.json", "[]"),
            ("broken.json", #"[{"id": 1,"#),
            ("odd.json", #"[1, "two", null, {"id": "x"}, {"id": 1e400}, [[]]]"#),
            ("binary.json", "\u{0}\u{1}\u{2}"),
        ]
        static let names = contents.map(\.0) + ["missing.json", "adir.json"]
    }
}
