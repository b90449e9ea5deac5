import Foundation
import PostgresTestServer
@testable import Shell
import Testing

/// Issue 33, Deliver 1, repros 1-3: two shells on one store (a SQLite
/// file, or a PostgreSQL database of the test server), each with its own
/// coordinator as two processes have. A save that would land a new object
/// on the other's unique key, overwrite a value the other changed since
/// this shell read it, or update a row the other deleted is refused,
/// naming the object, the property, their value and yours, and how to go
/// on; changes to different properties still merge. The summary counts
/// only what was written. The last test runs two real `mrq` processes.
@Suite(.serialized)
struct ConflictShellTests {
    static let people = MRQBinary.packageRoot.appendingPathComponent("Samples/People.xcdatamodeld").path

    enum Engine: String, CaseIterable { case sqlite, postgres }

    /// A store of the People model holding Ada (personID 1, age 60), and
    /// a way to remove it.
    static func store(_ engine: Engine) throws -> (store: String, remove: () -> Void) {
        let store: String
        let remove: () -> Void
        switch engine {
        case .sqlite:
            let folder = NSTemporaryDirectory() + "mrq-conflicts-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            store = folder + "/people.sqlite"
            remove = { try? FileManager.default.removeItem(atPath: folder) }
        case .postgres:
            store = try PostgresServer.shared().createDatabase()
            remove = {}
        }
        let setup = try ShellSession(modelPath: people, storePath: store)
        let made = run(setup, "insert Person { personID: 1, FirstName: \"Ada\", age: 60 }\nsave")
        #expect(made.ok, "\(made.out)")
        return (store, remove)
    }

    static func shell(_ store: String) throws -> ShellSession {
        try ShellSession(modelPath: people, storePath: store)
    }

    static func run(_ session: ShellSession, _ text: String) -> (out: String, ok: Bool) {
        let capture = Capture()
        let ok = session.run(text, fileName: nil, output: capture)
        return (capture.text, ok)
    }

    final class Capture: ShellOutput {
        var text = ""
        func write(_ text: String) { self.text += text }
        func writeError(_ text: String) { self.text += text }
        func flush() {}
        var isClosed: Bool { false }
    }

    @Test(arguments: Engine.allCases)
    func aSecondInsertOfAUniqueKeyIsRefusedNotMerged(engine: Engine) throws {
        let (store, remove) = try Self.store(engine)
        defer { remove() }
        let a = try Self.shell(store), b = try Self.shell(store)
        #expect(Self.run(a, "insert Person { personID: 7, FirstName: \"Grace\", age: 40 }").ok)
        #expect(Self.run(b, "insert Person { personID: 7, FirstName: \"Alan\", age: 41 }").ok)
        #expect(Self.run(a, "save").out.contains("saved 1 change"))
        let refused = Self.run(b, "save")
        #expect(!refused.ok)
        #expect(refused.out.contains("save refused, nothing written: uniqueness constraint conflict: Person.personID = 7"),
                "\(refused.out)")
        // The stored row by entity and row number, not by an x-coredata URI.
        #expect(refused.out.contains("and the stored Person (row ") && !refused.out.contains("x-coredata"), "\(refused.out)")
        #expect(refused.out.contains(".merge-policy mergeByPropertyObjectTrump") && refused.out.contains("rollback"),
                "\(refused.out)")
        #expect(!refused.out.contains("saved 1 change"), "\(refused.out)")
        let rows = Self.run(try Self.shell(store), "select FirstName, age from Person where personID == 7").out
        #expect(rows.contains("Grace") && rows.contains("40") && !rows.contains("Alan"), "\(rows)")
        // Choosing object-trump merges it in, as MagicalRecord would.
        #expect(Self.run(b, ".merge-policy mergeByPropertyObjectTrump").out.contains("merge-policy: mergeByPropertyObjectTrump"))
        #expect(Self.run(b, "save").ok)
        let merged = Self.run(try Self.shell(store), "select FirstName from Person where personID == 7").out
        #expect(merged.contains("Alan"), "\(merged)")
    }

    /// As seen: B set the age to 70 earlier (not saved yet), A set 71 and
    /// saved, B adds ten to its stale 70 and saves.
    @Test(arguments: Engine.allCases)
    func aStaleSameAttributeUpdateIsRefusedNamingTheirsAndYours(engine: Engine) throws {
        let (store, remove) = try Self.store(engine)
        defer { remove() }
        let a = try Self.shell(store), b = try Self.shell(store)
        #expect(Self.run(b, "update Person where personID == 1 set age = 70").ok)
        #expect(Self.run(a, "update Person where personID == 1 set age = 71\nsave").ok)
        #expect(Self.run(b, "update Person where personID == 1 set age = age + 10").ok)
        let refused = Self.run(b, "save")
        #expect(!refused.ok)
        #expect(refused.out.contains("Person personID = 1 changed in the store (age) since you read it: age is 71 there, 80 yours"),
                "\(refused.out)")
        #expect(refused.out.contains("keep yours") && refused.out.contains("take theirs")
                && refused.out.contains("refresh and redo"), "\(refused.out)")
        #expect(!refused.out.contains("saved 1 change"), "\(refused.out)")
        #expect(Self.run(try Self.shell(store), "select age from Person where personID == 1").out.contains("71"))
        // Refresh and redo: rollback reads the row again; the change
        // redone starts from their 71.
        #expect(Self.run(b, "rollback").ok)
        #expect(Self.run(b, "update Person where personID == 1 set age = age + 10").ok)
        #expect(Self.run(b, "save").out.contains("saved 1 change"))
        #expect(Self.run(try Self.shell(store), "select age from Person where personID == 1").out.contains("81"))
    }

    @Test(arguments: Engine.allCases)
    func changesToDifferentAttributesStillMerge(engine: Engine) throws {
        let (store, remove) = try Self.store(engine)
        defer { remove() }
        let a = try Self.shell(store), b = try Self.shell(store)
        #expect(Self.run(b, "update Person where personID == 1 set FirstName = \"Ada K\"").ok)
        #expect(Self.run(a, "update Person where personID == 1 set age = 71\nsave").ok)
        let saved = Self.run(b, "save")
        #expect(saved.ok && saved.out.contains("saved 1 change"), "\(saved.out)")
        let row = Self.run(try Self.shell(store), "select FirstName, age from Person where personID == 1").out
        #expect(row.contains("Ada K") && row.contains("71"), "\(row)")
    }

    @Test(arguments: Engine.allCases)
    func anUpdateOfARowAnotherShellDeletedIsRefusedNeverCounted(engine: Engine) throws {
        let (store, remove) = try Self.store(engine)
        defer { remove() }
        let a = try Self.shell(store), b = try Self.shell(store)
        #expect(Self.run(b, "update Person where personID == 1 set age = 80").ok)
        #expect(Self.run(a, "delete Person where personID == 1\nsave").ok)
        let refused = Self.run(b, "save")
        #expect(!refused.ok)
        #expect(refused.out.contains("Person personID = 1 was deleted in the store, so your change cannot be written: age is gone there"),
                "\(refused.out)")
        #expect(!refused.out.contains("saved 1 change"), "\(refused.out)")
        // Taking theirs writes nothing, and says so.
        #expect(Self.run(b, ".merge-policy mergeByPropertyStoreTrump").ok)
        let dropped = Self.run(b, "save")
        #expect(dropped.out.contains("saved 0 changes (1 not written"), "\(dropped.out)")
        #expect(Self.run(try Self.shell(store), "count Person").out.contains("0"))
    }

    @Test(arguments: Engine.allCases)
    func aDeleteOfARowAnotherShellChangedIsRefused(engine: Engine) throws {
        let (store, remove) = try Self.store(engine)
        defer { remove() }
        let a = try Self.shell(store), b = try Self.shell(store)
        #expect(Self.run(b, "delete Person where personID == 1").ok)
        #expect(Self.run(a, "update Person where personID == 1 set age = 71\nsave").ok)
        let refused = Self.run(b, "save")
        #expect(!refused.ok)
        #expect(refused.out.contains("Person personID = 1 changed in the store (age) since you read it, and your save deletes it: "
                                     + "age is 71 there; to go on: delete it anyway"), "\(refused.out)")
        #expect(Self.run(try Self.shell(store), "count Person").out.contains("1"))
    }

    @Test func mergePolicyShowsSetsAndRefusesUnknownNames() throws {
        let session = try ShellSession(modelPath: Self.people, storePath: ":memory:")
        #expect(Self.run(session, ".merge-policy").out.contains("merge-policy: mergeOrRefuse"))
        for name in ["error", "mergeByPropertyStoreTrump", "mergeByPropertyObjectTrump", "overwrite", "rollback", "mergeOrRefuse"] {
            #expect(Self.run(session, ".merge-policy \(name)").out.contains("merge-policy: \(name)"))
        }
        let typed = ".merge-policy mergeBy"
        #expect(Set(session.completions(in: typed, cursor: typed.utf8.count))
                == ["mergeByPropertyObjectTrump", "mergeByPropertyStoreTrump"])
        let unknown = Self.run(session, ".merge-policy trump")
        #expect(!unknown.ok && unknown.out.contains("unknown merge policy 'trump'"), "\(unknown.out)")
    }

    /// Repro 2 with two real `mrq` processes on each engine: B sets 70
    /// and stays open, A saves 71 and exits, B adds ten and saves.
    @Test(.enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt), arguments: Engine.allCases)
    func twoRealShellsRefuseTheStaleUpdate(engine: Engine) throws {
        let (store, remove) = try Self.store(engine)
        defer { remove() }
        let folder = NSTemporaryDirectory() + "mrq-conflicts-out-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let b = try LiveShell(["--model", Self.people, "--store", store, "--interactive"])
        // B's read lands in a file: when it is there, B holds 70.
        b.send("update Person where personID == 1 set age = 70\n.once \(folder)/read.txt\nselect age from Person where personID == 1")
        #expect(waitUntil { (try? String(contentsOfFile: folder + "/read.txt", encoding: .utf8))?.contains("70") == true })
        let a = try MRQBinary.run(["--model", Self.people, "--store", store,
                                   "-c", "update Person where personID == 1 set age = 71", "-c", "save"])
        #expect(a.status == 0 && a.stdout.contains("saved 1 change"), "\(a.stdout)\(a.stderr)")
        b.send("update Person where personID == 1 set age = age + 10\nsave\nrollback\n.quit")
        let (status, out, errors) = b.finish()
        #expect(status == 0 || status == 65 || status == 1, "\(status)")
        #expect(errors.contains("age is 71 there, 80 yours"), "\(out)\(errors)")
        // One line a terminal shows as it is (a newline would be escaped).
        #expect(errors.contains("; to go on: keep yours (") && !errors.contains("\\n"), "\(errors)")
        #expect(!out.contains("saved 1 change"), "\(out)")
        let check = try MRQBinary.run(["--model", Self.people, "--store", store, "-c", "select age from Person"])
        #expect(check.stdout.contains("71"), "\(check.stdout)")
    }
}

/// A running `mrq` fed through a pipe, line by line.
final class LiveShell {
    let process = Process()
    let input = Pipe(), output = Pipe(), errors = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: MRQBinary.path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MRQ_HISTORY"] = "/dev/null"
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    func send(_ lines: String) {
        input.fileHandleForWriting.write(Data((lines + "\n").utf8))
    }

    /// Closes the input and waits; the exit status, standard output and
    /// standard error.
    func finish() -> (Int32, String, String) {
        try? input.fileHandleForWriting.close()
        let errorText = ResultBox()
        let handle = errors.fileHandleForReading
        let reader = Thread { errorText.set(handle.readDataToEndOfFile()) }
        reader.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        _ = waitUntil { errorText.get() != nil }
        return (process.terminationStatus, String(decoding: out, as: UTF8.self),
                String(decoding: errorText.get() ?? Data(), as: UTF8.self))
    }
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data? { lock.withLock { data } }
}
