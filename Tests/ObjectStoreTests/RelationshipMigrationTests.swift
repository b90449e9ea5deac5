import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// What Apple's lightweight migration does beyond adding and removing:
/// relationships changing cardinality, ordering or inverse, entities
/// moving in the inheritance hierarchy; the data moves with them.
@Suite struct RelationshipMigrationTests {
    func model(_ body: String) throws -> ManagedObjectModel {
        try ModelFixtures.parse(ModelFixtures.model(entities: body))
    }

    func open(_ model: ManagedObjectModel, _ path: String, migrating: Bool = false,
                 allowingLoss: Bool = false) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path), migratesAutomatically: migrating,
                                       allowsMigrationDataLoss: allowingLoss)
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    func named(_ context: ManagedObjectContext, _ entity: String, _ name: String) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest(entityName: entity, predicate: try Predicate(format: "name == %@", .string(name)))).first)
    }

    func names(_ objects: [ManagedObject]) -> [String] {
        objects.map { if case .string(let s) = $0["name"] { s } else { "?" } }
    }

    func integrity(_ path: String) throws -> Value? {
        try Database(path: path, readOnly: true).scalar("PRAGMA integrity_check")
    }

    // MARK: DuckDuckGo's bookmarks: a to-one becomes a to-many

    /// BrowserServicesKit's BookmarksModel 3 → 4: `favoriteFolder` (a
    /// to-one whose inverse `favorites` is ordered) became
    /// `favoriteFolders`, a to-many renamed from it.
    static let bookmarksV3 = """
        <entity name="BookmarkEntity" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="favoriteFolder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="BookmarkEntity" inverseName="favorites" inverseEntity="BookmarkEntity"/>
            <relationship name="favorites" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="BookmarkEntity" inverseName="favoriteFolder" inverseEntity="BookmarkEntity"/>
        </entity>
        """
    static let bookmarksV4 = """
        <entity name="BookmarkEntity" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="favoriteFolders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="BookmarkEntity" inverseName="favorites" inverseEntity="BookmarkEntity" elementID="favoriteFolder"/>
            <relationship name="favorites" optional="YES" toMany="YES" deletionRule="Nullify" ordered="YES" destinationEntity="BookmarkEntity" inverseName="favoriteFolders" inverseEntity="BookmarkEntity"/>
        </entity>
        """

    @Test func aToOneBecomingAToManyKeepsEachDestinationAsItsOneMember() throws {
        let path = TestModels.temporaryStorePath()
        let v3 = try model(Self.bookmarksV3)
        do {
            let context = try open(v3, path)
            let folder = context.insertObject(forEntityName: "BookmarkEntity")
            folder["name"] = "Favorites"
            let other = context.insertObject(forEntityName: "BookmarkEntity")
            other["name"] = "Mobile"
            for name in ["c", "a", "b"] {
                let bookmark = context.insertObject(forEntityName: "BookmarkEntity")
                bookmark["name"] = .string(name)
                folder.add(bookmark, toKey: "favorites")
            }
            let lone = context.insertObject(forEntityName: "BookmarkEntity")
            lone["name"] = "d"
            other.add(lone, toKey: "favorites")
            try context.save()
        }
        let v4 = try model(Self.bookmarksV4)
        let preview = try #require(try PersistentStoreCoordinator.migrationPreview(at: URL(fileURLWithPath: path), model: v4))
        #expect(preview.changes == ["renamed relationship BookmarkEntity.favoriteFolder to favoriteFolders",
                                    "made BookmarkEntity.favoriteFolders to-many",
                                    "changed the inverse of BookmarkEntity.favorites (many-to-many now)"])
        #expect(!preview.dropsData)

        let context = try open(v4, path, migrating: true)
        let folder = try named(context, "BookmarkEntity", "Favorites")
        #expect(names(folder.objects(forKey: "favorites")) == ["c", "a", "b"])
        for name in ["a", "b", "c"] {
            #expect(names(try named(context, "BookmarkEntity", name).objects(forKey: "favoriteFolders")) == ["Favorites"])
        }
        #expect(names(try named(context, "BookmarkEntity", "d").objects(forKey: "favoriteFolders")) == ["Mobile"])
        #expect(try named(context, "BookmarkEntity", "Mobile").objects(forKey: "favoriteFolders").isEmpty)
        // The new shape works: a bookmark in two folders.
        try named(context, "BookmarkEntity", "a").add(try named(context, "BookmarkEntity", "Mobile"), toKey: "favoriteFolders")
        try context.save()
        let again = try self.open(v4, path)
        #expect(names(try named(again, "BookmarkEntity", "Mobile").objects(forKey: "favorites")) == ["d", "a"])
        #expect(try integrity(path) == .string("ok"))
    }

    // MARK: A to-many becomes a to-one

    static let teamsMany = """
        <entity name="Team" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="members" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Player"/>
        </entity>
        <entity name="Player" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """

    @Test func aToManyBecomingAToOneKeepsTheFirstOnlyWhenDataLossIsAllowed() throws {
        let path = TestModels.temporaryStorePath()
        do {
            let context = try open(try model(Self.teamsMany), path)
            let red = context.insertObject(forEntityName: "Team")
            red["name"] = "Red"
            let blue = context.insertObject(forEntityName: "Team")
            blue["name"] = "Blue"
            for name in ["Ann", "Ben", "Cat"] {
                let player = context.insertObject(forEntityName: "Player")
                player["name"] = .string(name)
                red.add(player, toKey: "members")
            }
            let dan = context.insertObject(forEntityName: "Player")
            dan["name"] = "Dan"
            blue.add(dan, toKey: "members")
            try context.save()
        }
        let one = try model(Self.teamsMany.replacingOccurrences(of: #"name="members" optional="YES" toMany="YES""#,
                                                               with: #"name="members" optional="YES" maxCount="1""#))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let refused = try #require(throws: StoreError.self) { try open(one, path, migrating: true) }
        #expect(refused.message.contains("would drop data (Team.members: 2 values)"), "\(refused.message)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let context = try open(one, path, migrating: true, allowingLoss: true)
        let red = try #require(try named(context, "Team", "Red").object(forKey: "members"))
        #expect(red["name"] == "Ann")
        #expect(try named(context, "Team", "Blue").object(forKey: "members")?["name"] == "Dan")
        #expect(try integrity(path) == .string("ok"))
    }

    // MARK: Ordering, and an inverse that goes

    static let departments = """
        <entity name="Department" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="people" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Person" inverseName="department" inverseEntity="Person"/>
        </entity>
        <entity name="Person" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Department" inverseName="people" inverseEntity="Department"/>
        </entity>
        """

    func seedDepartments(_ path: String) throws {
        let context = try open(try model(Self.departments), path)
        let eng = context.insertObject(forEntityName: "Department")
        eng["name"] = "Eng"
        for name in ["Zoe", "Al", "Mo"] {
            let person = context.insertObject(forEntityName: "Person")
            person["name"] = .string(name)
            person.setObject(eng, forKey: "department")
        }
        try context.save()
    }

    @Test func anUnorderedToManyBecomingOrderedTakesItsMembersInKeyOrder() throws {
        let path = TestModels.temporaryStorePath()
        try seedDepartments(path)
        let ordered = try model(Self.departments.replacingOccurrences(of: #"toMany="YES" deletionRule="Nullify""#,
                                                                      with: #"toMany="YES" deletionRule="Nullify" ordered="YES""#))
        let context = try open(ordered, path, migrating: true)
        let eng = try named(context, "Department", "Eng")
        #expect(names(eng.objects(forKey: "people")) == ["Zoe", "Al", "Mo"])
        eng.remove(try named(context, "Person", "Zoe"), fromKey: "people")
        eng.insert(try named(context, "Person", "Zoe"), at: 2, inKey: "people")
        try context.save()
        #expect(names(eng.objects(forKey: "people")) == ["Al", "Mo", "Zoe"])
        let reopened = try open(ordered, path)
        #expect(names(try named(reopened, "Department", "Eng").objects(forKey: "people")) == ["Al", "Mo", "Zoe"])
    }

    @Test func aToManyLosingItsInverseMovesItsLinksToAJoinTable() throws {
        let path = TestModels.temporaryStorePath()
        try seedDepartments(path)
        let apart = try model(Self.departments
            .replacingOccurrences(of: #" inverseName="department" inverseEntity="Person""#, with: "")
            .replacingOccurrences(of: #" inverseName="people" inverseEntity="Department""#, with: ""))
        let context = try open(apart, path, migrating: true)
        let eng = try named(context, "Department", "Eng")
        #expect(names(eng.objects(forKey: "people")).sorted() == ["Al", "Mo", "Zoe"])
        #expect(try named(context, "Person", "Al").object(forKey: "department") === eng)
        #expect(try integrity(path) == .string("ok"))
    }

    // MARK: The hierarchy

    static let flat = """
        <entity name="Person" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="rank" optional="YES" attributeType="Integer 16"/>
        </entity>
        <entity name="Manager" parentEntity="Person" syncable="YES">
            <attribute name="budget" optional="YES" attributeType="Double"/>
        </entity>
        <entity name="Task" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person"/>
        </entity>
        """

    func seedPeople(_ path: String) throws {
        let context = try open(try model(Self.flat), path)
        let ada = context.insertObject(forEntityName: "Person")
        ada["name"] = "Ada"
        ada["rank"] = 2
        let max = context.insertObject(forEntityName: "Manager")
        max["name"] = "Max"
        max["budget"] = 9.5
        for (name, owner) in [("build", max), ("test", ada)] {
            let task = context.insertObject(forEntityName: "Task")
            task["name"] = .string(name)
            task.setObject(owner, forKey: "owner")
        }
        try context.save()
    }

    /// A parent above the hierarchy, `name` moved up into it, and an entity
    /// added in front (entity codes renumber): rows, values and to-ones to
    /// the right sub-entity are kept.
    @Test func aNewParentAboveAHierarchyKeepsRowsValuesAndLinks() throws {
        let path = TestModels.temporaryStorePath()
        try seedPeople(path)
        let v2 = try model("""
            <entity name="Area" syncable="YES"><attribute name="name" optional="YES" attributeType="String"/></entity>
            <entity name="Being" isAbstract="YES" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            """ + Self.flat
                .replacingOccurrences(of: #"<entity name="Person" syncable="YES">"#, with: #"<entity name="Person" parentEntity="Being" syncable="YES">"#)
                .replacingOccurrences(of: #"<attribute name="name" optional="YES" attributeType="String"/>"# + "\n    <attribute name=\"rank\"",
                                      with: #"<attribute name="rank""#))
        let preview = try #require(try PersistentStoreCoordinator.migrationPreview(at: URL(fileURLWithPath: path), model: v2))
        #expect(preview.changes == ["added entity Area", "added entity Being", "moved entity Person under Being"])
        let context = try open(v2, path, migrating: true)
        let max = try named(context, "Being", "Max")
        #expect(max.entity.name == "Manager" && max["budget"] == 9.5)
        #expect(try named(context, "Person", "Ada")["rank"] == 2)
        #expect(try named(context, "Task", "build").object(forKey: "owner") === max)
        #expect(try named(context, "Task", "test").object(forKey: "owner")?.entity.name == "Person")
        #expect(try context.count(for: FetchRequest(entityName: "Being")) == 2)
        #expect(try integrity(path) == .string("ok"))
    }

    /// Manager leaves Person's hierarchy: its rows move to a table of
    /// their own, keeping their keys, so the to-ones that name them hold.
    @Test func anEntityMovingOutOfItsHierarchyTakesItsRowsAlong() throws {
        let path = TestModels.temporaryStorePath()
        try seedPeople(path)
        let v2 = try model(Self.flat
            .replacingOccurrences(of: #"<entity name="Manager" parentEntity="Person" syncable="YES">"#,
                                  with: #"<entity name="Manager" syncable="YES"><attribute name="name" optional="YES" attributeType="String"/>"#)
            .replacingOccurrences(of: #"destinationEntity="Person"/>"#, with: #"destinationEntity="Person"/><relationship name="lead" optional="YES" maxCount="1" destinationEntity="Manager"/>"#))
        let plan = try MigrationPlan.infer(from: try model(Self.flat), to: v2)
        #expect(plan.entities == [.moved(entity: "Manager", fromParent: "Person", toParent: nil)])
        // Max is no Person now: the task he owned loses its owner, and
        // Manager its rank. Both are counted and refused unless allowed.
        let refused = try #require(throws: StoreError.self) { try open(v2, path, migrating: true) }
        #expect(refused.message.contains("would drop data (Task.owner: 1 value)"),
                "\(refused.message)")
        let context = try open(v2, path, migrating: true, allowingLoss: true)
        #expect(try context.count(for: FetchRequest(entityName: "Person")) == 1)
        let max = try named(context, "Manager", "Max")
        #expect(max["budget"] == 9.5)
        // The old to-one named a Person that is no Person now: it goes.
        #expect(try named(context, "Task", "build").object(forKey: "owner") == nil)
        #expect(try named(context, "Task", "test").object(forKey: "owner")?["name"] == "Ada")
        #expect(try integrity(path) == .string("ok"))
    }
}
