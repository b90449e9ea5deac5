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

/// A store of one Note with a big text and a big blob (issue 30, class 6),
/// its model written by the test.
enum BigValueStore {
    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Note" representedClassName="Note">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="body" optional="YES" attributeType="String"/>
                <attribute name="blob" optional="YES" attributeType="Binary"/>
            </entity>
        </model>
        """

    /// The folder holding `Big.xcdatamodel` and `big.sqlite`; the store
    /// holds `body` and `blob` in one row.
    static func make(body: String, blob: Data) throws -> (folder: String, model: String, store: String) {
        let folder = NSTemporaryDirectory() + "mrq-bigvalue-\(UUID().uuidString)"
        let modelFolder = folder + "/Big.xcdatamodel"
        try FileManager.default.createDirectory(atPath: modelFolder, withIntermediateDirectories: true)
        try model.write(toFile: modelFolder + "/contents", atomically: true, encoding: .utf8)
        let store = folder + "/big.sqlite"
        let made = try MRQBinary.run(["--model", modelFolder, "--store", store, "-c", "insert Note { title: \"big\" }", "-c", "save"])
        #expect(made.status == 0, "\(made.stderr)")
        let database = try Database(path: store)
        try database.execute("UPDATE Note SET body = ?, blob = ?", [.string(body), .data(blob)])
        return (folder, modelFolder, store)
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

    /// A value of megabytes: whole in JSON and CSV (parsed back), cut in a
    /// table and in line mode, where the output stays a few kilobytes.
    @Test func aBigValueIsWholeInJSONAndCSVAndCutInATable() throws {
        var body = String(repeating: "lorem ipsum \"dolor\", ", count: 400_000)
        body += "\n\u{1B}[31mé"
        #expect(body.utf8.count == 8_400_008)
        let blob = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let (folder, model, store) = try BigValueStore.make(body: body, blob: blob)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func run(_ format: String, binary: String = "decoded") throws -> String {
            let result = try MRQBinary.run(["--model", model, "--store", store, "--format", format, "--binary", binary, "-c", "Note"])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            return result.stdout
        }
        let json = try JSONSerialization.jsonObject(with: Data(try run("json").utf8)) as? [[String: Any]]
        #expect(json?.first?["body"] as? String == body)
        #expect((json?.first?["blob"] as? String).flatMap { Data(base64Encoded: $0) } == blob)
        let csv = try run("csv", binary: "raw")
        #expect(csv.hasPrefix("title,body,blob\nbig,\"lorem ipsum \"\"dolor\"\", "))
        func hex(_ bytes: Data) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(csv.contains("\n\u{1B}[31mé\",x'" + hex(blob.prefix(4))))
        #expect(csv.hasSuffix(hex(blob.suffix(4)) + "'\n"))
        #expect(csv.utf8.count == "title,body,blob\nbig,\"\",x''\n".utf8.count + body.utf8.count + 400_000 * 2 + 2 * blob.count)
        for format in ["table", "line"] {
            let text = try run(format)
            #expect(text.utf8.count < 40_000, "\(format)")
            #expect(text.contains("…(8,400,008 bytes)"), "\(format)")
            #expect(text.contains("<2.9 MB " + hex(blob.prefix(8)) + "…>"), "\(format)")
            let raw = try run(format, binary: "raw")
            #expect(raw.utf8.count < 40_000, "\(format)")
            #expect(raw.contains("x'" + hex(blob.prefix(4))) && raw.contains("…(3,000,000 bytes)"), "\(format)")
        }
    }
}
