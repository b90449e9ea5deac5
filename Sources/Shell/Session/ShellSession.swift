import ActiveRecord
import Foundation
import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// The mrq statement interpreter: one store, one context of pending
/// changes, variables, and the output settings.
///
/// ```swift
/// let session = try ShellSession(modelPath: "Samples/People.xcdatamodeld", storePath: ":memory:")
/// session.run("count Person", fileName: nil, output: output)
/// ```
///
/// Changes stay in the context until `save`; each statement is one undo
/// group. No terminal I/O here: the executable and the tests drive it.
public final class ShellSession: ShellSessionProtocol {
    public var renderOptions: RenderOptions
    public private(set) var model: ManagedObjectModel
    public private(set) var coordinator: PersistentStoreCoordinator
    public private(set) var context: ManagedObjectContext
    public private(set) var storePath: String
    let undoManager = UndoManager()
    /// `let` bindings and `--param` values.
    var variables: [String: Variable] = [:]
    /// Stop a script at its first error.
    public var bail = true
    var timer = false
    var redirect: FileOutput?
    /// Where relative file names in statements are resolved.
    var baseDirectory: URL
    /// What opening the store did: the backup it made and what it
    /// migrated, for the executable to print.
    public private(set) var openingReport: [String] = []
    /// Set by `.quit` and `.exit`.
    public var quitRequested = false
    /// How many `.read`s are running inside each other.
    var readDepth = 0
    /// More nested `.read`s than this are a script reading itself.
    static let maxReadDepth = 32

    enum Variable {
        case value(Value)
        /// Objects of a query, or the one object of `first …` (`one`).
        case objects([ManagedObject], entity: EntityDescription, one: Bool)
    }

    /// Opens `storePath` (a SQLite file, an XML store when it ends in
    /// `.xml`, or `:memory:`) with the model at
    /// `modelPath` (`.xcdatamodel` or `.xcdatamodeld`); without a model,
    /// the store's own model, or an empty one that `entity` statements grow.
    /// A store made with another model opens only as `opening` allows
    /// (see `StoreOpening`); what opening did is in `openingReport`.
    public init(modelPath: String?, storePath: String, parameters: [(name: String, value: String)] = [],
                renderOptions: RenderOptions = RenderOptions(), opening: StoreOpening.Options = .init()) throws {
        self.renderOptions = renderOptions
        self.storePath = storePath
        self.baseDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let storeURL: URL? = storePath == ":memory:" ? nil : URL(fileURLWithPath: storePath)
        if let modelPath {
            model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: modelPath))
        } else if let storeURL, let stored = try PersistentStoreCoordinator.storedModel(at: storeURL) {
            model = stored
        } else {
            model = try ManagedObjectModel(entities: [])
        }
        (coordinator, openingReport) = try StoreOpening.open(storeURL, model: model, modelGiven: modelPath != nil, options: opening)
        context = Self.makeContext(coordinator, undoManager: undoManager)
        for (name, text) in parameters {
            variables[name] = .value(Self.parameterValue(text))
        }
    }

    /// The session's context: it records undo, and merges a save with
    /// what other processes saved meanwhile property by property, as
    /// MagicalRecord's contexts do (`mergeByPropertyObjectTrump`): two
    /// shells changing different attributes of the same rows both save.
    static func makeContext(_ coordinator: PersistentStoreCoordinator, undoManager: UndoManager) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        context.undoManager = undoManager
        context.mergePolicy = .mergeByPropertyObjectTrump
        return context
    }

    /// `--param n=42` is a number, `true`/`false` booleans, `nil` null,
    /// `@2024-01-31` a date; anything else a string.
    static func parameterValue(_ text: String) -> Value {
        if let i = Int64(text) { return .int(i) }
        if let d = Double(text) { return .double(d) }
        switch text.lowercased() {
        case "true", "yes": return .bool(true)
        case "false", "no": return .bool(false)
        case "nil", "null": return .null
        default: break
        }
        if text.hasPrefix("@"), let expression = try? Expression(format: text), case .constant(let v) = expression.kind {
            return v
        }
        return .string(text)
    }

    public var prompt: String { context.hasChanges ? "mrq*> " : "mrq> " }

    /// The inserted, updated and deleted objects not saved yet, per entity.
    public var pendingChanges: PendingChanges { PendingChanges(of: context) }

    // MARK: - Running text

    /// Runs statements and dot commands; returns false if any failed. In a
    /// script (`fileName` given) with `bail` on, stops at the first error.
    @discardableResult
    public func run(_ source: String, fileName: String?, output: ShellOutput) -> Bool {
        let out = OutputSink(base: output, session: self)
        var ok = true
        // File names in a script are relative to the script's folder.
        let savedBase = baseDirectory
        defer { baseDirectory = savedBase }
        if let fileName, !fileName.hasPrefix("<") {
            let url = URL(fileURLWithPath: fileName, relativeTo: baseDirectory)
            if FileManager.default.fileExists(atPath: url.path) { baseDirectory = url.deletingLastPathComponent() }
        }
        for item in ScriptSplitter.split(source) {
            let started = DispatchTime.now()
            var succeeded: Bool
            switch item {
            case .dotCommand(let line, let range):
                succeeded = runDotCommand(line, range: range, source: source, fileName: fileName, output: out)
            case .statements(let tokens):
                succeeded = runStatement(tokens: tokens, source: source, fileName: fileName, output: out)
            case .lexError(let error):
                report(error.message, range: error.range, source: source, fileName: fileName, output: out)
                succeeded = false
            }
            if timer {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
                out.status(String(format: "Run Time: real %.3f\n", elapsed))
            }
            if let problem = out.takeWriteProblem() {
                report(problem, range: item.range, source: source, fileName: fileName, output: out)
                succeeded = false
            }
            if !succeeded {
                ok = false
                if bail && fileName != nil { break }
            }
            if quitRequested { break }
        }
        return ok
    }

    public func isComplete(_ text: String) -> Bool {
        ScriptSplitter.isComplete(text)
    }

    private func runStatement(tokens: [Token], source: String, fileName: String?, output: OutputSink) -> Bool {
        StatementInterrupt.reset()
        var parser = StatementParser(parser: Parser(tokens: tokens, source: source), source: source)
        let statement: LocatedStatement
        do {
            statement = try parser.parseWholeStatement()
        } catch {
            report(error.message, range: error.range, source: source, fileName: fileName, output: output)
            return false
        }
        // A statement that changes objects is one undo group; when it
        // fails half-way (the 600th update does not fit), its changes are
        // undone, so it either happens whole or not at all.
        // Warnings (a LIKE pattern with %) go to standard error; the
        // statement runs.
        for predicate in statement.statement.predicates {
            for warning in predicate.warnings {
                report(warning.message, range: warning.range, source: source, fileName: fileName, output: output, severity: "warning")
            }
        }
        let atomic = statement.statement.changesObjects
        if atomic { undoManager.beginUndoGrouping() }
        do {
            try execute(statement.statement, output: output)
            undoManager.endUndoGrouping()
            return true
        } catch {
            if atomic { undoManager.endUndoGroupingAndRevert() } else { undoManager.endUndoGrouping() }
            reportFailure(error, statement: statement, source: source, fileName: fileName, output: output)
            return false
        }
    }

    private func reportFailure(_ error: any Error, statement: LocatedStatement, source: String, fileName: String?, output: OutputSink) {
        do {
            throw error
        } catch let error as SyntaxError {
            report(error.message, range: error.range, source: source, fileName: fileName, output: output)
        } catch let error as EvaluationError {
            report(error.message, range: error.range == .unknown ? statement.range : error.range, source: source, fileName: fileName, output: output)
        } catch let error as StoreError where error.kind == .interrupted {
            report("interrupted", range: statement.range, source: source, fileName: fileName, output: output)
        } catch let error as LocatedError {
            report(error.message, range: error.range == .unknown ? statement.range : error.range, source: source, fileName: fileName, output: output)
        } catch {
            report("\(error)", range: statement.range, source: source, fileName: fileName, output: output)
        }
    }

    func report(_ message: String, range: SourceRange, source: String, fileName: String?, output: OutputSink,
                severity: String = "error") {
        output.error(DiagnosticRenderer.render(message: message, range: range, source: source, fileName: fileName,
                                               severity: severity) + "\n")
    }

    // MARK: - Model changes

    /// Replaces the model (after an `entity` statement), migrating the store.
    func replaceModel(with newModel: ManagedObjectModel, allowsDataLoss: Bool = false) throws {
        let newCoordinator: PersistentStoreCoordinator
        do {
            newCoordinator = try coordinator.replacingModel(with: newModel, allowsDataLoss: allowsDataLoss)
        } catch let error as StoreError where error.migration?.dropsData == true {
            throw LocatedError(ShellDiagnostics.schemaChangeDropsData(error.migration!.lossSummary), .unknown)
        }
        model = newModel
        coordinator = newCoordinator
        context = Self.makeContext(newCoordinator, undoManager: undoManager)
        undoManager.removeAllActions()
        variables = variables.filter { if case .value = $0.value { return true }; return false }
    }

    /// Uses `newModel` on the open store (`.model`): a change that needs a
    /// migration is made only as `opening` asks, after a backup of a store
    /// file; returns what was done.
    func changeModel(to newModel: ManagedObjectModel, opening: StoreOpening.Options) throws -> [String] {
        var report: [String] = []
        var allowsDataLoss = false
        if coordinator.persistentStores.first?.storeType != .xml, let preview = try coordinator.migrationPreview(to: newModel) {
            let shown = storePath == ":memory:" ? "the store" : URL(fileURLWithPath: storePath).lastPathComponent
            try StoreOpening.check(preview, shown: shown, options: opening, readOnly: false,
                                   flags: (".model --migrate", ".model --migrate-dropping-data"))
            if storePath != ":memory:" {
                report.append(try StoreOpening.backUp(URL(fileURLWithPath: storePath), through: coordinator.store.database))
            }
            report.append("migrated \(shown): " + preview.changes.joined(separator: "; "))
            allowsDataLoss = opening.migrateDroppingData
        }
        try replaceModel(with: newModel, allowsDataLoss: allowsDataLoss)
        return report
    }

    /// Opens another store (`.open`), keeping the model when the store has
    /// none; returns what opening did (see `openingReport`).
    @discardableResult
    func open(storePath: String, modelPath: String?, opening: StoreOpening.Options = .init()) throws -> [String] {
        let fresh = try ShellSession(modelPath: modelPath, storePath: storePath, renderOptions: renderOptions, opening: opening)
        if modelPath == nil, fresh.model.entities.isEmpty, !model.entities.isEmpty, storePath == ":memory:" {
            let again = try ShellSession(modelPath: nil, storePath: storePath, renderOptions: renderOptions)
            try again.replaceModel(with: ManagedObjectModel(archive: model.archived()))
            adopt(again)
            return []
        }
        adopt(fresh)
        return fresh.openingReport
    }

    /// Copies the store to `url` as a store of `type` and carries on there
    /// (`.save-as`); unsaved changes stay unsaved.
    func saveAs(_ url: URL, type: PersistentStoreType, layout: StoreLayout = .mrq) throws {
        guard let store = coordinator.persistentStores.first else { return }
        var options = PersistentStoreOptions()
        options.layout = layout
        try coordinator.migratePersistentStore(store, to: url, type: type, options: options)
        storePath = url.path
    }

    private func adopt(_ other: ShellSession) {
        model = other.model
        coordinator = other.coordinator
        context = other.context
        context.undoManager = undoManager
        undoManager.removeAllActions()
        storePath = other.storePath
        variables = variables.filter { if case .value = $0.value { return true }; return false }
    }

    func entity(_ name: Name) throws -> EntityDescription {
        if let entity = model.entity(named: name.text) { return entity }
        let names = model.entities.map(\.name)
        if let match = model.entities.first(where: { $0.name.caseInsensitiveCompare(name.text) == .orderedSame }) {
            return match
        }
        throw LocatedError(ShellDiagnostics.unknownEntity(name.text, suggestion: Suggestions.closest(to: name.text, in: names)), name.range)
    }
}

/// An error with its place in the source.
struct LocatedError: Error, CustomStringConvertible {
    let message: String
    let range: SourceRange
    var description: String { message }
    init(_ message: String, _ range: SourceRange) {
        self.message = message
        self.range = range
    }
}

/// Where results and messages go: the session's output, or a file after
/// `.output FILE`. Status lines (`inserted 1 Person`) go to standard error
/// in json and csv modes, so those outputs stay machine-readable.
final class OutputSink {
    let base: ShellOutput
    unowned let session: ShellSession

    init(base: ShellOutput, session: ShellSession) {
        self.base = base
        self.session = session
    }

    /// Why writing to the `.output` file failed, until the statement
    /// that wrote reports it.
    private(set) var writeProblem: String?

    func result(_ text: String) {
        guard !text.isEmpty else { return }
        let line = text.hasSuffix("\n") ? text : text + "\n"
        toFileOrScreen(line)
    }

    func status(_ text: String) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        switch session.renderOptions.mode {
        case .json, .csv: base.writeError(line)
        default: toFileOrScreen(line)
        }
    }

    /// Writes to the `.output` file; when it takes no more (a full disk, a
    /// pipe whose reader left), results go back to the screen, this one
    /// included, and the statement reports why.
    private func toFileOrScreen(_ line: String) {
        guard let file = session.redirect else {
            base.write(line)
            return
        }
        do {
            try file.write(line)
        } catch {
            session.redirect = nil
            if writeProblem == nil { writeProblem = ShellDiagnostics.outputBackToScreen(error.message) }
            base.write(line)
        }
    }

    /// The write problem since the last call, if any.
    func takeWriteProblem() -> String? {
        defer { writeProblem = nil }
        return writeProblem
    }

    func error(_ text: String) {
        base.writeError(text)
    }
}
