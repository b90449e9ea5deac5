import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// The real Core Data files studied for issue 17 (plaso's test stores),
/// under `$MRQ_REAL_FILES/plaso` (default `/work/real`). They are never
/// committed; the tests that need them skip when they are absent.
enum RealFiles {
    static let directory = URL(fileURLWithPath: ProcessInfo.processInfo.environment["MRQ_REAL_FILES"] ?? "/work/real")
        .appendingPathComponent("plaso")

    /// The stores whose model cache plaso's files hold, with the cache
    /// inflated beside them as `<store>.modelcache.plist`.
    static let storesWithCaches = [
        "Accounts3.sqlite", "DataUsage.sqlite", "IMODb2.sqlite", "NoteStore.sqlite", "RMAdminStore-Local.sqlite",
        "knowledgec-10.13.db", "knowledgec-10.14.db", "netusage.sqlite",
    ]

    static var present: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("NoteStore.sqlite.modelcache.plist").path)
    }

    static func cache(_ store: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(store + ".modelcache.plist"))
    }

    static func store(_ name: String) throws -> Database {
        try Database(path: directory.appendingPathComponent(name).path, readOnly: true, immutable: true)
    }
}

/// Compares two models property by property, whatever the order of
/// entities and properties; predicates compare parsed.
enum ModelComparison {
    static func differences(_ a: ManagedObjectModel, _ b: ManagedObjectModel) -> [String] {
        var out: [String] = []
        if Set(a.entities.map(\.name)) != Set(b.entities.map(\.name)) {
            out.append("entities \(a.entities.map(\.name).sorted()) vs \(b.entities.map(\.name).sorted())")
        }
        if a.versionIdentifier != b.versionIdentifier {
            out.append("versionIdentifier \(a.versionIdentifier ?? "nil") vs \(b.versionIdentifier ?? "nil")")
        }
        if a.configurations.mapValues({ $0.sorted() }) != b.configurations.mapValues({ $0.sorted() }) {
            out.append("configurations \(a.configurations) vs \(b.configurations)")
        }
        for entity in a.entities {
            guard let other = b.entity(named: entity.name) else { continue }
            var x = EntityArchive(entity), y = EntityArchive(other)
            x.properties = normalized(x.properties)
            y.properties = normalized(y.properties)
            if x.properties != y.properties {
                for (p, q) in zip(x.properties, y.properties) where p != q {
                    out.append("\(entity.name).\(p.name): \(p) vs \(q)")
                }
                if x.properties.map(\.name) != y.properties.map(\.name) {
                    out.append("\(entity.name) properties \(x.properties.map(\.name)) vs \(y.properties.map(\.name))")
                }
            }
            x.properties = []
            y.properties = []
            if x != y { out.append("entity \(entity.name): \(x) vs \(y)") }
        }
        return out
    }

    private static func canonical(_ format: String) -> String {
        (try? Predicates.Predicate(format: format).format) ?? "unparsable: \(format)"
    }

    private static func normalized(_ properties: [PropertyArchive]) -> [PropertyArchive] {
        properties.map { p in
            var p = p
            p.validationPredicates = p.validationPredicates?.map { .init(predicate: canonical($0.predicate), message: $0.message) }
            p.predicate = p.predicate.map(canonical)
            return p
        }.sorted { $0.name < $1.name }
    }
}

@Suite struct CoreDataModelArchiveTests {
    static func roundTrip(_ model: ManagedObjectModel) throws -> ManagedObjectModel {
        try ManagedObjectModel(coreDataArchive: try model.coreDataArchive())
    }

    @Test func testPeopleModelRoundTrip() throws {
        let model = try TestModels.people(configurations: ["Staff": ["Person", "Manager"]])
        let again = try Self.roundTrip(model)
        #expect(ModelComparison.differences(model, again) == [])
        #expect(again.fingerprint == model.fingerprint)
    }

    @Test(arguments: ["Everything.xcdatamodel", "OldStyle.xcdatamodel", "NoOptional.xcdatamodel", "Versioned.xcdatamodeld", "Bare/contents", "Unmarked.xcdatamodeld"])
    func testFixtureRoundTrip(name: String) throws {
        let model = try ModelFixtures.load(name)
        let again = try Self.roundTrip(model)
        #expect(ModelComparison.differences(model, again) == [])
        #expect(again.fingerprint == model.fingerprint)
    }

    @Test(arguments: ["People.xcdatamodeld", "Mail.xcdatamodeld"])
    func testSampleRoundTrip(name: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Samples").appendingPathComponent(name).standardizedFileURL
        let model = try ManagedObjectModel(contentsOf: url)
        let again = try Self.roundTrip(model)
        #expect(ModelComparison.differences(model, again) == [])
    }

    @Test func testEverythingDetailsSurvive() throws {
        let again = try Self.roundTrip(try ModelFixtures.load("Everything.xcdatamodel"))
        let gadget = try #require(again.entity(named: "Gadget"))
        #expect(gadget.parentName == "Item")
        #expect(gadget.renamingIdentifier == "Widget")
        #expect(gadget.uniquenessConstraints == [["code"], ["title", "maker"]])
        #expect(gadget.fetchIndexes.map(\.name) == ["byCode", "byTitleAndWeight"])
        let small = try #require(gadget.attribute(named: "small"))
        #expect(small.minValue == .int(-5) && small.maxValue == .int(500) && small.defaultValue == .int(7))
        let price = try #require(gadget.attribute(named: "price"))
        #expect(price.defaultValue == .decimal(Decimal(string: "19.99")!))
        let madeOn = try #require(gadget.attribute(named: "madeOn"))
        #expect(madeOn.minValue == .date(Date(timeIntervalSinceReferenceDate: -978307200)))
        let blob = try #require(gadget.attribute(named: "blob"))
        #expect(blob.maxValue == .int(1024) && blob.allowsExternalBinaryDataStorage)
        let title = try #require(gadget.attribute(named: "title"))
        #expect(title.regularExpression == "[A-Z][A-Za-z ]*" && title.minValue == .int(1) && title.maxValue == .int(40))
        let code = try #require(gadget.attribute(named: "code"))
        #expect(code.validationPredicates.map(\.message) == ["code must start with G-", "code is too long"])
        let parts = try #require(gadget.relationship(named: "parts"))
        #expect(parts.isOrdered && parts.minCount == 1 && parts.maxCount == 5 && parts.deleteRule == .cascade)
        let heavy = try #require(gadget.property(named: "heavyParts") as? FetchedPropertyDescription)
        #expect(heavy.destinationName == "Part")
        #expect(try Predicates.Predicate(format: heavy.predicateFormat) == Predicates.Predicate(format: "mass > 10 AND name != $FETCH_SOURCE.title"))
        #expect(again.configurations["Cloud"] == ["Maker", "Part"])
        #expect(again.versionIdentifier == "everything-1")
    }

    @Test func testPropertiesComeInCoreDataOrder() throws {
        let again = try Self.roundTrip(try ModelFixtures.load("Everything.xcdatamodel"))
        let gadget = try #require(again.entity(named: "Gadget"))
        let names = gadget.declaredProperties.map(\.name)
        // Attributes by name, then to-ones, then to-manys, then fetched.
        #expect(names.prefix(3) == ["blob", "code", "enabled"])
        #expect(names.suffix(5) == ["maker", "owner", "parts", "related", "heavyParts"])
    }

    @Test func testSpotlightAndHistoryFlagsSurvive() throws {
        let model = try TestModels.people()
        let person = try #require(model.entity(named: "Person"))
        person.attribute(named: "lastName")?.isIndexedBySpotlight = true
        person.attribute(named: "photo")?.preservesValueInHistoryOnDeletion = true
        let archive = try model.coreDataArchive()
        let again = try ManagedObjectModel(coreDataArchive: archive)
        #expect(again.entity(named: "Person")?.attribute(named: "lastName")?.isIndexedBySpotlight == true)
        #expect(again.entity(named: "Person")?.attribute(named: "photo")?.preservesValueInHistoryOnDeletion == true)
        #expect(again.entity(named: "Person")?.attribute(named: "firstName")?.isIndexedBySpotlight == false)
    }

    @Test func testModelCacheRoundTrip() throws {
        let model = try ModelFixtures.load("Everything.xcdatamodel")
        let blob = try model.modelCache()
        #expect(try Deflate.decompress(blob) == model.coreDataArchive())
        #expect(ModelComparison.differences(model, try ManagedObjectModel(modelCache: blob)) == [])
    }

    @Test func testArchiveIsDeterministic() throws {
        let model = try ModelFixtures.load("Everything.xcdatamodel")
        #expect(try model.coreDataArchive() == ModelFixtures.load("Everything.xcdatamodel").coreDataArchive())
    }

    @Test func testFetchRequestTemplatesRoundTrip() throws {
        let model = try TestModels.people()
        let templates = [
            ArchivedFetchRequestTemplate(name: "byName", entityName: "Person", predicateFormat: "lastName BEGINSWITH[c] $PREFIX"),
            ArchivedFetchRequestTemplate(name: "all", entityName: "Tag", predicateFormat: "TRUEPREDICATE"),
        ]
        let archive = try model.coreDataArchive(fetchRequestTemplates: templates)
        #expect(try ManagedObjectModel.fetchRequestTemplates(coreDataArchive: archive) == templates.sorted { $0.name < $1.name })
        let bad = ArchivedFetchRequestTemplate(name: "x", entityName: "Nobody", predicateFormat: "TRUEPREDICATE")
        #expect(throws: ModelError("fetch request template 'x' fetches unknown entity 'Nobody'")) {
            try model.coreDataArchive(fetchRequestTemplates: [bad])
        }
    }

    @Test(arguments: [
        "age > 18 AND lastName BEGINSWITH[cd] \"Sm\"",
        "NOT (firstName == nil) OR score <= 2.5",
        "ANY tags.label IN {\"a\", \"b\"}", "ALL tags.label ENDSWITH \"x\"", "NONE tags.label LIKE[c] \"a*\"",
        "firstName MATCHES \"[A-Z].*\"", "tags.@count > 2", "age BETWEEN {1, 10}", "lastName CONTAINS[n] \"o\"",
        "SUBQUERY(tags, $t, $t.label == \"x\").@count > 0", "age + 1 > score * 2", "born > CAST(0, \"NSDate\")",
        "token == CAST(\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", \"NSUUID\")", "score == -1.5", "$x.name != lastName",
        "TRUEPREDICATE", "FALSEPREDICATE", "sum:(tags.label.length) > 3", "lastName != \"\\\"quoted\\\"\"",
    ])
    func testPredicateArchiveRoundTrip(format: String) throws {
        let predicate = try Predicates.Predicate(format: format)
        let data = KeyedArchiveWriter.archive(root: try PredicateArchive.node(for: predicate))
        let archive = try KeyedArchive(data)
        let again = try PredicateArchive.predicate(try archive.object(at: archive.topReference()))
        #expect(again == predicate, "\(again.format)")
    }

    @Test func testUnarchivablePredicateThrows() throws {
        let model = try ManagedObjectModel {
            Entity("A") {
                Attribute("n", .integer32).validated(by: "n[0] > 1", message: "m")
            }
        }
        let error = #expect(throws: ModelError.self) { try model.coreDataArchive() }
        #expect(error?.message.hasPrefix("attribute 'A.n': a validation predicate cannot be archived") == true)
    }

    // MARK: Compiled models

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-mom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func testMomdPicksTheCurrentVersion() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let momd = directory.appendingPathComponent("Gadgets.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        let people = try TestModels.people()
        let everything = try ModelFixtures.load("Everything.xcdatamodel")
        everything.versionIdentifier = nil
        try people.coreDataArchive().write(to: momd.appendingPathComponent("Gadgets.mom"))
        try everything.coreDataArchive().write(to: momd.appendingPathComponent("Gadgets 2.mom"))
        // No VersionInfo.plist and two versions: an error listing them.
        #expect(throws: ModelError("no current version named in VersionInfo.plist, and the folder has versions 'Gadgets', 'Gadgets 2'").located(file: "Gadgets.momd", line: nil)) {
            try ManagedObjectModel(compiledModelAt: momd)
        }
        let info: [String: Any] = ["NSManagedObjectModel_CurrentVersionName": "Gadgets 2", "NSManagedObjectModel_VersionHashes": [String: Any]()]
        try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
            .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        let model = try ManagedObjectModel(compiledModelAt: momd)
        #expect(model.entity(named: "Gadget") != nil)
        #expect(model.versionName == "Gadgets 2")
        #expect(model.versionIdentifier == "Gadgets 2")
        #expect(model.bundleName == "Gadgets.momd")
        // A single .mom loads directly too.
        let single = try ManagedObjectModel(compiledModelAt: momd.appendingPathComponent("Gadgets.mom"))
        #expect(single.entity(named: "Manager") != nil)
    }

    @Test func testMomdWithOneVersionAndNoPlist() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let momd = directory.appendingPathComponent("One.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try TestModels.people().coreDataArchive().write(to: momd.appendingPathComponent("One.mom"))
        // A VersionInfo.plist naming no version, as Delta's bundle has for
        // an unversioned model, falls back to the only .mom.
        let info: [String: Any] = ["NSManagedObjectModel_VersionHashes": ["One": [String: Any]()]]
        try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
            .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        #expect(try ManagedObjectModel(compiledModelAt: momd).entities.count == 4)
    }

    @Test func testMomdNamingAMissingVersion() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let momd = directory.appendingPathComponent("M.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try TestModels.people().coreDataArchive().write(to: momd.appendingPathComponent("M.mom"))
        try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "M 2"], format: .xml, options: 0)
            .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        let error = #expect(throws: ModelError.self) { try ManagedObjectModel(compiledModelAt: momd) }
        #expect(error?.description == "M.momd: VersionInfo.plist names current version 'M 2', but there is no 'M 2.mom'; the folder has only 'M'")
    }

    @Test func testEmptyCompiledModel() throws {
        // The layout of a real compiled model with no entities (Delta's
        // cydia.mom): NSEntities is a plain NSMutableDictionary.
        let data = try HandArchive.data([
            "$null",
            ["$class": HandArchive.uid(7), "NSEntities": HandArchive.uid(2), "NSFetchRequestTemplates": HandArchive.uid(0), "NSVersionIdentifiers": HandArchive.uid(4)],
            ["$class": HandArchive.uid(3), "NS.keys": [Any](), "NS.objects": [Any]()],
            HandArchive.classRecord("NSMutableDictionary", "NSDictionary", "NSObject"),
            ["$class": HandArchive.uid(6), "NS.objects": [HandArchive.uid(5)]],
            "",
            HandArchive.classRecord("NSSet", "NSObject"),
            HandArchive.classRecord("NSManagedObjectModel", "NSObject"),
        ])
        let model = try ManagedObjectModel(coreDataArchive: data)
        #expect(model.entities.isEmpty)
        #expect(model.versionIdentifier == nil)
        // And mrq writes an empty model the same way.
        let archive = try KeyedArchive(try model.coreDataArchive())
        #expect(try archive.object(at: 1).object("NSEntities")?.className == "NSMutableDictionary")
    }

    @Test func testFormatsMrqCannotRead() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let omo = directory.appendingPathComponent("Model.omo")
        try Data("momv2$[]qre9743jpo9ad3q".utf8).write(to: omo)
        let momd = directory.appendingPathComponent("Opt.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try Data("momv2".utf8).write(to: momd.appendingPathComponent("Opt.omo"))
        let old = directory.appendingPathComponent("Old.mom")
        try Data([0x04, 0x0b] + Array("streamtyped".utf8) + [0x81, 0xe8, 0x03]).write(to: old)
        let xcode = directory.appendingPathComponent("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: xcode, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: xcode.appendingPathComponent("elements"))
        let notModel = directory.appendingPathComponent("Array.mom")
        try KeyedArchiveWriter.archive(root: .array([.string("x")])).write(to: notModel)
        let cases: [(URL, String)] = [
            (omo, "Model.omo: an optimized model (.omo), which mrq cannot read: use the .mom beside it"),
            (momd, "Opt.momd: the folder holds only optimized .omo models, which mrq cannot read"),
            (old, "Old.mom: an old binary model (before Xcode 4): open and save it once in a current Xcode"),
            (xcode, "Old.xcdatamodel: an old binary model (before Xcode 4): open and save it once in a current Xcode"),
            (notModel, "Array.mom: not a Core Data model: the archive holds an NSArray, not an NSManagedObjectModel"),
            (directory.appendingPathComponent("Missing.mom"), "no model found at '\(directory.appendingPathComponent("Missing.mom").path)'"),
        ]
        for (url, message) in cases {
            let error = #expect(throws: ModelError.self) { try ManagedObjectModel(compiledModelAt: url) }
            #expect(error?.description == message)
        }
    }
}
