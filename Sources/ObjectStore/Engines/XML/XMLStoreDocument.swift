import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Predicates

/// mrq's XML store format (`<mrq-store>`, see `Grammar/xml-store.md`):
/// reading and writing a whole graph, and telling it from Apple's XML
/// store format (`AppleXMLStoreDocument`) by the root element.
enum XMLStoreDocument {
    static let formatVersion = "1"

    struct Contents {
        var identifier: String
        var fingerprint: String
        var graph: XMLStore.Graph
    }

    // MARK: - Writing

    static func encode(_ graph: XMLStore.Graph, identifier: String, model: ManagedObjectModel) throws -> Data {
        let fingerprint = try SchemaBuilder.fingerprint(of: model)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<mrq-store format=\"\(formatVersion)\" identifier=\"\(try esc(identifier))\" fingerprint=\"\(try esc(fingerprint))\">\n"
        out += "  <model encoding=\"base64\">\(model.archived().base64EncodedString())</model>\n"
        // Each hierarchy's highest key ever given: keys are never reused.
        for (root, next) in graph.nextPK.sorted(by: { $0.key < $1.key }) where next > 1 {
            out += "  <highest-pk entity=\"\(try esc(root))\" pk=\"\(next - 1)\"/>\n"
        }
        let rows = graph.rows.values.sorted {
            ($0.snapshot.id.entity.rootEntity.name, $0.snapshot.id.primaryKey)
                < ($1.snapshot.id.entity.rootEntity.name, $1.snapshot.id.primaryKey)
        }
        for row in rows {
            let snapshot = row.snapshot
            let entity = snapshot.id.entity
            out += "  <object entity=\"\(try esc(entity.name))\" pk=\"\(snapshot.id.primaryKey)\" version=\"\(snapshot.version)\">\n"
            for (i, attribute) in entity.attributes.enumerated() where !attribute.isTransient {
                out += try "    " + attributeElement(attribute.name, snapshot.values[i]) + "\n"
            }
            for (i, relationship) in entity.relationships.enumerated() where !relationship.isTransient {
                if relationship.isToOne {
                    guard let target = snapshot.toOneID(at: i) else { continue }
                    out += "    <to-one name=\"\(try esc(relationship.name))\" \(try reference(target))/>\n"
                } else if let list = row.toMany[i], !list.isEmpty {
                    out += "    <to-many name=\"\(try esc(relationship.name))\">"
                    out += try list.map { "<member \(try reference($0))/>" }.joined()
                    out += "</to-many>\n"
                }
            }
            out += "  </object>\n"
        }
        out += "</mrq-store>\n"
        return Data(out.utf8)
    }

    /// Names and values in attributes and between tags; a string value XML
    /// cannot hold is written in base64 before it gets here, so what throws
    /// is a name.
    private static func esc(_ text: String, in place: XMLText.Place = .attribute) throws -> String {
        do { return try XMLText.escaped(text, in: place) } catch { throw error.refusal("'\(text)'", in: "mrq's XML store format") }
    }

    private static func reference(_ id: ObjectID) throws -> String {
        "entity=\"\(try esc(id.entity.name))\" pk=\"\(id.primaryKey)\""
    }

    /// `<attribute name="…" type="…">text</attribute>`: one typed value,
    /// spelled so that reading it back gives the same value.
    static func attributeElement(_ name: String, _ value: Value) throws -> String {
        let open = "<attribute name=\"\(try esc(name))\""
        switch value {
        case .null: return open + " type=\"null\"/>"
        case .bool(let b): return open + " type=\"bool\">\(b)</attribute>"
        case .int(let i): return open + " type=\"int\">\(i)</attribute>"
        case .double(let d): return open + " type=\"double\">\(d)</attribute>"
        case .decimal(let d): return open + " type=\"decimal\">\(d)</attribute>"
        case .string(let s):
            if s.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" || $0.value == 0xFFFE || $0.value == 0xFFFF }) {
                return open + " type=\"string\" encoding=\"base64\">\(Data(s.utf8).base64EncodedString())</attribute>"
            }
            return open + " type=\"string\">\(try esc(s, in: .content))</attribute>"
        case .date(let d):
            let iso = ISO8601DateFormatter.string(from: d, timeZone: TimeZone(identifier: "UTC")!,
                                                  formatOptions: [.withInternetDateTime, .withFractionalSeconds])
            return open + " type=\"date\" iso=\"\(iso)\">\(d.timeIntervalSinceReferenceDate)</attribute>"
        case .data(let data): return open + " type=\"data\">\(data.base64EncodedString())</attribute>"
        case .uuid(let u): return open + " type=\"uuid\">\(u.uuidString)</attribute>"
        case .url(let u): return open + " type=\"url\">\(try esc(u.absoluteString, in: .content))</attribute>"
        }
    }

    /// The value an `attribute` element spells; nil when the text does not
    /// fit its type.
    static func value(type: String, encoding: String?, text: String) -> Value? {
        switch type {
        case "null": return .null
        case "bool": return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case "int": return Int64(text).map(Value.int)
        case "double": return Double(text).map(Value.double)
        case "decimal": return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Value.decimal)
        case "string":
            if encoding == "base64" {
                return Data(base64Encoded: text).flatMap { String(data: $0, encoding: .utf8) }.map(Value.string)
            }
            return .string(text)
        case "date": return Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case "data": return Data(base64Encoded: text).map(Value.data)
        case "uuid": return UUID(uuidString: text).map(Value.uuid)
        case "url": return URL(string: text).map(Value.url)
        default: return nil
        }
    }

    // MARK: - Reading

    static func read(_ data: Data, path: String, model: ManagedObjectModel) throws -> Contents {
        let reader = Reader(model: model)
        let parser = XMLStoreDocument.parser(for: data)
        parser.delegate = reader
        if !parser.parse() || reader.failure != nil {
            let detail = reader.failure ?? parser.parserError.map { "\($0)" } ?? "unreadable XML"
            throw StoreError(.corrupt, "'\(path)' is not a readable store in mrq's XML store format: \(detail)")
        }
        // libxml2 ends a document cut short without an error: only the
        // missing end tag shows it.
        guard reader.isClosed else {
            throw StoreError(.corrupt, """
                '\(path)' is not a readable store in mrq's XML store format: line \(parser.lineNumber): \
                the file ends before </mrq-store>, so it is cut short
                """)
        }
        guard let identifier = reader.identifier, let fingerprint = reader.fingerprint else {
            throw StoreError(.corrupt, "'\(path)' is not a store in mrq's XML store format (no identifier or fingerprint)")
        }
        return Contents(identifier: identifier, fingerprint: fingerprint, graph: try reader.graph(storeIdentifier: identifier))
    }

    /// The file's bytes, checked and made UTF-8 before libxml2 reads them
    /// (Core Data's DOCTYPE, which Apple's files begin with, blanked out).
    static func text(of url: URL) throws -> Data {
        do {
            return try XMLInput.normalized(Data(contentsOf: url), allowingCoreDataDoctype: true)
        } catch let malformed as XMLInput.Malformed {
            throw StoreError(.corrupt, "'\(url.path)' is not a readable XML store: \(malformed)")
        }
    }

    /// A parser over a whole document, fed to libxml2 in chunks: handed
    /// all at once (`XMLParser(data:)`), a document over 10 MB fails after
    /// its last element with error 1, so a large store would not reopen.
    static func parser(for data: Data) -> XMLParser {
        let parser = XMLParser(stream: InputStream(data: data))
        parser.shouldResolveExternalEntities = false
        return parser
    }

    /// Which of the two formats a file is in, by its root element:
    /// `<mrq-store>` is mrq's, `<database>` Apple's.
    static func format(of data: Data, path: String) throws -> XMLStore.Format {
        let finder = RootFinder()
        let parser = XMLStoreDocument.parser(for: data)
        parser.delegate = finder
        parser.shouldResolveExternalEntities = false
        _ = parser.parse()
        switch finder.root {
        case "mrq-store": return .mrq
        case "database": return .apple
        case let root?:
            throw StoreError(.corrupt, """
                '\(path)' is not an XML store: its root element is <\(root)>, where mrq's XML store format has \
                <mrq-store> and Apple's XML store format <database>
                """)
        case nil:
            throw StoreError(.corrupt, """
                '\(path)' is not a readable XML store: no root element (line \(parser.lineNumber), \
                column \(parser.columnNumber))
                """)
        }
    }

    /// Stops at the first element, noting its name.
    private final class RootFinder: NSObject, XMLParserDelegate {
        var root: String?
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            root = name
            parser.abortParsing()
        }
    }

    /// The model archived in a store file in mrq's format.
    static func readModel(_ data: Data) throws -> ManagedObjectModel? {
        let reader = Reader(model: nil)
        let parser = XMLStoreDocument.parser(for: data)
        parser.delegate = reader
        guard parser.parse(), let archive = reader.modelArchive, let bytes = Data(base64Encoded: archive) else { return nil }
        return try ManagedObjectModel(archive: bytes)
    }

    /// Collects the document's objects; IDs get the store identifier once
    /// the whole file is read.
    private final class Reader: NSObject, XMLParserDelegate {
        let model: ManagedObjectModel?
        var identifier: String?
        var fingerprint: String?
        var modelArchive: String?
        var failure: String?
        /// Whether `</mrq-store>` was read.
        var isClosed = false

        struct Pending {
            var entity: EntityDescription
            var pk: Int64
            var version: Int64
            var values: [Value]
            var toOne: [(index: Int, entity: EntityDescription, pk: Int64)] = []
            var toMany: [Int: [(entity: EntityDescription, pk: Int64)]] = [:]
        }
        var objects: [Pending] = []
        /// `<highest-pk>`: the next key of each root entity.
        var nextPK: [String: Int64] = [:]
        var current: Pending?
        var text = ""
        var attribute: (index: Int?, type: String, encoding: String?)?
        var toMany: Int?
        var inModel = false

        init(model: ManagedObjectModel?) { self.model = model }

        func fail(_ message: String, _ parser: XMLParser) {
            if failure == nil { failure = message }
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            text = ""
            switch name {
            case "mrq-store":
                identifier = attributes["identifier"]
                fingerprint = attributes["fingerprint"]
                if attributes["format"] != XMLStoreDocument.formatVersion {
                    fail("unknown format '\(attributes["format"] ?? "")'", parser)
                }
            case "model":
                inModel = true
            case "highest-pk":
                guard let entity = attributes["entity"], let pk = Int64(attributes["pk"] ?? "") else {
                    return fail("highest-pk needs an entity and a pk", parser)
                }
                nextPK[entity] = pk + 1
            case "object":
                guard let model else { return }
                guard let entity = model.entity(named: attributes["entity"] ?? ""),
                      let pk = Int64(attributes["pk"] ?? ""), let version = Int64(attributes["version"] ?? "") else {
                    return fail("object needs a known entity, a pk and a version", parser)
                }
                current = Pending(entity: entity, pk: pk, version: version,
                                  values: Array(repeating: .null, count: entity.attributes.count))
            case "attribute":
                guard let current else { return }
                attribute = (current.entity.attributeSlot(named: attributes["name"] ?? ""), attributes["type"] ?? "", attributes["encoding"])
            case "to-one", "member":
                guard let model, let current else { return }
                guard let entity = model.entity(named: attributes["entity"] ?? ""), let pk = Int64(attributes["pk"] ?? "") else {
                    return fail("\(name) needs a known entity and a pk", parser)
                }
                if name == "member", let toMany {
                    self.current!.toMany[toMany, default: []].append((entity, pk))
                } else if let index = current.entity.relationshipSlot(named: attributes["name"] ?? "") {
                    self.current!.toOne.append((index, entity, pk))
                }
            case "to-many":
                toMany = current?.entity.relationshipSlot(named: attributes["name"] ?? "")
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "mrq-store":
                isClosed = true
            case "model":
                modelArchive = text.trimmingCharacters(in: .whitespacesAndNewlines)
                inModel = false
            case "attribute":
                guard let (index, type, encoding) = attribute else { return }
                attribute = nil
                guard let value = XMLStoreDocument.value(type: type, encoding: encoding, text: text) else {
                    return fail("'\(text)' is not a \(type)", parser)
                }
                if let index { current?.values[index] = value }
            case "to-many":
                toMany = nil
            case "object":
                if let current { objects.append(current) }
                current = nil
            default:
                break
            }
            text = ""
        }

        func graph(storeIdentifier: String) throws -> XMLStore.Graph {
            var graph = XMLStore.Graph()
            for (root, next) in nextPK {
                let highest = objects.filter { $0.entity.rootEntity.name == root }.map(\.pk).max() ?? 0
                graph.nextPK[root] = max(next, highest + 1)
            }
            func id(_ entity: EntityDescription, _ pk: Int64) -> ObjectID {
                ObjectID(entity: entity, primaryKey: pk, storeIdentifier: storeIdentifier)
            }
            for object in objects {
                var toOne = [ObjectID?](repeating: nil, count: object.entity.relationships.count)
                for link in object.toOne { toOne[link.index] = id(link.entity, link.pk) }
                let snapshot = Snapshot(id: id(object.entity, object.pk), version: object.version,
                                        values: object.values, toOne: toOne)
                graph.rows[snapshot.id] = XMLStore.Row(snapshot: snapshot,
                                                       toMany: object.toMany.mapValues { $0.map { id($0.entity, $0.pk) } })
            }
            return graph
        }
    }
}
