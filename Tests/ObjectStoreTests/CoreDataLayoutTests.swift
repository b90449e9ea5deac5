import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// Core Data's SQLite layout: the names it gives, the values it stores,
/// and a store in that layout written, read back and queried through the
/// same translator as mrq's own layout.
@Suite struct CoreDataLayoutTests {
    /// Accounts with two sub-entities that both declare `port` (Core
    /// Data's numbered suffix), notes with a to-one into that hierarchy
    /// (the entity column), an ordered to-many (the `Z_FOK_` column), a
    /// many-to-many (a `Z_<n>` join table) and every kind of value.
    static func model() throws -> ManagedObjectModel {
        let account = EntityDescription(name: "Account", isAbstract: true)
        account.add(AttributeDescription(name: "name", type: .string))
        account.add(AttributeDescription(name: "created", type: .date))
        account.add(RelationshipDescription(name: "notes", destination: "Note", inverse: "account", isToMany: true))
        let imap = EntityDescription(name: "IMAPAccount", parent: "Account")
        imap.add(AttributeDescription(name: "port", type: .integer16))
        let local = EntityDescription(name: "localAccount", parent: "Account")
        local.add(AttributeDescription(name: "quota", type: .integer32))
        local.add(AttributeDescription(name: "port", type: .integer64))
        let folder = EntityDescription(name: "Folder")
        folder.add(AttributeDescription(name: "title", type: .string))
        folder.add(RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", isToMany: true, isOrdered: true))
        let note = EntityDescription(name: "Note")
        note.add(AttributeDescription(name: "title", type: .string))
        note.add(AttributeDescription(name: "body", type: .string))
        note.add(AttributeDescription(name: "pinned", type: .boolean))
        note.add(AttributeDescription(name: "identifier", type: .uuid))
        note.add(AttributeDescription(name: "link", type: .uri))
        note.add(AttributeDescription(name: "amount", type: .decimal))
        note.add(AttributeDescription(name: "edited", type: .date))
        let attachment = AttributeDescription(name: "attachment", type: .binary)
        attachment.allowsExternalBinaryDataStorage = true
        note.add(attachment)
        note.add(RelationshipDescription(name: "account", destination: "Account", inverse: "notes"))
        note.add(RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"))
        note.add(RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", isToMany: true))
        let tag = EntityDescription(name: "Tag")
        tag.add(AttributeDescription(name: "name", type: .string))
        tag.add(RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", isToMany: true))
        return try ManagedObjectModel(entities: [note, tag, folder, account, local, imap])
    }

    static func text(_ value: Value) -> String {
        if case .string(let s) = value { return s }
        return "\(value)"
    }

    /// A new store in Core Data's layout at a temporary path, filled by
    /// ``populate(_:)`` and closed.
    static func populatedStore(_ name: String = "Notes.sqlite") throws -> URL {
        let url = temporaryStore(name)
        var options = PersistentStoreOptions()
        options.layout = .coreData
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        _ = try populate(ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator))
        return url
    }

    /// A context on the store at `url` in Core Data's layout, made with
    /// `model` when new.
    static func coreDataContext(_ model: ManagedObjectModel, at url: URL) throws -> ManagedObjectContext {
        var options = PersistentStoreOptions()
        options.layout = .coreData
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    }

    static func temporaryStore(_ name: String = "Notes.sqlite") -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-coredata-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name)
    }

    @Test func namesFollowCoreDataRules() throws {
        let model = try Self.model()
        let mapping = try SchemaMapping(model: model, layout: .coreData)
        // Depth first, roots and sub-entities in case-insensitive order.
        #expect(mapping.entityCodes == ["Account": 1, "IMAPAccount": 2, "localAccount": 3, "Folder": 4, "Note": 5, "Tag": 6])
        let accounts = mapping.table(for: model.entity(named: "IMAPAccount")!)
        #expect(accounts.name.unquoted == "ZACCOUNT")
        #expect([accounts.primaryKey, accounts.entityColumn, accounts.versionColumn].map { $0?.unquoted } == ["Z_PK", "Z_ENT", "Z_OPT"])
        // Integers first (entity by entity), then dates, then strings; the
        // second `port` takes a suffix.
        #expect(accounts.columns.map(\.name.unquoted) == ["ZPORT", "ZPORT1", "ZQUOTA", "ZCREATED", "ZNAME"])
        #expect(accounts.columns.map(\.sqlType) == ["INTEGER", "INTEGER", "INTEGER", "TIMESTAMP", "VARCHAR"])
        #expect(mapping.column(for: "port", of: model.entity(named: "localAccount")!)?.name.unquoted == "ZPORT1")
        let notes = mapping.table(for: model.entity(named: "Note")!)
        #expect(notes.columns.map(\.name.unquoted) == [
            "ZPINNED", "ZACCOUNT", "Z1_ACCOUNT", "ZFOLDER", "Z_FOK_FOLDER",
            "ZAMOUNT", "ZEDITED", "ZBODY", "ZTITLE", "ZLINK", "ZIDENTIFIER", "ZATTACHMENT",
        ])
        #expect(notes.columns.map(\.sqlType) == [
            "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER",
            "DECIMAL", "TIMESTAMP", "VARCHAR", "VARCHAR", "VARCHAR", "BLOB", "BLOB",
        ])
        let tags = try #require(mapping.joinTable("tags", of: model.entity(named: "Note")!))
        #expect(tags.name.unquoted == "Z_5TAGS" && tags.isOwner)
        #expect(tags.sourceColumn.unquoted == "Z_5NOTES" && tags.destinationColumn.unquoted == "Z_6TAGS")
        let inverse = try #require(mapping.joinTable("notes", of: model.entity(named: "Tag")!))
        #expect(inverse.name.unquoted == "Z_5TAGS" && !inverse.isOwner)
        #expect(inverse.sourceColumn.unquoted == "Z_6TAGS" && inverse.destinationColumn.unquoted == "Z_5NOTES")
    }

    /// A store with a relationship from an entity to itself: which side
    /// names the join table is the store's choice.
    @Test func aSelfReferencingJoinTableTakesTheStoresName() throws {
        let user = EntityDescription(name: "User")
        user.add(RelationshipDescription(name: "bans", destination: "User", inverse: "bansInverse", isToMany: true))
        user.add(RelationshipDescription(name: "bansInverse", destination: "User", inverse: "bans", isToMany: true))
        let model = try ManagedObjectModel(entities: [user])
        let fresh = try SchemaMapping(model: model, layout: .coreData)
        #expect(fresh.joinTable("bans", of: user)?.name.unquoted == "Z_1BANS")
        let existing = CoreDataSchema(entityNumbers: ["User": 1],
                                      tables: ["ZUSER": ["Z_PK", "Z_ENT", "Z_OPT"], "Z_1BANSINVERSE": ["Z_1BANS", "Z_1BANSINVERSE"]])
        let opened = try SchemaMapping(model: model, layout: .coreData, existing: existing)
        let join = try #require(opened.joinTable("bansInverse", of: user))
        #expect(join.name.unquoted == "Z_1BANSINVERSE" && join.isOwner)
        #expect(join.sourceColumn.unquoted == "Z_1BANS" && join.destinationColumn.unquoted == "Z_1BANSINVERSE")
        #expect(opened.joinTable("bans", of: user)?.isOwner == false)
    }

    /// A to-many that is its own inverse (`partners` ↔ `partners`): its join
    /// table's two columns cannot share a name, and both sides read back.
    @Test func aRelationshipThatIsItsOwnInverseLaysOutAndReadsBack() throws {
        let maker = EntityDescription(name: "Maker")
        maker.add(AttributeDescription(name: "name", type: .string))
        maker.add(RelationshipDescription(name: "partners", destination: "Maker", inverse: "partners", isToMany: true))
        let model = try ManagedObjectModel(entities: [maker])
        let join = try #require(try SchemaMapping(model: model, layout: .coreData).joinTable("partners", of: maker))
        #expect(join.name.unquoted == "Z_1PARTNERS" && join.sourceColumn.unquoted == "Z_1PARTNERS" && join.destinationColumn.unquoted == "Z_1PARTNERS1")
        let url = Self.temporaryStore("Makers.sqlite")
        do {
            let context = try Self.coreDataContext(model, at: url)
            let (a, b, c) = (context.insertObject(forEntityName: "Maker"), context.insertObject(forEntityName: "Maker"),
                             context.insertObject(forEntityName: "Maker"))
            (a["name"], b["name"], c["name"]) = (.string("a"), .string("b"), .string("c"))
            a.add(b, toKey: "partners")
            c.add(a, toKey: "partners")
            try context.save()
        }
        let context = try Self.coreDataContext(model, at: url)
        var request = FetchRequest(entityName: "Maker")
        request.sortDescriptors = [SortKey(keyPath: ["name"], ascending: true)]
        let makers = try context.fetch(request)
        let partners = makers.map { Set($0.objects(forKey: "partners").map { $0["name"] }) }
        #expect(partners == [[.string("b"), .string("c")], [.string("a")], [.string("a")]])
    }

    /// Join tables' key columns are unique across the model, as Core Data
    /// names them (Viber's Contacts.data in mvt's test data): a name an
    /// earlier join table took gets a numbered suffix, and a store laid out
    /// so writes and reads its rows through those names.
    @Test func joinKeyColumnsTakenByAnEarlierJoinTableGetANumber() throws {
        let contact = EntityDescription(name: "ABContact")
        contact.add(AttributeDescription(name: "name", type: .string))
        contact.add(RelationshipDescription(name: "members", destination: "Member", inverse: "abContacts", isToMany: true))
        contact.add(RelationshipDescription(name: "recentsLines", destination: "RecentsLine", inverse: "contacts", isToMany: true))
        let member = EntityDescription(name: "Member")
        member.add(AttributeDescription(name: "name", type: .string))
        member.add(RelationshipDescription(name: "abContacts", destination: "ABContact", inverse: "members", isToMany: true))
        member.add(RelationshipDescription(name: "recentsLines", destination: "RecentsLine", inverse: "members", isToMany: true))
        let line = EntityDescription(name: "RecentsLine")
        line.add(AttributeDescription(name: "name", type: .string))
        line.add(RelationshipDescription(name: "contacts", destination: "ABContact", inverse: "recentsLines", isToMany: true))
        line.add(RelationshipDescription(name: "members", destination: "Member", inverse: "recentsLines", isToMany: true))
        let model = try ManagedObjectModel(entities: [contact, member, line])
        let mapping = try SchemaMapping(model: model, layout: .coreData)
        func columns(_ name: String, of entity: EntityDescription) -> [String] {
            guard let join = mapping.joinTable(name, of: entity) else { return [] }
            return [join.name.unquoted, join.sourceColumn.unquoted, join.destinationColumn.unquoted]
        }
        #expect(columns("members", of: contact) == ["Z_1MEMBERS", "Z_1ABCONTACTS", "Z_2MEMBERS"])
        #expect(columns("recentsLines", of: contact) == ["Z_1RECENTSLINES", "Z_1CONTACTS", "Z_3RECENTSLINES"])
        #expect(columns("recentsLines", of: member) == ["Z_2RECENTSLINES", "Z_2MEMBERS1", "Z_3RECENTSLINES1"])
        #expect(columns("members", of: line) == ["Z_2RECENTSLINES", "Z_3RECENTSLINES1", "Z_2MEMBERS1"])

        let url = Self.temporaryStore("Viber.sqlite")
        do {
            let context = try Self.coreDataContext(model, at: url)
            let (ada, bob, line) = (context.insertObject(forEntityName: "Member"), context.insertObject(forEntityName: "Member"),
                                    context.insertObject(forEntityName: "RecentsLine"))
            (ada["name"], bob["name"], line["name"]) = (.string("ada"), .string("bob"), .string("line"))
            line.add(ada, toKey: "members")
            line.add(bob, toKey: "members")
            try context.save()
        }
        let db = try Database(path: url.path, readOnly: true)
        let names = try db.rows("SELECT name FROM pragma_table_info('Z_2RECENTSLINES') ORDER BY cid").compactMap { row -> String? in
            if case .string(let name) = row[0] { return name }
            return nil
        }
        #expect(names == ["Z_2MEMBERS1", "Z_3RECENTSLINES1"])
        let context = try Self.coreDataContext(model, at: url)
        let lines = try context.fetch(FetchRequest(entityName: "RecentsLine"))
        #expect(lines.count == 1)
        #expect(Set(lines.first?.objects(forKey: "members").map { $0["name"] } ?? []) == [.string("ada"), .string("bob")])
    }

    /// Every fixture model lays out a new store in both layouts (the
    /// Everything model's self-inverse `partners` once failed in Core Data's).
    @Test(arguments: ["Everything.xcdatamodel", "NoOptional.xcdatamodel", "OldStyle.xcdatamodel",
                      "Unmarked.xcdatamodeld", "Versioned.xcdatamodeld"])
    func everyFixtureModelLaysOutInBothLayouts(_ name: String) throws {
        let model = try ModelFixtures.load(name)
        for layout in [SchemaMapping.Layout.mrq, .coreData] {
            var options = PersistentStoreOptions()
            options.layout = layout
            let coordinator = PersistentStoreCoordinator(model: model)
            #expect(throws: Never.self, "\(name) in the \(layout) layout") {
                try coordinator.addPersistentStore(type: .inMemory, at: nil, options: options)
            }
        }
    }

    /// Writes a few notes; returns the context and the objects by title.
    static func populate(_ context: ManagedObjectContext) throws -> [String: ManagedObject] {
        let home = context.insertObject(forEntityName: "localAccount")
        home["name"] = .string("On My iPhone")
        home["quota"] = .int(5)
        home["port"] = .int(0)
        home["created"] = .date(Date(timeIntervalSinceReferenceDate: 86_400))
        let work = context.insertObject(forEntityName: "IMAPAccount")
        work["name"] = .string("Work")
        work["port"] = .int(993)
        let folder = context.insertObject(forEntityName: "Folder")
        folder["title"] = .string("Recipes")
        let swift = context.insertObject(forEntityName: "Tag")
        swift["name"] = .string("swift")
        let food = context.insertObject(forEntityName: "Tag")
        food["name"] = .string("food")
        var notes: [String: ManagedObject] = [:]
        for (n, title) in ["Bread", "Soup", "Async", "Zoë"].enumerated() {
            let note = context.insertObject(forEntityName: "Note")
            note["title"] = .string(title)
            note["pinned"] = .bool(n % 2 == 0)
            note["identifier"] = .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-030\(n)C301A9\(n)0")!)
            note["link"] = .url(URL(string: "https://example.com/\(n)")!)
            note["amount"] = .decimal(Decimal(string: "1\(n).25")!)
            note["edited"] = .date(Date(timeIntervalSinceReferenceDate: Double(n) * 1000.5))
            note["attachment"] = .data(Data([0xCA, 0xFE, UInt8(n)]))
            note.setObject(title == "Async" ? work : home, forKey: "account")
            note.add(title == "Async" ? swift : food, toKey: "tags")
            notes[title] = note
        }
        for title in ["Soup", "Bread", "Zoë"] {
            folder.add(notes[title]!, toKey: "notes")
        }
        try context.save()
        return notes
    }

    @Test func aNewStoreIsLaidOutAndFilledAsCoreDataDoes() throws {
        let url = Self.temporaryStore()
        let model = try Self.model()
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            var options = PersistentStoreOptions()
            options.layout = .coreData
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let notes = try Self.populate(context)
            notes["Soup"]!["body"] = .string("leek")
            try context.save()
        }
        let db = try Database(path: url.path, readOnly: true)
        let tables = Set(try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0] })
        #expect(tables == Set(["ZACCOUNT", "ZFOLDER", "ZNOTE", "ZTAG", "Z_5TAGS", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
            .map(Value.string)))
        // Z_PRIMARYKEY: every entity, its parent, and the highest key given
        // on the root's row.
        let keys = try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
        #expect(keys == [
            [.int(1), .string("Account"), .int(0), .int(2)],
            [.int(2), .string("IMAPAccount"), .int(1), .int(0)],
            [.int(3), .string("localAccount"), .int(1), .int(0)],
            [.int(4), .string("Folder"), .int(0), .int(1)],
            [.int(5), .string("Note"), .int(0), .int(4)],
            [.int(6), .string("Tag"), .int(0), .int(2)],
        ])
        // Z_ENT names the concrete entity; Z_OPT counts the saves of a row.
        #expect(try db.rows("SELECT Z_ENT, ZNAME, ZPORT, ZPORT1 FROM ZACCOUNT ORDER BY ZNAME") == [
            [.int(3), .string("On My iPhone"), .null, .int(0)],
            [.int(2), .string("Work"), .int(993), .null],
        ])
        #expect(try db.rows("SELECT ZTITLE, Z_OPT FROM ZNOTE WHERE ZTITLE IN ('Soup', 'Bread') ORDER BY ZTITLE")
                == [[.string("Bread"), .int(1)], [.string("Soup"), .int(2)]])
        // Values as Core Data stores them: dates as seconds since 2001,
        // booleans 0/1, UUIDs as 16 bytes, URIs as text, external-storage
        // data behind its marker byte, the to-one's entity number beside
        // its key, the ordered position beside the folder's key.
        let row = try db.rows("""
            SELECT ZEDITED, typeof(ZEDITED), ZPINNED, ZIDENTIFIER, ZLINK, ZATTACHMENT, Z1_ACCOUNT, Z_FOK_FOLDER
            FROM ZNOTE WHERE ZTITLE = 'Soup'
            """)[0]
        #expect(row[0] == .double(1000.5) && row[1] == .string("real"))
        #expect(row[2] == .int(0))
        #expect(row[3] == .data(bytes(of: UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0301C301A910")!)))
        #expect(row[4] == .string("https://example.com/1"))
        #expect(row[5] == .data(Data([1, 0xCA, 0xFE, 1])))
        #expect(row[6] == .int(3))
        #expect(row[7] == .int(0))
        #expect(try db.scalar("SELECT count(*) FROM Z_5TAGS") == .int(4))
        let plist = try #require(try CoreDataMetadata.read(db))
        #expect(plist["NSStoreType"] as? String == "SQLite")
        #expect(plist["NSStoreModelVersionHashes"] as? [String: Data] == model.entityVersionHashesByName)
        #expect(plist["NSStoreModelVersionHashesVersion"] as? Int == 3)
        #expect(plist["NSStoreModelVersionHashesDigest"] as? String == model.versionHashesDigest.base64EncodedString())
        #expect(Set(plist.keys) == ["NSStoreType", "NSStoreModelVersionHashes", "NSStoreModelVersionIdentifiers",
                                    "NSPersistenceFrameworkVersion", "NSStoreModelVersionHashesVersion",
                                    "NSStoreModelVersionHashesDigest", "_NSAutoVacuumLevel"])
        #expect(try db.scalar("SELECT count(*) FROM Z_METADATA") == .int(1))
    }

    @Test func aStoreInCoreDataLayoutAnswersEveryKindOfQuery() throws {
        let url = try Self.populatedStore()
        let model = try Self.model()
        // Reopened with default options: the file's own layout is found.
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: PersistentStoreOptions())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        func titles(_ format: String, _ arguments: [FormatArgument] = []) throws -> [String] {
            var request = FetchRequest(entityName: "Note", predicate: try Predicate(format: format, arguments: arguments))
            request.sortDescriptors = try SortSpec.parse("title")
            return try context.fetch(request).map { Self.text($0["title"]) }
        }
        #expect(try titles("account.name == 'Work'") == ["Async"])
        #expect(try titles("ANY tags.name == 'food'") == ["Bread", "Soup", "Zoë"])
        #expect(try titles("SUBQUERY(tags, $t, $t.name BEGINSWITH 's').@count > 0") == ["Async"])
        #expect(try titles("pinned == YES AND edited > %@", [.date(Date(timeIntervalSinceReferenceDate: 500))]) == ["Async"])
        #expect(try titles("identifier == %@", [.value(.uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0303C301A930")!))]) == ["Zoë"])
        #expect(try titles("folder.title == 'Recipes' AND account.name == 'On My iPhone'") == ["Bread", "Soup", "Zoë"])
        #expect(try context.count(for: FetchRequest(entityName: "Account")) == 2)
        #expect(try context.count(for: FetchRequest(entityName: "localAccount")) == 1)
        var byName = FetchRequest(entityName: "Account")
        byName.sortDescriptors = try SortSpec.parse("name")
        let accounts = try context.fetch(byName)
        #expect(accounts.map(\.entity.name) == ["localAccount", "IMAPAccount"])
        #expect(accounts[0]["created"] == .date(Date(timeIntervalSinceReferenceDate: 86_400)))
        let soup = try #require(try context.fetch(FetchRequest(entityName: "Note", predicate: try Predicate(format: "title == 'Soup'"))).first)
        #expect(soup["attachment"] == .data(Data([0xCA, 0xFE, 1])))
        #expect(soup["link"] == .url(URL(string: "https://example.com/1")!))
        #expect(soup["amount"] == .decimal(Decimal(string: "11.25")!))
        let folder = try #require(soup.object(forKey: "folder"))
        #expect(folder.objects(forKey: "notes").map { Self.text($0["title"]) } == ["Soup", "Bread", "Zoë"])

        // Deleting the newest note and adding one never reuses its key.
        let zoe = try #require(try context.fetch(FetchRequest(entityName: "Note", predicate: try Predicate(format: "title == 'Zoë'"))).first)
        let oldKey = zoe.objectID.primaryKey
        context.delete(zoe)
        try context.save()
        let fresh = context.insertObject(forEntityName: "Note")
        fresh["title"] = .string("Fresh")
        try context.save()
        #expect(fresh.objectID.primaryKey > oldKey)
        let db = try Database(path: url.path, readOnly: true)
        #expect(try db.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") == .int(fresh.objectID.primaryKey))
    }

    @Test func anotherModelIsRefusedWithWhatDiffers() throws {
        let url = Self.temporaryStore()
        var options = PersistentStoreOptions()
        options.layout = .coreData
        do {
            let coordinator = PersistentStoreCoordinator(model: try Self.model())
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        }
        let before = try Data(contentsOf: url)
        let changed = try Self.model()
        changed.entity(named: "Tag")!.add(AttributeDescription(name: "color", type: .string))
        let other = try ManagedObjectModel(entities: changed.entities.map { $0 })
        let coordinator = PersistentStoreCoordinator(model: other)
        let error = #expect(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: PersistentStoreOptions())
        }
        #expect(error?.kind == .modelMismatch)
        #expect(error?.message.contains("ZTAG has no column ZCOLOR for Tag.color") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func externallyStoredDataIsReadFromTheSupportFolder() throws {
        let url = try Self.populatedStore("Photos.sqlite")
        let model = try Self.model()
        // As Core Data leaves a value too large for the row: the file's
        // name in the column, the bytes in the support folder.
        let folder = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "9A1C2D3E-0000-4000-8000-00000000ABCD"
        let big = Data((0..<200_000).map { UInt8($0 % 251) })
        try big.write(to: folder.appendingPathComponent(name))
        do {
            let db = try Database(path: url.path)
            var reference = Data([2])
            reference.append(contentsOf: Array(name.utf8) + [0])
            try db.execute("UPDATE ZNOTE SET ZATTACHMENT = ? WHERE ZTITLE = 'Bread'", [.data(reference)])
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: PersistentStoreOptions())
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let values = Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest(entityName: "Note")).map {
            (Self.text($0["title"]), $0["attachment"])
        })
        #expect(values["Bread"] == .data(big))
        #expect(values["Async"] == .data(Data([0xCA, 0xFE, 2])))
    }

    /// Every object, attribute and relationship, as text that compares
    /// across stores (object IDs differ; titles and names do not).
    static func dump(_ context: ManagedObjectContext) throws -> [String] {
        func label(_ object: ManagedObject) -> String {
            text(object.entity.attributeSlot(named: "title") != nil ? object["title"] : object["name"])
        }
        var lines: [String] = []
        for entity in ["Note", "Tag", "Folder", "Account"] {
            for object in try context.fetch(FetchRequest(entityName: entity)) {
                var parts = [object.entity.name]
                for attribute in object.entity.attributes { parts.append("\(attribute.name)=\(object[attribute.name])") }
                for relationship in object.entity.relationships {
                    if relationship.isToMany {
                        var names = object.objects(forKey: relationship.name).map(label)
                        if !relationship.isOrdered { names.sort() }
                        parts.append("\(relationship.name)=\(names)")
                    } else {
                        let other = object.object(forKey: relationship.name)
                        parts.append("\(relationship.name)=\(other.map(label) ?? "nil")")
                    }
                }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines.sorted()
    }

    @Test func aStoreConvertsToCoreDataLayoutAndBackLosingNothing() throws {
        let model = try Self.model()
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addSQLiteStore(at: nil)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        _ = try Self.populate(context)
        let before = try Self.dump(context)
        #expect(before.count == 9)
        var options = PersistentStoreOptions()
        options.layout = .coreData
        let url = Self.temporaryStore()
        let copy = try coordinator.migratePersistentStore(coordinator.persistentStores[0], to: url, type: .sqlite, options: options)
        #expect(copy.layout == .coreData)
        #expect(try Self.dump(context) == before)
        #expect(try Database(path: url.path, readOnly: true).scalar("SELECT count(*) FROM ZNOTE") == .int(4))
        let back = url.deletingLastPathComponent().appendingPathComponent("back.sqlite")
        let mrq = try coordinator.migratePersistentStore(copy, to: back, type: .sqlite)
        #expect(mrq.layout == .mrq)
        // A fresh coordinator on each file reads the same graph.
        for file in [url, back] {
            let reader = PersistentStoreCoordinator(model: model)
            try reader.addPersistentStore(type: .sqlite, at: file)
            #expect(try Self.dump(ManagedObjectContext(concurrencyType: .confined, coordinator: reader)) == before, "\(file.lastPathComponent)")
        }
    }
}
