import Foundation
import ObjectStore
import Predicates
import Shell

/// The `store` target's input: a Core Data store described in a few lines
/// of text, built as a SQLite file and opened as the shell opens a store
/// given no model. Seeds are small text files (Fuzz/store); libFuzzer's
/// mutations of them reach every table, column and value.
///
/// One directive a line, words separated by spaces; anything unknown is
/// skipped, so that every mutation still describes a store:
///
///     E Person                 an entity (a root)
///     E Employee Person        a sub-entity of Person
///     E Shape - abstract       an abstract root
///     A Person name string     an attribute: i16 i32 i64 bool double
///                              float date string decimal uuid uri binary
///                              transformable, `ext` after it for
///                              external storage
///     R Person boss Person     a to-one; `many` after it for a to-many,
///                              `inverse NAME`, `ordered`
///     W ZPERSON 1 2 1 'Ann' 7  a row of a table, its values in column
///                              order (Z_PK, Z_ENT, Z_OPT, then the
///                              model's columns); missing ones are NULL
///     P Person 9               Z_PRIMARYKEY numbers Person 9
///     K ZPERSON                the table without its primary key
///                              (repeated keys possible)
///     X ZPERSON                the table dropped
///     N                        no model cache
///     F name 'bytes'           a file in _EXTERNAL_DATA
///     L name                   a link in _EXTERNAL_DATA to a file
///                              outside the store's folder
///     S                        the _EXTERNAL_DATA folder is a link
///     Q count Person           a statement to run (not a dot command,
///                              not an import)
///
/// Values: `n` (NULL), an integer, a real, `'text'` (up to the next `'`;
/// `\n`, `\e`, `\0`, `\\` and `\'` escaped), `x0A1B` (a blob), `@name`
/// (an external data reference: byte 2, the name, NUL), `#name` (an
/// inline external value: byte 1, the bytes), `s1000` (that many `x`, at
/// most 100,000).
struct StoreInput {
    struct Entity {
        var name: String
        var parent: String?
        var isAbstract = false
    }

    struct Attribute {
        var entity: String
        var name: String
        var type: AttributeType
        var external: Bool
    }

    struct Relationship {
        var entity: String
        var name: String
        var destination: String
        var toMany: Bool
        var inverse: String?
        var ordered: Bool
    }

    var entities: [Entity] = []
    var attributes: [Attribute] = []
    var relationships: [Relationship] = []
    var rows: [(table: String, values: [Value])] = []
    var numbers: [(entity: String, number: Int64)] = []
    var keyless: [String] = []
    var dropped: [String] = []
    var noCache = false
    var files: [(name: String, bytes: Data)] = []
    var links: [String] = []
    var linkedFolder = false
    var statements: [String] = []

    /// Bounds on what one input may ask for, so that an input is quick.
    static let maximumEntities = 40
    static let maximumProperties = 200
    static let maximumRows = 300
    static let maximumText = 100_000

    static let types: [String: AttributeType] = [
        "i16": .integer16, "i32": .integer32, "i64": .integer64, "bool": .boolean, "double": .double,
        "float": .float, "date": .date, "string": .string, "decimal": .decimal, "uuid": .uuid, "uri": .uri,
        "binary": .binary, "transformable": .transformable,
    ]

    init(_ text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            let words = Self.words(line)
            guard let directive = words.first else { continue }
            let rest = Array(words.dropFirst())
            switch directive {
            case "E" where rest.count >= 1 && entities.count < Self.maximumEntities:
                let parent = rest.count > 1 && rest[1] != "-" ? rest[1] : nil
                entities.append(Entity(name: rest[0], parent: parent, isAbstract: rest.contains("abstract")))
            case "A" where rest.count >= 3 && attributes.count + relationships.count < Self.maximumProperties:
                guard let type = Self.types[rest[2]] else { continue }
                attributes.append(Attribute(entity: rest[0], name: rest[1], type: type, external: rest.contains("ext")))
            case "R" where rest.count >= 3 && attributes.count + relationships.count < Self.maximumProperties:
                let inverse = rest.firstIndex(of: "inverse").flatMap { $0 + 1 < rest.count ? rest[$0 + 1] : nil }
                relationships.append(Relationship(entity: rest[0], name: rest[1], destination: rest[2], toMany: rest.contains("many"),
                                                  inverse: inverse, ordered: rest.contains("ordered")))
            case "W" where rest.count >= 1 && rows.count < Self.maximumRows:
                rows.append((rest[0], rest.dropFirst().prefix(200).map(Self.value)))
            case "P" where rest.count >= 2:
                if let number = Int64(rest[1]) { numbers.append((rest[0], number)) }
            case "K" where rest.count >= 1: keyless.append(rest[0])
            case "X" where rest.count >= 1: dropped.append(rest[0])
            case "N": noCache = true
            case "F" where rest.count >= 1:
                if case .string(let text) = rest.count > 1 ? Self.value(rest[1]) : .null {
                    files.append((rest[0], Data(text.utf8)))
                } else {
                    files.append((rest[0], Data()))
                }
            case "L" where rest.count >= 1: links.append(rest[0])
            case "S": linkedFolder = true
            case "Q":
                let statement = line.drop { $0 != "Q" }.dropFirst().trimmingCharacters(in: .whitespaces)
                // Dot commands and imports name files: never run them here.
                if !statement.hasPrefix("."), statement.range(of: "import", options: .caseInsensitive) == nil,
                   !statement.contains("\n"), statements.count < 20 {
                    statements.append(String(statement))
                }
            default: continue
            }
        }
    }

    /// The line's words; a quoted text is one word, quotes and all.
    static func words(_ line: Substring) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in line {
            if quoted {
                current.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "'" { quoted = false }
            } else if character == " " || character == "\t" {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                if character == "'" { quoted = true }
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static func value(_ word: String) -> Value {
        if word == "n" { return .null }
        if let n = Int64(word) { return .int(n) }
        if let d = Double(word), word.contains(where: { $0 == "." || $0 == "e" }) { return .double(d) }
        if word.hasPrefix("'") {
            var text = ""
            var escaped = false
            for character in word.dropFirst() {
                if escaped {
                    switch character {
                    case "n": text.append("\n")
                    case "e": text.append("\u{1b}")
                    case "0": text.append("\u{0}")
                    default: text.append(character)
                    }
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "'" {
                    break
                } else {
                    text.append(character)
                }
            }
            return .string(text)
        }
        if word.hasPrefix("x") {
            var bytes: [UInt8] = []
            var digits = word.dropFirst()
            while digits.count >= 2, let byte = UInt8(digits.prefix(2), radix: 16) {
                bytes.append(byte)
                digits = digits.dropFirst(2)
            }
            return .data(Data(bytes))
        }
        if word.hasPrefix("@") { return .data(Data([2]) + Data(word.dropFirst().utf8) + Data([0])) }
        if word.hasPrefix("#") { return .data(Data([1]) + Data(word.dropFirst().utf8)) }
        if word.hasPrefix("s"), let count = Int(word.dropFirst()), count >= 0 {
            return .string(String(repeating: "x", count: min(count, maximumText)))
        }
        return .string(word)
    }

    /// The model the lines describe; nil when it does not resolve.
    func model() -> ManagedObjectModel? {
        var byName: [String: EntityDescription] = [:]
        var order: [EntityDescription] = []
        for spec in entities where byName[spec.name] == nil {
            let entity = EntityDescription(name: spec.name, isAbstract: spec.isAbstract, parent: spec.parent)
            byName[spec.name] = entity
            order.append(entity)
        }
        for spec in attributes {
            guard let entity = byName[spec.entity] else { continue }
            let attribute = AttributeDescription(name: spec.name, type: spec.type)
            attribute.allowsExternalBinaryDataStorage = spec.external && spec.type == .binary
            entity.add(attribute)
        }
        for spec in relationships {
            guard let entity = byName[spec.entity] else { continue }
            entity.add(RelationshipDescription(name: spec.name, destination: spec.destination, inverse: spec.inverse,
                                               isToMany: spec.toMany, isOrdered: spec.ordered && spec.toMany))
        }
        return try? ManagedObjectModel(entities: order)
    }
}
