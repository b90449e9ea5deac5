import ArgumentParser
import Logging
import CEditLine
import Foundation
import Shell

/// The version `mrq --version` prints.
let mrqVersion = "0.1.0"

/// `mrq`: opens a store and runs statements from `-c`, files, standard
/// input, or a line-edited prompt.
///
/// Exit status follows sysexits(3): 0 success, 64 usage error, 65 the
/// script had errors (or the model or store could not be loaded), 70
/// internal failure, 74 standard output could not be written, 75 the run
/// ended with unsaved changes (and nothing else went wrong).
@main
struct MRQCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrq",
        abstract: "Query and edit Core Data stores with NSPredicate syntax.",
        discussion: """
            With no -c and no FILE, mrq reads statements from standard input: \
            at a prompt with line editing when it is a terminal, as one script \
            otherwise. History lives in ~/.mrq_history (MRQ_HISTORY overrides; a \
            name that is not a file, such as /dev/null, keeps it in memory). \
            Colour is used when standard output is a terminal, NO_COLOR is unset \
            and --no-color is not given.

            Changes stay pending until 'save'. Leaving the prompt (Ctrl-D, .quit, \
            .exit) with unsaved changes asks whether to save them, discard them or \
            stay (Enter); Ctrl-D at that question leaves them unsaved. A run of -c \
            statements, FILEs or piped standard input that ends with unsaved \
            changes names them on standard error and exits with 75.

            Exit status: 0 success, 64 usage error, 65 the statements had errors \
            (or the model or store could not be loaded), 70 internal failure, 74 \
            standard output could not be written, 75 the run ended with unsaved \
            changes (end a script with 'save' or 'rollback').

            Shell completion: 'mrq --generate-completion-script bash' (or zsh, \
            fish) prints a script that completes mrq's options; 'make install' \
            installs it with mrq and its manual page, mrq(1).
            """,
        version: mrqVersion
    )

    @Option(help: ArgumentHelp("The managed object model (.xcdatamodeld or .xcdatamodel).", valueName: "path"))
    var model: String?

    @Option(help: ArgumentHelp("The store to open: a SQLite (or .xml) file, :memory:, or a PostgreSQL database as postgres://user@host:port/database (PG* variables fill in what it leaves out; the password comes from ~/.pgpass or PGPASSWORD, never the URL).", valueName: "path|url"))
    var store: String = ":memory:"

    @Option(help: "How results are printed.")
    var format: Format = .table

    @Option(help: "How binary values are shown: archives and property lists decoded, else their size and first bytes (decoded); size and first bytes (preview); every byte, x'…' (raw).")
    var binary: Binary = .decoded

    @Option(name: .customLong("param"), help: ArgumentHelp("Binds $name to value; repeatable.", valueName: "name=value"))
    var parameters: [String] = []

    @Option(name: .customShort("c"), help: ArgumentHelp("Runs a statement before any FILE; repeatable.", valueName: "statement"))
    var commands: [String] = []

    @Flag(help: "Migrate a store made with another model (a backup is made first).")
    var migrate = false

    @Flag(name: .customLong("migrate-dropping-data"), help: "Migrate even when that drops rows or values (a backup is made first).")
    var migrateDroppingData = false

    @Flag(name: .customLong("read-only"), help: "Open the store read-only: nothing can be saved.")
    var readOnly = false

    @Flag(help: "Open read-only and tell SQLite the file cannot change (immutable): for a copy on read-only media or kept as evidence; implies --read-only.")
    var immutable = false

    @Option(help: "The table layout of a new store: mrq's readable one, or Core Data's own (ZPERSON, Z_PK, …), which an iOS or macOS app opens; for a new .xml store, coredata writes Apple's XML store format.")
    var layout: Layout = .mrq

    @Flag(help: "Say on standard error which model (and version) and store were opened, and what migrated.")
    var verbose = false

    @Flag(name: .customLong("no-color"), help: "Never colour the output.")
    var noColor = false

    @Flag(name: [.customShort("q"), .long], help: "No progress bar for long work (none is drawn unless standard error is a terminal and NO_COLOR is unset).")
    var quiet = false

    @Flag(help: "Strict mode: parse exactly Apple's NSPredicate language and refuse mrq's additions (date literals, readable function names, a to-many key path without ANY…), as .strict on does.")
    var strict = false

    @Flag(name: [.customShort("i"), .long], help: "Read statements interactively after -c and FILEs, even when standard input is not a terminal.")
    var interactive = false

    @Argument(help: ArgumentHelp("Script files to run, in order.", valueName: "file.mrq"))
    var files: [String] = []

    enum Layout: String, CaseIterable, ExpressibleByArgument {
        case mrq, coredata

        var layout: StoreLayout { self == .coredata ? .coreData : .mrq }
    }

    enum Binary: String, CaseIterable, ExpressibleByArgument {
        case decoded, preview, raw

        var display: BinaryDisplay { BinaryDisplay(rawValue: rawValue) ?? .decoded }
    }

    enum Format: String, CaseIterable, ExpressibleByArgument {
        case table, line, json, csv

        var mode: OutputMode { OutputMode(rawValue: rawValue) ?? .table }
    }

    mutating func validate() throws {
        for parameter in parameters {
            _ = try Self.parseParameter(parameter)
        }
        // A password in a PostgreSQL URL is refused before anything connects.
        do {
            _ = try PostgresStoreURL.parse(store)
        } catch {
            throw ValidationError(error.message)
        }
        for path in files + [model].compactMap({ $0 }) {
            guard FileManager.default.fileExists(atPath: path) else {
                throw ValidationError("no such file: \(path)")
            }
        }
    }

    static func parseParameter(_ text: String) throws -> (name: String, value: String) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ValidationError("invalid --param '\(text)': expected name=value")
        }
        let name = String(text[..<equals])
        let isIdentifier = name.first.map { $0.isLetter || $0 == "_" } == true
            && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        guard isIdentifier else {
            throw ValidationError("invalid --param '\(text)': '\(name)' is not a parameter name")
        }
        return (name, String(text[text.index(after: equals)...]))
    }

    func makeOptions() throws -> CommandLineOptions {
        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        let environment = ProcessInfo.processInfo.environment
        let noColorSet = !(environment["NO_COLOR"] ?? "").isEmpty
        var opening = StoreOpening.Options()
        opening.migrate = migrate || migrateDroppingData
        opening.migrateDroppingData = migrateDroppingData
        opening.readOnly = readOnly || immutable
        opening.immutable = immutable
        opening.layout = layout.layout
        return CommandLineOptions(
            modelPath: model,
            storePath: store,
            parameters: try parameters.map(Self.parseParameter),
            commands: commands,
            files: files,
            renderOptions: RenderOptions(
                mode: format.mode,
                color: stdoutIsTerminal && !noColorSet && !noColor,
                terminalWidth: Self.terminalWidth(),
                binary: binary.display
            ),
            opening: opening,
            verbose: verbose,
            showsProgress: isatty(STDERR_FILENO) == 1 && !noColorSet && !quiet,
            strict: strict
        )
    }

    /// Standard output's width, or `nil` when it is not a terminal.
    static func terminalWidth() -> Int? {
        let columns = Int(mrq_terminal_columns(STDOUT_FILENO))
        return columns > 0 ? columns : nil
    }

    func run() throws {
        do {
            try runStatements()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            DescriptorWriter.writeAll(STDERR_FILENO, "mrq: internal error: \(error)\n")
            throw ExitCode(70)
        }
    }

    /// Log messages go to standard error, warnings and worse unless
    /// `MRQ_LOG_LEVEL` (trace, debug, info, notice, warning, error,
    /// critical) says otherwise.
    static func bootstrapLogging() {
        let level = ProcessInfo.processInfo.environment["MRQ_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// Runs `-c` statements, then FILEs, then standard input or the prompt.
    private func runStatements() throws {
        // Before libedit starts, which reads typed characters in the
        // locale's encoding.
        _ = mrq_set_locale()
        Self.reopenClosedStandardDescriptors()
        Self.bootstrapLogging()
        // A reader that goes away (`mrq … | head`) must not kill a run
        // before its `save`: writes then fail with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        let options = try makeOptions()
        let output = StandardOutput(showsProgress: options.showsProgress)
        let session: ShellSessionProtocol
        let greeting: String
        do {
            let opened = try makeSession(options: options)
            greeting = banner(opened, options: options)
            if options.verbose {
                for line in openingDescription(opened, options: options) { output.writeError("mrq: \(line)\n") }
            }
            // A backup and a migration are always said.
            for line in opened.openingReport { output.writeError("mrq: \(line)\n") }
            session = opened
        } catch {
            output.writeError("mrq: \(error)\n")
            throw ExitCode(65)
        }

        let failed = runInput(session: session, output: output) {
            output.write(greeting)
            output.flush()
        }
        output.flush()
        // Whatever ended the run, changes still pending were not saved:
        // say which, rather than drop them without a word.
        let unsaved = session.pendingChanges
        if !unsaved.isEmpty {
            output.writeError("mrq: \(Self.unsavedMessage(unsaved))\n")
        }
        session.prepareForExit()
        if failed { throw ExitCode(65) }
        if !unsaved.isEmpty { throw ExitCode(Self.unsavedChangesStatus) }
        if output.failure != nil { throw ExitCode(74) }
    }

    /// Points a closed standard input, output or error (`mrq <&-`) at
    /// /dev/null before anything opens a file, which would otherwise get
    /// its number: a store read as the script, or results written into it.
    static func reopenClosedStandardDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            let opened = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }

    /// The exit status of a run that ended with unsaved changes and no
    /// error: sysexits' EX_TEMPFAIL, "try again": every statement worked,
    /// but the work is not done (nothing was written), and running it
    /// again with `save` at the end finishes it. Distinct from 65, so a
    /// caller can tell a script with errors from one that forgot to save.
    static let unsavedChangesStatus: Int32 = 75

    static func unsavedMessage(_ unsaved: PendingChanges) -> String {
        "the run ended with changes that were not saved (\(unsaved)); end it with 'save' to keep them or 'rollback' to drop them"
    }

    /// What diagnostics call `-c` text, in place of a file name.
    static let commandTextName = "-c"

    /// Runs `-c` statements, then FILEs, then standard input or the
    /// prompt, stopping at the first failing statement or file (not at a
    /// failing entry at the prompt) and after `.quit`. Returns whether a
    /// statement failed.
    ///
    /// `greet` runs when the prompt is all there is to run: mrq started on
    /// a terminal with no -c and no FILE.
    private func runInput(session: ShellSessionProtocol, output: StandardOutput, greet: () -> Void) -> Bool {
        let scripted = !commands.isEmpty || !files.isEmpty
        for command in commands {
            // Named like a file, so that an error says `-c:LINE:COL` and
            // the rest of that -c text is not run (as in a script).
            guard session.run(command, fileName: Self.commandTextName, output: output) else { return true }
            if session.quitRequested { return false }
        }
        for file in files {
            let source: String
            do {
                source = try ShellFiles.readText(file, shownAs: file)
            } catch {
                output.writeError("mrq: \(error.message)\n")
                return true
            }
            guard session.run(source, fileName: file, output: output) else { return true }
            if session.quitRequested { return false }
        }

        let stdinIsTerminal = isatty(STDIN_FILENO) == 1
        if interactive || (!scripted && stdinIsTerminal) {
            if !scripted && stdinIsTerminal { greet() }
            let reader: LineReader = stdinIsTerminal
                ? EditLineReader(
                    historyPath: EditLineReader.defaultHistoryPath(),
                    isComplete: { [unowned session] in session.isComplete($0) },
                    completion: { [unowned session] in session.completion(in: $0, cursor: $1) })
                : PlainLineReader(isComplete: { [unowned session] in session.isComplete($0) })
            InteractiveLoop.run(session: InterruptibleSession(session), reader: reader, output: output) { session in
                session.renderOptions.terminalWidth = Self.terminalWidth()
                // At the terminal only: a taller result goes through the pager.
                let rows = Int(mrq_terminal_rows(STDOUT_FILENO))
                session.renderOptions.terminalHeight = stdinIsTerminal && rows > 0 ? rows : nil
            }
        } else if !scripted {
            let source: String
            do {
                let data = try ShellFiles.readAll(descriptor: STDIN_FILENO, shownAs: "<stdin>")
                source = try ShellFiles.text(of: data, shownAs: "<stdin>")
            } catch {
                output.writeError("mrq: \(error.message)\n")
                return true
            }
            return !session.run(source, fileName: "<stdin>", output: output)
        }
        return false
    }
}
