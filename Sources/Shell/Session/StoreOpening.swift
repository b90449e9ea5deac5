import Foundation
import ObjectStore
import ObjectStorePostgres

/// A store's table layout: mrq's readable one or Core Data's own.
public typealias StoreLayout = SchemaMapping.Layout

/// How the shell opens a store: never changing it unless asked.
///
/// ```swift
/// var options = StoreOpening.Options()
/// options.migrate = true          // mrq --migrate
/// let session = try ShellSession(modelPath: "People.xcdatamodeld", storePath: "people.sqlite", opening: options)
/// print(session.openingReport)     // the backup made, what migrated
/// ```
///
/// A store made with another model stops with what differs and the flag
/// that migrates (`--migrate`). Migrating first copies the store to a
/// backup beside it (`people.before-migration.sqlite`, never overwriting
/// one), then reports what changed; a migration that would drop data needs
/// `--migrate-dropping-data` too. An earlier version of the store's own
/// model is refused. A path that does not exist, given without a model, is
/// an error rather than a new empty file; so is an empty file, or a SQLite
/// database with no tables, given without one.
///
/// Opening writes nothing until a statement writes: with `--read-only` and
/// `--immutable` nothing ever is, and without them a store whose log or
/// journal would need recovering is read from a private snapshot until the
/// first save (see `ReadingMode` in ObjectStore).
public enum StoreOpening {
    public struct Options: Sendable {
        /// Migrate a store made with another model (`--migrate`).
        public var migrate = false
        /// Let that migration drop data (`--migrate-dropping-data`).
        public var migrateDroppingData = false
        /// Open with SQLite's read-only mode (`--read-only`).
        public var readOnly = false
        /// Open read-only with SQLite's `immutable` flag (`--immutable`):
        /// no lock, no `-shm`, nothing written beside the file.
        public var immutable = false
        /// The layout of a new store (`--layout coredata`).
        public var layout: SchemaMapping.Layout = .mrq
        /// Make a new empty store at a path that does not exist even
        /// without a model (for `entity` statements to grow); off in the
        /// executable.
        public var createsEmptyStore = false

        public init() {}
    }

    /// Opens `storeURL` (nil: in memory; a file, or a `postgres://` URL) with `model` as `options` allow;
    /// returns the coordinator and the lines to report (backup, changes).
    /// A PostgreSQL store's migration is previewed and refused as a
    /// file's is, naming `postgresFlags`; with none (a model the shell
    /// changed itself) the store's own refusal stands.
    /// A SQLite store file opened read-only (or immutable) with the model
    /// it keeps, read through the one connection the store then reads
    /// with (see `PersistentStoreCoordinator.openingStore`); nil for any
    /// other store, a file that keeps no model, or no file.
    static func openWithStoredModel(_ storeURL: URL, options: Options) throws -> PersistentStoreCoordinator? {
        guard options.readOnly || options.immutable, PersistentStoreType.forURL(storeURL) == .sqlite,
              FileManager.default.fileExists(atPath: storeURL.path) else { return nil }
        var storeOptions = PersistentStoreOptions()
        storeOptions.readOnly = true
        storeOptions.immutable = options.immutable
        storeOptions.layout = options.layout
        do {
            return try PersistentStoreCoordinator.openingStore(at: storeURL, options: storeOptions)
        } catch let error as StoreError where error.kind == .notFound {
            return nil
        }
    }

    static func open(_ storeURL: URL?, model: ManagedObjectModel, modelGiven: Bool, options: Options,
                     postgresFlags: (migrate: String, drop: String)? = ("--migrate", "--migrate-dropping-data"))
        throws -> (PersistentStoreCoordinator, [String]) {
        let coordinator = PersistentStoreCoordinator(model: model)
        var report: [String] = []
        guard let storeURL else {
            try coordinator.addSQLiteStore(at: nil)
            return (coordinator, report)
        }
        if PersistentStoreType.forURL(storeURL) == .postgres {
            // A database has no file to back up: PostgreSQL's DDL is
            // transactional, so a migration the store makes is all or nothing.
            if !modelGiven && model.entities.isEmpty && !options.createsEmptyStore {
                throw LocatedError(ShellDiagnostics.noPostgresStore(storeURL.absoluteString), .unknown)
            }
            if modelGiven, let flags = postgresFlags, let preview = try previewOrExplain(storeURL, model: model) {
                let shown = storeURL.absoluteString
                try check(preview, shown: shown, options: options, readOnly: options.readOnly || options.immutable, flags: flags)
                report.append(ShellDiagnostics.migratingPostgres(shown))
                report.append("migrated \(shown): " + preview.changes.joined(separator: "; "))
            }
            var postgresOptions = PersistentStoreOptions()
            postgresOptions.readOnly = options.readOnly || options.immutable
            postgresOptions.migratesAutomatically = options.migrate
            postgresOptions.allowsMigrationDataLoss = options.migrateDroppingData
            postgresOptions.layout = options.layout
            try coordinator.addPersistentStore(type: .postgres, at: storeURL, options: postgresOptions)
            return (coordinator, report)
        }
        let shown = storeURL.lastPathComponent
        let exists = FileManager.default.fileExists(atPath: storeURL.path)
        if !exists && !modelGiven && !options.createsEmptyStore {
            throw LocatedError(ShellDiagnostics.noStore(storeURL.path), .unknown)
        }
        if PersistentStoreType.forFile(storeURL) == .xml {
            var xmlOptions = PersistentStoreOptions()
            xmlOptions.readOnly = options.readOnly || options.immutable
            xmlOptions.layout = options.layout
            try coordinator.addPersistentStore(type: .xml, at: storeURL, options: xmlOptions)
            return (coordinator, report)
        }
        var migrate = false
        if exists, let preview = try previewOrExplain(storeURL, model: model) {
            try check(preview, shown: shown, options: options, readOnly: options.readOnly)
            report.append(try backUp(storeURL))
            report.append("migrated \(shown): " + preview.changes.joined(separator: "; "))
            migrate = true
        }
        var storeOptions = PersistentStoreOptions()
        storeOptions.readOnly = options.readOnly || options.immutable
        storeOptions.immutable = options.immutable
        storeOptions.migratesAutomatically = migrate
        storeOptions.allowsMigrationDataLoss = migrate && options.migrateDroppingData
        storeOptions.layout = options.layout
        // A session writes only when told to save: until then a store that
        // opening read-write would change (a log or journal to recover) is
        // read as evidence, and opened for writing at the first write.
        storeOptions.readsUntilWritten = !storeOptions.readOnly
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: storeOptions)
        return (coordinator, report)
    }

    /// What opening `url` with `model` would migrate; a change that cannot
    /// be migrated is an error saying so.
    private static func previewOrExplain(_ url: URL, model: ManagedObjectModel) throws -> MigrationPreview? {
        do {
            return try PersistentStoreCoordinator.migrationPreview(at: url, model: model)
        } catch let error as StoreError where error.kind == .modelMismatch {
            throw LocatedError(error.message, .unknown)
        }
    }

    /// Refuses what `options` do not ask for, with the flag that would.
    static func check(_ preview: MigrationPreview, shown: String, options: Options, readOnly: Bool,
                      flags: (migrate: String, drop: String) = ("--migrate", "--migrate-dropping-data")) throws {
        if preview.isEarlierVersion {
            throw LocatedError(ShellDiagnostics.earlierModelVersion(shown, stored: preview.storedVersion ?? "?",
                                                                     given: preview.givenVersion ?? "?"), .unknown)
        }
        guard options.migrate else {
            // Both flags at once when it drops data: one refusal, not two.
            if preview.dropsData {
                throw LocatedError(ShellDiagnostics.migrationNeededDroppingData(
                    shown, changes: preview.summary, losses: preview.lossSummary, flag: flags.drop), .unknown)
            }
            throw LocatedError(ShellDiagnostics.migrationNeeded(shown, changes: preview.summary, flag: flags.migrate), .unknown)
        }
        if preview.dropsData && !options.migrateDroppingData {
            throw LocatedError(ShellDiagnostics.migrationDropsData(shown, losses: preview.lossSummary, flag: flags.drop), .unknown)
        }
        if readOnly {
            throw LocatedError(ShellDiagnostics.migrationReadOnly(shown), .unknown)
        }
    }

    /// Copies the store (with what its log holds) to a new file beside it,
    /// `NAME.before-migration.EXT` or `NAME.before-migration-2.EXT` …, and
    /// says where.
    static func backUp(_ url: URL, through coordinator: PersistentStoreCoordinator? = nil) throws -> String {
        let directory = url.deletingLastPathComponent()
        let base = url.deletingPathExtension().lastPathComponent
        let ext = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        var n = 1
        var backup: URL
        repeat {
            backup = directory.appendingPathComponent("\(base).before-migration\(n == 1 ? "" : "-\(n)")\(ext)")
            n += 1
        } while FileManager.default.fileExists(atPath: backup.path)
        if let coordinator {
            try coordinator.copyStore(to: backup)
        } else {
            try Database(path: url.path).copy(to: backup.path)
        }
        return "backed up \(url.lastPathComponent) to \(backup.lastPathComponent)"
    }
}
