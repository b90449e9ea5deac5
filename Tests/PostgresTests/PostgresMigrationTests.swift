import Foundation
@testable import ObjectStore
@testable import ObjectStorePostgres
import Predicates
import Testing

/// Inferred migration of a PostgreSQL store: the same plan, refusals and
/// result as a SQLite store's, in one transaction that leaves the
/// database as it was when it fails.
@Suite struct PostgresMigrationTests {
    static let v1 = """
        <entity name="Department" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="people" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="department" inverseEntity="Person"/>
        </entity>
        <entity name="Person" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="age" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="fax" optional="YES" attributeType="String"/>
            <attribute name="nick" optional="YES" attributeType="String"/>
            <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="people" inverseEntity="Department"/>
            <relationship name="projects" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Project" inverseName="members" inverseEntity="Project"/>
        </entity>
        <entity name="Manager" parentEntity="Person" syncable="YES">
            <attribute name="level" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        </entity>
        <entity name="Project" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="members" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="projects" inverseEntity="Person"/>
        </entity>
        """

    /// Added: `Department.budget` (optional), `Person.active` (required,
    /// with a default), `Person.mentor`/`mentees`, entity `Tag`; removed:
    /// `Person.fax`; renamed: `nick` to `nickname`.
    static let v2 = """
        <entity name="Department" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="budget" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <relationship name="people" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="department" inverseEntity="Person"/>
        </entity>
        <entity name="Person" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="age" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="nickname" optional="YES" attributeType="String" elementID="nick"/>
            <attribute name="active" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            <attribute name="motto" attributeType="String" defaultValueString="it's fine"/>
            <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="people" inverseEntity="Department"/>
            <relationship name="projects" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Project" inverseName="members" inverseEntity="Project"/>
            <relationship name="mentor" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="mentees" inverseEntity="Person"/>
            <relationship name="mentees" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="mentor" inverseEntity="Person"/>
        </entity>
        <entity name="Manager" parentEntity="Person" syncable="YES">
            <attribute name="level" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
        </entity>
        <entity name="Project" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="members" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="projects" inverseEntity="Person"/>
        </entity>
        <entity name="Tag" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """

    static func model(_ body: String) throws -> ManagedObjectModel {
        try ModelFixtures.parse(ModelFixtures.model(entities: body))
    }

    static func options(migrating: Bool = false, allowingLoss: Bool = false) -> PersistentStoreOptions {
        var options = PersistentStoreOptions()
        options.migratesAutomatically = migrating
        options.allowsMigrationDataLoss = allowingLoss
        return options
    }

    static func open(_ model: ManagedObjectModel, _ url: URL, type: PersistentStoreType,
                     options: PersistentStoreOptions = PersistentStoreOptions()) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: type, at: url, options: options)
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    /// Two departments, people (a manager among them) in an ordered
    /// to-many, projects shared many-to-many, and a person in none.
    static func seed(_ context: ManagedObjectContext) throws {
        func insert(_ entity: String, _ name: String) -> ManagedObject {
            let object = context.insertObject(forEntityName: entity)
            object["name"] = .string(name)
            return object
        }
        let research = insert("Department", "Research")
        let sales = insert("Department", "Sales")
        let apollo = insert("Project", "Apollo")
        let gemini = insert("Project", "Gemini")
        for (i, name) in ["Cy", "Ann", "Bo", "Di"].enumerated() {
            let person = insert(i == 2 ? "Manager" : "Person", name)
            person["age"] = .int(Int64(30 + i))
            person["fax"] = .string("fax \(name)")
            person["nick"] = i == 3 ? .null : .string("\(name.lowercased())y")
            if i == 2 { person["level"] = .int(3) }
            if i < 3 { (i == 1 ? sales : research).add(person, toKey: "people") }
            if i != 3 { person.add(apollo, toKey: "projects") }
            if i % 2 == 1 { person.add(gemini, toKey: "projects") }
        }
        try context.save()
    }

    /// Every object, as a line: entity, name, each attribute, each
    /// relationship's destinations by name (in order when ordered).
    static func dump(_ context: ManagedObjectContext) throws -> [String] {
        func text(_ value: Value) -> String {
            switch value {
            case .null: "nil"
            case .string(let s): s
            case .int(let i): "\(i)"
            case .bool(let b): "\(b)"
            default: "\(value)"
            }
        }
        func name(_ object: ManagedObject) -> String { text(object["name"]) }
        var lines: [String] = []
        for entity in context.persistentStoreCoordinator!.model.entities where entity.parent == nil {
            for object in try context.fetch(FetchRequest(entityName: entity.name)) {
                var parts = [object.entity.name, name(object)]
                for attribute in object.entity.attributes.sorted(by: { $0.name < $1.name }) {
                    parts.append("\(attribute.name)=\(text(object[attribute.name]))")
                }
                for relationship in object.entity.relationships.sorted(by: { $0.name < $1.name }) {
                    let names = relationship.isToMany ? object.objects(forKey: relationship.name).map(name)
                        : object.object(forKey: relationship.name).map { [name($0)] } ?? []
                    parts.append("\(relationship.name)=\((relationship.isOrdered ? names : names.sorted()).joined(separator: ","))")
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    /// Tables, every row of each, and the metadata: what "unchanged" means.
    static func snapshot(_ url: String) throws -> [String] {
        let connection = try PostgresConnection(url)
        var lines: [String] = []
        for row in try connection.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1") {
            guard case .string(let table) = row[0] else { continue }
            let rows = try connection.rows("SELECT * FROM \(quoteIdentifier(table))")
            lines.append("\(table): " + rows.map { "\($0)" }.sorted().joined(separator: "; "))
        }
        return lines
    }

    /// The same change on SQLite and PostgreSQL leaves the same objects and
    /// links; the preview is the same; new objects get new keys.
    @Test func testMigratesAsSQLiteDoes() throws {
        let v1 = try Self.model(Self.v1)
        let v2 = try Self.model(Self.v2)
        let path = URL(fileURLWithPath: TestModels.temporaryStorePath())
        let url = URL(string: try PostgresServer.shared().createDatabase())!
        try Self.seed(try Self.open(v1, path, type: .sqlite))
        try Self.seed(try Self.open(v1, url, type: .postgres))
        #expect(try Self.dump(try Self.open(v1, url, type: .postgres)) == Self.dump(try Self.open(v1, path, type: .sqlite)))

        // Not asked: refused with SQLite's wording, and nothing changes.
        let before = try Self.snapshot(url.absoluteString)
        let refused = #expect(throws: StoreError.self) { try Self.open(v2, url, type: .postgres) }
        #expect(refused?.kind == .modelMismatch)
        #expect(refused?.description.contains("needs a migration that drops data (Person.fax: 4 values): ask for it with PersistentStoreOptions.migratesAutomatically and PersistentStoreOptions.allowsMigrationDataLoss") == true)
        #expect(refused?.migration?.changes.contains("removed attribute Person.fax (4 values dropped)") == true)
        let lossy = #expect(throws: StoreError.self) { try Self.open(v2, url, type: .postgres, options: Self.options(migrating: true)) }
        #expect(lossy?.description.contains("would drop data (Person.fax: 4 values); ask for that too with "
                                            + "PersistentStoreOptions.allowsMigrationDataLoss") == true)
        #expect(try Self.snapshot(url.absoluteString) == before)

        let sqlite = try Self.open(v2, path, type: .sqlite, options: Self.options(migrating: true, allowingLoss: true))
        let postgres = try Self.open(v2, url, type: .postgres, options: Self.options(migrating: true, allowingLoss: true))
        let migrated = try Self.dump(postgres)
        #expect(migrated == (try Self.dump(sqlite)))
        #expect(migrated.contains(
            "Department Research budget=nil name=Research people=Cy,Bo"))
        #expect(migrated.contains(
            "Manager Bo active=true age=32 level=3 motto=it's fine name=Bo nickname=boy department=Research mentees= mentor= projects=Apollo"))
        #expect(migrated.contains(
            "Person Ann active=true age=31 motto=it's fine name=Ann nickname=anny department=Sales mentees= mentor= projects=Apollo,Gemini"))
        #expect(migrated.contains(
            "Project Gemini name=Gemini members=Ann,Di"))
        let connection = try PostgresConnection(url.absoluteString)
        #expect(try connection.scalar("SELECT value FROM _mrq_metadata WHERE key = 'fingerprint'")
                    == .string(SchemaBuilder.fingerprint(mapping: SchemaMapping(model: v2), model: v2)))
        #expect(try PostgresSchema.storedModel(connection)?.fingerprint == v2.fingerprint)
        // The new layout's indexes, and only those (with the new Person_mentor_fk).
        let indexes = try connection.rows("SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() "
                                          + "AND indexname NOT LIKE '%_pkey' ORDER BY 1")
        let built = try SchemaBuilder.indexes(mapping: try SchemaMapping(model: v2), model: v2)
        #expect(indexes.count == built.count && built.contains { $0.contains("\"Person_mentor_fk\"") })
        #expect(indexes.contains([.string("Person_mentor_fk")]))

        // The new shape works, and new rows get keys past the old ones.
        let tag = postgres.insertObject(forEntityName: "Tag")
        tag["name"] = "new"
        let eve = postgres.insertObject(forEntityName: "Person")
        eve["name"] = "Eve"
        let bo = try #require(try postgres.fetch(FetchRequest(entityName: "Manager")).first)
        eve.setObject(bo, forKey: "mentor")
        try postgres.save()
        let again = try Self.dump(try Self.open(v2, url, type: .postgres))
        #expect(again.contains("Person Eve active=true age=nil motto=it's fine name=Eve nickname=nil department= mentees= mentor=Bo projects="))
        #expect(again.contains("Tag new name=new"))
        #expect(again.count == migrated.count + 2)
        // Opening again with v2 changes nothing.
        let after = try Self.snapshot(url.absoluteString)
        _ = try Self.open(v2, url, type: .postgres)
        #expect(try Self.snapshot(url.absoluteString) == after)
        // A second migration makes its tables beside the first one's renamed keys and indexes.
        let v3 = try Self.model(Self.v2.replacingOccurrences(of: #"<entity name="Tag" syncable="YES">"#, with:
            #"<entity name="Tag" syncable="YES"><attribute name="color" optional="YES" attributeType="String"/>"#))
        let third = try Self.dump(try Self.open(v3, url, type: .postgres, options: Self.options(migrating: true)))
        #expect(third.contains("Tag new color=nil name=new"))
        #expect(third.count == again.count)
    }

    /// A change inference refuses (an attribute's type) is refused with
    /// SQLite's wording, and the database stays as it was.
    @Test func testRefusesWhatSQLiteRefuses() throws {
        let v1 = try Self.model(Self.v1)
        let changedType = try Self.model(Self.v1.replacingOccurrences(
            of: #"name="age" optional="YES" attributeType="Integer 64""#, with: #"name="age" optional="YES" attributeType="String""#))
        let required = try Self.model(Self.v1.replacingOccurrences(
            of: #"<attribute name="nick" optional="YES" attributeType="String"/>"#,
            with: #"<attribute name="nick" optional="YES" attributeType="String"/><attribute name="code" attributeType="String"/>"#))
        let path = URL(fileURLWithPath: TestModels.temporaryStorePath())
        let url = URL(string: try PostgresServer.shared().createDatabase())!
        try Self.seed(try Self.open(v1, path, type: .sqlite))
        try Self.seed(try Self.open(v1, url, type: .postgres))
        let before = try Self.snapshot(url.absoluteString)
        let all = Self.options(migrating: true, allowingLoss: true)
        for model in [changedType, required] {
            let onSQLite = #expect(throws: StoreError.self) { try Self.open(model, path, type: .sqlite, options: all) }
            let onPostgres = #expect(throws: StoreError.self) { try Self.open(model, url, type: .postgres, options: all) }
            #expect(onPostgres?.kind == .modelMismatch)
            let sqliteReason = onSQLite?.description.components(separatedBy: "was made with a different model, and ").last
            let postgresReason = onPostgres?.description.components(separatedBy: "was made with a different model, and ").last
            #expect(sqliteReason != nil && sqliteReason == postgresReason && onPostgres?.description != postgresReason)
            #expect(try Self.snapshot(url.absoluteString) == before)
        }
        // With deleteOnModelMismatch, the store is made afresh instead.
        var replace = all
        replace.deleteOnModelMismatch = true
        #expect(try Self.dump(try Self.open(changedType, url, type: .postgres, options: replace)).isEmpty)
    }

    /// A migration that fails midway (a table in the way of one it makes)
    /// leaves tables, rows and metadata as they were; with the table gone
    /// it succeeds.
    @Test func testAFailedMigrationChangesNothing() throws {
        let v1 = try Self.model(Self.v1)
        let v2 = try Self.model(Self.v2)
        let url = try PostgresServer.shared().createDatabase()
        try Self.seed(try Self.open(v1, URL(string: url)!, type: .postgres))
        try PostgresConnection(url).execute("CREATE TABLE \"_mrq_new_Project\" (x integer); INSERT INTO \"_mrq_new_Project\" VALUES (7)")
        let before = try Self.snapshot(url)
        let all = Self.options(migrating: true, allowingLoss: true)
        let failed = #expect(throws: StoreError.self) { try Self.open(v2, URL(string: url)!, type: .postgres, options: all) }
        #expect(failed?.description.contains("_mrq_new_Project") == true)
        #expect(try Self.snapshot(url) == before)
        #expect(try Self.dump(try Self.open(v1, URL(string: url)!, type: .postgres)).count == 8)
        try PostgresConnection(url).execute("DROP TABLE \"_mrq_new_Project\"")
        #expect(try Self.dump(try Self.open(v2, URL(string: url)!, type: .postgres, options: all)).count == 8)
    }
}
