import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// The crash worker's model (Sources/mrq-crash-worker/main.swift): the two
/// must stay identical, or reopening the worker's store migrates it.
package func crashModel() throws -> ManagedObjectModel {
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

/// Whether the long variants run: `MRQ_SOAK=1 swift test --filter Crash`.
package let isSoak = ProcessInfo.processInfo.environment["MRQ_SOAK"] == "1"

/// The built `mrq-crash-worker`: `$MRQ_CRASH_WORKER`, else next to the
/// running test binary (any `--scratch-path`), else
/// `<package>/.build/debug/`.
package func crashWorkerURL(filePath: String = #filePath) throws -> URL {
    var candidates: [URL] = []
    if let path = ProcessInfo.processInfo.environment["MRQ_CRASH_WORKER"] {
        candidates.append(URL(fileURLWithPath: path))
    }
    if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("mrq-crash-worker"))
    }
    let packageRoot = URL(fileURLWithPath: filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(packageRoot.appendingPathComponent(".build/debug/mrq-crash-worker"))
    if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
        return found
    }
    Issue.record("""
        the crash worker is not built: looked for \(candidates.map(\.path).joined(separator: ", ")); \
        run `swift build --build-tests` (it builds every target) or set MRQ_CRASH_WORKER
        """)
    throw CancellationError()
}

/// A running worker process with its standard output read line by line.
package final class WorkerProcess {
    package let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer: [UInt8] = []
    private var atEnd = false

    package init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Only the child may hold the write ends, so reads see end of file
        // once it is gone.
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
    }

    package var pid: Int32 { process.processIdentifier }

    /// The next line, or nil at end of file (the worker exited).
    package func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if atEnd { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(output.fileHandleForReading.fileDescriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { atEnd = true } else { buffer += chunk[..<n] }
        }
    }

    /// Every line left, up to end of file.
    package func remainingLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }

    package func killAndWait() {
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    package func waitForExit() { process.waitUntilExit() }

    package var wasKilled: Bool {
        process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    package var standardError: String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}

/// A seeded generator, so that a failing run can be replayed with
/// `MRQ_SEED=<seed>`.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
