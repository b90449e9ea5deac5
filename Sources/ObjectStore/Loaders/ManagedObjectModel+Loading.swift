import Foundation

extension ManagedObjectModel {
    /// Loads a model Xcode wrote: an `.xcdatamodeld` bundle (its current
    /// version), an `.xcdatamodel` directory, a bare `contents` file, or
    /// a compiled `.momd` or `.mom` from an app bundle (see
    /// ``init(compiledModelAt:)``).
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "Samples/People.xcdatamodeld"))
    /// ```
    ///
    /// A bundle's current version is the one its `.xccurrentversion` names
    /// (`_XCCurrentVersionName`); when that file is missing or names none
    /// (an empty `<dict/>`), the highest version by Xcode's numbering
    /// (`People` is 1, `People 2` is 2, `People 10` comes after `People 9`).
    /// The version's name becomes `versionName`, and `versionIdentifier`
    /// unless the model sets `userDefinedModelVersionIdentifier`. A `<Name>Model.strings` file in
    /// the model's directory or next to it fills `localizationDictionary`.
    ///
    /// Errors name the file and the line of the element at fault:
    /// `People.xcdatamodel/contents:12: attribute 'age' has unknown
    /// attributeType 'Integer 12'`.
    public convenience init(contentsOf url: URL) throws {
        // What Xcode compiles into an app bundle: `.momd` and `.mom`.
        if ["mom", "momd"].contains(url.pathExtension.lowercased()) {
            try self.init(compiledModelAt: url)
            return
        }
        let source = try XcodeModelSource(url)
        let data: Data
        do {
            data = try Data(contentsOf: source.contents)
        } catch {
            throw ModelError.unreadable(source.contents.path, error.localizedDescription)
        }
        try self.init(xcdatamodelContents: data, file: source.displayPath)
        if versionIdentifier == nil { versionIdentifier = source.versionName }
        versionName = source.versionName ?? source.modelDirectory.map { $0.deletingPathExtension().lastPathComponent }
        bundleName = source.bundleName
        localizationDictionary = try source.localizationDictionary()
    }

    /// Reads the `contents` XML of an `.xcdatamodel` from memory; `file`
    /// names it in errors.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(xcdatamodelContents: Data(xml.utf8))
    /// ```
    public convenience init(xcdatamodelContents data: Data, file: String = "contents") throws {
        let result = try XcodeModelParser.parse(data, file: file)
        do {
            try self.init(entities: result.entities, configurations: result.configurations)
        } catch let error as ModelError {
            var line: Int?
            if let subject = error.subject {
                line = subject.property.flatMap { result.lines["\(subject.entity).\($0)"] } ?? result.lines[subject.entity]
            } else if let configuration = result.configurationLines.first(where: { error.message.contains("'\($0.key)'") }) {
                line = configuration.value
            }
            throw error.located(file: file, line: line)
        }
        versionIdentifier = result.versionIdentifier
        for template in result.fetchRequests {
            do {
                try setFetchRequestTemplate(try template.request(), forName: template.name, checkingComparisons: false)
            } catch let error as ModelError {
                throw error.located(file: file, line: template.line)
            }
        }
    }
}

/// Where a model's `contents` file is, and what to call it.
struct XcodeModelSource {
    var contents: URL
    /// `People.xcdatamodel/contents`, or the bare file's name.
    var displayPath: String
    /// The `.xcdatamodel` directory, when there is one.
    var modelDirectory: URL?
    /// The version's name when loaded from a bundle (`People 2`).
    var versionName: String?
    /// The bundle's file name, when loaded from one (`People.xcdatamodeld`).
    var bundleName: String?

    init(_ url: URL) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError.noModel(url.path)
        }
        guard isDirectory.boolValue else {
            contents = url
            let parent = url.deletingLastPathComponent()
            if parent.pathExtension == "xcdatamodel" {
                displayPath = "\(parent.lastPathComponent)/\(url.lastPathComponent)"
                modelDirectory = parent
            } else {
                displayPath = url.lastPathComponent
            }
            return
        }
        var directory = url
        if url.pathExtension == "xcdatamodeld" {
            let version = try Self.currentVersion(in: url)
            directory = url.appendingPathComponent(version)
            versionName = String(version.dropLast(".xcdatamodel".count))
            bundleName = url.lastPathComponent
        }
        contents = directory.appendingPathComponent("contents")
        guard fileManager.fileExists(atPath: contents.path) else {
            // Xcode 3 kept models as two binary archives, `elements` and
            // `layout`; Xcode 4 and later write `contents` when the model
            // is saved.
            if fileManager.fileExists(atPath: directory.appendingPathComponent("elements").path) {
                throw ModelError.oldBinaryModel(directory.path)
            }
            throw ModelError.noModel(contents.path)
        }
        displayPath = "\(directory.lastPathComponent)/contents"
        modelDirectory = directory
    }

    private static func currentVersion(in bundle: URL) throws -> String {
        let marker = bundle.appendingPathComponent(".xccurrentversion")
        if let data = try? Data(contentsOf: marker) {
            guard let plist = try? KeyedArchive.propertyList(data) as? [String: Any] else {
                throw ModelError("\(bundle.lastPathComponent)/.xccurrentversion: not a property list")
            }
            // A marker naming no version (CoreStore ships an empty
            // `<dict/>`) leaves the choice to the numbering, as Xcode does.
            if let name = plist["_XCCurrentVersionName"] as? String, !name.isEmpty {
                guard FileManager.default.fileExists(atPath: bundle.appendingPathComponent(name).path) else {
                    throw ModelError(
                        "\(bundle.lastPathComponent)/.xccurrentversion: current version '\(name)' is not in the bundle")
                }
                return name
            }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        let versions = names.filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }
        guard let highest = versions.max(by: ModelVersionOrder.precedes) else { throw ModelError.noModel(bundle.path) }
        return highest + ".xcdatamodel"
    }

    /// Core Data's `<ModelName>Model.strings`, looked for inside the model
    /// directory and next to it (and next to the bundle), under the version
    /// name and the bundle name.
    func localizationDictionary() throws -> [String: String] {
        guard let modelDirectory else { return [:] }
        let parent = modelDirectory.deletingLastPathComponent()
        var names = [modelDirectory.deletingPathExtension().lastPathComponent]
        var places = [modelDirectory, parent]
        if parent.pathExtension == "xcdatamodeld" {
            names.append(parent.deletingPathExtension().lastPathComponent)
            places.append(parent.deletingLastPathComponent())
        }
        for place in places {
            for name in names {
                let url = place.appendingPathComponent("\(name)Model.strings")
                guard let data = try? Data(contentsOf: url) else { continue }
                return try StringsFile.parse(data, file: url.lastPathComponent)
            }
        }
        return [:]
    }
}
