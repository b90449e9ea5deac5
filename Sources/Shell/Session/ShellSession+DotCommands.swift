import Foundation
import ObjectStore
import ObjectStorePostgres
import Predicates

extension ShellSession {
    /// The dot commands, with their usage, for `.help` and completion.
    static let dotCommands: [(name: String, usage: String, summary: String)] = [
        ("help", ".help [TOPIC]", "show help; topics: statements, predicates, operators, import, dot"),
        ("open", ".open [--migrate] [--migrate-dropping-data] PATH|URL [MODEL]",
         "open another store (:memory: for a new one in memory, postgres://user@host/db for a PostgreSQL database)"),
        ("save-as", ".save-as PATH|URL [sqlite|coredata|xml]",
         "copy the store to PATH (type from its extension; coredata: Core Data's own format, SQLite or, for PATH.xml, Apple's XML) "
            + "or into the empty PostgreSQL database at postgres://user@host/db, and use the copy"),
        ("model", ".model [--migrate] [--migrate-dropping-data] PATH", "use the model of an .xcdatamodel or .xcdatamodeld"),
        ("read", ".read FILE", "run the statements of a file"),
        ("mode", ".mode [table|line|json|csv]", "how results are shown; with none, which"),
        ("headers", ".headers [on|off]", "column names in table and csv modes"),
        ("binary", ".binary [decoded|preview|raw]",
         "how binary values show: archives and plists decoded, else size and first bytes (decoded, the default); "
            + "size and first bytes (preview); every byte as x'…' (raw; base64 in json)"),
        ("timer", ".timer [on|off]", "show each statement's time: real, user and system"),
        ("output", ".output [FILE]", "send results to FILE as plain text, or back to the screen"),
        ("once", ".once FILE", "send only the next statement's results to FILE"),
        ("pager", ".pager [on|off]", "page results taller than the terminal ($PAGER, else less -FRSX)"),
        ("bail", ".bail [on|off]", "stop a script at its first error"),
        ("strict", ".strict [on|off]", "exactly Apple's NSPredicate: refuse mrq's additions"),
        ("merge-policy", ".merge-policy [NAME]",
         "how a save meets other writers' changes to the same rows: mergeOrRefuse (the default: merge changes to different "
            + "properties, refuse the rest), error, mergeByPropertyObjectTrump, mergeByPropertyStoreTrump, overwrite, rollback"),
        ("schema", ".schema [ENTITY]", "the entity statements of the model"),
        ("dump", ".dump [ENTITY]", "an mrq script of the entity statements and every object, that rebuilds the store"),
        ("import", ".import FILE ENTITY", "add a CSV file's rows (a header row naming attributes) as new objects; undo takes them back"),
        ("entities", ".entities", "the entities with their object counts"),
        ("tables", ".tables", "the same as .entities (sqlite3's name)"),
        ("quit", ".quit", "leave mrq (asks first about unsaved changes)"),
        ("exit", ".exit", "leave mrq (asks first about unsaved changes)"),
    ]

    func runDotCommand(_ line: String, range: SourceRange, source: String, fileName: String?, output: OutputSink) -> Bool {
        let words = Self.shellWords(line.trimmingCharacters(in: .whitespaces).dropFirst())
        guard let name = words.first?.lowercased() else { return true }
        let arguments = Array(words.dropFirst())
        func fail(_ message: String) -> Bool {
            report(message, range: range, source: source, fileName: fileName, output: output)
            return false
        }
        // With no argument, a setting is shown.
        func onOff(_ current: Bool, _ apply: (Bool) -> Void) -> Bool {
            if arguments.isEmpty {
                output.status("\(name): \(current ? "on" : "off")")
                return true
            }
            guard arguments.count == 1, let flag = ["on": true, "off": false, "yes": true, "no": false][arguments[0].lowercased()] else {
                return fail("usage: .\(name) [on|off]")
            }
            apply(flag)
            return true
        }
        do {
            switch name {
            case "help":
                output.result(Help.text(topic: arguments.first))
            case "quit", "exit":
                quitRequested = true
            case "mode":
                if arguments.isEmpty {
                    output.status("mode: \(renderOptions.mode.rawValue)")
                    return true
                }
                guard arguments.count == 1, let mode = OutputMode(rawValue: arguments[0].lowercased()) else {
                    return fail("usage: .mode [table|line|json|csv]")
                }
                renderOptions.mode = mode
            case "headers":
                return onOff(renderOptions.headers) { renderOptions.headers = $0 }
            case "binary":
                if arguments.isEmpty {
                    output.status("binary: \(renderOptions.binary.rawValue)")
                    return true
                }
                guard arguments.count == 1, let binary = BinaryDisplay(rawValue: arguments[0].lowercased()) else {
                    return fail("usage: .binary [decoded|preview|raw]")
                }
                renderOptions.binary = binary
            case "timer":
                return onOff(timer) { timer = $0 }
            case "bail":
                return onOff(bail) { bail = $0 }
            case "strict":
                return onOff(strict) { strict = $0 }
            case "merge-policy":
                try runMergePolicy(arguments, output: output)
            case "output", "once":
                guard arguments.count <= 1, name == "output" || arguments.count == 1 else {
                    return fail(name == "output" ? "usage: .output [FILE]" : "usage: .once FILE")
                }
                guard let file = arguments.first else {
                    redirect = nil
                    return true
                }
                if namesStoreFile(path(file)) {
                    return fail(ShellDiagnostics.cannotWrite(file, because: "it is the open store, which .\(name) would empty"))
                }
                try ShellFiles.checkOutputPath(path(file), shownAs: file)
                let opened = try FileOutput(path: path(file), shownAs: file) {
                    output.error("waiting for a process to read the named pipe '\(TerminalText.escaped(file))' (Ctrl-C gives up)\n")
                }
                if name == "output" {
                    redirect = opened
                } else {
                    onceOutput = opened
                    onceCountdown = 2
                }
            case "pager":
                guard let setting = arguments.first else {
                    output.status("pager: " + (pagerOn ? "on (\(pagerCommand))" : "off"))
                    return true
                }
                guard arguments.count == 1, let flag = ["on": true, "off": false][setting.lowercased()] else {
                    return fail("usage: .pager [on|off]")
                }
                pagerOn = flag
            case "read":
                guard arguments.count == 1 else { return fail("usage: .read FILE") }
                guard readDepth < Self.maxReadDepth else { return fail(ShellDiagnostics.readTooDeep(arguments[0], depth: readDepth)) }
                let file = path(arguments[0])
                let text = try ShellFiles.readText(file, shownAs: arguments[0])
                readDepth += 1
                defer { readDepth -= 1 }
                return run(text, fileName: file, output: output.base)
            case "open":
                let (opening, arguments) = Self.migrationFlags(arguments)
                guard arguments.count == 1 || arguments.count == 2 else {
                    return fail("usage: .open [--migrate] [--migrate-dropping-data] PATH|URL [MODEL]")
                }
                let isFile = try arguments[0] != ":memory:" && PostgresStoreURL.parse(arguments[0]) == nil
                let storePath = isFile ? path(arguments[0]) : arguments[0]
                if isFile { try ShellFiles.checkStorePath(storePath, shownAs: arguments[0]) }
                let modelPath = arguments.count == 2 ? path(arguments[1]) : nil
                if let modelPath { try ShellFiles.checkModelPath(modelPath, shownAs: arguments[1]) }
                for line in try open(storePath: storePath, modelPath: modelPath, opening: opening) { output.status(line) }
                output.status("opened \(arguments[0]) (\(Self.countText(model.entities.count, "entity", "entities")))")
            case "save-as":
                let kinds: [String: (PersistentStoreType, StoreLayout)] = [
                    "sqlite": (.sqlite, .mrq), "coredata": (.sqlite, .coreData), "xml": (.xml, .mrq),
                ]
                let kind = arguments.count == 2 ? kinds[arguments[1].lowercased()] : nil
                guard arguments.count == 1 || kind != nil else { return fail("usage: .save-as PATH|URL [sqlite|coredata|xml]") }
                if let url = try PostgresStoreURL.parse(arguments[0]) {
                    guard arguments.count == 1 else { return fail(ShellDiagnostics.cannotSaveAs(arguments[0], because: "a PostgreSQL store has one type and mrq's layout: leave out '\(arguments[1])'")) }
                    do {
                        try saveAs(url, type: .postgres)
                    } catch let error as StoreError {
                        return fail(ShellDiagnostics.postgresProblem(arguments[0], error.description))
                    }
                    output.status("saved as \(arguments[0]) (postgres)")
                    return true
                }
                let destination = path(arguments[0])
                try ShellFiles.checkNewStorePath(destination, shownAs: arguments[0])
                let url = URL(fileURLWithPath: destination)
                // With no kind: from the extension, in the layout the store
                // has. `coredata` for a .xml file is Apple's XML store format.
                var type = kind?.0 ?? PersistentStoreType.forFile(url)
                if arguments.count == 2, arguments[1].lowercased() == "coredata", PersistentStoreType.forFile(url) == .xml {
                    type = .xml
                }
                let layout = kind?.1 ?? coordinator.persistentStores.first?.layout ?? .mrq
                try saveAs(url, type: type, layout: layout)
                let shown = switch (type, layout) {
                case (.sqlite, .coreData): "sqlite, Core Data layout"
                case (.xml, .coreData): "xml, Apple's XML store format"
                default: type.rawValue
                }
                output.status("saved as \(arguments[0]) (\(shown))")
            case "model":
                let (opening, arguments) = Self.migrationFlags(arguments)
                guard arguments.count <= 1 else { return fail("usage: .model [--migrate] [--migrate-dropping-data] PATH") }
                guard let given = arguments.first else {
                    output.status(Self.describe(model))
                    return true
                }
                guard !context.hasChanges else { return fail(ShellDiagnostics.pendingChangesBlockSchema()) }
                let modelPath = path(given)
                try ShellFiles.checkModelPath(modelPath, shownAs: given)
                let newModel = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: modelPath))
                for line in try changeModel(to: newModel, opening: opening) { output.status(line) }
                output.status("model \(given): " + Self.describe(newModel, bundle: false))
            case "schema":
                if let wanted = arguments.first {
                    guard let entity = model.entity(named: wanted) else {
                        return fail(ShellDiagnostics.unknownEntity(wanted, suggestion: Suggestions.closest(to: wanted, in: model.entities.map(\.name))))
                    }
                    output.result(schemaText(entity))
                } else {
                    output.result(schemaScript().joined(separator: "\n"))
                }
            case "import":
                try runDotImport(arguments, output: output)
            case "dump":
                try runDump(arguments, output: output)
            case "entities", "tables":
                var rows: [[Cell]] = []
                for entity in model.entities.sorted(by: { $0.name < $1.name }) {
                    var request = FetchRequest(entityName: entity.name)
                    request.includesSubentities = false
                    let count = try context.count(for: request)
                    rows.append([.value(.string(entity.name)), .value(entity.isAbstract ? .string("abstract") : .int(Int64(count)))])
                }
                output.result(Renderer(options: resultOptions).render(ResultSet(columns: ["entity", "objects"], rows: rows)))
            default:
                let names = Self.dotCommands.map(\.name)
                return fail(ShellDiagnostics.unknownDotCommand(name, suggestion: Suggestions.closest(to: name, in: names)))
            }
        } catch let error as LocatedError {
            return fail(error.message)
        } catch let error as ShellFiles.Problem {
            return fail(error.message)
        } catch {
            return fail("\(error)")
        }
        return true
    }

    /// A file name from a dot command or a statement, `~` expanded and
    /// made absolute against the script's folder (or the current one).
    func path(_ name: String) -> String {
        ShellFiles.resolve(name, relativeTo: baseDirectory)
    }

    /// Whether `path` is the open store's file or one of its companions
    /// (`-wal`, `-shm`, `-journal`).
    func namesStoreFile(_ path: String) -> Bool {
        guard storePath != ":memory:", coordinator.persistentStores.first?.url?.isFileURL == true else { return false }
        func real(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path }
        let target = real(path)
        return ["", "-wal", "-shm", "-journal"].contains { real(storePath + $0) == target }
    }

    /// `--migrate` and `--migrate-dropping-data` taken out of a dot
    /// command's words, and the words left.
    static func migrationFlags(_ words: [String]) -> (StoreOpening.Options, [String]) {
        var options = StoreOpening.Options()
        var rest: [String] = []
        for word in words {
            switch word {
            case "--migrate": options.migrate = true
            case "--migrate-dropping-data": options.migrate = true; options.migrateDroppingData = true
            default: rest.append(word)
            }
        }
        return (options, rest)
    }

    /// A model in one line: its version when it has one (and its bundle,
    /// with `bundle`), its entities.
    static func describe(_ model: ManagedObjectModel, bundle: Bool = true) -> String {
        var text = countText(model.entities.count, "entity", "entities")
        if let version = model.versionName {
            text = "version \(version)" + (bundle ? model.bundleName.map { " of \($0)" } ?? "" : "") + ", " + text
        }
        return text
    }

    static func countText(_ n: Int, _ one: String, _ many: String) -> String {
        "\(n) \(n == 1 ? one : many)"
    }

    /// Splits a dot command's arguments at spaces, honouring quotes.
    static func shellWords<S: StringProtocol>(_ text: S) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in text {
            if let q = quote {
                if character == q { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
