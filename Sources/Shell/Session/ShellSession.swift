import ActiveRecord
import Foundation
import ObjectStore
import ObjectStorePostgres
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
    /// Strict mode (`.strict on`, `mrq --strict`): exactly Apple's
    /// NSPredicate language; each of mrq's additions is refused.
    public var strict = false
    /// The text of the statement being run, which the predicates' ranges
    /// point into (for `explain`'s list of additions).
    var statementSource = ""
    /// Where `.output FILE` sends results.
    var redirect: FileOutput?
    /// Where `.once FILE` sends the next statement's results.
    var onceOutput: FileOutput?
    /// Statements (and dot commands) left before `.once` ends: 2 when
    /// set, as the `.once` itself counts.
    var onceCountdown = 0
    /// Whether a result taller than the terminal goes through the pager
    /// (`.pager on|off`); only when ``RenderOptions/terminalHeight`` is
    /// known, which mrq sets at an interactive terminal.
    var pagerOn: Bool
    /// The pager: `$PAGER`, or `less -FRSX`.
    let pagerCommand: String
    /// Where relative file names in statements are resolved.
    var baseDirectory: URL
    /// What opening the store did: the backup it made and what it
    /// migrated, for the executable to print.
    public private(set) var openingReport: [String] = []
    /// Set by `.quit` and `.exit`.
    public var quitRequested = false

    /// Leaves the context's objects to the process's end (a large import's
    /// graph is freed by the kernel at exit, not object by object); the
    /// stores, outputs and temporary folders still close as the session
    /// goes, since the objects keep none of them.
    public func prepareForExit() {
        context.leaveObjectsToProcessExit()
    }

    /// Throws when Ctrl-C asked the running statement to stop; tests put
    /// their own in (the real flag is the whole process's).
    var checkInterrupt: () throws -> Void = StatementInterrupt.check
    /// How many `.read`s are running inside each other.
    var readDepth = 0
    /// More nested `.read`s than this are a script reading itself.
    static let maxReadDepth = 32

    enum Variable {
        case value(Value)
        /// `let NAMES = {"Zoey", "Kai"}`: a collection of values, which a
        /// predicate sees as the aggregate (`FirstName IN $NAMES`).
        case collection([Value])
        /// Objects of a query, or the one object of `first …` (`one`).
        case objects([ManagedObject], entity: EntityDescription, one: Bool)
    }

    /// Opens `storePath` (a SQLite file, an XML store when it ends in
    /// `.xml`, a PostgreSQL database named by a `postgres://` URL (see
    /// `PostgresStoreURL`), or `:memory:`) with the model at
    /// `modelPath` (`.xcdatamodel` or `.xcdatamodeld`); without a model,
    /// the store's own model, or an empty one that `entity` statements grow.
    /// A store made with another model opens only as `opening` allows
    /// (see `StoreOpening`); what opening did is in `openingReport`.
    public init(modelPath: String?, storePath: String, parameters: [(name: String, value: String)] = [],
                renderOptions: RenderOptions = RenderOptions(), opening: StoreOpening.Options = .init()) throws {
        // The shell opens every kind of store it links.
        PersistentStoreCoordinator.register(PostgresEngine())
        self.renderOptions = renderOptions
        self.storePath = storePath
        self.baseDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let postgresURL = try PostgresStoreURL.parse(storePath)
        let storeURL: URL? = storePath == ":memory:" ? nil : postgresURL ?? URL(fileURLWithPath: storePath)
        do {
            // Reading the store's model, previewing a migration and opening
            // it share one snapshot of a store that needs one.
            (model, coordinator, openingReport) = try StoreFiles.sharingSnapshots {
                if modelPath == nil, let storeURL, let opened = try StoreOpening.openWithStoredModel(storeURL, options: opening) {
                    return (opened.model, opened, [])
                }
                let model: ManagedObjectModel
                if let modelPath {
                    model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: modelPath))
                } else if let storeURL, let stored = try PersistentStoreCoordinator.storedModel(at: storeURL) {
                    model = stored
                } else {
                    if postgresURL == nil, let storeURL, !opening.createsEmptyStore,
                       let reason = try PersistentStoreCoordinator.emptiness(ofStoreAt: storeURL) {
                        throw LocatedError(ShellDiagnostics.cannotOpenStore(storePath, because: reason + ", not a store"), .unknown)
                    }
                    model = try ManagedObjectModel(entities: [])
                }
                let (coordinator, report) = try StoreOpening.open(storeURL, model: model, modelGiven: modelPath != nil,
                                                                  options: opening)
                return (model, coordinator, report)
            }
        } catch let error as StoreError where postgresURL != nil {
            // The server's reason (refused, authentication, no such
            // database) after the URL, in one line.
            throw LocatedError(ShellDiagnostics.postgresProblem(storePath, error.description), .unknown)
        }
        context = Self.makeContext(coordinator, undoManager: undoManager)
        // As psql: PAGER set but empty turns the pager off.
        let pager = ProcessInfo.processInfo.environment["PAGER"]
        pagerCommand = pager.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? "less -FRSX"
        pagerOn = pager.map { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? true
        for (name, text) in parameters {
            variables[name] = .value(Self.parameterValue(text))
        }
    }

    /// The session's context: it records undo, and merges a save with
    /// what other processes saved meanwhile by `policy`; by default
    /// (`mergeOrRefuse`) property by property, so that two shells changing
    /// different attributes of the same rows both save, while a change
    /// that would overwrite another writer's, a new object landing on a
    /// stored row's unique key, or an update of a row deleted elsewhere is
    /// refused (see `.merge-policy`).
    static func makeContext(_ coordinator: PersistentStoreCoordinator, undoManager: UndoManager,
                            policy: MergePolicy = .mergeOrRefuse) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        context.undoManager = undoManager
        context.mergePolicy = policy
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

    // MARK: - Where results go

    /// The file results go to: `.once`'s, else `.output`'s.
    var outputFile: FileOutput? { onceOutput ?? redirect }

    /// Stops writing to `file` (it failed): results go to the screen.
    func closeOutputFile(_ file: FileOutput) {
        if onceOutput === file {
            onceOutput = nil
            onceCountdown = 0
        }
        if redirect === file { redirect = nil }
    }

    /// The options results are rendered with: a file gets plain text, no
    /// colours and no layout for the terminal's width.
    var resultOptions: RenderOptions {
        guard outputFile != nil else { return renderOptions }
        var options = renderOptions
        options.color = false
        options.terminalWidth = nil
        options.terminalHeight = nil
        return options
    }

    /// The pager command and the screen's height, when a tall result on
    /// the screen is to be paged.
    var pager: (command: String, height: Int)? {
        guard pagerOn, outputFile == nil, let height = renderOptions.terminalHeight else { return nil }
        return (pagerCommand, height)
    }

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
            let started = timer ? RunTime.now() : nil
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
            // A store that reconnected (a server restarted) says so.
            for notice in coordinator.takeStoreNotices() { out.status(notice) }
            if timer, let started { out.status(started.report()) }
            out.endStatement()
            if onceCountdown > 0 {
                onceCountdown -= 1
                if onceCountdown == 0 { onceOutput = nil }
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
        for (predicate, _) in statement.statement.predicates {
            for warning in predicate.warnings {
                report(warning.message, range: warning.range, source: source, fileName: fileName, output: output, severity: "warning")
            }
        }
        statementSource = source
        if strict, let use = additions(in: statement.statement, source: source).first {
            report(use.message, range: use.range, source: source, fileName: fileName, output: output)
            return false
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

    /// Writes a diagnostic; its message may name what a file holds (an
    /// entity, a value), so its control characters are escaped.
    func report(_ message: String, range: SourceRange, source: String, fileName: String?, output: OutputSink,
                severity: String = "error") {
        // The line echoed under the message never shows a URL's password.
        let source = PostgresStoreURL.redactingPasswords(in: source, keepingLength: true)
        output.error(DiagnosticRenderer.render(message: TerminalText.escaped(message), range: range, source: source,
                                               fileName: fileName.map { TerminalText.escaped($0) }, severity: severity) + "\n")
    }

    // MARK: - Model changes

    /// Replaces the model (after an `entity` statement), migrating the store.
    func replaceModel(with newModel: ManagedObjectModel, allowsDataLoss: Bool = false) throws {
        let newCoordinator: PersistentStoreCoordinator
        do {
            if let url = postgresURL {
                var opening = StoreOpening.Options()
                opening.migrate = true
                opening.migrateDroppingData = allowsDataLoss
                newCoordinator = try reopenPostgres(url, with: newModel, opening: opening).0
            } else {
                newCoordinator = try coordinator.replacingModel(with: newModel, allowsDataLoss: allowsDataLoss)
            }
        } catch let error as StoreError where error.migration?.dropsData == true {
            throw LocatedError(ShellDiagnostics.schemaChangeDropsData(error.migration!.lossSummary), .unknown)
        }
        use(newModel, on: newCoordinator)
    }

    /// Carries on with `newModel` on `newCoordinator`: a new context, no
    /// undo, no variables holding objects of the old one.
    private func use(_ newModel: ManagedObjectModel, on newCoordinator: PersistentStoreCoordinator) {
        model = newModel
        coordinator = newCoordinator
        context = Self.makeContext(newCoordinator, undoManager: undoManager, policy: context.mergePolicy)
        undoManager.removeAllActions()
        variables = variables.filter { if case .objects = $0.value { return false }; return true }
    }

    /// The PostgreSQL database at `url` opened again with `newModel`, the
    /// store migrating it (in one transaction) only as `opening` asks, and
    /// what it reported. With `flags`, a migration is previewed, refused
    /// and reported as `.model` does it on a file, naming them.
    private func reopenPostgres(_ url: URL, with newModel: ManagedObjectModel, opening: StoreOpening.Options,
                                flags: (migrate: String, drop: String)? = nil) throws -> (PersistentStoreCoordinator, [String]) {
        do {
            return try StoreOpening.open(url, model: newModel, modelGiven: true, options: opening, postgresFlags: flags)
        } catch let error as StoreError where error.migration == nil {
            throw LocatedError(ShellDiagnostics.postgresProblem(storePath, error.description), .unknown)
        }
    }

    /// Uses `newModel` on the open store (`.model`): a change that needs a
    /// migration is made only as `opening` asks, after a backup of a store
    /// file (a PostgreSQL store has none: its migration is one
    /// transaction); returns what was done.
    func changeModel(to newModel: ManagedObjectModel, opening: StoreOpening.Options) throws -> [String] {
        if let url = postgresURL {
            let (reopened, report) = try reopenPostgres(url, with: newModel, opening: opening,
                                                        flags: (".model --migrate", ".model --migrate-dropping-data"))
            use(newModel, on: reopened)
            return report
        }
        var report: [String] = []
        var allowsDataLoss = false
        if coordinator.persistentStores.first?.storeType != .xml, let preview = try coordinator.migrationPreview(to: newModel) {
            let shown = storePath == ":memory:" ? "the store" : URL(fileURLWithPath: storePath).lastPathComponent
            try StoreOpening.check(preview, shown: shown, options: opening, readOnly: false,
                                   flags: (".model --migrate", ".model --migrate-dropping-data"))
            if storePath != ":memory:" {
                // Migrating is writing: the store is opened for it first.
                try coordinator.openStoresForWriting()
                report.append(try StoreOpening.backUp(URL(fileURLWithPath: storePath), through: coordinator))
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
        storePath = type == .postgres ? url.absoluteString : url.path
    }

    /// The URL of the open PostgreSQL store, as it was opened.
    var postgresURL: URL? {
        coordinator.persistentStores.first.flatMap { $0.storeType == .postgres ? $0.url : nil }
    }

    private func adopt(_ other: ShellSession) {
        model = other.model
        coordinator = other.coordinator
        context = other.context
        context.undoManager = undoManager
        undoManager.removeAllActions()
        storePath = other.storePath
        variables = variables.filter { if case .objects = $0.value { return false }; return true }
    }

    /// The additions to Apple's NSPredicate a statement's predicates and
    /// expressions use, in source order, the model-bound ones included.
    func additions(in statement: Statement, source: String) -> [AdditionUse] {
        let inPredicates = statement.predicates.flatMap { predicate, name in
            predicate.additions(in: source, entity: name.flatMap { try? entity($0).name }, schema: model)
        }
        let inExpressions = statement.expressions.flatMap { $0.additions(in: source) }
        return (inPredicates + inExpressions).sorted { $0.range.start.offset < $1.range.start.offset }
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

/// Where results and messages go: the session's output, a file after
/// `.output FILE` or `.once FILE`, or a pager for a tall result at the
/// terminal. Status lines (`inserted 1 Person`) go to standard error in
/// json and csv modes, so those outputs stay machine-readable.
///
/// One sink serves one `run`; ``endStatement()`` ends each statement's
/// output: what is held is written, the pager is waited for.
final class OutputSink {
    let base: ShellOutput
    unowned let session: ShellSession
    /// This statement's results on the terminal, paged when tall.
    private var paged: PagedOutput?
    /// Set when the file took no more: the rest of this statement's
    /// results are dropped, and its row loop stops.
    private var stopped = false

    init(base: ShellOutput, session: ShellSession) {
        self.base = base
        self.session = session
    }

    /// Why writing to the `.output` file (or running the pager) failed,
    /// until the statement that wrote reports it.
    private(set) var writeProblem: String?

    /// A whole result: a newline is added when it has none.
    func result(_ text: String) {
        guard !text.isEmpty else { return }
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Part of a result being streamed, as is.
    func write(_ text: String) {
        guard !stopped else { return }
        guard let file = session.outputFile else {
            toScreen(text)
            return
        }
        do {
            try file.write(text)
        } catch {
            fileFailed(file, error)
        }
    }

    /// A status line (`inserted 1 Person`, `opened …`): it can name what a
    /// file holds (an entity, a model's version), so its control
    /// characters are escaped.
    func status(_ text: String) {
        let escaped = TerminalText.escaped(text, keepingLines: true)
        let line = escaped.hasSuffix("\n") ? escaped : escaped + "\n"
        switch session.renderOptions.mode {
        case .json, .csv: error(line)
        default: write(line)
        }
    }

    /// Whether results can no longer be written: the file failed, or the
    /// reader of standard output or the pager went away.
    var isClosed: Bool {
        if stopped { return true }
        if session.outputFile != nil { return false }
        return paged?.isClosed ?? base.isClosed
    }

    private func toScreen(_ text: String) {
        if paged == nil, let (command, height) = session.pager {
            paged = PagedOutput(command: command, height: height, screen: base)
        }
        if let paged { paged.write(text) } else { base.write(text) }
    }

    /// The file takes no more (a full disk, a pipe whose reader left):
    /// this statement's results stop, the later ones go to the screen,
    /// and the statement reports why.
    private func fileFailed(_ file: FileOutput, _ error: ShellFiles.Problem) {
        session.closeOutputFile(file)
        stopped = true
        if writeProblem == nil { writeProblem = ShellDiagnostics.outputBackToScreen(error.message) }
    }

    /// Ends the statement's output: the file's block and standard
    /// output's buffer are written, a short result held for the pager goes
    /// to the screen, and a running pager is waited for.
    func endStatement() {
        if let file = session.outputFile {
            do { try file.flush() } catch { fileFailed(file, error) }
        }
        finishPaging()
        base.flush()
        stopped = false
    }

    private func finishPaging() {
        guard let paged else { return }
        self.paged = nil
        paged.finish()
        if writeProblem == nil { writeProblem = paged.takeProblem() }
    }

    /// The write problem since the last call, if any.
    func takeWriteProblem() -> String? {
        defer { writeProblem = nil }
        return writeProblem
    }

    /// A diagnostic: after the results so far, the pager's included.
    func error(_ text: String) {
        finishPaging()
        base.writeError(text)
    }

    /// Long work under way (see ``WorkMeter``): always to the session's
    /// output, which shows it on a terminal, whatever `.output` says;
    /// not while a pager has the terminal.
    func progress(_ progress: WorkProgress?) {
        guard paged?.isPaging != true else { return }
        base.progress(progress)
    }

    /// Whether the session's output shows progress at all.
    var showsProgress: Bool { base.showsProgress }
}
