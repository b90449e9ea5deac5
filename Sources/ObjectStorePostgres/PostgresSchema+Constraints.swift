import Foundation
import ObjectStore
import Predicates

/// The constraints a DBA expects of a store's tables (see
/// `SchemaBuilder.constraints`): made with a new store, and added by
/// migration to a store made before them, after checking that no row
/// breaks one.
extension PostgresSchema {
    /// Whether the store in the connection's database has the
    /// constraints of `SchemaBuilder.constraintsVersion`.
    static func hasConstraints(_ connection: PostgresConnection) throws -> Bool {
        try connection.scalar("SELECT value FROM \(metadataTable) WHERE key = 'constraints'")
            == .string(SchemaBuilder.constraintsVersion)
    }

    /// Adds the constraints of `model` to the store's tables, inside the
    /// caller's transaction, and records that it has them; refuses, naming
    /// the rows, when rows break any.
    static func addConstraints(_ connection: PostgresConnection, mapping: SchemaMapping, model: ManagedObjectModel) throws {
        let constraints = try SchemaBuilder.constraints(mapping: mapping, model: model)
        let broken = try violations(of: constraints, on: connection)
        guard broken.isEmpty else {
            throw StoreError(.validation, """
                the PostgreSQL store (\(connection.target)) holds rows that break the constraints its model asks for: \
                \(broken.joined(separator: "; ")); correct or delete those rows (with psql), then open it again
                """)
        }
        for constraint in constraints { try connection.execute(constraint.addSQL) }
        try connection.execute("INSERT INTO \(metadataTable) (key, value) VALUES ('constraints', $1) "
                               + "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                               [.string(SchemaBuilder.constraintsVersion)])
    }

    /// Adds the constraints to a store of the model made before them, as a
    /// migration: only when `options` ask for migration, and never on a
    /// store opened read-only (which reads it as it is).
    static func addMissingConstraints(_ connection: PostgresConnection, mapping: SchemaMapping, model: ManagedObjectModel,
                                      readOnly: Bool, options: PersistentStoreOptions) throws {
        guard !readOnly, try !hasConstraints(connection) else { return }
        guard options.migratesAutomatically else {
            let summaries = try SchemaBuilder.constraints(mapping: mapping, model: model).map(\.summary)
            let preview = MigrationPreview.addingConstraints(summaries, model: model)
            throw StoreError(.modelMismatch, """
                the PostgreSQL store (\(connection.target)) was made before mrq gave its tables constraints \
                (\(preview.summary)); adding them is a migration: ask for it with \
                PersistentStoreOptions.migratesAutomatically
                """, migration: preview)
        }
        try addConstraints(connection, mapping: mapping, model: model)
    }

    /// The constraints a store lacking them would get, for a migration's
    /// preview; empty when it has them.
    static func missingConstraints(_ connection: PostgresConnection, model: ManagedObjectModel) throws -> [String] {
        guard try !hasConstraints(connection) else { return [] }
        return try SchemaBuilder.constraints(mapping: SchemaMapping(model: model), model: model).map(\.summary)
    }

    /// How many rows break each constraint, and the keys of the first:
    /// `12 Person rows have department naming no Department: _pk 3, 7, …`.
    static func violations(of constraints: [SchemaConstraint], on connection: PostgresConnection) throws -> [String] {
        var reports: [String] = []
        for constraint in constraints {
            guard case .int(let count)? = try connection.scalar("SELECT count(*) FROM (\(constraint.violationsSQL)) v"),
                  count > 0 else { continue }
            let shown = 10
            let keys = try connection.rows(constraint.violationsSQL + " LIMIT \(shown)").compactMap { row -> String? in
                guard case .int(let key)? = row.first else { return nil }
                return String(key)
            }
            let more = count > shown ? ", …" : ""
            reports.append("\(count) \(constraint.rows) row\(count == 1 ? " has" : "s have") \(constraint.broken): "
                           + "\(constraint.keyName) \(keys.joined(separator: ", "))\(more)")
        }
        return reports
    }
}
