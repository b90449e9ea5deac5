import CSQLite
import Foundation
import Synchronization
import Testing
@testable import ObjectStore
import Predicates
import struct Predicates.Predicate
import struct Predicates.Expression

/// Names no Core Data model can hold — quotes, `;`, `--`, `)`, `OR 1=1`,
/// `ATTACH`, a function call, a query that never ends, names that differ
/// only in case — in a model let through the name check (as a hostile
/// model cache would be if that check failed): every operation of both
/// layouts gives the answers plain names give, no file appears beside the
/// store, and SQLite is never asked to attach a database or to call a
/// function mrq did not write.
@Suite(.serialized) struct HostileNameTests {
    /// The hostile names, by the plain names the predicates are written with
    /// (no dots: a key path would split them; short enough that the names
    /// made of them stay within PostgreSQL's 63 bytes).
    static let names: [String: String] = [
        "Person": "Pe\"rson) OR 1=1 --",
        "Group": "Gr'oup; ATTACH DATABASE 'evil_db' AS e; --",
        "Team": "Te\"am\" || INJECTED_MARKER_FN() || \"",
        "Tag": "T\"ag",
        "name": "na\"me",
        "Name": "Na\"me",
        "age": "a'ge\"; ATTACH 'evil2_db' AS e2; --",
        "note": "sp ace) ",
        "score": "f\" || INJECTED_MARKER_FN() || \"",
        "group": "gr\"oup\" OR 1=1 OR \"",
        "members": "mem;bers)",
        "tags": "ta\"gs\" OR 1=1 OR \"",
        "people": "peo'ple\" IN (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT n FROM c) OR \"",
        "title": "ti\"tle",
        "level": "lev\"el",
        "label": "la\"bel",
        "byName": "by\"Name--",
        "added": "ad\"ded; DROP TABLE x; --",
    ]

    static func n(_ plain: String) -> String { names[plain] ?? plain }

    /// Person →(group, ordered members) Group ⊃ Team; Person ↔ Tag.
    static func model(adding extra: Bool = false) throws -> ManagedObjectModel {
        let person = EntityDescription(name: n("Person"))
        person.add(AttributeDescription(name: n("name"), type: .string))
        person.add(AttributeDescription(name: n("Name"), type: .string))
        let age = AttributeDescription(name: n("age"), type: .integer32, defaultValue: .int(0))
        age.isIndexed = true
        person.add(age)
        person.add(AttributeDescription(name: n("note"), type: .string))
        person.add(AttributeDescription(name: n("score"), type: .double))
        if extra { person.add(AttributeDescription(name: n("added"), type: .string, defaultValue: .string("new"))) }
        person.add(RelationshipDescription(name: n("group"), destination: n("Group"), inverse: n("members")))
        person.add(RelationshipDescription(name: n("tags"), destination: n("Tag"), inverse: n("people"), isToMany: true))
        person.fetchIndexes = [FetchIndexDescription(name: n("byName"), elements: [(n("Name"), false)])]
        person.uniquenessConstraints = [[n("note"), n("name")]]
        let group = EntityDescription(name: n("Group"))
        group.add(AttributeDescription(name: n("title"), type: .string))
        group.add(RelationshipDescription(name: n("members"), destination: n("Person"), inverse: n("group"),
                                          isToMany: true, isOrdered: true))
        let team = EntityDescription(name: n("Team"), parent: n("Group"))
        team.add(AttributeDescription(name: n("level"), type: .integer16, defaultValue: .int(1)))
        let tag = EntityDescription(name: n("Tag"))
        tag.add(AttributeDescription(name: n("label"), type: .string))
        tag.add(RelationshipDescription(name: n("people"), destination: n("Person"), inverse: n("tags"), isToMany: true))
        return try ManagedObjectModel(entities: [person, group, team, tag], checkingNames: false)
    }

    /// `format`, written with plain names, with the hostile names put in.
    static func predicate(_ format: String) throws -> Predicate {
        rename(try Predicate(format: format))
    }

    static func rename(_ predicate: Predicate) -> Predicate {
        switch predicate.kind {
        case .constant: return predicate
        case .not(let inner): return Predicate(.not(rename(inner)))
        case .and(let parts): return Predicate(.and(parts.map(rename)))
        case .or(let parts): return Predicate(.or(parts.map(rename)))
        case .comparison(var c):
            c.lhs = rename(c.lhs)
            c.rhs = rename(c.rhs)
            return Predicate(.comparison(c))
        }
    }

    static func rename(_ expression: Expression) -> Expression {
        switch expression.kind {
        case .keyPath(let keys): return Expression(.keyPath(keys.map(n)))
        case .member(let base, let keys): return Expression(.member(rename(base), keys.map(n)))
        case .collection(let op, let base, let keys): return Expression(.collection(op, rename(base), key: keys.map(n)))
        case .subquery(let collection, let variable, let predicate):
            return Expression(.subquery(collection: rename(collection), variable: variable, predicate: rename(predicate)))
        case .binary(let op, let a, let b): return Expression(.binary(op, rename(a), rename(b)))
        case .function(let f, let arguments): return Expression(.function(f, arguments.map(rename)))
        case .aggregate(let items): return Expression(.aggregate(items.map(rename)))
        default: return expression
        }
    }

    /// What SQLite was asked to do on the connections to files in `folder`.
    final class Watch: Sendable {
        let folder: String
        let actions = Mutex<[AuthorizedAction]>([])
        init(_ folder: String) { self.folder = folder }
        var attachments: [AuthorizedAction] { actions.withLock { $0.filter { $0.code == SQLITE_ATTACH } } }
        var functions: Set<String> {
            actions.withLock { Set($0.filter { $0.code == SQLITE_FUNCTION }.compactMap { $0.second?.lowercased() }) }
        }
    }

    static func watching<T>(_ folder: String, _ body: (Watch) throws -> T) rethrows -> T {
        let watch = Watch(folder)
        Database.authorizationObserver.withLock { observer in
            observer = { action in
                guard action.path.hasPrefix(folder) else { return }
                watch.actions.withLock { $0.append(action) }
            }
        }
        defer { Database.authorizationObserver.withLock { $0 = nil } }
        return try body(watch)
    }

    /// The functions mrq's own SQL calls (SQLite's, mrq's, and those
    /// SQLite's `ALTER TABLE … RENAME` calls itself).
    static let knownFunctions: Set<String> = [
        "count", "sum", "total", "avg", "min", "max", "coalesce", "lower", "upper", "length", "typeof", "abs",
        "json_each", "cast", "ifnull", "instr", "substr", "row_number", "like", "glob",
        "sqlite_rename_table", "sqlite_rename_test", "sqlite_rename_column", "sqlite_drop_column",
    ]

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-hostile-names-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func open(_ model: ManagedObjectModel, at path: String, layout: SchemaMapping.Layout,
                     migrating: Bool = false) throws -> ManagedObjectContext {
        var options = PersistentStoreOptions()
        options.layout = layout
        options.migratesAutomatically = migrating
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: options)
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    static func names(_ objects: [ManagedObject]) -> [String] {
        objects.map { object in
            for key in ["name", "title", "label"] where object.entity.attribute(named: n(key)) != nil {
                if case .string(let s) = object[n(key)] { return s }
            }
            return "?"
        }
    }

    static func fetch(_ context: ManagedObjectContext, _ entity: String, _ format: String? = nil,
                      sort: [(String, Bool)] = []) throws -> [String] {
        let request = FetchRequest(entityName: n(entity), predicate: try format.map(predicate),
                                   sortDescriptors: sort.map { SortKey(keyPath: [n($0.0)], ascending: $0.1) })
        let found = names(Array(try context.fetch(request)))
        return sort.isEmpty ? found.sorted() : found
    }

    @Test(arguments: SchemaMapping.Layout.allCases)
    func everyOperationOfEitherLayoutTreatsNamesAsNames(layout: SchemaMapping.Layout) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/Store.sqlite"
        let model = try Self.model()
        try Self.watching(folder) { watch in
            let context = try Self.open(model, at: path, layout: layout)
            func insert(_ entity: String, _ values: [String: Value]) -> ManagedObject {
                let object = context.insertObject(forEntityName: Self.n(entity))
                for (key, value) in values { object[Self.n(key)] = value }
                return object
            }
            let ann = insert("Person", ["name": "ann", "Name": "ANN", "age": 30, "note": "a", "score": 1.5])
            let bob = insert("Person", ["name": "bob", "Name": "BOB", "age": 40, "note": "b", "score": 2.5])
            let cy = insert("Person", ["name": "cy", "Name": "CY", "age": 50, "note": "c"])
            let g1 = insert("Group", ["title": "g1"])
            let t1 = insert("Team", ["title": "t1", "level": 2])
            let a = insert("Tag", ["label": "A"])
            let b = insert("Tag", ["label": "B"])
            ann.setObject(g1, forKey: Self.n("group"))
            bob.setObject(t1, forKey: Self.n("group"))
            ann.setObjects([a], forKey: Self.n("tags"))
            bob.setObjects([b], forKey: Self.n("tags"))
            try context.save()
            _ = cy

            // Read back in a fresh context: attributes, to-one into a
            // hierarchy, many-to-many, SUBQUERY, counts, sorts.
            let fresh = try Self.open(model, at: path, layout: layout)
            #expect(try Self.fetch(fresh, "Person", "name == 'ann'") == ["ann"])
            #expect(try Self.fetch(fresh, "Person", "Name == 'ANN' AND name != 'bob'") == ["ann"])
            #expect(try Self.fetch(fresh, "Person", "group.title == 't1'") == ["bob"])
            #expect(try Self.fetch(fresh, "Person", "ANY tags.label == 'A'") == ["ann"])
            #expect(try Self.fetch(fresh, "Person", "tags.@count == 0") == ["cy"])
            #expect(try Self.fetch(fresh, "Person", "SUBQUERY(tags, $t, $t.label == 'B').@count > 0") == ["bob"])
            #expect(try Self.fetch(fresh, "Person", "score > 1 AND age < 45 AND note IN {'a', 'b'}") == ["ann", "bob"])
            #expect(try Self.fetch(fresh, "Group", "ANY members.name == 'bob'") == ["t1"])
            #expect(try Self.fetch(fresh, "Tag", "ANY people.age >= 40") == ["B"])
            #expect(try Self.fetch(fresh, "Person", sort: [("Name", false)]) == ["cy", "bob", "ann"])
            #expect(try fresh.count(for: FetchRequest(entityName: Self.n("Person"), predicate: try Self.predicate("tags.@count > 0"))) == 2)
            // Relationships faulted in: an unlinked row stays unlinked.
            let people = try fresh.fetch(FetchRequest(entityName: Self.n("Person")))
            for person in people {
                let tags = Self.names(person.objects(forKey: Self.n("tags")))
                let expected: [String: [String]] = ["ann": ["A"], "bob": ["B"], "cy": []]
                #expect(tags == expected[Self.names([person])[0]], "\(layout)")
            }
            let groups = try fresh.fetch(FetchRequest(entityName: Self.n("Group"), sortDescriptors: [SortKey(keyPath: [Self.n("title")], ascending: true)]))
            #expect(groups.map { Self.names($0.objects(forKey: Self.n("members"))) } == [["ann"], ["bob"]])
            // Prefetching and dictionaries.
            var prefetching = FetchRequest(entityName: Self.n("Person"))
            prefetching.relationshipKeyPathsForPrefetching = [Self.n("tags"), Self.n("group")]
            #expect(try fresh.fetch(prefetching).count == 3)
            var dictionaries = FetchRequest(entityName: Self.n("Person"))
            dictionaries.resultType = .dictionary
            dictionaries.propertiesToFetch = [PropertyToFetch(keyPath: Self.n("name")), PropertyToFetch(.sum, of: Self.n("age"), as: "total")]
            dictionaries.propertiesToGroupBy = [Self.n("name")]
            dictionaries.sortDescriptors = [SortKey(keyPath: [Self.n("name")], ascending: true)]
            let rows = try fresh.fetchDictionaries(dictionaries)
            #expect(rows.map { $0["total"] } == [.int(30), .int(40), .int(50)])

            // Updates and deletes, through saves and in batches.
            let annAgain = try #require(people.first { Self.names([$0]) == ["ann"] })
            annAgain[Self.n("name")] = "anna"
            annAgain.setObjects([], forKey: Self.n("tags"))
            let cyAgain = try #require(people.first { Self.names([$0]) == ["cy"] })
            fresh.delete(cyAgain)
            try fresh.save()
            #expect(try Self.fetch(fresh, "Person") == ["anna", "bob"])
            #expect(try Self.fetch(fresh, "Person", "ANY tags.label == 'A'") == [])
            let update = BatchUpdateRequest(entityName: Self.n("Person"), predicate: try Self.predicate("name == 'anna'"),
                                            propertiesToUpdate: [Self.n("age"): .expression(Self.rename(try Expression(format: "age + 1")))])
            #expect(try fresh.execute(update).count == 1)
            #expect(try Self.fetch(Self.open(model, at: path, layout: layout), "Person", "age == 31") == ["anna"])
            let delete = BatchDeleteRequest(entityName: Self.n("Tag"), predicate: try Self.predicate("label == 'B'"))
            #expect(try fresh.execute(delete).count == 1)
            #expect(try Self.fetch(Self.open(model, at: path, layout: layout), "Tag") == ["A"])

            // A migration adding an attribute (mrq's layout: Core Data's
            // stores are not migrated).
            // The store keeps its hostile model, which reading refuses
            // (see NameRuleTests): the migrator is given both models.
            if layout == .mrq {
                let newModel = try Self.model(adding: true)
                let db = try Database(path: path)
                try StoreMigrator.migrate(db, from: model, to: newModel, mapping: try SchemaMapping(model: newModel))
                let migrated = try Self.open(newModel, at: path, layout: layout)
                #expect(try Self.fetch(migrated, "Person", "added == 'new' AND group.title == 't1'") == ["bob"])
                #expect(try Self.fetch(migrated, "Person", "ANY tags.label == 'A' OR age == 31") == ["anna"])
            }
            Self.expectNothingElse(in: folder, watch: watch, layout: "\(layout)")
        }
    }

    /// Only the store and its log and index are in `folder`, and SQLite
    /// was never asked to attach a file or to call a function that is
    /// not mrq's.
    static func expectNothingElse(in folder: String, watch: Watch, layout: String,
                                  sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let expected: Set<String> = ["Store.sqlite", "Store.sqlite-wal", "Store.sqlite-shm"]
        #expect(Set(files).subtracting(expected).filter { !$0.hasPrefix("Store.") || !$0.contains("before-migration") }.isEmpty,
                "\(layout): \(files)", sourceLocation: sourceLocation)
        #expect(watch.attachments.isEmpty, "\(layout): \(watch.attachments)", sourceLocation: sourceLocation)
        let unknown = watch.functions.subtracting(knownFunctions)
        #expect(unknown.isEmpty, "\(layout): functions called: \(unknown.sorted())", sourceLocation: sourceLocation)
        #expect(!watch.functions.isEmpty, "the observer saw the queries", sourceLocation: sourceLocation)
    }
}
