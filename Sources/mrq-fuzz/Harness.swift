import ActiveRecord
import Foundation
import ObjectStore
import Predicates
import Shell

/// One fuzz target: what is done with each input. Any crash, hang or
/// failed invariant (a `fatalError` here) is a bug; errors thrown by the
/// code under test are the expected answer to bad input.
enum Harness: String, CaseIterable {
    /// NSPredicate text: parse, print, parse the print back (it must give
    /// the same tree), evaluate, check keys, and parse as sort keys.
    case predicate
    /// Shell text: split into statements, parse, complete at every
    /// cursor position, and run in a session over an in-memory store.
    case statement
    /// JSON: parse, and import into an in-memory store.
    case json
    /// Xcode model XML: load, and create its schema in an in-memory store.
    case model
    /// An XML store file (mrq's format or Apple's) for the People sample:
    /// read, write back, read again.
    case xmlstore
    /// A compiled Core Data model (`.mom`, an NSKeyedArchiver binary or
    /// XML property list) or a store's model cache (DEFLATE of one): read;
    /// a model read must lay out a store in both layouts, and written back
    /// as an archive read again with the same fingerprint.
    case mom
    /// A Core Data store described by `StoreInput` (tables, rows, entity
    /// numbers, external data): built, damaged as described, and opened
    /// with no model as the shell opens it.
    case store
    /// An archived attribute value (an NSKeyedArchiver archive or a
    /// property list): decoded, its text and JSON written (the JSON must
    /// parse), and shown by the renderer in every mode.
    case archived

    /// The target of this run, chosen by the first argument.
    nonisolated(unsafe) static var selected: Harness = .predicate

    func run(_ data: Data) {
        switch self {
        case .predicate: Self.predicate(data)
        case .statement: Self.statement(data)
        case .json: Self.json(data)
        case .model: Self.model(data)
        case .xmlstore: Self.xmlStore(data)
        case .mom: Self.mom(data)
        case .store: Self.store(data)
        case .archived: Self.archived(data)
        }
    }

    nonisolated(unsafe) static let object: Operand = .object(DictionaryObject([
        "age": .value(.int(30)), "name": .value(.string("Zoë")), "born": .value(.date(Date(timeIntervalSinceReferenceDate: 0))),
        "kids": .collection([.object(DictionaryObject(["age": .value(.int(3)), "name": .value(.string("Kim"))]))]),
    ]))

    struct Schema: PredicateSchema {
        func keys(ofEntity entity: String) -> [String]? { ["age", "name", "born", "kids"] }
        func destination(ofEntity entity: String, key: String) -> String? { key == "kids" ? "Person" : nil }
        func isToMany(entity: String, key: String) -> Bool { key == "kids" }
    }

    static func predicate(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        _ = try? SortSpec.parse(text)
        guard let parsed = try? Predicate(format: text) else { return }
        let printed = parsed.format
        guard let again = try? Predicate(format: printed), again == parsed else {
            fatalError("\(text.debugDescription) prints as \(printed.debugDescription), which does not parse back the same")
        }
        _ = parsed.treeDescription
        _ = try? Evaluator(variables: ["v": 1]).evaluate(parsed, on: object)
        try? parsed.validateKeys(entity: "Person", schema: Schema())
    }

    /// The People sample, in memory; one session for the whole run.
    nonisolated(unsafe) static var session: ShellSession?

    static func statement(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        _ = try? StatementParser.parse(text)
        _ = StatementParser.isComplete(text)
        if session == nil {
            session = try? ShellSession(modelPath: samples.appendingPathComponent("People.xcdatamodeld").path, storePath: ":memory:")
        }
        guard let session else { fatalError("cannot open the People sample model") }
        // Completion at every position of the first line.
        let line = String(text.prefix { $0 != "\n" }.prefix(200))
        for cursor in 0...line.utf8.count { _ = session.completions(in: line, cursor: cursor) }
        // Dot commands and imports name files: never run them here.
        let touchesFiles = text.split(whereSeparator: \.isNewline).contains { $0.drop(while: \.isWhitespace).first == "." }
            || text.range(of: "import", options: .caseInsensitive) != nil
        guard !touchesFiles else { return }
        _ = session.run(text, fileName: nil, output: Discard())
        _ = session.run("rollback", fileName: nil, output: Discard())
    }

    final class Discard: ShellOutput {
        func write(_ s: String) {}
        func writeError(_ s: String) {}
    }

    static func json(_ data: Data) {
        guard let json = try? JSON(data: data) else { return }
        let coordinator = PersistentStoreCoordinator(model: people)
        guard (try? coordinator.addSQLiteStore(at: nil)) != nil else { fatalError("cannot open an in-memory store") }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let importer = Importer(context: context)
        let person = people.entity(named: "Person")!
        if case .array = json {
            _ = try? importer.importArray(json, into: person)
        } else {
            _ = try? importer.importObject(json, into: person)
        }
        try? context.save()
    }

    static func model(_ data: Data) {
        guard let model = try? ManagedObjectModel(xcdatamodelContents: data, file: "fuzz/contents") else { return }
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try? coordinator.addSQLiteStore(at: nil)
    }

    static func archived(_ data: Data) {
        guard let value = ArchivedObject(decoding: data) else { return }
        _ = value.text(limit: 10_000)
        guard (try? JSONSerialization.jsonObject(with: Data(value.json.utf8), options: [.fragmentsAllowed])) != nil else {
            fatalError("an archived value's JSON does not parse: \(value.json.prefix(200))")
        }
        for mode in OutputMode.allCases {
            _ = Renderer(options: RenderOptions(mode: mode)).render(ResultSet(columns: ["v"], rows: [[.value(.data(data))]]))
        }
    }

    static func mom(_ data: Data) {
        for read in [ManagedObjectModel.init(coreDataArchive:), ManagedObjectModel.init(modelCache:)] {
            guard let model = try? read(data) else { continue }
            for layout in [SchemaMapping.Layout.mrq, .coreData] {
                var options = PersistentStoreOptions()
                options.layout = layout
                _ = try? PersistentStoreCoordinator(model: model).addPersistentStore(type: .inMemory, at: nil, options: options)
            }
            do {
                let again = try ManagedObjectModel(coreDataArchive: try model.coreDataArchive())
                guard again.fingerprint == model.fingerprint else {
                    fatalError("a Core Data model written back as an archive reads as another model")
                }
            } catch {
                fatalError("a Core Data model read does not write back and read again: \(error)")
            }
        }
    }

    static func xmlStore(_ data: Data) {
        do {
            _ = try XMLStore.checkDocument(data, model: people)
        } catch let error as StoreError where error.kind == .misuse {
            fatalError("an XML store read back differently: \(error.message)")
        } catch {}
    }

    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    static let people: ManagedObjectModel = {
        guard let model = try? ManagedObjectModel(contentsOf: samples.appendingPathComponent("People.xcdatamodeld")) else {
            fatalError("cannot load the People sample model")
        }
        return model
    }()
}

/// libFuzzer's entry point, in the instrumented build (`make fuzz`): runs
/// the selected target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    Harness.selected.run(data)
    return 0
}
