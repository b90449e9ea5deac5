import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// The model caches of real stores (plaso's test data): they decode, they
/// describe their stores, and mrq writes them back with the same classes
/// and keys. Skipped, with a note, when `$MRQ_REAL_FILES/plaso` is absent
/// (CI has no real files).
@Suite(.enabled(if: RealFiles.present, "the real Core Data files are absent (MRQ_REAL_FILES/plaso)"))
struct CoreDataRealArchiveTests {
    @Test(arguments: RealFiles.storesWithCaches)
    func testCacheDescribesItsStore(store: String) throws {
        let db = try RealFiles.store(store)
        let blob = try #require(try db.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE"))
        guard case .data(let content) = blob else { Issue.record("Z_CONTENT is not a blob"); return }
        #expect(try Deflate.decompress(content) == RealFiles.cache(store))
        let model = try ManagedObjectModel(modelCache: content)
        // Entity numbers from 16000 are Core Data's own persistent history
        // entities (CHANGE, TRANSACTION, TRANSACTIONSTRING), not the model's.
        let names = try db.rows("SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_ENT < 16000").compactMap { row -> String? in
            if case .string(let s) = row[0] { return s }
            return nil
        }
        #expect(model.entities.count == names.count)
        #expect(Set(model.entities.map(\.name)) == Set(names))
        for entity in model.rootEntities {
            #expect(try db.tableExists("Z" + entity.name.uppercased()), "\(store): no table for root entity \(entity.name)")
        }
    }

    /// Decoded and encoded again, each real archive gives an archive with
    /// the same classes and, for each class, the same keys. Core Data
    /// varies in three ways mrq does not follow, so they are set aside:
    /// mutable and immutable collections and strings (NSMutableArray or
    /// NSArray, NSMutableString or a plain string: same keys), and
    /// `_NSPropertyDescriptionProxy`, which older caches use for inherited
    /// properties where newer ones, and mrq, copy them.
    @Test(arguments: RealFiles.storesWithCaches)
    func testEncoderWritesTheSameClassesAndKeys(store: String) throws {
        let real = try KeyedArchive(RealFiles.cache(store))
        let mine = try KeyedArchive(try ManagedObjectModel(coreDataArchive: RealFiles.cache(store)).coreDataArchive())
        let realShape = try Self.shape(real), mineShape = try Self.shape(mine)
        #expect(realShape.keys.sorted() == mineShape.keys.sorted())
        for (className, keys) in realShape {
            #expect(keys == mineShape[className], "\(store): \(className)")
        }
    }

    static func shape(_ archive: KeyedArchive) throws -> [String: Set<String>] {
        var shape: [String: Set<String>] = [:]
        for index in 0..<archive.objects.count where try archive.isObject(index) {
            let object = try archive.object(at: index)
            var name = object.className
            if ["NSMutableString", "NSString", "_NSPropertyDescriptionProxy"].contains(name) { continue }
            if name.hasPrefix("NSMutable") { name = "NS" + name.dropFirst("NSMutable".count) }
            shape[name, default: []].formUnion(try object.keys)
        }
        return shape
    }

    @Test func testWhatTheCachesTaught() throws {
        let notes = try ManagedObjectModel(coreDataArchive: RealFiles.cache("NoteStore.sqlite"))
        // `SELF >= 0` with warning 1620 is a minimum.
        let count = notes.entity(named: "ICAccount")?.attribute(named: "serverSideUpdateTaskFailureCount")
        #expect(count?.minValue == .int(0))
        #expect(count?.validationPredicates.isEmpty == true)
        // Inherited properties are the parent's, not copies of the sub-entity.
        let note = try #require(notes.entity(named: "ICNote"))
        #expect(note.parentName == "ICCloudSyncingObject")
        #expect(note.declaredProperties.contains { $0.name == "identifier" } == false)
        #expect(note.attribute(named: "identifier")?.entity?.name == "ICCloudSyncingObject")
        #expect(notes.entity(named: "ICCloudSyncingObject")?.uniquenessConstraints == [["identifier"]])
        #expect(notes.entity(named: "ICLocation")?.isAbstract == true)

        let knowledge = try ManagedObjectModel(coreDataArchive: RealFiles.cache("knowledgec-10.14.db"))
        // Proxies for inherited properties are skipped the same way.
        #expect(knowledge.entity(named: "Event")?.declaredProperties.contains { $0.name == "uuid" } == false)
        #expect(knowledge.entity(named: "Event")?.attribute(named: "uuid") != nil)
        #expect(knowledge.configurations["CloudKit"] == ["AdditionChangeSet", "DeletionChangeSet"])
        #expect(knowledge.versionIdentifier == "28")
        let event = try #require(knowledge.entity(named: "Event"))
        #expect(event.fetchIndexes.map(\.name).contains("compoundIndex1"))
        #expect(event.attribute(named: "streamName")?.isIndexed == true)
        #expect(knowledge.entity(named: "AdditionChangeSet")?.versionHashModifier == "rdar://41988633")

        // NSFlagsKey 0x10: the value is kept in history after deletion.
        let preserved = try RealFiles.storesWithCaches.map { store in
            try ManagedObjectModel(coreDataArchive: RealFiles.cache(store)).entities
                .flatMap(\.declaredProperties).filter { ($0 as? AttributeDescription)?.preservesValueInHistoryOnDeletion == true }.count
        }.reduce(0, +)
        #expect(preserved == 33)

        // Indexes Core Data made for attributes marked indexed fold back into `isIndexed`.
        let imo = try ManagedObjectModel(coreDataArchive: RealFiles.cache("IMODb2.sqlite"))
        #expect(imo.entity(named: "IMOKeyVal")?.fetchIndexes.isEmpty == true)
        #expect(imo.entity(named: "IMOKeyVal")?.attribute(named: "key")?.isIndexed == true)
        // ... while those on relationships (Accounts3) stay fetch indexes.
        let accounts = try ManagedObjectModel(coreDataArchive: RealFiles.cache("Accounts3.sqlite"))
        #expect(accounts.entity(named: "AccountProperty")?.fetchIndexes.map(\.name) == ["owner"])
        #expect(accounts.entity(named: "AccessOptionsKey")?.renamingIdentifier == "AccessKey")
    }

    @Test(arguments: RealFiles.storesWithCaches)
    func testRealModelRoundTrips(store: String) throws {
        let model = try ManagedObjectModel(coreDataArchive: RealFiles.cache(store))
        let again = try ManagedObjectModel(coreDataArchive: try model.coreDataArchive())
        #expect(ModelComparison.differences(model, again) == [])
    }
}
