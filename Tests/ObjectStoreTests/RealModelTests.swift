import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Models of public iOS projects (CoreStore, MagicalRecord, RestKit,
/// mastodon-ios, DuckDuckGo's BrowserServicesKit, simplenote-ios, LoopKit,
/// Core-Data-Editor, mogenerator), copied under `$MRQ_REAL_FILES/models`
/// (default /work/real/models) and never committed: every version loads
/// (or, saved by Xcode 3 only, says so), survives writing and reading
/// back, and a store opens on it.
@Suite struct RealModelTests {
    static let directory = URL(fileURLWithPath: ProcessInfo.processInfo.environment["MRQ_REAL_FILES"] ?? "/work/real")
        .appendingPathComponent("models")
    static let present = FileManager.default.fileExists(atPath: directory.path)

    /// Every `.xcdatamodel` folder and every `.xcdatamodeld` bundle below
    /// the directory.
    static func models() -> (versions: [URL], bundles: [URL]) {
        var versions: [URL] = []
        var bundles: [URL] = []
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            switch url.pathExtension {
            case "xcdatamodel": versions.append(url)
            case "xcdatamodeld": bundles.append(url)
            default: continue
            }
        }
        return (versions.sorted { $0.path < $1.path }, bundles.sorted { $0.path < $1.path })
    }

    @Test(.enabled(if: present, "no real models at $MRQ_REAL_FILES/models: copy .xcdatamodel(d) folders of public projects there"))
    func everyVersionLoadsAndSurvivesARoundTrip() throws {
        let (versions, _) = Self.models()
        #expect(versions.count >= 40, "\(versions.count) model versions found")
        var loaded = 0
        var binary = 0
        for url in versions {
            let name = url.path.dropFirst(Self.directory.path.count + 1)
            let hasContents = FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path)
            guard hasContents else {
                let error = try #require(throws: ModelError.self, "\(name)") { try ManagedObjectModel(contentsOf: url) }
                #expect(error.message.contains("an old binary model"), "\(name): \(error)")
                binary += 1
                continue
            }
            let model: ManagedObjectModel
            do {
                model = try ManagedObjectModel(contentsOf: url)
            } catch {
                Issue.record("\(name): \(error)")
                continue
            }
            let xml = try model.xcdatamodelContents()
            let again = try ModelFixtures.parse(xml, file: String(name))
            #expect(again.isEquivalent(to: model), "\(name) changed in a write and read")
            #expect(again.fingerprint == model.fingerprint, "\(name)")
            #expect(try ManagedObjectModel(archive: model.archived()).isEquivalent(to: model), "\(name)")
            // A store of its own layout opens on it.
            _ = try TestModels.coordinator(model)
            loaded += 1
        }
        #expect(loaded > 0 && binary > 0, "loaded \(loaded), binary \(binary)")
    }

    @Test(.enabled(if: present, "no real models at $MRQ_REAL_FILES/models"))
    func everyBundleLoadsItsCurrentVersion() throws {
        let (_, bundles) = Self.models()
        #expect(bundles.count >= 15)
        for bundle in bundles {
            do {
                let model = try ManagedObjectModel(contentsOf: bundle)
                #expect(!model.entities.isEmpty, "\(bundle.lastPathComponent)")
            } catch let error as ModelError where error.message.contains("an old binary model") {
                // MagicalRecord's Recipes sample is current in the old format.
                continue
            } catch let error as ModelError where error.message.hasPrefix("no model found") {
                // RestKit ships a bundle holding its .xccurrentversion alone.
                let versions = try FileManager.default.contentsOfDirectory(atPath: bundle.path).filter { $0.hasSuffix(".xcdatamodel") }
                #expect(versions.isEmpty, "\(bundle.lastPathComponent): \(error)")
            }
        }
    }

    /// DuckDuckGo's bookmarks store through every version of its model,
    /// one migration at a time: version 4 made the to-one favoriteFolder
    /// the to-many favoriteFolders, which each favorite's folder joins.
    @Test(.enabled(if: present, "no real models at $MRQ_REAL_FILES/models"))
    func duckDuckGoBookmarksMigrateThroughEveryVersion() throws {
        let bundle = Self.directory.appendingPathComponent("BrowserServicesKit/BookmarksModel.xcdatamodeld")
        guard FileManager.default.fileExists(atPath: bundle.path) else { return }
        func version(_ n: Int) throws -> ManagedObjectModel {
            try ManagedObjectModel(contentsOf: bundle.appendingPathComponent(n == 1 ? "BookmarksModel.xcdatamodel" : "BookmarksModel \(n).xcdatamodel"))
        }
        let path = TestModels.temporaryStorePath()
        do {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: try TestModels.coordinator(try version(1), path: path))
            func bookmark(_ title: String, folder: Bool) -> ManagedObject {
                let object = context.insertObject(forEntityName: "BookmarkEntity")
                object["title"] = .string(title)
                object["uuid"] = .string(title.lowercased())
                object["isFolder"] = .bool(folder)
                object["isFavorite"] = .bool(!folder)
                return object
            }
            let favorites = bookmark("Favorites", folder: true)
            for title in ["Zeta", "Alpha", "Mid"] { favorites.add(bookmark(title, folder: false), toKey: "favorites") }
            _ = bookmark("Loose", folder: false)
            try context.save()
        }
        for n in 2...6 {
            // Version 3 removed the attribute isFavorite (its values go, as
            // Core Data drops them); the rest drop nothing, version 4 included.
            let preview = try #require(try PersistentStoreCoordinator.migrationPreview(at: URL(fileURLWithPath: path), model: try version(n)))
            #expect(preview.lossSummary == (n == 3 ? "BookmarkEntity.isFavorite: 5 values" : ""), "version \(n)")
            let coordinator = PersistentStoreCoordinator(model: try version(n))
            try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path), migratesAutomatically: true, allowsMigrationDataLoss: n == 3)
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            let folder = try #require(try context.fetch(FetchRequest(entityName: "BookmarkEntity", predicate: try Predicate(format: "title == 'Favorites'"))).first)
            #expect(folder.objects(forKey: "favorites").map { $0["title"] } == ["Zeta", "Alpha", "Mid"], "version \(n)")
            let alpha = try #require(try context.fetch(FetchRequest(entityName: "BookmarkEntity", predicate: try Predicate(format: "title == 'Alpha'"))).first)
            if n >= 4 {
                #expect(alpha.objects(forKey: "favoriteFolders").map(\.objectID) == [folder.objectID], "version \(n)")
            } else {
                #expect(alpha.object(forKey: "favoriteFolder") === folder, "version \(n)")
            }
            #expect(try context.count(for: FetchRequest(entityName: "BookmarkEntity")) == 5)
        }
    }

    /// What the real models hold that this work is about, so that the
    /// tests above cover it.
    @Test(.enabled(if: present, "no real models at $MRQ_REAL_FILES/models"))
    func theRealModelsHoldTemplatesAndRequiredToManys() throws {
        let mogenerator = Self.directory.appendingPathComponent("mogenerator/test.xcdatamodel")
        guard FileManager.default.fileExists(atPath: mogenerator.path) else { return }
        let model = try ManagedObjectModel(contentsOf: mogenerator)
        #expect(model.fetchRequestTemplate(forName: "byHumanName")?.predicate?.format == "humanName == $humanName")
        let request = try model.fetchRequestFromTemplate(withName: "byParentName", substitutionVariables: ["parentName": "Ada"])
        #expect(request.predicate?.format == #"parent.parentName == "Ada""#)
    }
}
