import Foundation
import Testing
@testable import ObjectStore
import Predicates

/// Real stores that iOS and macOS wrote (log2timeline/plaso's test data:
/// Notes, Accounts, Screen Time, DataUsage, netusage, knowledgeC, kik),
/// studied where they are and never committed. Put them in
/// `$MRQ_REAL_FILES/plaso` (default `/work/real/plaso`); without them these
/// tests say they skipped.
enum RealCoreDataStores {
    static let folder: URL = {
        let root = ProcessInfo.processInfo.environment["MRQ_REAL_FILES"] ?? "/work/real"
        return URL(fileURLWithPath: root).appendingPathComponent("plaso")
    }()

    /// Every Core Data store in the folder (files with Z_PRIMARYKEY).
    static let stores: [URL] = {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return names.sorted().compactMap { name -> URL? in
            guard !name.hasSuffix(".plist"), !name.hasSuffix("-wal"), !name.hasSuffix("-shm") else { return nil }
            let url = folder.appendingPathComponent(name)
            guard let db = try? Database(path: url.path, readOnly: true, immutable: true),
                  (try? db.tableExists("Z_PRIMARYKEY")) == true else { return nil }
            return url
        }
    }()
}

@Suite(.serialized, .enabled(if: !RealCoreDataStores.stores.isEmpty, "no real Core Data stores in $MRQ_REAL_FILES/plaso: skipped"))
struct CoreDataRealStoreTests {
    static let stores = RealCoreDataStores.stores

    /// The model `store` keeps, and a coordinator with the store opened
    /// read-only.
    static func openReadOnly(_ store: URL) throws -> (ManagedObjectModel, PersistentStoreCoordinator) {
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: store))
        let coordinator = PersistentStoreCoordinator(model: model)
        var options = PersistentStoreOptions()
        options.readOnly = true
        try coordinator.addPersistentStore(type: .sqlite, at: store, options: options)
        return (model, coordinator)
    }

    static func hasModelCache(_ store: URL) throws -> Bool {
        let db = try Database(path: store.path, readOnly: true, immutable: true)
        guard try db.tableExists("Z_MODELCACHE") else { return false }
        if case .data(let data)? = try db.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") { return !data.isEmpty }
        return false
    }

    /// Opening reads the model the store keeps; a store that keeps none
    /// says to give one. The file is unchanged afterwards.
    @Test(arguments: stores)
    func theStoreOpensWithItsOwnModelAndStaysAsItWas(store: URL) throws {
        let before = try OpeningTests.snapshot(store.deletingLastPathComponent()).filter { $0.key.hasPrefix(store.lastPathComponent) }
        if try Self.hasModelCache(store) {
            let model = try #require(try PersistentStoreCoordinator.storedModel(at: store))
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: .sqlite, at: store)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            for entity in model.entities where entity.parent == nil {
                _ = try context.count(for: FetchRequest(entityName: entity.name))
            }
        } else {
            let error = #expect(throws: StoreError.self) { _ = try PersistentStoreCoordinator.storedModel(at: store) }
            #expect(error?.message.contains("keeps no model") == true, "\(String(describing: error))")
        }
        let after = try OpeningTests.snapshot(store.deletingLastPathComponent()).filter { $0.key.hasPrefix(store.lastPathComponent) }
        #expect(after == before, "opening \(store.lastPathComponent) changed its files")
    }

    /// `count <Entity>` equals the rows of the entity and its sub-entities.
    @Test(arguments: stores)
    func everyEntityCountsItsRows(store: URL) throws {
        guard try Self.hasModelCache(store) else { return }
        let (model, coordinator) = try Self.openReadOnly(store)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let db = try Database(path: store.path, readOnly: true, immutable: true)
        var numbers: [String: Int64] = [:]
        for row in try db.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY") {
            if case .string(let name) = row[0], case .int(let n) = row[1] { numbers[name] = n }
        }
        for entity in model.entities {
            // Written by hand from Core Data's rules: the root's table, the
            // entity numbers of the entity and its sub-entities.
            let table = "Z" + entity.rootEntity.name.uppercased()
            let codes = entity.selfAndDescendants.compactMap { numbers[$0.name] }.map(String.init).joined(separator: ",")
            let expected = try db.scalar("SELECT count(*) FROM \(table) WHERE Z_ENT IN (\(codes))")
            let counted = try context.count(for: FetchRequest(entityName: entity.name))
            #expect(expected == .int(Int64(counted)), "\(store.lastPathComponent): count \(entity.name)")
        }
    }

    /// A predicate through each to-one relationship picks the rows a
    /// hand-written join picks.
    @Test(arguments: stores)
    func predicatesThroughRelationshipsMatchHandWrittenSQL(store: URL) throws {
        guard try Self.hasModelCache(store) else { return }
        let (model, coordinator) = try Self.openReadOnly(store)
        let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
        let db = try Database(path: store.path, readOnly: true, immutable: true)
        var checked = 0
        for entity in model.entities where entity.parent == nil {
            let table = "Z" + entity.name.uppercased()
            let columns = Set(try db.rows("SELECT name FROM pragma_table_info(?)", [.string(table)]).map { $0[0] })
            for relationship in entity.relationships where relationship.isToOne && !relationship.isTransient {
                guard let destination = relationship.destination?.rootEntity,
                      columns.contains(.string("Z" + relationship.name.uppercased())) else { continue }
                let destinationTable = "Z" + destination.name.uppercased()
                let destinationColumns = Set(try db.rows("SELECT name FROM pragma_table_info(?)", [.string(destinationTable)]).map { $0[0] })
                guard let attribute = destination.attributes.first(where: {
                    !$0.isTransient && ($0.type == .string || $0.type.isInteger) && destinationColumns.contains(.string("Z" + $0.name.uppercased()))
                }) else { continue }
                let fk = "Z" + relationship.name.uppercased()
                let column = "Z" + attribute.name.uppercased()
                guard let value = try db.scalar("""
                    SELECT d.\(column) FROM \(table) e JOIN \(destinationTable) d ON d.Z_PK = e.\(fk)
                    WHERE d.\(column) IS NOT NULL LIMIT 1
                    """), !value.isNull else { continue }
                let expected = Set(try db.rows("""
                    SELECT e.Z_PK FROM \(table) e JOIN \(destinationTable) d ON d.Z_PK = e.\(fk) WHERE d.\(column) = ?
                    """, [value]).map { $0[0] })
                let predicate = try Predicate(format: "%K == %@", .keyPath("\(relationship.name).\(attribute.name)"), .value(value))
                let fetched = Set(try context.fetch(FetchRequest(entityName: entity.name, predicate: predicate)).map { Value.int($0.objectID.primaryKey) })
                #expect(fetched == expected, "\(store.lastPathComponent): \(entity.name) where \(predicate.format)")
                checked += 1
            }
        }
        print("\(store.lastPathComponent): \(checked) relationship predicates checked")
    }

    /// The version hashes computed from the model the store keeps equal
    /// the ones Core Data wrote into its metadata.
    @Test(arguments: stores)
    func versionHashesEqualTheStoresMetadata(store: URL) throws {
        guard try Self.hasModelCache(store) else { return }
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: store))
        let db = try Database(path: store.path, readOnly: true, immutable: true)
        let metadata = try #require(try CoreDataMetadata.read(db))
        let stored = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data])
        #expect(model.entityVersionHashesByName == stored, "\(store.lastPathComponent)")
        if let digest = metadata["NSStoreModelVersionHashesDigest"] as? String {
            #expect(model.versionHashesDigest.base64EncodedString() == digest, "\(store.lastPathComponent)")
        }
    }

    /// The fixture generator: a store mrq lays out in Core Data's layout
    /// from the real store's own model has the real store's tables,
    /// columns (names, types, order), entity numbers and metadata keys.
    @Test(arguments: stores)
    func aStoreMadeFromTheSameModelHasTheSameStructure(store: URL) throws {
        guard try Self.hasModelCache(store) else { return }
        let model = try #require(try PersistentStoreCoordinator.storedModel(at: store))
        let made = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-made-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: made.path + suffix) } }
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            var options = PersistentStoreOptions()
            options.layout = .coreData
            try coordinator.addPersistentStore(type: .sqlite, at: made, options: options)
        }
        let real = try Database(path: store.path, readOnly: true, immutable: true)
        let ours = try Database(path: made.path, readOnly: true)
        func structure(_ db: Database) throws -> [String: [[Value]]] {
            var tables: [String: [[Value]]] = [:]
            for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                guard case .string(let name) = row[0], !name.hasPrefix("A"), !name.hasPrefix("ANSCK") else { continue }
                tables[name] = try db.rows("SELECT name, type FROM pragma_table_info(?)", [.string(name)])
            }
            return tables
        }
        #expect(try structure(ours) == structure(real), "\(store.lastPathComponent)")
        let entities = "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT"
        #expect(try ours.rows(entities) == real.rows(entities), "\(store.lastPathComponent)")
        let realKeys = Set(try #require(try CoreDataMetadata.read(real)).keys.filter { $0.hasPrefix("NS") })
        let ourKeys = Set(try #require(try CoreDataMetadata.read(ours)).keys.filter { $0.hasPrefix("NS") })
        #expect(realKeys.subtracting(ourKeys).isEmpty, "\(store.lastPathComponent): keys we do not write: \(realKeys.subtracting(ourKeys))")
    }

    /// Every bit an update's column mask sets names a property of its
    /// entity (the reading of the mask `history` relies on).
    @Test(arguments: stores)
    func historyMasksNameProperties(store: URL) throws {
        guard try Self.hasModelCache(store) else { return }
        let db = try Database(path: store.path, readOnly: true, immutable: true)
        guard try db.tableExists("ACHANGE") else { return }
        let (model, coordinator) = try Self.openReadOnly(store)
        let sqlite = try #require(coordinator.persistentStores.first as? SQLiteStore)
        var names: [Int64: String] = [:]
        for row in try db.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            if case .int(let n) = row[0], case .string(let name) = row[1] { names[n] = name }
        }
        var updates = 0
        for row in try db.rows("SELECT ZENTITY, ZCOLUMNS FROM ACHANGE WHERE ZCHANGETYPE = 1 AND ZCOLUMNS IS NOT NULL") {
            guard case .int(let number) = row[0], case .data(let mask) = row[1],
                  let entity = names[number].flatMap(model.entity(named:)) else { continue }
            // Bits run from the high bit of the first byte: the last set
            // one must fall on a property of the entity.
            let last = mask.indices.reversed().first { mask[$0] != 0 }.map { byteIndex in
                (byteIndex - mask.startIndex) * 8 + 7 - mask[byteIndex].trailingZeroBitCount
            } ?? -1
            #expect(last < sqlite.historySlots(of: entity).count,
                    "\(store.lastPathComponent): \(entity.name) mask \(mask.map { String(format: "%02x", $0) }.joined())")
            #expect(!sqlite.historyProperties(of: entity, mask: mask).isEmpty)
            updates += 1
        }
        #expect(updates > 0)
    }
}
