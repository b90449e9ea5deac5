import Foundation
import Testing
@testable import Shell

/// Files named in dot commands and `import`: every odd one is a clean
/// error that names it and says why, never a trap, a hang or a file
/// replaced by accident.
@Suite struct FileCommandTests {
    /// A session whose folder holds odd things to name: a directory with
    /// a file in it, a text file, a named pipe, a binary file and a
    /// Latin-1 one.
    private func shellWithOddFiles() throws -> ShellHarness {
        let shell = try ShellHarness()
        try FileManager.default.createDirectory(atPath: shell.path("adir"), withIntermediateDirectories: false)
        try shell.write("adir/keep.txt", Data("kept\n".utf8))
        try shell.write("notes.txt", Data("my notes\n".utf8))
        try shell.write("binary.dat", Data([0x41, 0x0A, 0x7F, 0x45, 0x4C, 0x46, 0x00, 0x01]))
        try shell.write("latin1.mrq", Data([0x22, 0x63, 0x61, 0x66, 0xE9, 0x22, 0x0A]))
        try shell.write("store.db", Data("SQLite format 3\0".utf8 + [0x10, 0x00, 0x01, 0x01]))
        #expect(shell.makeFIFO("fifo"))
        return shell
    }

    // MARK: .output

    /// Was a SIGILL: `FileHandle.truncateFile(atOffset:)` traps on a
    /// character device.
    @Test func outputToDevNullWritesNothingAndKeepsGoing() throws {
        let shell = try ShellHarness()
        #expect(shell.run(".output /dev/null").ok)
        let result = shell.run("\"hidden\"")
        #expect(result.ok)
        #expect(result.text == "")
        #expect(shell.run(".output").ok)
        #expect(shell.run("\"shown\"").text == "shown\n")
    }

    @Test func outputToAFileReplacesItsContents() throws {
        let shell = try ShellHarness()
        try shell.write("out.txt", Data("old contents that are longer\n".utf8))
        #expect(shell.run(".output out.txt").ok)
        #expect(shell.run("1 + 1").text == "")
        #expect(shell.run(".output").ok)
        #expect(try String(contentsOfFile: shell.path("out.txt"), encoding: .utf8) == "2\n")
    }

    @Test(arguments: [
        (".output adir", "cannot write 'adir': it is a directory"),
        (".output missing/x.txt", "cannot write 'missing/x.txt': no such file or directory"),
        (".output a b", "usage: .output [FILE]"),
    ])
    func outputRefusesWhatItCannotWrite(command: String, message: String) throws {
        let shell = try shellWithOddFiles()
        let result = shell.run(command)
        #expect(!result.ok)
        #expect(result.errors == "error: \(message)\n    \(command)\n    ^\(String(repeating: "~", count: command.count - 1))\n")
        #expect(shell.run("\"still here\"").text == "still here\n")
    }

    @Test func outputToAReadOnlyPlaceIsAnError() throws {
        let shell = try ShellHarness()
        // Root writes anywhere a mode allows; /proc/version takes nobody's writes.
        let target = getuid() == 0 ? "/proc/version" : "/etc/passwd"
        let result = shell.run(".output \(target)\n\"x\"")
        #expect(!result.ok)
        #expect(result.errors.contains("cannot write '\(target)'"))
        #expect(shell.session.redirect == nil)
    }

    /// `.output` empties the file it names: never a database.
    @Test func outputRefusesTheStoreAndOtherDatabases() throws {
        let shell = try ShellHarness(store: "people.sqlite")
        #expect(shell.run("insert Department { name: \"Eng\" }\nsave\n.save-as copy.sqlite").ok)
        // The session moved to the copy: people.sqlite is another database now.
        for (name, why) in [("copy.sqlite", "it is the open store"), ("./copy.sqlite-wal", "it is the open store"),
                            ("people.sqlite", "it is a SQLite database")] {
            let result = shell.run(".output \(name)")
            #expect(!result.ok)
            #expect(result.errors.hasPrefix("error: cannot write '\(name)': \(why), which .output would empty\n"), "\(result.errors)")
        }
        #expect(shell.count("Department") == 1)
        let first = try ShellSession(modelPath: nil, storePath: shell.path("people.sqlite"))
        let output = ShellHarness.Output()
        first.run("count Department", fileName: nil, output: output)
        #expect(output.text.contains("│     1 │"))
    }

    /// A full disk: the statement reports it, the rest of its result is
    /// dropped (as when a pipe's reader leaves: a result may be millions
    /// of rows), and the next results come back to the screen.
    @Test func outputToAFullDeviceFallsBackToTheScreen() throws {
        let shell = try ShellHarness()
        #expect(shell.run(".output /dev/full").ok)
        let result = shell.run("\"lost\"")
        #expect(!result.ok)
        #expect(result.text == "")
        #expect(result.errors.hasPrefix("error: cannot write '/dev/full': no space left on device; results go to the screen again\n"))
        #expect(shell.run("\"next\"").text == "next\n")
        #expect(shell.session.redirect == nil)
    }

    // MARK: .read and import

    @Test(arguments: [
        (".read adir", "cannot read 'adir': it is a directory, not a file"),
        (".read missing.mrq", "cannot read 'missing.mrq': no such file"),
        (".read binary.dat", "cannot read 'binary.dat': it is not a text file (a NUL byte on line 2)"),
        (".read latin1.mrq", "cannot read 'latin1.mrq': it is not UTF-8 text (line 1)"),
        (".read store.db", "cannot read 'store.db': it is an SQLite database, not a script (open a store with --store FILE, or .open FILE at the prompt)"),
        (".read /dev/zero", "cannot read '/dev/zero': it is a device, not a file"),
        (".read", "usage: .read FILE"),
        ("import Person from \"adir\"", "cannot read 'adir': it is a directory, not a file"),
        ("import Person from \"/dev/zero\"", "cannot read '/dev/zero': it is a device, not a file"),
        ("import Person from \"missing.json\"", "cannot read 'missing.json': no such file"),
    ])
    func readRefusesWhatIsNotAScript(command: String, message: String) throws {
        let shell = try shellWithOddFiles()
        let result = shell.run(command)
        #expect(!result.ok)
        #expect(result.errors.hasPrefix("error: \(message)\n"), "\(result.errors)")
        #expect(shell.count("Person") == 0)
    }

    @Test func readRunsAScriptWithTildeForHome() throws {
        let shell = try ShellHarness()
        try shell.write("ok.mrq", Data("\"from the script\"\n".utf8))
        #expect(shell.run(".read ok.mrq").text == "from the script\n")
        #expect(ShellFiles.expandingTilde("~/x") == ShellFiles.homeDirectory + "/x")
        #expect(ShellFiles.expandingTilde("~") == ShellFiles.homeDirectory)
        #expect(ShellFiles.expandingTilde("~user/x") == "~user/x")
    }

    // MARK: .open, .model, .save-as

    @Test(arguments: [
        (".open adir", "cannot open 'adir': it is a directory, not a store file"),
        (".open fifo", "cannot open 'fifo': it is a named pipe, not a store file"),
        (".open :memory: fifo", "cannot read the model 'fifo': it is a named pipe"),
        (".open :memory: missing.xcdatamodeld", "cannot read the model 'missing.xcdatamodeld': no such file or directory"),
        (".model fifo", "cannot read the model 'fifo': it is a named pipe"),
        (".model /dev/zero", "cannot read the model '/dev/zero': it is a device"),
        (".save-as adir", "cannot save as 'adir': a directory is already there; remove it first or choose another name"),
        (".save-as fifo", "cannot save as 'fifo': a named pipe is already there; remove it first or choose another name"),
        (".save-as notes.txt", "cannot save as 'notes.txt': a file is already there; remove it first or choose another name"),
        (".save-as missing/x.sqlite", "cannot save as 'missing/x.sqlite': its directory 'missing' does not exist"),
    ])
    func storeCommandsRefuseOddPathsAndTouchNothing(command: String, message: String) throws {
        let shell = try shellWithOddFiles()
        #expect(shell.run("insert Department { name: \"Kept\" }").ok)
        // `.model` wants no pending changes; the others keep them.
        if command.hasPrefix(".model") { #expect(shell.run("save").ok) }
        let result = shell.run(command)
        #expect(!result.ok)
        #expect(result.errors.hasPrefix("error: \(message)\n"), "\(result.errors)")
        // Nothing replaced, the session and its pending change intact.
        #expect(try String(contentsOfFile: shell.path("notes.txt"), encoding: .utf8) == "my notes\n")
        #expect(try String(contentsOfFile: shell.path("adir/keep.txt"), encoding: .utf8) == "kept\n")
        #expect(ShellFiles.kind(of: shell.path("fifo")) == .fifo)
        #expect(shell.count("Department") == 1)
    }

    /// A file is read whole, straight into an array of its size: every
    /// byte, for any size, and from a descriptor part-read only what is
    /// left.
    @Test func aFileReadsAsItsBytes() throws {
        let shell = try ShellHarness()
        var random = SystemRandomNumberGenerator()
        for size in [0, 1, 65_535, 65_536 * 3 + 7, 300_001] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            try shell.write("bytes.bin", Data(bytes))
            #expect(try ShellFiles.readData(shell.path("bytes.bin"), shownAs: "bytes.bin") == bytes, "\(size)")
            guard size > 10 else { continue }
            let descriptor = open(shell.path("bytes.bin"), O_RDONLY)
            defer { close(descriptor) }
            #expect(lseek(descriptor, 10, SEEK_SET) == 10)
            #expect(try ShellFiles.readAll(descriptor: descriptor, shownAs: "bytes.bin") == Array(bytes[10...]), "\(size)")
        }
    }

    /// A file large enough for its buffer to be advised into 2 MB pages
    /// reads as its bytes too: from the start, and from a descriptor
    /// part-read (the buffer then starts at another offset in its pages).
    @Test func aLargeFileReadIntoLargePagesReadsAsItsBytes() throws {
        let shell = try ShellHarness()
        let size = ShellFiles.largePagesMinimum + 3 * (2 << 20) + 4_097
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            for n in 0..<size {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                buffer[n] = UInt8(truncatingIfNeeded: state >> 56)
            }
            initialized = size
        }
        try shell.write("large.bin", Data(bytes))
        #expect(try ShellFiles.readData(shell.path("large.bin"), shownAs: "large.bin") == bytes)
        let descriptor = open(shell.path("large.bin"), O_RDONLY)
        defer { close(descriptor) }
        #expect(lseek(descriptor, 4_095, SEEK_SET) == 4_095)
        #expect(try ShellFiles.readAll(descriptor: descriptor, shownAs: "large.bin") == Array(bytes[4_095...]))
    }

    /// What the store commands check, without pointing SQLite at a device
    /// (as root, a bug here would replace /dev/null).
    @Test func devicesAreNeitherStoresNorSaveAsTargets() {
        #expect(ShellFiles.kind(of: "/dev/null") == .device)
        #expect(throws: ShellFiles.Problem.self) { try ShellFiles.checkStorePath("/dev/null", shownAs: "/dev/null") }
        #expect(throws: ShellFiles.Problem.self) { try ShellFiles.checkNewStorePath("/dev/null", shownAs: "/dev/null") }
        #expect(throws: ShellFiles.Problem.self) { try ShellFiles.checkModelPath("/dev/zero", shownAs: "/dev/zero") }
    }

    @Test func saveAsANewFileStillWorks() throws {
        let shell = try ShellHarness()
        #expect(shell.run("insert Department { name: \"Eng\" }\nsave").ok)
        #expect(shell.run(".save-as copy.sqlite").text == "saved as copy.sqlite (sqlite)\n")
        #expect(ShellFiles.kind(of: shell.path("copy.sqlite")) == .regular)
        #expect(shell.count("Department") == 1)
    }

    @Test func pathsSplitWithoutFoundationTraps() {
        // NSString.deletingLastPathComponent traps on one character on Linux.
        #expect(ShellFiles.splitDirectory("a") == ("", "a"))
        #expect(ShellFiles.splitDirectory("/") == ("/", ""))
        #expect(ShellFiles.splitDirectory("a/") == ("a/", ""))
        #expect(ShellFiles.splitDirectory("a/b/c") == ("a/b/", "c"))
        #expect(ShellFiles.splitDirectory("") == ("", ""))
        #expect(ShellFiles.splitDirectory("é") == ("", "é"))
    }
}
