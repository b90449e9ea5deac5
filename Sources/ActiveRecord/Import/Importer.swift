import Foundation
import ObjectStore
import Predicates

/// Imports JSON into a context the way MagicalRecord does, driven by the
/// model's `userInfo`, with one uniquing query per batch instead of one per
/// row.
///
/// ```swift
/// let importer = Importer(context: context)
/// let people = try importer.importArray(json, into: personEntity)
/// ```
///
/// Rules: a property reads the JSON key named by its `mappedKeyName` (a
/// dotted key path) or else its own name, falling back to
/// `mappedKeyName.1` … `.9`. An entity's objects are unique by its
/// `relatedByAttribute` (default `<entity>ID`, first letter lowercased):
/// existing objects are updated, duplicates inside one import become one
/// object. A key that is absent leaves the property alone (or sets the
/// default with `useDefaultValueWhenNotPresent`); JSON null sets nil, and
/// empties a to-many.
public final class Importer {
    public let context: ManagedObjectContext
    public var options: ImportOptions
    private var dateFormatters: [String: DateFormatter] = [:]
    private var candidateCache: [ObjectIdentifier: [(key: String, path: [String])]] = [:]
    /// Objects found or made during this import, by entity and key value.
    private var known: [String: [Value: ManagedObject]] = [:]
    /// Key values the current batch's prefetch already asked for: one not
    /// in `known` is new, with no need to ask again.
    private var prefetched: [String: Set<Value>] = [:]

    private func cacheKey(_ entity: EntityDescription, _ attribute: AttributeDescription) -> String {
        entity.name + "." + attribute.name
    }

    public init(context: ManagedObjectContext, options: ImportOptions = ImportOptions()) {
        self.context = context
        self.options = options
    }

    // MARK: - Entry points

    /// Imports an array of objects (or bare key values) into `entity`.
    @discardableResult
    public func importArray(_ json: JSON, into entity: EntityDescription) throws -> [ManagedObject] {
        guard case .array(let items) = json else {
            if case .object = json { return try importObject(json, into: entity).map { [$0] } ?? [] }
            throw ImportError(message: "expected an array of objects, found \(json.kindName)", path: "$")
        }
        var result: [ManagedObject] = []
        result.reserveCapacity(items.count)
        let batchSize = max(1, options.batchSize)
        for start in stride(from: 0, to: items.count, by: batchSize) {
            let batch = items[start..<min(start + batchSize, items.count)]
            try prefetch(Array(batch), entity: entity)
            for (offset, item) in batch.enumerated() {
                if let object = try importOne(item, into: entity, via: nil, path: "$[\(start + offset)]") {
                    result.append(object)
                }
            }
            options.progress?(min(start + batchSize, items.count), items.count)
        }
        return result
    }

    /// Imports one object into `entity`; nil when its hook declined it.
    @discardableResult
    public func importObject(_ json: JSON, into entity: EntityDescription) throws -> ManagedObject? {
        try prefetch([json], entity: entity)
        return try importOne(json, into: entity, via: nil, path: "$")
    }

    // MARK: - Uniquing

    /// The attribute that identifies objects of `entity` in imported data.
    func primaryAttribute(of entity: EntityDescription, via relationship: RelationshipDescription? = nil) -> AttributeDescription? {
        if let name = relationship?.userInfo[ImportKey.relatedByAttribute], let attribute = entity.attribute(named: name) {
            return attribute
        }
        var current: EntityDescription? = entity
        while let e = current {
            if let name = e.userInfo[ImportKey.relatedByAttribute] { return entity.attribute(named: name) }
            current = e.parent
        }
        let first = entity.name.prefix(1).lowercased()
        return entity.attribute(named: first + entity.name.dropFirst() + "ID")
    }

    /// Loads, in one query per entity, the existing objects a batch names:
    /// the top-level objects and the destinations of their relationships.
    private func prefetch(_ items: [JSON], entity: EntityDescription) throws {
        prefetched.removeAll(keepingCapacity: true)
        var wanted: [String: (EntityDescription, AttributeDescription, Set<Value>)] = [:]
        func want(_ entity: EntityDescription, _ attribute: AttributeDescription, _ value: Value) {
            guard !value.isNull else { return }
            let key = cacheKey(entity, attribute)
            if known[key]?[value] != nil { return }
            wanted[key, default: (entity, attribute, [])].2.insert(value)
        }
        for item in items {
            if let primary = primaryAttribute(of: entity), let value = try? keyValue(of: item, entity: entity, attribute: primary, path: "$") {
                want(entity, primary, value)
            }
            guard case .object = item else { continue }
            for relationship in entity.relationships {
                guard let destination = relationship.destination,
                      let related = lookup(item, property: relationship)?.json else { continue }
                let concrete = destination
                guard let primary = primaryAttribute(of: concrete, via: relationship) else { continue }
                let elements: [JSON]
                if case .array(let array) = related { elements = array } else { elements = [related] }
                for element in elements {
                    if let value = try? keyValue(of: element, entity: concrete, attribute: primary, path: "$") {
                        want(concrete, primary, value)
                    }
                }
            }
        }
        for (key, (entity, attribute, values)) in wanted {
            let found = try context.objects(of: entity, where: attribute.name, in: Array(values))
            known[key, default: [:]].merge(found) { a, _ in a }
            prefetched[key] = values
        }
    }

    /// The identifying value of one item: a bare value is the key itself.
    private func keyValue(of item: JSON, entity: EntityDescription, attribute: AttributeDescription, path: String) throws -> Value? {
        switch item {
        case .object:
            guard let found = lookup(item, property: attribute) else { return nil }
            return try convert(found.json, for: attribute, path: path + "." + found.key)
        case .array, .null:
            return nil
        default:
            return try convert(item, for: attribute, path: path)
        }
    }

    private func findOrCreate(_ entity: EntityDescription, key: Value?, primary: AttributeDescription?, path: String) throws -> (ManagedObject, isNew: Bool) {
        if let key, !key.isNull, let primary {
            let cacheKey = self.cacheKey(entity, primary)
            if let object = known[cacheKey]?[key] { return (object, false) }
            // Not prefetched (a nested level): ask once.
            if prefetched[cacheKey]?.contains(key) != true,
               let object = try context.objects(of: entity, where: primary.name, in: [key])[key] {
                known[cacheKey, default: [:]][key] = object
                return (object, false)
            }
            let object = try create(entity, path: path)
            object.setAttributeValue(key, forKey: primary.name)
            known[cacheKey, default: [:]][key] = object
            return (object, true)
        }
        return (try create(entity, path: path), true)
    }

    private func create(_ entity: EntityDescription, path: String) throws -> ManagedObject {
        guard !entity.isAbstract else {
            let concrete = entity.selfAndDescendants.filter { !$0.isAbstract }.map(\.name)
            throw ImportError(
                message: "cannot create an object of abstract entity \(entity.name); add a key '\(entity.userInfo[ImportKey.entityKey] ?? "entity")' naming one of: \(concrete.joined(separator: ", "))",
                path: path)
        }
        return context.insertObject(forEntityName: entity.name)
    }

    /// For an abstract (or parent) destination, the sub-entity the data names.
    private func concreteEntity(_ entity: EntityDescription, for item: JSON, path: String) throws -> EntityDescription {
        guard entity.subentities.count > 0, case .object(let members) = item else { return entity }
        let key = entity.userInfo[ImportKey.entityKey] ?? "entity"
        guard let named = members[key] else { return entity }
        guard case .string(let name) = named, let sub = entity.selfAndDescendants.first(where: { $0.name == name }) else {
            throw ImportError(message: "'\(key)' must name \(entity.name) or one of its sub-entities", path: path + "." + key)
        }
        return sub
    }

    // MARK: - One object

    /// Imports one object, or finds the one a bare key value names; nil
    /// for null or when a hook declined the data.
    private func importOne(_ item: JSON, into declared: EntityDescription, via relationship: RelationshipDescription?,
                           path: String) throws -> ManagedObject? {
        if item.isNull { return nil }
        let entity = try concreteEntity(declared, for: item, path: path)
        let primary = primaryAttribute(of: entity, via: relationship)
        guard case .object = item else {
            if case .array = item {
                throw ImportError(message: "expected an object or a key value, found an array", path: path)
            }
            guard let primary else {
                throw ImportError(message: "a bare value needs '\(ImportKey.relatedByAttribute)' on \(relationship?.name ?? entity.name) or an attribute '\(entity.name.prefix(1).lowercased() + entity.name.dropFirst())ID'", path: path)
            }
            let key = try convert(item, for: primary, path: path)
            return try findOrCreate(entity, key: key, primary: primary, path: path).0
        }
        let key = try primary.flatMap { try keyValue(of: item, entity: entity, attribute: $0, path: path) }
        let (object, isNew) = try findOrCreate(entity, key: key, primary: primary, path: path)
        let hooks = object as? ImportHooks
        if let hooks, !hooks.shouldImport(item) {
            if isNew {
                if let key, let primary { known[cacheKey(entity, primary)]?[key] = nil }
                context.delete(object)
            }
            return nil
        }
        hooks?.willImport(item)
        try importAttributes(item, into: object, path: path)
        try importRelationships(item, into: object, path: path)
        hooks?.didImport(item)
        return object
    }

    private func importAttributes(_ item: JSON, into object: ManagedObject, path: String) throws {
        let hooks = object as? ImportHooks
        for attribute in object.entity.attributes {
            guard let found = lookup(item, property: attribute) else {
                if attribute.userInfo[ImportKey.useDefaultValueWhenNotPresent]?.isTrue == true {
                    object.setAttributeValue(attribute.defaultValue, forKey: attribute.name)
                }
                continue
            }
            if hooks?.importValue(found.json, forKey: attribute.name) == true { continue }
            let value = try convert(found.json, for: attribute, path: path + "." + found.key)
            object.setAttributeValue(value, forKey: attribute.name)
        }
    }

    private func importRelationships(_ item: JSON, into object: ManagedObject, path: String) throws {
        let hooks = object as? ImportHooks
        for relationship in object.entity.relationships {
            guard let found = lookup(item, property: relationship), let destination = relationship.destination else { continue }
            if hooks?.importValue(found.json, forKey: relationship.name) == true { continue }
            let here = path + "." + found.key
            if relationship.isToOne {
                if found.json.isNull {
                    object.setObject(nil, forKey: relationship.name)
                    continue
                }
                if case .array = found.json {
                    throw ImportError(message: "expected an object or a key value for to-one '\(relationship.name)', found an array", path: here)
                }
                let related = try importOne(found.json, into: destination, via: relationship, path: here)
                object.setObject(related, forKey: relationship.name)
            } else {
                let elements: [JSON]
                switch found.json {
                case .null: elements = []
                case .array(let array): elements = array
                default: elements = [found.json]
                }
                var related: [ManagedObject] = []
                for (n, element) in elements.enumerated() {
                    if let object = try importOne(element, into: destination, via: relationship, path: here + "[\(n)]") {
                        related.append(object)
                    }
                }
                if found.json.isNull || options.toManyMode == .replacing {
                    object.setObjects(related, forKey: relationship.name)
                } else {
                    for destinationObject in related { object.add(destinationObject, toKey: relationship.name) }
                }
            }
        }
    }

    // MARK: - Keys

    /// The JSON value for a property: its `mappedKeyName` (a key path), or
    /// its name, then `mappedKeyName.1` … `.9`.
    func lookup(_ item: JSON, property: PropertyDescription) -> (key: String, json: JSON)? {
        guard case .object(let members) = item else { return nil }
        for candidate in keyCandidates(property) {
            if candidate.path.count == 1 {
                if let value = members[candidate.key] { return (candidate.key, value) }
            } else if let value = item.value(atPath: candidate.path) {
                return (candidate.key, value)
            }
            if options.normalizesKeys, let (found, value) = normalizedLookup(item, keyPath: candidate.key) { return (found, value) }
        }
        return nil
    }

    /// The JSON keys a property reads, in order, split once per import.
    private func keyCandidates(_ property: PropertyDescription) -> [(key: String, path: [String])] {
        let id = ObjectIdentifier(property)
        if let cached = candidateCache[id] { return cached }
        var keys = [property.userInfo[ImportKey.mappedKeyName] ?? property.name]
        for n in 1...9 {
            if let key = property.userInfo["\(ImportKey.mappedKeyName).\(n)"] { keys.append(key) }
        }
        let candidates = keys.map { ($0, $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init)) }
        candidateCache[id] = candidates
        return candidates
    }

    private func normalizedLookup(_ item: JSON, keyPath: String) -> (String, JSON)? {
        var current = item
        var used: [String] = []
        for part in keyPath.split(separator: ".") {
            guard case .object(let members) = current else { return nil }
            let wanted = Self.normalize(String(part))
            guard let match = members.first(where: { Self.normalize($0.key) == wanted }) else { return nil }
            used.append(match.key)
            current = match.value
        }
        return (used.joined(separator: "."), current)
    }

    static func normalize(_ key: String) -> String {
        String(key.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
    }

    // MARK: - Values

    /// Converts a JSON value to an attribute's type, as MagicalRecord does:
    /// numbers and strings into each other, `"true"` into a Boolean, dates
    /// by the attribute's `dateFormat`.
    func convert(_ json: JSON, for attribute: AttributeDescription, path: String) throws -> Value {
        if json.isNull { return .null }
        func bad(_ what: String) -> ImportError {
            ImportError(message: "cannot import \(json.kindName) \(json.shortText) into \(attribute.type.rawValue) attribute '\(attribute.name)'\(what)", path: path)
        }
        switch attribute.type {
        case .string:
            switch json {
            case .string(let s): return .string(s)
            case .int(let i): return .string(String(i))
            case .double(let d): return .string(d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d))
            case .bool(let b): return .string(b ? "true" : "false")
            default: throw bad("")
            }
        case .integer16, .integer32, .integer64:
            let n: Int64
            switch json {
            case .int(let i): n = i
            case .double(let d) where d.isFinite && abs(d) < 9.2e18: n = Int64(d.rounded(.towardZero))
            case .bool(let b): n = b ? 1 : 0
            case .string(let s):
                let trimmed = s.trimmingCharacters(in: .whitespaces)
                if let i = Int64(trimmed) { n = i } else if let d = Double(trimmed), d.isFinite, abs(d) < 9.2e18 { n = Int64(d.rounded(.towardZero)) } else { throw bad(": not a number") }
            default: throw bad("")
            }
            let range: ClosedRange<Int64> = attribute.type == .integer16 ? Int64(Int16.min)...Int64(Int16.max)
                : attribute.type == .integer32 ? Int64(Int32.min)...Int64(Int32.max) : Int64.min...Int64.max
            guard range.contains(n) else { throw bad(": out of range") }
            return .int(n)
        case .double, .float:
            switch json {
            case .int(let i): return .double(Double(i))
            case .double(let d): return .double(d)
            case .bool(let b): return .double(b ? 1 : 0)
            case .string(let s): if let d = Double(s.trimmingCharacters(in: .whitespaces)) { return .double(d) }; throw bad(": not a number")
            default: throw bad("")
            }
        case .decimal:
            switch json {
            case .int(let i): return .decimal(Decimal(i))
            case .double(let d): return .decimal(Decimal(string: String(d)) ?? Decimal(d))
            case .string(let s): if let d = Decimal(string: s.trimmingCharacters(in: .whitespaces)) { return .decimal(d) }; throw bad(": not a number")
            default: throw bad("")
            }
        case .boolean:
            switch json {
            case .bool(let b): return .bool(b)
            case .int(let i): return .bool(i != 0)
            case .double(let d): return .bool(d != 0)
            case .string(let s):
                switch s.trimmingCharacters(in: .whitespaces).lowercased() {
                case "true", "yes", "y", "1": return .bool(true)
                case "false", "no", "n", "0", "": return .bool(false)
                default: throw bad(": expected true or false")
                }
            default: throw bad("")
            }
        case .date:
            return try convertDate(json, attribute: attribute, bad: bad)
        case .uuid:
            guard case .string(let s) = json, let uuid = UUID(uuidString: s) else { throw bad(": not a UUID") }
            return .uuid(uuid)
        case .uri:
            guard case .string(let s) = json, let url = URL(string: s) else { throw bad(": not a URI") }
            return .url(url)
        case .binary:
            guard case .string(let s) = json, let data = Data(base64Encoded: s) else { throw bad(": expected base64 text") }
            return .data(data)
        case .transformable, .objectID:
            return .data(Data(json.serialized.utf8))
        }
    }

    private func convertDate(_ json: JSON, attribute: AttributeDescription, bad: (String) -> ImportError) throws -> Value {
        let format = attribute.userInfo[ImportKey.dateFormat] ?? ImportKey.defaultDateFormat
        let unixMilliseconds = format == ImportKey.unixTime
        switch json {
        case .int(let i):
            return .date(Date(timeIntervalSince1970: unixMilliseconds ? Double(i) / 1000 : Double(i)))
        case .double(let d):
            return .date(Date(timeIntervalSince1970: unixMilliseconds ? d / 1000 : d))
        case .string(let s):
            if unixMilliseconds {
                guard let n = Double(s) else { throw bad(": expected milliseconds since 1970") }
                return .date(Date(timeIntervalSince1970: n / 1000))
            }
            if let date = formatter(format).date(from: s) { return .date(date) }
            if format == ImportKey.defaultDateFormat, let date = Self.iso8601(s) { return .date(date) }
            throw bad(": does not match date format '\(format)'")
        default:
            throw bad("")
        }
    }

    private static func iso8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    private func formatter(_ format: String) -> DateFormatter {
        if let formatter = dateFormatters[format] { return formatter }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        dateFormatters[format] = formatter
        return formatter
    }
}

extension String {
    var isTrue: Bool {
        ["yes", "true", "1", "y"].contains(lowercased())
    }
}

extension JSON {
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    var shortText: String {
        let text = serialized
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }

    /// Compact JSON text.
    public var serialized: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? "\(d)" : "null"
        case .string(let s): return JSON.quote(s)
        case .array(let a): return "[" + a.map(\.serialized).joined(separator: ",") + "]"
        case .object(let o):
            return "{" + o.sorted { $0.key < $1.key }.map { JSON.quote($0.key) + ":" + $0.value.serialized }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
