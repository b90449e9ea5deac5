import Foundation
import Predicates
import Testing

@testable import ObjectStore

/// Issue 30, class 3: a Core Data store's external data reference
/// (marker byte 2 and a file name) is read in `.<Store>_SUPPORT/
/// _EXTERNAL_DATA` and nowhere else. A reference that is a symbolic link,
/// whose folder is one, that is not a plain name, a FIFO, a folder, a
/// file past the size limit or missing makes the fetch throw an error
/// naming the row, the column, the attribute and the file — never nil,
/// never another file's bytes — and reading changes nothing in the folder.
@Suite struct ExternalDataTests {
    /// A Core Data store of `CoreDataLayoutTests.model()` whose note
    /// `Bread` refers to external data named `name`, with a folder of its
    /// own and a secret file outside it.
    struct Case {
        let store: URL
        var folder: URL { store.deletingLastPathComponent() }
        var support: URL { folder.appendingPathComponent(".Photos_SUPPORT") }
        var external: URL { support.appendingPathComponent("_EXTERNAL_DATA") }
        /// Outside the store's folder.
        let outside: URL
        let secret = Data("root:x:0:0:root:/root:/bin/bash\n".utf8)

        init(referring name: String) throws {
            store = try CoreDataLayoutTests.populatedStore("Photos.sqlite")
            outside = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-outside-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try secret.write(to: outside.appendingPathComponent("passwd"))
            let db = try Database(path: store.path)
            var reference = Data([2])
            reference.append(contentsOf: Array(name.utf8) + [0])
            try db.execute("UPDATE ZNOTE SET ZATTACHMENT = ? WHERE ZTITLE = 'Bread'", [.data(reference)])
        }

        func makeExternalFolder() throws {
            try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        }

        func remove() {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }

        /// The notes' attachments by title, or the error fetching them.
        func attachments() -> Result<[String: Value], StoreError> {
            do {
                let coordinator = PersistentStoreCoordinator(model: try CoreDataLayoutTests.model())
                var options = PersistentStoreOptions()
                options.readOnly = true
                try coordinator.addPersistentStore(type: .sqlite, at: store, options: options)
                let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
                let notes = try context.fetch(FetchRequest(entityName: "Note"))
                return .success(Dictionary(uniqueKeysWithValues: notes.map { (CoreDataLayoutTests.text($0["title"]), $0["attachment"]) }))
            } catch let error as StoreError {
                return .failure(error)
            } catch {
                Issue.record("unexpected \(type(of: error)): \(error)")
                return .failure(StoreError(.misuse, "\(error)"))
            }
        }

        /// The fetch's error, checked to name the row, the column and the
        /// attribute, and to hold none of the secret.
        func refusal() -> StoreError? {
            guard case .failure(let error) = attachments() else {
                Issue.record("the fetch read the notes")
                return nil
            }
            #expect(error.message.hasPrefix("row "), "\(error.message)")
            #expect(error.message.contains(" of ZNOTE, ZATTACHMENT (Note.attachment): its external data '.Photos_SUPPORT"),
                    "\(error.message)")
            #expect(!error.message.contains("root:x"))
            return error
        }
    }

    /// Every entry below `folder`, not following links: kind, mode, size
    /// and contents' hash of each, by path.
    static func tree(_ folder: URL) -> [String: String] {
        var result: [String: String] = [:]
        func walk(_ url: URL, _ path: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
            for name in names {
                let entry = url.appendingPathComponent(name)
                var info = stat()
                lstat(entry.path, &info)
                var line = "\(info.st_mode) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
                if info.st_mode & S_IFMT == S_IFREG, info.st_size < 1 << 20 {
                    line += " \((try? Data(contentsOf: entry))?.hashValue ?? 0)"
                }
                result[path + name] = line
                if info.st_mode & S_IFMT == S_IFDIR { walk(entry, path + name + "/") }
            }
        }
        walk(folder, "")
        return result
    }

    @Test func aPlainFileIsRead() throws {
        let c = try Case(referring: "0A1B2C3D-0000-4000-8000-000000000001")
        defer { c.remove() }
        try c.makeExternalFolder()
        try Data("picture".utf8).write(to: c.external.appendingPathComponent("0A1B2C3D-0000-4000-8000-000000000001"))
        let before = Self.tree(c.folder)
        #expect(try c.attachments().get()["Bread"] == .data(Data("picture".utf8)))
        #expect(Self.tree(c.folder) == before)
    }

    @Test(arguments: ["passwd", "secret"])
    func aLinkToAFileOutsideIsRefused(name: String) throws {
        let c = try Case(referring: name)
        defer { c.remove() }
        try c.makeExternalFolder()
        try FileManager.default.createSymbolicLink(atPath: c.external.appendingPathComponent(name).path,
                                                   withDestinationPath: c.outside.appendingPathComponent("passwd").path)
        let before = Self.tree(c.folder)
        let error = c.refusal()
        #expect(error?.kind == .corrupt)
        #expect(error?.message.hasSuffix("'.Photos_SUPPORT/_EXTERNAL_DATA/\(name)' is a symbolic link, which mrq does not follow") == true,
                "\(String(describing: error))")
        #expect(Self.tree(c.folder) == before)
    }

    @Test func aLinkWithinTheFolderIsRefusedToo() throws {
        let c = try Case(referring: "alias")
        defer { c.remove() }
        try c.makeExternalFolder()
        try Data("inside".utf8).write(to: c.external.appendingPathComponent("real"))
        try FileManager.default.createSymbolicLink(atPath: c.external.appendingPathComponent("alias").path, withDestinationPath: "real")
        #expect(c.refusal()?.message.contains("'.Photos_SUPPORT/_EXTERNAL_DATA/alias' is a symbolic link") == true)
    }

    @Test func aLinkedExternalDataFolderIsRefused() throws {
        let c = try Case(referring: "passwd")
        defer { c.remove() }
        try FileManager.default.createDirectory(at: c.support, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: c.external.path, withDestinationPath: c.outside.path)
        let error = c.refusal()
        #expect(error?.message.hasSuffix("'.Photos_SUPPORT/_EXTERNAL_DATA' is a symbolic link, which mrq does not follow") == true,
                "\(String(describing: error))")
    }

    @Test func aLinkedSupportFolderIsRefused() throws {
        let c = try Case(referring: "passwd")
        defer { c.remove() }
        let elsewhere = c.outside.appendingPathComponent("support")
        try FileManager.default.createDirectory(at: elsewhere.appendingPathComponent("_EXTERNAL_DATA"), withIntermediateDirectories: true)
        try c.secret.write(to: elsewhere.appendingPathComponent("_EXTERNAL_DATA/passwd"))
        try FileManager.default.createSymbolicLink(atPath: c.support.path, withDestinationPath: elsewhere.path)
        let error = c.refusal()
        #expect(error?.message.hasSuffix("'.Photos_SUPPORT' is a symbolic link, which mrq does not follow") == true,
                "\(String(describing: error))")
    }

    @Test(arguments: ["../../etc/passwd", "..", ".", "", "a/b", "../passwd"])
    func aNameThatIsNotPlainIsRefused(name: String) throws {
        let c = try Case(referring: name)
        defer { c.remove() }
        try c.makeExternalFolder()
        let error = c.refusal()
        #expect(error?.message.hasSuffix("is not a plain file name (it would lead out of its folder)") == true,
                "\(String(describing: error))")
    }

    @Test func aNameWithControlCharactersIsShownEscaped() throws {
        let c = try Case(referring: "bad\u{1b}[31mname")
        defer { c.remove() }
        try c.makeExternalFolder()
        let error = c.refusal()
        #expect(error?.message.contains("bad\\u{1b}[31mname' is missing") == true, "\(String(describing: error))")
        #expect(error?.message.unicodeScalars.contains { $0.value < 0x20 } == false)
    }

    @Test func aFIFOIsRefusedWithoutWaiting() throws {
        let c = try Case(referring: "fifo")
        defer { c.remove() }
        try c.makeExternalFolder()
        #expect(mkfifo(c.external.appendingPathComponent("fifo").path, 0o644) == 0)
        let before = Self.tree(c.folder)
        let error = c.refusal()
        #expect(error?.message.hasSuffix("'.Photos_SUPPORT/_EXTERNAL_DATA/fifo' is a FIFO, not a file") == true,
                "\(String(describing: error))")
        #expect(Self.tree(c.folder) == before)
    }

    @Test func aFolderIsRefused() throws {
        let c = try Case(referring: "folder")
        defer { c.remove() }
        try FileManager.default.createDirectory(at: c.external.appendingPathComponent("folder"), withIntermediateDirectories: true)
        #expect(c.refusal()?.message.hasSuffix("'.Photos_SUPPORT/_EXTERNAL_DATA/folder' is a folder, not a file") == true)
    }

    /// 2.5 GB that cost no disk: refused by its size, before anything is
    /// allocated for it.
    @Test func aHugeSparseFileIsRefusedByItsSize() throws {
        let c = try Case(referring: "huge")
        defer { c.remove() }
        try c.makeExternalFolder()
        let path = c.external.appendingPathComponent("huge").path
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, 2_500_000_000) == 0)
        close(descriptor)
        let error = c.refusal()
        #expect(error?.message.hasSuffix("'.Photos_SUPPORT/_EXTERNAL_DATA/huge' is 2500000000 bytes, more than mrq reads (\(ExternalBinaryData.sizeLimit)): examine the file on its own") == true,
                "\(String(describing: error))")
    }

    @Test func aMissingFileIsNotNil() throws {
        let c = try Case(referring: "gone")
        defer { c.remove() }
        let error = c.refusal()
        #expect(error?.kind == .notFound)
        #expect(error?.message.hasSuffix("'.Photos_SUPPORT' is missing (copy the store's support folder along with it)") == true,
                "\(String(describing: error))")
        try c.makeExternalFolder()
        #expect(c.refusal()?.message.hasSuffix("'.Photos_SUPPORT/_EXTERNAL_DATA/gone' is missing (copy the store's support folder along with it)") == true)
    }
}
