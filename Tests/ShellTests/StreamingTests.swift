import Foundation
import ObjectStore
import Predicates
import Testing
@testable import Shell

/// Results printed as they are fetched: the same text whichever way the
/// rows come (a SQLite cursor or objects), tables laid out from their
/// first page, output that stops when its reader leaves, `.output` and
/// `.once` as plain text, to-many relationships in every mode, the pager.
@Suite struct StreamingTests {
    /// The People sample (1,200 people in 8 departments) in a store file.
    private func peopleShell() throws -> ShellHarness {
        let shell = try ShellHarness(store: "people.sqlite")
        let json = ShellHarness.samples.appendingPathComponent("people.json").path
        #expect(shell.run("import Person from \"\(json)\"\nsave").ok)
        return shell
    }

    static let queries = [
        "Person where age > 30 sort LastName, FirstName limit 40",
        "Person where department.name BEGINSWITH \"E\" sort age:NO limit 25 offset 5",
        "first Person where salary > 100000",
        "Person where age / 5 > 12 limit 10",
        "Person sort department.name, personID limit 30",
        "Person where personID < 0",
    ]

    /// The cursor (no pending change) and the objects (a pending change
    /// elsewhere) print byte for byte the same, in every mode.
    @Test func theCursorPrintsWhatTheObjectsPrint() throws {
        let shell = try peopleShell()
        #expect(try shell.session.rowPlan(for: FetchRequest(entityName: "Person")).method == .cursor)
        for mode in OutputMode.allCases {
            #expect(shell.run(".mode \(mode.rawValue)").ok)
            for query in Self.queries {
                let fromCursor = shell.run(query)
                #expect(fromCursor.ok, "\(query): \(fromCursor.errors)")
                #expect(shell.run("insert Department { name: \"Elsewhere\" }").ok)
                let fromObjects = shell.run(query)
                #expect(shell.run("rollback").ok)
                #expect(fromCursor.text == fromObjects.text, "\(mode) \(query)")
                #expect(!fromCursor.text.isEmpty || mode == .line)
            }
        }
    }

    /// Entities whose rows need objects: a to-many to list, a sort by a
    /// relationship, unsaved changes.
    @Test func onlySQLReadyFetchesUseTheCursor() throws {
        let shell = try peopleShell()
        let session = shell.session
        #expect(try session.rowPlan(for: FetchRequest(entityName: "Department")).method == .objects)
        var byDepartment = FetchRequest(entityName: "Person")
        byDepartment.sortDescriptors = [SortKey(keyPath: ["department"], ascending: true)]
        #expect(try session.rowPlan(for: byDepartment).method == .objects)
        #expect(shell.run("insert Department { name: \"New\" }").ok)
        #expect(try session.rowPlan(for: FetchRequest(entityName: "Person")).method == .objects)
    }

    // MARK: - Tables from their first page

    @Test func aTableIsLaidOutFromItsFirstPageAndKeepsLaterValuesWhole() {
        var writes: [String] = []
        let writer = RowWriter(columns: ["name"], options: RenderOptions(mode: .table)) { writes.append($0) }
        for _ in 0..<RowWriter.pageSize - 1 { writer.add([.value(.string("ab"))]) }
        writer.flush()
        #expect(writes.isEmpty, "a table writes nothing before its layout is known")
        writer.add([.value(.string("ab"))])
        writer.flush()
        #expect(writes.count == 1)
        writer.add([.value(.string("a longer name"))])
        writer.add([.value(.string("ab"))])
        writer.finish()
        let lines = writes.joined().split(separator: "\n").map(String.init)
        #expect(lines.first == "┌──────┐")
        #expect(lines[1] == "│ name │")
        #expect(lines.contains("│ a longer name │"))
        #expect(lines.suffix(3) == ["│ ab   │", "└──────┘", "(1002 rows)"])
    }

    /// Rows are handed on in blocks as they come, not all at the end,
    /// and add up to what the whole result renders to.
    @Test func rowsAreWrittenInBlocksAsTheyCome() {
        let rows: [[Cell]] = (0..<5_000).map { [.value(.int(Int64($0))), .value(.string("row \($0), quoted \"\""))] }
        for mode in OutputMode.allCases {
            let options = RenderOptions(mode: mode)
            var writes: [String] = []
            let writer = RowWriter(columns: ["n", "text"], options: options) { writes.append($0) }
            for row in rows { writer.add(row) }
            #expect(writes.count > 5, "\(mode)")
            #expect(writes.allSatisfy { $0.utf8.count < 64 * 1024 })
            writer.finish()
            #expect(writes.joined() == Renderer(options: options).render(ResultSet(columns: ["n", "text"], rows: rows)))
        }
    }

    // MARK: - Stopping

    /// An output whose reader leaves after a few writes.
    final class LeavingOutput: ShellOutput {
        var writes: [String] = []
        var errors = ""
        let leaveAfter: Int
        init(leaveAfter: Int) { self.leaveAfter = leaveAfter }
        func write(_ text: String) { writes.append(text) }
        func writeError(_ text: String) { errors += text }
        var isClosed: Bool { writes.count >= leaveAfter }
    }

    /// `| head -1`: the fetch stops, the statement succeeds, and the
    /// statements after it still run, a save included.
    @Test func theFetchStopsWhenTheReaderLeaves() throws {
        let shell = try peopleShell()
        let output = LeavingOutput(leaveAfter: 2)
        let ok = shell.session.run(".mode csv\nPerson\ninsert Department { name: \"After\" }\nsave", fileName: nil, output: output)
        #expect(ok, "\(output.errors)")
        #expect(output.writes.count == 2, "two blocks of rows, then nothing")
        let lines = output.writes.joined().split(separator: "\n").count
        #expect(lines > 2 && lines < 1_201, "some of the 1,200 rows: \(lines)")
        #expect(shell.count("Department where name == \"After\"") == 1)
    }

    // MARK: - To-many relationships

    @Test func toManyShowsItsKeysInEveryMode() throws {
        let shell = try ShellHarness()
        #expect(shell.run("insert Department { name: \"Eng\" }").ok)
        for id in 1...7 {
            #expect(shell.run("insert Person { personID: \(id), department: first Department where name == \"Eng\" }").ok)
        }
        #expect(shell.run("save").ok)
        func people(_ mode: String) -> String {
            shell.run(".mode \(mode)")
            return shell.run("Department").text
        }
        let keys = "[1, 2, 3, 4, 5, 6, 7]"
        #expect(people("json").contains("\"people\": \(keys)"))
        #expect(people("csv") == "name,budget,code,people\nEng,0.0,,\"\(keys)\"\n")
        #expect(people("line").contains("people = [1, 2, 3, 4, 5, … 2 more]\n"))
        #expect(people("table").contains("│ [1, 2, 3, 4, 5, … 2 more] │"))
    }

    // MARK: - .output and .once

    @Test func outputWritesPlainText() throws {
        let shell = try ShellHarness()
        shell.session.renderOptions.color = true
        shell.session.renderOptions.terminalWidth = 20
        #expect(shell.run("insert Department { name: \"Engineering\", code: \"ENG\", budget: 1000 }").ok)
        let screen = shell.run("Department").text
        #expect(screen.contains("-[ RECORD 1 ]"))
        #expect(screen.contains("\u{1B}["))
        #expect(shell.run(".output out.txt\nDepartment\n.output").ok)
        let file = try String(contentsOfFile: shell.path("out.txt"), encoding: .utf8)
        #expect(!file.contains("\u{1B}"))
        #expect(file.hasPrefix("┌"))
        #expect(file.contains("│ Engineering │ 1000.0 │ ENG  │ []     │"))
    }

    @Test func onceSendsOnlyTheNextResultToTheFile() throws {
        let shell = try ShellHarness()
        #expect(shell.run(".once once.txt").text == "")
        #expect(shell.run("\"to the file\"").text == "")
        #expect(shell.run("\"to the screen\"").text == "to the screen\n")
        #expect(try String(contentsOfFile: shell.path("once.txt"), encoding: .utf8) == "to the file\n")
        // Under .output, .once borrows the output for one statement.
        #expect(shell.run(".output all.txt\n\"one\"\n.once other.txt\n\"two\"\n\"three\"\n.output").ok)
        #expect(try String(contentsOfFile: shell.path("all.txt"), encoding: .utf8) == "one\nthree\n")
        #expect(try String(contentsOfFile: shell.path("other.txt"), encoding: .utf8) == "two\n")
        #expect(!shell.run(".once").ok)
    }

    /// A named pipe with no reader yet is waited for, as a shell's `>`
    /// does, and says so.
    @Test func outputWaitsForAReaderOfANamedPipe() throws {
        let shell = try ShellHarness()
        #expect(shell.makeFIFO("pipe"))
        let path = shell.path("pipe")
        let received = ThreadBox()
        let reader = Thread {
            usleep(200_000)
            received.set(FileHandle(forReadingAtPath: path)?.readDataToEndOfFile())
        }
        reader.start()
        let opened = shell.run(".output pipe")
        #expect(opened.ok)
        #expect(opened.errors == "waiting for a process to read the named pipe 'pipe' (Ctrl-C gives up)\n")
        #expect(shell.run("\"through the pipe\"\n.output").ok)
        while received.value == nil { usleep(10_000) }
        let data = (received.value ?? nil) ?? Data()
        #expect(String(decoding: data, as: UTF8.self) == "through the pipe\n")
    }

    // MARK: - The pager

    @Test func pagerSettingIsShownAndChanged() throws {
        let shell = try ShellHarness()
        let command = shell.session.pagerCommand
        shell.session.pagerOn = true
        #expect(shell.run(".pager").text == "pager: on (\(command))\n")
        #expect(shell.run(".pager off").ok)
        #expect(shell.run(".pager").text == "pager: off\n")
        #expect(!shell.run(".pager sometimes").ok)
    }

    /// Short results go to the screen; tall ones to the pager, all of it.
    @Test func onlyResultsTallerThanTheScreenArePaged() throws {
        let file = NSTemporaryDirectory() + "mrq-pager-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let screen = ShellHarness.Output()
        let short = PagedOutput(command: "cat > '\(file)'", height: 5, screen: screen)
        short.write("1\n2\n")
        short.write("3\n4\n")
        short.finish()
        #expect(screen.text == "1\n2\n3\n4\n")
        #expect(!FileManager.default.fileExists(atPath: file))

        let tall = PagedOutput(command: "cat > '\(file)'", height: 5, screen: screen)
        let lines = (1...2000).map { "line \($0)\n" }
        for line in lines { tall.write(line) }
        #expect(tall.isPaging)
        tall.finish()
        #expect(screen.text == "1\n2\n3\n4\n")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == lines.joined())
    }

    /// Quitting the pager closes the output, as `| head` does; a pager
    /// that cannot run says so.
    @Test func aPagerThatLeavesClosesTheOutput() throws {
        signal(SIGPIPE, SIG_IGN)
        let screen = ShellHarness.Output()
        let quitting = PagedOutput(command: "head -1 > /dev/null", height: 3, screen: screen)
        var written = 0
        while !quitting.isClosed && written < 1_000_000 {
            quitting.write("a line of a long result\n")
            written += 1
        }
        #expect(quitting.isClosed)
        quitting.finish()
        #expect(quitting.takeProblem() == nil)

        let missing = PagedOutput(command: "no-such-pager-\(UUID().uuidString)", height: 3, screen: screen)
        for _ in 0..<10 { missing.write("x\n") }
        missing.finish()
        #expect(missing.takeProblem()?.contains("could not be run (status 127)") == true)
        #expect(screen.text.isEmpty)
    }
}

/// A value handed from one thread to another.
final class ThreadBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Data??

    var value: Data?? { lock.withLock { stored } }
    func set(_ data: Data?) { lock.withLock { stored = .some(data) } }
}
