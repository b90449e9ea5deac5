import Foundation
import ObjectStore
import Predicates

/// Imports CSV (RFC 4180) as new objects of one entity: the header row
/// names attributes (in any case), each further record is one object.
///
/// ```swift
/// let reader = CSVReader(bytes: Array(data))
/// let count = try CSVImporter(context: context).importRecords(from: reader, into: person)
/// ```
///
/// Fields become values of their attribute's type: integers, decimals and
/// doubles as written (`3`, `2.5`, `1e3`, `inf`), Booleans as `true`,
/// `false`, `yes`, `no`, `1` or `0`, dates in the attribute's
/// `dateFormat` or ISO 8601 (`2024-01-31`, `2024-01-31 10:00:00`, as mrq
/// prints them, `2024-01-31T10:00:00Z`), UUIDs and URIs as text, binary
/// data as `x'01ab'` (as mrq prints it) or base64. An empty field is nil.
/// Errors (`CSVImportError`) name the line and the column.
public final class CSVImporter {
    /// The context the new objects go into.
    public let context: ManagedObjectContext
    private var dateFormatters = DateFormatterCache()

    /// An importer into `context`; use it on the context's queue.
    public init(context: ManagedObjectContext) {
        self.context = context
    }

    /// One column: the attribute it fills and how a field converts, or
    /// the to-one relationship it sets.
    private struct Column {
        let name: String
        let attribute: AttributeDescription
        let index: Int
        let dates: DateRule?
        /// For a to-one: its place, its destination, and the columns
        /// standing for the destination's key attributes (see
        /// `KeyAttributes`), with the destinations found so far.
        var toOne: (index: Int, destination: EntityDescription, keys: [Column], found: Box)?

        final class Box {
            var objects: [String: ManagedObject] = [:]
            /// The context's pending destinations by key attribute, read
            /// once per import.
            var pending: [String: [Value: ManagedObject]] = [:]
        }
    }

    /// Reads the header, then every record into a new object of `entity`;
    /// `afterBatch` hears how many records are done (every 1,000 and at
    /// the end) and may throw to stop. Returns how many objects were made.
    @discardableResult
    public func importRecords(from reader: CSVReader, into entity: EntityDescription,
                              afterBatch: (_ done: Int) throws -> Void = { _ in }) throws -> Int {
        guard !entity.isAbstract else {
            let concrete = entity.selfAndDescendants.filter { !$0.isAbstract }.map(\.name)
            throw CSVImportError(line: 1, column: nil,
                                 message: "\(entity.name) is abstract; import into one of: \(concrete.joined(separator: ", "))")
        }
        guard let header = try readRecord(reader) else { return 0 }
        let columns = try self.columns(header, of: entity)
        var count = 0
        while let record = try readRecord(reader) {
            guard record.count == columns.count else {
                throw CSVImportError(line: reader.line, column: nil,
                                     message: "\(record.count) field\(record.count == 1 ? "" : "s"), but the header names \(columns.count) column\(columns.count == 1 ? "" : "s")")
            }
            let object = context.insertObject(of: entity)
            let silently = object.takesValuesSilently
            for (column, field) in zip(columns, record) {
                do {
                    if let toOne = column.toOne {
                        context.setToOne(object, relationshipAt: toOne.index, to: try destination(field, toOne))
                        continue
                    }
                    let value = try Self.value(of: field, column)
                    if silently { object.storeSilently(value, at: column.index) } else { object.setAttributeValue(value, at: column.index) }
                } catch {
                    throw CSVImportError(line: reader.line, column: column.name, message: error.message)
                }
            }
            count += 1
            if count % 1000 == 0 { try afterBatch(count) }
        }
        if count % 1000 != 0 { try afterBatch(count) }
        return count
    }

    private func readRecord(_ reader: CSVReader) throws -> [String]? {
        do {
            return try reader.next()
        } catch let error as CSVSyntaxError {
            throw CSVImportError(line: error.line, column: nil, message: error.message)
        }
    }

    /// The attribute of each header field; every field unknown, or naming
    /// a relationship or an attribute twice, is an error.
    private func columns(_ header: [String], of entity: EntityDescription) throws -> [Column] {
        let attributes = entity.attributes.filter { !$0.isTransient }
        var columns: [Column] = []
        var problems: [String] = []
        for name in header {
            let wanted = name.trimmingCharacters(in: .whitespaces)
            if let relationship = entity.relationships.first(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame }),
               !attributes.contains(where: { $0.name == wanted }) {
                do {
                    columns.append(try toOneColumn(name, relationship, of: entity))
                } catch {
                    problems.append("column \(name): " + error.message)
                }
                continue
            }
            guard let attribute = attributes.first(where: { $0.name == wanted })
                    ?? attributes.first(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame }),
                  let index = entity.attributeSlot(named: attribute.name) else {
                var problem = "column \(name): \(entity.name) has no attribute or to-one relationship '\(wanted)'"
                if let close = Suggestions.closest(to: wanted, in: attributes.map(\.name) + entity.relationships.map(\.name)) {
                    problem += "; did you mean '\(close)'?"
                }
                problems.append(problem)
                continue
            }
            if columns.contains(where: { $0.attribute === attribute && $0.toOne == nil }) {
                problems.append("column \(name): \(attribute.name) has a column already")
                continue
            }
            var dates: DateRule?
            if attribute.type == .date {
                dates = DateRule(format: attribute.userInfo[ImportKey.dateFormat], formatter: formatter, acceptsISO8601: true,
                                 alsoReads: Self.dateForms)
            }
            columns.append(Column(name: name, attribute: attribute, index: index, dates: dates))
        }
        if !problems.isEmpty { throw CSVImportError(line: 1, column: nil, message: problems.joined(separator: "; ")) }
        return columns
    }

    /// A column naming a to-one relationship: its fields are the key
    /// values of the destinations (as mrq shows related objects).
    private func toOneColumn(_ name: String, _ relationship: RelationshipDescription, of entity: EntityDescription) throws(Unfit) -> Column {
        guard relationship.isToOne, !relationship.isTransient, let destination = relationship.destination,
              let index = entity.relationshipSlot(named: relationship.name) else {
            throw Unfit(message: "\(relationship.name) is a to-many relationship; .import sets attributes and to-one relationships")
        }
        let keys = KeyAttributes.names(of: destination, via: relationship).compactMap { key -> Column? in
            guard let attribute = destination.attribute(named: key), let slot = destination.attributeSlot(named: key) else { return nil }
            let dates = attribute.type == .date
                ? DateRule(format: attribute.userInfo[ImportKey.dateFormat], formatter: formatter, acceptsISO8601: true, alsoReads: Self.dateForms) : nil
            return Column(name: key, attribute: attribute, index: slot, dates: dates)
        }
        guard let first = keys.first else {
            throw Unfit(message: "\(destination.name) objects have no key to find them by; give \(destination.name) a '\(ImportKey.relatedByAttribute)' user info entry")
        }
        return Column(name: name, attribute: first.attribute, index: first.index, dates: nil,
                      toOne: (index, destination, keys, Column.Box()))
    }

    /// The object a to-one field names: the first destination whose key
    /// attribute has the field's value, among the context's pending
    /// objects, then the saved ones; nil for an empty field.
    private func destination(_ field: String, _ toOne: (index: Int, destination: EntityDescription, keys: [Column], found: Column.Box)) throws(Unfit) -> ManagedObject? {
        if field.isEmpty { return nil }
        if let known = toOne.found.objects[field] { return known }
        for key in toOne.keys {
            guard let value = try? Self.value(of: field, key) else { continue }
            if toOne.found.pending[key.name] == nil {
                toOne.found.pending[key.name] = context.pendingObjects(of: toOne.destination, where: key.attribute.name)
            }
            var object = toOne.found.pending[key.name]?[value]
            if object == nil {
                do {
                    object = try context.savedObjects(of: toOne.destination, where: key.attribute.name, in: [value])[value]
                } catch {
                    throw Unfit(message: "\(error)")
                }
            }
            if let object {
                toOne.found.objects[field] = object
                return object
            }
        }
        let keys = toOne.keys.map(\.name).joined(separator: " or ")
        throw Unfit(message: "no \(toOne.destination.name) has \(keys) '\(field)'")
    }

    /// The ISO 8601 forms a CSV file has dates in besides the full one:
    /// a day, and a time without a zone (UTC), as mrq prints dates.
    static let dateForms = ["yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm",
                            "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm"].compactMap { FastDateFormat($0) }

    private func formatter(_ format: String) -> DateFormatter {
        dateFormatters.formatter(format)
    }

    /// Why a field does not fit its column.
    private struct Unfit: Error {
        let message: String
    }

    /// The value a field writes for `column`'s attribute.
    private static func value(of field: String, _ column: Column) throws(Unfit) -> Value {
        if field.isEmpty { return .null }
        let type = column.attribute.type
        let text = field.trimmingCharacters(in: .whitespaces)
        func unfit(_ expected: String) -> Unfit {
            let shown = field.count > 40 ? String(field.prefix(37)) + "..." : field
            return Unfit(message: "expected \(expected), found '\(shown)'")
        }
        switch type {
        case .string:
            return .string(field)
        case .integer16, .integer32, .integer64:
            guard let number = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                throw unfit("an integer")
            }
            guard type.integerRange?.contains(number) != false else {
                throw Unfit(message: "\(number) is out of range for \(type.rawValue)")
            }
            return .int(number)
        case .double, .float:
            guard let number = Double(text) else { throw unfit("a number") }
            return .double(number)
        case .decimal:
            guard let number = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                  text.allSatisfy({ "0123456789+-.eE".contains($0) }) else { throw unfit("a decimal number") }
            return .decimal(number)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw unfit("true, false, yes, no, 1 or 0")
            }
        case .date:
            guard let rule = column.dates else { throw unfit("a date") }
            if rule.unixMilliseconds {
                guard let milliseconds = Double(text) else { throw unfit("milliseconds since 1970") }
                return .date(Date(timeIntervalSince1970: milliseconds / 1000))
            }
            guard let date = rule.date(from: text) else {
                let formats = column.attribute.userInfo[ImportKey.dateFormat].map { "'\($0)' or " } ?? ""
                throw unfit("a date (\(formats)ISO 8601: 2024-01-31, 2024-01-31 10:00:00, 2024-01-31T10:00:00Z)")
            }
            return .date(date)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw unfit("a UUID") }
            return .uuid(uuid)
        case .uri:
            guard let url = URL(string: text) else { throw unfit("a URI") }
            return .url(url)
        case .binary, .transformable:
            if let data = hex(text) ?? Data(base64Encoded: text) { return .data(data) }
            throw unfit("binary data as x'01ab' or base64")
        case .objectID, .undefined, .composite:
            throw Unfit(message: "\(type.rawValue) attributes cannot be imported")
        }
    }

    /// `x'01ab'`, as mrq prints binary data.
    private static func hex(_ text: String) -> Data? {
        guard text.count >= 3, text.hasPrefix("x'") || text.hasPrefix("X'"), text.hasSuffix("'") else { return nil }
        let digits = Array(text.utf8.dropFirst(2).dropLast())
        guard digits.count % 2 == 0 else { return nil }
        var data = Data(capacity: digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = hexDigit(digits[i]), let low = hexDigit(digits[i + 1]) else { return nil }
            data.append(high << 4 | low)
            i += 2
        }
        return data
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// The attributes that name an object where it is shown as a related
/// object (the shell's tables and CSV), and where such a name is read
/// back (`CSVImporter`): the `relatedByAttribute` of the relationship,
/// then of the entity and its parents, then `<entity>ID`, `name`, `title`.
public enum KeyAttributes {
    /// The candidates `entity` has, in order.
    ///
    /// ```swift
    /// KeyAttributes.names(of: department)   // ["name"]
    /// ```
    public static func names(of entity: EntityDescription, via relationship: RelationshipDescription? = nil) -> [String] {
        var candidates: [String] = []
        if let name = relationship?.userInfo[ImportKey.relatedByAttribute] { candidates.append(name) }
        var current: EntityDescription? = entity
        while let e = current {
            if let name = e.userInfo[ImportKey.relatedByAttribute] { candidates.append(name) }
            current = e.parent
        }
        candidates += [entity.name.prefix(1).lowercased() + entity.name.dropFirst() + "ID", "name", "title"]
        var seen = Set<String>()
        return candidates.filter { entity.attribute(named: $0) != nil && seen.insert($0).inserted }
    }
}

/// A CSV import that stopped: where (the line, and the column when a
/// field is at fault) and why.
public struct CSVImportError: Error, CustomStringConvertible {
    /// The line in the file (1-based; the header is line 1).
    public let line: Int
    /// The column's name as the header gives it, when a field is at fault.
    public let column: String?
    /// What is wrong: `expected an integer, found 'old'`.
    public let message: String

    /// `line 3: column age: expected an integer, found 'old'`.
    public var description: String {
        "line \(line): " + (column.map { "column \($0): " } ?? "") + message
    }
}
