import Foundation
import ObjectStore
import Testing

/// A People store of `people` persons in three departments, made by mrq
/// and filled by one SQL statement (much faster than mrq's inserts).
enum BigStore {
    static let model = MRQBinary.packageRoot.appendingPathComponent("Samples/People.xcdatamodeld").path

    static func make(people: Int) throws -> String {
        let path = NSTemporaryDirectory() + "mrq-big-\(UUID().uuidString).sqlite"
        let made = try MRQBinary.run(["--model", model, "--store", path, "-c",
                                      "insert Department { name: \"Eng\" }", "-c", "save"])
        #expect(made.status == 0, "\(made.stderr)")
        let database = try Database(path: path)
        try database.execute("""
            INSERT INTO Department(name) VALUES ('Ops'), ('Sales');
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(people))
            INSERT INTO Person(FirstName, LastName, age, email, salary, active, hiredAt, personID, department)
            SELECT 'First' || i, 'Last' || (i % 977), i % 90, 'person' || i || '@example.com', 1000.5 + i, i % 2,
                   600000000.0 + i * 1000, i, i % 3 + 1 FROM c
            """)
        return path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// Results streamed to standard output, a pipe and `.output` devices,
/// through the built binary.
@Suite(.enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct StreamingCommandTests {
    /// `| head -1` ends the print; the statements after it still run,
    /// their save included.
    @Test func aReaderThatLeavesStopsThePrintAndTheRestStillRuns() throws {
        let store = try BigStore.make(people: 20_000)
        defer { BigStore.remove(store) }
        let result = try MRQBinary.bash("""
            mrq --model '\(BigStore.model)' --store '\(store)' --format csv -c Person \
                -c 'insert Department { name: "After" }' -c save 2>/dev/null | head -1
            echo "status ${PIPESTATUS[0]}"
            mrq --model '\(BigStore.model)' --store '\(store)' -c 'count Department where name == "After"' --format csv
            """)
        #expect(result.output == """
            FirstName,LastName,age,email,salary,active,hiredAt,personID,department
            status 0
            count
            1

            """)
    }

    /// `.output /dev/stdout` writes where standard output already stands
    /// (it used to open the file again, emptying what came before).
    @Test func outputToDevStdoutContinuesStandardOutput() throws {
        let path = NSTemporaryDirectory() + "mrq-stdout-\(UUID().uuidString).txt"
        FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try MRQBinary.run(["-c", "\"before\"", "-c", ".output /dev/stdout", "-c", "\"after\"",
                                        "-c", ".output", "-c", "\"last\""], stdoutPath: path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "before\nafter\nlast\n")
    }

    /// Rows out in every mode: the whole result, in order, from a store
    /// bigger than any buffer.
    @Test func everyRowIsWrittenInEveryMode() throws {
        let store = try BigStore.make(people: 5_000)
        defer { BigStore.remove(store) }
        for (format, lines) in [("csv", 5_001), ("json", 5_000 * 11 + 2), ("line", 5_000 * 10 - 1), ("table", 5_000 + 5)] {
            let result = try MRQBinary.run(["--model", BigStore.model, "--store", store, "--format", format, "-c", "Person"])
            #expect(result.status == 0)
            #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count - 1 == lines, "\(format)")
        }
    }
}
