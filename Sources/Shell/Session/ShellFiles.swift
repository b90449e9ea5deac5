import Foundation

/// Files that statements and dot commands name: where they are, what they
/// are, and reading and writing them without a trap.
///
/// ```swift
/// let path = ShellFiles.resolve("~/people.mrq", relativeTo: base)
/// let text = try ShellFiles.readText(path, shownAs: "~/people.mrq")
/// ```
///
/// Foundation's conveniences are not used on names a user types: on Linux
/// `NSString.deletingLastPathComponent` traps on a one-character path and
/// `FileHandle`'s writes trap on any error (`/dev/full`, a closed pipe).
package enum ShellFiles {
    /// What is at a path.
    package enum Kind: Equatable {
        case missing, regular, directory, fifo, device, socket, other
    }

    /// The problem with a file, as a message that names it.
    package struct Problem: Error, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    // MARK: - Names

    /// `path` with a leading `~` or `~/` replaced by the home directory,
    /// made absolute against `base`.
    static func resolve(_ path: String, relativeTo base: URL) -> String {
        let expanded = expandingTilde(path)
        if expanded.hasPrefix("/") { return expanded }
        let directory = base.path
        if expanded.isEmpty { return directory }
        return directory.hasSuffix("/") ? directory + expanded : directory + "/" + expanded
    }

    /// `~` and `~/…` in the home directory; `~user` is left alone.
    static func expandingTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return homeDirectory + path.dropFirst()
    }

    static var homeDirectory: String {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
        return home.isEmpty ? NSHomeDirectory() : home
    }

    /// Splits a typed path at its last `/`: `Samples/peo` is `Samples/`
    /// and `peo`, `/x` is `/` and `x`, `x` is `` and `x`.
    static func splitDirectory(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let afterSlash = path.index(after: slash)
        return (String(path[..<afterSlash]), String(path[afterSlash...]))
    }

    // MARK: - Kinds

    /// What is at `path`, following symbolic links.
    package static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFCHR, S_IFBLK: return .device
        case S_IFSOCK: return .socket
        default: return .other
        }
    }

    static func describe(_ kind: Kind) -> String {
        switch kind {
        case .missing: return "no such file"
        case .regular: return "a file"
        case .directory: return "a directory"
        case .fifo: return "a named pipe"
        case .device: return "a device"
        case .socket: return "a socket"
        case .other: return "not a regular file"
        }
    }

    /// The POSIX error as a lowercase phrase: "permission denied".
    static func reason(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        let phrase = String(cString: text)
        return phrase.prefix(1).lowercased() + phrase.dropFirst()
    }

    // MARK: - Reading

    /// The bytes of the regular file (or pipe) at `path`; `shown` is the
    /// name the user gave, for the message. Directories and devices are
    /// refused (a device such as /dev/zero never ends).
    static func readData(_ path: String, shownAs shown: String) throws(Problem) -> [UInt8] {
        let kind = kind(of: path)
        switch kind {
        case .regular, .fifo: break
        case .missing: throw Problem(message: ShellDiagnostics.cannotRead(shown, because: "no such file"))
        default: throw Problem(message: ShellDiagnostics.cannotRead(shown, because: "it is \(describe(kind)), not a file"))
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Problem(message: ShellDiagnostics.cannotRead(shown, because: reason(errno))) }
        defer { close(descriptor) }
        return try readAll(descriptor: descriptor, shownAs: shown)
    }

    /// Everything left to read from an open descriptor (standard input).
    package static func readAll(descriptor: Int32, shownAs shown: String) throws(Problem) -> [UInt8] {
        func failure(_ code: Int32) -> Problem {
            // EINTR is Ctrl-C while a pipe keeps us waiting.
            Problem(message: ShellDiagnostics.cannotRead(shown, because: code == EINTR ? "interrupted" : reason(code)))
        }
        var data: [UInt8] = []
        // A file's size, read at once straight into the array: growing by
        // doubling would hold up to twice the file (49 MB of JSON read
        // into 98), and a buffer between would copy it all once more. A
        // file that grows meanwhile is read on below; one that shrinks
        // ends where it ends.
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 {
            let size = Int(info.st_size)
            var code: Int32 = 0
            data = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                adviseLargePages(base, size)
                while initialized < size {
                    let count = read(descriptor, base + initialized, size - initialized)
                    if count <= 0 {
                        if count < 0 { code = errno }
                        return
                    }
                    initialized += count
                }
            }
            if code != 0 { throw failure(code) }
            if data.count < size { return data }
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 { throw failure(errno) }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Files at least this large are read into 2 MB pages where the
    /// kernel has them (`adviseLargePages`).
    static let largePagesMinimum = 8 << 20

    /// Asks the kernel to back a large buffer about to be filled whole
    /// with 2 MB pages (transparent huge pages, where enabled): reading a
    /// 49 MB file into 4 KB pages takes 12,000 page faults, each zeroing
    /// its page and then copied over (mrq-bench m. shell import: the read
    /// took 27 ms of which 15 ms were those faults; freeing it 3 ms more).
    /// Only advice: where the kernel has no such pages, or they are
    /// turned off, the buffer is filled as before.
    private static func adviseLargePages(_ base: UnsafeMutablePointer<UInt8>, _ size: Int) {
        guard size >= largePagesMinimum else { return }
        let page = 2 << 20
        let start = (Int(bitPattern: base) + page - 1) / page * page
        let end = (Int(bitPattern: base) + size) / page * page
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, end - start, MADV_HUGEPAGE)
    }

    /// The text of a script file: UTF-8, without NUL bytes (a binary file
    /// would otherwise be run, and its bytes echoed in the errors).
    package static func readText(_ path: String, shownAs shown: String) throws(Problem) -> String {
        let data = try readData(path, shownAs: shown)
        // `sqlite3 file.db` opens the database; `mrq file.db` would read it
        // as a script: say what it is and how mrq opens it.
        if data.starts(with: sqliteHeader) {
            throw Problem(message: ShellDiagnostics.cannotRead(
                shown, because: "it is an SQLite database, not a script (open a store with --store FILE, or .open FILE at the prompt)"))
        }
        return try text(of: data, shownAs: shown)
    }

    /// The first 16 bytes of every SQLite database file.
    private static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// `data` as UTF-8 text, or the line where it stops being text.
    package static func text(of data: [UInt8], shownAs shown: String) throws(Problem) -> String {
        var line = 1
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var text = ""
        text.reserveCapacity(data.count)
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\0" {
                    throw Problem(message: ShellDiagnostics.cannotRead(shown, because: "it is not a text file (a NUL byte on line \(line))"))
                }
                if scalar == "\n" { line += 1 }
                text.unicodeScalars.append(scalar)
            case .emptyInput:
                return text
            case .error:
                throw Problem(message: ShellDiagnostics.cannotRead(shown, because: "it is not UTF-8 text (line \(line))"))
            }
        }
    }

    // MARK: - Checks before opening

    /// Refuses a store path that is not a file (a directory, a device such
    /// as /dev/null, a named pipe): SQLite would block on a pipe, and
    /// write beside a device.
    package static func checkStorePath(_ path: String, shownAs shown: String) throws(Problem) {
        let kind = kind(of: path)
        guard kind == .regular || kind == .missing else {
            throw Problem(message: ShellDiagnostics.cannotOpenStore(shown, because: "it is \(describe(kind)), not a store file"))
        }
    }

    /// Refuses a model path that is neither a bundle (a directory) nor a
    /// file: reading a device or a pipe might never end.
    package static func checkModelPath(_ path: String, shownAs shown: String) throws(Problem) {
        let kind = kind(of: path)
        switch kind {
        case .regular, .directory: return
        case .missing: throw Problem(message: ShellDiagnostics.cannotReadModel(shown, because: "no such file or directory"))
        default: throw Problem(message: ShellDiagnostics.cannotReadModel(shown, because: "it is \(describe(kind))"))
        }
    }

    /// Refuses to send results into a database (the open store or any
    /// other SQLite file): `.output` empties the file it names.
    static func checkOutputPath(_ path: String, shownAs shown: String) throws(Problem) {
        guard kind(of: path) == .regular, let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.starts(with: sqliteHeader) {
            throw Problem(message: ShellDiagnostics.cannotWrite(shown, because: "it is a SQLite database, which .output would empty"))
        }
    }

    /// Refuses to copy a store onto anything that exists: `.save-as`
    /// would replace it, and a store, a directory or a device is not
    /// something to lose by a typo.
    static func checkNewStorePath(_ path: String, shownAs shown: String) throws(Problem) {
        let kind = kind(of: path)
        if kind == .missing {
            let parent = splitDirectory(path).directory
            if self.kind(of: parent.isEmpty ? "." : parent) != .directory {
                var shownParent = splitDirectory(shown).directory
                if shownParent.count > 1, shownParent.hasSuffix("/") { shownParent.removeLast() }
                throw Problem(message: ShellDiagnostics.cannotSaveAs(shown, because: "its directory '\(shownParent.isEmpty ? "." : shownParent)' does not exist"))
            }
            return
        }
        let what = kind == .regular ? "a file" : describe(kind)
        throw Problem(message: ShellDiagnostics.cannotSaveAs(shown, because: "\(what) is already there; remove it first or choose another name"))
    }
}

/// `.output FILE` and `.once FILE`: results written to a file, a pipe or a
/// device, in blocks, with every failure reported rather than trapped.
final class FileOutput {
    let path: String
    /// The name as typed, for messages.
    let shownName: String
    private let descriptor: Int32
    /// Results not written yet: they go out in blocks of `blockSize`, and
    /// at the end of each statement (``flush()``).
    private var buffer = ""
    private static let blockSize = 64 * 1024

    /// Opens `path` for writing: a regular file is created or emptied; a
    /// device (`/dev/null`, a terminal) is written as it is; a named pipe
    /// with no reader yet is waited for, after `waiting` says so (Ctrl-C
    /// gives up); `/dev/stdout`, `/dev/stderr` and `/dev/fd/N` write to
    /// mrq's own descriptor, where the output already stands, rather than
    /// opening the file again from its start.
    init(path: String, shownAs shown: String, waiting: () -> Void = {}) throws(ShellFiles.Problem) {
        self.path = path
        shownName = shown
        let kind = ShellFiles.kind(of: path)
        if kind == .directory {
            throw ShellFiles.Problem(message: ShellDiagnostics.cannotWrite(shown, because: "it is a directory"))
        }
        if let inherited = Self.inheritedDescriptor(path) {
            let descriptor = fcntl(inherited, F_DUPFD_CLOEXEC, 3)
            guard descriptor >= 0 else {
                throw ShellFiles.Problem(message: ShellDiagnostics.cannotWrite(shown, because: ShellFiles.reason(errno)))
            }
            self.descriptor = descriptor
            return
        }
        // O_NONBLOCK: a pipe with no reader fails with ENXIO instead of
        // waiting unannounced; it is cleared again once the file is open.
        var descriptor = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
        if descriptor < 0, errno == ENXIO, kind == .fifo {
            waiting()
            // Ctrl-C's signal ends the wait with EINTR (mrq's handler does
            // not restart calls).
            descriptor = open(path, O_WRONLY | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            let code = errno
            throw ShellFiles.Problem(message: ShellDiagnostics.cannotWrite(shown, because: code == EINTR ? "interrupted" : ShellFiles.reason(code)))
        }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, ftruncate(descriptor, 0) != 0 {
            let code = errno
            close(descriptor)
            throw ShellFiles.Problem(message: ShellDiagnostics.cannotWrite(shown, because: ShellFiles.reason(code)))
        }
        self.descriptor = descriptor
    }

    /// The descriptor `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or
    /// `/proc/self/fd/N` names, when it is open.
    static func inheritedDescriptor(_ path: String) -> Int32? {
        let number: Int32?
        switch path {
        case "/dev/stdin": number = 0
        case "/dev/stdout": number = 1
        case "/dev/stderr": number = 2
        default:
            let prefix = ["/dev/fd/", "/proc/self/fd/"].first { path.hasPrefix($0) }
            number = prefix.flatMap { Int32(path.dropFirst($0.count)) }
        }
        guard let number, fcntl(number, F_GETFD) != -1 else { return nil }
        return number
    }

    /// Adds `text`, writing a block once there is one; throws with the
    /// reason when the file takes no more (a full disk, a pipe whose
    /// reader left).
    func write(_ text: String) throws(ShellFiles.Problem) {
        buffer += text
        if buffer.utf8.count >= Self.blockSize { try flush() }
    }

    /// Writes what is held.
    func flush() throws(ShellFiles.Problem) {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        let code = DescriptorWriter.writeAll(descriptor, buffer)
        guard code == 0 else {
            throw ShellFiles.Problem(message: ShellDiagnostics.cannotWrite(shownName, because: ShellFiles.reason(code)))
        }
    }

    deinit {
        try? flush()
        close(descriptor)
    }
}

/// Writing to a file descriptor with `write(2)`: every byte, retrying
/// after a signal, and an error number instead of a trap.
///
/// ```swift
/// if DescriptorWriter.writeAll(STDOUT_FILENO, "hello\n") == EPIPE { … }
/// ```
package enum DescriptorWriter {
    /// Writes all of `text`; returns 0, or the `errno` of the write that
    /// failed.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return 0 }
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }
}
