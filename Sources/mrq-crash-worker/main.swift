// The crash tests' child process. Not for users.
//
//   mrq-crash-worker save-loop STORE ROWS
//       Saves forever; save n inserts ROWS items tagged n, marks the items
//       of save n-1 touched = n, deletes the items of save n-KEEP, and sets
//       the counter to n, all in one save. Prints "ready" once the store is
//       open, then "saved n" after each save returns.
//   mrq-crash-worker xml-save-loop STORE ROWS
//       The same on an XML store (one atomic file per save).
//   mrq-crash-worker open STORE [--uid N] [--read-only] [--save]
//       Opens the store (as user N when given, for tests that run as root,
//       where permission checks are bypassed), optionally saves one item,
//       and prints "ok" or "error KIND<TAB>DESCRIPTION".
//   mrq-crash-worker pg-writer URL PROCESS CHANGES PER-SAVE POLICY
//       One writer of the PostgreSQL multi-process test (see
//       ConcurrentWriters.swift).
//
// Tests/ObjectStoreTests/CrashTests.swift defines the same model.
import Foundation
import ObjectStore
import Predicates

let keep: Int64 = 4

func crashModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        Entity("Item") {
            Attribute("tag", .integer64, default: .int(0))
            Attribute("slot", .integer64, default: .int(0))
            Attribute("touched", .integer64, default: .int(0))
        }
        Entity("Counter") {
            Attribute("value", .integer64, default: .int(0))
        }
    }
}

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBufferPointer { _ = write(1, $0.baseAddress, $0.count) }
}

func items(tagged tag: Int64, in context: ManagedObjectContext) throws -> [ManagedObject] {
    Array(try context.fetch(FetchRequest(entityName: "Item", predicate: try Predicate(format: "tag == %lld", .int(tag)))))
}

func saveLoop(path: String, rows: Int64, type: PersistentStoreType = .sqlite) throws -> Never {
    let coordinator = PersistentStoreCoordinator(model: try crashModel())
    try coordinator.addPersistentStore(type: type, at: URL(fileURLWithPath: path))
    let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
    say("ready")
    while true {
        let counter = try context.fetch(FetchRequest(entityName: "Counter")).first
            ?? context.insertObject(forEntityName: "Counter")
        guard case .int(let last) = counter["value"] else { fatalError("counter has no value") }
        let n = last + 1
        for slot in 0..<rows {
            let item = context.insertObject(forEntityName: "Item")
            item["tag"] = .int(n)
            item["slot"] = .int(slot)
        }
        for item in try items(tagged: n - 1, in: context) { item["touched"] = .int(n) }
        for item in try items(tagged: n - keep, in: context) { context.delete(item) }
        counter["value"] = .int(n)
        try context.save()
        context.reset()
        say("saved \(n)")
    }
}

func open(path: String, flags: ArraySlice<String>) -> String {
    if let i = flags.firstIndex(of: "--uid"), let uid = UInt32(flags[i + 1]) {
        guard setgid(uid) == 0, setuid(uid) == 0 else { return "setuid failed: errno \(errno)" }
    }
    do {
        let coordinator = PersistentStoreCoordinator(model: try crashModel())
        try coordinator.addSQLiteStore(at: URL(fileURLWithPath: path), readOnly: flags.contains("--read-only"))
        if flags.contains("--save") {
            let context = ManagedObjectContext(concurrencyType: .confined, coordinator: coordinator)
            context.insertObject(forEntityName: "Item")
            try context.save()
        }
        return "ok"
    } catch let error as StoreError {
        return "error \(error.kind)\t\(error)"
    } catch {
        return "error other\t\(error)"
    }
}

let arguments = CommandLine.arguments
switch (arguments.count > 2 ? arguments[1] : "", arguments.count) {
case ("save-loop", 4):
    do {
        try saveLoop(path: arguments[2], rows: Int64(arguments[3]) ?? 10)
    } catch {
        FileHandle.standardError.write(Data("mrq-crash-worker: \(error)\n".utf8))
        exit(1)
    }
case ("xml-save-loop", 4):
    do {
        try saveLoop(path: arguments[2], rows: Int64(arguments[3]) ?? 10, type: .xml)
    } catch {
        FileHandle.standardError.write(Data("mrq-crash-worker: \(error)\n".utf8))
        exit(1)
    }
case ("pg-writer", 7):
    do {
        guard let url = URL(string: arguments[2]), let process = Int(arguments[3]), let changes = Int(arguments[4]),
              let perSave = Int(arguments[5]), perSave > 0, let policy = policy(named: arguments[6]) else {
            FileHandle.standardError.write(Data("usage: mrq-crash-worker pg-writer URL PROCESS CHANGES PER-SAVE POLICY\n".utf8))
            exit(64)
        }
        try writeConcurrently(url: url, process: process, changes: changes, perSave: perSave, policy: policy)
    } catch {
        FileHandle.standardError.write(Data("mrq-crash-worker: \(error)\n".utf8))
        exit(1)
    }
case ("open", _):
    say(open(path: arguments[2], flags: arguments.dropFirst(3)))
default:
    FileHandle.standardError.write(Data("usage: mrq-crash-worker save-loop STORE ROWS | xml-save-loop STORE ROWS | open STORE [--uid N] [--read-only] [--save] | pg-writer URL PROCESS CHANGES PER-SAVE POLICY\n".utf8))
    exit(64)
}
