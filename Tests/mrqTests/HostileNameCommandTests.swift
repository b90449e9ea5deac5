import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// Issue 30, classes 1 and 7, through the built `mrq`: a Core Data store
/// whose model cache names an entity with SQL and a terminal escape is
/// refused on opening, in one line that names the entity with its escape
/// written out, and nothing in the folder is created or changed.
@Suite(.enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct HostileNameCommandTests {
    @Test(arguments: [
        "x\"; ATTACH DATABASE 'pwned.db' AS p; CREATE TABLE p.t(x); --",
        "x\" OR 1=1 OR \"",
        "x\u{1B}[31mRED\u{1B}[0m",
        "x\n.shell touch pwned\n",
        "x\u{9B}31m\u{202E}evil",
    ])
    func aStoreNamingAnEntityWithSQLOrAnEscapeIsRefusedInOnePrintableLine(name: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mrq-hostile-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("Store.sqlite")
        do {
            let note = EntityDescription(name: name)
            note.add(AttributeDescription(name: "body", type: .string))
            var options = PersistentStoreOptions()
            options.layout = .coreData
            let coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: [note], checkingNames: false))
            try coordinator.addPersistentStore(type: .sqlite, at: store, options: options)
        }
        let before = try OpeningCommandTests.snapshot(folder)
        for arguments in [["-c", ".entities"], ["-c", ".schema"], ["--read-only", "--format", "json", "-c", ".dump"]] {
            let result = try MRQBinary.run(["--store", store.path] + arguments)
            #expect(result.status != 0, "\(arguments): \(result.stdout)")
            #expect(result.stderr.contains("is not a valid Core Data name"), "\(result.stderr)")
            #expect(result.stderr.hasSuffix("\n") && result.stderr.dropLast().split(separator: "\n").count == 1,
                    "one line: \(result.stderr.debugDescription)")
            let raw = (result.stdout + result.stderr).unicodeScalars.filter { TerminalText.isUnsafe($0) && $0 != "\n" }
            #expect(raw.isEmpty, "\(result.stderr.debugDescription)")
        }
        #expect(try OpeningCommandTests.snapshot(folder) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("pwned.db").path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("pwned").path))
    }
}
