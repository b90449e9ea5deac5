import Foundation
import Predicates

/// Apple's XML store format, the file macOS Core Data writes for an
/// `NSXMLStoreType` store (see "Apple's XML store format" in
/// `Grammar/xml-store.md`): writing a whole graph. Reading is in
/// `AppleXMLStoreReader.swift`.
///
/// ```xml
/// <database>
///     <databaseInfo>
///         <version>134481920</version>
///         <UUID>…</UUID>
///         <nextObjectID>103</nextObjectID>
///         <metadata><plist version="1.0">…</plist></metadata>
///     </databaseInfo>
///     <object type="PERSON" id="z102">
///         <attribute name="firstname" type="string">Ada</attribute>
///         <relationship name="department" type="0/1" destination="DEPARTMENT" idrefs="z103"></relationship>
///     </object>
/// </database>
/// ```
enum AppleXMLStoreDocument {
    /// `<version>`: the same number in every file studied, from Mac OS X
    /// 10.4's to Xcode 15's.
    static let storeVersion = "134481920"
    /// The first object of a new store is `z102`, as in Apple's files:
    /// `<nextObjectID>` holds the highest number given so far.
    static let firstObjectNumber: Int64 = 102

    /// What a file holds besides its objects.
    struct Header {
        /// `<UUID>`: the store's identifier.
        var identifier: String
        /// `<metadata>`'s property list; nil when the element is empty.
        var metadata: [String: Any]?
    }

    /// The metadata of a new store made with `model`: the keys Core Data
    /// writes into an XML store's `<metadata>` (the version hashes by
    /// entity, their digest and identifiers; no store type, no SQLite
    /// vacuum level).
    static func metadata(for model: ManagedObjectModel) -> [String: Any] {
        var metadata = CoreDataMetadata.plist(for: model)
        metadata["NSStoreType"] = nil
        metadata["_NSAutoVacuumLevel"] = nil
        return metadata
    }

    // MARK: - Writing

    /// The whole document, as Apple's store lays it out (four-space
    /// indents, every element on its own line); throws when a value cannot
    /// be written in this format (a string holding a character XML 1.0
    /// cannot).
    static func encode(_ graph: XMLStore.Graph, header: Header, model: ManagedObjectModel) throws -> Data {
        let spelling = AppleXMLSpelling(model: model)
        let rows = graph.rows.values.sorted { $0.snapshot.id.primaryKey < $1.snapshot.id.primaryKey }
        let highest = max((graph.sharedNextPK ?? firstObjectNumber) - 1, rows.last?.snapshot.id.primaryKey ?? 0)
        var out = "<?xml version=\"1.0\" standalone=\"yes\"?>\n"
        out += "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n\n"
        out += "<database>\n"
        out += "    <databaseInfo>\n"
        out += "        <version>\(storeVersion)</version>\n"
        out += "        <UUID>\(try escape(header.identifier))</UUID>\n"
        out += "        <nextObjectID>\(highest)</nextObjectID>\n"
        out += try metadataElement(header.metadata)
        out += "    </databaseInfo>\n"
        let members = oneToManyMembers(rows, graph: graph)
        for row in rows {
            let snapshot = row.snapshot
            let entity = snapshot.id.entity
            out += "    <object type=\"\(try escape(spelling.name(of: entity), in: .attribute))\" id=\"z\(snapshot.id.primaryKey)\">\n"
            for (i, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
                guard let text = try valueText(snapshot.values[i], attribute: attribute, of: snapshot.id) else { continue }
                out += "        <attribute name=\"\(try escape(spelling.name(of: attribute.name, in: entity), in: .attribute))\""
                out += " type=\"\(typeName(attribute.type))\">\(text)</attribute>\n"
            }
            for (i, relationship) in entity.relationships.enumerated() where !relationship.isTransient {
                var destinations: [ObjectID]
                if relationship.isToOne {
                    destinations = snapshot.toOneID(at: i).map { [$0] } ?? []
                } else if relationship.isManyToMany {
                    destinations = row.toMany[i] ?? []
                } else {
                    destinations = members[snapshot.id]?[i] ?? []
                    if relationship.isOrdered, let order = row.toMany[i] {
                        var position: [ObjectID: Int] = [:]
                        for (n, id) in order.enumerated() { position[id] = n }
                        destinations.sort {
                            (position[$0] ?? Int.max, $0.primaryKey) < (position[$1] ?? Int.max, $1.primaryKey)
                        }
                    }
                }
                destinations.removeAll { graph.rows[$0] == nil }
                let destination = relationship.destination.map { spelling.name(of: $0) } ?? relationship.destinationName.uppercased()
                out += "        <relationship name=\"\(try escape(spelling.name(of: relationship.name, in: entity), in: .attribute))\""
                out += " type=\"\(countText(relationship))\" destination=\"\(try escape(destination, in: .attribute))\""
                if !destinations.isEmpty {
                    out += " idrefs=\"\(destinations.map { "z\($0.primaryKey)" }.joined(separator: " "))\""
                }
                out += "></relationship>\n"
            }
            out += "    </object>\n"
        }
        out += "</database>\n"
        return Data(out.utf8)
    }

    /// The members of each plain one-to-many, by object and relationship
    /// slot: the objects whose inverse to-one names it, in key order.
    private static func oneToManyMembers(_ rows: [XMLStore.Row], graph: XMLStore.Graph) -> [ObjectID: [Int: [ObjectID]]] {
        var members: [ObjectID: [Int: [ObjectID]]] = [:]
        for row in rows {
            let source = row.snapshot.id
            for (i, relationship) in source.entity.relationships.enumerated() where relationship.isToOne && !relationship.isTransient {
                guard let inverse = relationship.inverse, inverse.isToMany,
                      let target = row.snapshot.toOneID(at: i),
                      let slot = target.entity.relationshipSlot(named: inverse.name) else { continue }
                members[target, default: [:]][slot, default: []].append(source)
            }
        }
        return members
    }

    /// `<metadata>` with its property list indented into place, as Core
    /// Data embeds it (an XML plist without its prolog).
    private static func metadataElement(_ metadata: [String: Any]?) throws -> String {
        guard let metadata else { return "        <metadata></metadata>\n" }
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: metadata, format: .xml, options: 0)
        } catch {
            throw StoreError(.misuse, "the store's metadata cannot be written as a property list: \(error)")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let start = text.range(of: "<plist") else {
            throw StoreError(.misuse, "the store's metadata did not serialise as an XML property list")
        }
        let lines = text[start.lowerBound...].split(separator: "\n", omittingEmptySubsequences: true)
        return "        <metadata>\n" + lines.map { "            \($0)\n" }.joined() + "        </metadata>\n"
    }

    /// `minCount/maxCount`, as `NSRelationshipDescription` has them: a
    /// to-one is `…/1`, with the minimum its model file states (old Xcode
    /// models say 1 even for optional ones); an unbounded to-many `…/0`.
    static func countText(_ relationship: RelationshipDescription) -> String {
        if relationship.isToOne { return "\(relationship.declaredMinCount ?? relationship.minCount)/1" }
        return "\(relationship.minCount)/\(relationship.maxCount)"
    }

    // MARK: - Values

    /// The `type` an `<attribute>` of this attribute type has.
    static func typeName(_ type: AttributeType) -> String {
        switch type {
        case .integer16: "int16"
        case .integer32: "int32"
        case .integer64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "bool"
        case .date: "date"
        case .binary: "binary"
        case .transformable: "transformable"
        case .uuid: "uuid"
        case .uri: "uri"
        case .objectID: "objectid"
        // Neither is stored as such: an undefined attribute is transient,
        // a composite's elements are attributes of their own.
        case .undefined: "undefined"
        case .composite: "composite"
        }
    }

    /// The element text of a value, escaped; nil for null, which Core Data
    /// writes by leaving the attribute out.
    static func valueText(_ value: Value, attribute: AttributeDescription, of id: ObjectID) throws -> String? {
        let value = try attribute.type.accepts(value) ? value : attribute.type.coerce(value)
        switch value {
        case .null: return nil
        case .bool(let b): return b ? "1" : "0"
        case .int(let i): return String(i)
        case .double(let d): return numberText(d)
        case .decimal(let d): return d.description
        case .string(let s):
            do {
                return try escape(s)
            } catch let error as StoreError {
                throw StoreError(.validation, "\(id.entity.name).\(attribute.name) of \(id): \(error.message)")
            }
        case .date(let d): return dateText(d)
        case .data(let data): return data.base64EncodedString()
        case .uuid(let u): return u.uuidString
        case .url(let u): return try escape(u.absoluteString)
        }
    }

    /// A double as NSNumber prints it where Swift agrees (`0.5`, `1e+300`),
    /// in the shortest form that reads back as the same double.
    static func numberText(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 && !(d == 0 && d.sign == .minus) ? String(Int64(d)) : "\(d)"
    }

    /// Seconds since 2001-01-01 UTC with twenty decimals, as Core Data
    /// writes dates (`445103622.25000000000000000000`); the shortest
    /// exact form where twenty decimals would not read back the same.
    static func dateText(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        if seconds.isFinite, abs(seconds) < 1e15 {
            let text = String(format: "%.20f", seconds)
            if Double(text) == seconds { return text }
        }
        return "\(seconds)"
    }

    /// Element or attribute text as `XMLText` writes it; throws for a
    /// character XML 1.0 cannot hold at all.
    static func escape(_ text: String, in place: XMLText.Place = .content) throws -> String {
        do {
            return try XMLText.escaped(text, in: place)
        } catch {
            throw StoreError(.validation, """
                \(error.codePoint) cannot be written in Apple's XML store format (XML 1.0 has no such character); \
                use a SQLite store or mrq's XML store format
                """)
        }
    }
}

/// How a model's names are spelled in Apple's XML store: entities in
/// capitals (`type="PERSON"`, `destination="PERSON"`), properties in lower
/// case (`name="firstname"`), as Core Data writes them. A name that would
/// then be spelled like another of its kind (`Person` and `PERSON`, or
/// `name` and `Name` in one entity) is written as the model spells it.
/// Reading takes the model's spelling first, then the folded one.
final class AppleXMLSpelling {
    /// A scope's names: the model's spelling, and the folded one where
    /// only one name folds to it.
    private struct Lookup {
        var exact: [String: Int] = [:]
        /// Folded spelling → index; -1 where several names fold alike.
        var folded: [String: Int] = [:]

        init(_ names: [String], fold: (String) -> String) {
            for (i, name) in names.enumerated() {
                exact[name] = i
                let key = fold(name)
                folded[key] = folded[key] == nil ? i : -1
            }
        }

        func find(_ name: String, fold: (String) -> String) -> Int? {
            if let i = exact[name] { return i }
            guard let i = folded[fold(name)], i >= 0 else { return nil }
            return i
        }

        /// Whether `name` alone folds to its folded spelling.
        func foldsAlone(_ name: String, fold: (String) -> String) -> Bool {
            folded[fold(name)] != -1
        }
    }

    private static let upper: @Sendable (String) -> String = { $0.uppercased() }
    private static let lower: @Sendable (String) -> String = { $0.lowercased() }
    private let entityList: [EntityDescription]
    private let entities: Lookup
    private var attributes: [ObjectIdentifier: Lookup] = [:]
    private var relationships: [ObjectIdentifier: Lookup] = [:]
    private var properties: [ObjectIdentifier: Lookup] = [:]

    init(model: ManagedObjectModel) {
        entityList = model.entities
        entities = Lookup(model.entities.map(\.name), fold: Self.upper)
        for entity in model.entities {
            let key = ObjectIdentifier(entity)
            attributes[key] = Lookup(entity.attributes.map(\.name), fold: Self.lower)
            relationships[key] = Lookup(entity.relationships.map(\.name), fold: Self.lower)
            properties[key] = Lookup(entity.attributes.map(\.name) + entity.relationships.map(\.name), fold: Self.lower)
        }
    }

    /// The entity's `type` and `destination` spelling.
    func name(of entity: EntityDescription) -> String {
        entities.foldsAlone(entity.name, fold: Self.upper) ? entity.name.uppercased() : entity.name
    }

    /// A property's `name` spelling in `entity`.
    func name(of property: String, in entity: EntityDescription) -> String {
        let alone = properties[ObjectIdentifier(entity)]?.foldsAlone(property, fold: Self.lower) ?? true
        return alone ? property.lowercased() : property
    }

    /// The entity a file's `type` or `destination` names.
    func entity(named name: String) -> EntityDescription? {
        entities.find(name, fold: Self.upper).map { entityList[$0] }
    }

    /// The slot of the attribute a file's `name` names in `entity`.
    func attributeSlot(named name: String, in entity: EntityDescription) -> Int? {
        attributes[ObjectIdentifier(entity)]?.find(name, fold: Self.lower)
    }

    /// The slot of the relationship a file's `name` names in `entity`.
    func relationshipSlot(named name: String, in entity: EntityDescription) -> Int? {
        relationships[ObjectIdentifier(entity)]?.find(name, fold: Self.lower)
    }
}
