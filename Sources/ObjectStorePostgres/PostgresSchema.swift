import Foundation
import ObjectStore
import Predicates

/// A store's tables in a PostgreSQL database, from the same
/// `SchemaMapping` as a SQLite store's, in PostgreSQL's types (see
/// `PostgresDialect`).
///
/// Beside the tables of the mapping, `_mrq_metadata` (as in a SQLite
/// store) keeps the mapping's fingerprint, the store's identifier and the
/// archive of its model:
///
/// | key | value | data |
/// |---|---|---|
/// | fingerprint | `SchemaBuilder.fingerprint` | |
/// | identifier | a UUID | |
/// | model | | `ManagedObjectModel.archived()` |
///
/// Primary keys come from each table's identity sequence.
enum PostgresSchema {
    static let metadataTable = SchemaMapping.metadataTable

    /// Creates the store's tables in the connection's database (in its
    /// current schema), or checks the ones there; returns the store's
    /// identifier.
    ///
    /// All in one transaction, under an advisory lock: two processes
    /// opening a new store at once make it once, and two opening it with a
    /// new model migrate it once. A database holding a table of the
    /// mapping's names but no store is refused. A store made with another
    /// model is migrated as a SQLite store is (`StoreMigrator`), as
    /// `options` allow (`migratesAutomatically`, `allowsMigrationDataLoss`),
    /// its metadata updated in the same transaction, so that a migration
    /// that fails leaves the database as it was; one that may not be
    /// migrated is refused, unless `deleteOnModelMismatch`: then that
    /// store's tables are dropped and new ones made.
    static func prepare(_ connection: PostgresConnection, mapping: SchemaMapping, model: ManagedObjectModel,
                        readOnly: Bool, options: PersistentStoreOptions = PersistentStoreOptions()) throws -> String {
        let fingerprint = try SchemaBuilder.fingerprint(mapping: mapping, model: model)
        try checkNameLengths(mapping, model: model)
        return try connection.transaction {
            try waitForSchemaLock(connection, timeout: options.migrationLockTimeout, busyTimeout: options.busyTimeout)
            if try tableExists(metadataTable, on: connection) {
                let stored = try storedFingerprint(connection)
                guard case .string(let identifier)? = try metadata("identifier", on: connection) else {
                    throw StoreError(.corrupt, "the PostgreSQL store (\(connection.target)) has no identifier")
                }
                guard stored != fingerprint else {
                    try addMissingConstraints(connection, mapping: mapping, model: model, readOnly: readOnly, options: options)
                    return identifier
                }
                guard let old = try storedModel(connection) else {
                    throw StoreError(.corrupt, "the PostgreSQL store (\(connection.target)) keeps no model")
                }
                let db = MigrationConnection(connection)
                do {
                    // A store made empty (no entities) holds nothing to lose.
                    if !old.entities.isEmpty {
                        let preview = try MigrationPreview.inferred(db, old: old, new: model)
                        try preview.check(of: connection.target, migratesAutomatically: options.migratesAutomatically,
                                          allowsDataLoss: options.allowsMigrationDataLoss)
                    }
                } catch let error as StoreError where error.kind == .modelMismatch && options.deleteOnModelMismatch && !readOnly {
                    try drop(connection)
                    return try create(connection, mapping: mapping, model: model, fingerprint: fingerprint)
                }
                if readOnly {
                    throw StoreError(.readOnly, "the PostgreSQL store (\(connection.target)) needs a migration but is opened read-only")
                }
                try StoreMigrator.migrate(db, from: old, to: model, mapping: mapping)
                try addConstraints(connection, mapping: mapping, model: model)
                // Statements prepared on the old tables would be planned for them.
                try connection.forgetStatements()
                return identifier
            }
            if readOnly {
                throw StoreError(.readOnly, "the PostgreSQL database (\(connection.target)) holds no store, and it is opened read-only")
            }
            let names = mapping.allTables.map(\.name) + mapping.allJoinTables.map(\.name)
            let taken = try names.filter { try tableExists($0, on: connection) }
            if !taken.isEmpty {
                throw StoreError(.modelMismatch, """
                    the PostgreSQL database (\(connection.target)) has tables named as the model's entities \
                    (\(taken.map(\.quoted).joined(separator: ", "))) but no mrq store: \
                    use another database, or a schema of its own (options=-csearch_path%3DNAME in the URL)
                    """)
            }
            return try create(connection, mapping: mapping, model: model, fingerprint: fingerprint)
        }
    }

    /// What opening the store in the connection's database with `model`
    /// would migrate and drop (see `prepare`); nil when there is no store,
    /// it matches the model or holds no entities. In a read-only
    /// transaction, taking no lock: a migration under way elsewhere is
    /// not seen until it commits.
    static func migrationPreview(_ connection: PostgresConnection, model: ManagedObjectModel) throws -> MigrationPreview? {
        try connection.transaction {
            try connection.execute("SET TRANSACTION READ ONLY")
            guard try tableExists(metadataTable, on: connection) else { return nil }
            let constraints = try missingConstraints(connection, model: model)
            guard try storedFingerprint(connection) != SchemaBuilder.fingerprint(of: model) else {
                return constraints.isEmpty ? nil : MigrationPreview.addingConstraints(constraints, model: model)
            }
            guard let old = try storedModel(connection), !old.entities.isEmpty else { return nil }
            return try MigrationPreview.inferred(MigrationConnection(connection), old: old, new: model).adding(constraints: constraints)
        }
    }

    /// Takes the advisory lock held while a store's schema is made or
    /// checked, waiting for another process making or migrating it for
    /// `timeout` seconds, or as long as it takes when nil; the
    /// transaction's later waits are bounded by `busyTimeout` again.
    static func waitForSchemaLock(_ connection: PostgresConnection, timeout: TimeInterval?, busyTimeout: TimeInterval) throws {
        try setLockTimeout(timeout, on: connection, untilCommit: true)
        do {
            try connection.execute(lockSchema)
        } catch let error as StoreError where error.sqlState == "55P03" {
            throw StoreError(.locked, """
                another process is creating or migrating the PostgreSQL store (\(connection.target)): \
                gave up waiting for it after \(timeout ?? 0) s (PersistentStoreOptions.migrationLockTimeout); \
                open it again when that process is done, or wait longer
                """)
        }
        try setLockTimeout(busyTimeout, on: connection, untilCommit: true)
    }

    /// Sets the connection's `lock_timeout` to `seconds` (no limit for
    /// nil), for the rest of the transaction only when `untilCommit`.
    static func setLockTimeout(_ seconds: TimeInterval?, on connection: PostgresConnection, untilCommit: Bool) throws {
        let milliseconds = seconds.map { max(1, Int(($0 * 1_000).rounded())) } ?? 0
        try connection.execute("SELECT set_config('lock_timeout', $1, $2)", [.string("\(milliseconds)ms"), .bool(untilCommit)])
    }

    private static func storedFingerprint(_ connection: PostgresConnection) throws -> String {
        guard case .string(let stored)? = try metadata("fingerprint", on: connection) else {
            throw StoreError(.corrupt, "the PostgreSQL store (\(connection.target)) has no model fingerprint")
        }
        return stored
    }

    /// Makes the tables of a new store and its metadata; returns its identifier.
    private static func create(_ connection: PostgresConnection, mapping: SchemaMapping, model: ManagedObjectModel,
                               fingerprint: String) throws -> String {
        for statement in try SchemaBuilder.createStatements(mapping: mapping, model: model, dialect: PostgresDialect()) {
            try connection.execute(statement)
        }
        let identifier = UUID().uuidString
        try connection.execute("CREATE TABLE \(metadataTable) (key text PRIMARY KEY, value text, data bytea)")
        try connection.execute("INSERT INTO \(metadataTable) (key, value, data) VALUES ('fingerprint', $1, NULL), "
                               + "('identifier', $2, NULL), ('model', NULL, $3)",
                               [.string(fingerprint), .string(identifier), .data(model.archived())])
        try addConstraints(connection, mapping: mapping, model: model)
        return identifier
    }

    /// Drops the tables of the store there (as the model it keeps lays
    /// them out) and its metadata.
    private static func drop(_ connection: PostgresConnection) throws {
        if let old = try storedModel(connection) {
            let mapping = try SchemaMapping(model: old)
            // One statement: the tables' foreign keys name each other.
            let names = mapping.allTables.map(\.name) + mapping.allJoinTables.map(\.name)
            if !names.isEmpty { try connection.execute("DROP TABLE IF EXISTS \(names.map(\.quoted).joined(separator: ", "))") }
        }
        try connection.execute("DROP TABLE \(metadataTable)")
    }

    /// The model the store in the connection's database was made with;
    /// nil when there is no store.
    static func storedModel(_ connection: PostgresConnection) throws -> ManagedObjectModel? {
        guard try tableExists(metadataTable, on: connection) else { return nil }
        guard case .data(let archive)? = try connection.scalar("SELECT data FROM \(metadataTable) WHERE key = 'model'") else {
            throw StoreError(.corrupt, "the PostgreSQL store (\(connection.target)) keeps no model")
        }
        do {
            return try ManagedObjectModel(archive: archive)
        } catch let error as ModelError {
            throw StoreError(.modelMismatch, "the PostgreSQL store (\(connection.target)) keeps a model mrq cannot read: \(error.message)")
        }
    }

    /// PostgreSQL keeps the first 63 bytes of a name: two longer names
    /// alike that far would be one. Refuses a model that would lay out such
    /// a name (a table, a column, an index), naming it.
    static func checkNameLengths(_ mapping: SchemaMapping, model: ManagedObjectModel) throws {
        var names = mapping.allTables.flatMap { table in
            [table.name, table.primaryKey, table.versionColumn] + (table.entityColumn.map { [$0] } ?? []) + table.columns.map(\.name)
        }
        for join in mapping.allJoinTables {
            names += [join.name, join.sourceColumn, join.destinationColumn]
            names += [join.sourceEntityColumn, join.destinationEntityColumn, join.orderColumn, join.inverseOrderColumn].compactMap { $0 }
        }
        names += try SchemaBuilder.indexList(mapping: mapping, model: model).map(\.name)
        for name in names where name.unquoted.utf8.count > maximumNameLength {
            throw StoreError(.validation, "the name \(name.quoted) is \(name.unquoted.utf8.count) bytes long, and PostgreSQL "
                             + "keeps names of up to \(maximumNameLength): shorten the entity or property it is made from")
        }
    }

    /// PostgreSQL's longest name, in bytes (`NAMEDATALEN` - 1).
    static let maximumNameLength = 63

    /// Whether the connection's current schema has a table `name`.
    static func tableExists(_ name: SQLIdentifier, on connection: PostgresConnection) throws -> Bool {
        try tableExists(name.unquoted, on: connection)
    }

    /// Whether the connection's current schema has a table `name`.
    static func tableExists(_ name: String, on connection: PostgresConnection) throws -> Bool {
        try connection.scalar("SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = $1)",
                              [.string(name)]) == .bool(true)
    }

    private static func metadata(_ key: String, on connection: PostgresConnection) throws -> Value? {
        try connection.scalar("SELECT value FROM \(metadataTable) WHERE key = $1", [.string(key)])
    }

    /// Takes the advisory lock held while a store's schema is made or
    /// checked: "mrqs" in ASCII and the current schema's hash, so that
    /// stores in other schemas of the database are opened meanwhile.
    static let lockSchema = "SELECT pg_advisory_xact_lock(\(0x6D72_7173), hashtext(current_schema()))"
}
