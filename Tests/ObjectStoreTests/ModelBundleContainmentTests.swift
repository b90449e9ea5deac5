import Foundation
import Testing

@testable import ObjectStore

/// Issue 30, class 3: what a model bundle names is read in the bundle and
/// nowhere else. An `.xcdatamodeld`'s `.xccurrentversion` or a `.momd`'s
/// `VersionInfo.plist` naming `../…` or an absolute path, and a symbolic
/// link anywhere below the bundle (the marker, the version, its
/// `contents`, a strings file, a `.mom`), are refused with an error naming
/// the reference; another model beside the bundle is never loaded. The
/// path the caller gives may itself be a link.
@Suite struct ModelBundleContainmentTests {
    /// A folder holding a copy of the Versioned fixture and, beside it, a
    /// model that must never be read (`Outside.xcdatamodel`, `Outside.mom`).
    struct Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-bundle-\(UUID().uuidString)")
        var bundle: URL { url.appendingPathComponent("Versioned.xcdatamodeld") }
        var momd: URL { url.appendingPathComponent("M.momd") }

        init() throws {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: ModelFixtures.url("Versioned.xcdatamodeld"), to: bundle)
            let outside = url.appendingPathComponent("Outside.xcdatamodel")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try Data(ModelFixtures.model(entities: #"<entity name="Outsider" representedClassName="Outsider"/>"#).utf8)
                .write(to: outside.appendingPathComponent("contents"))
            try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
            try TestModels.people().coreDataArchive().write(to: momd.appendingPathComponent("M.mom"))
            let outsider = try ModelFixtures.parse(ModelFixtures.model(entities: #"<entity name="Outsider" representedClassName="Outsider"/>"#))
            try outsider.coreDataArchive().write(to: url.appendingPathComponent("Outside.mom"))
        }

        func remove() { try? FileManager.default.removeItem(at: url) }

        func markCurrent(_ name: String) throws {
            try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": name], format: .xml, options: 0)
                .write(to: bundle.appendingPathComponent(".xccurrentversion"))
        }

        func markCurrentMom(_ name: String) throws {
            try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": name], format: .xml, options: 0)
                .write(to: momd.appendingPathComponent("VersionInfo.plist"))
        }

        func link(_ path: URL, to target: String) throws {
            try? FileManager.default.removeItem(at: path)
            try FileManager.default.createSymbolicLink(atPath: path.path, withDestinationPath: target)
        }

        /// The error loading `url`, checked never to be a model with the
        /// outsider in it.
        func loadError(_ url: URL) -> ModelError? {
            do {
                let model = try ManagedObjectModel(contentsOf: url)
                #expect(model.entity(named: "Outsider") == nil)
                Issue.record("loaded \(model.entities.map(\.name))")
                return nil
            } catch let error as ModelError {
                return error
            } catch {
                Issue.record("unexpected \(type(of: error)): \(error)")
                return nil
            }
        }
    }

    @Test func theFixtureLoadsAsItIs() throws {
        let f = try Folder()
        defer { f.remove() }
        #expect(try ManagedObjectModel(contentsOf: f.bundle).versionName == "Versioned 2")
        #expect(try ManagedObjectModel(contentsOf: f.momd).entity(named: "Person") != nil)
    }

    @Test(arguments: ["../Outside.xcdatamodel", "/ABSOLUTE/Outside.xcdatamodel", "Versioned 2.xcdatamodel/../../Outside.xcdatamodel"])
    func aCurrentVersionLeadingOutIsRefused(name: String) throws {
        let f = try Folder()
        defer { f.remove() }
        try f.markCurrent(name.replacingOccurrences(of: "/ABSOLUTE", with: f.url.path))
        let error = f.loadError(f.bundle)
        #expect(error?.message.hasPrefix("Versioned.xcdatamodeld/.xccurrentversion: current version '") == true, "\(String(describing: error))")
        #expect(error?.message.hasSuffix("' is not a name in the bundle (it would lead out of it)") == true)
    }

    @Test func aVersionThatIsALinkOutIsRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        try f.link(f.bundle.appendingPathComponent("Versioned 2.xcdatamodel"), to: "../Outside.xcdatamodel")
        let error = f.loadError(f.bundle)
        #expect(error?.message == "'Versioned.xcdatamodeld/Versioned 2.xcdatamodel' is a symbolic link, which mrq does not follow",
                "\(String(describing: error))")
        // Chosen by the numbering rather than named, the same.
        try FileManager.default.removeItem(at: f.bundle.appendingPathComponent(".xccurrentversion"))
        try f.link(f.bundle.appendingPathComponent("Versioned 9.xcdatamodel"), to: f.url.appendingPathComponent("Outside.xcdatamodel").path)
        #expect(f.loadError(f.bundle)?.message == "'Versioned.xcdatamodeld/Versioned 9.xcdatamodel' is a symbolic link, which mrq does not follow")
    }

    @Test func aContentsFileThatIsALinkIsRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        try f.link(f.bundle.appendingPathComponent("Versioned 2.xcdatamodel/contents"), to: f.url.appendingPathComponent("Outside.xcdatamodel/contents").path)
        #expect(f.loadError(f.bundle)?.message == "'Versioned.xcdatamodeld/Versioned 2.xcdatamodel/contents' is a symbolic link, which mrq does not follow")
        // In a model folder named directly, the same.
        #expect(f.loadError(f.bundle.appendingPathComponent("Versioned 2.xcdatamodel"))?.message
                == "'Versioned 2.xcdatamodel/contents' is a symbolic link, which mrq does not follow")
    }

    @Test func aMarkerThatIsALinkIsRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        let elsewhere = f.url.appendingPathComponent("marker.plist")
        try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Versioned 3.xcdatamodel"], format: .xml, options: 0)
            .write(to: elsewhere)
        try f.link(f.bundle.appendingPathComponent(".xccurrentversion"), to: elsewhere.path)
        #expect(f.loadError(f.bundle)?.message == "'Versioned.xcdatamodeld/.xccurrentversion' is a symbolic link, which mrq does not follow")
    }

    @Test func aStringsFileThatIsALinkIsRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        try f.link(f.bundle.appendingPathComponent("Versioned 2.xcdatamodel/Versioned 2Model.strings"), to: "/etc/hostname")
        #expect(f.loadError(f.bundle)?.message
                == "'Versioned.xcdatamodeld/Versioned 2.xcdatamodel/Versioned 2Model.strings' is a symbolic link, which mrq does not follow")
    }

    /// The path the caller gives may be a link: only what is below it may not.
    @Test func theBundleMayBeNamedThroughALink() throws {
        let f = try Folder()
        defer { f.remove() }
        let alias = f.url.appendingPathComponent("Alias.xcdatamodeld")
        try f.link(alias, to: f.bundle.path)
        #expect(try ManagedObjectModel(contentsOf: alias).versionName == "Versioned 2")
        let momAlias = f.url.appendingPathComponent("alias.mom")
        try f.link(momAlias, to: f.momd.appendingPathComponent("M.mom").path)
        #expect(try ManagedObjectModel(contentsOf: momAlias).entity(named: "Person") != nil)
    }

    @Test(arguments: ["../Outside", "/ABSOLUTE/Outside", "sub/../../Outside"])
    func aMomdCurrentVersionLeadingOutIsRefused(name: String) throws {
        let f = try Folder()
        defer { f.remove() }
        try f.markCurrentMom(name.replacingOccurrences(of: "/ABSOLUTE", with: f.url.path))
        let error = f.loadError(f.momd)
        #expect(error?.file == "M.momd")
        #expect(error?.message.hasPrefix("VersionInfo.plist names current version '") == true, "\(String(describing: error))")
        #expect(error?.message.hasSuffix("', which is not a name in the folder (it would lead out of it)") == true)
    }

    @Test func aMomThatIsALinkIsRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        try f.link(f.momd.appendingPathComponent("M.mom"), to: f.url.appendingPathComponent("Outside.mom").path)
        // The only .mom, with no VersionInfo.plist.
        #expect(f.loadError(f.momd)?.description == "M.momd: 'M.mom' is a symbolic link, which mrq does not follow")
        // Named by VersionInfo.plist.
        try f.markCurrentMom("M")
        #expect(f.loadError(f.momd)?.description == "M.momd: 'M.mom' is a symbolic link, which mrq does not follow")
    }

    @Test func aVersionInfoThatIsALinkIsRefused() throws {
        let f = try Folder()
        defer { f.remove() }
        let elsewhere = f.url.appendingPathComponent("info.plist")
        try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "M"], format: .xml, options: 0)
            .write(to: elsewhere)
        try f.link(f.momd.appendingPathComponent("VersionInfo.plist"), to: elsewhere.path)
        #expect(f.loadError(f.momd)?.description == "M.momd: 'VersionInfo.plist' is a symbolic link, which mrq does not follow")
    }
}
