import Foundation
import Predicates

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file that something untrusted names (a store's external data
/// reference, a model bundle's current version) below a folder that the
/// user named, and never anywhere else.
///
/// ```swift
/// let data = try ContainedFile.read([".Notes_SUPPORT", "_EXTERNAL_DATA", name],
///                                   below: "/cases/17", limit: ExternalBinaryData.sizeLimit)
/// ```
///
/// Each name must be one path component (no `/`, not `.` or `..`, not
/// empty). The walk opens the folder, then each component with `openat`
/// below the one before, after checking with `fstatat` (not following
/// links) what it is: a symbolic link anywhere below the folder is
/// refused, whatever it points at, and so are FIFOs, devices and sockets
/// (which are never opened: a FIFO would wait for a writer, a device may
/// act when opened). The file is opened with `O_NOFOLLOW` too, checked
/// again with `fstat` on the open descriptor (the same file, still a
/// regular one), and its size is checked against `limit` before anything
/// is allocated. Reading asks for `O_NOATIME` where the system has it, so
/// that an examiner's reading leaves even the access time as it was.
enum ContainedFile {
    /// Why a file was not read: a phrase to follow the file's name
    /// (`'x' is a symbolic link, which mrq does not follow`).
    struct Refusal: Error, Equatable, CustomStringConvertible {
        enum Kind: Equatable {
            /// A component that is not one plain name.
            case badName
            /// A symbolic link.
            case symbolicLink
            /// Not a regular file (or, on the way, not a directory).
            case wrongKind
            /// Nothing by that name.
            case missing
            /// Larger than the limit.
            case tooLarge
            /// The system refused to open or read it.
            case unreadable
        }
        let kind: Kind
        /// The path below the folder up to the component at fault
        /// (`.Notes_SUPPORT/_EXTERNAL_DATA`), its characters escaped.
        let path: String
        /// Why, as a phrase: `is a symbolic link, which mrq does not follow`.
        let reason: String

        var description: String { "'\(path)' \(reason)" }
    }

    /// The bytes of the regular file `components` names below `folder`;
    /// throws a `Refusal` saying which component is at fault and why.
    /// (The functions here throw `Refusal` only, though they do not say so:
    /// typed throws caught with `catch let … as` crashed Swift 6.3's SIL
    /// ownership verifier.)
    static func read(_ components: [String], below folder: String, limit: Int) throws -> Data {
        let shown = display(components)
        let descriptor = try openFile(components, below: folder)
        defer { close(descriptor) }
        return try readAll(descriptor, limit: limit, shown: shown)
    }

    /// The bytes of the regular file at `path`, which the user named: it
    /// may be a link. The same checks otherwise: a regular file, no
    /// bigger than `limit`.
    static func read(path: String, limit: Int) throws -> Data {
        let shown = display([path])
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            throw Refusal(kind: code == ENOENT ? .missing : .unreadable, path: shown,
                          reason: code == ENOENT ? "is missing" : "cannot be examined (\(reason(code)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Refusal(kind: .wrongKind, path: shown, reason: "is \(describe(info.st_mode & S_IFMT)), not a file")
        }
        let descriptor = systemOpen(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Refusal(kind: .unreadable, path: shown, reason: "cannot be opened (\(reason(errno)))")
        }
        defer { close(descriptor) }
        return try readAll(descriptor, limit: limit, shown: shown)
    }

    /// Whether the regular file `components` names below `folder` is
    /// there, walked as `read` walks: nil when it is, else why not.
    static func checkFile(_ components: [String], below folder: String) -> Refusal? {
        check(components) { try openFile(components, below: folder) }
    }

    /// Reads an open regular file whole, after checking on the descriptor
    /// that it is one and no bigger than `limit`.
    private static func readAll(_ descriptor: Int32, limit: Int, shown: String) throws -> Data {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Refusal(kind: .wrongKind, path: shown, reason: "is not a file")
        }
        let size = Int(info.st_size)
        guard size <= limit else {
            throw Refusal(kind: .tooLarge, path: shown, reason: "is \(size) bytes, more than mrq reads (\(limit))")
        }
        // Opened without waiting in case a FIFO took the file's place;
        // reading a regular file waits for nothing anyway.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        var data = Data(count: size)
        var filled = 0
        let failure: Int32? = data.withUnsafeMutableBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            while filled < size {
                let count = systemRead(descriptor, base + filled, size - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 { break }  // shorter than it was: keep what there is
                filled += count
            }
            return nil
        }
        if let failure { throw Refusal(kind: .unreadable, path: shown, reason: "cannot be read (\(reason(failure)))") }
        if filled < size { data.removeSubrange(filled...) }
        return data
    }

    /// Whether the directory `components` names below `folder` is there,
    /// walked as `read` walks: nil when it is, else why not.
    static func checkDirectory(_ components: [String], below folder: String) -> Refusal? {
        check(components) { try walk(components, below: folder) }
    }

    /// Nil when `open` gives a descriptor (closed at once), else why not.
    private static func check(_ components: [String], _ open: () throws -> Int32) -> Refusal? {
        do {
            close(try open())
            return nil
        } catch {
            return error as? Refusal ?? Refusal(kind: .unreadable, path: display(components), reason: "cannot be read")
        }
    }

    /// Whether `name` is one plain path component.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0)
    }

    /// `components` joined with `/`, control characters escaped: names
    /// come from files, and end up on a terminal.
    static func display(_ components: [String]) -> String {
        var out = ""
        for scalar in components.joined(separator: "/").unicodeScalars {
            // What a terminal would act on is TerminalText's one classification.
            if TerminalText.isUnsafe(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else if scalar == "\\" {
                out += "\\\\"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// An open descriptor of the directory `components` names below
    /// `folder` (the folder itself when there are none).
    private static func walk(_ components: [String], below folder: String) throws -> Int32 {
        var current = systemOpen(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else {
            let code = errno
            throw Refusal(kind: code == ENOENT ? .missing : .unreadable, path: display([folder]),
                          reason: code == ENOENT ? "is missing" : "cannot be opened (\(reason(code)))")
        }
        for (i, name) in components.enumerated() {
            let shown = display(Array(components[...i]))
            do {
                try checkEntry(name, in: current, shown: shown, directory: true)
            } catch {
                close(current)
                throw error
            }
            let next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(current)
            guard next >= 0 else { throw Refusal(kind: .unreadable, path: shown, reason: "cannot be opened (\(reason(code)))") }
            current = next
        }
        return current
    }

    /// Throws unless `name` in the directory open as `directory` is a
    /// plain name of a directory (`directory`) or regular file.
    private static func checkEntry(_ name: String, in parent: Int32, shown: String, directory: Bool) throws {
        guard isPlainName(name) else {
            throw Refusal(kind: .badName, path: shown, reason: "is not a plain file name (it would lead out of its folder)")
        }
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            let code = errno
            if code == ENOENT { throw Refusal(kind: .missing, path: shown, reason: "is missing") }
            throw Refusal(kind: .unreadable, path: shown, reason: "cannot be examined (\(reason(code)))")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK {
            throw Refusal(kind: .symbolicLink, path: shown, reason: "is a symbolic link, which mrq does not follow")
        }
        let wanted = directory ? S_IFDIR : S_IFREG
        guard type == wanted else {
            throw Refusal(kind: .wrongKind, path: shown, reason: "is \(describe(type)), not \(directory ? "a folder" : "a file")")
        }
    }

    /// The file `components` names below `folder`, open for reading.
    private static func openFile(_ components: [String], below folder: String) throws -> Int32 {
        guard let name = components.last else {
            throw Refusal(kind: .badName, path: "", reason: "is not a plain file name")
        }
        let shown = display(components)
        let parent = try walk(Array(components.dropLast()), below: folder)
        defer { close(parent) }
        try checkEntry(name, in: parent, shown: shown, directory: false)
        // Not a FIFO or a device (checked above), and O_NONBLOCK in case
        // one took its place since.
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        #if os(Linux)
        // O_NOATIME: only the file's owner (or root) may ask; others read
        // without it.
        let noAccessTime: Int32 = 0o1000000
        var descriptor = openat(parent, name, flags | noAccessTime)
        if descriptor < 0 && errno == EPERM { descriptor = openat(parent, name, flags) }
        #else
        let descriptor = openat(parent, name, flags)
        #endif
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP { throw Refusal(kind: .symbolicLink, path: shown, reason: "is a symbolic link, which mrq does not follow") }
            throw Refusal(kind: .unreadable, path: shown, reason: "cannot be opened (\(reason(code)))")
        }
        return descriptor
    }

    private static func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags)
        #else
        Darwin.open(path, flags)
        #endif
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFREG: "a file"
        default: "not a file"
        }
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}
