import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// The tables of a PostgreSQL store, from the one `SchemaMapping`, as the
/// server's catalog shows them.
@Suite struct PostgresSchemaTests {
    /// The name information_schema gives each attribute type's column.
    static let catalogType: [AttributeType: String] = [
        .integer16: "smallint", .integer32: "integer", .integer64: "bigint", .decimal: "numeric",
        .double: "double precision", .float: "double precision", .string: "text", .boolean: "boolean",
        .date: "timestamp with time zone", .binary: "bytea", .transformable: "bytea", .uuid: "uuid", .uri: "text",
        .objectID: "text",
    ]

    static func prepare(_ model: ManagedObjectModel, on connection: PostgresConnection, readOnly: Bool = false) throws -> String {
        try PostgresSchema.prepare(connection, mapping: SchemaMapping(model: model), model: model, readOnly: readOnly)
    }

    /// Every column of every table, with the type (and collation) the
    /// catalog gives it, is what the mapping says in PostgreSQL's terms.
    @Test func testTablesAndColumnsInPostgreSQLTypes() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        let model = try ModelFixtures.builtEverything()
        let mapping = try SchemaMapping(model: model)
        _ = try Self.prepare(model, on: connection)

        for table in mapping.allTables {
            var expected: [String: String] = ["_pk": "bigint identity", "_opt": "bigint"]
            if let entityColumn = table.entityColumn { expected[entityColumn.unquoted] = "integer" }
            for column in table.columns {
                let type: String
                switch column.kind {
                case .attribute(let attributeType): type = Self.catalogType[attributeType]! + (attributeType == .string ? " C" : "")
                case .foreignKey, .toManyKey: type = "bigint"
                case .foreignEntity, .order, .toManyOrder: type = "integer"
                }
                expected[column.name.unquoted] = type
            }
            #expect(try Self.columns(of: table.name.unquoted, on: connection) == expected, "table \(table.name)")
        }
        for join in mapping.allJoinTables {
            var expected = [join.sourceColumn.unquoted: "bigint", join.destinationColumn.unquoted: "bigint"]
            for extra in [join.sourceEntityColumn, join.destinationEntityColumn, join.orderColumn, join.inverseOrderColumn] {
                if let extra { expected[extra.unquoted] = "integer" }
            }
            #expect(try Self.columns(of: join.name.unquoted, on: connection) == expected, "join table \(join.name)")
        }
        #expect(try Self.columns(of: "_mrq_metadata", on: connection) == ["key": "text", "value": "text", "data": "bytea"])
        // Every table of the store, and nothing else.
        let tables = try connection.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()")
        let names = mapping.allTables.map(\.name.unquoted) + mapping.allJoinTables.map(\.name.unquoted) + ["_mrq_metadata"]
        #expect(Set(tables.map { $0[0] }) == Set(names.map(Value.string)))
    }

    /// `column → "type[ identity][ collation]"` as information_schema has it.
    static func columns(of table: String, on connection: PostgresConnection) throws -> [String: String] {
        let rows = try connection.rows("""
            SELECT column_name::text, data_type::text, is_identity::text, coalesce(collation_name::text, '')
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
            """, [.string(table)])
        var result: [String: String] = [:]
        for row in rows {
            guard case .string(let name) = row[0], case .string(let type) = row[1], case .string(let identity) = row[2],
                  case .string(let collation) = row[3] else { continue }
            result[name] = type + (identity == "YES" ? " identity" : "") + (collation.isEmpty ? "" : " \(collation)")
        }
        return result
    }

    /// The indexes are SchemaBuilder's (foreign keys, entity codes, join
    /// targets, uniqueness constraints, fetch indexes) plus the primary
    /// keys; the constraints' are unique, and enforced.
    @Test func testIndexesAndUniquenessConstraints() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        let model = try ModelFixtures.builtEverything()
        let mapping = try SchemaMapping(model: model)
        _ = try Self.prepare(model, on: connection)

        let rows = try connection.rows("""
            SELECT c.relname::text, i.indisunique, i.indisprimary FROM pg_index i
            JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema()
            """)
        let names = Set(rows.compactMap { if case .string(let name) = $0[0] { return name } else { return nil } })
        let built = try SchemaBuilder.indexes(mapping: mapping, model: model).map { statement in
            String(statement.split(separator: "\"")[1])
        }
        let primary = (mapping.allTables.map(\.name.unquoted) + mapping.allJoinTables.map(\.name.unquoted) + ["_mrq_metadata"])
            .map { "\($0)_pkey" }
        #expect(names == Set(built + primary))
        let unique = Set(rows.filter { $0[1] == .bool(true) && $0[2] == .bool(false) }.map { $0[0] })
        #expect(unique == [.string("Gadget_unique0"), .string("Gadget_unique1")])
        #expect(built.contains("Gadget_byTitleAndWeight") && built.contains("Item_ent"))

        let gadget = mapping.entityCode(model.entity(named: "Gadget")!)
        let insert = "INSERT INTO \"Item\" (_ent, code, title, \"createdAt\", enabled) VALUES ($1, $2, $3, $4, $5)"
        try connection.execute(insert, [.int(gadget), .string("G-1"), .string("A"), .date(Date()), .bool(true)])
        let duplicate = #expect(throws: StoreError.self) {
            try connection.execute(insert, [.int(gadget), .string("G-1"), .string("B"), .date(Date()), .bool(true)])
        }
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.description.contains("Gadget_unique0") == true)
        // Keys come from the table's identity sequence.
        try connection.execute(insert, [.int(gadget), .string("G-2"), .string("B"), .date(Date()), .bool(true)])
        #expect(try connection.rows("SELECT _pk FROM \"Item\" ORDER BY _pk") == [[.int(1)], [.int(3)]])
    }

    @Test func testMetadataKeepsFingerprintIdentifierAndModel() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        let model = try ModelFixtures.builtEverything()
        let identifier = try Self.prepare(model, on: connection)
        #expect(UUID(uuidString: identifier) != nil)
        #expect(try connection.scalar("SELECT value FROM _mrq_metadata WHERE key = 'fingerprint'")
                    == .string(SchemaBuilder.fingerprint(mapping: SchemaMapping(model: model), model: model)))
        let stored = try PostgresSchema.storedModel(connection)
        #expect(stored?.fingerprint == model.fingerprint)
        #expect(stored?.entities.map(\.name) == model.entities.map(\.name))
        // Opening again checks and changes nothing.
        let tables = try connection.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()")
        #expect(try Self.prepare(model, on: connection) == identifier)
        #expect(try Self.prepare(model, on: connection, readOnly: true) == identifier)
        #expect(try connection.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == tables)
    }

    @Test func testAnotherModelIsRefusedAndChangesNothing() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        _ = try Self.prepare(try TestModels.people(), on: connection)
        let other = try ManagedObjectModel { Entity("Person") { Attribute("name", .string) } }
        let error = #expect(throws: StoreError.self) { try Self.prepare(other, on: connection) }
        #expect(error?.kind == .modelMismatch)
        #expect(error?.description.contains("needs a migration: ask for it with PersistentStoreOptions.migratesAutomatically") == true)
        #expect(try PostgresSchema.storedModel(connection)?.fingerprint == TestModels.people().fingerprint)
    }

    /// A database with none of the store's tables is not laid out when
    /// read-only; one with a table of the same name as an entity's is
    /// refused, and nothing is created in either.
    @Test func testRefusesToLayOutWhereItMayNot() throws {
        let connection = try PostgresConnection.toFreshDatabase()
        let model = try TestModels.people()
        let readOnly = #expect(throws: StoreError.self) { try Self.prepare(model, on: connection, readOnly: true) }
        #expect(readOnly?.kind == .readOnly)
        try connection.execute("CREATE TABLE \"Person\" (id int)")
        try connection.execute("CREATE TABLE orders (id int)")
        let taken = #expect(throws: StoreError.self) { try Self.prepare(model, on: connection) }
        #expect(taken?.kind == .modelMismatch)
        #expect(taken?.description.contains("(\"Person\") but no mrq store") == true)
        #expect(try connection.scalar("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == .int(2))
    }

    /// Processes opening a new store at once make it once.
    @Test func testConcurrentOpeningsMakeOneStore() throws {
        let url = try PostgresServer.shared().createDatabase()
        let model = try TestModels.people()
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            results.append(Result { try Self.prepare(model, on: try PostgresConnection(url)) })
        }
        let identifiers = try results.all.map { try $0.get() }
        #expect(identifiers.count == 4 && Set(identifiers).count == 1)
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Result<String, any Error>] = []
        func append(_ result: Result<String, any Error>) { lock.withLock { results.append(result) } }
        var all: [Result<String, any Error>] { lock.withLock { results } }
    }
}
