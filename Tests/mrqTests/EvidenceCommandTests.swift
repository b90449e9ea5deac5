import EvidenceFixtures
import Foundation
import Testing

/// Issue 30, class 2, through the built `mrq` as an examiner runs it: no
/// model, each reading statement alone, with `--read-only`, `--immutable`
/// and no flag. Nothing in the folder (or where its links point) changes;
/// a hot journal's store reads as rolled back, a copied log's commits are
/// read; what cannot be read is one line and exit status 65.
@Suite(.enabled(if: MRQBinary.isBuilt, MRQBinary.notBuilt))
struct EvidenceCommandTests {
    static let statements: [[String]] = [
        ["-c", ".entities"], ["-c", "count Note"], ["-c", "Note sort title limit 3"],
        ["--format", "json", "-c", "Note sort title limit 3"],
    ]
    static let flags: [[String]] = [[], ["--read-only"], ["--immutable"]]

    static let all: [(EvidenceCase, EvidenceLayout)] = EvidenceCase.allCases.flatMap { kind in
        EvidenceLayout.allCases.map { (kind, $0) }
    }

    /// Runs mrq, killing it after `seconds` (a pipe opened for reading
    /// would block it forever).
    static func run(_ arguments: [String], seconds: Double = 20) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MRQBinary.path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MRQ_HISTORY"] = "/dev/null"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = DispatchTime.now() + seconds
        let timer = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: timer)
        let errorData = ThreadSafeBox<Data>()
        let reader = Thread { errorData.value = errors.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        while errorData.value == nil { usleep(1000) }
        #expect(process.terminationReason == .exit, "mrq \(arguments) did not end within \(seconds) s")
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self),
                String(decoding: errorData.value ?? Data(), as: UTF8.self))
    }

    @Test(arguments: all)
    func readingNeverAltersTheEvidence(kind: EvidenceCase, layout: EvidenceLayout) throws {
        let folder = try EvidenceFixtures.make(kind, layout: layout)
        defer { folder.remove() }
        let before = try folder.state()
        for flag in Self.flags {
            let expected = flag == ["--immutable"] ? kind.expectedImmutable : kind.expected
            for statement in Self.statements {
                let arguments = ["--store", folder.store.path] + flag + statement
                let result = try Self.run(arguments)
                let shown = "mrq \(flag + statement)"
                switch expected {
                case .notes(let n):
                    #expect(result.status == 0, "\(shown): \(result.stderr)")
                    switch statement.last {
                    case ".entities": #expect(result.stdout.contains("Note"), "\(shown): \(result.stdout)")
                    case "count Note": #expect(result.stdout.contains("\(n)"), "\(shown): \(result.stdout)")
                    default:
                        #expect(result.stdout.contains("kept 1") && result.stdout.contains("kept 3"), "\(shown): \(result.stdout)")
                        #expect(!result.stdout.contains("changed mid-write"), "\(shown) read the half-written file")
                        if statement.first == "--format" { #expect(result.stdout.contains("\"title\""), "\(shown): \(result.stdout)") }
                    }
                case .refused(let text), .notAStore(let text):
                    #expect(result.status == 65, "\(shown): status \(result.status), \(result.stderr)")
                    #expect(result.stdout.isEmpty, "\(shown): \(result.stdout)")
                    #expect(result.stderr.contains(text), "\(shown): \(result.stderr)")
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(shown): \(result.stderr)")
                }
                let after = try folder.state()
                #expect(after == before, "\(shown) changed the files:\n\(after)\nwas:\n\(before)")
            }
        }
        #expect(try Data(contentsOf: folder.victim) == Data("precious, not to be deleted\n".utf8))
    }

    /// A session with no flag that saves writes the store, as asked: the
    /// hot journal is rolled back then (not before), and the new note is
    /// added to what the session showed.
    @Test(arguments: EvidenceLayout.allCases)
    func aSessionThatSavesOpensTheStoreForWritingThen(layout: EvidenceLayout) throws {
        let folder = try EvidenceFixtures.make(.hotJournal, layout: layout)
        defer { folder.remove() }
        let saved = try Self.run(["--store", folder.store.path, "-c", "insert Note { title: \"added\" }", "-c", "save",
                                  "-c", "count Note"])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("4"), "\(saved.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.store.path + "-journal"))
        let count = try Self.run(["--store", folder.store.path, "--read-only", "-c", "count Note"])
        #expect(count.stdout.contains("4"), "\(count.stdout) \(count.stderr)")
    }

    /// With a model given (and no flag), an empty file is made a store, as
    /// before: that is asking to create one.
    @Test func anEmptyFileWithAModelBecomesAStore() throws {
        let folder = try EvidenceFixtures.make(.emptyFile, layout: .mrq)
        defer { folder.remove() }
        let model = MRQBinary.packageRoot.appendingPathComponent("Samples/People.xcdatamodeld").path
        let made = try Self.run(["--model", model, "--store", folder.store.path, "-c", "count Person"])
        #expect(made.status == 0, "\(made.stderr)")
        let refused = try Self.run(["--model", model, "--store", folder.store.path + ".other", "--read-only", "-c", "count Person"])
        #expect(refused.status == 65)
    }
}
