import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// The constraints a DBA expects of a PostgreSQL store (foreign keys,
/// NOT NULL, CHECK), on a new store and by migration on an old one; and
/// saves that a DBA's own, non-deferred foreign keys never trip.
@Suite struct PostgresConstraintTests {
    static func open(_ url: String, migrating: Bool = false) throws -> (PersistentStoreCoordinator, ManagedObjectContext) {
        var options = PersistentStoreOptions()
        options.migratesAutomatically = migrating
        let coordinator = try PersistentStoreCoordinator.onPostgres(try TestModels.constrained(), url: url, options: options)
        return (coordinator, ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator))
    }

    /// `table: definition` of every constraint but primary keys, as
    /// `pg_get_constraintdef` (what `psql \d` prints) has them.
    static func constraints(_ connection: PostgresConnection) throws -> [String] {
        try connection.rows("""
            SELECT c.conrelid::regclass::text || ': ' || pg_get_constraintdef(c.oid) FROM pg_constraint c
            JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = current_schema() AND c.contype IN ('f', 'c')
            ORDER BY 1
            """).compactMap { if case .string(let s) = $0[0] { return s } else { return nil } }
    }

    static func notNullColumns(_ connection: PostgresConnection, table: String) throws -> Set<String> {
        Set(try connection.rows("""
            SELECT column_name::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = $1 AND is_nullable = 'NO'
            """, [.string(table)]).compactMap { if case .string(let s) = $0[0] { return s } else { return nil } })
    }

    @Test func testNewStoreHasDeferredForeignKeysNotNullAndChecks() throws {
        let url = try PostgresServer.shared().createDatabase()
        _ = try Self.open(url)
        let connection = try PostgresConnection(url)
        let constraints = try Self.constraints(connection)
        let deferred = "DEFERRABLE INITIALLY DEFERRED"
        #expect(constraints.contains("\"Person\": FOREIGN KEY (department) REFERENCES \"Department\"(_pk) \(deferred)"))
        #expect(constraints.contains("\"Person_tags\": FOREIGN KEY (source) REFERENCES \"Person\"(_pk) \(deferred)"))
        #expect(constraints.contains("\"Person_tags\": FOREIGN KEY (target) REFERENCES \"Tag\"(_pk) \(deferred)"))
        #expect(constraints.contains("\"Person\": CHECK (((age IS NULL) OR ((age >= 0) AND (age <= 150))))"))
        #expect(constraints.contains("\"Department\": CHECK (((budget IS NULL) OR (budget >= (0.0)::double precision)))"))
        #expect(constraints.contains { $0.hasPrefix("\"Person\": CHECK") && $0.contains("level IS NOT NULL") })
        #expect(constraints.contains { $0.hasPrefix("\"Person\": CHECK") && $0.contains("char_length(replace(code") })
        // No ON DELETE action: the model's delete rules stay mrq's.
        #expect(!constraints.contains { $0.contains("ON DELETE") })
        #expect(try Self.notNullColumns(connection, table: "Person").isSuperset(of: ["name", "_opt", "_ent"]))
        #expect(try Self.notNullColumns(connection, table: "Department").contains("name"))
        #expect(try !Self.notNullColumns(connection, table: "Person").contains("level"))

        // They hold against a writer other than mrq.
        let broken = #expect(throws: StoreError.self) {
            try connection.execute("INSERT INTO \"Person\" (_ent, name, age) VALUES (1, 'x', 200)")
        }
        #expect(broken?.sqlState == "23514")
        let nameless = #expect(throws: StoreError.self) { try connection.execute("INSERT INTO \"Department\" (budget) VALUES (1)") }
        #expect(nameless?.sqlState == "23502")
        let dangling = #expect(throws: StoreError.self) {
            try connection.transaction { try connection.execute("INSERT INTO \"Person\" (_ent, name, department) VALUES (1, 'x', 99)") }
        }
        #expect(dangling?.sqlState == "23503")
    }

    /// mrq's own saves never trip its constraints: inserts naming each
    /// other, a nullifying delete, a many-to-many's delete.
    @Test func testMrqSavesPassTheirOwnConstraints() throws {
        let url = try PostgresServer.shared().createDatabase()
        let (_, context) = try Self.open(url)
        let person = context.insertObject(forEntityName: "Person")
        person["name"] = .string("Ann")
        let department = context.insertObject(forEntityName: "Department")
        department["name"] = .string("Sales")
        let tag = context.insertObject(forEntityName: "Tag")
        person.setObject(department, forKey: "department")
        person.setObjects([tag], forKey: "tags")
        try context.save()
        context.delete(department)
        context.delete(tag)
        try context.save()
        let connection = try PostgresConnection(url)
        #expect(try connection.rows("SELECT department FROM \"Person\"") == [[.null]])
        #expect(try connection.scalar("SELECT count(*) FROM \"Person_tags\"") == .int(0))
    }

    /// A store made before the constraints: its opening previews them, is
    /// refused without migration, refused with the offending rows named
    /// while rows break one, and migrated once they are corrected.
    @Test func testAnOlderStoreGetsThemByMigration() throws {
        let url = try PostgresServer.shared().createDatabase()
        do {
            let (_, context) = try Self.open(url)
            for name in ["A", "B", "C"] {
                let person = context.insertObject(forEntityName: "Person")
                person["name"] = .string(name)
            }
            try context.save()
        }
        // As mrq left stores before: no constraint, no mark.
        let connection = try PostgresConnection(url)
        let model = try TestModels.constrained()
        for constraint in try SchemaBuilder.constraints(mapping: SchemaMapping(model: model), model: model) {
            try connection.execute(constraint.dropSQL)
        }
        try connection.execute("DELETE FROM _mrq_metadata WHERE key = 'constraints'")
        #expect(try Self.constraints(connection).isEmpty)
        try connection.execute("UPDATE \"Person\" SET department = 7 WHERE name IN ('A', 'C')")

        let preview = try PersistentStoreCoordinator.migrationPreview(at: URL(string: url)!, model: model)
        #expect(preview?.addedConstraints.contains("Person.department names a Department") == true)
        #expect(preview?.summary.contains("added") == true)
        #expect(preview?.dropsData == false)
        let refused = #expect(throws: StoreError.self) { _ = try Self.open(url) }
        #expect(refused?.kind == .modelMismatch)
        #expect(refused?.message.contains("migratesAutomatically") == true)
        let broken = #expect(throws: StoreError.self) { _ = try Self.open(url, migrating: true) }
        let keys = try connection.rows("SELECT _pk FROM \"Person\" WHERE name IN ('A', 'C') ORDER BY _pk").compactMap { row -> String? in
            if case .int(let key) = row[0] { return String(key) } else { return nil }
        }
        #expect(broken?.message.contains("2 Person rows have department naming no Department: _pk \(keys.joined(separator: ", "))") == true,
                "\(broken?.message ?? "")")
        #expect(try Self.constraints(connection).isEmpty)

        try connection.execute("UPDATE \"Person\" SET department = NULL")
        _ = try Self.open(url, migrating: true)
        #expect(try Self.constraints(connection).count > 4)
        #expect(try PersistentStoreCoordinator.migrationPreview(at: URL(string: url)!, model: model) == nil)
        _ = try Self.open(url)
    }

    /// A DBA's own plain foreign keys, checked at each statement: deletes
    /// write children (and join rows) before parents, inserts parents
    /// before children, updates letting go of a deleted row before it.
    @Test func testADBAsPlainForeignKeysDoNotBreakSaves() throws {
        let url = try PostgresServer.shared().createDatabase()
        let (_, context) = try Self.open(url)
        let connection = try PostgresConnection(url)
        try connection.execute("ALTER TABLE \"Person\" ADD CONSTRAINT dba_department FOREIGN KEY (department) REFERENCES \"Department\" (_pk)")
        try connection.execute("ALTER TABLE \"Person_tags\" ADD CONSTRAINT dba_tag FOREIGN KEY (target) REFERENCES \"Tag\" (_pk)")
        try connection.execute("ALTER TABLE \"Person_tags\" ADD CONSTRAINT dba_person FOREIGN KEY (source) REFERENCES \"Person\" (_pk)")
        try Self.exerciseDeleteAndInsertOrder(context)
        #expect(try connection.scalar("SELECT count(*) FROM \"Person\"") == .int(1))
        #expect(try connection.scalar("SELECT count(*) FROM \"Department\"") == .int(1))
    }

    /// A store copied into PostgreSQL whose rows leave a required value
    /// empty (written by another program) is refused before any write,
    /// naming the entity, the property and how many rows, and how to go
    /// on; it gave PostgreSQL's raw 23502 message.
    @Test func testACopyOfRowsMissingARequiredValueSaysWhichAndHowMany() throws {
        let path = TestModels.temporaryStorePath()
        let model = try TestModels.constrained()
        let coordinator = try TestModels.coordinator(model, path: path)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        for name in ["Ada", "Bob", "Cy"] {
            let person = context.insertObject(forEntityName: "Person")
            person["name"] = .string(name)
        }
        try context.save()
        try Database(path: path).execute("UPDATE \"Person\" SET name = NULL WHERE name <> 'Cy'")
        let url = try PostgresServer.shared().createDatabase()
        let store = try #require(coordinator.persistentStores.first)
        do {
            try coordinator.migratePersistentStore(store, to: URL(string: url)!, type: .postgres)
            Issue.record("a copy of rows without a required value should be refused")
        } catch let error as StoreError {
            #expect(error.message.contains("2 Person rows have no name (Person.name is required); give those rows a value"),
                    "\(error.message)")
            #expect(!error.message.contains("23502"), "\(error.message)")
        }
        #expect(try PostgresConnection(url).scalar("SELECT count(*) FROM \"Person\"") == .int(0))
    }

    /// The same on SQLite, its foreign keys played by triggers (a
    /// connection's `PRAGMA foreign_keys` is its own).
    @Test func testADBAsPlainForeignKeysDoNotBreakSavesOnSQLite() throws {
        let path = TestModels.temporaryStorePath()
        let model = try TestModels.constrained()
        do { _ = try TestModels.coordinator(model, path: path) }
        let db = try Database(path: path)
        try db.execute("""
            CREATE TRIGGER dba_department_gone BEFORE DELETE ON "Department"
            WHEN EXISTS (SELECT 1 FROM "Person" WHERE department = OLD._pk) BEGIN SELECT RAISE(ABORT, 'dba fk'); END
            """)
        try db.execute("""
            CREATE TRIGGER dba_department_missing BEFORE INSERT ON "Person" WHEN NEW.department IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM "Department" WHERE _pk = NEW.department) BEGIN SELECT RAISE(ABORT, 'dba fk'); END
            """)
        try db.execute("""
            CREATE TRIGGER dba_person_gone BEFORE DELETE ON "Person"
            WHEN EXISTS (SELECT 1 FROM "Person_tags" WHERE source = OLD._pk) BEGIN SELECT RAISE(ABORT, 'dba fk'); END
            """)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(model, path: path))
        try Self.exerciseDeleteAndInsertOrder(context)
        #expect(try db.scalar("SELECT count(*) FROM \"Person\"") == .int(1))
    }

    static func exerciseDeleteAndInsertOrder(_ context: ManagedObjectContext) throws {
        // Children inserted before their parents.
        let person = context.insertObject(forEntityName: "Person")
        person["name"] = .string("Ann")
        let other = context.insertObject(forEntityName: "Person")
        other["name"] = .string("Bob")
        let tag = context.insertObject(forEntityName: "Tag")
        let department = context.insertObject(forEntityName: "Department")
        department["name"] = .string("Sales")
        person.setObject(department, forKey: "department")
        other.setObject(department, forKey: "department")
        person.setObjects([tag], forKey: "tags")
        try context.save()
        // A parent deleted: its people let go of it (nullify) first.
        context.delete(department)
        try context.save()
        // A person with join rows deleted; a new department named by a
        // person already there.
        context.delete(person)
        let next = context.insertObject(forEntityName: "Department")
        next["name"] = .string("Ops")
        other.setObject(next, forKey: "department")
        try context.save()
    }
}
