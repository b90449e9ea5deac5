import Foundation
import Predicates

extension ManagedObjectModel {
    /// Reads a model from an `NSKeyedArchiver` archive of a Core Data
    /// `NSManagedObjectModel` (binary or XML property list): a compiled
    /// `.mom` file, or a store's model cache once inflated.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(coreDataArchive: Data(contentsOf: momURL))
    /// model.entities.map(\.name)   // ["Account", "AccountType", ...]
    /// ```
    ///
    /// The archive's entities, properties, inheritance, configurations,
    /// user info, indexes, uniqueness constraints, version identifiers and
    /// validation rules become the model's; see `CoreDataModelDecoder` for
    /// what each key means. Entities come in the archive's order (by
    /// name); each entity's properties in Core Data's: attributes, to-one
    /// and to-many relationships, fetched properties, each by name.
    ///
    /// What Core Data wrote opens: what this reader does not know (a newer
    /// attribute type, a property class, a predicate it cannot read in a
    /// validation rule, fetched property or template, user info of any
    /// kind) is kept where mrq can hold it and left out where it cannot.
    /// What cannot be read at all (another archive, a damaged one) throws
    /// a `ModelError` that says which object of the archive and which key:
    /// `not a Core Data model: object 25 (NSRelationshipDescription), key
    /// 'NSDestinationEntity': UID 900 is past the last object (211)`.
    ///
    /// The fetch request templates are read when they are first asked
    /// for (most uses of a model never do, and they cost as much as a tenth
    /// of the reading): a damaged one is then left out, and
    /// `fetchRequestFromTemplate(withName:…)` says why.
    public convenience init(coreDataArchive data: Data) throws {
        try self.init(coreDataArchiveBytes: [UInt8](data))
    }

    /// `init(coreDataArchive:)` of the archive's bytes.
    convenience init(coreDataArchiveBytes bytes: [UInt8]) throws {
        let result = try Self.decodeCoreDataArchive(bytes)
        do {
            try self.init(entities: result.entities, configurations: result.configurations)
        } catch let error as ModelError {
            throw ModelError("the Core Data model does not resolve: \(error.message)")
        }
        versionIdentifier = result.versionIdentifier
        let pending = result.templates
        guard !pending.isEmpty else { return }
        templateStore.readLater { model in
            // Core Data checks a template's keys only when it runs (Viber's
            // Contacts.data has one naming a key its entity lacks): kept so,
            // and refused when run. One whose predicate mrq cannot read or
            // whose entity the model lacks is left out: templates are
            // conveniences, not the store's content.
            let (templates, byName, all) = pending.readEach()
            var reading = FetchRequestTemplateStore.Reading(templates: [:], damageByName: byName, all: all)
            for template in templates where model.entity(named: template.entityName) != nil {
                let predicate = template.predicate ?? Predicates.Predicate.truePredicate
                reading.templates[template.name] = FetchRequest(entityName: template.entityName, predicate: predicate)
            }
            return reading
        }
    }

    /// Reads the model a Core Data store keeps in `Z_MODELCACHE.Z_CONTENT`:
    /// raw DEFLATE of the model's keyed archive.
    ///
    /// ```swift
    /// let blob = try db.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")
    /// let model = try ManagedObjectModel(modelCache: blob)
    /// ```
    ///
    /// A blob that does not inflate, that inflates past 64 MiB, or whose
    /// content is not an archived model throws a `ModelError`.
    public convenience init(modelCache blob: Data) throws {
        let archive: [UInt8]
        do {
            archive = try Deflate.inflate(blob)
        } catch let error as DeflateError {
            throw ModelError("the model cache does not inflate: \(error.description)")
        }
        try self.init(coreDataArchiveBytes: archive)
    }

    /// Loads a compiled model: a `.mom` file, or a `.momd` folder as Xcode
    /// builds one into an app bundle.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(compiledModelAt: URL(fileURLWithPath: "App.app/Model.momd"))
    /// model.versionName   // "Model 3"
    /// ```
    ///
    /// A folder's current version is the `.mom` its `VersionInfo.plist`
    /// names under `NSManagedObjectModel_CurrentVersionName`; when the plist
    /// is missing or names none and the folder holds exactly one `.mom`,
    /// that one. Otherwise the error lists the versions the folder has. The
    /// version's name becomes `versionName`, and `versionIdentifier` unless
    /// the model has one of its own.
    ///
    /// What the folder names is read in the folder and nowhere else: a
    /// current version that is not one plain name (`../Other`, an absolute
    /// path), or a `VersionInfo.plist` or `.mom` that is a symbolic link
    /// (wherever it points), is refused with an error naming it.
    public convenience init(compiledModelAt url: URL) throws {
        let (file, inFolder) = try CompiledModelSource.momFile(at: url)
        let display = file.deletingLastPathComponent().pathExtension == "momd"
            ? "\(file.deletingLastPathComponent().lastPathComponent)/\(file.lastPathComponent)" : file.lastPathComponent
        let data = try CompiledModelSource.read(file, inFolder: inFolder)
        if let reason = CompiledModelSource.unsupportedFormat(data) {
            throw ModelError(reason).located(file: display, line: nil)
        }
        do {
            try self.init(coreDataArchive: data)
        } catch let error as ModelError {
            throw error.located(file: display, line: nil)
        }
        versionName = file.deletingPathExtension().lastPathComponent
        if versionIdentifier == nil { versionIdentifier = versionName }
        if file.deletingLastPathComponent().pathExtension == "momd" {
            bundleName = file.deletingLastPathComponent().lastPathComponent
        }
    }

    /// The fetch request templates a Core Data model archive holds, by
    /// name (the model read from it keeps them as its
    /// `fetchRequestTemplatesByName` too).
    ///
    /// ```swift
    /// let templates = try ManagedObjectModel.fetchRequestTemplates(coreDataArchive: data)
    /// ```
    public static func fetchRequestTemplates(coreDataArchive data: Data) throws -> [ArchivedFetchRequestTemplate] {
        let pending = try decodeCoreDataArchive([UInt8](data)).templates
        do {
            return try pending.read().map {
                ArchivedFetchRequestTemplate(name: $0.name, entityName: $0.entityName,
                                             predicateFormat: $0.predicate?.format ?? "TRUEPREDICATE")
            }
        } catch let error as KeyedArchiveError {
            throw ModelError("not a Core Data model: \(error.description)")
        }
    }

    private static func decodeCoreDataArchive(_ bytes: [UInt8]) throws -> CoreDataModelDecoder.Result {
        do {
            var decoder = CoreDataModelDecoder(try KeyedArchive(bytes: bytes))
            return try decoder.decode()
        } catch let error as KeyedArchiveError {
            throw ModelError("not a Core Data model: \(error.description)")
        }
    }

    /// The model as Core Data archives an `NSManagedObjectModel`: a binary
    /// property list `ManagedObjectModel(coreDataArchive:)` and Core Data
    /// both read, laid out as Core Data writes it (the same classes, keys
    /// and object order), with `fetchRequestTemplates` as the model's
    /// templates (by default, the model's own).
    ///
    /// ```swift
    /// let archive = try model.coreDataArchive()
    /// try ManagedObjectModel(coreDataArchive: archive).entities.count == model.entities.count
    /// ```
    ///
    /// A predicate (validation, fetched property, template) that does not
    /// parse, or that uses what mrq cannot archive as an NSPredicate (a
    /// subscript, unary minus of a key path), throws a `ModelError`.
    public func coreDataArchive(fetchRequestTemplates: [ArchivedFetchRequestTemplate]? = nil) throws -> Data {
        let templates = fetchRequestTemplates ?? fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map {
            ArchivedFetchRequestTemplate(name: $0.key, entityName: $0.value.entityName,
                                         predicateFormat: $0.value.predicate?.format ?? "TRUEPREDICATE")
        }
        var encoder = CoreDataModelEncoder(model: self, templates: templates)
        return KeyedArchiveWriter.archive(root: try encoder.encode())
    }

    /// `coreDataArchive()` deflated, as a store keeps it in
    /// `Z_MODELCACHE.Z_CONTENT`.
    ///
    /// ```swift
    /// try db.execute("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.data(model.modelCache())])
    /// ```
    public func modelCache(fetchRequestTemplates: [ArchivedFetchRequestTemplate]? = nil) throws -> Data {
        Deflate.compress(try coreDataArchive(fetchRequestTemplates: fetchRequestTemplates))
    }
}

/// Finds the `.mom` of a compiled model and tells formats mrq cannot read.
enum CompiledModelSource {
    /// The `.mom` to read, and whether it was found in the folder the
    /// caller named (rather than named by the caller).
    static func momFile(at url: URL) throws -> (file: URL, inFolder: Bool) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelError.noModel(url.path)
        }
        guard isDirectory.boolValue else { return (url, false) }
        let name = url.lastPathComponent
        if url.pathExtension == "xcdatamodel", FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path) {
            throw ModelError(oldBinaryModel).located(file: name, line: nil)
        }
        if url.pathExtension == "xcdatamodeld" || url.pathExtension == "xcdatamodel" {
            throw ModelError("'\(name)' is an Xcode model, not a compiled one: load it with ManagedObjectModel(contentsOf:)")
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        let versions = entries.filter { $0.hasSuffix(".mom") }.map { String($0.dropLast(4)) }.sorted(by: ModelVersionOrder.precedes)
        var info: Data?
        do {
            info = try ContainedFile.read(["VersionInfo.plist"], below: url.path, limit: 1 << 20)
        } catch let refusal as ContainedFile.Refusal {
            guard refusal.kind == .missing else { throw ModelError(refusal.description).located(file: name, line: nil) }
        }
        if let info {
            guard let plist = (try? KeyedArchive.propertyList(info)) as? [String: Any] else {
                throw ModelError("VersionInfo.plist is not a property list dictionary").located(file: name, line: nil)
            }
            if let current = plist["NSManagedObjectModel_CurrentVersionName"] as? String, !current.isEmpty {
                let shown = ContainedFile.display([current])
                guard ContainedFile.isPlainName(current + ".mom") else {
                    throw ModelError("VersionInfo.plist names current version '\(shown)', which is not a name in the folder (it would lead out of it)")
                        .located(file: name, line: nil)
                }
                if let refusal = ContainedFile.checkFile([current + ".mom"], below: url.path) {
                    guard refusal.kind == .missing else { throw ModelError(refusal.description).located(file: name, line: nil) }
                    throw ModelError("VersionInfo.plist names current version '\(shown)', but there is no '\(shown).mom'; the folder has \(list(versions))")
                        .located(file: name, line: nil)
                }
                return (url.appendingPathComponent(current + ".mom"), true)
            }
        }
        guard versions.count == 1, let only = versions.first else {
            if versions.isEmpty, entries.contains(where: { $0.hasSuffix(".omo") }) {
                throw ModelError("the folder holds only optimized .omo models, which mrq cannot read").located(file: name, line: nil)
            }
            throw ModelError("no current version named in VersionInfo.plist, and the folder has \(list(versions))")
                .located(file: name, line: nil)
        }
        return (url.appendingPathComponent(only + ".mom"), true)
    }

    /// The most bytes of a compiled model mrq reads: what a store's model
    /// cache may inflate to (real models are well under a megabyte).
    static let fileLimit = Deflate.defaultLimit

    /// The bytes of `file`: below its folder, with no link followed, when
    /// it was found in a folder; as the caller named it otherwise.
    static func read(_ file: URL, inFolder: Bool) throws -> Data {
        do {
            guard inFolder else { return try ContainedFile.read(path: file.path, limit: fileLimit) }
            return try ContainedFile.read([file.lastPathComponent], below: file.deletingLastPathComponent().path, limit: fileLimit)
        } catch let refusal as ContainedFile.Refusal {
            guard inFolder else { throw ModelError.unreadable(file.path, refusal.reason) }
            throw ModelError(refusal.description).located(file: file.deletingLastPathComponent().lastPathComponent, line: nil)
        }
    }

    private static func list(_ versions: [String]) -> String {
        switch versions.count {
        case 0: "no .mom files"
        case 1: "only '\(versions[0])'"
        default: "versions " + versions.map { "'\($0)'" }.joined(separator: ", ")
        }
    }

    static let oldBinaryModel = "an old binary model (before Xcode 4): open and save it once in a current Xcode"

    /// Why `data` is a model format mrq cannot read, or nil to try it as a
    /// keyed archive.
    static func unsupportedFormat(_ data: Data) -> String? {
        let head = data.prefix(16)
        if head.starts(with: Array("momv2".utf8)) {
            return "an optimized model (.omo), which mrq cannot read: use the .mom beside it"
        }
        // NSArchiver's typedstream, the format of models from before Xcode 4.
        if head.count > 2, head.dropFirst(2).starts(with: Array("streamtyped".utf8)) {
            return oldBinaryModel
        }
        return nil
    }
}
