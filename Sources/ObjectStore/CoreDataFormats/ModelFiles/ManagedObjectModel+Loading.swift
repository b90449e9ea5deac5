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
        let data = try source.readContents()
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
///
/// What a bundle names is read below the bundle and nowhere else (see
/// `ContainedFile`): a current version that is not one plain name
/// (`../Other.xcdatamodel`, an absolute path) and a symbolic link
/// anywhere below the bundle — the version folder, its `contents`, a
/// strings file — are refused with a `ModelError` naming it, whatever the
/// link points at. Only the path the caller gave may be or go through a
/// link.
struct XcodeModelSource {
    /// The most bytes of a model file, a marker or a strings file mrq
    /// reads: what a store's model cache may inflate to (real models are
    /// well under a megabyte).
    static let fileLimit = Deflate.defaultLimit

    var contents: URL
    /// The folder the caller named that holds `contents`, and the path
    /// from it to `contents`.
    var root: URL
    var components: [String]
    /// Whether the caller named the contents file itself.
    var isBareFile = false
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
            isBareFile = true
            root = url.deletingLastPathComponent()
            components = [url.lastPathComponent]
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
        root = url
        components = ["contents"]
        if url.pathExtension == "xcdatamodeld" {
            let version = try Self.currentVersion(in: url)
            directory = url.appendingPathComponent(version)
            components = [version, "contents"]
            versionName = String(version.dropLast(".xcdatamodel".count))
            bundleName = url.lastPathComponent
        }
        contents = directory.appendingPathComponent("contents")
        if let refusal = ContainedFile.checkFile(components, below: url.path), refusal.kind != .missing {
            throw Self.refused(refusal, in: url)
        }
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

    /// The contents file's bytes.
    func readContents() throws -> Data {
        do {
            // A file the caller named may be a link; one found below a
            // folder may not.
            if isBareFile { return try ContainedFile.read(path: contents.path, limit: Self.fileLimit) }
            return try ContainedFile.read(components, below: root.path, limit: Self.fileLimit)
        } catch let refusal as ContainedFile.Refusal {
            if isBareFile { throw ModelError.unreadable(contents.path, refusal.reason) }
            throw Self.refused(refusal, in: root)
        }
    }

    /// A refusal to read below `folder`, as a model error naming the
    /// folder and the path below it.
    static func refused(_ refusal: ContainedFile.Refusal, in folder: URL) -> ModelError {
        ModelError("'\(ContainedFile.display([folder.lastPathComponent]))/\(refusal.path)' \(refusal.reason)")
    }

    private static func currentVersion(in bundle: URL) throws -> String {
        let marker = "\(ContainedFile.display([bundle.lastPathComponent]))/.xccurrentversion"
        var data: Data?
        do {
            data = try ContainedFile.read([".xccurrentversion"], below: bundle.path, limit: 1 << 20)
        } catch let refusal as ContainedFile.Refusal {
            guard refusal.kind == .missing else { throw refused(refusal, in: bundle) }
        }
        if let data {
            guard let plist = try? KeyedArchive.propertyList(data) as? [String: Any] else {
                throw ModelError("\(marker): not a property list")
            }
            // A marker naming no version (CoreStore ships an empty
            // `<dict/>`) leaves the choice to the numbering, as Xcode does.
            if let name = plist["_XCCurrentVersionName"] as? String, !name.isEmpty {
                let shown = ContainedFile.display([name])
                guard ContainedFile.isPlainName(name) else {
                    throw ModelError("\(marker): current version '\(shown)' is not a name in the bundle (it would lead out of it)")
                }
                if let refusal = ContainedFile.checkDirectory([name], below: bundle.path) {
                    guard refusal.kind == .missing else { throw refused(refusal, in: bundle) }
                    throw ModelError("\(marker): current version '\(shown)' is not in the bundle")
                }
                return name
            }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        let versions = names.filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }
        guard let highest = versions.max(by: ModelVersionOrder.precedes) else { throw ModelError.noModel(bundle.path) }
        if let refusal = ContainedFile.checkDirectory([highest + ".xcdatamodel"], below: bundle.path) {
            throw refused(refusal, in: bundle)
        }
        return highest + ".xcdatamodel"
    }

    /// Core Data's `<ModelName>Model.strings`, looked for inside the model
    /// directory and next to it (and next to the bundle), under the version
    /// name and the bundle name.
    ///
    /// Each is read below the folder the caller named (the bundle, or the
    /// model directory and its parent): missing is skipped, refused (a
    /// symbolic link, not a file) is an error.
    func localizationDictionary() throws -> [String: String] {
        guard let modelDirectory else { return [:] }
        let parent = modelDirectory.deletingLastPathComponent()
        var names = [modelDirectory.deletingPathExtension().lastPathComponent]
        // Each place as a folder the caller named and a path below it.
        var places: [(root: URL, below: [String])]
        if bundleName != nil {
            // Loaded from a bundle: the version's folder is in the bundle.
            places = [(root, [modelDirectory.lastPathComponent]), (root, []), (root.deletingLastPathComponent(), [])]
            names.append(root.deletingPathExtension().lastPathComponent)
        } else {
            places = [(modelDirectory, []), (parent, [])]
            if parent.pathExtension == "xcdatamodeld" {
                names.append(parent.deletingPathExtension().lastPathComponent)
                places.append((parent.deletingLastPathComponent(), []))
            }
        }
        for place in places {
            for name in names {
                let file = "\(name)Model.strings"
                let data: Data
                do {
                    data = try ContainedFile.read(place.below + [file], below: place.root.path, limit: Self.fileLimit)
                } catch let refusal as ContainedFile.Refusal {
                    if refusal.kind == .missing { continue }
                    throw Self.refused(refusal, in: place.root)
                }
                return try StringsFile.parse(data, file: file)
            }
        }
        return [:]
    }
}
