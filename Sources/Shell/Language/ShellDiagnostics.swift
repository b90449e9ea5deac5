import Predicates

/// Every message the shell's parser and interpreter show, in one place.
enum ShellDiagnostics {
    static func expectedStatement(_ found: String) -> String {
        "expected a statement (an entity name, or one of \(StatementParser.statementWords.joined(separator: ", "))), found \(found)"
    }
    static func expected(_ what: String, found: String) -> String { "expected \(what), found \(found)" }
    static func expectedEntity(after word: String) -> String { "expected an entity name after '\(word)'" }
    static func keywordAsEntity(_ keyword: String, after word: String) -> String {
        "expected an entity name after '\(word)', found the keyword '\(keyword)': write '#\(keyword)' for an entity of that name"
    }
    static func expectedNumber(after word: String) -> String { "expected a whole number after '\(word)'" }
    static func unexpectedAfterStatement(_ found: String) -> String { "unexpected \(found) after the end of the statement" }
    static func sqlHabit(_ what: String, fixed: String) -> String { "\(what); write \(fixed)" }
    static func unknownEntity(_ name: String, suggestion: String?) -> String {
        "unknown entity '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
    static func unknownKey(_ key: String, entity: String, suggestion: String?) -> String {
        "unknown key '\(key)' on \(entity)" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
    static func unknownType(_ name: String, suggestion: String?) -> String {
        "unknown attribute type '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
    static func unknownModifier(_ name: String) -> String {
        "unknown property modifier '\(name)'; expected required, optional, transient, unique, indexed, ordered, cascade, nullify, deny, noaction, inverse, min or max"
    }
    static func unknownVariable(_ name: String) -> String { "unknown variable '$\(name)'; bind it with 'let \(name) = …' or --param \(name)=…" }
    static func unknownDotCommand(_ name: String, suggestion: String?) -> String {
        "unknown command '.\(name)'" + (suggestion.map { "; did you mean '.\($0)'?" } ?? "") + " (try .help)"
    }
    static let noStore = "no store is open: start mrq with --model and --store, or use .open"
    static func pendingChangesBlockSchema() -> String {
        "unsaved changes: save or rollback before changing the schema"
    }
    static func notAToMany(_ key: String) -> String { "'\(key)' is not a to-many relationship: give it one object with 'first …'" }
    static func notAToOne(_ key: String) -> String { "'\(key)' is a to-many relationship: give it objects with a query such as 'Tag where …'" }
    static func noMatchForFirst(_ entity: String) -> String { "no \(entity) matches for 'first'" }
    static func expectedValueFor(_ key: String) -> String { "expected a value for '\(key)'" }

    static func objectGone(variable: String, entity: String) -> String {
        "$\(variable) holds a \(entity) that is no longer in the store or was deleted (rolled back, undone or deleted since 'let')"
    }
    static func wrongDestination(_ relationship: String, takes destination: String, given: String) -> String {
        "'\(relationship)' takes \(destination) objects, not \(given)"
    }
    static func variableHoldsMany(_ name: String, count: Int, entity: String) -> String {
        "$\(name) holds \(count) \(entity) object\(count == 1 ? "" : "s") (a query): compare with 'IN $\(name)', or bind one with 'let \(name) = first \(entity) where …'"
    }
    static func aggregateSortKey(_ key: String, function: String, groups: [String]) -> String {
        "an aggregate sorts by its value ('sort \(function):NO')" + (groups.isEmpty ? "" : " or a group key (" + groups.map { "'\($0)'" }.joined(separator: ", ") + ")")
            + ", not '\(key)'"
    }
    static func unknownAggregate(_ name: String) -> String { "'\(name)' cannot run as an aggregate in SQL" }

    // Files
    static func cannotRead(_ name: String, because reason: String) -> String { "cannot read '\(name)': \(reason)" }
    static func cannotWrite(_ name: String, because reason: String) -> String { "cannot write '\(name)': \(reason)" }
    static func cannotReadModel(_ name: String, because reason: String) -> String { "cannot read the model '\(name)': \(reason)" }
    static func cannotOpenStore(_ name: String, because reason: String) -> String { "cannot open '\(name)': \(reason)" }
    static func noStore(_ path: String) -> String { "no store at '\(path)'; give --model to create one" }
    static func noPostgresStore(_ url: String) -> String {
        "the PostgreSQL database \(url) holds no mrq store; give --model to create one there"
    }
    static func badPostgresURL(_ text: String) -> String {
        "'\(text)' is not a PostgreSQL URL: write postgres://user@host:port/database (what it leaves out comes from PGHOST, PGPORT, PGUSER, PGDATABASE)"
    }
    static func passwordInPostgresURL(_ url: String) -> String {
        "\(url) holds a password, which the command line and the history show to others: "
            + "leave it out of the URL and put it in ~/.pgpass (host:port:database:user:password, mode 0600) or in PGPASSWORD"
    }
    static func postgresProblem(_ url: String, _ reason: String) -> String { "\(url): \(reason)" }
    static func earlierModelVersion(_ store: String, stored: String, given: String) -> String {
        "'\(store)' was written by model version '\(stored)'; '\(given)' is an earlier version: open it with '\(stored)' or later"
    }
    /// How a migration is made safe: a backup of a file; a PostgreSQL
    /// database's migration is one transaction.
    static func migrationSafety(_ store: String) -> String {
        store.hasPrefix("postgres") ? "in one transaction, with no backup: \(postgresBackupHint(store))" : "a backup is made first"
    }
    /// How to back up a PostgreSQL store before migrating it.
    static func postgresBackupHint(_ store: String) -> String {
        "take one first with pg_dump -Fc -f backup.dump '\(store)'"
    }
    static func migratingPostgres(_ store: String) -> String {
        "migrating \(store) in one transaction; no backup is made (\(postgresBackupHint(store)))"
    }
    static func migrationNeeded(_ store: String, changes: String, flag: String) -> String {
        "'\(store)' was made with another model (\(changes)); use \(flag) to migrate it (\(migrationSafety(store)))"
    }
    static func migrationNeededDroppingData(_ store: String, changes: String, losses: String, flag: String) -> String {
        "'\(store)' was made with another model (\(changes)); migrating it drops data (\(losses)): "
            + "use \(flag) to migrate it anyway (\(migrationSafety(store)))"
    }
    static func migrationDropsData(_ store: String, losses: String, flag: String) -> String {
        "migrating '\(store)' would drop data (\(losses)); add \(flag) to migrate anyway (\(migrationSafety(store)))"
    }
    static func migrationReadOnly(_ store: String) -> String { "'\(store)' needs a migration, and is open read-only" }
    static func schemaChangeDropsData(_ losses: String) -> String {
        "this change would drop data (\(losses)): empty those first, or load a model with .model --migrate-dropping-data"
    }
    static func cannotSaveAs(_ name: String, because reason: String) -> String { "cannot save as '\(name)': \(reason)" }
    static func readTooDeep(_ name: String, depth: Int) -> String {
        "cannot read '\(name)': \(depth) scripts are already being read inside each other (does one read itself?)"
    }
    static func outputBackToScreen(_ problem: String) -> String { "\(problem); results go to the screen again" }

    // What Core Data's own SQLite store refuses (explain's "core data:").
    static let coreDataRefusesMatches = "Core Data's SQLite store cannot fetch with MATCHES (a regular expression "
        + "works in memory only); mrq evaluates it itself, as the sql and in memory sections show"
    static func coreDataRefusesFunction(_ selector: String) -> String {
        "Core Data's SQLite store cannot fetch with FUNCTION(…, '\(selector)'), a method call SQL cannot run; "
            + "mrq evaluates it in memory on the rows SQL returns"
    }

    // Saving beside other writers
    /// What kind of conflict refused a save, for the ways on it names.
    enum SaveConflict { case changedValue, deletedRow, deletingChanged, storedKey, sameSave }

    /// A save refused for a conflict: the error's text (object, property,
    /// their value and yours), then how to go on, in one line.
    static func saveRefused(_ conflict: String, _ kind: SaveConflict) -> String {
        let keepMine = ".merge-policy mergeByPropertyObjectTrump, then save"
        let takeTheirs = ".merge-policy mergeByPropertyStoreTrump, then save"
        let redo = "rollback, which reads the rows again, then redo your change"
        let ways: String
        switch kind {
        case .changedValue:
            ways = "keep yours (\(keepMine)), take theirs (\(takeTheirs)), or refresh and redo (\(redo))"
        case .deletedRow:
            ways = "take theirs, dropping your change (\(takeTheirs)), or refresh and redo (\(redo), inserting it again)"
        case .deletingChanged:
            ways = "delete it anyway (\(keepMine)), or keep it (\(redo) without the delete)"
        case .storedKey:
            ways = "keep yours, written over the stored object (\(keepMine)), take theirs, merging yours into it "
                + "with its values kept (\(takeTheirs)), or refresh and redo (\(redo) with another key)"
        case .sameSave:
            ways = "give each object its own key, or rollback"
        }
        return "save refused, nothing written: \(conflict); to go on: \(ways)"
    }

    static func unknownMergePolicy(_ name: String, names: [String]) -> String {
        "unknown merge policy '\(name)'; expected one of \(names.joined(separator: ", "))"
    }

    /// The save summary: the objects written, and those a merge left
    /// unwritten (already so in the store, or dropped by the policy).
    static func saved(_ written: Int, of changes: Int) -> String {
        let text = "saved \(written) change\(written == 1 ? "" : "s")"
        guard written < changes else { return text }
        let dropped = changes - written
        return text + " (\(dropped) not written: already so in the store, or dropped by the merge policy)"
    }
}
