import Foundation
import ObjectStore
import Predicates
import Shell

extension Harness {
    /// The folder the `store` target builds its stores in, one a run.
    nonisolated(unsafe) static var storeScratch: URL?

    /// A store described by `StoreInput`: built in Core Data's layout by
    /// mrq, then changed behind its back as the input says (rows of any
    /// values, entity numbers, tables without keys or gone, no model
    /// cache, external data files and links), and opened read-only with no
    /// model, as `mrq --read-only Store.sqlite` opens it: `.entities`, then
    /// for each entity `count` and the first three objects in table and
    /// JSON modes, then the input's own statements. Any crash is a
    /// finding; so is the secret file outside the store's folder, which
    /// the links point at, appearing in what the shell printed or in a
    /// value read. `MRQ_FUZZ_SHOW=1` prints the tables' columns and what
    /// the shell printed.
    static func store(_ data: Data) {
        let input = StoreInput(String(decoding: data, as: UTF8.self))
        guard let model = input.model(), !model.entities.isEmpty else { return }
        let fileManager = FileManager.default
        if storeScratch == nil {
            storeScratch = fileManager.temporaryDirectory.appendingPathComponent("mrq-fuzz-store-\(getpid())")
        }
        guard let scratch = storeScratch else { return }
        try? fileManager.removeItem(at: scratch)
        defer { try? fileManager.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("case")
        let outside = scratch.appendingPathComponent("outside")
        // New each time, so that no input can hold it.
        let secret = "secret-\(UUID().uuidString)"
        do {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            try fileManager.createDirectory(at: outside, withIntermediateDirectories: true)
            try Data(secret.utf8).write(to: outside.appendingPathComponent("secret"))
        } catch {
            fatalError("cannot make the scratch folder: \(error)")
        }
        let store = folder.appendingPathComponent("Store.sqlite")
        // Laid out by mrq: a model it cannot lay out is not this target's.
        do {
            var options = PersistentStoreOptions()
            options.layout = .coreData
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: .sqlite, at: store, options: options)
        } catch {
            return
        }
        damage(store, input, outside: outside)
        if ProcessInfo.processInfo.environment["MRQ_FUZZ_SHOW"] == "1", let db = try? Database(path: store.path, readOnly: true) {
            // The tables as laid out, to write seeds by.
            for row in (try? db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) ?? [] {
                guard case .string(let table)? = row.first else { continue }
                print("\(table): \(((try? db.columns(of: table)) ?? []).joined(separator: " "))")
            }
        }
        var opening = StoreOpening.Options()
        opening.readOnly = true
        for mode in [OutputMode.table, .json] {
            let output = Capture()
            guard let session = try? ShellSession(modelPath: nil, storePath: store.path,
                                                  renderOptions: RenderOptions(mode: mode, terminalWidth: 100), opening: opening)
            else { return }
            _ = session.run(".entities", fileName: nil, output: output)
            for entity in session.model.entities.prefix(20) where isIdentifier(entity.name) {
                _ = session.run("count \(entity.name)", fileName: nil, output: output)
                _ = session.run("\(entity.name) limit 3", fileName: nil, output: output)
            }
            for statement in input.statements { _ = session.run(statement, fileName: nil, output: output) }
            if ProcessInfo.processInfo.environment["MRQ_FUZZ_SHOW"] == "1" { print(output.text) }
            let shown = [secret, Data(secret.utf8).base64EncodedString(), Data(secret.utf8).map { String(format: "%02x", $0) }.joined()]
            if shown.contains(where: { output.text.lowercased().contains($0.lowercased()) }) {
                fatalError("the shell printed a file outside the store's folder:\n\(output.text.prefix(2000))")
            }
        }
        // And every value as the store reads it.
        guard let stored = try? PersistentStoreCoordinator.storedModel(at: store) else { return }
        let coordinator = PersistentStoreCoordinator(model: stored)
        var options = PersistentStoreOptions()
        options.readOnly = true
        guard (try? coordinator.addPersistentStore(type: .sqlite, at: store, options: options)) != nil else { return }
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for entity in stored.entities {
            guard let objects = try? context.fetch(FetchRequest(entityName: entity.name)) else { continue }
            for object in objects {
                for attribute in entity.attributes {
                    if case .data(let bytes) = object[attribute.name], bytes.range(of: Data(secret.utf8)) != nil {
                        fatalError("\(entity.name).\(attribute.name) read a file outside the store's folder")
                    }
                }
            }
        }
    }

    /// Changes the store as the input says, with SQLite itself: values are
    /// bound, and names are the file's own tables'.
    private static func damage(_ store: URL, _ input: StoreInput, outside: URL) {
        guard let db = try? Database(path: store.path) else { return }
        let tables = Set(((try? db.rows("SELECT name FROM sqlite_master WHERE type = 'table'")) ?? []).compactMap { row -> String? in
            if case .string(let name)? = row.first { return name }
            return nil
        })
        for (entity, number) in input.numbers {
            _ = try? db.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = ? WHERE Z_NAME = ?", [.int(number), .string(entity)])
        }
        for (table, values) in input.rows where tables.contains(table) {
            guard let columns = try? db.columns(of: table), !columns.isEmpty else { continue }
            let row = (0..<columns.count).map { $0 < values.count ? values[$0] : Value.null }
            let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            _ = try? db.execute("INSERT OR REPLACE INTO \(quoteIdentifier(table)) VALUES (\(marks))", row)
        }
        for table in input.keyless where tables.contains(table) {
            guard let copy = try? quoteIdentifier(table + "_COPY") else { continue }
            _ = try? db.execute("CREATE TABLE \(copy) AS SELECT * FROM \(quoteIdentifier(table))")
            _ = try? db.execute("DROP TABLE \(quoteIdentifier(table))")
            _ = try? db.execute("ALTER TABLE \(copy) RENAME TO \(quoteIdentifier(table))")
            _ = try? db.execute("INSERT INTO \(quoteIdentifier(table)) SELECT * FROM \(quoteIdentifier(table))")
        }
        for table in input.dropped where tables.contains(table) {
            _ = try? db.execute("DROP TABLE \(quoteIdentifier(table))")
        }
        if input.noCache { _ = try? db.execute("DELETE FROM Z_MODELCACHE") }
        let fileManager = FileManager.default
        let support = store.deletingLastPathComponent().appendingPathComponent(".Store_SUPPORT")
        let external = support.appendingPathComponent("_EXTERNAL_DATA")
        if input.linkedFolder {
            try? fileManager.createDirectory(at: support, withIntermediateDirectories: true)
            try? fileManager.createSymbolicLink(at: external, withDestinationURL: outside)
        } else {
            try? fileManager.createDirectory(at: external, withIntermediateDirectories: true)
        }
        for (name, bytes) in input.files where isPlainName(name) {
            try? bytes.write(to: external.appendingPathComponent(name))
        }
        for name in input.links where isPlainName(name) {
            try? fileManager.createSymbolicLink(at: external.appendingPathComponent(name),
                                                withDestinationURL: outside.appendingPathComponent("secret"))
        }
        // The links in a linked folder: names that resolve to the secret.
        if input.linkedFolder {
            for name in input.links where isPlainName(name) {
                try? fileManager.copyItem(at: outside.appendingPathComponent("secret"), to: outside.appendingPathComponent(name))
            }
        }
    }

    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\u{0}")
    }

    /// Whether a statement can name `name` as it is.
    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" }
    }

    /// What the shell printed, results and errors together.
    final class Capture: ShellOutput {
        var text = ""
        func write(_ s: String) { text += s }
        func writeError(_ s: String) { text += s }
        func flush() {}
        var isClosed: Bool { false }
        func progress(_ progress: WorkProgress?) {}
    }
}
