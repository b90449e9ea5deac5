import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Predicates

extension AppleXMLStoreDocument {
    /// The header and objects of a file in Apple's XML store format
    /// (`data` already checked by `XMLInput`, its Core Data DOCTYPE
    /// blanked). Objects keep their numbers (`z102` is key 102); the
    /// rare id of another form gets a new number, past every other.
    ///
    /// A malformed file is `StoreError.Kind.corrupt`, one naming an entity
    /// or property the model lacks (or typing an attribute otherwise)
    /// `.modelMismatch`; both messages give the line and what is wrong.
    static func read(_ data: Data, path: String, model: ManagedObjectModel) throws -> (header: Header, graph: XMLStore.Graph) {
        let reader = AppleXMLStoreReader(model: model)
        let parser = XMLStoreDocument.parser(for: data)
        parser.delegate = reader
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        do {
            if let failure = reader.failure { throw failure }
            guard parsed else {
                throw AppleXMLStoreReader.Failure(line: parser.lineNumber, message: """
                    not well-formed XML at column \(parser.columnNumber) \
                    (\(AppleXMLStoreReader.describe(parser.parserError)))
                    """)
            }
            // libxml2 ends a document cut between two elements without an
            // error: only the missing end tag shows it.
            guard reader.isClosed else {
                throw AppleXMLStoreReader.Failure(line: parser.lineNumber, message: "the file ends before </database>")
            }
            return try reader.contents()
        } catch let failure as AppleXMLStoreReader.Failure {
            // A file cut short fails wherever the cut fell (libxml2 even
            // reports a tag cut in half as an element): say so.
            let end = Array("</database>".utf8)
            let last = data.reversed().drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }.prefix(end.count)
            let isCut = !last.elementsEqual(end.reversed())
            if failure.isMismatch && !isCut {
                throw StoreError(.modelMismatch, "'\(path)' was made with another model: line \(failure.line): \(failure.message)")
            }
            let note = isCut && !failure.message.hasPrefix("the file ends")
                ? "; the file ends before </database>, so it may be cut short" : ""
            throw StoreError(.corrupt, """
                '\(path)' is not a readable store in Apple's XML store format: line \(failure.line): \(failure.message)\(note)
                """)
        }
    }
}

/// Collects a document's objects as `XMLParser` reports them, checking
/// each element's place and each value against the model; IDs and
/// relationships are resolved once the whole file is read.
final class AppleXMLStoreReader: NSObject, XMLParserDelegate {
    /// What is wrong and on which line.
    struct Failure: Error {
        var line: Int
        var message: String
        /// The file names what the model lacks, rather than being malformed.
        var isMismatch = false
    }

    /// One `<object>` as read.
    struct Pending {
        var entity: EntityDescription
        var id: String
        var line: Int
        var values: [Value]
        var givenAttributes: Set<Int> = []
        /// Relationship slot → idrefs, and the line that gave them.
        var links: [Int: (ids: [String], line: Int)] = [:]

        var shown: String { "\(entity.name) \(id)" }
    }

    /// Deeper than this, `<metadata>` is not a property list Core Data
    /// wrote (and the plist parser recurses).
    static let metadataDepthLimit = 64

    let model: ManagedObjectModel
    let spelling: AppleXMLSpelling
    private(set) var failure: Failure?
    /// Whether `</database>` was read.
    private(set) var isClosed = false
    private weak var parser: XMLParser?
    private var identifier: String?
    private var nextObjectID: Int64?
    private var seenInfo = false
    private var metadataXML: String?
    /// The depth of `<metadata>` while inside it, and its line.
    private var metadataDepth: Int?
    private var metadataLine = 0
    private var objects: [Pending] = []
    private var objectIndex: [String: Int] = [:]
    private var current: Pending?
    private var attribute: (slot: Int, name: String, type: AttributeType)?
    private var stack: [String] = []
    private var text = ""

    init(model: ManagedObjectModel) {
        self.model = model
        self.spelling = AppleXMLSpelling(model: model)
    }

    private var line: Int { parser?.lineNumber ?? 0 }

    private func fail(_ message: String, mismatch: Bool = false) {
        if failure == nil { failure = Failure(line: line, message: message, isMismatch: mismatch) }
        parser?.abortParsing()
    }

    static func describe(_ error: Error?) -> String {
        guard let error = error as NSError? else { return "unreadable XML" }
        return "XMLParser error \(error.code)"
    }

    // MARK: - Elements

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        self.parser = parser
        guard failure == nil else { return }
        let parent = stack.last
        stack.append(name)
        if let depth = metadataDepth {
            guard stack.count - depth <= Self.metadataDepthLimit else { return fail("<metadata> nested too deeply") }
            metadataXML! += "<\(name)"
            for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
                guard let value = escape(value, in: .attribute) else { return }
                metadataXML! += " \(key)=\"\(value)\""
            }
            metadataXML! += ">"
            return
        }
        text = ""
        switch (parent, name) {
        case (nil, "database"):
            break
        case (nil, _):
            fail("the root element is <\(name)>, not <database>")
        case ("database", "databaseInfo"):
            if seenInfo { fail("a second <databaseInfo>") }
            seenInfo = true
        case ("databaseInfo", "version"), ("databaseInfo", "UUID"), ("databaseInfo", "nextObjectID"):
            break
        case ("databaseInfo", "metadata"):
            if metadataXML != nil { return fail("a second <metadata>") }
            metadataXML = ""
            metadataDepth = stack.count
            metadataLine = line
        case ("database", "object"):
            startObject(attributes)
        case ("object", "attribute"):
            startAttribute(attributes)
        case ("object", "relationship"):
            startRelationship(attributes)
        default:
            fail("unexpected <\(name)> in <\(parent!)>")
        }
    }

    private func startObject(_ attributes: [String: String]) {
        guard let type = attributes["type"], let id = attributes["id"], !id.isEmpty else {
            return fail("<object> needs a type and an id")
        }
        guard let entity = spelling.entity(named: type) else {
            return fail("<object type=\"\(type)\" id=\"\(id)\">: the model has no entity \(type)", mismatch: true)
        }
        if entity.isAbstract { return fail("\(entity.name) \(id): \(entity.name) is abstract, so no object is one") }
        if objectIndex[id] != nil { return fail("a second object with id \"\(id)\"") }
        current = Pending(entity: entity, id: id, line: line, values: entity.attributes.map { _ in .null })
    }

    private func startAttribute(_ attributes: [String: String]) {
        guard let object = current else { return }
        guard let name = attributes["name"], let type = attributes["type"] else {
            return fail("\(object.shown): <attribute> needs a name and a type")
        }
        guard let slot = spelling.attributeSlot(named: name, in: object.entity) else {
            return fail("\(object.shown): the model's \(object.entity.name) has no attribute '\(name)'", mismatch: true)
        }
        let description = object.entity.attributes[slot]
        let expected = AppleXMLStoreDocument.typeName(description.type)
        guard type == expected else {
            return fail("\(object.shown): attribute '\(name)' is \(type) in the file but \(expected) in the model",
                        mismatch: true)
        }
        guard !object.givenAttributes.contains(slot) else {
            return fail("\(object.shown): attribute '\(name)' is given twice")
        }
        current!.givenAttributes.insert(slot)
        attribute = (slot, name, description.type)
    }

    private func startRelationship(_ attributes: [String: String]) {
        guard let object = current else { return }
        guard let name = attributes["name"] else { return fail("\(object.shown): <relationship> needs a name") }
        guard let slot = spelling.relationshipSlot(named: name, in: object.entity) else {
            return fail("\(object.shown): the model's \(object.entity.name) has no relationship '\(name)'", mismatch: true)
        }
        let relationship = object.entity.relationships[slot]
        if let destination = attributes["destination"], spelling.entity(named: destination) == nil {
            return fail("\(object.shown): relationship '\(name)' leads to \(destination), an entity the model lacks",
                        mismatch: true)
        }
        guard object.links[slot] == nil else { return fail("\(object.shown): relationship '\(name)' is given twice") }
        let ids = (attributes["idrefs"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            .map(String.init)
        if relationship.isToOne && ids.count > 1 {
            return fail("\(object.shown): to-one relationship '\(name)' names \(ids.count) objects")
        }
        current!.links[slot] = (ids, line)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard failure == nil else { return }
        if metadataDepth != nil {
            guard let text = escape(string, in: .content) else { return }
            metadataXML! += text
        } else {
            text += string
        }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        self.parser(parser, foundCharacters: String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        self.parser = parser
        guard failure == nil else { return }
        defer { stack.removeLast() }
        if let depth = metadataDepth {
            if stack.count > depth {
                metadataXML! += "</\(name)>"
            } else {
                metadataDepth = nil
            }
            return
        }
        switch name {
        case "database":
            isClosed = stack.count == 1
        case "UUID":
            let trimmed = Self.trimmed(text)
            if trimmed.isEmpty { return fail("<UUID> is empty") }
            identifier = trimmed
        case "nextObjectID":
            let trimmed = Self.trimmed(text)
            guard let number = Int64(trimmed), number >= 0 else { return fail("<nextObjectID> '\(trimmed)' is not a number") }
            nextObjectID = number
        case "attribute":
            guard let (slot, attributeName, type) = attribute, let object = current else { return }
            attribute = nil
            guard let value = Self.value(text, type: type) else {
                let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
                return fail("\(object.shown): attribute '\(attributeName)': '\(shown)' is not \(Self.article(type))")
            }
            current!.values[slot] = value
        case "object":
            guard let object = current else { return }
            objectIndex[object.id] = objects.count
            objects.append(object)
            current = nil
        default:
            break
        }
        text = ""
    }

    // MARK: - Values

    private static func article(_ type: AttributeType) -> String {
        let name = AppleXMLStoreDocument.typeName(type)
        let kind = type == .integer16 || type == .integer32 || type == .integer64 ? "\(name) integer" : "\(name) value"
        return (kind.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + kind
    }

    /// The value an `<attribute>`'s text spells for the model's type; nil
    /// when it spells none (or an integer out of the type's range).
    static func value(_ text: String, type: AttributeType) -> Value? {
        if type == .string { return .string(text) }
        let trimmed = Self.trimmed(text)
        switch type {
        case .integer16, .integer32, .integer64:
            guard let i = Int64(trimmed), type.integerRange?.contains(i) == true else { return nil }
            return .int(i)
        case .boolean:
            switch trimmed.lowercased() {
            case "1", "yes", "true": return .bool(true)
            case "0", "no", "false": return .bool(false)
            default: return nil
            }
        case .double, .float:
            return Double(trimmed).map(Value.double)
        case .decimal:
            guard !trimmed.isEmpty, trimmed.allSatisfy({ "+-.0123456789eE".contains($0) }),
                  let d = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            return .decimal(d)
        case .string:
            return .string(text)
        case .date:
            guard let seconds = Double(trimmed), seconds.isFinite else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .binary, .transformable:
            return Data(base64Encoded: String(trimmed.filter { !$0.isWhitespace })).map(Value.data)
        case .uuid:
            return UUID(uuidString: trimmed).map(Value.uuid)
        case .uri, .objectID:
            return URL(string: trimmed).map(Value.url)
        case .undefined:
            return .string(text)
        case .composite:
            return nil
        }
    }

    /// `text` without the white space XML has (space, tab, line feed,
    /// carriage return) at either end. (Foundation's
    /// `trimmingCharacters(in:)` took a quarter of reading a store.)
    static func trimmed(_ text: String) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r"
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return text }
        return String(scalars[first...last])
    }

    /// Text the parser read, written back as XML for the metadata's own
    /// reader; nil, and the read failed, for a character XML 1.0 cannot
    /// hold (an XML 1.1 document can spell one).
    private func escape(_ text: String, in place: XMLText.Place) -> String? {
        do {
            return try XMLText.escaped(text, in: place)
        } catch {
            fail("<metadata> holds \(error.codePoint), which XML 1.0 cannot hold")
            return nil
        }
    }

    // MARK: - The graph

    /// The header and graph, with every idref resolved; throws `Failure`
    /// for an idref naming no object or an object of the wrong entity.
    func contents() throws -> (header: AppleXMLStoreDocument.Header, graph: XMLStore.Graph) {
        let identifier = self.identifier ?? UUID().uuidString
        var numbers: [Int64?] = objects.map { object in
            guard object.id.hasPrefix("z"), let n = Int64(object.id.dropFirst()), n > 0, "z\(n)" == object.id else { return nil }
            return n
        }
        var highest = max(nextObjectID ?? 0, numbers.compactMap { $0 }.max() ?? 0)
        for i in numbers.indices where numbers[i] == nil {
            guard highest < Int64.max - 1 else { throw Failure(line: objects[i].line, message: "too many objects") }
            highest += 1
            numbers[i] = highest
        }
        let ids = objects.indices.map { ObjectID(entity: objects[$0].entity, primaryKey: numbers[$0]!, storeIdentifier: identifier) }

        var graph = XMLStore.Graph()
        graph.sharedNextPK = max(highest + 1, AppleXMLStoreDocument.firstObjectNumber)
        var toMany: [[Int: [ObjectID]]] = Array(repeating: [:], count: objects.count)
        var toOne: [[ObjectID?]] = objects.map { $0.entity.relationships.map { _ in nil } }
        for (n, object) in objects.enumerated() {
            for (slot, link) in object.links {
                let relationship = object.entity.relationships[slot]
                var seen = Set<String>()
                var targets: [Int] = []
                for ref in link.ids where seen.insert(ref).inserted {
                    guard let target = objectIndex[ref] else {
                        throw Failure(line: link.line, message: "\(object.shown): relationship '\(relationship.name)' names \(ref), which is no object of the file")
                    }
                    if let destination = relationship.destination, !objects[target].entity.isKind(of: destination) {
                        throw Failure(line: link.line, message: """
                            \(object.shown): relationship '\(relationship.name)' names \(objects[target].shown), \
                            not a \(destination.name)
                            """)
                    }
                    targets.append(target)
                }
                let destinations = targets.map { ids[$0] }
                if relationship.isToOne {
                    toOne[n][slot] = destinations.first
                } else if relationship.isManyToMany || relationship.isOrdered {
                    toMany[n][slot] = destinations
                }
                // A to-one the file leaves out is the one-to-many's inverse:
                // a file that lists only the to-many side still links both.
                if relationship.isToMany, !relationship.isManyToMany, let inverse = relationship.inverse {
                    for target in targets {
                        guard let inverseSlot = objects[target].entity.relationshipSlot(named: inverse.name),
                              objects[target].links[inverseSlot] == nil, toOne[target][inverseSlot] == nil else { continue }
                        toOne[target][inverseSlot] = ids[n]
                    }
                }
            }
        }
        for (n, object) in objects.enumerated() {
            let snapshot = Snapshot(id: ids[n], version: 1, values: object.values, toOne: toOne[n])
            graph.rows[ids[n]] = XMLStore.Row(snapshot: snapshot, toMany: toMany[n])
        }
        // Both sides of a many-to-many list each other, whichever the file
        // listed: a member missing from the other side's list is added.
        struct Entry: Hashable {
            let owner: ObjectID, slot: Int, member: ObjectID
        }
        var listed = Set<Entry>()
        for n in objects.indices {
            for (slot, destinations) in toMany[n] {
                for destination in destinations { listed.insert(Entry(owner: ids[n], slot: slot, member: destination)) }
            }
        }
        for n in objects.indices {
            for (slot, destinations) in toMany[n] {
                let relationship = objects[n].entity.relationships[slot]
                guard relationship.isManyToMany, let inverse = relationship.inverse else { continue }
                for destination in destinations {
                    guard let inverseSlot = destination.entity.relationshipSlot(named: inverse.name),
                          listed.insert(Entry(owner: destination, slot: inverseSlot, member: ids[n])).inserted else { continue }
                    graph.rows[destination]?.toMany[inverseSlot, default: []].append(ids[n])
                }
            }
        }
        var metadata: [String: Any]?
        if let xml = metadataXML, !Self.trimmed(xml).isEmpty {
            let plist = try? PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil)
            guard let dictionary = plist as? [String: Any] else {
                throw Failure(line: metadataLine, message: "<metadata> holds no property list dictionary")
            }
            metadata = dictionary
        }
        return (AppleXMLStoreDocument.Header(identifier: identifier, metadata: metadata), graph)
    }
}
