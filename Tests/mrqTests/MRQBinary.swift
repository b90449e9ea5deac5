import Foundation
import Testing

/// The built `mrq` executable, and a way to run it without a terminal.
enum MRQBinary {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `mrq` built with the running test binary (next to it, so any
    /// `--scratch-path` tests its own build), else `.build/debug/mrq`.
    static let path: String = {
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let sibling = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("mrq").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
        }
        return packageRoot.appendingPathComponent(".build/debug/mrq").path
    }()

    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: path) }

    static let notBuilt: Comment = "mrq is not built: run `swift build --product mrq` first (looked next to the test binary and in .build/debug/mrq)"

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `mrq` with `stdin` piped in (or /dev/null), never a terminal.
    /// `stdoutPath` sends standard output to a file (a device such as
    /// /dev/full) instead of capturing it.
    static func run(_ arguments: [String], stdin: String? = nil, stdoutPath: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MRQ_HISTORY"] = "/dev/null"
        process.environment = environment
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        if let stdoutPath, let handle = FileHandle(forWritingAtPath: stdoutPath) {
            process.standardOutput = handle
            try output.fileHandleForWriting.close()
        } else {
            process.standardOutput = output
        }
        process.standardError = errors
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting, so a chatty mrq cannot block.
        let errorData = ThreadSafeBox<Data>()
        let errorReader = Thread { errorData.value = errors.fileHandleForReading.readDataToEndOfFile() }
        errorReader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errorData.value == nil { usleep(1000) }
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData.value ?? Data(), as: UTF8.self)
        )
    }

    /// Runs `script` with bash (in `directory` if given), the built mrq
    /// first on the PATH; returns its status and its standard output and
    /// error together.
    static func bash(_ script: String, in directory: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = URL(fileURLWithPath: path).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["MRQ_HISTORY"] = "/dev/null"
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A temporary file holding `contents`, removed by the caller.
    static func temporaryFile(_ contents: String, suffix: String = ".mrq") throws -> String {
        let path = NSTemporaryDirectory() + "mrq-test-\(UUID().uuidString)\(suffix)"
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// A value handed from one thread to another.
final class ThreadSafeBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
